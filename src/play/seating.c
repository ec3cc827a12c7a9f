/* Ground seating that ignores the chains' skin (spring-chain.md §8). */
#include <tailor/seating.h>

#include "base/mat4.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tl_seating {
    const tl_scene* scene;
    uint32_t skin;
    uint32_t point_count;
    uint32_t* points;      /* support vertices, indices into the skin's union */
    float floor;           /* f_body */
    float* joint_matrices; /* joint_count x 16 scratch */
    uint32_t* chain_bones; /* joints the tolerance pose puts at rest */
    uint32_t chain_bone_count;
    tl_pose* source; /* scratch: the clip's own pose */
};

tl_seating_def tl_default_seating_def(void) {
    tl_seating_def def;
    def.points_per_joint = 8;
    def.count_chains = false;
    return def;
}

void tl_pose_move_skin(tl_pose* pose, const tl_scene* scene, uint32_t skin,
                       const float transform[16]) {
    assert(skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
        if (sk->joints[j].parent != TL_NONE) continue;
        uint32_t node = sk->joints[j].node;
        int32_t parent = scene->doc->nodes[node].parent;
        /* in double, rounded once to the local: 100 m out the float product rounded the moved
         * world at its distance's precision and again in the local, a frame-to-frame jolt of
         * 1.8e-5 units in husky's cut, more than the tail's cut_error bar (docs/stress.md
         * "Session 20") */
        double parent_world[16], parent_inverse[16], move[16], local[16], world[16], moved[16];
        for (int e = 0; e < 16; ++e)
            parent_world[e] = e % 5 == 0;
        if (parent != TL_NONE) tl_mat4d_from_float(parent_world, pose->world + 16 * (size_t)parent);
        tl_mat4d_invert(parent_inverse, parent_world);
        tl_mat4d_from_float(move, transform);
        float f[16];
        tl_trs_to_matrix(&pose->locals[node], f);
        tl_mat4d_from_float(local, f);
        tl_mat4d_mul(world, parent_world, local);
        tl_mat4d_mul(moved, move, world);
        tl_mat4d_mul(local, parent_inverse, moved);
        tl_mat4d_to_float(f, local);
        pose->locals[node] = tl_trs_from_matrix(f);
    }
    tl_pose_update_live(pose, scene); /* only joints moved */
}

static uint32_t dominant_joint(const tl_scene_skin* sk, uint32_t v) {
    const uint32_t* joints = sk->influence_joints + (size_t)v * sk->influence_count;
    const float* weights = sk->influence_weights + (size_t)v * sk->influence_count;
    uint32_t best = 0;
    for (uint32_t k = 1; k < sk->influence_count; ++k)
        if (weights[k] > weights[best]) best = k;
    return joints[best];
}

static float height(const tl_scene_skin* sk, const float p[3]) {
    return sk->up[0] * p[0] + sk->up[1] * p[1] + sk->up[2] * p[2];
}

/* Flags every joint of the skin's chains (bones and end joints) and lists the bones. */
static tl_result mark_chains(tl_seating* s, const tl_play_chain* chains, uint32_t chain_count,
                             bool* in_chain, tl_error* err) {
    const tl_scene_skin* sk = &s->scene->skins[s->skin];
    for (uint32_t c = 0; c < chain_count; ++c) {
        const tl_play_chain* ch = &chains[c];
        if (ch->skin != s->skin) continue;
        bool ok = ch->bone_count <= TL_CHAIN_MAX_BONES &&
                  (ch->end_joint == TL_NONE ||
                   (ch->end_joint >= 0 && (uint32_t)ch->end_joint < sk->joint_count));
        for (uint32_t b = 0; ok && b < ch->bone_count; ++b)
            ok = ch->bone_joints[b] < sk->joint_count;
        if (!ok)
            return tl_error_set(err, TL_ERROR_INVALID, "chain %u: a joint index is out of range",
                                c);
        for (uint32_t b = 0; b < ch->bone_count; ++b) {
            in_chain[ch->bone_joints[b]] = true;
            s->chain_bones[s->chain_bone_count++] = ch->bone_joints[b];
        }
        if (ch->end_joint != TL_NONE) in_chain[ch->end_joint] = true;
    }
    return TL_OK;
}

