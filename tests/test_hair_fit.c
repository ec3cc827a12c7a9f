/* The hair's seam weights changed after tailor rig wrote the play data (the seam fit,
 * src/hair/seam_fit.c; docs/hair.md "Session 26 (hairfit26)"): the chains play as before; and
 * the same fit on a cloth's render vertices (docs/cloth.md "Session 27 (skirtfit27)"). */
#include "test.h"

#include <tailor/gltf.h>
#include <tailor/play.h>
#include <tailor/scene.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hair/seam_fit.h"
#include "rig/internal.h"
#include "play/chain_colliders.h"

/* The chain of each joint of skin 0 (-1: none). */
static void joint_chains(const tl_scene_skin* sk, const tl_play_chain* chains, uint32_t n,
                         int32_t* chain_of) {
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        chain_of[j] = -1;
    for (uint32_t c = 0; c < n; ++c)
        for (uint32_t b = 0; chains[c].skin == 0 && b < chains[c].bone_count; ++b)
            chain_of[chains[c].bone_joints[b]] = (int32_t)c;
}

/* Blends every vertex at a hard seam between two locks (an edge to another lock's vertex with a
 * weight jump >= 0.5) 0.4 toward the other side's heaviest joint, in its lightest slot (sum 1
 * kept), and every third one 0.6 toward the head (its lock's attachment): what a seam fit may do
 * to the band's first ring (a blend between two locks alone leaves play_skin_locks' answer as it
 * was: such a vertex counts for its nearest lock). Returns how many changed. */
static uint32_t seam_blend(const tl_scene_skin* sk, const tl_play_chain* chains, uint32_t n,
                           float* weights, uint32_t* joints) {
    const uint32_t IC = sk->influence_count;
    int32_t* chain_of = malloc(sizeof *chain_of * sk->joint_count);
    uint32_t* toward = malloc(sizeof *toward * sk->vertex_count);
    uint32_t changed = 0;
    joint_chains(sk, chains, n, chain_of);
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        toward[v] = UINT32_MAX;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t u = sk->triangles[3 * t + e], v = sk->triangles[3 * t + (e + 1) % 3];
            uint32_t ju = tl_scene_skin_dominant_joint(sk, u),
                     jv = tl_scene_skin_dominant_joint(sk, v);
            if (chain_of[ju] < 0 || chain_of[jv] < 0 || chain_of[ju] == chain_of[jv]) continue;
            if (hair_seam_weight_jump(sk, u, v) < 0.5f) continue;
            toward[u] = u % 3 ? jv : chains[chain_of[ju]].attach_joint;
            toward[v] = v % 3 ? ju : chains[chain_of[jv]].attach_joint;
        }
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (toward[v] == UINT32_MAX) continue;
        float* w = weights + (size_t)v * IC;
        uint32_t* j = joints + (size_t)v * IC;
        uint32_t light = 0;
        for (uint32_t k = 0; k < IC; ++k)
            if (w[k] < w[light]) light = k;
        for (uint32_t k = 0; k < IC; ++k)
            w[k] *= v % 3 ? 0.6f : 0.4f;
        w[light] = 0, j[light] = toward[v];
        float sum = 0;
        for (uint32_t k = 0; k < IC; ++k)
            sum += w[k];
        w[light] = 1 - sum;
        ++changed;
    }
    free(chain_of), free(toward);
    return changed;
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
    for (uint32_t f = 0; f < frames; ++f) {
        tl_player_advance(player, pose, clip, (float)f / 60.0f);
        tl_pose_joint_matrices(pose, scene, 0, out + (size_t)f * joints * 16);
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return true;
}

static uint32_t clip_named(const tl_scene* scene, const char* name) {
    for (uint32_t c = 0; c < scene->clip_count; ++c)
        if (scene->clips[c].name && !strcmp(scene->clips[c].name, name)) return c;
    return UINT32_MAX;
}

