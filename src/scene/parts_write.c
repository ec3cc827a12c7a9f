/* The writer of the parts that turn an existing joint (kinds pendulum and aim, docs/schema.md),
 * and their defaults from the joint's rest geometry. */
#include "internal.h"
#include "scene/schema.h"
#include <tailor/gltf_json.h>

#include <assert.h>
#include <math.h>
#include <string.h>

/* The joint's bone direction in the rest-world frame: to its first child joint, else from its
 * parent, else none (false); its length in world units. */
static bool bone_world(const tl_scene_skin* sk, uint32_t joint, float dir[3], float* length) {
    const float* at = sk->joints[joint].rest_world + 12;
    const float* other = NULL;
    float sign = 1;
    for (uint32_t c = 0; c < sk->joint_count && !other; ++c)
        if (sk->joints[c].parent == (int32_t)joint) other = sk->joints[c].rest_world + 12;
    if (!other && sk->joints[joint].parent != TL_NONE)
        other = sk->joints[sk->joints[joint].parent].rest_world + 12, sign = -1;
    if (!other) return false;
    for (int k = 0; k < 3; ++k)
        dir[k] = sign * (other[k] - at[k]);
    *length = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    return *length > 0 && isfinite(*length);
}

tl_pendulum_def tl_part_default_pendulum(const tl_scene* scene, uint32_t skin, uint32_t joint,
                                         float length_m) {
    assert(skin < scene->skin_count && joint < scene->skins[skin].joint_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    float scale = sk->height > 0 ? sk->height / 1.8f : 1.0f, dir[3], length;
    tl_pendulum_def d = tl_default_pendulum_def();
    if (bone_world(sk, joint, dir, &length)) {
        d.length = length / scale;
    } else {
        for (int k = 0; k < 3; ++k)
            dir[k] = -sk->up[k];
    }
    tl_mat4_local_direction(sk->joints[joint].rest_world, dir, d.rest_direction);
    if (length_m > 0) d.length = length_m;
    return d;
}

tl_aim_def tl_part_default_aim(const tl_scene* scene, uint32_t skin, uint32_t joint) {
    assert(skin < scene->skin_count && joint < scene->skins[skin].joint_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_aim_def d = tl_default_aim_def();
    float dir[3], length;
    if (bone_world(sk, joint, dir, &length))
        tl_mat4_local_direction(sk->joints[joint].rest_world, dir, d.aim_axis);
    else
        d.aim_axis[0] = 0, d.aim_axis[1] = 1, d.aim_axis[2] = 0;
    return d;
}

static json_t* vec3_json(const float v[3]) {
    return json_pack("[fff]", (double)v[0], (double)v[1], (double)v[2]);
}

static json_t* settings_json(const tl_schema_setting* table, int count, const void* fields,
                             const char* direction_key, const float direction[3]) {
    json_t* o = json_object();
    for (int k = 0; k < count; ++k)
        json_object_set_new(o, table[k].key,
                            json_real(*(const float*)((const char*)fields + table[k].offset)));
    json_object_set_new(o, direction_key, vec3_json(direction));
    return o;
}

/* nodes[node].extras.tailor set to `tailor` (taken), the node's other extras kept. */
static tl_result put(tl_gltf* doc, uint32_t node, json_t* tailor, tl_error* err) {
    json_t* n = json_array_get(json_object_get(tl_gltf_json(doc), "nodes"), node);
    json_t* extras = json_object_get(n, "extras");
    if (!n || node >= doc->node_count || (extras && !json_is_object(extras))) {
        json_decref(tailor);
        return tl_error_set(err, TL_ERROR_INVALID, "node %u does not exist or its extras are %s",
                            node, n ? "not an object" : "missing");
    }
    if (json_object_get(extras, TL_SCHEMA_KEY)) {
        json_decref(tailor);
        return tl_error_set(err, TL_ERROR_INVALID, "node %u (%s) already holds a part", node,
                            doc->nodes[node].name ? doc->nodes[node].name : "unnamed");
    }
    if (!extras) json_object_set_new(n, "extras", extras = json_object());
    json_object_set_new(extras, TL_SCHEMA_KEY, tailor);
    return TL_OK;
}

static json_t* record(tl_part_kind kind) {
    json_t* tailor = json_object();
    json_object_set_new(tailor, TL_SCHEMA_VERSION_KEY, json_integer(TL_SCHEMA_VERSION));
    json_object_set_new(tailor, TL_SCHEMA_KIND, json_string(tl_part_kind_string(kind)));
    return tailor;
}

tl_result tl_part_write_pendulum(tl_gltf* doc, uint32_t node, const tl_pendulum_def* def,
                                 tl_error* err) {
    assert(doc && def);
    json_t* tailor = record(TL_PART_PENDULUM);
    json_object_set_new(tailor, TL_SCHEMA_PENDULUM,
                        settings_json(tl_schema_pendulum_settings, TL_SCHEMA_PENDULUM_SETTING_COUNT,
                                      def, TL_SCHEMA_PENDULUM_REST_DIRECTION, def->rest_direction));
    return put(doc, node, tailor, err);
}

json_t* tl_schema_skin_record(tl_gltf* doc, uint32_t skin) {
    json_t* s = json_array_get(json_object_get(tl_gltf_json(doc), "skins"), skin);
    json_t* extras = json_object_get(s, "extras");
    if (!s || (extras && !json_is_object(extras))) return NULL;
    if (!extras) json_object_set_new(s, "extras", extras = json_object());
    json_t* tailor = json_object_get(extras, TL_SCHEMA_KEY);
    if (!json_is_object(tailor)) json_object_set_new(extras, TL_SCHEMA_KEY, tailor = json_object());
    json_object_set_new(tailor, TL_SCHEMA_VERSION_KEY, json_integer(TL_SCHEMA_VERSION));
    return tailor;
}

tl_result tl_skin_write_frame(tl_gltf* doc, const tl_scene* scene, uint32_t skin, tl_error* err) {
    assert(doc && scene && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    json_t* tailor = tl_schema_skin_record(doc, sk->skin);
    if (!tailor)
        return tl_error_set(err, TL_ERROR_INVALID,
                            "skin %u does not exist or its extras are not an object", sk->skin);
    json_t* frame = json_object();
    const float* axes[3] = {sk->up, sk->forward, sk->lateral};
    const char* keys[3] = {TL_SCHEMA_FRAME_UP, TL_SCHEMA_FRAME_FORWARD, TL_SCHEMA_FRAME_LATERAL};
    for (int k = 0; k < 3; ++k) { /* (json_real of the floats: read back bit for bit) */
        json_t* v = json_array();
        for (int i = 0; i < 3; ++i)
            json_array_append_new(v, json_real((double)axes[k][i]));
        json_object_set_new(frame, keys[k], v);
    }
    json_object_set_new(tailor, TL_SCHEMA_FRAME, frame);
    return TL_OK;
}

tl_result tl_part_write_aim(tl_gltf* doc, uint32_t node, uint32_t target, const tl_aim_def* def,
                            tl_error* err) {
    assert(doc && def);
    json_t* tailor = record(TL_PART_AIM);
    json_object_set_new(tailor, TL_SCHEMA_AIM_TARGET, json_integer((json_int_t)target));
    if (target < doc->node_count && doc->nodes[target].name)
        json_object_set_new(tailor, TL_SCHEMA_AIM_TARGET_NAME,
                            json_string(doc->nodes[target].name));
    json_object_set_new(tailor, TL_SCHEMA_AIM,
                        settings_json(tl_schema_aim_settings, TL_SCHEMA_AIM_SETTING_COUNT, def,
                                      TL_SCHEMA_AIM_AXIS, def->aim_axis));
    return put(doc, node, tailor, err);
}
