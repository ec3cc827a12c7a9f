/* tailor/output.h — the one way tailor writes files.
 *
 * Every file a command writes (a .glb, a .gltf and its .bin files, a JSON report) is a part
 * of one tl_output. A part is written in full to a temporary file in its target's folder
 * (".tl-PID-N.tmp": short, so a 250-character file name still works; unique per process
 * and call, so concurrent writers never share one), and nothing is renamed into place
 * until every part is complete: tl_output_commit renames them all, in the order they were
 * added. A failure anywhere, or tl_output_destroy without a commit, removes every
 * temporary file and leaves every target as it was.
 *
 * A part is refused (with a message naming the file and why) when its target
 *   - is a file the output protects (an input: compared by device and inode, so a symlink
 *     or a hard link to the input is refused too),
 *   - exists and is not a regular file (a device, /dev/null, a FIFO, a folder),
 *   - exists and overwriting was not asked for (TL_ERROR_EXISTS),
 *   - is the target of another part of the same output.
 * The checks run when the part is added and again just before the renames.
 *
 * Example:
 *     tl_output* out; tl_error err;
 *     tl_output_create(&out, &err);
 *     tl_output_protect(out, "in.glb", &err);
 *     tl_gltf_save_add(doc, "out.gltf", &save, out, &err);    (out.bin, then out.gltf)
 *     tl_output_add(out, "report.json", text, strlen(text), true, &err);
 *     tl_output_commit(out, &err);                              (all three, or none)
 *     tl_output_destroy(out);
 */
#ifndef TAILOR_OUTPUT_H
#define TAILOR_OUTPUT_H

#include <tailor/base.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_output tl_output;

/* An empty output (allocates). */
tl_result tl_output_create(tl_output** out, tl_error* err);

/* Removes the temporary file of every part not committed, then frees. NULL is fine. */
void tl_output_destroy(tl_output* output);

/* No part may replace this file (an input). A path that does not exist protects nothing;
 * any other failure to stat it is TL_ERROR_IO. */
tl_result tl_output_protect(tl_output* output, const char* path, tl_error* err);

/* Checks the target (see above) and writes `size` bytes to a new temporary file beside it.
 * `overwrite` false: an existing target is TL_ERROR_EXISTS. On failure nothing is left. */
tl_result tl_output_add(tl_output* output, const char* path, const void* data, size_t size,
                        bool overwrite, tl_error* err);

/* Checks every target again and renames every part into place. After a failure the parts
 * not yet renamed are removed. An output is committed once. */
tl_result tl_output_commit(tl_output* output, tl_error* err);

/* Number of parts added so far. */
uint32_t tl_output_part_count(const tl_output* output);

#ifdef __cplusplus
}
#endif

#endif
