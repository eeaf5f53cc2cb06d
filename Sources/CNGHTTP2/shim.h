// libnghttp2 1.52 (Debian 12's libnghttp2-dev) for WhiskerHTTP2. Its session API
// (nghttp2_session_mem_recv/mem_send, nghttp2_submit_response, nghttp2_data_provider) is plain
// functions and structs that import as they are; only the flag and error constants that are
// enum members need no help either. Nothing to shim yet.
#ifndef WHISKER_CNGHTTP2_SHIM_H
#define WHISKER_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#endif