/* bob02 rigged, the seam band's weights blended after (sum 1 kept): Walk plays bitwise the same
 * joint matrices, though the weights move the locks the player would find from the skin. */
static void seam_weights_keep_motion(void) {
    const char* path = tl_test_rigged_case("mh-bob02");
    ENSURE(path);
    tl_gltf *doc_a = NULL, *doc_b = NULL;
    tl_scene *a = NULL, *b = NULL;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc_a, &err), err);
    ENSURE_OK(tl_gltf_load(path, &doc_b, &err), err);
    ENSURE_OK(tl_scene_create(doc_a, &a, &err), err);
    ENSURE_OK(tl_scene_create(doc_b, &b, &err), err);
    tl_play_chain chains[64];
    uint32_t n = 0;
    ENSURE_OK(tl_play_chains_find(a, chains, 64, &n, &err), err);
    ENSURE(n > 1 && n <= 64);
    const tl_scene_skin* sk = &b->skins[0];
    /* (the scene's own arrays, changed as a file with these weights would read) */
    uint32_t changed =
        seam_blend(sk, chains, n, (float*)sk->influence_weights, (uint32_t*)sk->influence_joints);
    ENSURE(changed > 100);
    /* the change is one the skin's locks see: without the stored play data it moves the chains */
    int32_t *lock_a = malloc(sizeof(int32_t) * sk->vertex_count),
            *lock_b = malloc(sizeof(int32_t) * sk->vertex_count);
    uint32_t *joint_a = malloc(sizeof(uint32_t) * sk->vertex_count),
             *joint_b = malloc(sizeof(uint32_t) * sk->vertex_count);
    float *near_a = malloc(sizeof(float) * sk->vertex_count),
          *near_b = malloc(sizeof(float) * sk->vertex_count);
    ENSURE(play_skin_locks(a, 0, chains, n, lock_a, joint_a, near_a) &&
           play_skin_locks(b, 0, chains, n, lock_b, joint_b, near_b));
    uint32_t moved = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        moved += lock_a[v] != lock_b[v] || joint_a[v] != joint_b[v] || near_a[v] != near_b[v];
    free(lock_a), free(lock_b), free(joint_a), free(joint_b), free(near_a), free(near_b);
    ENSURE(moved > 0);
    uint32_t clip = clip_named(a, "Walk");
    ENSURE(clip != UINT32_MAX);
    uint32_t frames = (uint32_t)(a->clips[clip].duration * 60.0f) + 1;
    size_t size = (size_t)frames * sk->joint_count * 16;
    float* ma = malloc(sizeof(float) * size);
    float* mb = malloc(sizeof(float) * size);
    ENSURE(ma && mb && play_clip(a, clip, ma, frames) && play_clip(b, clip, mb, frames));
    size_t differ = 0;
    float most = 0;
    for (size_t k = 0; k < size; ++k)
        if (memcmp(&ma[k], &mb[k], sizeof(float)) != 0)
            ++differ, most = fmaxf(most, fabsf(ma[k] - mb[k]));
    printf("  bob02 Walk: %u seam vertices blended, %u locks moved; %u frames, %zu of %zu joint "
           "matrix entries differ (by up to %.3g)\n",
           changed, moved, frames, differ, size, (double)most);
    free(ma), free(mb);
    tl_scene_destroy(a), tl_scene_destroy(b);
    tl_gltf_destroy(doc_a), tl_gltf_destroy(doc_b);
    ENSURE(differ == 0);
}

/* Every vertex the fit changed: weights >= 0 on at most 4 joints of the skin, summing to 1. */
static bool weights_valid(const tl_scene_skin* sk, const uint32_t* joints, const float* weights,
                          const uint8_t* changed) {
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (!changed[v]) continue;
        float sum = 0;
        for (int k = 0; k < 4; ++k) {
            if (!(weights[4 * v + k] >= 0) || joints[4 * v + k] >= sk->joint_count) return false;
            sum += weights[4 * v + k];
        }
        if (fabsf(sum - 1) > 1e-5f) return false;
    }
    return true;
}

