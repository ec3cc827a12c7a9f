/* Writes a sample character as glTF in the def's frame: Y- or Z-up bind space at `scale`
 * units per metre under an "Armature" node that maps it back to a real-sized, Y-up world. */
#include "sample/internal.h"

#include <stdlib.h>
#include <string.h>

/* The frames: design (metres, Y up, facing +Z) → rest-world (facing turned) → bind space. */
typedef struct frames {
    double k, floor; /* design → final size: p' = k (p - floor ŷ) */
    dquat facing;    /* design → rest-world */
    dquat to_bind;   /* rest-world directions → bind-space directions */
    double scale;    /* bind units per metre */
    float armature_rotation[4], armature_scale;
    double armature[16]; /* rest-world from bind space, from the stored floats */
} frames;

static dv3 sized(const frames* f, dv3 p) {
    return v3(f->k * p.x, f->k * (p.y - f->floor), f->k * p.z);
}
static dv3 to_world(const frames* f, dv3 p) {
    return quat_rotate(f->facing, sized(f, p));
}
static dv3 to_bind(const frames* f, dv3 p) {
    return v3_scale(quat_rotate(f->to_bind, to_world(f, p)), f->scale);
}

static void frames_make(frames* f, const sample_character* c, const tl_sample_def* def) {
    double lo = INFINITY, hi = -INFINITY;
    const sample_prim* prims[2] = {&c->body, &c->fur};
    for (int p = 0; p < 2; ++p)
        for (uint32_t i = 0; i < prims[p]->vertex_count; ++i) {
            lo = fmin(lo, prims[p]->position[i].y);
            hi = fmax(hi, prims[p]->position[i].y);
        }
    f->k = def->height / (hi - lo);
    f->floor = lo;
    f->facing = def->facing == TL_SAMPLE_FACING_NEG_Z ? (dquat){0, 1, 0, 0} : quat_identity();
    /* Blender's armature rotates −90° about X: bind +Z becomes world +Y. */
    dquat up = def->up == TL_SAMPLE_Z_UP ? quat_axis_angle(v3(1, 0, 0), -0.5 * SAMPLE_PI)
                                         : quat_identity();
    f->to_bind = quat_conjugate(up);
    f->scale = def->scale;
    f->armature_rotation[0] = (float)up.x, f->armature_rotation[1] = (float)up.y;
    f->armature_rotation[2] = (float)up.z, f->armature_rotation[3] = (float)up.w;
    f->armature_scale = (float)(1.0 / (double)def->scale);
    dquat r = quat_normalize((dquat){f->armature_rotation[0], f->armature_rotation[1],
                                     f->armature_rotation[2], f->armature_rotation[3]});
    double s = f->armature_scale;
    tl_mat4d_from_trs(f->armature, v3(0, 0, 0), r, v3(s, s, s));
}

static dquat quat_of_floats(const float q[4]) {
    return quat_normalize((dquat){q[0], q[1], q[2], q[3]});
}
static void floats_of_quat(float out[4], dquat q) {
    q = quat_normalize(q);
    out[0] = (float)q.x, out[1] = (float)q.y, out[2] = (float)q.z, out[3] = (float)q.w;
}

/* The joints: bone-aligned design rotations (local +Y along the bone), stored TRS, bind
 * matrices recomputed from the stored floats. */
typedef struct joint_set {
    dquat design[SAMPLE_MAX_JOINTS]; /* joint rotation in design axes */
    float translation[SAMPLE_MAX_JOINTS][3];
    float rotation[SAMPLE_MAX_JOINTS][4];
    float ibm[SAMPLE_MAX_JOINTS][16];
} joint_set;

