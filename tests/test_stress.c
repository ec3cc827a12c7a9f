/* Stress tests of the simulated chains (measure.md "Stress") and ground seating that ignores
 * the tail (spring-chain.md §8), on real characters: every tail case rigged by `tailor rig`,
 * the Khronos fox's own artist tail, and the built-in tailed quadruped. */
#include "test.h"

#ifndef TL_STRESS_STRICT
#define TL_STRESS_STRICT 0
#endif

#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A ratio of peak tip speeds after / before an event. With no event at all the same figure
 * (control_speed_ratio, whole clip cycles in both windows) is 1.0000 on every case but the rat,
 * whose tail drags on the floor and makes the clip's cycles differ by up to 1.3%. 2% is that
 * noise and a margin; energy injected shows far above it (a teleport the solver does not
 * recognise: x2 to x50, test teleport_check_can_fail). */
#define SPEED_RATIO_TOLERANCE 0.02f

typedef struct character {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[8];
    uint32_t chain_count;
} character;

static void character_close(character* c) {
    tl_scene_destroy(c->scene);
    tl_gltf_destroy(c->doc);
}

static bool character_load(character* c, const char* path) {
    tl_error err;
    memset(c, 0, sizeof *c);
    if (tl_gltf_load(path, &c->doc, &err) || tl_scene_create(c->doc, &c->scene, &err) ||
        tl_play_chains_find(c->scene, c->chains, 8, &c->chain_count, &err)) {
        fprintf(stderr, "  %s\n", err.message);
        return false;
    }
    return true;
}

/* `tailor rig` on a file, then its chains. */
static bool character_rig(character* c, const char* input, const char* name) {
    const char* output = tl_test_scratch(name);
    int code = tl_test_cli(NULL, "rig '%s' -o '%s' >/dev/null", input, output);
    if (code != 0) {
        fprintf(stderr, "  tailor rig %s: exit %d\n", input, code);
        return false;
    }
    return character_load(c, output);
}

/* The Khronos fox with its own tail bones as the chain (as tests/test_play.c). */
static bool fox_artist_tail(character* c) {
    if (!character_load(c, tl_test_shared("assets/khronos-fox/Fox.glb"))) return false;
    const char* names[] = {"b_Tail01_012", "b_Tail02_013", "b_Tail03_014"};
    tl_play_chain* ch = &c->chains[0];
    memset(ch, 0, sizeof *ch);
    ch->end_joint = TL_NONE;
    ch->settings = tl_default_chain_def();
    for (int i = 0; i < 3; ++i) {
        int32_t j = tl_scene_find_joint(c->scene, 0, names[i]);
        if (j == TL_NONE) return false;
        ch->bone_joints[ch->bone_count++] = (uint32_t)j;
    }
    ch->attach_joint = (uint32_t)c->scene->skins[0].joints[ch->bone_joints[0]].parent;
    c->chain_count = 1;
    return true;
}

static void print_report(const char* label, const tl_stress_report* r) {
    fprintf(
        stderr,
        "  %s: nonfinite %u, max_length_error %.3g, fps_max_diff_sampled %.5f, fps_max_diff %.4f, "
        "cut_error %.2g, max_step_rotation_deg %.2f, "
        "max_neighbour_step_rotation_deg %.2f, hitch_speed_ratio %.4f (%.4g -> %.4g), "
        "teleport_speed_ratio "
        "%.4f (%.4g -> %.4g), control %.4f, one cycle later: hitch %.4f teleport %.4f, "
        "settle_seconds %.3f, shake contact frames %u, chain %.4g units, scale %.4g, colliders %u, "
        "collider_penetration %.2g over %u frames\n",
        label, r->nonfinite, r->max_length_error, r->fps_max_diff_sampled, r->fps_max_diff,
        r->cut_error, r->max_step_rotation_deg, r->max_neighbour_step_rotation_deg,
        r->hitch_speed_ratio, r->hitch_peak_before, r->hitch_peak_after, r->teleport_speed_ratio,
        r->teleport_peak_before, r->teleport_peak_after, r->control_speed_ratio,
        r->hitch_speed_ratio_later, r->teleport_speed_ratio_later, r->settle_seconds,
        r->shake_contacts, r->chain_length, r->scale, r->colliders, r->collider_penetration,
        r->collider_frames);
}

/* The stress tests with the default def on chain 0 of a character with one of its clips,
 * printed; on a failure tl_test_failed is set (the caller returns). */
