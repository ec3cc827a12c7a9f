/* The VRM springs a file carries against tailor's player, clip by clip (docs/vrm.md "Hair"):
 * each spring's end joint through tailor's implementation of the VRM rule (tl_vrm_play, which
 * three-vrm matches, test_vrm) and the same chain's end in tailor's player with every chain
 * (the sheet included, as tailor play), at 60 fps from clip time 0 looping, over 6 s; the RMS
 * distance after the first 2 s, x H, its mean over the springs and the worst.
 *
 *   vrm_tips FILE        (a file tailor rig --vrm wrote: one spring per chain, in order) */
#include <tailor/tailor.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 361
#define WARMUP 120

static int fail(const char* what, const tl_error* err) {
    fprintf(stderr, "vrm_tips: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: vrm_tips FILE\n");
        return 2;
    }
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_error err;
    if (tl_gltf_load(argv[1], &doc, &err) != TL_OK) return fail(argv[1], &err);
    if (tl_scene_create(doc, &scene, &err) != TL_OK) return fail(argv[1], &err);
    tl_play_chain chains[64];
    uint32_t n = 0;
    if (tl_play_chains_find(scene, chains, 64, &n, &err) != TL_OK) return fail("chains", &err);
    if (n > 64) n = 64;
    float* tips = malloc(sizeof(float) * 3 * FRAMES * (n + 1));
    float* rule = malloc(sizeof(float) * 3 * FRAMES * (TL_CHAIN_MAX_BONES + 1));
    tl_pose* pose = tl_pose_create(scene);
    int code = tips && rule && pose ? 0 : 1;
    for (uint32_t clip = 0; clip < scene->clip_count && !code; ++clip) {
        tl_player_def def = tl_default_player_def();
        def.loop = true;
        tl_player* player = NULL;
        if (tl_player_create(scene, chains, n, &def, &player, &err) != TL_OK) {
            code = fail("player", &err);
            break;
        }
        double duration = scene->clips[clip].duration;
        for (uint32_t f = 0; f < FRAMES; ++f) {
            tl_player_advance(player, pose, clip, (float)fmod(f / 60.0, duration));
            for (uint32_t c = 0; c < n; ++c) {
                uint32_t end = scene->skins[chains[c].skin].joints[chains[c].end_joint].node;
                memcpy(tips + 3 * ((size_t)f * n + c), pose->world + 16 * (size_t)end + 12,
                       3 * sizeof *tips);
            }
        }
        tl_player_destroy(player);
        double sum = 0, worst = 0;
        for (uint32_t c = 0; c < n && !code; ++c) {
            uint32_t joints = 0;
            if (tl_vrm_play(doc, scene, c, clip, 60, FRAMES, rule, &joints, &err) != TL_OK) {
                code = fail("tl_vrm_play", &err);
                break;
            }
            double H = scene->skins[chains[c].skin].height, s2 = 0;
            for (uint32_t f = WARMUP; f < FRAMES; ++f) {
                const float* a = rule + 3 * ((size_t)f * joints + joints - 1);
                const float* b = tips + 3 * ((size_t)f * n + c);
                for (int k = 0; k < 3; ++k)
                    s2 += ((double)a[k] - b[k]) * ((double)a[k] - b[k]) / (H * H);
            }
            double rms = sqrt(s2 / (FRAMES - WARMUP));
            sum += rms;
            worst = fmax(worst, rms);
        }
        if (!code)
            printf("%s %s: tip RMS over %u springs: mean %.4f H, worst %.4f H\n", argv[1],
                   scene->clips[clip].name, n, n ? sum / n : 0, worst);
    }
    tl_pose_destroy(pose);
    free(tips);
    free(rule);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return code;
}
