/* Poses: stored and rest transforms, clip sampling, world matrices, skinning. */
#include "internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_pose* tl_pose_create(const tl_scene* scene) {
    assert(scene);
    tl_pose* pose = calloc(1, sizeof *pose);
    size_t n = scene->node_count ? scene->node_count : 1;
    if (pose) pose->locals = malloc(sizeof(tl_trs) * n);
    if (pose && pose->locals) pose->world = malloc(sizeof(float) * 16 * n);
    if (!pose || !pose->world) {
        tl_pose_destroy(pose);
        return NULL;
    }
    pose->node_count = scene->node_count;
    tl_pose_set_stored(pose, scene);
    return pose;
}

void tl_pose_destroy(tl_pose* pose) {
    if (!pose) return;
    free(pose->locals);
    free(pose->world);
    free(pose);
}

/* World matrices of `count` nodes in `order` (parents first). */
static void update_world(tl_pose* pose, const tl_scene* scene, const uint32_t* order,
                         uint32_t count) {
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = order[k];
        int32_t parent = scene->doc->nodes[i].parent;
        float local[16];
        tl_trs_to_matrix(&pose->locals[i], local);
        if (parent == TL_NONE)
            memcpy(pose->world + 16 * (size_t)i, local, sizeof local);
        else
            tl_mat4_mul(pose->world + 16 * (size_t)i, pose->world + 16 * (size_t)parent, local);
    }
}

void tl_pose_update_world(tl_pose* pose, const tl_scene* scene) {
    assert(pose && scene && pose->node_count == scene->node_count);
    update_world(pose, scene, scene->node_order, scene->node_count);
}

void tl_pose_update_live(tl_pose* pose, const tl_scene* scene) {
    assert(pose && scene && pose->node_count == scene->node_count);
    if (pose->order)
        update_world(pose, scene, pose->order, pose->order_count);
    else
        update_world(pose, scene, scene->live_order, scene->live_count);
}

void tl_pose_keep_skin(tl_pose* pose, const tl_scene* scene, uint32_t skin) {
    assert(pose && scene && skin < scene->skin_count);
    pose->order = scene->skins[skin].live_order;
    pose->order_count = scene->skins[skin].live_count;
}

void tl_pose_set_stored(tl_pose* pose, const tl_scene* scene) {
    assert(pose && scene && pose->node_count == scene->node_count);
    memcpy(pose->locals, scene->stored, sizeof(tl_trs) * scene->node_count);
    tl_pose_update_world(pose, scene);
}

void tl_pose_set_rest(tl_pose* pose, const tl_scene* scene, uint32_t skin) {
    assert(pose && scene && skin < scene->skin_count);
    if (pose->order)
        for (uint32_t k = 0; k < pose->order_count; ++k)
            pose->locals[pose->order[k]] = scene->stored[pose->order[k]];
    else
        memcpy(pose->locals, scene->stored, sizeof(tl_trs) * scene->node_count);
    const tl_scene_skin* s = &scene->skins[skin];
    for (uint32_t k = 0; k < s->joint_count; ++k)
        pose->locals[s->joints[k].node] = s->joints[k].rest;
    tl_pose_update_live(pose, scene); /* only joints differ from the stored transforms */
}

