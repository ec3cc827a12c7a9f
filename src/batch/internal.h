/* The batch module's private helpers. */
#ifndef TL_BATCH_INTERNAL_H
#define TL_BATCH_INTERNAL_H

#include <assert.h>

#include <tailor/batch.h>

/* Splits a tl_error message "FILE: /pointer: what" (or "FILE: byte N: what") into the
 * record's error fields; `input` is the path the load was given. */
void batch_record_error(tl_batch_record* record, const char* input, const tl_error* err);

/* Makes the folders of `path` (not its last component), as mkdir -p. */
tl_result batch_make_parents(const char* path, tl_error* err);

/* Removes temporary files a killed run left beside `output` (NAME.XXXXXX from tl_gltf_save). */
void batch_remove_stale_temps(const char* output);

#endif
