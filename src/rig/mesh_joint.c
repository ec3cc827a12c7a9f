/* An unskinned mesh node under a joint (a hood or a tassel modelled apart and parented to the
 * head) made a joint of that joint's skin, so that a part can turn it (tailor rig --pendulum
 * NODE): the node is appended to the skin's joints with the inverse bind that gives it its
 * ancestor joint's skinning matrix in the stored pose. Its mesh stays unskinned and rides the
 * node, so the file shows it where it did. */
#include "internal.h"
#include "base/mat4.h"
#include <tailor/gltf_json.h>

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static bool joint_of(const tl_scene* scene, uint32_t node, uint32_t* skin, uint32_t* joint) {
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        for (uint32_t j = 0; j < scene->skins[s].joint_count; ++j)
            if (scene->skins[s].joints[j].node == node) return *skin = s, *joint = j, true;
    return false;
}

tl_result tl_rig_mesh_joint(tl_gltf* doc, const tl_scene* scene, uint32_t node, uint32_t* skin,
                            tl_error* err) {
    assert(doc && scene && skin && scene->doc == doc);
    uint32_t s, j;
    if (node >= doc->node_count)
        return tl_error_set(err, TL_ERROR_INVALID, "node %u does not exist", node);
    if (doc->nodes[node].mesh == TL_NONE || doc->nodes[node].skin != TL_NONE)
        return tl_error_set(err, TL_ERROR_INVALID, "node %u is no unskinned mesh node", node);
    if (joint_of(scene, node, &s, &j))
        return tl_error_set(err, TL_ERROR_INVALID, "node %u is already a joint", node);
    int32_t a = doc->nodes[node].parent;
    for (uint32_t guard = 0; a != TL_NONE && guard < doc->node_count; ++guard) {
        if (joint_of(scene, (uint32_t)a, &s, &j)) break;
        a = doc->nodes[a].parent;
    }
    if (a == TL_NONE || !joint_of(scene, (uint32_t)a, &s, &j))
        return tl_error_set(err, TL_ERROR_INVALID, "no ancestor of node %u is a joint of a skin",
                            node);
    /* IBM = W(node)^-1 . W(joint) . IBM(joint): in the stored pose the node skins as its joint */
    const tl_scene_joint* jt = &scene->skins[s].joints[j];
    double wn[16], wn_inv[16], wj[16], ibm_j[16], t[16], ibm_n[16];
    tl_mat4d_from_float(wn, scene->stored_world + 16 * (size_t)node);
    tl_mat4d_from_float(wj, scene->stored_world + 16 * (size_t)jt->node);
    tl_mat4d_from_float(ibm_j, jt->inverse_bind);
    if (!tl_mat4d_invert(wn_inv, wn))
        return tl_error_set(err, TL_ERROR_INVALID, "node %u: singular transform", node);
    tl_mat4d_mul(t, wn_inv, wj);
    tl_mat4d_mul(ibm_n, t, ibm_j);
    uint32_t doc_skin = scene->skins[s].skin;
    const tl_gltf_skin* gs = &doc->skins[doc_skin];
    /* the skin's inverse binds as the scene read them (identity when it has none), one more */
    const uint32_t n = scene->skins[s].joint_count;
    assert(n == gs->joint_count);
    float* ibm = malloc(16 * sizeof(float) * ((size_t)n + 1));
    if (!ibm) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t k = 0; k < n; ++k)
        memcpy(ibm + 16 * (size_t)k, scene->skins[s].joints[k].inverse_bind, 16 * sizeof(float));
    tl_mat4d_to_float(ibm + 16 * (size_t)n, ibm_n);
    tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
    def.data = ibm;
    def.count = gs->joint_count + 1;
    def.type = TL_GLTF_MAT4;
    def.component_type = TL_GLTF_FLOAT;
    uint32_t first_new = doc->accessor_count, acc;
    int32_t old = gs->inverse_bind_matrices;
    tl_result r = tl_gltf_accessor_add(doc, &def, &acc, err);
    free(ibm);
    if (r != TL_OK) return r;
    json_t* skin_json = json_array_get(json_object_get(tl_gltf_json(doc), "skins"), doc_skin);
    json_object_set_new(skin_json, "inverseBindMatrices", json_integer(acc));
    json_array_append_new(json_object_get(skin_json, "joints"), json_integer(node));
    /* the old inverse binds, unused now, take the new accessor's place (no UNUSED_OBJECT) */
    uint32_t replaced = (uint32_t)old;
    if (old != TL_NONE) r = rig_prune_accessors(doc, &replaced, 1, first_new, err);
    if (r == TL_OK) r = tl_gltf_reindex(doc, err);
    if (r == TL_OK) *skin = doc_skin;
    return r;
}
