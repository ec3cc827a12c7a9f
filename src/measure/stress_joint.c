/* The stress runs of the parts that turn an existing joint (stress.h
 * tl_measure_stress_joint_parts): a pendulum's swing in the clip and its settle after the hip
 * shake, an aim's error. */
#include <tailor/seating.h>
#include <tailor/stress.h>

#include "base/mat4.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG 57.29577951308232

float tl_measure_aim_error_deg(const tl_scene* scene, const tl_scene_part* part,
                               const tl_pose* pose) {
    assert(part->kind == TL_PART_AIM);
    const tl_scene_skin* sk = &scene->skins[part->skin];
    const float* m = pose->world + 16 * (size_t)sk->joints[part->bone_joints[0]].node;
    const float* t = pose->world + 16 * (size_t)sk->joints[part->aim_target].node + 12;
    double axis[3] = {0, 0, 0}, to[3], dot = 0, la = 0, lt = 0;
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c)
            axis[r] += (double)m[4 * c + r] * part->aim.aim_axis[c];
        to[r] = (double)t[r] - m[12 + r];
        dot += axis[r] * to[r], la += axis[r] * axis[r], lt += to[r] * to[r];
    }
    if (!(la > 0 && lt > 0)) return 0;
    double c = dot / sqrt(la * lt);
    return (float)(acos(c > 1 ? 1 : c < -1 ? -1 : c) * RAD_TO_DEG);
}

/* The particle relative to its pivot, in the pivot's frame at its last internal step (world
 * units). */
static void particle_local(const tl_pendulum* p, float out[3]) {
    float d[3], inverse[4];
    for (int k = 0; k < 3; ++k)
        d[k] = p->position[k] - p->stepped.position[k];
    tl_quat_conjugate(inverse, p->stepped.rotation);
    float n = sqrtf(tl_quat_dot(inverse, inverse));
    for (int k = 0; k < 4; ++k)
        inverse[k] /= n > 0 ? n : 1;
    tl_quat_rotate(out, inverse, d);
}

/* After a frame: each part's figures (swing, aim error, non-finite), and with `speed` the
 * pendulums' particle speeds relative to their pivots into speed[i] (previous in last). */
static void take_frame(const tl_scene* scene, const tl_player* player, const tl_pose* pose,
                       float dt, float (*last)[3], float* speed, tl_joint_part_report* out) {
    for (uint32_t i = 0; i < tl_player_joint_part_count(player); ++i) {
        const tl_scene_part* sp = &scene->parts[tl_player_joint_part(player, i)];
        const tl_pendulum* pen = tl_player_pendulum(player, i);
        tl_joint_part_report* r = &out[i];
        if (!pen) {
            float e = tl_measure_aim_error_deg(scene, sp, pose);
            if (!isfinite(e)) r->nonfinite++;
            r->aim_error_max_deg = fmaxf(r->aim_error_max_deg, e);
            continue;
        }
        float swing = tl_pendulum_swing_deg(pen), x[3];
        if (!isfinite(swing)) r->nonfinite++;
        if (!speed) r->swing_max_deg = fmaxf(r->swing_max_deg, swing);
        particle_local(pen, x);
        if (speed) speed[i] = dt > 0 ? tl_vec3_distance(x, last[i]) / dt : 0;
        memcpy(last[i], x, sizeof last[i]);
    }
}

/* The clip looped from rest for max(2 s, two cycles) at def->event_fps. */
static void run_clip(const tl_scene* scene, tl_player* player, tl_pose* pose, int32_t clip,
                     const tl_stress_def* def, float (*last)[3], tl_joint_part_report* out) {
    double duration = scene->clips[clip].duration, seconds = fmax(2.0, 2.0 * duration);
    uint32_t frames = (uint32_t)lround(seconds * def->event_fps);
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->event_fps;
        tl_player_advance(player, pose, (uint32_t)clip,
                          duration > 0 ? (float)fmod(t, duration) : 0.0f);
        take_frame(scene, player, pose, 0, last, NULL, out);
    }
}

/* The stress test's hip shake of every skin with a joint part, then still: when each pendulum's
 * particle stays slower than def->settle_speed (x scale) relative to its pivot. */
