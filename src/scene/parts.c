/* The one reader of extras.tailor (docs/schema.md): every part the file stores is decoded
 * and checked here, once, into tl_scene_part; nothing after this touches the JSON. A bad
 * value is refused with the file and the JSON pointer of the value. */
#include "internal.h"
#include "scene/parts_internal.h"
#include "scene/schema.h"
#include <tailor/colliders.h>
#include <tailor/gltf_json.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* tl_part_kind_string(tl_part_kind kind) {
    switch (kind) {
    case TL_PART_TAIL:
        return "tail";
    case TL_PART_HAIR:
        return "hair";
    case TL_PART_CLOTH:
        return "cloth";
    case TL_PART_PENDULUM:
        return "pendulum";
    case TL_PART_AIM:
        return "aim";
    }
    return "?";
}

static tl_result read_kind(reader* r, const char* base, json_t* tailor, tl_part_kind* out) {
    char ptr[128];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_KIND);
    json_t* v = json_object_get(tailor, TL_SCHEMA_KIND);
    if (!v) return tl_parts_refuse(r, ptr, "is missing");
    const char* s = json_string_value(v);
    if (!s) return tl_parts_refuse(r, ptr, "must be a string, is %s", tl_parts_type_name(v));
    for (int k = TL_PART_TAIL; k <= TL_PART_AIM; ++k)
        if (!strcmp(s, tl_part_kind_string((tl_part_kind)k))) {
            *out = (tl_part_kind)k;
            return TL_OK;
        }
    return tl_parts_refuse(
        r, ptr, "must be \"tail\", \"hair\", \"cloth\", \"pendulum\" or \"aim\", is \"%.60s\"", s);
}

static tl_result read_chain(reader* r, const char* base, json_t* tailor, uint32_t version,
                            tl_chain_settings* out) {
    *out = tl_default_chain_settings();
    char ptr[160];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_CHAIN);
    json_t* chain = json_object_get(tailor, TL_SCHEMA_CHAIN);
    if (!chain) return TL_OK;
    if (!json_is_object(chain))
        return tl_parts_refuse(r, ptr, "must be an object, is %s", tl_parts_type_name(chain));
    const char* known[TL_SCHEMA_SETTING_COUNT + 1];
    for (int k = 0; k < TL_SCHEMA_SETTING_COUNT; ++k) {
        const tl_schema_setting* s = &tl_schema_settings[k];
        known[k] = s->key;
        tl_result res = tl_parts_read_setting(r, ptr, chain, s, tl_schema_setting_field(s, out));
        if (res != TL_OK) return res;
    }
    known[TL_SCHEMA_SETTING_COUNT] = NULL;
    return tl_parts_note_unknown(r, ptr, chain, known, version == 1 ? TL_SCHEMA_V1_SCALE : NULL);
}

static tl_result read_cloth_settings(reader* r, const char* ptr, json_t* o, tl_cloth_settings* s) {
    *s = tl_default_cloth_settings();
    if (!o) return TL_OK;
    if (!json_is_object(o))
        return tl_parts_refuse(r, ptr, "must be an object, is %s", tl_parts_type_name(o));
    char at[320];
    const char* known[TL_SCHEMA_CLOTH_SETTING_COUNT + 2];
    json_t* it = json_object_get(o, TL_SCHEMA_CLOTH_ITERATIONS);
    snprintf(at, sizeof at, "%s/%s", ptr, TL_SCHEMA_CLOTH_ITERATIONS);
    if (it &&
        !(json_is_integer(it) && json_integer_value(it) >= 0 && json_integer_value(it) <= 1000))
        return tl_parts_refuse(r, at, "must be an integer in 0..1000");
    if (it) s->iterations = (int)json_integer_value(it);
    known[0] = TL_SCHEMA_CLOTH_ITERATIONS;
    for (int k = 0; k < TL_SCHEMA_CLOTH_SETTING_COUNT; ++k) {
        const tl_schema_setting* d = &tl_schema_cloth_settings[k];
        known[k + 1] = d->key;
        tl_result res = tl_parts_read_setting(r, ptr, o, d, tl_schema_cloth_setting_field(d, s));
        if (res != TL_OK) return res;
    }
    known[TL_SCHEMA_CLOTH_SETTING_COUNT + 1] = NULL;
    return tl_parts_note_unknown(r, ptr, o, known, NULL);
}

static bool read_count(json_t* o, const char* key, uint32_t lo, uint32_t hi, uint32_t* out) {
    json_t* v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return false;
    *out = (uint32_t)json_integer_value(v);
    return true;
}

