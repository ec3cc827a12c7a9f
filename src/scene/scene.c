/* Building the scene view: node order, stored transforms, skins with their bound
 * primitives and rest-world frame, clips with their keys read once. */
#include "internal.h"
#include "base/try.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every allocation of a scene, freed together. */
typedef struct arena {
    void** blocks;
    size_t count, capacity;
} arena;

static void* arena_alloc(arena* a, size_t size) {
    if (a->count == a->capacity) {
        size_t cap = a->capacity ? a->capacity * 2 : 64;
        void** grown = realloc(a->blocks, cap * sizeof *grown);
        if (!grown) return NULL;
        a->blocks = grown, a->capacity = cap;
    }
    void* p = calloc(1, size ? size : 1);
    if (p) a->blocks[a->count++] = p;
    return p;
}

static void arena_free(arena* a) {
    for (size_t i = 0; i < a->count; ++i)
        free(a->blocks[i]);
    free(a->blocks);
}

typedef struct build {
    tl_scene* scene;
    const tl_gltf* doc;
    arena* mem;
    tl_error* err;
    const char* label;
} build;

#define ALLOC(b, type, n) ((type*)arena_alloc((b)->mem, sizeof(type) * (size_t)(n)))

static tl_result oom(build* b) {
    return tl_error_set(b->err, TL_ERROR_MEMORY, "%s: out of memory", b->label);
}

static const char* doc_label(const tl_gltf* doc) {
    if (!doc->path || !*doc->path) return "<memory>";
    const char* slash = strrchr(doc->path, '/');
    return slash ? slash + 1 : doc->path;
}

/* Finite values the scene can square and multiply without overflow (see TL_SCENE_MAX_MAGNITUDE). */
static tl_result check_magnitude(build* b, uint32_t accessor, const float* v, size_t n,
                                 const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (!(fabsf(v[i]) <= TL_SCENE_MAX_MAGNITUDE))
            return tl_error_set(b->err, TL_ERROR_LIMIT,
                                "%s: /accessors/%u: %s value %zu is %g; tailor accepts magnitudes "
                                "up to %g",
                                b->label, accessor, what, i, (double)v[i],
                                (double)TL_SCENE_MAX_MAGNITUDE);
    return TL_OK;
}

/* Reads a whole accessor as floats into scene storage; checks its element count and width. */
static tl_result read_floats(build* b, uint32_t accessor, size_t min_count, uint32_t components,
                             const char* what, float** out) {
    const tl_gltf_accessor* a = &b->doc->accessors[accessor];
    if (a->components != components)
        return tl_error_set(b->err, TL_ERROR_INVALID,
                            "%s: /accessors/%u: %s needs %u components per element, has %u",
                            b->label, accessor, what, components, a->components);
    if (a->count < min_count)
        return tl_error_set(b->err, TL_ERROR_INVALID,
                            "%s: /accessors/%u: %s needs %zu elements, has %zu", b->label, accessor,
                            what, min_count, a->count);
    size_t n = tl_gltf_accessor_value_count(b->doc, accessor);
    float* data = ALLOC(b, float, n);
    if (!data) return oom(b);
    TRY(tl_gltf_accessor_read_float(b->doc, accessor, data, n, b->err));
    TRY(check_magnitude(b, accessor, data, n, what));
    *out = data;
    return TL_OK;
}

