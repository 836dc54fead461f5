// zstd loaded at run time. The prototypes below are zstd's stable public API (zstd.h, "stable
// API" section, unchanged since 1.0): they are declared here so the build needs no zstd headers.
#include "CZstd.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef size_t (*bound_fn)(size_t);
typedef void *(*create_fn)(void);
typedef size_t (*free_fn)(void *);
typedef size_t (*compress_fn)(void *, void *, size_t, const void *, size_t, int);
typedef size_t (*decompress_fn)(void *, size_t, const void *, size_t);
typedef unsigned (*is_error_fn)(size_t);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char error_text[512];
static bound_fn p_bound;
static create_fn p_create;
static free_fn p_free;
static compress_fn p_compress;
static decompress_fn p_decompress;
static is_error_fn p_is_error;

typedef size_t (*train_fn)(void *, size_t, const void *, const size_t *, unsigned);
typedef void *(*create_cdict_fn)(const void *, size_t, int);
typedef size_t (*free_ptr_fn)(void *);
typedef size_t (*compress_cdict_fn)(void *, void *, size_t, const void *, size_t, const void *);
typedef void *(*create_ddict_fn)(const void *, size_t);
typedef size_t (*decompress_ddict_fn)(void *, void *, size_t, const void *, size_t, const void *);
static int dictionaries = 0;
static train_fn p_train;
static create_cdict_fn p_create_cdict;
static free_ptr_fn p_free_cdict;
static compress_cdict_fn p_compress_cdict;
static create_ddict_fn p_create_ddict;
static free_ptr_fn p_free_ddict;
static create_fn p_create_dctx;
static free_ptr_fn p_free_dctx;
static decompress_ddict_fn p_decompress_ddict;

static void load(void) {
    const char *disabled = getenv("SUBDASH_DISABLE_ZSTD");
    if (disabled && disabled[0]) {
        snprintf(error_text, sizeof error_text, "SUBDASH_DISABLE_ZSTD is set");
        return;
    }
    void *library = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libzstd.1.dylib", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(error_text, sizeof error_text, "%s", reason ? reason : "libzstd.so.1 not found");
        return;
    }
    p_bound = (bound_fn)dlsym(library, "ZSTD_compressBound");
    p_create = (create_fn)dlsym(library, "ZSTD_createCCtx");
    p_free = (free_fn)dlsym(library, "ZSTD_freeCCtx");
    p_compress = (compress_fn)dlsym(library, "ZSTD_compressCCtx");
    p_decompress = (decompress_fn)dlsym(library, "ZSTD_decompress");
    p_is_error = (is_error_fn)dlsym(library, "ZSTD_isError");
    if (!p_bound || !p_create || !p_free || !p_compress || !p_decompress || !p_is_error) {
        snprintf(error_text, sizeof error_text, "libzstd.so.1 lacks a function subdash needs");
        return;
    }
    loaded = 1;
    p_train = (train_fn)dlsym(library, "ZDICT_trainFromBuffer");
    p_create_cdict = (create_cdict_fn)dlsym(library, "ZSTD_createCDict");
    p_free_cdict = (free_ptr_fn)dlsym(library, "ZSTD_freeCDict");
    p_compress_cdict = (compress_cdict_fn)dlsym(library, "ZSTD_compress_usingCDict");
    p_create_ddict = (create_ddict_fn)dlsym(library, "ZSTD_createDDict");
    p_free_ddict = (free_ptr_fn)dlsym(library, "ZSTD_freeDDict");
    p_create_dctx = (create_fn)dlsym(library, "ZSTD_createDCtx");
    p_free_dctx = (free_ptr_fn)dlsym(library, "ZSTD_freeDCtx");
    p_decompress_ddict = (decompress_ddict_fn)dlsym(library, "ZSTD_decompress_usingDDict");
    dictionaries = p_train && p_create_cdict && p_free_cdict && p_compress_cdict && p_create_ddict && p_free_ddict &&
                   p_create_dctx && p_free_dctx && p_decompress_ddict;
}

int czstd_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *czstd_load_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : error_text;
}

size_t czstd_compress_bound(size_t size) { return p_bound(size); }
void *czstd_create_cctx(void) { return p_create(); }
void czstd_free_cctx(void *context) { p_free(context); }
size_t czstd_compress_cctx(void *context, void *destination, size_t capacity,
                           const void *source, size_t size, int level) {
    return p_compress(context, destination, capacity, source, size, level);
}
size_t czstd_decompress(void *destination, size_t capacity, const void *source, size_t size) {
    return p_decompress(destination, capacity, source, size);
}
unsigned czstd_is_error(size_t code) { return p_is_error(code); }

int czstd_dictionaries_available(void) { return czstd_load() && dictionaries; }
size_t czstd_train_dictionary(void *dictionary, size_t capacity, const void *samples, const size_t *sizes,
                              unsigned count) {
    return p_train(dictionary, capacity, samples, sizes, count);
}
void *czstd_create_cdict(const void *dictionary, size_t size, int level) {
    return p_create_cdict(dictionary, size, level);
}
void czstd_free_cdict(void *cdict) { p_free_cdict(cdict); }
size_t czstd_compress_cdict(void *context, void *destination, size_t capacity, const void *source, size_t size,
                            const void *cdict) {
    return p_compress_cdict(context, destination, capacity, source, size, cdict);
}
void *czstd_create_ddict(const void *dictionary, size_t size) { return p_create_ddict(dictionary, size); }
void czstd_free_ddict(void *ddict) { p_free_ddict(ddict); }
void *czstd_create_dctx(void) { return p_create_dctx(); }
void czstd_free_dctx(void *context) { p_free_dctx(context); }
size_t czstd_decompress_ddict(void *context, void *destination, size_t capacity, const void *source, size_t size,
                              const void *ddict) {
    return p_decompress_ddict(context, destination, capacity, source, size, ddict);
}