static void stress_clip(character* c, const char* label, const char* clip_name,
                        tl_stress_report* r) {
    tl_error err;
    uint32_t clip;
    ENSURE_MSG(c->chain_count >= 1, "%s: no chain", label);
    ENSURE_OK(tl_scene_find_clip(c->scene, clip_name, &clip, &err), err);
    tl_stress_def def = tl_default_stress_def();
    ENSURE_OK(tl_measure_stress(c->scene, &c->chains[0], (int32_t)clip, &def, r, &err), err);
    print_report(label, r);
}

/* Runs the stress tests on chain 0 of a character with one of its clips and checks the
 * figures measure.md demands. Returns through ENSURE. */
static void stress_character(character* c, const char* label, const char* clip_name) {
    tl_stress_report r;
    stress_clip(c, label, clip_name, &r);
    if (tl_test_failed) return;
    ENSURE(r.chain_length > 0 && r.scale > 0);
    ENSURE_MSG(r.nonfinite == 0, "%s: %u non-finite values", label, r.nonfinite);
    ENSURE_MSG(r.max_length_error <= 1e-4f, "%s: link length error %.3g of the link", label,
               r.max_length_error);
    ENSURE_MSG(r.max_step_rotation_deg > 0, "%s: the chain never moved", label);
    /* Whatever the transient, a hitch or a teleport leaves no lasting energy: one period of
     * the root spring (whole clip cycles) later the peak is back to the peak before. */
    ENSURE_MSG(r.hitch_speed_ratio_later >= 0 &&
                   r.hitch_speed_ratio_later <= 1 + SPEED_RATIO_TOLERANCE,
               "%s: after a hitch's transient the peak tip speed is %.3f x the peak before", label,
               r.hitch_speed_ratio_later);
    ENSURE_MSG(r.teleport_speed_ratio_later >= 0 &&
                   r.teleport_speed_ratio_later <= 1 + SPEED_RATIO_TOLERANCE,
               "%s: after a teleport's transient the peak tip speed is %.3f x the peak before",
               label, r.teleport_speed_ratio_later);
    /* measure.md "Stress", as decided: frame-rate independence with the clip sampled at the
     * solver's step (15-144 fps), the transients of a hitch (one root-spring period may swing
     * to 1.5x) and of a teleport the solver detects (1.15x). */
    ENSURE(r.fps_rates[0] == 15 && r.fps_rates[4] == 144);
    /* (the comparison sees a difference where the input differs: render-only poses) */
    ENSURE_MSG(r.fps_max_diff > r.fps_max_diff_sampled, "%s: render poses compare as sampled",
               label);
    ENSURE_MSG(r.fps_max_diff_sampled >= 0 && r.fps_max_diff_sampled <= 0.001f,
               "%s: sampled tips at 15-144 fps differ by %.4f%% of the chain", label,
               100 * r.fps_max_diff_sampled);
    ENSURE_MSG(r.hitch_speed_ratio >= 0 && r.hitch_speed_ratio <= 1.5f,
               "%s: peak tip speed after a 0.5 s frame is %.3f x the peak before", label,
               r.hitch_speed_ratio);
    ENSURE_MSG(r.colliders >= 1 && r.collider_penetration >= 0 && r.collider_penetration <= 0.002f,
               "%s: a particle %.3g of H inside a body collider (%u colliders)", label,
               r.collider_penetration, r.colliders);
    /* (a penetration read on no frame would pass unmeasured: most frames of every run are read) */
    ENSURE_MSG(r.collider_frames > 0, "%s: the penetration was read on no frame", label);
    ENSURE_MSG(r.teleport_speed_ratio >= 0 && r.teleport_speed_ratio <= 1.15f,
               "%s: peak tip speed after a detected teleport is %.3f x the peak before", label,
               r.teleport_speed_ratio);
    /* A reported cut 100 m away is carried exactly: the player's floating origin keeps the
     * state in the character's own magnitudes (docs/stress.md). */
    ENSURE_MSG(r.cut_error >= 0 && r.cut_error <= 1e-5f,
               "%s: a reported cut moves the tips by %.3g of the chain", label, r.cut_error);
    /* measure.md "Coming to rest": every chain at rest within 2 s of the shake (the rat, the
     * longest tail, the slowest: 1.97 s at the 1.2 Hz root spring, docs/stress.md session 7). */
    ENSURE_MSG(r.settle_seconds >= 0 && r.settle_seconds <= 2,
               "%s: at rest %.2f s after the shake (-1: never)", label, r.settle_seconds);
    /* What still fails (docs/stress.md): the render-pose target of 1% (6 of 8). Built strict it
     * runs as the known-failing program (ctest label known_failing, `make
     * test-known-failing`); in the suite it is printed. */
    bool render_ok = r.fps_max_diff >= 0 && r.fps_max_diff <= 0.01f;
    if (!TL_STRESS_STRICT) {
        if (!render_ok) fprintf(stderr, "  %s: KNOWN FAILING: render-pose frame rate\n", label);
        return;
    }
    ENSURE_MSG(render_ok, "%s: render-pose tips at 15-144 fps differ by %.2f%% of the chain", label,
               100 * r.fps_max_diff);
}