static void joints_make(joint_set* J, const sample_character* c, const frames* f) {
    dquat bind_rot[SAMPLE_MAX_JOINTS];
    dv3 bind_pos[SAMPLE_MAX_JOINTS];
    double world[SAMPLE_MAX_JOINTS][16];
    for (uint32_t j = 0; j < c->joint_count; ++j) {
        int p = c->parent[j];
        dv3 y =
            c->aim[j] >= 0 ? v3_normalize(v3_sub(c->joint[c->aim[j]], c->joint[j])) : v3(0, 0, 0);
        if (c->aim[j] < 0) {
            J->design[j] = p >= 0 ? J->design[p] : quat_identity();
        } else {
            /* roll: local +Z toward the front, or up for bones that point front or back */
            dv3 ref = fabs(y.z) < 0.7 ? v3(0, 0, 1) : v3(0, 1, 0);
            dv3 z = v3_normalize(v3_sub(ref, v3_scale(y, v3_dot(ref, y))));
            J->design[j] = tl_dquat_from_axes(v3_cross(y, z), y, z);
        }
        bind_rot[j] = quat_mul(f->to_bind, quat_mul(f->facing, J->design[j]));
        bind_pos[j] = to_bind(f, c->joint[j]);
        dquat local_r = bind_rot[j];
        dv3 local_t = bind_pos[j];
        if (p >= 0) {
            dquat inv = quat_conjugate(bind_rot[p]);
            local_r = quat_mul(inv, bind_rot[j]);
            local_t = quat_rotate(inv, v3_sub(bind_pos[j], bind_pos[p]));
        }
        floats_of_quat(J->rotation[j], local_r);
        J->translation[j][0] = (float)local_t.x;
        J->translation[j][1] = (float)local_t.y;
        J->translation[j][2] = (float)local_t.z;
        /* The bind matrix a reader computes from the stored floats, and its exact inverse. */
        double local[16], inverse[16];
        tl_mat4d_from_trs(local,
                          v3(J->translation[j][0], J->translation[j][1], J->translation[j][2]),
                          quat_of_floats(J->rotation[j]), v3(1, 1, 1));
        if (p >= 0)
            tl_mat4d_mul(world[j], world[p], local);
        else
            memcpy(world[j], local, sizeof local);
        tl_mat4d_invert(inverse, world[j]);
        for (int k = 0; k < 16; ++k)
            J->ibm[j][k] = (float)inverse[k];
        J->ibm[j][3] = J->ibm[j][7] = J->ibm[j][11] = 0.0f, J->ibm[j][15] = 1.0f;
    }
}

/* Four influences sorted by weight, as bytes summing to exactly 255; unused slots joint 0. */
static void quantize(const sample_weights* w, uint8_t joint[4], uint8_t weight[4]) {
    int order[4] = {0, 1, 2, 3};
    for (int a = 1; a < 4; ++a)
        for (int b = a; b > 0; --b) {
            const int x = order[b - 1], y = order[b];
            bool swap = w->weight[y] > w->weight[x] ||
                        (w->weight[y] == w->weight[x] && w->joint[y] < w->joint[x]);
            if (!swap) break;
            order[b - 1] = y, order[b] = x;
        }
    double total = w->weight[0] + w->weight[1] + w->weight[2] + w->weight[3];
    int sum = 0;
    for (int k = 0; k < 4; ++k) {
        int q = (int)lround(w->weight[order[k]] / total * 255.0);
        joint[k] = q > 0 ? (uint8_t)w->joint[order[k]] : 0;
        weight[k] = (uint8_t)q;
        sum += q;
    }
    weight[0] = (uint8_t)(weight[0] + 255 - sum);
}

static tl_result add_accessor(tl_gltf* doc, const void* data, size_t count,
                              tl_gltf_component component, tl_gltf_type type, bool normalized,
                              int target, bool min_max, uint32_t* out, tl_error* err) {
    tl_gltf_accessor_def a = tl_default_gltf_accessor_def();
    a.data = data, a.count = count, a.component_type = component, a.type = type;
    a.normalized = normalized, a.target = target, a.min_max = min_max;
    return tl_gltf_accessor_add(doc, &a, out, err);
}

