/* Liveliness (measure.md): swing about the mean, distance from rest, tip path against rigid. */
#include <tailor/colliders.h>
#include <tailor/measure.h>

#include "base/mat4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tl_liveliness_acc {
    const tl_player* player;
    uint32_t chain;
    uint32_t links;
    uint32_t capacity, count;
    float* directions; /* count × links × 3, attachment frame */
    double rest_sq;    /* Σ angle² to rest */
    double tip_path, rigid_path;
    float last_tip[3], last_rigid[3];
    float penetration;  /* deepest particle inside a body collider, world units */
    float tip_bind[3];  /* the end in the attachment's frame at rest (the rigid tail's tip) */
    float tip_local[3]; /* with no end joint: the end in the last bone's frame, continuing
                           the incoming link as the solver does */
};

static void affine_inverse(const float m[16], float out[16]) {
    double md[16], inv[16];
    tl_mat4d_from_float(md, m);
    tl_mat4d_invert(inv, md);
    tl_mat4d_to_float(out, inv);
}

static float dist3(const float a[3], const float b[3]) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static double angle_between(const float a[3], const float b[3]) {
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1],
           cy = (double)a[2] * b[0] - (double)a[0] * b[2],
           cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot);
}

static void affine_inverse(const float m[16], float out[16]);

tl_liveliness_acc* tl_liveliness_create(const tl_player* player, uint32_t chain,
                                        uint32_t max_samples) {
    tl_liveliness_acc* acc = calloc(1, sizeof *acc);
    if (!acc) return NULL;
    const tl_play_chain* d = tl_player_chain_desc(player, chain);
    acc->player = player;
    acc->chain = chain;
    acc->links = d->bone_count;
    acc->capacity = max_samples;
    acc->directions = malloc(sizeof(float) * 3 * acc->links * (max_samples + 1));
    if (!acc->directions) {
        free(acc);
        return NULL;
    }
    const tl_scene_skin* sk = &tl_player_scene(player)->skins[d->skin];
    const float* last = sk->joints[d->bone_joints[d->bone_count - 1]].rest_world;
    const float* prev =
        sk->joints[d->bone_count > 1 ? d->bone_joints[d->bone_count - 2] : d->attach_joint]
            .rest_world;
    float end[3], inv[16];
    for (int r = 0; r < 3; ++r)
        end[r] = 2 * last[12 + r] - prev[12 + r];
    affine_inverse(last, inv);
    tl_mat4_transform_point(acc->tip_local, inv, end);
    return acc;
}

void tl_liveliness_destroy(tl_liveliness_acc* acc) {
    if (!acc) return;
    free(acc->directions);
    free(acc);
}

void tl_liveliness_clear(tl_liveliness_acc* acc) {
    acc->count = 0;
    acc->rest_sq = acc->tip_path = acc->rigid_path = 0;
    acc->penetration = 0;
}

/* The chain's points in world: bone heads, then its end (Tail_End, or the last bone's
 * continuation carried by the last bone). */
static void chain_points(const tl_liveliness_acc* acc, const tl_pose* pose, const tl_scene_skin* sk,
                         const tl_play_chain* d, float* points) {
    for (uint32_t b = 0; b < d->bone_count; ++b)
        memcpy(points + 3 * b, pose->world + 16 * (size_t)sk->joints[d->bone_joints[b]].node + 12,
               3 * sizeof(float));
    if (d->end_joint != TL_NONE)
        memcpy(points + 3 * d->bone_count,
               pose->world + 16 * (size_t)sk->joints[d->end_joint].node + 12, 3 * sizeof(float));
    else
        tl_mat4_transform_point(points + 3 * d->bone_count,
                                pose->world +
                                    16 * (size_t)sk->joints[d->bone_joints[d->bone_count - 1]].node,
                                acc->tip_local);
}