static void stress_rigged_case(const char* name, const char* clip) {
    char input[512], label[128];
    snprintf(input, sizeof input, "cases/%s.glb", name);
    snprintf(label, sizeof label, "%s.rigged.glb", name);
    character c;
    ENSURE(character_rig(&c, tl_test_shared(input), label));
    stress_character(&c, name, clip);
    character_close(&c);
}

static void stress_knight(void) {
    stress_rigged_case("knight-tailed", "Run");
}
static void stress_fox_khronos(void) {
    stress_rigged_case("fox-khronos-tailless", "Run");
}
static void stress_fox_quaternius(void) {
    stress_rigged_case("fox-quaternius-tailless", "Gallop");
}
static void stress_husky(void) {
    stress_rigged_case("husky-tailless", "Gallop");
}
static void stress_rat(void) {
    stress_rigged_case("rat-tailless", "Rat_Run");
}
static void stress_trex(void) {
    stress_rigged_case("trex-tailless", "TRex_Run");
}
static void stress_horse(void) {
    stress_rigged_case("horse-tailless", "Gallop");
}

static void stress_fox_artist_tail(void) {
    character c;
    ENSURE(fox_artist_tail(&c));
    stress_character(&c, "Fox.glb b_Tail01..03", "Run");
    character_close(&c);
}

/* A shared animal whose artist's tail tail_styles.py strips as test_general does (the tail
 * joints out of the skin, their weight where `style` puts it: nearest, parent, thigh), rigged. */
typedef struct stripped_animal {
    const char *name, *asset, *shin, *thigh_l, *thigh_r; /* asset under ../shared/assets */
} stripped_animal;
static const stripped_animal STAG = {"stag", "quaternius-stag/Stag.glb", "BackLowerLeg.L",
                                     "BackUpperLeg.L", "BackUpperLeg.R"};
static const stripped_animal RAT = {"rat", "quaternius-rat/Rat.glb", "BackUpLeg.L", "BackLeg.L",
                                    "BackLeg.R"};

static bool animal_stripped(character* c, const stripped_animal* a, const char* style) {
    char name[64], base[4096], input[4200], assets[4096], command[12288];
    snprintf(name, sizeof name, "%s-%s", a->name, style);
    snprintf(base, sizeof base, "%s", tl_test_scratch(name));
    snprintf(assets, sizeof assets, "%s", tl_test_shared("assets"));
    snprintf(input, sizeof input, "%s.glb", base);
    snprintf(command, sizeof command,
             "python3 '%s' '%s/%s' '%s' --tail Tail --parent Back --style %s --shin %s "
             "--thigh-l %s --thigh-r %s --scale 1 --source %s >/dev/null",
             tl_test_source("scripts/tail_styles.py"), assets, a->asset, base, style, a->shin,
             a->thigh_l, a->thigh_r, a->asset);
    if (system(command) != 0) {
        fprintf(stderr, "  tail_styles.py failed\n");
        return false;
    }
    snprintf(name, sizeof name, "%s-%s.rigged.glb", a->name, style);
    return character_rig(c, input, name);
}

/* A clip whose last keys differ from its first (the stag's Gallop: the legs, up to 0.26 in a
 * quaternion component) plays its wrap the same way in the hitch's run and without it: the
 * event's time counts frames, it does not sum them (a sum drifts across a wrap; after the
 * hitch the seam was crossed in one frame instead of two, 1.38x, docs/stress.md session 20). */
