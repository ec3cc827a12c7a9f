/* An unskinned mesh under a torso joint (a cape modelled apart and parented to the chest)
 * becomes a skinned mesh of that joint's skin, bound wholly to the joint: its node transform
 * is folded into bind space (glTF ignores a skinned mesh node's own transform and its parents'),
 * so the bind pose shows it where the file did, and the rig can then turn it into cloth. */
#include "internal.h"
#include "base/mat4.h"
#include <tailor/gltf_json.h>
#include <tailor/mesh.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const tl_scene_skin* scene_skin(const tl_scene* scene, uint32_t doc_skin) {
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        if (scene->skins[s].skin == doc_skin) return &scene->skins[s];
    return NULL;
}

/* Only a mesh this node alone uses, with no weights or morph targets, can be rebound. */
static bool convertible(const tl_gltf* doc, uint32_t node) {
    int32_t m = doc->nodes[node].mesh;
    for (uint32_t n = 0; n < doc->node_count; ++n)
        if (n != node && doc->nodes[n].mesh == m) return false;
    const tl_gltf_mesh* mesh = &doc->meshes[m];
    for (uint32_t p = 0; p < mesh->primitive_count; ++p)
        if (mesh->primitives[p].joint_set_count || mesh->primitives[p].target_count ||
            mesh->primitives[p].position == TL_NONE)
            return false;
    return true;
}

/* Rewrites one VEC3 (or VEC4 tangent) attribute through the linear map L (positions also take
 * the translation; directions are renormalised) as a new accessor; returns it in *out. */
static tl_result attribute_map(tl_gltf* doc, uint32_t accessor, const double M[16], int kind,
                               uint32_t* out, tl_error* err) {
    const tl_gltf_accessor* a = &doc->accessors[accessor];
    uint32_t comps = tl_gltf_type_components(a->type);
    size_t count = a->count;
    float* v = malloc((count * comps + 1) * sizeof *v);
    if (!v) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    tl_result r = tl_gltf_accessor_read_float(doc, accessor, v, count * comps, err);
    /* normals by the inverse transpose */
    double N[16], inv[16];
    tl_mat4d_invert(inv, M);
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k)
            N[4 * c + k] = inv[4 * k + c];
    const double* L = kind == 1 ? N : M;
    for (size_t i = 0; i < count && r == TL_OK; ++i) {
        float* p = v + i * comps;
        double q[3];
        for (int k = 0; k < 3; ++k)
            q[k] = L[k] * p[0] + L[4 + k] * p[1] + L[8 + k] * p[2] + (kind == 0 ? L[12 + k] : 0);
        double len = kind == 0 ? 1 : sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        for (int k = 0; k < 3; ++k)
            p[k] = (float)(len > 0 ? q[k] / len : q[k]);
    }
    tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
    def.data = v, def.count = count, def.component_type = TL_GLTF_FLOAT, def.type = a->type;
    def.target = 34962, def.min_max = kind == 0;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, out, err);
    free(v);
    return r;
}

/* JOINTS_0 (every vertex on `joint`) and WEIGHTS_0 (1, 0, 0, 0) for a primitive of `count`. */
static tl_result binding_add(tl_gltf* doc, size_t count, uint32_t joint, json_t* attributes,
                             tl_error* err) {
    uint16_t* j = malloc((4 * count + 1) * sizeof *j);
    float* w = calloc(4 * count + 1, sizeof *w);
    tl_result r = j && w ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (size_t i = 0; i < count && r == TL_OK; ++i) {
        j[4 * i] = (uint16_t)joint, j[4 * i + 1] = j[4 * i + 2] = j[4 * i + 3] = 0;
        w[4 * i] = 1;
    }
    tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
    def.count = count, def.type = TL_GLTF_VEC4, def.target = 34962;
    uint32_t ja = 0, wa = 0;
    def.data = j, def.component_type = TL_GLTF_UNSIGNED_SHORT;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, &ja, err);
    def.data = w, def.component_type = TL_GLTF_FLOAT;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, &wa, err);
    if (r == TL_OK) {
        json_object_set_new(attributes, "JOINTS_0", json_integer(ja));
        json_object_set_new(attributes, "WEIGHTS_0", json_integer(wa));
    }
    free(j);
    free(w);
    return r;
}