void tl_liveliness_add(tl_liveliness_acc* acc, const tl_pose* pose) {
    if (acc->count >= acc->capacity) return;
    const tl_play_chain* d = tl_player_chain_desc(acc->player, acc->chain);
    const tl_scene_skin* sk = &tl_player_scene(acc->player)->skins[d->skin];
    float points[3 * (TL_CHAIN_MAX_BONES + 1)];
    chain_points(acc, pose, sk, d, points);
    const float* attach = pose->world + 16 * (size_t)sk->joints[d->attach_joint].node;
    float inv[16];
    affine_inverse(attach, inv);
    const tl_chain* chain = tl_player_chain(acc->player, acc->chain);
    const float* rest = tl_chain_rest_directions(chain);
    const tl_collider* colliders;
    uint32_t collider_count = tl_player_colliders(acc->player, acc->chain, &colliders);
    const float* particles = tl_chain_particle_positions(chain);
    float origin[3]; /* the player's floating origin: the particles are relative to it */
    tl_player_origin(acc->player, origin);
    for (uint32_t i = 0; i < acc->links; ++i) {
        float at[3];
        for (int c = 0; c < 3; ++c)
            at[c] = particles[3 * i + c] + origin[c];
        for (uint32_t k = 0; k < collider_count; ++k)
            acc->penetration = fmaxf(acc->penetration, tl_collider_depth(&colliders[k], at));
    }
    float* dirs = acc->directions + (size_t)acc->count * acc->links * 3;
    for (uint32_t i = 0; i < acc->links; ++i) {
        float w[3] = {points[3 * i + 3] - points[3 * i], points[3 * i + 4] - points[3 * i + 1],
                      points[3 * i + 5] - points[3 * i + 2]};
        float l[3];
        for (int r = 0; r < 3; ++r)
            l[r] = inv[r] * w[0] + inv[4 + r] * w[1] + inv[8 + r] * w[2];
        float n = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        for (int r = 0; r < 3; ++r)
            dirs[3 * i + r] = n > 0 ? l[r] / n : 0;
        double a = angle_between(dirs + 3 * i, rest + 3 * i);
        acc->rest_sq += a * a;
    }
    /* the rigid tail's tip: the end point's bind position carried by the attachment */
    const float* tip = points + 3 * acc->links;
    if (acc->count == 0) {
        /* the end in the attachment's frame at rest: bind geometry, not the simulated one */
        const float* rest_attach = sk->joints[d->attach_joint].rest_world;
        float rinv[16], rest_end[3];
        affine_inverse(rest_attach, rinv);
        if (d->end_joint != TL_NONE)
            memcpy(rest_end, sk->joints[d->end_joint].rest_world + 12, sizeof rest_end);
        else
            tl_mat4_transform_point(
                rest_end, sk->joints[d->bone_joints[d->bone_count - 1]].rest_world, acc->tip_local);
        tl_mat4_transform_point(acc->tip_bind, rinv, rest_end);
    }
    float rigid[3];
    tl_mat4_transform_point(rigid, attach, acc->tip_bind);
    if (acc->count > 0) {
        acc->tip_path += dist3(tip, acc->last_tip);
        acc->rigid_path += dist3(rigid, acc->last_rigid);
    }
    memcpy(acc->last_tip, tip, sizeof acc->last_tip);
    memcpy(acc->last_rigid, rigid, sizeof acc->last_rigid);
    acc->count++;
}

tl_liveliness tl_liveliness_result(const tl_liveliness_acc* acc) {
    tl_liveliness out = {0};
    const tl_collider* colliders;
    out.colliders = tl_player_colliders(acc->player, acc->chain, &colliders);
    out.collider_penetration = acc->penetration;
    if (acc->count == 0) return out;
    double swing_sq = 0;
    for (uint32_t i = 0; i < acc->links; ++i) {
        float mean[3] = {0, 0, 0};
        for (uint32_t s = 0; s < acc->count; ++s)
            for (int r = 0; r < 3; ++r)
                mean[r] += acc->directions[((size_t)s * acc->links + i) * 3 + r];
        float n = sqrtf(mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]);
        for (int r = 0; r < 3; ++r)
            mean[r] = n > 0 ? mean[r] / n : 0;
        for (uint32_t s = 0; s < acc->count; ++s) {
            double a = angle_between(acc->directions + ((size_t)s * acc->links + i) * 3, mean);
            swing_sq += a * a;
        }
    }
    double n = (double)acc->count * acc->links;
    const double deg = 180.0 / 3.14159265358979323846;
    out.swing_deg = (float)(sqrt(swing_sq / n) * deg);
    out.rest_rms_deg = (float)(sqrt(acc->rest_sq / n) * deg);
    out.tip_path_ratio = acc->rigid_path > 0 ? (float)(acc->tip_path / acc->rigid_path) : 0;
    return out;
}
