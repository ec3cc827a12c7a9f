/* Reading a whole input file (library-internal). */
#ifndef TL_BASE_FILE_H
#define TL_BASE_FILE_H

#include <tailor/base.h>

#include <stddef.h>
#include <stdint.h>

/* Reads all of `path` into a new buffer (*out, free() it; one byte more, set to 0, so text can
 * be scanned as a string), refusing anything that is not a regular file and anything over
 * `max_bytes`. Opened without blocking, so a FIFO is refused by fstat instead of waiting for a
 * writer. `dev` and `ino` (optional) get the file's device and inode. */
tl_result tl_file_read(const char* path, uint64_t max_bytes, uint8_t** out, size_t* size,
                       uint64_t* dev, uint64_t* ino, tl_error* err);

#endif