static tl_result build_nodes(build* b) {
    tl_scene* s = b->scene;
    uint32_t n = b->doc->node_count;
    uint32_t* order = ALLOC(b, uint32_t, n);
    tl_trs* stored = ALLOC(b, tl_trs, n);
    float* world = ALLOC(b, float, 16 * (size_t)n);
    uint32_t* stack = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!order || !stored || !world || !stack) {
        free(stack);
        return oom(b);
    }
    /* Depth-first from every root; validated parents make this reach every node once. */
    uint32_t count = 0;
    for (uint32_t root = 0; root < n; ++root) {
        if (b->doc->nodes[root].parent != TL_NONE) continue;
        uint32_t top = 0;
        stack[top++] = root;
        while (top) {
            uint32_t i = stack[--top];
            order[count++] = i;
            const tl_gltf_node* nd = &b->doc->nodes[i];
            for (uint32_t k = nd->child_count; k-- > 0;)
                stack[top++] = nd->children[k];
        }
    }
    free(stack);
    assert(count == n);
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t i = order[k];
        const tl_gltf_node* nd = &b->doc->nodes[i];
        if (nd->has_matrix)
            stored[i] = tl_trs_from_matrix(nd->matrix);
        else {
            memcpy(stored[i].translation, nd->translation, sizeof nd->translation);
            memcpy(stored[i].rotation, nd->rotation, sizeof nd->rotation);
            memcpy(stored[i].scale, nd->scale, sizeof nd->scale);
        }
        if (nd->parent == TL_NONE)
            memcpy(world + 16 * i, nd->matrix, sizeof nd->matrix);
        else
            tl_mat4_mul(world + 16 * i, world + 16 * (size_t)nd->parent, nd->matrix);
        for (int e = 0; e < 16; ++e)
            if (!(fabsf(world[16 * (size_t)i + e]) <= TL_SCENE_MAX_MAGNITUDE)) {
                tl_error_set(b->err, TL_ERROR_LIMIT,
                             "%s: /nodes/%u: its world transform reaches %g (the transforms "
                             "above it multiply past %g)",
                             b->label, i, (double)world[16 * (size_t)i + e],
                             (double)TL_SCENE_MAX_MAGNITUDE);
                return TL_ERROR_LIMIT;
            }
    }
    /* Live: joints and animated nodes, then (parents first) everything below one; no other
     * node's world can change in a pose. */
    uint8_t* live = calloc(n ? n : 1, 1);
    uint32_t* live_order = ALLOC(b, uint32_t, n);
    if (!live || !live_order) {
        free(live);
        return oom(b);
    }
    for (uint32_t si = 0; si < b->doc->skin_count; ++si)
        for (uint32_t k = 0; k < b->doc->skins[si].joint_count; ++k)
            live[b->doc->skins[si].joints[k]] = 1;
    for (uint32_t a = 0; a < b->doc->animation_count; ++a)
        for (uint32_t c = 0; c < b->doc->animations[a].channel_count; ++c) {
            const tl_gltf_channel* ch = &b->doc->animations[a].channels[c];
            if (ch->node != TL_NONE && ch->path <= TL_GLTF_PATH_SCALE) live[ch->node] = 1;
        }
    for (uint32_t k = 0; k < n; ++k) {
        int32_t parent = b->doc->nodes[order[k]].parent;
        if (parent != TL_NONE && live[parent]) live[order[k]] = 1;
    }
    uint32_t live_count = 0;
    for (uint32_t k = 0; k < n; ++k)
        if (live[order[k]]) live_order[live_count++] = order[k];
    free(live);
    s->live_order = live_order;
    s->live_count = live_count;
    s->node_count = n;
    s->node_order = order;
    s->stored = stored;
    s->stored_world = world;
    return TL_OK;
}

/* Appends one primitive's triangles (modes 4, 5, 6) offset by `base`. */
static uint32_t triangles_of(uint32_t mode, const uint32_t* idx, size_t n, uint32_t base,
                             uint32_t* out) {
    uint32_t t = 0;
    if (mode == 4) {
        for (size_t i = 0; i + 2 < n; i += 3, ++t)
            for (int k = 0; k < 3; ++k)
                out[3 * t + k] = base + idx[i + k];
    } else if (mode == 5) {
        for (size_t i = 0; i + 2 < n; ++i, ++t) {
            bool odd = i & 1; /* keep the winding of a strip */
            out[3 * t] = base + idx[i];
            out[3 * t + 1] = base + idx[i + (odd ? 2 : 1)];
            out[3 * t + 2] = base + idx[i + (odd ? 1 : 2)];
        }
    } else if (mode == 6) {
        for (size_t i = 1; i + 1 < n; ++i, ++t) {
            out[3 * t] = base + idx[0];
            out[3 * t + 1] = base + idx[i];
            out[3 * t + 2] = base + idx[i + 1];
        }
    }
    return t;
}