/* extras.tailor.cloth of a part of kind cloth: the lattice, its particles' joints, settings. */
static tl_result read_cloth(reader* r, const char* base, json_t* tailor, tl_scene_part* part) {
    char ptr[200], at[240];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_CLOTH);
    json_t* o = json_object_get(tailor, TL_SCHEMA_CLOTH);
    if (!json_is_object(o))
        return tl_parts_refuse(r, ptr, "must be an object, is %s", tl_parts_type_name(o));
    uint32_t R, C, BC;
    if (!read_count(o, TL_SCHEMA_CLOTH_ROWS, 2, TL_CLOTH_MAX_SIDE, &R) ||
        !read_count(o, TL_SCHEMA_CLOTH_COLUMNS, 2, TL_CLOTH_MAX_SIDE, &C) ||
        !read_count(o, TL_SCHEMA_CLOTH_BONE_COLUMNS, 1, C, &BC))
        return tl_parts_refuse(r, ptr,
                               "needs integer rows (2..%d), columns (2..%d) and bone_columns",
                               TL_CLOTH_MAX_SIDE, TL_CLOTH_MAX_SIDE);
    json_t* closed = json_object_get(o, TL_SCHEMA_CLOTH_CLOSED);
    part->cloth_closed = json_is_true(closed);
    if ((R - 1) * BC != part->bone_count + 1 || BC != (part->cloth_closed ? C / 2 : (C + 1) / 2))
        return tl_parts_refuse(
            r, ptr, "a %u x %u lattice with %u bone columns has %u bones, bones lists %u", R, C, BC,
            (R - 1) * BC, part->bone_count + 1);
    uint32_t N = R * C;
    json_t* p = json_object_get(o, TL_SCHEMA_CLOTH_PARTICLES);
    json_t* j = json_object_get(o, TL_SCHEMA_CLOTH_PARTICLE_JOINTS);
    snprintf(at, sizeof at, "%s/%s", ptr, TL_SCHEMA_CLOTH_PARTICLES);
    if (!json_is_array(p) || json_array_size(p) != 3 * (size_t)N)
        return tl_parts_refuse(r, at, "must be an array of %u numbers (rows x columns x 3)", 3 * N);
    snprintf(at, sizeof at, "%s/%s", ptr, TL_SCHEMA_CLOTH_PARTICLE_JOINTS);
    if (!json_is_array(j) || json_array_size(j) != N)
        return tl_parts_refuse(r, at, "must be an array of %u node indices", N);
    float* particles = tl_scene_storage(r->scene, 3 * (size_t)N * sizeof *particles);
    uint32_t* joints = tl_scene_storage(r->scene, (size_t)N * sizeof *joints);
    if (!particles || !joints)
        return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    for (uint32_t i = 0; i < 3 * N; ++i) {
        json_t* v = json_array_get(p, i);
        snprintf(at, sizeof at, "%s/%s/%u", ptr, TL_SCHEMA_CLOTH_PARTICLES, i);
        if (!json_is_number(v) || !isfinite((float)json_number_value(v)))
            return tl_parts_refuse(r, at, "must be a finite number");
        particles[i] = (float)json_number_value(v);
    }
    for (uint32_t i = 0; i < N; ++i) {
        json_t* v = json_array_get(j, i);
        snprintf(at, sizeof at, "%s/%s/%u", ptr, TL_SCHEMA_CLOTH_PARTICLE_JOINTS, i);
        json_int_t node = json_is_integer(v) ? json_integer_value(v) : -1;
        if (node < 0 || node >= (json_int_t)r->scene->node_count ||
            r->joint_of_node[node] == TL_NONE)
            return tl_parts_refuse(r, at, "must be the node index of a joint of skin %u",
                                   part->skin);
        joints[i] = (uint32_t)r->joint_of_node[node];
    }
    part->cloth_rows = R, part->cloth_columns = C, part->cloth_bone_columns = BC;
    part->cloth_particles = particles, part->cloth_particle_joints = joints;
    snprintf(at, sizeof at, "%s/%s", ptr, TL_SCHEMA_CLOTH_SETTINGS);
    tl_result res =
        read_cloth_settings(r, at, json_object_get(o, TL_SCHEMA_CLOTH_SETTINGS), &part->cloth);
    static const char* const known[] = {TL_SCHEMA_CLOTH_ROWS,      TL_SCHEMA_CLOTH_COLUMNS,
                                        TL_SCHEMA_CLOTH_CLOSED,    TL_SCHEMA_CLOTH_BONE_COLUMNS,
                                        TL_SCHEMA_CLOTH_PARTICLES, TL_SCHEMA_CLOTH_PARTICLE_JOINTS,
                                        TL_SCHEMA_CLOTH_SETTINGS,  NULL};
    return res != TL_OK ? res : tl_parts_note_unknown(r, ptr, o, known, NULL);
}