/* Shorter-arc spherical interpolation, normalised (as glTF viewers do). */
static void slerp(float out[4], const float a[4], const float b[4], float t) {
    double d =
        (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sign = d < 0 ? -1 : 1, wa = 1 - t, wb = t;
    d = fabs(d);
    if (d < 1 - 1e-6) {
        double angle = acos(d < 1 ? d : 1), s = sin(angle);
        wa = sin((1 - t) * angle) / s;
        wb = sin(t * angle) / s;
    }
    double q[4], n = 0;
    for (int i = 0; i < 4; ++i) {
        q[i] = wa * a[i] + sign * wb * b[i];
        n += q[i] * q[i];
    }
    n = sqrt(n);
    for (int i = 0; i < 4; ++i)
        out[i] = (float)(n > 0 ? q[i] / n : (i == 3));
}

/* The channel's value at time t into out (components floats). */
static void channel_sample(const tl_scene_channel* ch, float t, float* out) {
    uint32_t n = ch->key_count, c = ch->components;
    bool cubic = ch->interpolation == TL_GLTF_CUBICSPLINE;
    uint32_t stride = cubic ? 3 * c : c, offset = cubic ? c : 0; /* the value inside a key */
    const float* v = ch->values;
    if (n == 1 || t <= ch->times[0] || t >= ch->times[n - 1]) {
        uint32_t k = (n == 1 || t <= ch->times[0]) ? 0 : n - 1;
        memcpy(out, v + k * stride + offset, sizeof(float) * c);
        return;
    }
    /* the last key at or before t: times[lo] <= t < times[lo + 1] */
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ch->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    const float* a = v + lo * stride + offset;
    const float* b = v + (lo + 1) * stride + offset;
    float dt = ch->times[lo + 1] - ch->times[lo];
    float s = dt > 0 ? (t - ch->times[lo]) / dt : 0;
    switch (ch->interpolation) {
    case TL_GLTF_STEP:
        memcpy(out, a, sizeof(float) * c);
        return;
    case TL_GLTF_LINEAR:
        if (c == 4)
            slerp(out, a, b, s);
        else
            for (uint32_t i = 0; i < c; ++i)
                out[i] = a[i] + (b[i] - a[i]) * s;
        return;
    case TL_GLTF_CUBICSPLINE: {
        /* Hermite: out-tangent of key lo, in-tangent of key lo+1, both scaled by dt. */
        const float* out_tangent = a + c;
        const float* in_tangent = b - c;
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
              h11 = s3 - s2;
        double norm = 0;
        for (uint32_t i = 0; i < c; ++i) {
            out[i] = h00 * a[i] + h10 * dt * out_tangent[i] + h01 * b[i] + h11 * dt * in_tangent[i];
            norm += (double)out[i] * out[i];
        }
        if (c == 4 && norm > 0)
            for (uint32_t i = 0; i < 4; ++i)
                out[i] = (float)(out[i] / sqrt(norm));
        return;
    }
    }
}

void tl_pose_apply_clip(tl_pose* pose, const tl_scene* scene, uint32_t clip, float time) {
    assert(pose && scene && clip < scene->clip_count && pose->node_count == scene->node_count);
    const tl_scene_clip* cl = &scene->clips[clip];
    for (uint32_t c = 0; c < cl->channel_count; ++c) {
        const tl_scene_channel* ch = &cl->channels[c];
        tl_trs* local = &pose->locals[ch->node];
        float* target = ch->path == TL_GLTF_PATH_TRANSLATION ? local->translation
                        : ch->path == TL_GLTF_PATH_ROTATION  ? local->rotation
                                                             : local->scale;
        channel_sample(ch, time, target);
    }
}

void tl_pose_sample(tl_pose* pose, const tl_scene* scene, uint32_t clip, float time) {
    assert(pose && scene && pose->node_count == scene->node_count);
    const uint32_t* order = pose->order ? pose->order : scene->live_order;
    uint32_t count = pose->order ? pose->order_count : scene->live_count;
    for (uint32_t k = 0; k < count; ++k)
        pose->locals[order[k]] = scene->stored[order[k]];
    tl_pose_apply_clip(pose, scene, clip, time);
    update_world(pose, scene, order, count);
}

void tl_pose_joint_matrices(const tl_pose* pose, const tl_scene* scene, uint32_t skin, float* out) {
    assert(pose && scene && skin < scene->skin_count && out);
    const tl_scene_skin* s = &scene->skins[skin];
    for (uint32_t k = 0; k < s->joint_count; ++k)
        tl_mat4_mul(out + 16 * (size_t)k, pose->world + 16 * (size_t)s->joints[k].node,
                    s->joints[k].inverse_bind);
}

void tl_scene_skin_positions(const tl_scene* scene, uint32_t skin, const float* joint_matrices,
                             float* out) {
    assert(scene && skin < scene->skin_count && joint_matrices && out);
    const tl_scene_skin* s = &scene->skins[skin];
    uint32_t per = s->influence_count;
    for (uint32_t v = 0; v < s->vertex_count; ++v) {
        const float* p = s->bind_positions + 3 * (size_t)v;
        const uint32_t* js = s->influence_joints + (size_t)v * per;
        const float* ws = s->influence_weights + (size_t)v * per;
        float acc[3] = {0, 0, 0};
        for (uint32_t k = 0; k < per; ++k) {
            if (ws[k] == 0) continue;
            const float* m = joint_matrices + 16 * (size_t)js[k];
            for (int i = 0; i < 3; ++i)
                acc[i] += ws[k] * (m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i]);
        }
        memcpy(out + 3 * (size_t)v, acc, sizeof acc);
    }
}

uint32_t tl_scene_skin_dominant_joint(const tl_scene_skin* skin, uint32_t vertex) {
    assert(vertex < skin->vertex_count);
    const float* w = skin->influence_weights + (size_t)vertex * skin->influence_count;
    uint32_t best = 0;
    for (uint32_t k = 1; k < skin->influence_count; ++k)
        if (w[k] > w[best]) best = k;
    return skin->influence_joints[(size_t)vertex * skin->influence_count + best];
}
