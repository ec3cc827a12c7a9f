/* Shared between the files of the gltf module; not part of the public API. */
#ifndef TL_GLTF_INTERNAL_H
#define TL_GLTF_INTERNAL_H

#include <tailor/gltf_json.h>

/* Storage behind the document's index arrays, freed and rebuilt by tl_gltf_reindex. */
typedef struct tl_gltf_source {
    uint64_t dev, ino; /* a file the document was read from (the .gltf/.glb, a .bin) */
} tl_gltf_source;

typedef struct tl_gltf_index {
    void** blocks;
    size_t block_count, block_capacity;
    tl_gltf_source* sources; /* kept across reindexing; freed by tl_gltf_destroy */
    uint32_t source_count;
} tl_gltf_index;

tl_result tl_gltf_index_build(tl_gltf* doc, tl_error* err);
void tl_gltf_index_free(tl_gltf* doc);

/* A display name for messages: the file's base name, or "<memory>". */
const char* tl_gltf_label(const tl_gltf* doc);

/* Grows a buffer's storage to hold at least `size` bytes (the new bytes not zeroed). */
tl_result tl_gltf_buffer_reserve(tl_gltf_buffer* buffer, size_t size);

/* A relative file URI to a relative path: %XX escapes decoded; false for absolute paths,
 * schemes, ".." segments, NUL escapes or more than `cap` bytes. */
bool tl_gltf_uri_decode(const char* uri, char* out, size_t cap);

/* Base64 encoding for data: URIs (malloc'd, NUL-terminated). */
char* tl_gltf_base64_encode(const uint8_t* data, size_t size);

#endif
