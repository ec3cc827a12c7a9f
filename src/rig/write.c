/* Editing the document (tails.md §9): new joint nodes under the attachment joints, the
 * skins' joints extended, new inverse-bind-matrix accessors, and new JOINTS_n/WEIGHTS_n
 * accessors for the primitives whose weights change. Untouched vertices keep their stored
 * values exactly (same component type); nothing else in the file is touched. */
#include "internal.h"
#include "base/mat4.h"
#include <tailor/colliders.h>
#include <tailor/gltf_json.h>
#include "scene/schema.h"
#include "scene/internal.h"
#include "hair/internal.h"
#include <tailor/hair.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The new weights of one vertex in a component type: float weights sum to 1 within float
 * rounding; normalized integers sum exactly to their maximum. Slots that round to zero
 * become joint 0, weight 0. */
static void quantize(const uint32_t in_joints[4], const float in_weights[4], tl_gltf_component ct,
                     uint32_t out_joints[4], double out_values[4]) {
    double max = ct == TL_GLTF_UNSIGNED_BYTE ? 255.0 : ct == TL_GLTF_UNSIGNED_SHORT ? 65535.0 : 1.0;
    double q[4];
    int largest = 0;
    for (int k = 0; k < 4; ++k) {
        q[k] = ct == TL_GLTF_FLOAT ? (double)in_weights[k] : (double)lround(in_weights[k] * max);
        if (q[k] > q[largest]) largest = k;
    }
    if (ct == TL_GLTF_FLOAT) {
        float rest = 0;
        for (int k = 0; k < 4; ++k)
            if (k != largest) rest += (float)q[k];
        q[largest] = (double)(1.0f - rest);
    } else {
        double sum = q[0] + q[1] + q[2] + q[3];
        q[largest] += max - sum;
    }
    int m = 0;
    for (int k = 0; k < 4; ++k) {
        if (!(q[k] > 0)) continue;
        out_joints[m] = in_joints[k];
        out_values[m++] = q[k];
    }
    for (; m < 4; ++m)
        out_joints[m] = 0, out_values[m] = 0;
}

/* Stores value `x` (a float, or an integer already in the component's range) at slot i. */
static void store(void* data, tl_gltf_component ct, size_t i, double x) {
    switch (ct) {
    case TL_GLTF_UNSIGNED_BYTE:
        ((uint8_t*)data)[i] = (uint8_t)x;
        break;
    case TL_GLTF_UNSIGNED_SHORT:
        ((uint16_t*)data)[i] = (uint16_t)x;
        break;
    case TL_GLTF_UNSIGNED_INT:
        ((uint32_t*)data)[i] = (uint32_t)x;
        break;
    default:
        ((float*)data)[i] = (float)x;
        break;
    }
}

/* The spring settings, every key from the one table the reader checks them with. */
static json_t* chain_json(tl_chain_settings s) {
    json_t* chain = json_object();
    for (int k = 0; k < TL_SCHEMA_SETTING_COUNT; ++k)
        json_object_set_new(
            chain, tl_schema_settings[k].key,
            json_real((double)*tl_schema_setting_field(&tl_schema_settings[k], &s)));
    return chain;
}

/* extras.tailor of a chain's first bone (docs/schema.md): node indices and, beside them, the
 * nodes' names, so a reader can follow the nodes when another tool renumbers them. */
static json_t* part_json(const tl_gltf* doc, const tl_rig_analysis* a, tl_part_kind kind,
                         uint32_t attach_node, json_t* bones, json_t* bone_names, json_t* radii) {
    json_t* tailor = json_object();
    json_object_set_new(tailor, TL_SCHEMA_VERSION_KEY, json_integer(TL_SCHEMA_VERSION));
    json_object_set_new(tailor, TL_SCHEMA_KIND, json_string(tl_part_kind_string(kind)));
    json_object_set_new(tailor, TL_SCHEMA_ATTACHMENT, json_integer((json_int_t)attach_node));
    if (doc->nodes[attach_node].name)
        json_object_set_new(tailor, TL_SCHEMA_ATTACHMENT_NAME,
                            json_string(doc->nodes[attach_node].name));
    json_object_set(tailor, TL_SCHEMA_BONES, bones);
    json_object_set(tailor, TL_SCHEMA_BONE_NAMES, bone_names);
    json_object_set_new(tailor, TL_SCHEMA_RADII, radii);
    /* hair keeps its modelled shape: its own settings (tailor/hair.h) */
    json_object_set_new(tailor, TL_SCHEMA_CHAIN,
                        chain_json(kind == TL_PART_HAIR ? a->hair_chain : a->def.chain));
    return tailor;
}