/* The node leaves its parent for the roots of every scene holding its top ancestor (a skinned
 * mesh node's parents do not move it; the validator warns on a non-root one). */
static void node_to_root(tl_gltf* doc, uint32_t node) {
    json_t* nodes = json_object_get(doc->json, "nodes");
    json_t* jn = json_array_get(nodes, node);
    static const char* const keys[] = {"translation", "rotation", "scale", "matrix"};
    for (int k = 0; k < 4; ++k)
        json_object_del(jn, keys[k]);
    int32_t parent = doc->nodes[node].parent, top = (int32_t)node;
    if (parent == TL_NONE) return;
    for (uint32_t guard = 0; doc->nodes[top].parent != TL_NONE && guard < doc->node_count; ++guard)
        top = doc->nodes[top].parent;
    json_t* children = json_object_get(json_array_get(nodes, (size_t)parent), "children");
    for (size_t i = json_array_size(children); i-- > 0;)
        if (json_integer_value(json_array_get(children, i)) == (json_int_t)node)
            json_array_remove(children, i);
    if (json_array_size(children) == 0)
        json_object_del(json_array_get(nodes, (size_t)parent), "children");
    json_t* scenes = json_object_get(doc->json, "scenes");
    for (uint32_t s = 0; s < doc->scene_count; ++s)
        for (uint32_t i = 0; i < doc->scenes[s].node_count; ++i)
            if (doc->scenes[s].nodes[i] == (uint32_t)top) {
                json_array_append_new(json_object_get(json_array_get(scenes, s), "nodes"),
                                      json_integer(node));
                break;
            }
}

/* The accessors a conversion replaced (pruned once all are converted). */
typedef struct replaced_accessors {
    uint32_t* items;
    uint32_t count, cap;
} replaced_accessors;

static bool replaced_add(replaced_accessors* r, uint32_t accessor) {
    if (r->count == r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 16;
        uint32_t* items = realloc(r->items, cap * sizeof *items);
        if (!items) return false;
        r->items = items, r->cap = cap;
    }
    r->items[r->count++] = accessor;
    return true;
}

static tl_result convert_one(tl_gltf* doc, const tl_scene* scene, const tl_rig_unskinned* u,
                             replaced_accessors* replaced, tl_error* err) {
    const tl_scene_skin* sk = scene_skin(scene, u->skin);
    assert(sk && u->joint < sk->joint_count);
    const tl_scene_joint* jt = &sk->joints[u->joint];
    /* bind = IBM^-1 . W(joint)^-1 . W(node): the skinned vertex W(joint) . IBM . bind is then
     * the stored world position W(node) . p */
    double ibm[16], bind_joint[16], wj[16], wj_inv[16], wn[16], t[16], M[16];
    tl_mat4d_from_float(ibm, jt->inverse_bind);
    tl_mat4d_from_float(wj, scene->stored_world + 16 * (size_t)jt->node);
    tl_mat4d_from_float(wn, scene->stored_world + 16 * (size_t)u->node);
    if (!tl_mat4d_invert(bind_joint, ibm) || !tl_mat4d_invert(wj_inv, wj))
        return tl_error_set(err, TL_ERROR_INVALID, "joint %s: singular transform", jt->name);
    tl_mat4d_mul(t, wj_inv, wn);
    tl_mat4d_mul(M, bind_joint, t);
    uint32_t m = (uint32_t)doc->nodes[u->node].mesh;
    json_t* prims =
        json_object_get(json_array_get(json_object_get(doc->json, "meshes"), m), "primitives");
    tl_result r = TL_OK;
    for (uint32_t p = 0; p < doc->meshes[m].primitive_count && r == TL_OK; ++p) {
        const tl_gltf_primitive* prim = &doc->meshes[m].primitives[p];
        json_t* attributes = json_object_get(json_array_get(prims, p), "attributes");
        size_t vertices = doc->accessors[prim->position].count;
        for (uint32_t a = 0; a < prim->attribute_count && r == TL_OK; ++a) {
            const char* name = prim->attributes[a].name;
            int kind = !strcmp(name, "POSITION")  ? 0
                       : !strcmp(name, "NORMAL")  ? 1
                       : !strcmp(name, "TANGENT") ? 2
                                                  : -1;
            uint32_t acc = 0;
            if (kind < 0) continue;
            r = attribute_map(doc, prim->attributes[a].accessor, M, kind, &acc, err);
            if (r == TL_OK && !replaced_add(replaced, prim->attributes[a].accessor))
                r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            if (r == TL_OK) json_object_set_new(attributes, name, json_integer(acc));
        }
        if (r == TL_OK) r = binding_add(doc, vertices, u->joint, attributes, err);
    }
    if (r != TL_OK) return r;
    json_object_set_new(json_array_get(json_object_get(doc->json, "nodes"), u->node), "skin",
                        json_integer(u->skin));
    node_to_root(doc, u->node);
    return TL_OK;
}

