/* The cloth's render weights fitted to its motion (tailor rig --cloth-fit, src/rig/cloth_fit.c on
 * the hair's seam fit; docs/cloth.md "Session 27 (skirtfit27)"). */
#include "test.h"

#include <tailor/gltf.h>
#include <tailor/play.h>
#include <tailor/scene.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rig/internal.h"

/* Rigged mh-suit-skirt loaded, with the fit's output arrays for its skin 0. */
typedef struct fit_case {
    tl_gltf* doc;
    tl_scene* scene;
    uint32_t* joints; /* vertex_count x 4 */
    float* weights;   /* vertex_count x 4 */
    uint8_t* changed; /* vertex_count */
} fit_case;

static bool fit_case_open(fit_case* f) {
    memset(f, 0, sizeof *f);
    const char* path = tl_test_rigged_case("mh-suit-skirt");
    tl_error err;
    if (!path || tl_gltf_load(path, &f->doc, &err) != TL_OK ||
        tl_scene_create(f->doc, &f->scene, &err) != TL_OK)
        return false;
    size_t n = f->scene->skins[0].vertex_count;
    f->joints = malloc(sizeof *f->joints * 4 * n);
    f->weights = malloc(sizeof *f->weights * 4 * n);
    f->changed = malloc(n);
    return f->joints && f->weights && f->changed;
}

static void fit_case_close(fit_case* f) {
    free(f->joints), free(f->weights), free(f->changed);
    tl_scene_destroy(f->scene);
    tl_gltf_destroy(f->doc);
}

/* The fit's def for the tests: Walk, one play of 24 poses, 10 sweeps (the defaults' figures are
 * in docs/cloth.md). */
static rig_cloth_fit_def quick_def(bool colliders) {
    rig_cloth_fit_def def = rig_default_cloth_fit_def();
    def.fit.clips = "Walk";
    def.fit.samples[0] = 24, def.fit.samples[1] = 0;
    def.fit.sweeps = 10;
    def.fit.colliders = colliders;
    return def;
}

/* Every vertex the fit changed: weights >= 0 on at most 4 joints summing to 1, more than half of
 * it on the lattice's bones (and its end joint), its heaviest joint one of them. */
static bool weights_valid(const tl_scene* scene, const uint32_t* joints, const float* weights,
                          const uint8_t* changed) {
    const tl_scene_skin* sk = &scene->skins[0];
    uint8_t* ours = calloc(sk->joint_count, 1);
    for (uint32_t p = 0; ours && p < scene->part_count; ++p) {
        const tl_scene_part* sp = &scene->parts[p];
        for (uint32_t b = 0; sp->kind == TL_PART_CLOTH && b < sp->bone_count; ++b)
            ours[sp->bone_joints[b]] = 1;
        if (sp->kind == TL_PART_CLOTH) ours[sp->end_joint] = 1; /* (as the player counts) */
    }
    bool ok = ours != NULL;
    for (uint32_t v = 0; ok && v < sk->vertex_count; ++v) {
        if (!changed[v]) continue;
        float sum = 0, on = 0;
        int top = 0;
        for (int k = 0; k < 4 && ok; ++k) {
            ok = weights[4 * v + k] >= 0 && joints[4 * v + k] < sk->joint_count;
            sum += weights[4 * v + k];
            on += ok && ours[joints[4 * v + k]] ? weights[4 * v + k] : 0;
            if (weights[4 * v + k] > weights[4 * v + top]) top = k;
        }
        ok = ok && fabsf(sum - 1) <= 1e-5f && on > 0.5f && ours[joints[4 * v + top]];
        if (!ok)
            printf("  vertex %u: sum %.6f, on the lattice %.4f, heaviest %s\n", v, (double)sum,
                   (double)on, sk->joints[joints[4 * v + top]].name);
    }
    free(ours);
    return ok;
}

/* On the rigged skirt's Walk the fit changes the cloth's vertices and, in the poses it was fitted
 * to, takes none deeper into a body collider than its input weights put it (the half-spaces);
 * the same fit without them sinks vertices. */