static json_t* vec3_json(const double v[3]) {
    json_t* a = json_array();
    for (int k = 0; k < 3; ++k)
        json_array_append_new(a, json_real((double)(float)v[k]));
    return a;
}

static double det3(const double m[16]) {
    return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
           m[8] * (m[1] * m[6] - m[5] * m[2]);
}

static void normalize3(double v[3]) {
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k)
        v[k] = l > 0 ? v[k] / l : 0;
}

/* A bone's bind rotation times `scale` into B's 3×3: +Y from head to tail (bind space), +Z the
 * rest-world `forward` (or `up` when the bone runs within 26° of forward) brought into bind
 * space by Minv and made perpendicular to Y, +X = Y × Z. */
static void bone_axes(const double head[3], const double tail[3], const double Minv[16],
                      const float forward[3], const float up[3], double scale, double B[16]) {
    double y[3] = {tail[0] - head[0], tail[1] - head[1], tail[2] - head[2]}, f[3], u[3], z[3], x[3];
    normalize3(y);
    for (int r = 0; r < 3; ++r) {
        f[r] = Minv[r] * forward[0] + Minv[4 + r] * forward[1] + Minv[8 + r] * forward[2];
        u[r] = Minv[r] * up[0] + Minv[4 + r] * up[1] + Minv[8 + r] * up[2];
    }
    normalize3(f), normalize3(u);
    const double* ref = fabs(f[0] * y[0] + f[1] * y[1] + f[2] * y[2]) < 0.9 ? f : u;
    double d = ref[0] * y[0] + ref[1] * y[1] + ref[2] * y[2];
    for (int k = 0; k < 3; ++k)
        z[k] = ref[k] - d * y[k];
    normalize3(z);
    x[0] = y[1] * z[2] - y[2] * z[1], x[1] = y[2] * z[0] - y[0] * z[2],
    x[2] = y[0] * z[1] - y[1] * z[0];
    for (int k = 0; k < 3; ++k) {
        B[k] = scale * x[k];
        B[4 + k] = scale * y[k];
        B[8 + k] = scale * z[k];
    }
}