/* One part record: nodes/n/extras/tailor. */
static tl_result read_part(reader* r, uint32_t n, json_t* tailor, tl_scene_part* part) {
    const tl_scene* scene = r->scene;
    char base[64], ptr[128], name_ptr[128];
    snprintf(base, sizeof base, "/nodes/%u/extras/%s", n, TL_SCHEMA_KEY);
    if (!json_is_object(tailor))
        return tl_parts_refuse(r, base, "must be an object, is %s", tl_parts_type_name(tailor));
    memset(part, 0, sizeof *part);
    part->hit_radius = -1;
    part->node = n;
    tl_result res = tl_parts_read_version(r, base, tailor, &part->version);
    if (res == TL_OK) res = read_kind(r, base, tailor, &part->kind);
    if (res != TL_OK) return res;
    if (part->kind == TL_PART_PENDULUM || part->kind == TL_PART_AIM)
        return tl_parts_read_joint_part(r, base, tailor, part);

    /* the nodes: attachment, bones (the last one the end joint), names beside them */
    json_t* bones = json_object_get(tailor, TL_SCHEMA_BONES);
    json_t* names = json_object_get(tailor, TL_SCHEMA_BONE_NAMES);
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_BONES);
    if (!json_is_array(bones))
        return tl_parts_refuse(r, ptr, "must be an array of node indices, is %s",
                               tl_parts_type_name(bones));
    size_t total = json_array_size(bones);
    if (total < 2 || total - 1 > TL_CHAIN_MAX_BONES)
        return tl_parts_refuse(r, ptr,
                               "must list 2..%d nodes (the bones, then the end joint), lists %zu",
                               TL_CHAIN_MAX_BONES + 1, total);
    snprintf(name_ptr, sizeof name_ptr, "%s/%s", base, TL_SCHEMA_BONE_NAMES);
    if (names && !(json_is_array(names) && json_array_size(names) == total))
        return tl_parts_refuse(r, name_ptr, "must be an array of %zu node names, one per bone",
                               total);
    uint32_t nodes[TL_CHAIN_MAX_BONES + 1], attach;
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_ATTACHMENT);
    snprintf(name_ptr, sizeof name_ptr, "%s/%s", base, TL_SCHEMA_ATTACHMENT_NAME);
    res = tl_parts_resolve(r, json_object_get(tailor, TL_SCHEMA_ATTACHMENT), ptr,
                           json_object_get(tailor, TL_SCHEMA_ATTACHMENT_NAME), name_ptr, &attach,
                           &part->resolved_by_name);
    for (uint32_t b = 0; b < total && res == TL_OK; ++b) {
        snprintf(ptr, sizeof ptr, "%s/%s/%u", base, TL_SCHEMA_BONES, b);
        snprintf(name_ptr, sizeof name_ptr, "%s/%s/%u", base, TL_SCHEMA_BONE_NAMES, b);
        res = tl_parts_resolve(r, json_array_get(bones, b), ptr,
                               names ? json_array_get(names, b) : NULL, name_ptr, &nodes[b],
                               &part->resolved_by_name);
        bool twice = res == TL_OK && nodes[b] == attach;
        for (uint32_t c = 0; c < b && res == TL_OK; ++c)
            twice = twice || nodes[c] == nodes[b];
        if (twice) res = tl_parts_refuse(r, ptr, "node %u is listed twice", nodes[b]);
    }
    if (res != TL_OK) return res;

    /* the skin: the first one with the attachment and the first bone among its joints */
    part->skin = scene->skin_count;
    for (uint32_t s = 0; s < scene->skin_count && part->skin == scene->skin_count; ++s)
        if (tl_parts_skin_has(&scene->skins[s], attach) &&
            tl_parts_skin_has(&scene->skins[s], nodes[0]))
            part->skin = s;
    if (part->skin == scene->skin_count)
        return tl_parts_refuse(
            r, base, "attachment (node %u) and bones (node %u, ...) are not joints of one skin",
            attach, nodes[0]);
    tl_parts_load_skin_map(r, part->skin);
    part->bone_count = (uint32_t)total - 1;
    uint32_t* joints = tl_scene_storage(r->scene, part->bone_count * sizeof *joints);
    float* radii = tl_scene_storage(r->scene, part->bone_count * sizeof *radii);
    if (!joints || !radii)
        return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    part->attach_joint = (uint32_t)r->joint_of_node[attach];
    for (uint32_t b = 0; b < total; ++b) {
        int32_t j = r->joint_of_node[nodes[b]];
        if (j == TL_NONE) { /* (the path built only here: the scene reads every bone) */
            snprintf(ptr, sizeof ptr, "%s/%s/%u", base, TL_SCHEMA_BONES, b);
            return tl_parts_refuse(r, ptr, "node %u is not a joint of skin %u", nodes[b],
                                   part->skin);
        }
        if (b < part->bone_count)
            joints[b] = (uint32_t)j;
        else
            part->end_joint = (uint32_t)j;
    }
    part->bone_joints = joints;
    part->radii = radii;

    json_t* rv = json_object_get(tailor, TL_SCHEMA_RADII);
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_RADII);
    if (rv && !(json_is_array(rv) && json_array_size(rv) == part->bone_count))
        return tl_parts_refuse(r, ptr, "must be an array of %u numbers, one per bone",
                               part->bone_count);
    for (uint32_t b = 0; rv && b < part->bone_count; ++b) {
        json_t* v = json_array_get(rv, b);
        double x = json_number_value(v);
        if (!json_is_number(v) || !(x >= 0 && isfinite((float)x))) {
            snprintf(ptr, sizeof ptr, "%s/%s/%u", base, TL_SCHEMA_RADII, b);
            if (!json_is_number(v))
                return tl_parts_refuse(r, ptr, "must be a number, is %s", tl_parts_type_name(v));
            return tl_parts_refuse(r, ptr, "must be >= 0, is %g", x);
        }
        radii[b] = (float)x;
    }
    if (part->kind != TL_PART_CLOTH &&
        (res = read_chain(r, base, tailor, part->version, &part->chain)) != TL_OK)
        return res;
    if (part->kind == TL_PART_CLOTH && (res = read_cloth(r, base, tailor, part)) != TL_OK)
        return res;
    if ((res = tl_parts_read_hit_radius(r, base, tailor, part)) != TL_OK) return res;
    if (part->resolved_by_name &&
        (res = tl_parts_note(
             r, base,
             "node indices disagree with the node names stored beside them (the nodes "
             "were renumbered); the names were used")) != TL_OK)
        return res;
    static const char* const known[] = {TL_SCHEMA_VERSION_KEY,
                                        TL_SCHEMA_KIND,
                                        TL_SCHEMA_ATTACHMENT,
                                        TL_SCHEMA_ATTACHMENT_NAME,
                                        TL_SCHEMA_BONES,
                                        TL_SCHEMA_BONE_NAMES,
                                        TL_SCHEMA_RADII,
                                        TL_SCHEMA_CHAIN,
                                        TL_SCHEMA_CLOTH,
                                        TL_SCHEMA_HIT_RADIUS,
                                        NULL};
    return tl_parts_note_unknown(r, base, tailor, known, NULL);
}

