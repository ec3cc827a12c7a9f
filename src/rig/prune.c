/* A clean rigged file: the inverse-bind and JOINTS/WEIGHTS accessors a rig replaced are not
 * left behind. Each replaced accessor nothing references any more takes the place of one of
 * the accessors the rig added (only the rig's own attributes and skins point at those), so no
 * other reference in the file is renumbered; their bufferViews are then unreferenced and a
 * compacting save drops their bytes. */
#include "internal.h"
#include <tailor/gltf_json.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Calls fn on every accessor reference in the places glTF puts them: primitive attributes,
 * indices and morph targets, skins' inverse binds, animation samplers, and
 * EXT_mesh_gpu_instancing attributes. */
static void foreach_accessor_ref(json_t* root, void (*fn)(json_t* ref, void* user), void* user) {
    size_t i, j, k;
    json_t *mesh, *prim, *target, *skin, *anim, *sampler, *node;
    const char* key;
    json_t* v;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh) {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim) {
            json_object_foreach(json_object_get(prim, "attributes"), key, v) fn(v, user);
            if (json_object_get(prim, "indices")) fn(json_object_get(prim, "indices"), user);
            json_array_foreach(json_object_get(prim, "targets"), k, target) {
                json_object_foreach(target, key, v) fn(v, user);
            }
        }
    }
    json_array_foreach(json_object_get(root, "skins"), i, skin) {
        if (json_object_get(skin, "inverseBindMatrices"))
            fn(json_object_get(skin, "inverseBindMatrices"), user);
    }
    json_array_foreach(json_object_get(root, "animations"), i, anim) {
        json_array_foreach(json_object_get(anim, "samplers"), j, sampler) {
            if (json_object_get(sampler, "input")) fn(json_object_get(sampler, "input"), user);
            if (json_object_get(sampler, "output")) fn(json_object_get(sampler, "output"), user);
        }
    }
    json_array_foreach(json_object_get(root, "nodes"), i, node) {
        json_t* inst =
            json_object_get(json_object_get(node, "extensions"), "EXT_mesh_gpu_instancing");
        json_object_foreach(json_object_get(inst, "attributes"), key, v) fn(v, user);
    }
}

typedef struct uses {
    uint32_t* count;
    size_t n;
} uses;

static void count_use(json_t* ref, void* user) {
    uses* u = user;
    json_int_t a = json_integer_value(ref);
    if (json_is_integer(ref) && a >= 0 && (size_t)a < u->n) ++u->count[a];
}

typedef struct move {
    json_int_t from, to;
} move;

static void move_ref(json_t* ref, void* user) {
    const move* m = user;
    if (json_is_integer(ref) && json_integer_value(ref) == m->from) json_integer_set(ref, m->to);
}

tl_result rig_prune_accessors(tl_gltf* doc, const uint32_t* replaced, uint32_t replaced_count,
                              uint32_t first_new, tl_error* err) {
    json_t* root = tl_gltf_json(doc);
    json_t* accessors = json_object_get(root, "accessors");
    size_t n = json_array_size(accessors);
    uses u = {calloc(n + 1, sizeof(uint32_t)), n};
    if (!u.count) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    foreach_accessor_ref(root, count_use, &u);
    for (uint32_t i = 0; i < replaced_count; ++i) {
        uint32_t g = replaced[i];
        size_t last = json_array_size(accessors);
        if (g >= first_new || g >= last || u.count[g] != 0 || last - 1 < first_new) continue;
        u.count[g] = 1; /* a slot is filled once (a list may repeat it) */
        move m = {(json_int_t)(last - 1), (json_int_t)g};
        json_array_set(accessors, g, json_array_get(accessors, last - 1));
        json_array_remove(accessors, last - 1);
        foreach_accessor_ref(root, move_ref, &m);
    }
    free(u.count);
    return TL_OK;
}
