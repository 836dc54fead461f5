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