/* `count` finite numbers within TL_SCENE_MAX_MAGNITUDE at ptr. */
static tl_result read_numbers(reader* r, const char* ptr, json_t* v, uint32_t count, double* out) {
    if (!(json_is_array(v) && json_array_size(v) == count))
        return tl_parts_refuse(r, ptr, "must be an array of %u numbers, is %s", count,
                               json_is_array(v) ? "an array of another length"
                                                : tl_parts_type_name(v));
    for (uint32_t k = 0; k < count; ++k) {
        json_t* x = json_array_get(v, k);
        char at[200];
        snprintf(at, sizeof at, "%s/%u", ptr, k);
        if (!json_is_number(x))
            return tl_parts_refuse(r, at, "must be a number, is %s", tl_parts_type_name(x));
        out[k] = json_number_value(x);
        if (!(fabs(out[k]) <= TL_SCENE_MAX_MAGNITUDE))
            return tl_parts_refuse(r, at, "must be finite and within %g, is %g",
                                   (double)TL_SCENE_MAX_MAGNITUDE, out[k]);
    }
    return TL_OK;
}

/* A named value of a short fixed list (a role, a side, a shape): its index, or -1. */
static int string_index(json_t* v, const char* (*name)(int), int count) {
    const char* s = json_string_value(v);
    for (int k = 0; s && k < count; ++k)
        if (!strcmp(s, name(k))) return k;
    return -1;
}
static const char* role_name(int k) {
    return tl_role_string((tl_role)k);
}
static const char* side_name(int k) {
    return tl_side_string((tl_side)k);
}
static const char* shape_name(int k) {
    return tl_schema_collider_shapes[k];
}

/* The shape's own numbers at base (docs/schema.md), in the joint's frame, into c. */
static tl_result read_collider_shape(reader* r, const char* base, json_t* obj, tl_collider* c) {
    char ptr[200];
    double a[3], b[3], radius[1], axes[9];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_A);
    tl_result res = read_numbers(r, ptr, json_object_get(obj, TL_SCHEMA_COLLIDER_A), 3, a);
    for (int k = 0; k < 3; ++k)
        c->a[k] = c->b[k] = (float)a[k];
    if (res != TL_OK) return res;
    if (c->shape == TL_COLLIDER_CAPSULE || c->shape == TL_COLLIDER_PLANE) {
        snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_B);
        if ((res = read_numbers(r, ptr, json_object_get(obj, TL_SCHEMA_COLLIDER_B), 3, b)) != TL_OK)
            return res;
        double n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        if (c->shape == TL_COLLIDER_PLANE && !(n > 0))
            return tl_parts_refuse(r, ptr, "the plane's normal must not be zero");
        for (int k = 0; k < 3; ++k) /* a normal is stored unit: a tiny one would be 0 as floats */
            c->b[k] = (float)(c->shape == TL_COLLIDER_PLANE ? b[k] / n : b[k]);
    }
    if (c->shape == TL_COLLIDER_SPHERE || c->shape == TL_COLLIDER_CAPSULE) {
        snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_RADIUS);
        json_t* v = json_object_get(obj, TL_SCHEMA_COLLIDER_RADIUS);
        if (!json_is_number(v))
            return tl_parts_refuse(r, ptr, "must be a number, is %s", tl_parts_type_name(v));
        radius[0] = json_number_value(v);
        if (!((float)radius[0] > 0 && radius[0] <= TL_SCENE_MAX_MAGNITUDE))
            return tl_parts_refuse(r, ptr, "must be > 0 and within %g, is %g",
                                   (double)TL_SCENE_MAX_MAGNITUDE, radius[0]);
        c->radius = (float)radius[0];
    }
    if (c->shape == TL_COLLIDER_ELLIPSOID) {
        snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_AXES);
        json_t* v = json_object_get(obj, TL_SCHEMA_COLLIDER_AXES);
        if (!(json_is_array(v) && json_array_size(v) == 3))
            return tl_parts_refuse(r, ptr, "must be an array of 3 semi-axes, is %s",
                                   tl_parts_type_name(v));
        for (uint32_t k = 0; k < 3; ++k) {
            char at[220];
            snprintf(at, sizeof at, "%s/%u", ptr, k);
            if ((res = read_numbers(r, at, json_array_get(v, k), 3, axes + 3 * k)) != TL_OK)
                return res;
            double* e = axes + 3 * k;
            for (int i = 0; i < 3; ++i) /* judged as stored */
                e[i] = (float)e[i];
            if (!(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] > 0))
                return tl_parts_refuse(r, at, "a semi-axis must not be zero");
            for (uint32_t m = 0; m < k; ++m) {
                double* f = axes + 3 * m;
                double dot = e[0] * f[0] + e[1] * f[1] + e[2] * f[2];
                double ee = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
                double ff = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
                if (!(fabs(dot) <= 1e-3 * ee * ff))
                    return tl_parts_refuse(r, at,
                                           "must be orthogonal to semi-axis %u (cosine %.3g)", m,
                                           dot / (ee * ff));
            }
            for (int i = 0; i < 3; ++i)
                c->axes[k][i] = (float)e[i];
        }
    }
    return TL_OK;
}