/* Adds one chain's nodes; writes their IBMs (double → float, last row 0,0,0,1) at `ibm`. */
static void add_chain(tl_gltf* doc, const tl_rig_analysis* a, const tl_rig_part* part,
                      const double Minv[16], const double ibm_attach[16], float* ibm,
                      json_t* skin_joints) {
    json_t* nodes = json_object_get(doc->json, "nodes");
    const tl_gltf_skin* gs = &doc->skins[a->skins[part->skin].skin];
    uint32_t attach_node = gs->joints[part->attach_joint];
    uint32_t K = part->segments;
    size_t base = json_array_size(nodes);
    double B_attach[16];
    tl_mat4d_invert(B_attach, ibm_attach);
    double parent_ibm[16];
    memcpy(parent_ibm, ibm_attach, sizeof parent_ibm);
    json_t *bones = json_array(), *bone_names = json_array();
    for (uint32_t i = 0; i <= K; ++i)
        json_array_append_new(bones, json_integer((json_int_t)(base + i)));
    double heads[(TL_RIG_MAX_LINKS + 1) * 3];
    for (uint32_t i = 0; i <= K; ++i)
        for (int r = 0; r < 3; ++r)
            heads[3 * i + r] = Minv[r] * part->joints[3 * i] +
                               Minv[4 + r] * part->joints[3 * i + 1] +
                               Minv[8 + r] * part->joints[3 * i + 2] + Minv[12 + r];
    double scale = cbrt(fabs(det3(B_attach)));
    bool mirrored = det3(B_attach) < 0; /* keep its handedness: the local stays a rotation */
    for (uint32_t i = 0; i <= K; ++i) {
        /* the bone's head is J_i; its +Y points at the next joint (the end joint continues the
         * last link), as Blender, VRM and Unity draw bones; roll from the character's forward
         * axis (its up when the bone runs along forward); the attachment's bind scale */
        double B[16] = {0};
        bone_axes(heads + 3 * (i < K ? i : K - 1), heads + 3 * (i < K ? i + 1 : K), Minv,
                  a->skins[part->skin].forward, a->skins[part->skin].up, scale, B);
        for (int r = 0; r < 3; ++r)
            B[12 + r] = heads[3 * i + r], B[r] = mirrored ? -B[r] : B[r];
        B[15] = 1;
        double inv[16];
        tl_mat4d_invert(inv, B);
        inv[3] = inv[7] = inv[11] = 0, inv[15] = 1;
        float* out = ibm + 16 * (size_t)i;
        tl_mat4d_to_float(out, inv);
        out[3] = out[7] = out[11] = 0, out[15] = 1;
        /* local = (W_parent bind)^-1 · W_bone bind, from the inverse binds as stored */
        double stored[16], bone_bind[16], local[16];
        tl_mat4d_from_float(stored, out);
        tl_mat4d_invert(bone_bind, stored);
        tl_mat4d_mul(local, parent_ibm, bone_bind);
        memcpy(parent_ibm, stored, sizeof parent_ibm);
        char name[64];
        if (i < K)
            snprintf(name, sizeof name, "%s_%u", part->bone_prefix, i + 1);
        else
            snprintf(name, sizeof name, "%s_End", part->bone_prefix);
        json_array_append_new(bone_names, json_string(name));
        json_t* node = json_pack("{s:s, s:o}", "name", name, "translation", vec3_json(local + 12));
        float local_f[16];
        tl_mat4d_to_float(local_f, local);
        tl_trs trs = tl_trs_from_matrix(local_f);
        if (trs.rotation[3] < 1.0f)
            json_object_set_new(node, "rotation",
                                json_pack("[f,f,f,f]", (double)trs.rotation[0],
                                          (double)trs.rotation[1], (double)trs.rotation[2],
                                          (double)trs.rotation[3]));
        if (i < K)
            json_object_set_new(node, "children", json_pack("[I]", (json_int_t)(base + i + 1)));
        json_array_append_new(nodes, node);
        json_array_append_new(skin_joints, json_integer((json_int_t)(base + i)));
    }
    /* radii in bind units: the part's rest-world radii times the bind scale (det M^-1)^(1/3) */
    json_t* radii = json_array();
    double bind_scale = cbrt(fabs(det3(Minv)));
    for (uint32_t b = 0; b < K; ++b)
        json_array_append_new(radii, json_real((double)part->radii[b] * bind_scale));
    json_object_set_new(
        json_array_get(nodes, base), "extras",
        json_pack("{s:o}", TL_SCHEMA_KEY,
                  part_json(doc, a, part->cls == TL_RIG_CLASS_HAIR ? TL_PART_HAIR : TL_PART_TAIL,
                            attach_node, bones, bone_names, radii)));
    json_decref(bones);
    json_decref(bone_names);
    json_t* parent = json_array_get(nodes, attach_node);
    json_t* children = json_object_get(parent, "children");
    if (!children) {
        children = json_array();
        json_object_set_new(parent, "children", children);
    }
    json_array_append_new(children, json_integer((json_int_t)base));
}

/* The accessors a rig replaced (old inverse binds, JOINTS_n, WEIGHTS_n), for pruning. */
typedef struct replaced_list {
    uint32_t* items;
    uint32_t count, capacity;
} replaced_list;

static bool replaced_add(replaced_list* l, int32_t accessor) {
    if (accessor < 0) return true;
    if (l->count == l->capacity) {
        uint32_t cap = l->capacity ? 2 * l->capacity : 16;
        uint32_t* items = realloc(l->items, cap * sizeof *items);
        if (!items) return false;
        l->items = items, l->capacity = cap;
    }
    l->items[l->count++] = (uint32_t)accessor;
    return true;
}

