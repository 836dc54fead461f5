#ifndef CZSTD_H
#define CZSTD_H
#include <stddef.h>

/// zstd without its headers: libzstd.so.1 is opened at run time (dlopen) and the handful of
/// functions the archive uses are looked up by name. The build needs no zstd package; a machine
/// without the library falls back to zlib (see ArchiveCodec.swift).

/// 1 when libzstd could be loaded (once per process); 0 otherwise. Setting the environment
/// variable SUBDASH_DISABLE_ZSTD to a non-empty value makes the load fail, for tests.
int czstd_load(void);
/// Why the load failed, or NULL when it did not.
const char *czstd_load_error(void);

size_t czstd_compress_bound(size_t size);
void *czstd_create_cctx(void);
void czstd_free_cctx(void *context);
size_t czstd_compress_cctx(void *context, void *destination, size_t capacity,
                           const void *source, size_t size, int level);
size_t czstd_decompress(void *destination, size_t capacity, const void *source, size_t size);
unsigned czstd_is_error(size_t code);

/// Trained dictionaries (zstd's stable dictionary API and ZDICT_trainFromBuffer), looked up
/// separately: 1 when the loaded library has them. Used by subdash-bench to measure whether a
/// dictionary per document kind is worth it (docs/performance.md, "The archive's compact layout").
int czstd_dictionaries_available(void);
size_t czstd_train_dictionary(void *dictionary, size_t capacity, const void *samples, const size_t *sizes,
                              unsigned count);
void *czstd_create_cdict(const void *dictionary, size_t size, int level);
void czstd_free_cdict(void *cdict);
size_t czstd_compress_cdict(void *context, void *destination, size_t capacity, const void *source, size_t size,
                            const void *cdict);
void *czstd_create_ddict(const void *dictionary, size_t size);
void czstd_free_ddict(void *ddict);
void *czstd_create_dctx(void);
void czstd_free_dctx(void *context);
size_t czstd_decompress_ddict(void *context, void *destination, size_t capacity, const void *source, size_t size,
                              const void *ddict);

#endif