/* One primitive's vertex data, in bind space. */
static tl_result write_primitive(tl_gltf* doc, const sample_prim* prim, const frames* f,
                                 int material, json_t* primitives, tl_error* err) {
    size_t n = prim->vertex_count;
    float* pos = malloc(n * 3 * sizeof *pos);
    float* nrm = malloc(n * 3 * sizeof *nrm);
    float* uv = malloc(n * 2 * sizeof *uv);
    uint8_t* joints = malloc(n * 4);
    uint8_t* weights = malloc(n * 4);
    uint16_t* indices = malloc(prim->index_count * sizeof *indices);
    tl_result r = TL_OK;
    if (!pos || !nrm || !uv || !joints || !weights || !indices) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory writing a primitive");
        goto done;
    }
    dquat turn = quat_mul(f->to_bind, f->facing);
    for (size_t i = 0; i < n; ++i) {
        dv3 p = to_bind(f, prim->position[i]);
        dv3 d = v3_normalize(quat_rotate(turn, prim->normal[i]));
        pos[3 * i] = (float)p.x, pos[3 * i + 1] = (float)p.y, pos[3 * i + 2] = (float)p.z;
        nrm[3 * i] = (float)d.x, nrm[3 * i + 1] = (float)d.y, nrm[3 * i + 2] = (float)d.z;
        uv[2 * i] = (float)prim->uv[i][0], uv[2 * i + 1] = (float)prim->uv[i][1];
        quantize(&prim->weights[i], joints + 4 * i, weights + 4 * i);
    }
    for (uint32_t i = 0; i < prim->index_count; ++i)
        indices[i] = (uint16_t)prim->indices[i];
    uint32_t a_pos, a_nrm, a_uv, a_j, a_w, a_idx;
    if ((r = add_accessor(doc, pos, n, TL_GLTF_FLOAT, TL_GLTF_VEC3, false, 34962, true, &a_pos,
                          err)) ||
        (r = add_accessor(doc, nrm, n, TL_GLTF_FLOAT, TL_GLTF_VEC3, false, 34962, false, &a_nrm,
                          err)) ||
        (r = add_accessor(doc, uv, n, TL_GLTF_FLOAT, TL_GLTF_VEC2, false, 34962, false, &a_uv,
                          err)) ||
        (r = add_accessor(doc, joints, n, TL_GLTF_UNSIGNED_BYTE, TL_GLTF_VEC4, false, 34962, false,
                          &a_j, err)) ||
        (r = add_accessor(doc, weights, n, TL_GLTF_UNSIGNED_BYTE, TL_GLTF_VEC4, true, 34962, false,
                          &a_w, err)) ||
        (r = add_accessor(doc, indices, prim->index_count, TL_GLTF_UNSIGNED_SHORT, TL_GLTF_SCALAR,
                          false, 34963, false, &a_idx, err)))
        goto done;
    json_array_append_new(
        primitives, json_pack("{s:{s:i,s:i,s:i,s:i,s:i},s:i,s:i,s:i}", "attributes", "POSITION",
                              a_pos, "NORMAL", a_nrm, "TEXCOORD_0", a_uv, "JOINTS_0", a_j,
                              "WEIGHTS_0", a_w, "indices", a_idx, "material", material, "mode", 4));
done:
    free(pos), free(nrm), free(uv), free(joints), free(weights), free(indices);
    return r;
}

static bool quat_is_identity(dquat q) {
    return fabs(q.x) + fabs(q.y) + fabs(q.z) < 1e-12;
}