/* New JOINTS_n/WEIGHTS_n for one primitive: untouched vertices copied value for value. */
static tl_result write_primitive(tl_gltf* doc, const tl_scene_primitive* sp,
                                 const uint32_t* plan_joints, const float* plan_weights,
                                 const uint8_t* planned, uint32_t joint_total, json_t* attributes,
                                 replaced_list* replaced, tl_error* err) {
    const tl_gltf_primitive* gp = &doc->meshes[sp->mesh].primitives[sp->primitive];
    size_t count = sp->vertex_count;
    uint32_t* joints = malloc(4 * count * sizeof *joints);
    float* weights = malloc(4 * count * sizeof *weights);
    void* jdata = malloc(4 * count * sizeof(uint32_t));
    void* wdata = malloc(4 * count * sizeof(float));
    tl_result r = TL_OK;
    if (!joints || !weights || !jdata || !wdata) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t set = 0; set < gp->joint_set_count && r == TL_OK; ++set) {
        uint32_t ja = (uint32_t)gp->joints[set], wa = (uint32_t)gp->weights[set];
        if (doc->accessors[ja].count < count || doc->accessors[wa].count < count) {
            r = tl_error_set(err, TL_ERROR_INVALID,
                             "%s: /accessors/%u: fewer elements than vertices", doc->path, ja);
            break;
        }
        if ((r = tl_gltf_accessor_read_uint(doc, ja, joints, 4 * count, err)) != TL_OK) break;
        if ((r = tl_gltf_accessor_read_float(doc, wa, weights, 4 * count, err)) != TL_OK) break;
        tl_gltf_component jct = doc->accessors[ja].component_type;
        if (joint_total > 256 && jct == TL_GLTF_UNSIGNED_BYTE) jct = TL_GLTF_UNSIGNED_SHORT;
        if (joint_total > 65536) {
            r = tl_error_set(err, TL_ERROR_LIMIT, "%s: skin would have %u joints", doc->path,
                             joint_total);
            break;
        }
        tl_gltf_component wct = doc->accessors[wa].component_type;
        bool normalized = doc->accessors[wa].normalized;
        double max = !normalized                     ? 1.0
                     : wct == TL_GLTF_UNSIGNED_BYTE  ? 255.0
                     : wct == TL_GLTF_UNSIGNED_SHORT ? 65535.0
                                                     : 1.0;
        for (size_t v = 0; v < count; ++v) {
            size_t u = sp->first_vertex + v;
            uint32_t jo[4];
            double wo[4];
            if (planned[u]) {
                if (set == 0) {
                    quantize(plan_joints + 4 * u, plan_weights + 4 * u,
                             normalized ? wct : TL_GLTF_FLOAT, jo, wo);
                } else {
                    memset(jo, 0, sizeof jo);
                    memset(wo, 0, sizeof wo);
                }
            } else {
                for (int k = 0; k < 4; ++k) {
                    jo[k] = joints[4 * v + k];
                    /* read_float divided by max; rounding back gives the stored integer */
                    wo[k] = normalized ? (double)lround((double)weights[4 * v + k] * max)
                                       : (double)weights[4 * v + k];
                }
            }
            for (int k = 0; k < 4; ++k) {
                store(jdata, jct, 4 * v + k, jo[k]);
                store(wdata, wct, 4 * v + k, wo[k]);
            }
        }
        tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
        def.type = TL_GLTF_VEC4;
        def.count = count;
        def.target = 34962;
        def.data = jdata;
        def.component_type = jct;
        uint32_t new_j, new_w;
        if ((r = tl_gltf_accessor_add(doc, &def, &new_j, err)) != TL_OK) break;
        def.data = wdata;
        def.component_type = wct;
        def.normalized = normalized;
        if ((r = tl_gltf_accessor_add(doc, &def, &new_w, err)) != TL_OK) break;
        if (!replaced_add(replaced, (int32_t)ja) || !replaced_add(replaced, (int32_t)wa)) {
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            break;
        }
        char name[32];
        snprintf(name, sizeof name, "JOINTS_%u", set);
        json_object_set_new(attributes, name, json_integer(new_j));
        snprintf(name, sizeof name, "WEIGHTS_%u", set);
        json_object_set_new(attributes, name, json_integer(new_w));
    }
done:
    free(joints);
    free(weights);
    free(jdata);
    free(wdata);
    return r;
}

