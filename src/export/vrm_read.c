/* The spring bones a file carries (VRMC_springBone 1.0, VRM 0.x secondaryAnimation), read as a
 * runtime reads them, and the VRM rule played on a 1.0 spring (tl_vrm_play). */
#include <tailor/gltf_json.h>
#include <tailor/vrm.h>

#include "export/vrm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t* extension(const tl_gltf* doc, const char* name) {
    return json_object_get(json_object_get(tl_gltf_json(doc), "extensions"), name);
}

static double number_or(const json_t* o, const char* key, double fallback) {
    const json_t* v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

/* A node index at o[key] (pointer names it in errors). */
static tl_result node_at(const tl_gltf* doc, const json_t* v, const char* pointer, uint32_t* out,
                         tl_error* err) {
    json_int_t n = json_integer_value(v);
    if (!json_is_integer(v) || n < 0 || (uint64_t)n >= doc->node_count)
        return tl_error_set(err, TL_ERROR_INVALID, "%s: %s: not a node index (the file has %u)",
                            doc->path && *doc->path ? doc->path : "<memory>", pointer,
                            doc->node_count);
    *out = (uint32_t)n;
    return TL_OK;
}

static tl_result read_v1(const tl_gltf* doc, tl_vrm_spring* out, uint32_t capacity, uint32_t* count,
                         tl_error* err) {
    json_t* springs = json_object_get(extension(doc, "VRMC_springBone"), "springs");
    size_t i;
    json_t* s;
    json_array_foreach(springs, i, s) {
        json_t* joints = json_object_get(s, "joints");
        char pointer[128];
        tl_vrm_spring v = {1, "", 0, 0, 0, 1, 0, 0.4f, 0, 0, false};
        for (size_t k = 0; k < json_array_size(joints); ++k) {
            snprintf(pointer, sizeof pointer,
                     "/extensions/VRMC_springBone/springs/%zu/joints/%zu/node", i, k);
            tl_result r = node_at(doc, json_object_get(json_array_get(joints, k), "node"), pointer,
                                  k ? &v.last_node : &v.first_node, err);
            if (r != TL_OK) return r;
        }
        if (json_array_size(joints) == 1) v.last_node = v.first_node;
        json_t* first = json_array_get(joints, 0);
        v.name = json_is_string(json_object_get(s, "name"))
                     ? json_string_value(json_object_get(s, "name"))
                     : "";
        v.joint_count = (uint32_t)json_array_size(joints);
        v.stiffness = (float)number_or(first, "stiffness", 1);
        v.gravity_power = (float)number_or(first, "gravityPower", 0);
        v.drag_force = (float)number_or(first, "dragForce", 0.4);
        v.hit_radius = (float)number_or(first, "hitRadius", 0);
        v.collider_groups = (uint32_t)json_array_size(json_object_get(s, "colliderGroups"));
        v.tailor = json_object_get(json_object_get(s, "extras"), "tailor") != NULL;
        if (*count < capacity) out[*count] = v;
        ++*count;
    }
    return TL_OK;
}

static tl_result read_v0(const tl_gltf* doc, tl_vrm_spring* out, uint32_t capacity, uint32_t* count,
                         tl_error* err) {
    json_t* groups =
        json_object_get(json_object_get(extension(doc, "VRM"), "secondaryAnimation"), "boneGroups");
    size_t i;
    json_t* g;
    json_array_foreach(groups, i, g) {
        json_t* bones = json_object_get(g, "bones");
        tl_vrm_spring v = {0, "", 0, 0, 0, 1, 0, 0.4f, 0, 0, false};
        for (size_t k = 0; k < json_array_size(bones); ++k) {
            char pointer[128];
            snprintf(pointer, sizeof pointer,
                     "/extensions/VRM/secondaryAnimation/boneGroups/%zu/bones/%zu", i, k);
            tl_result r = node_at(doc, json_array_get(bones, k), pointer,
                                  k ? &v.last_node : &v.first_node, err);
            if (r != TL_OK) return r;
        }
        if (json_array_size(bones) == 1) v.last_node = v.first_node;
        v.name = json_is_string(json_object_get(g, "comment"))
                     ? json_string_value(json_object_get(g, "comment"))
                     : "";
        v.joint_count = (uint32_t)json_array_size(bones);
        v.stiffness = (float)number_or(g, "stiffiness", 1);
        v.gravity_power = (float)number_or(g, "gravityPower", 0);
        v.drag_force = (float)number_or(g, "dragForce", 0.4);
        v.hit_radius = (float)number_or(g, "hitRadius", 0);
        v.collider_groups = (uint32_t)json_array_size(json_object_get(g, "colliderGroups"));
        if (*count < capacity) out[*count] = v;
        ++*count;
    }
    return TL_OK;
}

tl_result tl_vrm_springs(const tl_gltf* doc, tl_vrm_spring* out, uint32_t capacity, uint32_t* count,
                         uint32_t* colliders, tl_error* err) {
    *count = 0;
    tl_result r = read_v1(doc, out, capacity, count, err);
    if (r == TL_OK) r = read_v0(doc, out, capacity, count, err);
    if (colliders) {
        *colliders = (uint32_t)json_array_size(
            json_object_get(extension(doc, "VRMC_springBone"), "colliders"));
        size_t i;
        json_t* g;
        json_array_foreach(
            json_object_get(json_object_get(extension(doc, "VRM"), "secondaryAnimation"),
                            "colliderGroups"),
            i, g)* colliders += (uint32_t)json_array_size(json_object_get(g, "colliders"));
    }
    return r;
}

static void read_vec3(const json_t* a, double out[3], const double fallback[3]) {
    for (int k = 0; k < 3; ++k) {
        const json_t* v = json_array_get(a, (size_t)k);
        out[k] = json_is_number(v) ? json_number_value(v) : fallback[k];
    }
}

/* The colliders of the spring's groups (sphere and capsule shapes). */
static tl_result read_colliders(const tl_gltf* doc, const json_t* sb, const json_t* spring,
                                vrm_spring_def* def, tl_error* err) {
    static const double zero[3] = {0, 0, 0};
    json_t* colliders = json_object_get(sb, "colliders");
    json_t* groups = json_object_get(sb, "colliderGroups");
    size_t i;
    json_t* gi;
    json_array_foreach(json_object_get(spring, "colliderGroups"), i, gi) {
        if (!json_is_integer(gi)) continue; /* as the runtime: a group that is not there */
        json_t* members =
            json_object_get(json_array_get(groups, (size_t)json_integer_value(gi)), "colliders");
        size_t k;
        json_t* ci;
        json_array_foreach(members, k, ci) {
            if (!json_is_integer(ci)) continue;
            json_int_t index = json_integer_value(ci);
            json_t* c = json_array_get(colliders, (size_t)index);
            json_t* shape = json_object_get(c, "shape");
            json_t* sphere = json_object_get(shape, "sphere");
            json_t* capsule = json_object_get(shape, "capsule");
            if (!c || (!sphere && !capsule) || def->collider_count == VRM_MAX_COLLIDERS) continue;
            char pointer[96];
            snprintf(pointer, sizeof pointer, "/extensions/VRMC_springBone/colliders/%lld/node",
                     (long long)index);
            vrm_collider* v = &def->colliders[def->collider_count];
            tl_result r = node_at(doc, json_object_get(c, "node"), pointer, &v->node, err);
            if (r != TL_OK) return r;
            json_t* s = sphere ? sphere : capsule;
            v->capsule = sphere == NULL;
            read_vec3(json_object_get(s, "offset"), v->offset, zero);
            read_vec3(json_object_get(s, "tail"), v->tail, zero);
            v->radius = number_or(s, "radius", 0);
            ++def->collider_count;
        }
    }
    return TL_OK;
}

tl_result vrm_spring_read(const tl_gltf* doc, const tl_scene* scene, uint32_t spring,
                          vrm_spring_def* def, tl_error* err) {
    json_t* sb = extension(doc, "VRMC_springBone");
    json_t* s = json_array_get(json_object_get(sb, "springs"), spring);
    if (!s) return tl_error_set(err, TL_ERROR_NOT_FOUND, "no VRMC_springBone spring %u", spring);
    json_t* joints = json_object_get(s, "joints");
    size_t n = json_array_size(joints);
    if (n < 2 || n > VRM_MAX_JOINTS)
        return tl_error_set(err, TL_ERROR_UNSUPPORTED,
                            "/extensions/VRMC_springBone/springs/%u/joints: %zu joints (2..%d "
                            "played)",
                            spring, n, VRM_MAX_JOINTS);
    memset(def, 0, sizeof *def);
    def->count = (uint32_t)n;
    static const double down[3] = {0, -1, 0};
    for (size_t j = 0; j < n; ++j) {
        json_t* o = json_array_get(joints, j);
        char pointer[96];
        snprintf(pointer, sizeof pointer, "/extensions/VRMC_springBone/springs/%u/joints/%zu/node",
                 spring, j);
        tl_result r = node_at(doc, json_object_get(o, "node"), pointer, &def->nodes[j], err);
        if (r != TL_OK) return r;
        if (j && doc->nodes[def->nodes[j]].parent != (int32_t)def->nodes[j - 1])
            return tl_error_set(err, TL_ERROR_UNSUPPORTED,
                                "%s: joint %zu is not a child of joint %zu (not played)", pointer,
                                j, j - 1);
        def->locals[j] = scene->stored[def->nodes[j]];
        vrm_settings* v = &def->settings[j];
        v->stiffness = number_or(o, "stiffness", 1);
        v->gravity_power = number_or(o, "gravityPower", 0);
        v->drag = number_or(o, "dragForce", 0.4);
        v->hit_radius = number_or(o, "hitRadius", 0);
        read_vec3(json_object_get(o, "gravityDir"), v->gravity_dir, down);
    }
    def->parent_node = doc->nodes[def->nodes[0]].parent;
    return read_colliders(doc, sb, s, def, err);
}

static void to_double(double* out, const float* m) {
    for (int k = 0; k < 16; ++k)
        out[k] = m[k];
}

tl_result tl_vrm_play(const tl_gltf* doc, const tl_scene* scene, uint32_t spring, uint32_t clip,
                      float fps, uint32_t frames, float* positions, uint32_t* joints,
                      tl_error* err) {
    vrm_spring_def* def = malloc(sizeof *def);
    vrm_state* s = malloc(sizeof *s);
    double* colliders = malloc(16 * VRM_MAX_COLLIDERS * sizeof *colliders);
    tl_pose* pose = tl_pose_create(scene);
    tl_result r = TL_OK;
    if (!def || !s || !colliders || !pose || clip >= scene->clip_count) {
        r = clip >= scene->clip_count ? tl_error_set(err, TL_ERROR_NOT_FOUND, "no clip %u", clip)
                                      : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        goto done;
    }
    if ((r = vrm_spring_read(doc, scene, spring, def, err)) != TL_OK) goto done;
    *joints = def->count;
    double duration = scene->clips[clip].duration;
    for (uint32_t f = 0; f < frames; ++f) {
        double t = duration > 0 ? fmod(f / (double)fps, duration) : 0;
        tl_pose_sample(pose, scene, clip, (float)t);
        double parent[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        if (def->parent_node != TL_NONE)
            to_double(parent, pose->world + 16 * (size_t)def->parent_node);
        for (uint32_t c = 0; c < def->collider_count; ++c)
            to_double(colliders + 16 * c, pose->world + 16 * (size_t)def->colliders[c].node);
        if (f == 0)
            vrm_reset(def, s, parent);
        else
            vrm_update(def, s, parent, colliders, 1.0 / fps);
        for (uint32_t j = 0; j < def->count; ++j)
            for (int k = 0; k < 3; ++k)
                positions[3 * ((size_t)f * def->count + j) + k] = (float)s->world[j][12 + k];
    }
done:
    tl_pose_destroy(pose);
    free(colliders);
    free(s);
    free(def);
    return r;
}