/* One clip: a shared time accessor, hips translation, rotation of every joint that moves. */
static tl_result write_clip(tl_gltf* doc, const sample_character* c, const sample_clip* clip,
                            const joint_set* J, const frames* f, double height, json_t* animations,
                            tl_error* err) {
    uint32_t keys = clip->frames + 1, jc = c->joint_count;
    float* times = malloc(keys * sizeof *times);
    float* rot = malloc((size_t)keys * jc * 4 * sizeof *rot);
    float* hips = malloc((size_t)keys * 3 * sizeof *hips);
    bool moves[SAMPLE_MAX_JOINTS] = {false};
    tl_result r = TL_OK;
    if (!times || !rot || !hips) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory writing clip %s", clip->name);
        goto done;
    }
    dquat turn = quat_mul(f->to_bind, f->facing);
    for (uint32_t k = 0; k < keys; ++k) {
        times[k] = (float)((double)k / SAMPLE_FPS);
        sample_pose pose;
        for (uint32_t j = 0; j < jc; ++j)
            pose.rotation[j] = quat_identity();
        pose.hips_offset = v3(0, 0, 0);
        clip->pose((double)k / SAMPLE_FPS, height, &pose);
        for (uint32_t j = 0; j < jc; ++j) {
            /* a design-axes turn at the joint, as a turn in the joint's own rest frame */
            dquat delta =
                quat_mul(quat_conjugate(J->design[j]), quat_mul(pose.rotation[j], J->design[j]));
            dquat q = quat_normalize(quat_mul(quat_of_floats(J->rotation[j]), delta));
            float* out = rot + ((size_t)j * keys + k) * 4;
            if (k >
                0) { /* keep neighbouring keys in one hemisphere so LINEAR takes the short way */
                const float* prev = out - 4;
                if (prev[0] * q.x + prev[1] * q.y + prev[2] * q.z + prev[3] * q.w < 0)
                    q = (dquat){-q.x, -q.y, -q.z, -q.w};
            }
            floats_of_quat(out, q);
            moves[j] = moves[j] || !quat_is_identity(pose.rotation[j]);
        }
        dv3 t = v3_add(v3(J->translation[0][0], J->translation[0][1], J->translation[0][2]),
                       v3_scale(quat_rotate(turn, pose.hips_offset), f->scale));
        hips[3 * k] = (float)t.x, hips[3 * k + 1] = (float)t.y, hips[3 * k + 2] = (float)t.z;
    }
    uint32_t input, output;
    if ((r = add_accessor(doc, times, keys, TL_GLTF_FLOAT, TL_GLTF_SCALAR, false, 0, true, &input,
                          err)) ||
        (r = add_accessor(doc, hips, keys, TL_GLTF_FLOAT, TL_GLTF_VEC3, false, 0, false, &output,
                          err)))
        goto done;
    json_t* samplers = json_array();
    json_t* channels = json_array();
    json_t* anim =
        json_pack("{s:s,s:o,s:o}", "name", clip->name, "channels", channels, "samplers", samplers);
    json_array_append_new(animations, anim);
    json_array_append_new(samplers, json_pack("{s:i,s:i,s:s}", "input", input, "output", output,
                                              "interpolation", "LINEAR"));
    json_array_append_new(channels, json_pack("{s:i,s:{s:i,s:s}}", "sampler", 0, "target", "node",
                                              1, "path", "translation"));
    for (uint32_t j = 0; j < jc; ++j) {
        if (!moves[j]) continue;
        if ((r = add_accessor(doc, rot + (size_t)j * keys * 4, keys, TL_GLTF_FLOAT, TL_GLTF_VEC4,
                              false, 0, false, &output, err)))
            goto done;
        json_array_append_new(samplers, json_pack("{s:i,s:i,s:s}", "input", input, "output", output,
                                                  "interpolation", "LINEAR"));
        json_array_append_new(channels, json_pack("{s:i,s:{s:i,s:s}}", "sampler",
                                                  (int)json_array_size(samplers) - 1, "target",
                                                  "node", (int)j + 1, "path", "rotation"));
    }
done:
    free(times), free(rot), free(hips);
    return r;
}

static json_t* material(const char* name, double r, double g, double b, double roughness) {
    return json_pack("{s:s,s:{s:[f,f,f,f],s:f,s:f}}", "name", name, "pbrMetallicRoughness",
                     "baseColorFactor", r, g, b, 1.0, "metallicFactor", 0.0, "roughnessFactor",
                     roughness);
}

static tl_result write_document(tl_gltf* doc, const sample_character* c, const tl_sample_def* def,
                                const frames* f, const joint_set* J, tl_error* err) {
    json_t* root = doc->json;
    uint32_t jc = c->joint_count, body_node = jc + 1;
    /* nodes: 0 Armature, 1 … jc the joints, jc + 1 the skinned mesh (a scene root, as the
     * validator wants) */
    json_t* nodes = json_array();
    json_t* armature = json_pack("{s:s,s:[i]}", "name", "Armature", "children", 1);
    if (def->up == TL_SAMPLE_Z_UP)
        json_object_set_new(armature, "rotation", sample_json_floats(f->armature_rotation, 4));
    if (f->armature_scale != 1.0f) {
        float s[3] = {f->armature_scale, f->armature_scale, f->armature_scale};
        json_object_set_new(armature, "scale", sample_json_floats(s, 3));
    }
    json_array_append_new(nodes, armature);
    json_t* skin_joints = json_array();
    for (uint32_t j = 0; j < jc; ++j) {
        json_t* node = json_pack("{s:s,s:o,s:o}", "name", c->joint_name[j], "translation",
                                 sample_json_floats(J->translation[j], 3), "rotation",
                                 sample_json_floats(J->rotation[j], 4));
        json_t* children = json_array();
        for (uint32_t k = j + 1; k < jc; ++k)
            if (c->parent[k] == (int)j) json_array_append_new(children, json_integer(k + 1));
        if (json_array_size(children))
            json_object_set_new(node, "children", children);
        else
            json_decref(children);
        json_array_append_new(nodes, node);
        json_array_append_new(skin_joints, json_integer(j + 1));
    }
    json_array_append_new(nodes, json_pack("{s:s,s:i,s:i}", "name", "Body", "mesh", 0, "skin", 0));
    json_object_set_new(root, "nodes", nodes);
    json_object_set_new(root, "scenes",
                        json_pack("[{s:s,s:[i,i]}]", "name", "Scene", "nodes", 0, body_node));
    json_object_set_new(root, "scene", json_integer(0));
    json_object_set_new(root, "materials",
                        json_pack("[o,o]", material("Skin", 0.80, 0.62, 0.50, 0.7),
                                  material("Fur", 0.55, 0.35, 0.20, 0.9)));
    json_t* primitives = json_array();
    json_object_set_new(root, "meshes",
                        json_pack("[{s:s,s:o}]", "name", "Body", "primitives", primitives));
    tl_result r;
    if ((r = write_primitive(doc, &c->body, f, 0, primitives, err)) ||
        (r = write_primitive(doc, &c->fur, f, 1, primitives, err)))
        return r;
    uint32_t ibm;
    if ((r = add_accessor(doc, J->ibm, jc, TL_GLTF_FLOAT, TL_GLTF_MAT4, false, 0, false, &ibm,
                          err)))
        return r;
    json_object_set_new(root, "skins",
                        json_pack("[{s:s,s:i,s:o,s:i}]", "name", "Armature", "inverseBindMatrices",
                                  ibm, "joints", skin_joints, "skeleton", 1));
    json_t* animations = json_array();
    json_object_set_new(root, "animations", animations);
    for (uint32_t i = 0; i < c->clip_count; ++i)
        if ((r = write_clip(doc, c, &c->clips[i], J, f, def->height, animations, err))) return r;
    return tl_gltf_reindex(doc, err);
}