/* What the solver needs of a collider in the rest-world frame: finite, a sphere's or capsule's
 * radius > 0, a plane's normal unit, an ellipsoid's semi-axes non-zero. */
static bool collider_usable(const tl_collider* c) {
    double n2 = 0;
    for (int i = 0; i < 3; ++i) {
        if (!isfinite(c->a[i]) || !isfinite(c->b[i])) return false;
        n2 += (double)c->b[i] * c->b[i];
    }
    for (int e = 0; e < 3; ++e) {
        double l2 = 0;
        for (int i = 0; i < 3; ++i) {
            if (!isfinite(c->axes[e][i])) return false;
            l2 += (double)c->axes[e][i] * c->axes[e][i];
        }
        if (c->shape == TL_COLLIDER_ELLIPSOID && !(l2 > 0)) return false;
    }
    if ((c->shape == TL_COLLIDER_SPHERE || c->shape == TL_COLLIDER_CAPSULE) &&
        !(c->radius > 0 && isfinite(c->radius)))
        return false;
    return c->shape != TL_COLLIDER_PLANE || fabs(n2 - 1) < 1e-4;
}

/* One stored collider, skins/s/extras/tailor/colliders/k, into the rest-world frame. */
static tl_result read_collider(reader* r, uint32_t s, const char* base, json_t* obj,
                               tl_body_collider* out, bool* by_name) {
    if (!json_is_object(obj))
        return tl_parts_refuse(r, base, "must be an object, is %s", tl_parts_type_name(obj));
    char ptr[200], name_ptr[200];
    const tl_scene_skin* sk = &r->scene->skins[s];
    memset(out, 0, sizeof *out);
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_SHAPE);
    json_t* v = json_object_get(obj, TL_SCHEMA_COLLIDER_SHAPE);
    int shape = string_index(v, shape_name, 4);
    if (shape < 0)
        return tl_parts_refuse(r, ptr,
                               "must be \"sphere\", \"capsule\", \"plane\" or \"ellipsoid\", is %s",
                               json_is_string(v) ? json_string_value(v) : tl_parts_type_name(v));
    tl_collider local = {0};
    local.shape = (tl_collider_shape)shape;
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_JOINT);
    snprintf(name_ptr, sizeof name_ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_JOINT_NAME);
    uint32_t node;
    tl_result res = tl_parts_resolve(r, json_object_get(obj, TL_SCHEMA_COLLIDER_JOINT), ptr,
                                     json_object_get(obj, TL_SCHEMA_COLLIDER_JOINT_NAME), name_ptr,
                                     &node, by_name);
    if (res != TL_OK) return res;
    if (r->joint_of_node[node] == TL_NONE)
        return tl_parts_refuse(r, ptr, "node %u is not a joint of skin %u", node, s);
    out->joint = (uint32_t)r->joint_of_node[node];
    out->role = sk->joints[out->joint].role;
    out->side = sk->joints[out->joint].side;
    const char* keys[2] = {TL_SCHEMA_COLLIDER_ROLE, TL_SCHEMA_COLLIDER_SIDE};
    for (int k = 0; k < 2; ++k) {
        if (!(v = json_object_get(obj, keys[k]))) continue;
        snprintf(ptr, sizeof ptr, "%s/%s", base, keys[k]);
        int i = string_index(v, k ? side_name : role_name, k ? 3 : TL_ROLE_COUNT);
        if (i < 0)
            return tl_parts_refuse(
                r, ptr, "must be a %s name (docs/schema.md), is %s", k ? "side" : "role",
                json_is_string(v) ? json_string_value(v) : tl_parts_type_name(v));
        if (k)
            out->side = (tl_side)i;
        else
            out->role = (tl_role)i;
    }
    if ((v = json_object_get(obj, TL_SCHEMA_COLLIDER_VERTICES))) {
        snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDER_VERTICES);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > (json_int_t)UINT32_MAX)
            return tl_parts_refuse(r, ptr, "must be a count >= 0, is %s", tl_parts_type_name(v));
        out->vertices = (uint32_t)json_integer_value(v);
    }
    if ((res = read_collider_shape(r, base, obj, &local)) != TL_OK) return res;
    double rest[16];
    tl_mat4d_from_float(rest, sk->joints[out->joint].rest_world);
    tl_collider_transform(&local, rest, &out->local);
    if (!collider_usable(&out->local))
        return tl_parts_refuse(
            r, base,
            "the rest transform of joint %u makes this collider degenerate (zero or "
            "non-finite size)",
            out->joint);
    static const char* const known[] = {TL_SCHEMA_COLLIDER_JOINT,
                                        TL_SCHEMA_COLLIDER_JOINT_NAME,
                                        TL_SCHEMA_COLLIDER_ROLE,
                                        TL_SCHEMA_COLLIDER_SIDE,
                                        TL_SCHEMA_COLLIDER_SHAPE,
                                        TL_SCHEMA_COLLIDER_A,
                                        TL_SCHEMA_COLLIDER_B,
                                        TL_SCHEMA_COLLIDER_RADIUS,
                                        TL_SCHEMA_COLLIDER_AXES,
                                        TL_SCHEMA_COLLIDER_VERTICES,
                                        NULL};
    return tl_parts_note_unknown(r, base, obj, known, NULL);
}

