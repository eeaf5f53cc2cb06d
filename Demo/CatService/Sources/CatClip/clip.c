#include "CatClip.h"

// C23's #embed (clang 19 and later, as in every Swift 6.2 toolchain): the file's bytes as the
// array's initializer, read by the compiler (which lists the file in its dependencies, so a new
// clip rebuilds this). A Swift [UInt8] literal of the same 325,054 bytes took 4 minutes to compile.
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char clip[] = {
#embed "../CatServiceCore/Resources/cat.mp4"
};

const unsigned char *cat_clip_bytes(void) { return clip; }

unsigned long cat_clip_count(void) { return sizeof clip; }