static size_t triangle_bound(uint32_t mode, size_t n) {
    if (mode == 4) return n / 3;
    if ((mode == 5 || mode == 6) && n >= 3) return n - 2;
    return 0;
}

/* The (node, mesh, primitive) triples bound to skin `si`, each mesh once, primitives with
 * POSITION and at least one JOINTS_n/WEIGHTS_n set that are surfaces (modes 4-6: points and
 * lines, e.g. the hair's guide layer, are no skin to analyse, measure or re-weight). With out
 * NULL: an upper bound. */
static size_t find_primitives(build* b, uint32_t si, tl_scene_primitive* out) {
    const tl_gltf* doc = b->doc;
    size_t count = 0;
    for (uint32_t k = 0; k < doc->node_count; ++k) {
        uint32_t i = b->scene->node_order[k];
        const tl_gltf_node* nd = &doc->nodes[i];
        if (nd->skin != (int32_t)si || nd->mesh == TL_NONE) continue;
        const tl_gltf_mesh* mesh = &doc->meshes[nd->mesh];
        if (!out) {
            count += mesh->primitive_count;
            continue;
        }
        bool seen = false;
        for (size_t p = 0; p < count && !seen; ++p)
            seen = out[p].mesh == (uint32_t)nd->mesh;
        for (uint32_t p = 0; p < mesh->primitive_count && !seen; ++p) {
            const tl_gltf_primitive* prim = &mesh->primitives[p];
            if (prim->position == TL_NONE || prim->joint_set_count == 0 || prim->mode < 4) continue;
            out[count++] =
                (tl_scene_primitive){.node = i, .mesh = (uint32_t)nd->mesh, .primitive = p};
        }
    }
    return count;
}