static void hitch_clip_seam(void) {
    character c;
    ENSURE(animal_stripped(&c, &STAG, "nearest"));
    tl_stress_report r;
    stress_clip(&c, "stag (nearest)", "Gallop", &r);
    if (tl_test_failed) return;
    ENSURE_MSG(r.hitch_speed_ratio_later >= 0 &&
                   r.hitch_speed_ratio_later <= 1 + SPEED_RATIO_TOLERANCE,
               "after a hitch's transient the peak tip speed is %.3f x the peak before",
               r.hitch_speed_ratio_later);
    character_close(&c);
}

/* A teleport the solver detects on the frame after that seam, the tail hung from a thigh
 * (whose path turns sharply there): the frame after the teleport's is not curved through
 * the teleport frame's guessed own motion (1.158x before, docs/stress.md session 21). Every
 * bar of stress_character. */
static void teleport_clip_seam(void) {
    character c;
    ENSURE(animal_stripped(&c, &STAG, "thigh"));
    stress_character(&c, "stag (thigh)", "Gallop");
    character_close(&c);
}

/* A long thin tail off ../shared comes to rest within 2 s of the shake: the rat stripped by
 * tail_styles.py (`nearest`, as test_general) and rigged; its tail lands on the floor in the
 * shake, and a slip damping on top of its already over-critical links held it there (2.37 s
 * before session 21, docs/stress.md). */
static void long_tail_settles(void) {
    character c;
    ENSURE(animal_stripped(&c, &RAT, "nearest"));
    tl_stress_report r;
    stress_clip(&c, "rat (nearest)", "Rat_Run", &r);
    if (tl_test_failed) return;
    ENSURE_MSG(r.settle_seconds >= 0 && r.settle_seconds <= 2,
               "at rest %.3f s after the shake (-1: never)", r.settle_seconds);
    character_close(&c);
}

/* The harness can fail: a solver that does not recognise the teleport (its threshold set
 * beyond 100 m) flings the tail, and the ratio shows it. */
static void teleport_check_can_fail(void) {
    character c;
    ENSURE(
        character_rig(&c, tl_test_shared("cases/knight-tailed.glb"), "knight-tailed.rigged.glb"));
    ENSURE(c.chain_count >= 1);
    tl_error err;
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(c.scene, "Run", &clip, &err), err);
    c.chains[0].settings.teleport_distance = 1e9f;
    tl_stress_def def = tl_default_stress_def();
    tl_stress_report r;
    ENSURE_OK(tl_measure_stress(c.scene, &c.chains[0], (int32_t)clip, &def, &r, &err), err);
    fprintf(stderr, "  unrecognised teleport: speed ratio %.3f (%.4g -> %.4g), later %.3f\n",
            r.teleport_speed_ratio, r.teleport_peak_before, r.teleport_peak_after,
            r.teleport_speed_ratio_later);
    ENSURE(r.teleport_speed_ratio > 2);
    /* ... and a chain that keeps the energy (almost no damping) still shows it after the
       transient window */
    c.chains[0].settings.settings.damping_ratio = 0.02f;
    ENSURE_OK(tl_measure_stress(c.scene, &c.chains[0], (int32_t)clip, &def, &r, &err), err);
    fprintf(stderr, "  unrecognised teleport, zeta 0.02: later speed ratio %.3f\n",
            r.teleport_speed_ratio_later);
    ENSURE(r.teleport_speed_ratio_later > 1 + SPEED_RATIO_TOLERANCE);
    c.chains[0].settings.teleport_distance = tl_default_chain_def().teleport_distance;
    ENSURE_OK(tl_measure_stress(c.scene, &c.chains[0], (int32_t)clip, &def, &r, &err), err);
    fprintf(stderr, "  recognised teleport, zeta 0.02: later speed ratio %.3f (control %.3f)\n",
            r.teleport_speed_ratio_later, r.control_speed_ratio);
    ENSURE(r.teleport_speed_ratio_later <= 1 + SPEED_RATIO_TOLERANCE);
    character_close(&c);
}

/* The floating origin: a cut lifting the rat 100 m · scale off its floor moves the player's
 * origin there, and the floor stays where the world has it. The rat stands at rest sunk by
 * 0.3 H, so its tail lies on the floor: no contact up there, and contact again once cut back
 * down. A floor moved with the origin would hold the tail as before the cut; an origin that
 * did not move would stay 0. */