static void run_shake(const tl_scene* scene, tl_player* player, tl_pose* pose,
                      const tl_stress_def* def, float (*last)[3], float* speed,
                      tl_joint_part_report* out) {
    uint32_t n = tl_player_joint_part_count(player);
    const uint32_t frames =
        (uint32_t)lround((double)(def->shake_seconds + def->hold_seconds) * def->shake_fps);
    const double omega = 2.0 * 3.14159265358979323846 * def->shake_frequency;
    for (uint32_t i = 0; i < n; ++i)
        out[i].settle_seconds = 0;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->shake_fps;
        double s = t < def->shake_seconds ? sin(omega * t) : 0.0;
        for (uint32_t skin = 0; skin < scene->skin_count; ++skin) {
            bool used = false;
            for (uint32_t i = 0; i < n; ++i)
                used = used || scene->parts[tl_player_joint_part(player, i)].skin == skin;
            if (!used) continue;
            const tl_scene_skin* sk = &scene->skins[skin];
            float scale = sk->height > 0 ? sk->height / 1.8f : 1.0f, move[16], up[3], pivot[3];
            uint32_t centre = sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top;
            memcpy(up, sk->up, sizeof up);
            memcpy(pivot, sk->joints[centre].rest_world + 12, sizeof pivot);
            tl_mat4_rotation_about(move, pivot, (float)(def->shake_yaw_deg * s / RAD_TO_DEG), up);
            for (int c = 0; c < 3; ++c)
                move[12 + c] += (float)(def->shake_amplitude * scale * s) * sk->lateral[c];
            tl_pose_set_rest(pose, scene, skin);
            tl_pose_move_skin(pose, scene, skin, move);
        }
        float dt = f ? 1.0f / def->shake_fps : 0.0f;
        tl_player_step_pose(player, pose, dt);
        take_frame(scene, player, pose, dt, last, speed, out);
        for (uint32_t i = 0; i < n && t > def->shake_seconds; ++i) {
            const tl_scene_skin* sk = &scene->skins[scene->parts[out[i].part].skin];
            float scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
            if (tl_player_pendulum(player, i) && speed[i] >= def->settle_speed * scale)
                out[i].settle_seconds = (float)(t - def->shake_seconds);
        }
    }
    /* still at the end, else never within the hold */
    for (uint32_t i = 0; i < n; ++i) {
        const tl_scene_skin* sk = &scene->skins[scene->parts[out[i].part].skin];
        float scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
        if (!tl_player_pendulum(player, i))
            out[i].settle_seconds = -1;
        else if (speed[i] >= def->settle_speed * scale)
            out[i].settle_seconds = -1;
    }
}

tl_result tl_measure_stress_joint_parts(const tl_scene* scene, int32_t clip,
                                        const tl_stress_def* def, tl_joint_part_report* out,
                                        uint32_t capacity, uint32_t* count, tl_error* err) {
    assert(scene && def && out && count);
    uint32_t n = scene->joint_part_count;
    *count = n;
    if (n == 0) return TL_OK;
    if (n > capacity)
        return tl_error_set(err, TL_ERROR_INVALID, "%u pendulum/aim parts, room for %u", n,
                            capacity);
    memset(out, 0, n * sizeof *out);
    for (uint32_t i = 0; i < n; ++i)
        out[i].part = scene->joint_parts[i], out[i].kind = scene->parts[out[i].part].kind;
    tl_player_def pdef = tl_default_player_def();
    pdef.loop = true;
    pdef.colliders = false; /* (no chain) */
    tl_player *a = NULL, *b = NULL;
    tl_pose* pose = tl_pose_create(scene);
    float(*last)[3] = calloc(n, sizeof *last);
    float* speed = calloc(n, sizeof *speed);
    tl_result r =
        pose && last && speed ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = tl_player_create(scene, NULL, 0, &pdef, &a, err);
    if (r == TL_OK) r = tl_player_create(scene, NULL, 0, &pdef, &b, err);
    if (r == TL_OK && clip != TL_NONE) run_clip(scene, a, pose, clip, def, last, out);
    if (r == TL_OK) run_shake(scene, b, pose, def, last, speed, out);
    tl_player_destroy(a);
    tl_player_destroy(b);
    tl_pose_destroy(pose);
    free(last);
    free(speed);
    return r;
}