static tl_result build_skin_geometry(build* b, uint32_t si, tl_scene_skin* skin,
                                     tl_scene_joint* joints) {
    const tl_gltf* doc = b->doc;
    size_t bound = find_primitives(b, si, NULL);
    tl_scene_primitive* prims = ALLOC(b, tl_scene_primitive, bound);
    if (!prims) return oom(b);
    uint32_t prim_count = (uint32_t)find_primitives(b, si, prims);

    size_t vertices = 0, triangles = 0;
    uint32_t sets = 0;
    for (uint32_t p = 0; p < prim_count; ++p) {
        const tl_gltf_primitive* prim = &doc->meshes[prims[p].mesh].primitives[prims[p].primitive];
        size_t n = tl_gltf_primitive_vertex_count(doc, prim);
        size_t idx = prim->indices == TL_NONE ? n : doc->accessors[prim->indices].count;
        if (vertices + n > UINT32_MAX ||
            triangles + triangle_bound(prim->mode, idx) > UINT32_MAX / 3)
            return tl_error_set(b->err, TL_ERROR_LIMIT, "%s: /skins/%u: more than 2^32 vertices",
                                b->label, si);
        prims[p].first_vertex = (uint32_t)vertices;
        prims[p].vertex_count = (uint32_t)n;
        vertices += n;
        triangles += triangle_bound(prim->mode, idx);
        if (prim->joint_set_count > sets) sets = prim->joint_set_count;
    }
    uint32_t per = 4 * sets;
    float* bind = ALLOC(b, float, 3 * vertices);
    float* rest = ALLOC(b, float, 3 * vertices);
    uint32_t* inf_joints = ALLOC(b, uint32_t, per * vertices);
    float* inf_weights = ALLOC(b, float, per* vertices);
    uint32_t* tris = ALLOC(b, uint32_t, 3 * triangles);
    if (!bind || !rest || !inf_joints || !inf_weights || !tris) return oom(b);

    uint32_t tri_count = 0;
    for (uint32_t p = 0; p < prim_count; ++p) {
        const tl_gltf_primitive* prim = &doc->meshes[prims[p].mesh].primitives[prims[p].primitive];
        uint32_t n = prims[p].vertex_count, base = prims[p].first_vertex;
        TRY(tl_gltf_accessor_read_float(doc, (uint32_t)prim->position, bind + 3 * (size_t)base,
                                        3 * (size_t)n, b->err));
        TRY(check_magnitude(b, (uint32_t)prim->position, bind + 3 * (size_t)base, 3 * (size_t)n,
                            "POSITION"));
        /* scratch for one JOINTS_n/WEIGHTS_n set and the indices */
        size_t idx_n = prim->indices == TL_NONE ? n : doc->accessors[prim->indices].count;
        size_t scratch_n = 4 * (size_t)n > idx_n ? 4 * (size_t)n : idx_n;
        uint32_t* uscratch = malloc(sizeof(uint32_t) * (scratch_n ? scratch_n : 1));
        float* fscratch = malloc(sizeof(float) * (4 * (size_t)n + 1));
        if (!uscratch || !fscratch) {
            free(uscratch), free(fscratch);
            return oom(b);
        }
        tl_result r = TL_OK;
        for (uint32_t set = 0; set < prim->joint_set_count && r == TL_OK; ++set) {
            uint32_t ja = (uint32_t)prim->joints[set], wa = (uint32_t)prim->weights[set];
            if (doc->accessors[ja].components != 4 || doc->accessors[wa].components != 4 ||
                doc->accessors[ja].count != n || doc->accessors[wa].count != n) {
                r = tl_error_set(b->err, TL_ERROR_INVALID,
                                 "%s: /meshes/%u/primitives/%u: JOINTS_%u/WEIGHTS_%u must be VEC4 "
                                 "with one element per vertex (%u)",
                                 b->label, prims[p].mesh, prims[p].primitive, set, set, n);
                break;
            }
            r = tl_gltf_accessor_read_uint(doc, ja, uscratch, 4 * (size_t)n, b->err);
            if (r == TL_OK)
                r = tl_gltf_accessor_read_float(doc, wa, fscratch, 4 * (size_t)n, b->err);
            for (uint32_t v = 0; v < n && r == TL_OK; ++v)
                for (uint32_t k = 0; k < 4; ++k) {
                    uint32_t j = uscratch[4 * v + k];
                    float w = fscratch[4 * v + k];
                    if (w < 0) w = 0;
                    if (j >= skin->joint_count) {
                        if (w > 0) {
                            r = tl_error_set(
                                b->err, TL_ERROR_INVALID,
                                "%s: /accessors/%u: vertex %u names joint %u of a skin "
                                "with %u joints",
                                b->label, ja, v, j, skin->joint_count);
                            break;
                        }
                        j = 0;
                    }
                    size_t slot = (size_t)(base + v) * per + 4 * set + k;
                    inf_joints[slot] = j;
                    inf_weights[slot] = w;
                }
        }
        if (r == TL_OK && prim->indices != TL_NONE)
            r = tl_gltf_accessor_read_uint(doc, (uint32_t)prim->indices, uscratch, idx_n, b->err);
        else if (r == TL_OK)
            for (uint32_t v = 0; v < n; ++v)
                uscratch[v] = v;
        for (size_t i = 0; i < idx_n && r == TL_OK; ++i)
            if (uscratch[i] >= n)
                r = tl_error_set(
                    b->err, TL_ERROR_INVALID,
                    "%s: /accessors/%d: index %u at element %zu is past the %u vertices", b->label,
                    prim->indices, uscratch[i], i, n);
        if (r == TL_OK) {
            prims[p].first_triangle = tri_count;
            prims[p].triangle_count =
                triangles_of(prim->mode, uscratch, idx_n, base, tris + 3 * (size_t)tri_count);
            tri_count += prims[p].triangle_count;
        }
        free(uscratch), free(fscratch);
        TRY(r);
    }
    /* Normalise as three.js does; a vertex with no weight follows joint 0. */
    for (size_t v = 0; v < vertices; ++v) {
        float* w = inf_weights + v * per;
        double sum = 0;
        for (uint32_t k = 0; k < per; ++k)
            sum += w[k];
        if (sum > 0)
            for (uint32_t k = 0; k < per; ++k)
                w[k] = (float)(w[k] / sum);
        else if (per) {
            w[0] = 1;
            inf_joints[v * per] = 0;
        }
        for (uint32_t k = 0; k < per; ++k)
            if (w[k] > 0) joints[inf_joints[v * per + k]].deforming = true;
        tl_mat4_transform_point(rest + 3 * v, skin->rest_world, bind + 3 * v);
        for (int c = 0; c < 3; ++c)
            if (!(fabsf(rest[3 * v + c]) <= TL_SCENE_MAX_MAGNITUDE))
                return tl_error_set(b->err, TL_ERROR_LIMIT,
                                    "%s: /skins/%u: vertex %zu lands at %g in the world (bind "
                                    "matrix times node transforms past %g)",
                                    b->label, si, v, (double)rest[3 * v + c],
                                    (double)TL_SCENE_MAX_MAGNITUDE);
    }
    skin->primitives = prims;
    skin->primitive_count = prim_count;
    skin->vertex_count = (uint32_t)vertices;
    skin->bind_positions = bind;
    skin->rest_positions = rest;
    skin->influence_count = per;
    skin->influence_joints = inf_joints;
    skin->influence_weights = inf_weights;
    skin->triangle_count = tri_count;
    skin->triangles = tris;
    return TL_OK;
}

