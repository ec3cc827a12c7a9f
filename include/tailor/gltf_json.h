/* tailor/gltf_json.h — the document's JSON tree, for those who want it.
 *
 * tl_gltf keeps the whole file as a jansson tree; gltf.h declares it as an opaque pointer so
 * that the rest of tailor's headers need nothing beyond the C standard library. Include this
 * header (and link jansson) to read or edit that tree directly, then call tl_gltf_reindex.
 *
 * Example:
 *     json_t* asset = json_object_get(tl_gltf_json(doc), "asset");
 *     json_object_set_new(asset, "copyright", json_string("me"));
 */
#ifndef TAILOR_GLTF_JSON_H
#define TAILOR_GLTF_JSON_H

#include <tailor/gltf.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The document's root object. Owned by the document; valid until tl_gltf_destroy. */
static inline json_t* tl_gltf_json(const tl_gltf* doc) {
    return (json_t*)doc->json;
}

#ifdef __cplusplus
}
#endif

#endif
