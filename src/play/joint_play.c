/* Pendulums and aims in the player (joint_play.h). */
#include "play/joint_play.h"

#include "base/mat4.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct play_joints {
    const tl_scene* scene;
    uint32_t count;         /* scene->joint_part_count */
    tl_pendulum* pendulums; /* count; used by the pendulum parts */
    float (*animated)[4];   /* count: an aim joint's local rotation at the last step */
    float home[3];          /* the world point the pendulums are simulated relative to (rehome) */
    bool started;           /* animated holds a step's (apply writes nothing before) */
};

tl_result play_joints_create(const tl_scene* scene, play_joints** out, tl_error* err) {
    *out = NULL;
    if (scene->joint_part_count == 0) return TL_OK;
    play_joints* pj = calloc(1, sizeof *pj);
    if (pj) {
        pj->pendulums = calloc(scene->joint_part_count, sizeof *pj->pendulums);
        pj->animated = calloc(scene->joint_part_count, sizeof *pj->animated);
    }
    if (!pj || !pj->pendulums || !pj->animated) {
        play_joints_destroy(pj);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    pj->scene = scene;
    pj->count = scene->joint_part_count;
    for (uint32_t i = 0; i < pj->count; ++i) {
        const tl_scene_part* sp = &scene->parts[scene->joint_parts[i]];
        pj->animated[i][3] = 1;
        if (sp->kind != TL_PART_PENDULUM) continue;
        const tl_scene_skin* sk = &scene->skins[sp->skin];
        tl_pendulum_def def = sp->pendulum; /* stored in metres of a 1.8 m character */
        def.scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
        def.length *= def.scale;
        memcpy(def.up, sk->up, sizeof def.up);
        tl_result r = tl_pendulum_init(&pj->pendulums[i], &def, err);
        if (r != TL_OK) {
            play_joints_destroy(pj);
            return r;
        }
    }
    *out = pj;
    return TL_OK;
}

void play_joints_destroy(play_joints* pj) {
    if (!pj) return;
    free(pj->pendulums);
    free(pj->animated);
    free(pj);
}

bool play_joints_skin_only(const play_joints* pj, uint32_t skin) {
    for (uint32_t i = 0; pj && i < pj->count; ++i)
        if (pj->scene->parts[pj->scene->joint_parts[i]].skin != skin) return false;
    return true;
}

static uint32_t node_of(const play_joints* pj, uint32_t i) {
    const tl_scene_part* sp = &pj->scene->parts[pj->scene->joint_parts[i]];
    return pj->scene->skins[sp->skin].joints[sp->bone_joints[0]].node;
}

static bool is_pendulum(const play_joints* pj, uint32_t i) {
    return pj->scene->parts[pj->scene->joint_parts[i]].kind == TL_PART_PENDULUM;
}

static tl_chain_pose world_pose(const tl_pose* pose, uint32_t node) {
    return tl_chain_pose_from_matrix(pose->world + 16 * (size_t)node);
}

/* A pendulum's pivot: its joint's world pose relative to home. */
static tl_chain_pose pivot_pose(const play_joints* pj, const tl_pose* pose, uint32_t i) {
    tl_chain_pose f = world_pose(pose, node_of(pj, i));
    for (int c = 0; c < 3; ++c)
        f.position[c] -= pj->home[c];
    return f;
}

/* A floating origin, as the player's for its chains: the first pendulum's joint snapped to a
 * grid of a power of two of at least 8 character heights, set at the start and at every cut, so
 * the particle keeps a float's precision at the character's size wherever it is. The pendulums'
 * state is placed again after it (start: at rest; cut: carried). */
static void rehome(play_joints* pj, const tl_pose* pose) {
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (!is_pendulum(pj, i)) continue;
        const tl_scene_skin* sk =
            &pj->scene->skins[pj->scene->parts[pj->scene->joint_parts[i]].skin];
        const float* m = pose->world + 16 * (size_t)node_of(pj, i);
        float grid = exp2f(ceilf(log2f(8 * (sk->height > 0 ? sk->height : 1.0f)))), home[3];
        for (int c = 0; c < 3; ++c)
            home[c] = isfinite(m[12 + c]) ? grid * roundf(m[12 + c] / grid) : pj->home[c];
        memcpy(pj->home, home, sizeof home);
        return;
    }
}