static tl_result build_skin(build* b, uint32_t si, int32_t* joint_of_node, tl_scene_skin* skin) {
    const tl_gltf* doc = b->doc;
    const tl_gltf_skin* gs = &doc->skins[si];
    uint32_t n = gs->joint_count;
    tl_scene_joint* joints = ALLOC(b, tl_scene_joint, n);
    double* rest_world = malloc(sizeof(double) * 16 * (n ? n : 1));
    double* node_world = malloc(sizeof(double) * 16 * (doc->node_count ? doc->node_count : 1));
    uint32_t* below = calloc(n ? n : 1, sizeof(uint32_t));
    float* ibm = NULL;
    tl_result r = TL_OK;
    if (!joints || !rest_world || !node_world || !below) r = oom(b);
    if (r == TL_OK && gs->inverse_bind_matrices != TL_NONE)
        r = read_floats(b, (uint32_t)gs->inverse_bind_matrices, n, 16, "inverseBindMatrices", &ibm);
    if (r != TL_OK) goto done;

    skin->skin = si;
    skin->joints = joints;
    skin->joint_count = n;
    for (uint32_t i = 0; i < doc->node_count; ++i)
        joint_of_node[i] = TL_NONE;
    for (uint32_t k = 0; k < n; ++k) {
        if (joint_of_node[gs->joints[k]] != TL_NONE) {
            r = tl_error_set(b->err, TL_ERROR_INVALID,
                             "%s: /skins/%u/joints/%u: node %u is listed twice", b->label, si, k,
                             gs->joints[k]);
            goto done;
        }
        joint_of_node[gs->joints[k]] = (int32_t)k;
    }
    for (uint32_t k = 0; k < n; ++k) {
        tl_scene_joint* j = &joints[k];
        j->node = gs->joints[k];
        j->name = doc->nodes[j->node].name ? doc->nodes[j->node].name : "";
        j->parent = TL_NONE;
        for (int32_t p = doc->nodes[j->node].parent; p != TL_NONE; p = doc->nodes[p].parent)
            if (joint_of_node[p] != TL_NONE) {
                j->parent = joint_of_node[p];
                break;
            }
        j->role = TL_ROLE_NONE;
        j->side = TL_SIDE_NONE;
        for (int i = 0; i < 16; ++i)
            j->inverse_bind[i] = ibm ? ibm[16 * (size_t)k + i] : (float)(i % 5 == 0);
    }
    /* M comes from the top joint with the most joints below it. */
    /* Each joint's top joint, parents first (node order), so a deep skin stays linear. */
    uint32_t* top_of = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!top_of) {
        r = oom(b);
        goto done;
    }
    for (uint32_t o = 0; o < doc->node_count; ++o) {
        int32_t k = joint_of_node[b->scene->node_order[o]];
        if (k == TL_NONE) continue;
        top_of[k] = joints[k].parent == TL_NONE ? (uint32_t)k : top_of[joints[k].parent];
        below[top_of[k]]++;
    }
    free(top_of);
    /* The nodes this skin hangs from: joints, then ancestors until one is already marked. */
    {
        uint8_t* mark = calloc(doc->node_count ? doc->node_count : 1, 1);
        uint32_t* order = ALLOC(b, uint32_t, doc->node_count);
        if (!mark || !order) {
            free(mark);
            r = oom(b);
            goto done;
        }
        for (uint32_t k = 0; k < n; ++k)
            for (int32_t i = (int32_t)gs->joints[k]; i != TL_NONE && !mark[i];
                 i = doc->nodes[i].parent)
                mark[i] = 1;
        uint32_t count = 0;
        for (uint32_t o = 0; o < doc->node_count; ++o)
            if (mark[b->scene->node_order[o]]) order[count++] = b->scene->node_order[o];
        free(mark);
        skin->live_order = order;
        skin->live_count = count;
    }
    skin->top_count = 0;
    skin->top = 0;
    for (uint32_t k = 0; k < n; ++k) {
        if (joints[k].parent != TL_NONE) continue;
        if (skin->top_count++ == 0 || below[k] > below[skin->top]) skin->top = k;
    }
    double m[16], top_world[16], top_ibm[16];
    if (n == 0) {
        for (int i = 0; i < 16; ++i)
            m[i] = i % 5 == 0;
    } else {
        tl_mat4d_from_float(top_world,
                            b->scene->stored_world + 16 * (size_t)joints[skin->top].node);
        tl_mat4d_from_float(top_ibm, joints[skin->top].inverse_bind);
        tl_mat4d_mul(m, top_world, top_ibm);
    }
    tl_mat4d_to_float(skin->rest_world, m);
    for (uint32_t k = 0; k < n; ++k) {
        double ibmd[16], inv[16];
        tl_mat4d_from_float(ibmd, joints[k].inverse_bind);
        if (!tl_mat4d_invert(inv, ibmd)) {
            r = tl_error_set(
                b->err, TL_ERROR_INVALID,
                "%s: /skins/%u: the inverse bind matrix of joint %u (node %u) is singular",
                b->label, si, k, joints[k].node);
            goto done;
        }
        tl_mat4d_mul(rest_world + 16 * (size_t)k, m, inv);
        tl_mat4d_to_float(joints[k].rest_world, rest_world + 16 * (size_t)k);
    }
    /* Rest locals: joints at M · IBM^-1, other nodes at their stored transforms. */
    for (uint32_t o = 0; o < doc->node_count; ++o) {
        uint32_t i = b->scene->node_order[o];
        int32_t parent = doc->nodes[i].parent;
        int32_t k = joint_of_node[i];
        if (k == TL_NONE) {
            double local[16];
            tl_mat4d_from_float(local, doc->nodes[i].matrix);
            if (parent == TL_NONE)
                memcpy(node_world + 16 * (size_t)i, local, sizeof local);
            else
                tl_mat4d_mul(node_world + 16 * (size_t)i, node_world + 16 * (size_t)parent, local);
            continue;
        }
        double local[16], inv_parent[16];
        memcpy(node_world + 16 * (size_t)i, rest_world + 16 * (size_t)k, sizeof local);
        if (parent == TL_NONE)
            memcpy(local, rest_world + 16 * (size_t)k, sizeof local);
        else {
            tl_mat4d_invert(inv_parent, node_world + 16 * (size_t)parent);
            tl_mat4d_mul(local, inv_parent, rest_world + 16 * (size_t)k);
        }
        float localf[16];
        tl_mat4d_to_float(localf, local);
        joints[k].rest = tl_trs_from_matrix(localf);
    }
    r = build_skin_geometry(b, si, skin, joints);
    if (r == TL_OK) tl_scene_skin_classify(skin, joints);
    /* A float holds 24 bits: a character farther from the origin than 1e6 times its height
     * has no shape left in its coordinates (every measure and the solver would see noise). */
    float far = 0;
    for (size_t v = 0; r == TL_OK && v < 3 * (size_t)skin->vertex_count; ++v)
        far = fmaxf(far, fabsf(skin->rest_positions[v]));
    if (r == TL_OK && skin->height > 0 && far > 1e6f * skin->height)
        r = tl_error_set(b->err, TL_ERROR_LIMIT,
                         "%s: /skins/%u: the skin is %g tall but %g from the origin; float "
                         "coordinates keep its shape up to 1e6 times its height",
                         b->label, si, (double)skin->height, (double)far);