/* skins/s/extras/tailor/colliders: into the skin's colliders. */
static tl_result read_colliders(reader* r, uint32_t s, const char* base, json_t* list) {
    char ptr[160];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_COLLIDERS);
    if (!json_is_array(list))
        return tl_parts_refuse(r, ptr, "must be an array of colliders, is %s",
                               tl_parts_type_name(list));
    size_t count = json_array_size(list);
    if (count > TL_BODY_COLLIDERS_MAX)
        return tl_parts_refuse(r, ptr, "must list at most %d colliders, lists %zu",
                               TL_BODY_COLLIDERS_MAX, count);
    tl_body_collider* out = tl_scene_storage(r->scene, (count + 1) * sizeof *out);
    if (!out) return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    tl_parts_load_skin_map(r, s);
    bool by_name = false;
    for (size_t k = 0; k < count; ++k) {
        char at[180];
        snprintf(at, sizeof at, "%s/%zu", ptr, k);
        tl_result res = read_collider(r, s, at, json_array_get(list, k), &out[k], &by_name);
        if (res != TL_OK) return res;
    }
    if (by_name) {
        tl_result res =
            tl_parts_note(r, ptr,
                          "node indices disagree with the node names stored beside them (the "
                          "nodes were renumbered); the names were used");
        if (res != TL_OK) return res;
    }
    tl_scene_skin* sk = (tl_scene_skin*)&r->scene->skins[s]; /* (the scene's own storage) */
    sk->colliders = out;
    sk->collider_count = (uint32_t)count;
    return TL_OK;
}

/* skins/s/extras/tailor/frame: the character's up, forward and lateral in the skin's rest-world
 * frame (docs/schema.md): each unit, the three orthogonal, forward = lateral x up, all within
 * TL_FRAME_TOLERANCE (a frame typed by hand to four digits passes). Used as stored; the height
 * and floor are taken again along its up, as the roles' frame takes them. */