/* Per dominant joint, its k lowest rest vertices (insertion into a short sorted list in
 * `lowest`, joint_count x k; `found` counts each list), then the union and f_body. */
static tl_result pick_points(tl_seating* s, const tl_seating_def* def, const bool* in_chain,
                             uint32_t* lowest, uint32_t* found, tl_error* err) {
    const tl_scene_skin* sk = &s->scene->skins[s->skin];
    const uint32_t k = def->points_per_joint;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        uint32_t j = dominant_joint(sk, v);
        if (j >= sk->joint_count || (in_chain[j] && !def->count_chains)) continue;
        uint32_t* list = lowest + (size_t)j * k;
        float h = height(sk, sk->rest_positions + 3 * (size_t)v);
        uint32_t at = found[j] < k ? found[j]++ : k;
        while (at > 0 && height(sk, sk->rest_positions + 3 * (size_t)list[at - 1]) > h) {
            if (at < k) list[at] = list[at - 1];
            --at;
        }
        if (at < k) list[at] = v;
    }
    uint32_t total = 0;
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        total += found[j];
    if (total == 0)
        return tl_error_set(err, TL_ERROR_INVALID, "skin %u: no body vertex to stand on", s->skin);
    s->points = malloc(sizeof *s->points * total);
    if (!s->points) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    s->floor = FLT_MAX;
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        for (uint32_t i = 0; i < found[j]; ++i) {
            uint32_t v = lowest[(size_t)j * k + i];
            s->points[s->point_count++] = v;
            s->floor = fminf(s->floor, height(sk, sk->rest_positions + 3 * (size_t)v));
        }
    return TL_OK;
}

tl_result tl_seating_create(const tl_scene* scene, uint32_t skin, const tl_play_chain* chains,
                            uint32_t chain_count, const tl_seating_def* def, tl_seating** out,
                            tl_error* err) {
    assert(skin < scene->skin_count && def->points_per_joint >= 1);
    const tl_scene_skin* sk = &scene->skins[skin];
    *out = NULL;
    tl_seating* s = calloc(1, sizeof *s);
    if (!s) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    s->scene = scene;
    s->skin = skin;
    s->joint_matrices = malloc(sizeof(float) * 16 * ((size_t)sk->joint_count + 1));
    s->chain_bones =
        malloc(sizeof *s->chain_bones * ((size_t)chain_count * TL_CHAIN_MAX_BONES + 1));
    s->source = tl_pose_create(scene);
    if (s->source) tl_pose_keep_skin(s->source, scene, skin); /* only this skin is skinned */
    bool* in_chain = calloc(sk->joint_count + 1, sizeof *in_chain);
    uint32_t* lowest =
        malloc(sizeof *lowest * ((size_t)sk->joint_count * def->points_per_joint + 1));
    uint32_t* found = calloc(sk->joint_count + 1, sizeof *found);
    tl_result r = s->joint_matrices && s->chain_bones && s->source && in_chain && lowest && found
                      ? mark_chains(s, chains, chain_count, in_chain, err)
                      : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = pick_points(s, def, in_chain, lowest, found, err);
    free(in_chain);
    free(lowest);
    free(found);
    if (r != TL_OK) {
        tl_seating_destroy(s);
        return r;
    }
    *out = s;
    return TL_OK;
}

void tl_seating_destroy(tl_seating* s) {
    if (!s) return;
    free(s->points);
    free(s->joint_matrices);
    free(s->chain_bones);
    tl_pose_destroy(s->source);
    free(s);
}

uint32_t tl_seating_point_count(const tl_seating* s) {
    return s->point_count;
}
float tl_seating_floor(const tl_seating* s) {
    return s->floor;
}