tl_result tl_rig_skin_unskinned(tl_gltf* doc, const tl_scene* scene,
                                const tl_rig_analysis* analysis, tl_rig_def* def,
                                uint32_t* converted, tl_error* err) {
    assert(doc && scene && analysis && def && converted && scene->doc == doc);
    *converted = 0;
    tl_result r = TL_OK;
    replaced_accessors replaced = {0};
    uint32_t first_new = doc->accessor_count;
    for (uint32_t i = 0; i < analysis->unskinned_count && r == TL_OK; ++i) {
        const tl_rig_unskinned* u = &analysis->unskinned[i];
        if (!convertible(doc, u->node) || def->garment_node_count >= TL_RIG_MAX_GARMENTS) continue;
        r = convert_one(doc, scene, u, &replaced, err);
        if (r == TL_OK) ++*converted, def->garment_nodes[def->garment_node_count++] = u->node;
    }
    /* the old POSITION, NORMAL and TANGENT no longer referenced: no UNUSED_OBJECT left */
    if (r == TL_OK && *converted)
        r = rig_prune_accessors(doc, replaced.items, replaced.count, first_new, err);
    free(replaced.items);
    /* node_to_root read the stale index only for ancestry: every edit is in the JSON */
    if (r == TL_OK && *converted) r = tl_gltf_reindex(doc, err);
    return r;
}

static float dot3(const float* a, const float* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

bool rig_garment_part(rig_ctx* ctx, uint32_t node, rig_wpart* p) {
    const tl_scene_skin* s = ctx->skin;
    uint32_t mark = rig_stamp(ctx);
    *p = (rig_wpart){0};
    for (uint32_t k = 0; k < s->primitive_count; ++k) {
        const tl_scene_primitive* prim = &s->primitives[k];
        if (prim->node != node) continue;
        for (uint32_t v = prim->first_vertex; v < prim->first_vertex + prim->vertex_count; ++v) {
            uint32_t w = ctx->remap[v];
            if (ctx->stamp[w] == mark) continue;
            ctx->stamp[w] = mark;
            if (!rig_list_push(&p->verts, w)) return rig_wpart_free(p), false;
        }
    }
    if (!p->verts.count) return true;
    uint32_t v = ctx->copies[ctx->copy_first[p->verts.items[0]]], best = 0;
    float bw = -1;
    for (uint32_t k = 0; k < s->influence_count; ++k)
        if (s->influence_weights[(size_t)v * s->influence_count + k] > bw)
            bw = s->influence_weights[(size_t)v * s->influence_count + k],
            best = s->influence_joints[(size_t)v * s->influence_count + k];
    p->attach = (int32_t)best;
    p->cls = TL_RIG_CLASS_CLOTH;
    p->region = (tl_rig_region)ctx->region[best];
    p->shells = 1;
    p->apart = true;
    p->reason = "a garment modelled apart, rebound to the torso joint it hung from: cloth";
    /* its collar is its own top edge: the vertices within half a lattice row of its top */
    float top = -INFINITY, band = 0.5f * ctx->def->cloth_row * ctx->H;
    for (uint32_t k = 0; k < p->verts.count; ++k)
        top = fmaxf(top, dot3(ctx->wpos + 3 * (size_t)p->verts.items[k], s->up));
    for (uint32_t k = 0; k < p->verts.count; ++k)
        if (dot3(ctx->wpos + 3 * (size_t)p->verts.items[k], s->up) >= top - band &&
            !rig_list_push(&p->collar, p->verts.items[k]))
            return rig_wpart_free(p), false;
    p->own_collar = true;
    double tg = rig_now();
    bool ok = rig_part_geodesic(ctx, p);
    ctx->seconds[TL_RIG_STAGE_GEODESICS] += rig_now() - tg;
    if (!ok) rig_wpart_free(p);
    return ok;
}
