/* libFuzzer target for the scene build and the reader of extras.tailor (docs/schema.md): load
 * from memory, build the scene (which decodes every part), check what the reader promises
 * about each part and each skin's stored body colliders, turn the parts into chains and build the
 * player on them, rebuild the scene in place, destroy. Seeded with rigged files
 * (fuzz/make_seeds.py) besides the reader's. */
#include <tailor/colliders.h>
#include <tailor/play.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* A broken promise names itself, so a crash report from CI says which one without a rerun. */
#define BROKEN(what)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "fuzz_scene_parts: broken promise: %s (line %d)\n", what, __LINE__);       \
        abort();                                                                                   \
    } while (0)

/* What tl_scene_part promises: joints of its skin, 1..64 bones, radii >= 0, settings in the
 * solver's ranges. A part breaking it would reach the player unchecked. */
static void check_part(const tl_scene* scene, const tl_scene_part* p) {
    if (p->skin >= scene->skin_count || p->node >= scene->node_count)
        BROKEN("part skin or node in range");
    const tl_scene_skin* sk = &scene->skins[p->skin];
    if (p->attach_joint >= sk->joint_count || p->end_joint >= sk->joint_count)
        BROKEN("part attach/end joints of its skin");
    if (p->bone_count < 1 || p->bone_count > TL_CHAIN_MAX_BONES)
        BROKEN("part bone count 1..TL_CHAIN_MAX_BONES");
    for (uint32_t b = 0; b < p->bone_count; ++b)
        if (p->bone_joints[b] >= sk->joint_count || !(p->radii[b] >= 0) || !isfinite(p->radii[b]))
            BROKEN("part bone joints and radii");
    const tl_chain_settings* s = &p->chain;
    if (p->kind != TL_PART_CLOTH &&
        !(s->root_frequency > 0 && s->tip_frequency > 0 && s->damping_ratio >= 0 &&
          s->gravity >= 0 && isfinite(s->gravity) && isfinite(s->carry_deg) && s->rest_curve >= 0 &&
          s->rest_curve <= 1 && s->coupling_rate >= 0 && s->bend_limit_deg > 0 &&
          s->ground_clearance >= 0 && s->slip_damping >= 0))
        BROKEN("part chain settings in the solver's ranges");
}

/* What a pendulum or aim part promises (docs/schema.md): one joint of its skin, a pendulum def
 * tl_pendulum_init accepts (after the player's scale), an aim in tl_aim_solve's ranges with a
 * target joint of its skin outside the aimed joint's subtree; joint_parts lists exactly them. */
static void check_joint_parts(const tl_scene* scene) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        n += scene->parts[i].kind == TL_PART_PENDULUM || scene->parts[i].kind == TL_PART_AIM;
    if (n != scene->joint_part_count || (n && !scene->joint_parts)) BROKEN("joint_parts count");
    for (uint32_t i = 0; i < n; ++i) {
        if (scene->joint_parts[i] >= scene->part_count) BROKEN("joint_parts index in range");
        const tl_scene_part* p = &scene->parts[scene->joint_parts[i]];
        const tl_scene_skin* sk = &scene->skins[p->skin];
        if (p->bone_count != 1) BROKEN("a joint part turns one joint");
        if (p->kind == TL_PART_PENDULUM) {
            tl_pendulum pen;
            tl_error err;
            tl_pendulum_def d = p->pendulum;
            d.scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
            d.length *= d.scale;
            if (tl_pendulum_init(&pen, &d, &err) != TL_OK) BROKEN("pendulum def accepted");
        } else if (p->kind == TL_PART_AIM) {
            const tl_aim_def* a = &p->aim;
            if (!(a->weight >= 0 && a->weight <= 1 && a->max_angle_deg >= 0 &&
                  a->max_angle_deg <= 180 && p->aim_target < sk->joint_count))
                BROKEN("aim settings and target in range");
            for (int32_t j = (int32_t)p->aim_target; j != TL_NONE; j = sk->joints[j].parent)
                if ((uint32_t)j == p->bone_joints[0]) BROKEN("aim target outside its joint");
        } else {
            BROKEN("joint_parts lists pendulums and aims only");
        }
    }
}

/* What tl_scene_skin.colliders promise: at most TL_BODY_COLLIDERS_MAX, on joints of the skin,
 * finite, a sphere's or capsule's radius > 0, a plane's normal unit. */
static void check_colliders(const tl_scene_skin* sk) {
    if (sk->collider_count > TL_BODY_COLLIDERS_MAX || (sk->collider_count && !sk->colliders))
        BROKEN("collider count and array");
    for (uint32_t k = 0; k < sk->collider_count; ++k) {
        const tl_body_collider* b = &sk->colliders[k];
        const tl_collider* c = &b->local;
        if (b->joint >= sk->joint_count || b->role >= TL_ROLE_COUNT || b->side > TL_SIDE_NONE ||
            c->shape > TL_COLLIDER_ELLIPSOID)
            BROKEN("collider joint, role, side and shape");
        for (int i = 0; i < 3; ++i)
            if (!isfinite(c->a[i]) || !isfinite(c->b[i]) || !isfinite(c->axes[0][i]) ||
                !isfinite(c->axes[1][i]) || !isfinite(c->axes[2][i]))
                BROKEN("collider numbers finite");
        if ((c->shape == TL_COLLIDER_SPHERE || c->shape == TL_COLLIDER_CAPSULE) &&
            !(c->radius > 0 && isfinite(c->radius)))
            BROKEN("sphere or capsule radius > 0");
        float n2 = c->b[0] * c->b[0] + c->b[1] * c->b[1] + c->b[2] * c->b[2];
        if (c->shape == TL_COLLIDER_PLANE && !(fabsf(n2 - 1) < 1e-3f)) BROKEN("plane normal unit");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_error err;
    if (tl_gltf_load_memory(data, size, "fuzz.glb", NULL, &doc, &err) != TL_OK) return 0;
    if (tl_scene_create(doc, &scene, &err) == TL_OK) {
        for (uint32_t i = 0; i < scene->part_count; ++i)
            check_part(scene, &scene->parts[i]);
        for (uint32_t s = 0; s < scene->skin_count; ++s)
            check_colliders(&scene->skins[s]);
        check_joint_parts(scene);
        tl_play_chain chains[8];
        uint32_t count = 0;
        if (tl_play_chains_find(scene, chains, 8, &count, &err) != TL_OK)
            BROKEN("tl_play_chains_find succeeds on a built scene");
        tl_player* player = NULL;
        tl_player_def def = tl_default_player_def();
        if (count > 8) count = 8;
        if ((count || scene->joint_part_count) &&
            tl_player_create(scene, chains, count, &def, &player, &err) == TL_OK) {
            tl_pose* pose = scene->joint_part_count ? tl_pose_create(scene) : NULL;
            for (int f = 0; pose && f < 3; ++f) { /* the joint parts stepped and applied */
                tl_pose_set_stored(pose, scene);
                tl_player_step_pose(player, pose, f ? 1.0f / 60.0f : 0.0f);
            }
            tl_pose_destroy(pose);
            tl_player_destroy(player);
        }
        /* the same document gives the same parts when built again in place */
        uint32_t parts = scene->part_count;
        if (tl_scene_refresh(scene, &err) != TL_OK || scene->part_count != parts)
            BROKEN("tl_scene_refresh gives the same parts");
    }
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return 0;
}
