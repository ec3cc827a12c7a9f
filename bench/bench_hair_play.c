/* What a head of hair costs a frame at play time: each chained MakeHuman style on mh-body.glb,
 * rigged in memory as `tailor rig` rigs it, played at 60 fps through each of its clips by
 * tl_player_advance in three set-ups of the same chains:
 *   full      - the body colliders (grown by each lock's thickness) and the sheet's ties, as
 *               `tailor play` and the browser run it;
 *   colliders - the colliders without the sheet;
 *   free      - neither: the spring-chain solver alone, the peer the other two are set against.
 * Thread CPU time, the fastest of RUNS plays of the whole clip; the first second is played but
 * not timed. Prints CSV `style,clip,chains,links,setup,ms_per_frame,ns_per_link_step,x_free`
 * (a link-step: one link over one internal step of the solver, 1/120 s). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/bake.h>
#include <tailor/play.h>
#include <tailor/rig.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { RUNS = 3, CHAINS_MAX = 64, SETUPS = 3 };

static const char* STYLES[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
static const char* SETUP_NAMES[SETUPS] = {"full", "colliders", "free"};
#define STYLE_COUNT (sizeof STYLES / sizeof STYLES[0])

static const float FPS = 60, WARM_S = 1, STEP_HZ = 120;

static tl_gltf* rigged(const char* style) {
    char path[512];
    snprintf(path, sizeof path, "%s/cases/mh-%s.glb", TL_SHARED_DIR, style);
    tl_gltf* doc;
    tl_scene* scene;
    tl_rig_analysis* rig;
    tl_error err;
    tl_rig_def def = tl_default_rig_def();
    if (tl_gltf_load(path, &doc, &err) != TL_OK) {
        fprintf(stderr, "bench_hair_play: %s\n", err.message);
        exit(1);
    }
    if (tl_scene_create(doc, &scene, &err) != TL_OK ||
        tl_rig_analyze(scene, &def, &rig, &err) != TL_OK) {
        fprintf(stderr, "bench_hair_play: %s: %s\n", style, err.message);
        exit(1);
    }
    tl_scene_destroy(scene);
    if (tl_rig_apply(doc, rig, &err) != TL_OK || tl_bake_rest_document(doc, &err) != TL_OK) {
        fprintf(stderr, "bench_hair_play: %s: %s\n", style, err.message);
        exit(1);
    }
    tl_rig_analysis_destroy(rig);
    return doc;
}

/* The fastest play of the clip after its first second, ms per frame. */
static double play_ms(const tl_scene* scene, const tl_play_chain* chains, uint32_t count, int setup,
                      uint32_t clip, uint32_t* frames) {
    tl_play_chain use[CHAINS_MAX];
    memcpy(use, chains, count * sizeof *use);
    tl_player_def def = tl_default_player_def();
    def.colliders = setup != 2;
    for (uint32_t i = 0; i < count; ++i)
        if (setup != 0) use[i].sheet_rate = 0;
    float duration = scene->clips[clip].duration;
    uint32_t warm = (uint32_t)(WARM_S * FPS), all = (uint32_t)(duration * FPS);
    if (all <= warm + 1) warm = 0;
    *frames = all - warm;
    double best = INFINITY;
    tl_error err;
    tl_pose* pose = tl_pose_create(scene);
    for (int run = 0; run < RUNS; ++run) {
        tl_player* player;
        if (!pose || tl_player_create(scene, use, count, &def, &player, &err) != TL_OK) {
            fprintf(stderr, "bench_hair_play: %s\n", pose ? err.message : "out of memory");
            exit(1);
        }
        tl_player_start(player, clip, 0);
        for (uint32_t f = 1; f <= warm; ++f)
            tl_player_advance(player, pose, clip, f / FPS);
        double t0 = bench_cpu_ms();
        for (uint32_t f = warm + 1; f <= all; ++f)
            tl_player_advance(player, pose, clip, f / FPS);
        double ms = (bench_cpu_ms() - t0) / *frames;
        best = ms < best ? ms : best;
        tl_player_destroy(player);
    }
    tl_pose_destroy(pose);
    return best;
}

int main(void) {
    printf("style,clip,chains,links,setup,ms_per_frame,ns_per_link_step,x_free\n");
    for (size_t s = 0; s < STYLE_COUNT; ++s) {
        tl_gltf* doc = rigged(STYLES[s]);
        tl_scene* scene;
        tl_error err;
        tl_play_chain chains[CHAINS_MAX];
        uint32_t count = 0, links = 0;
        if (tl_scene_create(doc, &scene, &err) != TL_OK ||
            tl_play_chains_find(scene, chains, CHAINS_MAX, &count, &err) != TL_OK) {
            fprintf(stderr, "bench_hair_play: %s: %s\n", STYLES[s], err.message);
            return 1;
        }
        for (uint32_t i = 0; i < count; ++i)
            links += chains[i].bone_count;
        for (uint32_t clip = 0; clip < scene->clip_count; ++clip) {
            double ms[SETUPS];
            uint32_t frames = 0;
            for (int k = 0; k < SETUPS; ++k)
                ms[k] = play_ms(scene, chains, count, k, clip, &frames);
            double steps = STEP_HZ / FPS; /* internal steps a frame */
            for (int k = 0; k < SETUPS; ++k)
                printf("%s,%s,%u,%u,%s,%.4f,%.1f,%.2f\n", STYLES[s], scene->clips[clip].name, count,
                       links, SETUP_NAMES[k], ms[k], 1e6 * ms[k] / (links * steps), ms[k] / ms[2]);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    return 0;
}