static void cloth_fit_holds_colliders(void) {
    fit_case f;
    ENSURE(fit_case_open(&f));
    tl_error err;
    hair_seam_fit_report rep[2];
    for (int held = 1; held >= 0; --held) {
        rig_cloth_fit_def def = quick_def(held);
        ENSURE_OK(
            rig_cloth_fit_skin(f.scene, 0, &def, f.joints, f.weights, f.changed, &rep[held], &err),
            err);
        printf("  mh-suit-skirt Walk, half-spaces %s: %u free, %u vertices changed, %u poses, %u "
               "planes; deepest in a collider %.4f H (input %.4f), beyond the input %.5f H\n",
               held ? "on" : "off", rep[held].free_vertices, rep[held].changed, rep[held].poses,
               rep[held].planes, (double)rep[held].deepest, (double)rep[held].deepest_input,
               (double)rep[held].excess);
        ENSURE(weights_valid(f.scene, f.joints, f.weights, f.changed));
    }
    fit_case_close(&f);
    ENSURE(rep[1].changed > 100 && rep[1].poses == 24);
    ENSURE(rep[0].excess > 1e-4f);  /* (the check below can fail) */
    ENSURE(rep[1].excess <= 2e-5f); /* (the fit's own tolerance is 1e-5 H) */
}

/* Every joint matrix of skin 0 over the clip at 60 Hz, into out (frames x joints x 16). */
static bool play_clip(const tl_scene* scene, uint32_t clip, float* out, uint32_t frames) {
    tl_play_chain chains[64];
    uint32_t n = 0;
    tl_error err;
    if (tl_play_chains_find(scene, chains, 64, &n, &err) != TL_OK || n > 64) return false;
    tl_player_def def = tl_default_player_def();
    tl_player* player = NULL;
    if (tl_player_create(scene, chains, n, &def, &player, &err) != TL_OK) return false;
    tl_pose* pose = tl_pose_create(scene);
    tl_player_start(player, clip, 0.0f);
    uint32_t joints = scene->skins[0].joint_count;
    for (uint32_t t = 0; t < frames; ++t) {
        tl_player_advance(player, pose, clip, (float)t / 60.0f);
        tl_pose_joint_matrices(pose, scene, 0, out + (size_t)t * joints * 16);
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return true;
}

/* The fitted weights leave the lattice's motion as it was: the player fits the cloth's colliders
 * and finds its skin from the weights, and the fit keeps each vertex the cloth's (more than
 * half on the lattice, a lattice bone its heaviest joint), so Walk plays bitwise the same joint
 * matrices with the fitted weights in the scene. */
static void cloth_fit_keeps_motion(void) {
    fit_case a, b;
    ENSURE(fit_case_open(&a) && fit_case_open(&b));
    tl_error err;
    hair_seam_fit_report rep;
    rig_cloth_fit_def def = quick_def(true);
    ENSURE_OK(rig_cloth_fit_skin(b.scene, 0, &def, b.joints, b.weights, b.changed, &rep, &err),
              err);
    const tl_scene_skin* sk = &b.scene->skins[0];
    const uint32_t IC = sk->influence_count;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) /* (as a file with these weights reads) */
        for (uint32_t k = 0; b.changed[v] && k < IC; ++k) {
            ((uint32_t*)sk->influence_joints)[(size_t)v * IC + k] = k < 4 ? b.joints[4 * v + k] : 0;
            ((float*)sk->influence_weights)[(size_t)v * IC + k] = k < 4 ? b.weights[4 * v + k] : 0;
        }
    uint32_t clip = 0;
    ENSURE_OK(tl_scene_find_clip(a.scene, "Walk", &clip, &err), err);
    uint32_t frames = (uint32_t)(a.scene->clips[clip].duration * 60.0f) + 1;
    size_t size = (size_t)frames * sk->joint_count * 16;
    float* ma = malloc(sizeof(float) * size);
    float* mb = malloc(sizeof(float) * size);
    ENSURE(ma && mb && play_clip(a.scene, clip, ma, frames) &&
           play_clip(b.scene, clip, mb, frames));
    size_t differ = 0;
    for (size_t k = 0; k < size; ++k)
        differ += memcmp(&ma[k], &mb[k], sizeof(float)) != 0;
    printf("  mh-suit-skirt Walk: %u vertices refitted; %u frames, %zu of %zu joint matrix entries "
           "differ\n",
           rep.changed, frames, differ, size);
    free(ma), free(mb);
    fit_case_close(&a), fit_case_close(&b);
    ENSURE(rep.changed > 100 && differ == 0);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"cloth_fit_holds_colliders", cloth_fit_holds_colliders},
        {"cloth_fit_keeps_motion", cloth_fit_keeps_motion},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