/* A rigged case loaded (bob02, mh-suit-skirt), with the fit's output arrays for its skin 0. */
typedef struct fit_case {
    tl_gltf* doc;
    tl_scene* scene;
    uint32_t* joints; /* vertex_count x 4 */
    float* weights;   /* vertex_count x 4 */
    uint8_t* changed; /* vertex_count */
} fit_case;

static bool fit_case_open(fit_case* f, const char* name) {
    memset(f, 0, sizeof *f);
    const char* path = tl_test_rigged_case(name);
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

/* The fit on rigged bob02, Walk: it changes the seam band, and in the poses it was fitted to no
 * vertex lies deeper in a body collider than its input weights put it (the half-spaces kept
 * across the sweeps); without them the same fit sinks vertices (what session 24 measured). */
static void seam_fit_holds_colliders(void) {
    fit_case f;
    ENSURE(fit_case_open(&f, "mh-bob02"));
    const tl_scene* scene = f.scene;
    const tl_scene_skin* sk = &scene->skins[0];
    uint32_t* joints = f.joints;
    float* weights = f.weights;
    uint8_t* changed = f.changed;
    tl_error err;
    hair_seam_fit_report rep[2];
    for (int held = 1; held >= 0; --held) {
        hair_seam_fit_def def = hair_default_seam_fit_def();
        def.clips = "Walk";
        def.colliders = held;
        ENSURE_OK(hair_seam_fit(scene, 0, &def, joints, weights, changed, &rep[held], &err), err);
        printf("  bob02 Walk, half-spaces %s: %u seams, %u free, %u vertices changed, %u poses, "
               "%u planes; deepest in a collider %.4f H (input %.4f), beyond the input %.5f H\n",
               held ? "on" : "off", rep[held].seams, rep[held].free_vertices, rep[held].changed,
               rep[held].poses, rep[held].planes, (double)rep[held].deepest,
               (double)rep[held].deepest_input, (double)rep[held].excess);
        ENSURE(weights_valid(sk, joints, weights, changed));
    }
    fit_case_close(&f);
    ENSURE(rep[1].changed > 100 && rep[1].poses == 48 + 36 + 30);
    ENSURE(rep[0].excess > 1e-4f);  /* (the check below can fail: 3.1e-4 H when written) */
    ENSURE(rep[1].excess <= 2e-5f); /* (the fit's own tolerance is 1e-5 H) */
}

/* With no clip to fit to, nothing changes (the rig writes the weights it had). */
static void seam_fit_needs_clips(void) {
    fit_case f;
    ENSURE(fit_case_open(&f, "mh-bob02"));
    hair_seam_fit_def def = hair_default_seam_fit_def();
    def.clips = "NoSuchClip";
    hair_seam_fit_report rep;
    tl_error err;
    tl_result r = hair_seam_fit(f.scene, 0, &def, f.joints, f.weights, f.changed, &rep, &err);
    fit_case_close(&f);
    ENSURE(r == TL_OK && rep.changed == 0 && rep.poses == 0);
}

/* The cloth fit (tailor rig --cloth-fit, src/rig/cloth_fit.c; docs/cloth.md "Session 27
 * (skirtfit27)"): its def for the tests: Walk, one play of 24 poses, 10 sweeps (the defaults'
 * figures are in docs/cloth.md). */
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
static bool cloth_weights_valid(const tl_scene* scene, const uint32_t* joints, const float* weights,
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
    ENSURE(fit_case_open(&f, "mh-suit-skirt"));
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
        ENSURE(cloth_weights_valid(f.scene, f.joints, f.weights, f.changed));
    }
    fit_case_close(&f);
    ENSURE(rep[1].changed > 100 && rep[1].poses == 24);
    ENSURE(rep[0].excess > 1e-4f);  /* (the check below can fail) */
    ENSURE(rep[1].excess <= 2e-5f); /* (the fit's own tolerance is 1e-5 H) */
}