static void cut_moves_origin_not_floor(void) {
    character c;
    ENSURE(character_rig(&c, tl_test_shared("cases/rat-tailless.glb"), "rat-tailless.rigged.glb"));
    tl_error err;
    tl_player_def pd = tl_default_player_def();
    tl_player* player;
    ENSURE_OK(tl_player_create(c.scene, &c.chains[0], 1, &pd, &player, &err), err);
    tl_pose* pose = tl_pose_create(c.scene);
    ENSURE(pose);
    const tl_scene_skin* sk = &c.scene->skins[c.chains[0].skin];
    float sunk[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, lifted[16];
    memcpy(lifted, sunk, sizeof lifted);
    for (int k = 0; k < 3; ++k) {
        sunk[12 + k] = -0.3f * sk->height * sk->up[k];
        lifted[12 + k] = sunk[12 + k] + 100.0f * sk->height / 1.8f * sk->up[k];
    }
    uint32_t contacts[3] = {0, 0, 0}; /* frames with a contact: on the floor, lifted, back */
    float origin[3], lifted_origin = 0;
    for (uint32_t f = 0; f < 3 * 120; ++f) {
        uint32_t phase = f / 120;
        tl_pose_set_rest(pose, c.scene, c.chains[0].skin);
        tl_pose_move_skin(pose, c.scene, c.chains[0].skin, phase == 1 ? lifted : sunk);
        if (f == 120 || f == 240) tl_player_cut(player, pose);
        tl_player_step_pose(player, pose, f ? 1.0f / 60.0f : 0.0f);
        tl_player_origin(player, origin);
        if (f == 0) ENSURE(origin[0] == 0 && origin[1] == 0 && origin[2] == 0);
        if (phase == 1)
            lifted_origin = origin[0] * sk->up[0] + origin[1] * sk->up[1] + origin[2] * sk->up[2];
        /* (the second half of each phase: the cut's swing has passed) */
        if (f % 120 >= 60 && tl_chain_get_stats(tl_player_chain(player, 0)).contacts)
            contacts[phase]++;
    }
    fprintf(stderr, "  contact frames on the floor %u, lifted %u, back %u; lifted origin %.1f up\n",
            contacts[0], contacts[1], contacts[2], (double)lifted_origin);
    ENSURE(contacts[0] > 0 && contacts[1] == 0 && contacts[2] > 0);
    ENSURE(lifted_origin > 50.0f * sk->height / 1.8f);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    character_close(&c);
}

/* Without a clip only the shake runs; the clip figures say so with -1. */
static void shake_only(void) {
    character c;
    ENSURE(fox_artist_tail(&c));
    tl_stress_def def = tl_default_stress_def();
    tl_stress_report r;
    tl_error err;
    ENSURE_OK(tl_measure_stress(c.scene, &c.chains[0], TL_NONE, &def, &r, &err), err);
    ENSURE(r.fps_max_diff == -1 && r.hitch_speed_ratio == -1 && r.teleport_speed_ratio == -1);
    ENSURE(r.nonfinite == 0 && r.max_length_error <= 1e-4f && r.max_step_rotation_deg > 0);
    character_close(&c);
}

/* ---- body colliders ---- */

/* Body colliders fitted to a rigged character: the legs, arms and head get theirs, most of the
 * skin each bone dominates lies inside its own, and the player leaves out for the tail those
 * its bind pose lies in. */
static void colliders_fit_skin(const char* name, bool has_arms) {
    character c;
    char input[256];
    snprintf(input, sizeof input, "cases/%s.glb", name);
    char label[256];
    snprintf(label, sizeof label, "%s.rigged.glb", name);
    ENSURE(character_rig(&c, tl_test_shared(input), label));
    tl_body_collider body[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    tl_error err;
    ENSURE_OK(tl_body_colliders_fit(c.scene, 0, body, TL_BODY_COLLIDERS_MAX, &n, &err), err);
    const tl_scene_skin* sk = &c.scene->skins[0];
    int roles[TL_ROLE_COUNT] = {0}, ellipsoids = 0;
    double worst = 1;
    for (uint32_t k = 0; k < n; ++k) {
        roles[body[k].role]++;
        const tl_collider* b = &body[k].local;
        if (b->shape == TL_COLLIDER_ELLIPSOID) {
            ++ellipsoids;
            for (int e = 0; e < 3; ++e) {
                double r = sqrt(b->axes[e][0] * b->axes[e][0] + b->axes[e][1] * b->axes[e][1] +
                                b->axes[e][2] * b->axes[e][2]);
                ENSURE(r > 0 && r < sk->height);
            }
        } else {
            ENSURE(b->radius > 0 && b->radius < sk->height);
        }
    }
    for (uint32_t k = 0; k < n; ++k) {
        if (k > 0 && body[k].joint == body[k - 1].joint) continue; /* (a split bone: once) */
        uint32_t inside = 0, total = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v) {
            const float* w = sk->influence_weights + (size_t)v * sk->influence_count;
            uint32_t best = 0;
            for (uint32_t i = 1; i < sk->influence_count; ++i)
                if (w[i] > w[best]) best = i;
            if (sk->influence_joints[(size_t)v * sk->influence_count + best] != body[k].joint)
                continue;
            ++total;
            for (uint32_t m = k; m < n && body[m].joint == body[k].joint; ++m)
                if (tl_collider_depth(&body[m].local, sk->rest_positions + 3 * (size_t)v) > 0) {
                    ++inside;
                    break;
                }
        }
        worst = fmin(worst, (double)inside / total);
    }
    tl_player_def pd = tl_default_player_def();
    pd.colliders = true;
    tl_player* player;
    ENSURE_OK(tl_player_create(c.scene, c.chains, 1, &pd, &player, &err), err);
    const tl_collider* world;
    uint32_t kept = tl_player_colliders(player, 0, &world);
    fprintf(stderr,
            "  %s: %u colliders (thighs %d, shins %d, upper arms %d, head %d; %d ellipsoids), the "
            "worst bone has %.0f%% of its skin inside; %u kept for the tail\n",
            name, n, roles[TL_ROLE_THIGH], roles[TL_ROLE_SHIN], roles[TL_ROLE_UPPER_ARM],
            roles[TL_ROLE_HEAD], ellipsoids, 100 * worst, kept);
    ENSURE(roles[TL_ROLE_THIGH] >= 2 && roles[TL_ROLE_SHIN] >= 2 && roles[TL_ROLE_HEAD] >= 1);
    ENSURE(!has_arms || roles[TL_ROLE_UPPER_ARM] >= 2);
    ENSURE(worst >= 0.5 && kept >= 1 && kept <= n);
    tl_player_destroy(player);
    character_close(&c);
}

static void colliders_knight(void) {
    colliders_fit_skin("knight-tailed", true);
}
static void colliders_husky(void) {
    colliders_fit_skin("husky-tailless", true);
}

/* ---- ground seating ---- */

static float height_along(const float up[3], const float p[3]) {
    return up[0] * p[0] + up[1] * p[1] + up[2] * p[2];
}

/* The rest pose pushed 10% of H into the floor is lifted back by exactly that, at the pelvis. */
static void seating_lifts_sunk_body(void) {
    character c;
    ENSURE(character_rig(&c, tl_test_shared("cases/rat-tailless.glb"), "rat-tailless.rigged.glb"));
    const tl_scene_skin* sk = &c.scene->skins[0];
    tl_seating_def def = tl_default_seating_def();
    tl_seating* seat;
    tl_error err;
    ENSURE_OK(tl_seating_create(c.scene, 0, c.chains, c.chain_count, &def, &seat, &err), err);
    tl_pose* pose = tl_pose_create(c.scene);
    tl_pose_set_rest(pose, c.scene, 0);
    uint32_t pelvis = sk->joints[sk->body.pelvis].node;
    float rest_pelvis = height_along(sk->up, pose->world + 16 * (size_t)pelvis + 12);
    ENSURE_NEAR(tl_seating_clearance(seat, pose), 0, 1e-5 * sk->height);
    float sink = 0.1f * sk->height;
    float down[16] = {
        1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -sink * sk->up[0], -sink * sk->up[1], -sink * sk->up[2],
        1};
    tl_pose_move_skin(pose, c.scene, 0, down);
    ENSURE_NEAR(height_along(sk->up, pose->world + 16 * (size_t)pelvis + 12), rest_pelvis - sink,
                1e-5 * sk->height);
    ENSURE_NEAR(tl_seating_clearance(seat, pose), -sink, 1e-5 * sk->height);
    /* a clip authored to sink 3% may keep that much */
    ENSURE_NEAR(tl_seating_lift(seat, pose, -0.03f * sk->height), sink - 0.03f * sk->height,
                1e-5 * sk->height);
    float lift = tl_seating_apply(seat, pose, 0);
    ENSURE_NEAR(lift, sink, 1e-5 * sk->height);
    ENSURE_NEAR(height_along(sk->up, pose->world + 16 * (size_t)pelvis + 12), rest_pelvis,
                1e-5 * sk->height);
    ENSURE_NEAR(tl_seating_clearance(seat, pose), 0, 1e-5 * sk->height);
    fprintf(stderr, "  %u support points, f_body %.4f (lowest vertex %.4f)\n",
            tl_seating_point_count(seat), tl_seating_floor(seat), sk->floor);
    tl_pose_destroy(pose);
    tl_seating_destroy(seat);
    character_close(&c);
}

/* A chain whose joints are not the skin's is the file's fault: an error, not a crash. */
static void seating_rejects_bad_chain(void) {
    character c;
    ENSURE(character_rig(&c, tl_test_shared("cases/rat-tailless.glb"), "rat-tailless.rigged.glb"));
    c.chains[0].bone_joints[1] = c.scene->skins[0].joint_count;
    tl_seating_def def = tl_default_seating_def();
    tl_seating* seat = NULL;
    tl_error err;
    ENSURE(tl_seating_create(c.scene, 0, c.chains, 1, &def, &seat, &err) == TL_ERROR_INVALID);
    ENSURE(seat == NULL && strstr(err.message, "chain 0"));
    character_close(&c);
}

/* The lowest skinned point (along up) of the vertices whose dominant joint is / is not a chain
 * bone, by full skinning: an independent look at why a lift happened. */
static void lowest_points(const character* c, const tl_pose* pose, float* joints, float* positions,
                          float* tail, float* body) {
    const tl_scene_skin* sk = &c->scene->skins[0];
    tl_pose_joint_matrices(pose, c->scene, 0, joints);
    tl_scene_skin_positions(c->scene, 0, joints, positions);
    *tail = *body = INFINITY;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        const float* w = sk->influence_weights + (size_t)v * sk->influence_count;
        uint32_t best = 0;
        for (uint32_t k = 1; k < sk->influence_count; ++k)
            if (w[k] > w[best]) best = k;
        uint32_t dominant = sk->influence_joints[(size_t)v * sk->influence_count + best];
        bool in_chain = false;
        for (uint32_t i = 0; i < c->chain_count; ++i)
            for (uint32_t b = 0; b < c->chains[i].bone_count; ++b)
                in_chain |= c->chains[i].bone_joints[b] == dominant;
        float h = height_along(sk->up, positions + 3 * (size_t)v);
        if (in_chain)
            *tail = fminf(*tail, h);
        else
            *body = fminf(*body, h);
    }
}