done:
    free(rest_world), free(node_world), free(below);
    return r;
}

static tl_result build_clip(build* b, uint32_t ai, tl_scene_clip* clip) {
    const tl_gltf_animation* anim = &b->doc->animations[ai];
    tl_scene_channel* channels = ALLOC(b, tl_scene_channel, anim->channel_count);
    if (!channels) return oom(b);
    clip->name = anim->name ? anim->name : "";
    clip->animation = ai;
    clip->channels = channels;
    clip->channel_count = 0;
    bool any = false;
    for (uint32_t c = 0; c < anim->channel_count; ++c) {
        const tl_gltf_channel* gc = &anim->channels[c];
        if (gc->node == TL_NONE || gc->path > TL_GLTF_PATH_SCALE) continue;
        const tl_gltf_anim_sampler* smp = &anim->samplers[gc->sampler];
        tl_scene_channel* ch = &channels[clip->channel_count];
        ch->node = (uint32_t)gc->node;
        ch->path = gc->path;
        ch->interpolation = smp->interpolation;
        ch->components = gc->path == TL_GLTF_PATH_ROTATION ? 4 : 3;
        size_t keys = b->doc->accessors[smp->input].count;
        if (keys == 0) continue;
        if (keys > UINT32_MAX / 3)
            return tl_error_set(b->err, TL_ERROR_LIMIT, "%s: /accessors/%u: too many keys",
                                b->label, smp->input);
        size_t values = keys * (smp->interpolation == TL_GLTF_CUBICSPLINE ? 3 : 1);
        float *times, *vals;
        TRY(read_floats(b, smp->input, keys, 1, "an animation input", &times));
        TRY(read_floats(b, smp->output, values, ch->components, "an animation output", &vals));
        if (b->doc->accessors[smp->output].count != values)
            return tl_error_set(b->err, TL_ERROR_INVALID,
                                "%s: /animations/%u/samplers/%u: %zu output values for %zu keys",
                                b->label, ai, gc->sampler, b->doc->accessors[smp->output].count,
                                keys);
        if (times[0] < 0)
            return tl_error_set(b->err, TL_ERROR_INVALID,
                                "%s: /accessors/%u/min: the first key is at %g s (glTF key times "
                                "start at 0 or later)",
                                b->label, smp->input, (double)times[0]);
        if (times[keys - 1] > TL_SCENE_MAX_CLIP_SECONDS)
            return tl_error_set(b->err, TL_ERROR_LIMIT,
                                "%s: /accessors/%u/max: the last key is at %g s; tailor plays "
                                "clips up to %g s",
                                b->label, smp->input, (double)times[keys - 1],
                                (double)TL_SCENE_MAX_CLIP_SECONDS);
        for (size_t k = 1; k < keys; ++k)
            if (times[k] < times[k - 1])
                return tl_error_set(
                    b->err, TL_ERROR_INVALID,
                    "%s: /accessors/%u: key time %zu (%g s) is before key %zu (%g s)", b->label,
                    smp->input, k, times[k], k - 1, times[k - 1]);
        ch->key_count = (uint32_t)keys;
        ch->times = times;
        ch->values = vals;
        if (!any || times[0] < clip->start) clip->start = times[0];
        if (!any || times[keys - 1] > clip->duration) clip->duration = times[keys - 1];
        any = true;
        clip->channel_count++;
    }
    return TL_OK;
}

