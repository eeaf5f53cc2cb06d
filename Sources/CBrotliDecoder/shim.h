// The Brotli decoder from the system (Debian 12's libbrotli-dev), for the tests only: they decode
// what WhiskerCompression coded. The server links only the encoder.
#ifndef WHISKER_CBROTLIDECODER_SHIM_H
#define WHISKER_CBROTLIDECODER_SHIM_H

#include <brotli/decode.h>

#endif