/* The fitted weights leave the lattice's motion as it was: the player fits the cloth's colliders
 * and finds its skin from the weights, and the fit keeps each vertex the cloth's (more than
 * half on the lattice, a lattice bone its heaviest joint), so Walk plays bitwise the same joint
 * matrices with the fitted weights in the scene. */
static void cloth_fit_keeps_motion(void) {
    fit_case a, b;
    ENSURE(fit_case_open(&a, "mh-suit-skirt") && fit_case_open(&b, "mh-suit-skirt"));
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

/* Two files with the same bytes. */
static bool same_bytes(const char* a, const char* b) {
    size_t na = 0, nb = 0;
    unsigned char *x = tl_test_read_file(a, &na), *y = tl_test_read_file(b, &nb);
    bool same = x && y && na == nb && !memcmp(x, y, na);
    free(x), free(y);
    return same;
}

/* The report's hair_fit[0] (a new reference), or NULL. */
static json_t* report_fit(const char* path) {
    json_t* r = json_load_file(path, 0, NULL);
    json_t* o = json_incref(json_array_get(json_object_get(r, "hair_fit"), 0));
    json_decref(r);
    return o;
}

/* `tailor rig --hair-fit` on a file tailor rigged without it fits it as a fresh rig with the fit
 * would (the same bytes) and says so; on a file it fitted before, it changes nothing and says
 * that (the record it wrote, skins[0].extras.tailor.hair_fit). */
static void hair_fit_on_rigged_file(void) {
    const char* rigged = tl_test_rigged_case("mh-bob02");
    ENSURE(rigged);
    char fresh[512], refit[512], again[512], rep[512], rep2[512];
    snprintf(fresh, sizeof fresh, "%s", tl_test_scratch("bob02.fit-fresh.glb"));
    snprintf(refit, sizeof refit, "%s", tl_test_scratch("bob02.fit-rerig.glb"));
    snprintf(again, sizeof again, "%s", tl_test_scratch("bob02.fit-again.glb"));
    snprintf(rep, sizeof rep, "%s", tl_test_scratch("bob02.fit-rerig.json"));
    snprintf(rep2, sizeof rep2, "%s", tl_test_scratch("bob02.fit-again.json"));
    const char* fit = "--hair-fit --hair-fit-clips Walk --force";
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' %s >/dev/null", tl_test_shared("cases/mh-bob02.glb"),
                       fresh, fit) == 0);
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' %s --report '%s' >/dev/null", rigged, refit, fit,
                       rep) == 0);
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' %s --report '%s' >/dev/null", refit, again, fit,
                       rep2) == 0);
    ENSURE(!same_bytes(rigged, refit)); /* (the fit changed the rigged file's weights) */
    ENSURE(same_bytes(fresh, refit));
    ENSURE(same_bytes(refit, again));
    json_t *now = report_fit(rep), *before = report_fit(rep2);
    ENSURE(now && before);
    printf("  bob02 rigged, then --hair-fit (Walk): %d vertices re-weighted over %d poses; "
           "again: %s\n",
           (int)json_integer_value(json_object_get(now, "changed")),
           (int)json_integer_value(json_object_get(now, "poses")),
           json_string_value(json_object_get(before, "fitted")));
    ENSURE(!strcmp(json_string_value(json_object_get(now, "fitted")), "now"));
    ENSURE(json_integer_value(json_object_get(now, "changed")) > 100);
    ENSURE(!strcmp(json_string_value(json_object_get(before, "fitted")), "before"));
    json_decref(now), json_decref(before);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"seam_weights_keep_motion", seam_weights_keep_motion},
        {"seam_fit_holds_colliders", seam_fit_holds_colliders},
        {"seam_fit_needs_clips", seam_fit_needs_clips},
        {"hair_fit_on_rigged_file", hair_fit_on_rigged_file},
        {"cloth_fit_holds_colliders", cloth_fit_holds_colliders},
        {"cloth_fit_keeps_motion", cloth_fit_keeps_motion},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