/* A clip where the simulated tail droops below the soles: seating that counts the tail lifts
 * the pelvis, seating that ignores it does not (Δy_hips = lift_counted - lift_excluded). */
static void seating_ignores_tail(character* c, const char* label, const char* clip_name,
                                 float min_lift) {
    tl_error err;
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(c->scene, clip_name, &clip, &err), err);
    const tl_scene_skin* sk = &c->scene->skins[0];
    const float duration = c->scene->clips[clip].duration;
    enum { SAMPLES = 48 };
    float times[SAMPLES], dy[SAMPLES], counted[SAMPLES], excluded[SAMPLES];
    for (int i = 0; i < SAMPLES; ++i)
        times[i] = duration * (1.0f + (float)i / SAMPLES); /* the second cycle */
    tl_seating_def def = tl_default_seating_def();
    ENSURE_OK(tl_seating_compare(c->scene, c->chains, c->chain_count, clip, times, SAMPLES, &def,
                                 dy, counted, excluded, &err),
              err);
    int worst = 0;
    float excluded_max = 0;
    for (int i = 0; i < SAMPLES; ++i) {
        if (dy[i] > dy[worst]) worst = i;
        excluded_max = fmaxf(excluded_max, excluded[i]);
        ENSURE_NEAR(dy[i], counted[i] - excluded[i], 0);
    }
    fprintf(stderr,
            "  %s %s: max_dy_hips %.4g units (%.2f%% of H, %.3g m at 1.8 m) at t %.3f s; excluded "
            "lift max %.3g\n",
            label, clip_name, dy[worst], 100 * dy[worst] / sk->height, 1.8 * dy[worst] / sk->height,
            times[worst], excluded_max);
    ENSURE_MSG(excluded_max == 0, "%s: the fixed seating lifts the pelvis by %.3g", label,
               excluded_max);
    ENSURE_MSG(dy[worst] >= min_lift * sk->height, "%s: the tail-counting seating lifts only %.3g",
               label, dy[worst]);

    if (min_lift <= 0) return; /* (no tail under the floor to look at) */
    /* Independently: at that time the simulated tail's skin is below the body's lowest point,
     * and the body itself is not below the floor the tail-counting pass would keep. */
    tl_player_def pd = tl_default_player_def();
    pd.loop = true;
    tl_player* player;
    ENSURE_OK(tl_player_create(c->scene, c->chains, c->chain_count, &pd, &player, &err), err);
    tl_pose* pose = tl_pose_create(c->scene);
    float* joints = malloc(sizeof(float) * 16 * sk->joint_count);
    float* positions = malloc(sizeof(float) * 3 * sk->vertex_count);
    ENSURE(pose && joints && positions);
    tl_player_start(player, clip, 0);
    for (double t = 0; t < times[worst] - 1e-6; t += pd.frame_step)
        tl_player_advance(player, pose, clip, fmodf((float)t, duration));
    tl_player_advance(player, pose, clip, fmodf(times[worst], duration));
    float tail, body;
    lowest_points(c, pose, joints, positions, &tail, &body);
    fprintf(stderr, "  at t %.3f: lowest tail skin %.4f, lowest body skin %.4f (rest floor %.4f)\n",
            times[worst], tail, body, sk->floor);
    ENSURE(tail < body);
    free(joints);
    free(positions);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
}