bool rig_skin_hair_chained(const tl_rig_analysis* a, uint32_t s) {
    for (uint32_t i = 0; i < a->part_count; ++i)
        if (a->parts[i].skin == s && a->parts[i].cls == TL_RIG_CLASS_HAIR &&
            a->parts[i].action == TL_RIG_ACTION_CHAIN)
            return true;
    return false;
}

/* Every primitive holding a planned vertex written with its planned weights (write_primitive). */
static tl_result write_planned(tl_gltf* doc, const tl_scene_primitive* prims, uint32_t count,
                               const uint32_t* joints, const float* weights, const uint8_t* planned,
                               uint32_t total, replaced_list* replaced, tl_error* err) {
    json_t* meshes = json_object_get(doc->json, "meshes");
    tl_result r = TL_OK;
    for (uint32_t i = 0; i < count && r == TL_OK; ++i) {
        const tl_scene_primitive* sp = &prims[i];
        bool any = false;
        for (uint32_t v = 0; v < sp->vertex_count && !any; ++v)
            any = planned[sp->first_vertex + v];
        if (!any) continue;
        json_t* prim = json_array_get(
            json_object_get(json_array_get(meshes, sp->mesh), "primitives"), sp->primitive);
        r = write_primitive(doc, sp, joints, weights, planned, total,
                            json_object_get(prim, "attributes"), replaced, err);
    }
    return r;
}