static tl_result write_truth(tl_sample_truth* t, const sample_character* c,
                             const tl_sample_def* def, const frames* f, tl_error* err) {
    t->name = c->name;
    t->def = *def;
    t->height = def->height;
    t->up[1] = 1.0f;
    dv3 forward = quat_rotate(f->facing, v3(0, 0, 1));
    t->forward[0] = (float)forward.x, t->forward[1] = (float)forward.y,
    t->forward[2] = (float)forward.z;
    for (int k = 0; k < 16; ++k)
        t->bind_to_world[k] = (float)f->armature[k];
    dv3 root = to_world(f, c->tail_root), tip = to_world(f, c->tail_tip);
    t->tail_root[0] = (float)root.x, t->tail_root[1] = (float)root.y,
    t->tail_root[2] = (float)root.z;
    t->tail_tip[0] = (float)tip.x, t->tail_tip[1] = (float)tip.y, t->tail_tip[2] = (float)tip.z;
    t->tail_length = (float)(f->k * c->tail_length);
    t->tail_radius = (float)(f->k * c->tail_radius);
    t->tail_parent = c->joint_name[c->tail_parent];
    t->wrong_thigh_l = c->joint_name[c->thigh_l];
    t->wrong_thigh_r = c->joint_name[c->thigh_r];
    t->wrong_shin_l = c->joint_name[c->shin_l];
    const struct {
        const char* name;
        uint32_t primitive, first, count;
    } shells[2] = {{"skin", 0, c->tail_skin_first, c->body.vertex_count - c->tail_skin_first},
                   {"fur", 1, 0, c->fur.vertex_count}};
    for (int s = 0; s < 2; ++s) {
        tl_sample_shell* out = &t->shells[s];
        out->vertices = malloc(shells[s].count * sizeof *out->vertices);
        if (!out->vertices) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        out->name = shells[s].name, out->mesh = 0, out->primitive = shells[s].primitive;
        out->vertex_count = shells[s].count;
        for (uint32_t i = 0; i < shells[s].count; ++i)
            out->vertices[i] = shells[s].first + i;
        t->shell_count = (uint32_t)s + 1;
    }
    return TL_OK;
}

tl_result sample_document_write(sample_character* c, const tl_sample_def* def, tl_gltf** out,
                                tl_sample_truth* truth, tl_error* err) {
    frames f;
    frames_make(&f, c, def);
    joint_set* J = malloc(sizeof *J);
    if (!J) return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", c->name);
    joints_make(J, c, &f);
    tl_gltf* doc = NULL;
    tl_result r = tl_gltf_create(&doc, err);
    if (r == TL_OK) r = write_document(doc, c, def, &f, J, err);
    if (r == TL_OK && truth) r = write_truth(truth, c, def, &f, err);
    free(J);
    if (r != TL_OK) {
        tl_gltf_destroy(doc);
        tl_sample_truth_free(truth);
        return r;
    }
    *out = doc;
    return TL_OK;
}