float tl_seating_clearance(tl_seating* s, const tl_pose* pose) {
    const tl_scene_skin* sk = &s->scene->skins[s->skin];
    tl_pose_joint_matrices(pose, s->scene, s->skin, s->joint_matrices);
    float lowest = FLT_MAX;
    for (uint32_t i = 0; i < s->point_count; ++i) {
        uint32_t v = s->points[i];
        const float* b = sk->bind_positions + 3 * (size_t)v;
        float p[3] = {0, 0, 0};
        for (uint32_t k = 0; k < sk->influence_count; ++k) {
            float w = sk->influence_weights[(size_t)v * sk->influence_count + k];
            if (w == 0) continue;
            const float* m = s->joint_matrices +
                             16 * (size_t)sk->influence_joints[(size_t)v * sk->influence_count + k];
            for (int r = 0; r < 3; ++r)
                p[r] += w * (m[r] * b[0] + m[4 + r] * b[1] + m[8 + r] * b[2] + m[12 + r]);
        }
        lowest = fminf(lowest, height(sk, p));
    }
    return lowest - s->floor;
}

float tl_seating_tolerance(tl_seating* s, uint32_t clip, float time) {
    const tl_scene_skin* sk = &s->scene->skins[s->skin];
    tl_pose_sample(s->source, s->scene, clip, time);
    for (uint32_t i = 0; i < s->chain_bone_count; ++i) {
        const tl_scene_joint* j = &sk->joints[s->chain_bones[i]];
        s->source->locals[j->node] = j->rest;
    }
    tl_pose_update_live(s->source, s->scene); /* only joints changed */
    return fminf(0.0f, tl_seating_clearance(s, s->source));
}

float tl_seating_lift(tl_seating* s, const tl_pose* pose, float tolerance) {
    return fmaxf(0.0f, tolerance - tl_seating_clearance(s, pose));
}

float tl_seating_apply(tl_seating* s, tl_pose* pose, float tolerance) {
    float lift = tl_seating_lift(s, pose, tolerance);
    if (lift > 0) {
        const float* up = s->scene->skins[s->skin].up;
        float move[16] = {
            1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, lift * up[0], lift * up[1], lift * up[2], 1};
        tl_pose_move_skin(pose, s->scene, s->skin, move);
    }
    return lift;
}

tl_result tl_seating_compare(const tl_scene* scene, const tl_play_chain* chains,
                             uint32_t chain_count, uint32_t clip, const float* times,
                             uint32_t count, const tl_seating_def* def, float* dy,
                             float* lift_counted, float* lift_excluded, tl_error* err) {
    assert(clip < scene->clip_count && chain_count >= 1);
    const uint32_t skin = chains[0].skin;
    const float duration = scene->clips[clip].duration;
    tl_seating_def excluded_def = *def, counted_def = *def;
    excluded_def.count_chains = false;
    counted_def.count_chains = true;
    tl_player_def player_def = tl_default_player_def();
    player_def.loop = true;
    tl_seating *excluded = NULL, *counted = NULL;
    tl_player* player = NULL;
    tl_pose* pose = tl_pose_create(scene);
    if (pose) tl_pose_keep_skin(pose, scene, skin); /* the chains' skin is all it reads */
    tl_result r = pose ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK)
        r = tl_seating_create(scene, skin, chains, chain_count, &excluded_def, &excluded, err);
    if (r == TL_OK)
        r = tl_seating_create(scene, skin, chains, chain_count, &counted_def, &counted, err);
    if (r == TL_OK) r = tl_player_create(scene, chains, chain_count, &player_def, &player, err);
    if (r == TL_OK) {
        tl_player_start(player, clip, 0);
        double now = 0;
        for (uint32_t i = 0; i < count; ++i) {
            assert(times[i] >= now);
            /* whole frames up to the sample time, so a long gap wraps the loop once per frame */
            while (now + player_def.frame_step < times[i]) {
                now += player_def.frame_step;
                tl_player_advance(player, pose, clip,
                                  duration > 0 ? fmodf((float)now, duration) : 0);
            }
            now = times[i];
            float t = duration > 0 ? fmodf((float)now, duration) : 0;
            tl_player_advance(player, pose, clip, t);
            float lc = tl_seating_lift(counted, pose, tl_seating_tolerance(counted, clip, t));
            float le = tl_seating_lift(excluded, pose, tl_seating_tolerance(excluded, clip, t));
            dy[i] = lc - le;
            if (lift_counted) lift_counted[i] = lc;
            if (lift_excluded) lift_excluded[i] = le;
        }
    }
    tl_player_destroy(player);
    tl_seating_destroy(counted);
    tl_seating_destroy(excluded);
    tl_pose_destroy(pose);
    return r;
}
