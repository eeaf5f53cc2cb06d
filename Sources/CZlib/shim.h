// zlib from the system (Debian 12's zlib1g-dev) for WhiskerCompression. deflateInit2 and
// inflateInit2 are macros (they pass the library's version and stream size to deflateInit2_ and
// inflateInit2_), which Swift cannot call: the inline functions below are those macros. (Inflate
// is for the tests, which decode what the server coded.)
#ifndef WHISKER_CZLIB_SHIM_H
#define WHISKER_CZLIB_SHIM_H

#include <zlib.h>

static inline int whisker_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int whisker_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