static void seating_rat(void) {
    character c;
    ENSURE(character_rig(&c, tl_test_shared("cases/rat-tailless.glb"), "rat-tailless.rigged.glb"));
    seating_ignores_tail(&c, "rat-tailless", "Rat_Jump", 0.01f);
    character_close(&c);
}

static void seating_quadruped_sample(void) {
    const char* sample = tl_test_scratch("tailed-quadruped.glb");
    ENSURE(tl_test_cli(NULL, "sample tailed-quadruped -o '%s' >/dev/null", sample) == 0);
    character c;
    ENSURE(character_rig(&c, sample, "tailed-quadruped.rigged.glb"));
    /* Since the solver holds the rest arc against gravity (issue #11) this tail stays clear of
     * the floor in the walk: there is nothing for either pass to lift, and the fixed pass must
     * still lift nothing. The rat's jump (seating_rat) shows the counting pass lifting. */
    seating_ignores_tail(&c, "tailed-quadruped", "Walk", 0.0f);
    character_close(&c);
}

/* Where nothing droops, neither pass lifts: the knight's run. */
static void seating_no_lift_when_tail_is_up(void) {
    character c;
    ENSURE(
        character_rig(&c, tl_test_shared("cases/knight-tailed.glb"), "knight-tailed.rigged.glb"));
    tl_error err;
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(c.scene, "Run", &clip, &err), err);
    float times[24], dy[24], counted[24], excluded[24];
    for (int i = 0; i < 24; ++i)
        times[i] = 0.05f * (float)i;
    tl_seating_def def = tl_default_seating_def();
    ENSURE_OK(tl_seating_compare(c.scene, c.chains, c.chain_count, clip, times, 24, &def, dy,
                                 counted, excluded, &err),
              err);
    for (int i = 0; i < 24; ++i)
        ENSURE(dy[i] == 0 && counted[i] == 0 && excluded[i] == 0);
    character_close(&c);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"stress_knight", stress_knight},
        {"stress_fox_khronos", stress_fox_khronos},
        {"stress_fox_quaternius", stress_fox_quaternius},
        {"stress_husky", stress_husky},
        {"stress_rat", stress_rat},
        {"stress_trex", stress_trex},
        {"stress_horse", stress_horse},
        {"stress_fox_artist_tail", stress_fox_artist_tail},
        {"hitch_clip_seam", hitch_clip_seam},
        {"teleport_clip_seam", teleport_clip_seam},
        {"long_tail_settles", long_tail_settles},
        {"teleport_check_can_fail", teleport_check_can_fail},
        {"cut_moves_origin_not_floor", cut_moves_origin_not_floor},
        {"shake_only", shake_only},
        {"colliders_knight", colliders_knight},
        {"colliders_husky", colliders_husky},
        {"seating_lifts_sunk_body", seating_lifts_sunk_body},
        {"seating_rejects_bad_chain", seating_rejects_bad_chain},
        {"seating_rat", seating_rat},
        {"seating_quadruped_sample", seating_quadruped_sample},
        {"seating_no_lift_when_tail_is_up", seating_no_lift_when_tail_is_up},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