static tl_result apply_skin(tl_gltf* doc, const tl_rig_analysis* a, uint32_t s,
                            replaced_list* replaced, tl_error* err) {
    const tl_rig_skin* rs = &a->skins[s];
    const tl_gltf_skin* gs = &doc->skins[rs->skin];
    uint32_t N = gs->joint_count, total = N + rs->new_joint_count;
    uint32_t V = rs->vertex_count;
    float* ibm = malloc(16 * (size_t)(total + 1) * sizeof *ibm);
    uint32_t* plan_joints = calloc(4 * (size_t)(V + 1), sizeof *plan_joints);
    float* plan_weights = calloc(4 * (size_t)(V + 1), sizeof *plan_weights);
    uint8_t* planned = calloc(V + 1, 1);
    float* stored = NULL;
    tl_result r = TL_OK;
    if (!ibm || !plan_joints || !plan_weights || !planned) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        goto done;
    }
    bool changed = false;
    for (uint32_t i = 0; i < a->part_count; ++i) {
        const tl_rig_part* p = &a->parts[i];
        if (p->skin != s || !p->new_joints) continue;
        changed = true;
        for (uint32_t k = 0; k < p->vertex_count; ++k) {
            uint32_t v = p->vertices[k];
            planned[v] = 1;
            memcpy(plan_joints + 4 * (size_t)v, p->new_joints + 4 * (size_t)k,
                   4 * sizeof *plan_joints);
            memcpy(plan_weights + 4 * (size_t)v, p->new_weights + 4 * (size_t)k,
                   4 * sizeof *plan_weights);
        }
        for (uint32_t k = 0; k < p->band_count; ++k) {
            uint32_t v = p->band_vertices[k];
            planned[v] = 1;
            memcpy(plan_joints + 4 * (size_t)v, p->band_joints + 4 * (size_t)k,
                   4 * sizeof *plan_joints);
            memcpy(plan_weights + 4 * (size_t)v, p->band_weights + 4 * (size_t)k,
                   4 * sizeof *plan_weights);
        }
    }
    if (!changed) goto done;

    /* the inverse binds: the file's, value for value, then the new bones' */
    if (gs->inverse_bind_matrices != TL_NONE) {
        uint32_t acc = (uint32_t)gs->inverse_bind_matrices;
        size_t n = tl_gltf_accessor_value_count(doc, acc);
        stored = malloc((n + 1) * sizeof *stored);
        if (!stored) {
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            goto done;
        }
        if ((r = tl_gltf_accessor_read_float(doc, acc, stored, n, err)) != TL_OK) goto done;
        memcpy(ibm, stored, 16 * (size_t)N * sizeof *ibm);
    } else {
        for (uint32_t j = 0; j < N; ++j)
            for (int k = 0; k < 16; ++k)
                ibm[16 * j + k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    if (rs->new_joint_count) {
        double M[16], Minv[16];
        tl_mat4d_from_float(M, rs->rest_world);
        tl_mat4d_invert(Minv, M);
        json_t* skin_json = json_array_get(json_object_get(doc->json, "skins"), rs->skin);
        json_t* skin_joints = json_object_get(skin_json, "joints");
        for (uint32_t i = 0; i < a->part_count; ++i) {
            const tl_rig_part* p = &a->parts[i];
            if (p->skin != s ||
                (p->action != TL_RIG_ACTION_CHAIN && p->action != TL_RIG_ACTION_CLOTH))
                continue;
            double attach_ibm[16];
            tl_mat4d_from_float(attach_ibm, ibm + 16 * (size_t)p->attach_joint);
            if (p->action == TL_RIG_ACTION_CLOTH) {
                if (!rig_cloth_add(doc, p, gs->joints, Minv, attach_ibm,
                                   ibm + 16 * (size_t)p->first_new_joint, skin_joints)) {
                    r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
                    goto done;
                }
                continue;
            }
            add_chain(doc, a, p, Minv, attach_ibm, ibm + 16 * (size_t)p->first_new_joint,
                      skin_joints);
        }
        tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
        def.data = ibm;
        def.count = total;
        def.type = TL_GLTF_MAT4;
        def.component_type = TL_GLTF_FLOAT;
        uint32_t acc;
        if ((r = tl_gltf_accessor_add(doc, &def, &acc, err)) != TL_OK) goto done;
        json_object_set_new(skin_json, "inverseBindMatrices", json_integer(acc));
        if (!replaced_add(replaced, gs->inverse_bind_matrices)) {
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            goto done;
        }
    }

    if (r == TL_OK)
        r = write_planned(doc, rs->primitives, rs->primitive_count, plan_joints, plan_weights,
                          planned, total, replaced, err);
done:
    free(stored);
    free(ibm);
    free(plan_joints);
    free(plan_weights);
    free(planned);
    return r;
}

tl_result rig_write_skin_weights(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                 const uint32_t* joints, const float* weights,
                                 const uint8_t* planned, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[skin];
    replaced_list replaced = {0};
    uint32_t first_new = doc->accessor_count;
    tl_result r = write_planned(doc, sk->primitives, sk->primitive_count, joints, weights, planned,
                                sk->joint_count, &replaced, err);
    if (r == TL_OK) r = rig_prune_accessors(doc, replaced.items, replaced.count, first_new, err);
    free(replaced.items);
    return r == TL_OK ? tl_gltf_reindex(doc, err) : r;
}

static json_t* numbers_json(const float* v, int count) {
    json_t* a = json_array();
    for (int k = 0; k < count; ++k)
        json_array_append_new(a, json_real((double)v[k]));
    return a;
}

/* One body collider as stored (docs/schema.md): in its joint's frame, rest_world(joint)^-1. */
static json_t* collider_json(const tl_gltf* doc, const tl_scene_skin* sk,
                             const tl_body_collider* c) {
    const tl_scene_joint* j = &sk->joints[c->joint];
    double rest[16], inverse[16];
    tl_mat4d_from_float(rest, j->rest_world);
    tl_mat4d_invert(inverse, rest);
    tl_collider local;
    tl_collider_transform(&c->local, inverse, &local);
    json_t* o = json_object();
    json_object_set_new(o, TL_SCHEMA_COLLIDER_JOINT, json_integer((json_int_t)j->node));
    if (doc->nodes[j->node].name)
        json_object_set_new(o, TL_SCHEMA_COLLIDER_JOINT_NAME,
                            json_string(doc->nodes[j->node].name));
    json_object_set_new(o, TL_SCHEMA_COLLIDER_ROLE, json_string(tl_role_string(c->role)));
    json_object_set_new(o, TL_SCHEMA_COLLIDER_SIDE, json_string(tl_side_string(c->side)));
    json_object_set_new(o, TL_SCHEMA_COLLIDER_SHAPE,
                        json_string(tl_schema_collider_shapes[local.shape]));
    json_object_set_new(o, TL_SCHEMA_COLLIDER_A, numbers_json(local.a, 3));
    if (local.shape == TL_COLLIDER_CAPSULE || local.shape == TL_COLLIDER_PLANE)
        json_object_set_new(o, TL_SCHEMA_COLLIDER_B, numbers_json(local.b, 3));
    if (local.shape == TL_COLLIDER_SPHERE || local.shape == TL_COLLIDER_CAPSULE)
        json_object_set_new(o, TL_SCHEMA_COLLIDER_RADIUS, json_real((double)local.radius));
    if (local.shape == TL_COLLIDER_ELLIPSOID) {
        json_t* axes = json_array();
        for (int k = 0; k < 3; ++k)
            json_array_append_new(axes, numbers_json(local.axes[k], 3));
        json_object_set_new(o, TL_SCHEMA_COLLIDER_AXES, axes);
    }
    json_object_set_new(o, TL_SCHEMA_COLLIDER_VERTICES, json_integer((json_int_t)c->vertices));
    return o;
}

/* The body colliders of every skin that got a chain or a cloth lattice, fitted to the rigged
 * skin (the tail's or the garment's skin is its new bones' by then; `scene` is the rigged
 * document's) and stored as skins[s].extras.tailor.colliders, beside the skin's frame: what the
 * chains meet, and for cloth what its player fits again at play time (tl_body_colliders_fit on
 * the same skin), so a reader of the file (tailor inspect, the web viewer, another engine) sees
 * the body the garment meets. */
static tl_result skin_colliders_write(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                      bool frame, const uint8_t* hair, tl_error* err);

tl_result rig_write_skin_colliders(tl_gltf* doc, const tl_scene* scene, uint32_t skin, bool frame,
                                   tl_error* err) {
    return skin_colliders_write(doc, scene, skin, frame, NULL, err);
}

/* rig_write_skin_colliders given the skin's hair flags (hair_flags_of; NULL: found again). */
static tl_result skin_colliders_write(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                      bool frame, const uint8_t* hair, tl_error* err) {
    tl_body_collider body[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    tl_result r =
        tl_body_colliders_fit_hair(scene, skin, hair, body, TL_BODY_COLLIDERS_MAX, &n, err);
    if (r != TL_OK) return r;
    json_t* tailor = tl_schema_skin_record(doc, skin);
    if (!tailor) /* (a skin whose extras are not an object is refused when read) */
        return tl_error_set(err, TL_ERROR_INVALID,
                            "skin %u does not exist or its extras are not an object", skin);
    json_t* list = json_array();
    for (uint32_t k = 0; k < n; ++k)
        json_array_append_new(list, collider_json(doc, &scene->skins[skin], &body[k]));
    /* the frame the player takes (in the coordinates of the colliders' rest-world mapping),
     * so every reader plays by it and a misdetected one can be corrected in the file */
    if (frame) r = tl_skin_write_frame(doc, scene, skin, err);
    json_object_set_new(tailor, TL_SCHEMA_COLLIDERS, list);
    return r;
}

/* The hair primitives' flags of scene skin k (tl_hair_find_primitives), found once for the
 * colliders' fit and the first guide layer, which read the same scene: hair[k] (NULL: not yet
 * found; the result NULL when memory fails: each step finds its own then). */
static const uint8_t* hair_flags_of(const tl_scene* scene, uint8_t** hair, uint32_t k) {
    if (!hair) return NULL;
    if (!hair[k] && (hair[k] = malloc(scene->skins[k].primitive_count + 1)))
        tl_hair_find_primitives(scene, k, hair[k]);
    return hair[k];
}

static tl_result write_colliders(tl_gltf* doc, const tl_rig_analysis* a, const tl_scene* scene,
                                 uint8_t** hair, tl_error* err) {
    tl_result r = TL_OK;
    for (uint32_t s = 0; s < a->skin_count && r == TL_OK; ++s) {
        bool chained = false;
        for (uint32_t i = 0; i < a->part_count; ++i)
            chained |= a->parts[i].skin == s && (a->parts[i].action == TL_RIG_ACTION_CHAIN ||
                                                 a->parts[i].action == TL_RIG_ACTION_CLOTH);
        uint32_t skin = a->skins[s].skin;
        if (chained && skin < scene->skin_count)
            r = skin_colliders_write(doc, scene, skin, true, hair_flags_of(scene, hair, skin), err);
    }
    return r;
}

/* The guide layer (hair.md §6) of every skin that got hair chains, weighted from the rigged skin:
 * the same weights as the visible hair. The first reads `scene` (write_colliders' scene: the
 * colliders it added are not read by the layer); each later one a scene with the layers before
 * it. `scene` is destroyed. */
static tl_result write_hair_guides(tl_gltf* doc, const tl_rig_analysis* a, tl_scene* scene,
                                   uint8_t** flags, tl_error* err) {
    tl_result r = TL_OK;
    for (uint32_t s = 0; s < a->skin_count && r == TL_OK; ++s) {
        if (!rig_skin_hair_chained(a, s)) continue;
        if (!scene && (r = tl_scene_create(doc, &scene, err)) != TL_OK) break;
        uint32_t written = 0;
        for (uint32_t k = 0; k < scene->skin_count; ++k)
            if (scene->skins[k].skin == a->skins[s].skin)
                r = hair_guide_layer_add(doc, scene, k, a->skins[s].hair_guides,
                                         hair_flags_of(scene, flags, k), &written, err);
        tl_scene_destroy(scene);    /* the layer changed the document */
        scene = NULL, flags = NULL; /* (the flags were the first scene's) */
    }
    tl_scene_destroy(scene);
    return r;
}

static void flags_free(uint8_t** hair, uint32_t count) {
    for (uint32_t k = 0; hair && k < count; ++k)
        free(hair[k]);
    free(hair);
}

tl_result tl_rig_apply(tl_gltf* doc, const tl_rig_analysis* a, tl_error* err) {
    assert(doc && a);
    if (a->changed_vertices == 0) { /* (a file tailor rigged before: the fit if asked) */
        tl_result r = rig_write_play_missing(doc, a, err);
        return r == TL_OK && a->def.hair_fit ? rig_write_hair_fit(doc, a, err) : r;
    }
    replaced_list replaced = {0};
    uint32_t first_new = doc->accessor_count;
    tl_result r = TL_OK;
    for (uint32_t s = 0; s < a->skin_count && r == TL_OK; ++s) {
        assert(a->skins[s].skin < doc->skin_count);
        r = apply_skin(doc, a, s, &replaced, err);
    }
    if (r == TL_OK) r = rig_prune_accessors(doc, replaced.items, replaced.count, first_new, err);
    free(replaced.items);
    if (r == TL_OK) r = tl_gltf_reindex(doc, err);
    tl_scene* scene = NULL; /* the rigged document's, for the colliders and the first layer */
    if (r == TL_OK) r = tl_scene_create(doc, &scene, err);
    uint8_t** hair_flags = r == TL_OK ? calloc(scene->skin_count + 1, sizeof *hair_flags) : NULL;
    uint32_t hair_skins = r == TL_OK ? scene->skin_count : 0;
    if (r == TL_OK) r = write_colliders(doc, a, scene, hair_flags, err);
    if (r != TL_OK) return flags_free(hair_flags, hair_skins), tl_scene_destroy(scene), r;
    bool hair = false; /* (the player's hair data, found on the document with its guide layers) */
    for (uint32_t i = 0; i < a->part_count; ++i)
        hair |= a->parts[i].cls == TL_RIG_CLASS_HAIR && a->parts[i].action == TL_RIG_ACTION_CHAIN;
    /* (on this scene: the keys it writes are in objects the layers do not touch, so the
       document's bytes are those of writing them after the layers from a scene made then) */
    if (hair) r = rig_write_hair_play(doc, scene, err);
    if (r == TL_OK)
        r = write_hair_guides(doc, a, scene, hair_flags, err);
    else
        tl_scene_destroy(scene);
    flags_free(hair_flags, hair_skins);
    if (r == TL_OK) r = rig_write_play_missing(doc, a, err);
    if (r == TL_OK && hair && a->def.hair_fit) r = rig_write_hair_fit(doc, a, err);
    if (r == TL_OK && a->def.cloth_fit) {
        rig_cloth_fit_def def = rig_default_cloth_fit_def();
        def.fit.colliders = !a->def.cloth_fit_no_colliders;
        def.fit.clips = a->def.cloth_fit_clips;
        r = rig_write_cloth_fit(doc, &def, err);
    }
    return r;
}
