// The clip that GET /api/clip serves (Sources/CatServiceCore/Resources/cat.mp4), compiled into
// the binary by clip.c: no resource bundle beside the executable to install, and no Foundation
// `Bundle` to find one (a `resources:` list makes SwiftPM generate a `Bundle.module` accessor,
// which links libFoundation and ICU, 8 MiB of the server's memory).
#ifndef CAT_CLIP_H
#define CAT_CLIP_H

/// The clip's first byte; the bytes are read-only, in the binary's .rodata, for the process's life.
const unsigned char *cat_clip_bytes(void);

/// How many bytes the clip has.
unsigned long cat_clip_count(void);

#endif
