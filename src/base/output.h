/* The writer's library-internal side (not part of the public API). */
#ifndef TL_BASE_OUTPUT_H
#define TL_BASE_OUTPUT_H

#include <tailor/output.h>

/* Protects a file known by device and inode (e.g. an input already open); `label` names it
 * in messages. */
tl_result tl_output_protect_id(tl_output* output, uint64_t dev, uint64_t ino, const char* label,
                               tl_error* err);

#endif
