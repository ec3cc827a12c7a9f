/* tailor/file.h — reading a user's file: the one way every tailor reader opens what it is
 * given, so that a FIFO, a device or a folder in place of a file is refused at once instead of
 * waited on, and a file is read only up to a size limit (docs/hostile.md).
 */
#ifndef TAILOR_FILE_H
#define TAILOR_FILE_H

#include <tailor/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads all of a user's file at `path` into a new buffer (*out, free() it; one byte more, set
 * to 0, so text can be scanned as a string), refusing anything that is not a regular file and
 * anything over `max_bytes` (TL_ERROR_LIMIT). Opened without blocking, so a FIFO or a device is
 * refused at once ("not a regular file (a FIFO)", TL_ERROR_IO) instead of waiting for a writer.
 * `dev` and `ino` (optional) get the file's device and inode. Every reader of user files in
 * tailor goes through this or tl_file_open. */
tl_result tl_file_read(const char* path, uint64_t max_bytes, uint8_t** out, size_t* size,
                       uint64_t* dev, uint64_t* ino, tl_error* err);

/* Opens a user's regular file for reading as tl_file_read does (never blocking, anything else
 * refused) and returns its descriptor in *fd, for readers that stream (close() it). */
tl_result tl_file_open(const char* path, int* fd, tl_error* err);

/* Refuses JSON text holding a NUL byte (TL_ERROR_FORMAT, "LABEL: byte N: a NUL byte in JSON
 * text", N counted from `first_byte`, the text's offset in its file). JSON has no NUL outside a
 * \u0000 escape, and jansson skips one that follows a number or a literal, so without this
 * check `{"scene":0<NUL>,...}` would load as if the NUL were not there. Call it on the bytes
 * before json_loadb. */
tl_result tl_file_check_json_text(const void* text, size_t size, size_t first_byte,
                                  const char* label, tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