#define TL_FRAME_TOLERANCE 1e-3
static tl_result read_frame(reader* r, uint32_t s, const char* base, json_t* o) {
    char ptr[160], at[3][180];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_FRAME);
    if (!json_is_object(o))
        return tl_parts_refuse(r, ptr, "must be an object, is %s", tl_parts_type_name(o));
    static const char* const keys[3] = {TL_SCHEMA_FRAME_UP, TL_SCHEMA_FRAME_FORWARD,
                                        TL_SCHEMA_FRAME_LATERAL};
    double v[3][3];
    for (int k = 0; k < 3; ++k) {
        snprintf(at[k], sizeof at[k], "%s/%s", ptr, keys[k]);
        tl_result res = read_numbers(r, at[k], json_object_get(o, keys[k]), 3, v[k]);
        if (res != TL_OK) return res;
        double len = sqrt(v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2]);
        if (!(fabs(len - 1) <= TL_FRAME_TOLERANCE))
            return tl_parts_refuse(r, at[k], "must be a unit vector, has length %.6g", len);
    }
    static const int pairs[3][2] = {{1, 0}, {2, 0}, {2, 1}}; /* forward.up, lateral.up, .forward */
    for (int p = 0; p < 3; ++p) {
        const double *a = v[pairs[p][0]], *b = v[pairs[p][1]];
        double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        if (!(fabs(dot) <= TL_FRAME_TOLERANCE))
            return tl_parts_refuse(r, at[pairs[p][0]], "must be orthogonal to %s (cosine %.3g)",
                                   keys[pairs[p][1]], dot);
    }
    const double *u = v[0], *l = v[2];
    double cross[3] = {l[1] * u[2] - l[2] * u[1], l[2] * u[0] - l[0] * u[2],
                       l[0] * u[1] - l[1] * u[0]};
    double off = 0;
    for (int i = 0; i < 3; ++i)
        off = fmax(off, fabs(cross[i] - v[1][i]));
    if (!(off <= TL_FRAME_TOLERANCE))
        return tl_parts_refuse(r, at[1],
                               "must be lateral x up (a right-handed frame), is %.3g off it", off);
    tl_scene_skin* sk = (tl_scene_skin*)&r->scene->skins[s]; /* (the scene's own storage) */
    for (int i = 0; i < 3; ++i) {
        sk->up[i] = (float)v[0][i];
        sk->forward[i] = (float)v[1][i];
        sk->lateral[i] = (float)v[2][i];
    }
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t k = 0; k < sk->vertex_count; ++k) {
        const float* p = sk->rest_positions + 3 * (size_t)k;
        float h = p[0] * sk->up[0] + p[1] * sk->up[1] + p[2] * sk->up[2];
        lo = fminf(lo, h), hi = fmaxf(hi, h);
    }
    sk->height = sk->vertex_count ? hi - lo : 0;
    sk->floor = sk->vertex_count ? lo : 0;
    sk->frame_stored = true;
    static const char* const known[] = {TL_SCHEMA_FRAME_UP, TL_SCHEMA_FRAME_FORWARD,
                                        TL_SCHEMA_FRAME_LATERAL, NULL};
    return tl_parts_note_unknown(r, ptr, o, known, NULL);
}

/* skins/s/extras/tailor: a version, the skin's frame and its body colliders. */
static tl_result read_skin(reader* r, uint32_t s, json_t* tailor) {
    char base[64];
    snprintf(base, sizeof base, "/skins/%u/extras/%s", s, TL_SCHEMA_KEY);
    if (!json_is_object(tailor))
        return tl_parts_refuse(r, base, "must be an object, is %s", tl_parts_type_name(tailor));
    uint32_t version;
    tl_result res = tl_parts_read_version(r, base, tailor, &version);
    json_t* frame = json_object_get(tailor, TL_SCHEMA_FRAME);
    if (res == TL_OK && frame) res = read_frame(r, s, base, frame);
    json_t* colliders = json_object_get(tailor, TL_SCHEMA_COLLIDERS);
    if (res == TL_OK && colliders) res = read_colliders(r, s, base, colliders);
    static const char* const known[] = {TL_SCHEMA_VERSION_KEY, TL_SCHEMA_FRAME,
                                        TL_SCHEMA_COLLIDERS,   TL_SCHEMA_SHEET,
                                        TL_SCHEMA_HAIR_FIT,    NULL};
    return res != TL_OK ? res : tl_parts_note_unknown(r, base, tailor, known, NULL);
}

/* The child of `node` named exactly `name`, or TL_NONE. */
static int32_t child_named(const tl_gltf* doc, uint32_t node, const char* name) {
    for (uint32_t c = 0; c < doc->nodes[node].child_count; ++c) {
        uint32_t k = doc->nodes[node].children[c];
        if (doc->nodes[k].name && !strcmp(doc->nodes[k].name, name)) return (int32_t)k;
    }
    return TL_NONE;
}

/* A chain by tailor rig's names from the joint named PREFIX_1 (PREFIX "Tail" or "Tail.NNN"):
 * PREFIX_2 … as each one's child, then PREFIX_End, all joints of the skin, hanging from a
 * joint. Fills part (storage from the scene when `store`); false when it is not one. */
static bool named_chain(reader* r, uint32_t s, uint32_t j, tl_scene_part* part, bool store) {
    const tl_scene_skin* sk = &r->scene->skins[s];
    const char* name = sk->joints[j].name;
    size_t len = strlen(name);
    if (len < 6 || strncmp(name, "Tail", 4) || strcmp(name + len - 2, "_1") ||
        !(len == 6 || (name[4] == '.' && len > 7)) || sk->joints[j].parent == TL_NONE)
        return false;
    char prefix[64], want[80];
    if (len - 2 >= sizeof prefix) return false;
    memcpy(prefix, name, len - 2);
    prefix[len - 2] = 0;
    uint32_t nodes[TL_CHAIN_MAX_BONES + 1], count = 1;
    nodes[0] = sk->joints[j].node;
    int32_t end = TL_NONE;
    while (end == TL_NONE) {
        snprintf(want, sizeof want, "%s_End", prefix);
        end = child_named(r->doc, nodes[count - 1], want);
        if (end != TL_NONE) break;
        snprintf(want, sizeof want, "%s_%u", prefix, count + 1);
        int32_t next = child_named(r->doc, nodes[count - 1], want);
        if (next == TL_NONE || count == TL_CHAIN_MAX_BONES) return false;
        nodes[count++] = (uint32_t)next;
    }
    for (uint32_t b = 0; b < count; ++b)
        if (r->joint_of_node[nodes[b]] == TL_NONE) return false;
    if (r->joint_of_node[end] == TL_NONE) return false;
    if (!store) return true;
    memset(part, 0, sizeof *part);
    part->hit_radius = -1;
    uint32_t* joints = tl_scene_storage(r->scene, count * sizeof *joints);
    float* radii = tl_scene_storage(r->scene, count * sizeof *radii);
    if (!joints || !radii) return false;
    for (uint32_t b = 0; b < count; ++b)
        joints[b] = (uint32_t)r->joint_of_node[nodes[b]], radii[b] = 0;
    part->kind = TL_PART_TAIL;
    part->node = nodes[0];
    part->skin = s;
    part->attach_joint = (uint32_t)sk->joints[j].parent;
    part->bone_count = count;
    part->bone_joints = joints;
    part->end_joint = (uint32_t)r->joint_of_node[end];
    part->radii = radii;
    part->chain = tl_default_chain_settings();
    part->from_names = true;
    return true;
}