tl_result tl_scene_create(const tl_gltf* doc, tl_scene** out, tl_error* err) {
    assert(doc && out);
    *out = NULL;
    arena* mem = calloc(1, sizeof *mem);
    tl_scene* scene = mem ? calloc(1, sizeof *scene) : NULL;
    if (!scene) {
        free(mem);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", doc_label(doc));
    }
    scene->doc = doc;
    scene->internal = mem;
    build b = {scene, doc, mem, err, doc_label(doc)};
    tl_result r = build_nodes(&b);
    tl_scene_skin* skins = r == TL_OK ? ALLOC(&b, tl_scene_skin, doc->skin_count) : NULL;
    tl_scene_clip* clips = r == TL_OK ? ALLOC(&b, tl_scene_clip, doc->animation_count) : NULL;
    int32_t* joint_of_node = malloc(sizeof(int32_t) * (doc->node_count ? doc->node_count : 1));
    if (r == TL_OK && (!skins || !clips || !joint_of_node)) r = oom(&b);
    for (uint32_t s = 0; s < doc->skin_count && r == TL_OK; ++s)
        r = build_skin(&b, s, joint_of_node, &skins[s]);
    for (uint32_t a = 0; a < doc->animation_count && r == TL_OK; ++a)
        r = build_clip(&b, a, &clips[a]);
    free(joint_of_node);
    if (r == TL_OK) {
        scene->skins = skins;
        scene->skin_count = doc->skin_count;
        scene->clips = clips;
        scene->clip_count = doc->animation_count;
        r = tl_scene_parts_read(scene, b.label, err);
    }
    if (r != TL_OK) {
        tl_scene_destroy(scene);
        return r;
    }
    *out = scene;
    return TL_OK;
}

void* tl_scene_storage(tl_scene* scene, size_t size) {
    return arena_alloc(scene->internal, size);
}

tl_result tl_scene_refresh(tl_scene* scene, tl_error* err) {
    assert(scene);
    tl_scene* fresh;
    tl_result r = tl_scene_create(scene->doc, &fresh, err);
    if (r != TL_OK) return r;
    arena_free(scene->internal);
    free(scene->internal);
    *scene = *fresh;
    free(fresh);
    return TL_OK;
}

void tl_scene_destroy(tl_scene* scene) {
    if (!scene) return;
    arena_free(scene->internal);
    free(scene->internal);
    free(scene);
}

int32_t tl_scene_find_joint(const tl_scene* scene, uint32_t skin, const char* name) {
    assert(scene && skin < scene->skin_count && name);
    const tl_scene_skin* s = &scene->skins[skin];
    for (uint32_t k = 0; k < s->joint_count; ++k)
        if (!strcmp(s->joints[k].name, name)) return (int32_t)k;
    return TL_NONE;
}
