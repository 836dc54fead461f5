#ifndef CZLIB_H
#define CZLIB_H
#include <zlib.h>

/// deflateInit2 / inflateInit2 are macros Swift cannot import.
static inline int czlib_deflate_init_gzip(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_auto(z_stream *s) {
    return inflateInit2(s, 15 + 32);
}
#endif