/* A file without any extras.tailor: the chains tailor's joint names describe, in skin and
 * joint order (the first skin holding a joint claims it), each with a note. */
static tl_result read_named(reader* r, tl_scene_part** out, uint32_t* count) {
    *count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        uint32_t k = 0;
        for (uint32_t s = 0; s < r->scene->skin_count; ++s) {
            tl_parts_load_skin_map(r, s);
            for (uint32_t j = 0; j < r->scene->skins[s].joint_count; ++j) {
                if (!named_chain(r, s, j, pass ? &(*out)[k] : NULL, pass == 1)) continue;
                if (pass == 1) {
                    char ptr[64], what[256];
                    snprintf(ptr, sizeof ptr, "/nodes/%u", (*out)[k].node);
                    snprintf(what, sizeof what,
                             "no extras.tailor (an exporter dropped it?): chain %s recognised by "
                             "its joint names, played with default settings",
                             r->scene->skins[s].joints[j].name);
                    tl_result res = tl_parts_note(r, ptr, what);
                    if (res != TL_OK) return res;
                }
                ++k;
            }
        }
        if (pass == 0) {
            if (k == 0) return TL_OK;
            *out = tl_scene_storage(r->scene, k * sizeof **out);
            if (!*out) return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
        }
        *count = k;
    }
    return TL_OK;
}

static json_t* tailor_of(json_t* list, uint32_t i) {
    json_t* extras = json_object_get(json_array_get(list, i), "extras");
    return json_is_object(extras) ? json_object_get(extras, TL_SCHEMA_KEY) : NULL;
}

tl_result tl_scene_parts_read(tl_scene* scene, const char* label, tl_error* err) {
    const tl_gltf* doc = scene->doc;
    reader r = {scene, doc, label, err, NULL, 0, 0, NULL};
    json_t* nodes = json_object_get(doc->json, "nodes");
    json_t* skins = json_object_get(doc->json, "skins");
    uint32_t count = 0;
    for (uint32_t n = 0; n < doc->node_count; ++n)
        count += tailor_of(nodes, n) != NULL;
    tl_scene_part* parts = tl_scene_storage(scene, count * sizeof *parts);
    r.joint_of_node = malloc((doc->node_count + 1) * sizeof *r.joint_of_node);
    tl_result res = parts && r.joint_of_node
                        ? TL_OK
                        : tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", label);
    for (uint32_t s = 0; s < doc->skin_count && res == TL_OK; ++s)
        if (tailor_of(skins, s)) res = read_skin(&r, s, tailor_of(skins, s));
    uint32_t k = 0;
    for (uint32_t n = 0; n < doc->node_count && res == TL_OK; ++n)
        if (tailor_of(nodes, n)) res = read_part(&r, n, tailor_of(nodes, n), &parts[k++]);
    if (res == TL_OK && count == 0) res = read_named(&r, &parts, &count);
    if (res == TL_OK) res = tl_parts_check_joint_parts(&r, parts, count);
    if (res == TL_OK) res = tl_parts_check_sheets(&r, parts, count);
    char** notes = res == TL_OK ? tl_scene_storage(scene, r.note_count * sizeof *notes) : NULL;
    if (res == TL_OK && !notes)
        res = tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", label);
    for (uint32_t i = 0; i < r.note_count && res == TL_OK; ++i) {
        size_t size = strlen(r.notes[i]) + 1;
        if (!(notes[i] = tl_scene_storage(scene, size)))
            res = tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", label);
        else
            memcpy(notes[i], r.notes[i], size);
    }
    if (res == TL_OK) {
        scene->parts = parts;
        scene->part_count = count;
        scene->notes = (const char* const*)notes;
        scene->note_count = r.note_count;
    }
    for (uint32_t i = 0; i < r.note_count; ++i)
        free(r.notes[i]);
    free(r.notes);
    free(r.joint_of_node);
    return res;
}