static void keep_animated(play_joints* pj, const tl_pose* pose) {
    for (uint32_t i = 0; i < pj->count; ++i)
        memcpy(pj->animated[i], pose->locals[node_of(pj, i)].rotation, sizeof pj->animated[i]);
}

void play_joints_start(play_joints* pj, const tl_pose* pose) {
    if (!pj) return;
    rehome(pj, pose);
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (!is_pendulum(pj, i)) continue;
        tl_chain_pose pivot = pivot_pose(pj, pose, i);
        tl_pendulum_reset(&pj->pendulums[i], &pivot);
    }
    keep_animated(pj, pose);
    pj->started = true;
}

void play_joints_cut(play_joints* pj, const tl_pose* pose) {
    if (!pj) return;
    rehome(pj, pose);
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (!is_pendulum(pj, i)) continue;
        tl_pendulum* p = &pj->pendulums[i];
        tl_chain_pose pivot = pivot_pose(pj, pose, i);
        /* the particle about its pivot taken across the new origin as offsets (small numbers,
           no rounding at the jump's size), then turned with the pivot */
        for (int c = 0; c < 3 && p->started; ++c) {
            float x = p->position[c] - p->stepped.position[c];
            float y = p->previous[c] - p->stepped.position[c];
            p->stepped.position[c] = pivot.position[c];
            p->position[c] = pivot.position[c] + x, p->previous[c] = pivot.position[c] + y;
        }
        tl_pendulum_carry(p, &pivot);
    }
}

void play_joints_step(play_joints* pj, const tl_pose* pose, float dt) {
    if (!pj) return;
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (!is_pendulum(pj, i)) continue;
        tl_chain_pose pivot = pivot_pose(pj, pose, i);
        tl_pendulum_step(&pj->pendulums[i], &pivot, dt);
    }
    keep_animated(pj, pose);
    pj->started = true;
}

/* The rotation of the node's parent in the pose's world (identity for a root). */
static void parent_rotation(const play_joints* pj, const tl_pose* pose, uint32_t node,
                            float out[4]) {
    int32_t parent = pj->scene->doc->nodes[node].parent;
    out[0] = out[1] = out[2] = 0, out[3] = 1;
    if (parent != TL_NONE)
        memcpy(out, world_pose(pose, (uint32_t)parent).rotation, 4 * sizeof *out);
}

void play_joints_apply(const play_joints* pj, tl_pose* pose) {
    if (!pj || !pj->started) return;
    bool pendulums = false;
    float parent[4], inverse[4], world[4];
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (!is_pendulum(pj, i) || !pj->pendulums[i].started) continue;
        uint32_t node = node_of(pj, i);
        /* the look-at is a world rotation: the local one under the parent as posed */
        tl_pendulum_rotation(&pj->pendulums[i], world);
        parent_rotation(pj, pose, node, parent);
        tl_quat_conjugate(inverse, parent);
        tl_quat_mul(pose->locals[node].rotation, inverse, world);
        pendulums = true;
    }
    if (pendulums) tl_pose_update_live(pose, pj->scene);
    for (uint32_t i = 0; i < pj->count; ++i) {
        if (is_pendulum(pj, i)) continue;
        const tl_scene_part* sp = &pj->scene->parts[pj->scene->joint_parts[i]];
        const tl_scene_skin* sk = &pj->scene->skins[sp->skin];
        uint32_t node = node_of(pj, i), target = sk->joints[sp->aim_target].node;
        float given[4];
        parent_rotation(pj, pose, node, parent);
        tl_quat_mul(given, parent, pj->animated[i]);
        tl_aim_solve(&sp->aim, given, pose->world + 16 * (size_t)node + 12,
                     pose->world + 16 * (size_t)target + 12, world);
        tl_quat_conjugate(inverse, parent);
        tl_quat_mul(pose->locals[node].rotation, inverse, world);
        /* a later aim's target or joint may hang below this one */
        tl_pose_update_live(pose, pj->scene);
    }
}

uint32_t play_joints_count(const play_joints* pj) {
    return pj ? pj->count : 0;
}

uint32_t play_joints_part(const play_joints* pj, uint32_t i) {
    assert(pj && i < pj->count);
    return pj->scene->joint_parts[i];
}

const tl_pendulum* play_joints_pendulum(const play_joints* pj, uint32_t i) {
    assert(pj && i < pj->count);
    return is_pendulum(pj, i) ? &pj->pendulums[i] : NULL;
}
