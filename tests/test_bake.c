/* Baking (docs/bake.md): three.js (GLTFLoader + AnimationMixer, tests/three_sample.mjs) plays
 * tailor bake's output as tailor's player plays the rigged file, the validator finds nothing
 * new, the loops close, and the default pose is the settled rest. Every shared tailed case is
 * rigged with the command first. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/gltf_json.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char* const tailed_cases[] = {
    "cases/fox-khronos-tailless.glb", "cases/fox-quaternius-tailless.glb",
    "cases/horse-tailless.glb",       "cases/husky-tailless.glb",
    "cases/rat-tailless.glb",         "cases/trex-tailless.glb",
    "cases/knight-tailed.glb",
};
#define CASE_COUNT (sizeof tailed_cases / sizeof tailed_cases[0])

/* A loaded file, its scene and chains. */
typedef struct opened {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[16];
    uint32_t chain_count;
} opened;

static bool open_file(const char* path, opened* o) {
    tl_error err;
    memset(o, 0, sizeof *o);
    bool ok = tl_gltf_load(path, &o->doc, &err) == TL_OK &&
              tl_scene_create(o->doc, &o->scene, &err) == TL_OK &&
              tl_play_chains_find(o->scene, o->chains, 16, &o->chain_count, &err) == TL_OK;
    if (!ok) fprintf(stderr, "  %s: %s\n", path, err.message);
    return ok && o->chain_count > 0 && o->chain_count <= 16;
}

static void close_file(opened* o) {
    tl_scene_destroy(o->scene);
    tl_gltf_destroy(o->doc);
}

/* The nodes of every chain joint (bones, then the end joint), chain after chain. */
static uint32_t chain_nodes(const opened* o, uint32_t* nodes) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < o->chain_count; ++c) {
        const tl_scene_skin* sk = &o->scene->skins[o->chains[c].skin];
        for (uint32_t b = 0; b < o->chains[c].bone_count; ++b)
            nodes[n++] = sk->joints[o->chains[c].bone_joints[b]].node;
        if (o->chains[c].end_joint != TL_NONE) nodes[n++] = sk->joints[o->chains[c].end_joint].node;
    }
    return n;
}

/* Runs tests/three_sample.mjs (clip -1: no animation) and returns its JSON, or NULL. */
static json_t* three_sample(const char* path, int clip, const float* times, uint32_t n) {
    size_t cap = 256 + 24 * (size_t)n;
    char* command = malloc(cap);
    int len = snprintf(command, cap, "node '%s' '%s' %d", tl_test_source("tests/three_sample.mjs"),
                       path, clip);
    for (uint32_t i = 0; i < n; ++i)
        len += snprintf(command + len, cap - (size_t)len, " %.9g", (double)times[i]);
    FILE* p = popen(command, "r");
    free(command);
    if (!p) return NULL;
    json_error_t jerr;
    json_t* out = json_loadf(p, 0, &jerr);
    if (pclose(p) != 0) json_decref(out), out = NULL;
    return out;
}

static float distance_to(const float* a, json_t* matrix) {
    float d = 0;
    for (int k = 0; k < 3; ++k) {
        float x = a[k] - (float)json_number_value(json_array_get(matrix, 12 + (size_t)k));
        d += x * x;
    }
    return sqrtf(d);
}

/* The key times of the clip's rotation channel on `node` (NULL if none); *count keys. */
static float* key_times(const tl_scene* scene, uint32_t clip, uint32_t node, uint32_t* count) {
    const tl_scene_clip* c = &scene->clips[clip];
    for (uint32_t i = 0; i < c->channel_count; ++i)
        if (c->channels[i].node == node && c->channels[i].path == TL_GLTF_PATH_ROTATION) {
            *count = c->channels[i].key_count;
            float* t = malloc(*count * sizeof *t);
            memcpy(t, c->channels[i].times, *count * sizeof *t);
            return t;
        }
    return NULL;
}

/* The rotation keys of that channel: angle between the first and the last, degrees. */
static double seam_angle(const tl_scene* scene, uint32_t clip, uint32_t node) {
    const tl_scene_clip* c = &scene->clips[clip];
    for (uint32_t i = 0; i < c->channel_count; ++i)
        if (c->channels[i].node == node && c->channels[i].path == TL_GLTF_PATH_ROTATION) {
            const float* a = c->channels[i].values;
            const float* b = a + 4 * (c->channels[i].key_count - 1);
            double d = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] +
                            (double)a[3] * b[3]);
            return d >= 1 ? 0 : 2 * acos(d) * 180 / 3.14159265358979323846;
        }
    return INFINITY;
}

/* The player on the rigged file (looping from rest at 0, as tailor play): the chain joints'
 * world positions at played times cycle_start + times[i] (times inside the clip, rising). */
static bool play_at(const opened* o, uint32_t clip, double cycle_start, const float* times,
                    uint32_t n, float* out, uint32_t per_frame) {
    tl_error err;
    tl_player_def def = tl_default_player_def();
    def.loop = true;
    tl_player* p;
    if (tl_player_create(o->scene, o->chains, o->chain_count, &def, &p, &err)) return false;
    tl_pose* pose = tl_pose_create(o->scene);
    double duration = o->scene->clips[clip].duration;
    long cycles = lround(cycle_start / duration);
    uint32_t nodes[16 * (TL_CHAIN_MAX_BONES + 1)];
    chain_nodes(o, nodes);
    /* the cycles before the kept one at 60 fps, then the kept one at the key times */
    for (long m = 0; m < cycles; ++m)
        for (int f = 0; f < (int)ceil(duration * 60); ++f)
            tl_player_advance(p, pose, clip, (float)(f / 60.0));
    for (uint32_t i = 0; i < n; ++i) {
        tl_player_advance(p, pose, clip, times[i]);
        for (uint32_t k = 0; k < per_frame; ++k)
            memcpy(out + 3 * ((size_t)i * per_frame + k), pose->world + 16 * (size_t)nodes[k] + 12,
                   3 * sizeof *out);
    }
    tl_pose_destroy(pose);
    tl_player_destroy(p);
    return true;
}

/* Clips tested per case: every clip of a file with at most 4, else the first, the middle
 * and the last (by index), so every case and a spread of clips is covered in moderate time. */
static uint32_t pick_clips(const tl_scene* scene, uint32_t out[4]) {
    uint32_t n = scene->clip_count;
    if (n <= 4) {
        for (uint32_t i = 0; i < n; ++i)
            out[i] = i;
        return n;
    }
    out[0] = 0, out[1] = n / 2, out[2] = n - 1;
    return 3;
}

static bool same_or_fewer_problems(json_t* before, json_t* after) {
    if (!before || !after) return false;
    const char* code;
    json_t* count;
    json_object_foreach(json_object_get(after, "codes"), code, count) {
        json_int_t was =
            json_integer_value(json_object_get(json_object_get(before, "codes"), code));
        if (json_integer_value(count) > was) {
            fprintf(stderr, "  new %s: %lld (was %lld)\n", code,
                    (long long)json_integer_value(count), (long long)was);
            return false;
        }
    }
    return true;
}

/* One case: rig, bake the picked clips, compare with three.js, validate, check the seams. */
static void bake_case(const char* name, double* worst_out) {
    const char* input = tl_test_shared(name);
    char rigged[512], baked[600], report[600], clip_list[2048] = "";
    const char* base = strrchr(name, '/') + 1;
    snprintf(rigged, sizeof rigged, "%s", tl_test_scratch(base));
    snprintf(baked, sizeof baked, "%s.baked.glb", rigged);
    snprintf(report, sizeof report, "%s.bake.json", rigged);
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null", input, rigged) == 0);
    opened r, b;
    ENSURE(open_file(rigged, &r));
    uint32_t clips[4], n = pick_clips(r.scene, clips);
    for (uint32_t i = 0; i < n; ++i)
        snprintf(clip_list + strlen(clip_list), sizeof clip_list - strlen(clip_list), "%s%s",
                 i ? "," : "", r.scene->clips[clips[i]].name);
    ENSURE(tl_test_cli(NULL, "bake '%s' -o '%s' --clips '%s' --report '%s' > /dev/null", rigged,
                       baked, clip_list, report) == 0);
    json_error_t jerr;
    json_t* rep = json_load_file(report, 0, &jerr);
    ENSURE(rep && json_array_size(json_object_get(rep, "clips")) == n);
    double tolerance = json_number_value(json_object_get(rep, "tolerance"));
    ENSURE(open_file(baked, &b));
    ENSURE(b.chain_count == r.chain_count);
    uint32_t nodes[16 * (TL_CHAIN_MAX_BONES + 1)], per_frame = chain_nodes(&r, nodes);
    float H = r.scene->skins[r.chains[0].skin].height;
    double worst = 0;
    for (uint32_t i = 0; i < n && !tl_test_failed; ++i) {
        json_t* c = json_array_get(json_object_get(rep, "clips"), i);
        ENSURE(
            !strcmp(json_string_value(json_object_get(c, "clip")), r.scene->clips[clips[i]].name));
        double cycle_start = json_number_value(json_object_get(c, "cycle_start"));
        uint32_t keys = 0;
        float* times = key_times(b.scene, clips[i], nodes[0], &keys);
        ENSURE_MSG(times && keys == (uint32_t)json_integer_value(json_object_get(c, "keys")),
                   "%s: no baked channel, or not the reported key count", clip_list);
        /* three.js wraps a looping clip at its end: the last key (the duration) is the seam */
        uint32_t inside = keys - 1;
        float* ours = malloc(sizeof(float) * 3 * inside * per_frame);
        bool played = play_at(&r, clips[i], cycle_start, times, inside, ours, per_frame);
        json_t* three = played ? three_sample(baked, (int)clips[i], times, inside) : NULL;
        for (uint32_t t = 0; three && t < inside; ++t) {
            json_t* world = json_array_get(json_object_get(three, "world"), t);
            for (uint32_t k = 0; k < per_frame; ++k)
                worst = fmax(worst, distance_to(ours + 3 * ((size_t)t * per_frame + k),
                                                json_array_get(world, nodes[k])) /
                                        H);
        }
        for (uint32_t ch = 0; ch < r.chain_count && !tl_test_failed; ++ch) {
            const tl_scene_skin* sk = &r.scene->skins[r.chains[ch].skin];
            for (uint32_t k = 0; k < r.chains[ch].bone_count; ++k) {
                double seam =
                    seam_angle(b.scene, clips[i], sk->joints[r.chains[ch].bone_joints[k]].node);
                if (!(seam <= tolerance + 1e-6)) {
                    tl_test_failf(__FILE__, __LINE__, "%s %s: seam %.3g deg over %.3g", base,
                                  r.scene->clips[clips[i]].name, seam, tolerance);
                    break;
                }
            }
        }
        json_decref(three);
        free(ours);
        free(times);
        ENSURE_MSG(played && three, "%s: the player or three.js failed", base);
    }
    fprintf(stderr, "  %s: %u clip(s) (%s), joints within %.2g H of the player\n", base, n,
            clip_list, worst);
    *worst_out = worst;
    json_t* v_before = tl_test_validate(rigged);
    json_t* v_after = tl_test_validate(baked);
    bool clean = same_or_fewer_problems(v_before, v_after);
    json_decref(v_before);
    json_decref(v_after);
    json_decref(rep);
    close_file(&r);
    close_file(&b);
    ENSURE_MSG(clean, "%s: the validator finds new errors or warnings", base);
    /* the issue asks 1e-3 H; 1e-5 H also tells the kept cycle from the next one, which
     * matches it within 3.9e-5..6.5e-4 H because the cycle closes */
    ENSURE_MSG(worst < 1e-5, "%s: %.3g H", base, worst);
}

static void baked_clips_play_in_three(void) {
    for (size_t i = 0; i < CASE_COUNT && !tl_test_failed; ++i) {
        double worst = 1;
        bake_case(tailed_cases[i], &worst);
    }
}

/* The default pose: three.js with no animation shows every chain joint where the player
 * leaves it after hanging still under the stored pose for TL_BAKE_SETTLE_SECONDS, here at
 * 30 fps (tl_bake_rest steps at 60: the player is render-rate free). The solver still trembles
 * at rest on some cases (fox-quaternius: its tip wanders 0.003 H between 4 and 10 s), so the
 * settle time is the same, not longer. */
static void default_pose_is_settled_rest(void) {
    for (size_t i = 0; i < CASE_COUNT && !tl_test_failed; ++i) {
        const char* base = strrchr(tailed_cases[i], '/') + 1;
        char rigged[512];
        snprintf(rigged, sizeof rigged, "%s.rest.glb", tl_test_scratch(base));
        ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null", tl_test_shared(tailed_cases[i]),
                           rigged) == 0);
        opened o;
        ENSURE(open_file(rigged, &o));
        tl_error err;
        tl_player_def def = tl_default_player_def();
        tl_player* p;
        ENSURE_OK(tl_player_create(o.scene, o.chains, o.chain_count, &def, &p, &err), err);
        tl_pose* pose = tl_pose_create(o.scene);
        for (int f = 0; f < (int)lroundf(TL_BAKE_SETTLE_SECONDS * 30); ++f) {
            tl_pose_set_stored(pose, o.scene);
            tl_player_step_pose(p, pose, 1.0f / 30.0f);
        }
        uint32_t nodes[16 * (TL_CHAIN_MAX_BONES + 1)], n = chain_nodes(&o, nodes);
        float t0 = 0;
        json_t* three = three_sample(rigged, -1, &t0, 1);
        float H = o.scene->skins[o.chains[0].skin].height;
        double worst = 0, moved = 0;
        tl_pose* stored = tl_pose_create(o.scene);
        for (uint32_t k = 0; three && k < n; ++k) {
            json_t* m =
                json_array_get(json_array_get(json_object_get(three, "world"), 0), nodes[k]);
            worst = fmax(worst, distance_to(pose->world + 16 * (size_t)nodes[k] + 12, m) / H);
            /* how far the rest hangs from the bind direction (what the files stored before) */
            tl_pose_set_stored(stored, o.scene);
            for (uint32_t c = 0; c < o.chain_count; ++c)
                for (uint32_t b = 0; b < o.chains[c].bone_count; ++b) {
                    const tl_scene_joint* j =
                        &o.scene->skins[o.chains[c].skin].joints[o.chains[c].bone_joints[b]];
                    stored->locals[j->node] = j->rest;
                }
            tl_pose_update_world(stored, o.scene);
            moved = fmax(moved, distance_to(stored->world + 16 * (size_t)nodes[k] + 12, m) / H);
        }
        fprintf(stderr, "  %s: chain joints within %.2g H of the settled rest (%.2g H from bind)\n",
                base, worst, moved);
        tl_pose_destroy(stored);
        tl_pose_destroy(pose);
        tl_player_destroy(p);
        close_file(&o);
        ENSURE_MSG(three, "three.js failed on %s", rigged);
        json_decref(three);
        ENSURE_MSG(worst < 1e-3, "%s: %.3g H", base, worst);
    }
}

/* The rest settle ends once the chains are still (TL_BAKE_STILL_SPEED for TL_BAKE_STILL_FRAMES
 * frames), before TL_BAKE_SETTLE_SECONDS, and reads rotations within 1e-3 degrees of the whole
 * settle's. Settled from the bind pose (the chain joints' stored rotations put back to it), as
 * `tailor rig` does; knight-tailed takes the longest of the tailed cases, mh-long01's hair
 * keeps a float-level tremble all along (docs/hair.md, session 16 hairrest16). */
static void rest_settle_ends_when_still(void) {
    const char* const files[] = {"cases/knight-tailed.glb", "cases/mh-long01.glb"};
    for (size_t i = 0; i < 2 && !tl_test_failed; ++i) {
        const char* base = strrchr(files[i], '/') + 1;
        char rigged[512];
        snprintf(rigged, sizeof rigged, "%s.still.glb", tl_test_scratch(base));
        ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null", tl_test_shared(files[i]),
                           rigged) == 0);
        tl_gltf* doc = NULL;
        tl_scene* scene = NULL;
        tl_play_chain chains[64];
        uint32_t count = 0, bones = 0, frames = 0;
        tl_error err;
        ENSURE_OK(tl_gltf_load(rigged, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        ENSURE_OK(tl_play_chains_find(scene, chains, 64, &count, &err), err);
        json_t* nodes = json_object_get(tl_gltf_json(doc), "nodes");
        for (uint32_t c = 0; c < count; ++c)
            for (uint32_t b = 0; b < chains[c].bone_count; ++b, ++bones) {
                const tl_scene_joint* j =
                    &scene->skins[chains[c].skin].joints[chains[c].bone_joints[b]];
                const float* q = j->rest.rotation;
                json_object_set_new(
                    json_array_get(nodes, j->node), "rotation",
                    json_pack("[f,f,f,f]", (double)q[0], (double)q[1], (double)q[2], (double)q[3]));
            }
        ENSURE_OK(tl_scene_refresh(scene, &err), err);
        float* early = malloc(4 * sizeof(float) * bones);
        ENSURE(early && count > 0);
        ENSURE_OK(tl_bake_rest_rotations(scene, chains, count, early, &frames, &err), err);
        tl_player_def def = tl_default_player_def();
        tl_player* p;
        ENSURE_OK(tl_player_create(scene, chains, count, &def, &p, &err), err);
        tl_pose* pose = tl_pose_create(scene);
        for (int f = 0; f < (int)lroundf(TL_BAKE_SETTLE_SECONDS * 60); ++f) {
            tl_pose_set_stored(pose, scene);
            tl_player_step_pose(p, pose, 1.0f / 60.0f);
        }
        double worst = 0;
        for (uint32_t c = 0, k = 0; c < count; ++c)
            for (uint32_t b = 0; b < chains[c].bone_count; ++b, ++k) {
                const tl_scene_joint* j =
                    &scene->skins[chains[c].skin].joints[chains[c].bone_joints[b]];
                const float *a = early + 4 * (size_t)k, *w = pose->locals[j->node].rotation;
                double v2 = 0, d = 0; /* the vector part of a⁻¹w: exact near 0 */
                for (int x = 0; x < 3; ++x) {
                    int y = (x + 1) % 3, z = (x + 2) % 3;
                    double v = (double)a[3] * w[x] - (double)w[3] * a[x] -
                               ((double)a[y] * w[z] - (double)a[z] * w[y]);
                    v2 += v * v, d += (double)a[x] * w[x];
                }
                d += (double)a[3] * w[3];
                worst = fmax(worst, 2 * atan2(sqrt(v2), fabs(d)) * 180 / 3.14159265358979);
            }
        fprintf(stderr, "  %s: still after %u of %d frames, %.2g degrees from the whole settle\n",
                base, frames, (int)lroundf(TL_BAKE_SETTLE_SECONDS * 60), worst);
        tl_pose_destroy(pose);
        tl_player_destroy(p);
        free(early);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        ENSURE_MSG(frames < lroundf(TL_BAKE_SETTLE_SECONDS * 60), "%s: %u frames", base, frames);
        ENSURE_MSG(worst < 1e-3, "%s: %.3g degrees", base, worst);
    }
}

/* The chain joints (bones, then the end joint) of the file's first chain in world over 2 s of
 * `clip` at 60 fps; *part_out the first part as the reader decoded it. */
static bool track(const char* path, const char* clip_name,
                  float out[121][TL_CHAIN_MAX_BONES + 1][3], uint32_t* joints, float* H,
                  tl_scene_part* part_out) {
    opened o;
    if (!open_file(path, &o)) return false;
    tl_error err;
    uint32_t clip;
    bool ok = tl_scene_find_clip(o.scene, clip_name, &clip, &err) == TL_OK;
    if (!ok) fprintf(stderr, "  %s\n", err.message);
    tl_player_def def = tl_default_player_def();
    def.loop = true;
    tl_player* p = NULL;
    ok = ok && tl_player_create(o.scene, o.chains, 1, &def, &p, &err) == TL_OK;
    tl_pose* pose = ok ? tl_pose_create(o.scene) : NULL;
    const tl_scene_skin* sk = &o.scene->skins[o.chains[0].skin];
    *joints = o.chains[0].bone_count + 1;
    *H = sk->height;
    *part_out = o.scene->parts[0];
    for (int f = 0; ok && f <= 120; ++f) {
        tl_player_advance(p, pose, clip, fmodf((float)f / 60.0f, o.scene->clips[clip].duration));
        for (uint32_t b = 0; b < *joints; ++b) {
            uint32_t j =
                b + 1 < *joints ? o.chains[0].bone_joints[b] : (uint32_t)o.chains[0].end_joint;
            memcpy(out[f][b], pose->world + 16 * (size_t)sk->joints[j].node + 12,
                   3 * sizeof(float));
            ok = ok && isfinite(out[f][b][0]) && isfinite(out[f][b][1]) && isfinite(out[f][b][2]);
        }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(p);
    close_file(&o);
    return ok;
}

/* Blender (Debian's 3.4, headless, tests/blender_bones.py) imports a rigged case: every new
 * bone points at its child within 1 degree, under the importer's default bone heuristic and
 * under "BLENDER" (the file's own +Y). Exported back with extras kept, the chain plays as
 * before within 1e-4 H over 2 s of Walk (the reader follows the stored names; Walk, 17 frames
 * at 24 fps, is one Blender keeps as it was, where it re-samples Run's 1.158 s to 1.125 s and
 * so its motion); with the default export
 * (extras dropped) it is recognised by its joint names and plays with default settings and a
 * note. */
static void blender_round_trip(void) {
    const char* rigged = tl_test_scratch("fox-blender-in.glb");
    char kept[600], plain[600], command[4096];
    snprintf(kept, sizeof kept, "%s", tl_test_scratch("fox-blender-extras.glb"));
    snprintf(plain, sizeof plain, "%s", tl_test_scratch("fox-blender-default.glb"));
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null",
                       tl_test_shared("cases/fox-khronos-tailless.glb"), rigged) == 0);
    remove(kept), remove(plain);
    snprintf(command, sizeof command,
             "blender -b --factory-startup --python '%s' -- '%s' '%s' '%s' 2>&1",
             tl_test_source("tests/blender_bones.py"), rigged, kept, plain);
    FILE* p = popen(command, "r");
    ENSURE_MSG(p, "cannot run blender");
    char line[65536];
    json_t* result = NULL;
    while (fgets(line, sizeof line, p))
        if (!strncmp(line, "TAILOR_RESULT ", 14)) result = json_loads(line + 14, 0, NULL);
    int status = pclose(p);
    ENSURE_MSG(status == 0 && result, "blender failed (is Debian's blender installed? "
                                      "scripts/setup.sh)");
    const char* heuristic;
    json_t* bones;
    double worst = 0;
    size_t measured = 0;
    json_object_foreach(json_object_get(result, "angles"), heuristic, bones) {
        const char* bone;
        json_t* angle;
        json_object_foreach(bones, bone, angle) {
            if (!json_is_number(angle)) worst = INFINITY;
            worst = fmax(worst, json_number_value(angle));
            ++measured;
        }
    }
    json_decref(result);
    fprintf(stderr, "  %zu bone measures in Blender: at most %.3g deg from the child\n", measured,
            worst);
    ENSURE(measured >= 2 && worst < 1.0);

    static float a[121][TL_CHAIN_MAX_BONES + 1][3], b[121][TL_CHAIN_MAX_BONES + 1][3],
        c[121][TL_CHAIN_MAX_BONES + 1][3];
    uint32_t na, nb, nc;
    float H, Hb, Hc;
    tl_scene_part pa, pb, pc;
    ENSURE(track(rigged, "Walk", a, &na, &H, &pa));
    ENSURE(track(kept, "Walk", b, &nb, &Hb, &pb));
    ENSURE(track(plain, "Walk", c, &nc, &Hc, &pc));
    ENSURE(na == nb && na == nc && !pa.from_names && !pb.from_names && pc.from_names);
    float diff = 0;
    for (int f = 0; f <= 120; ++f)
        for (uint32_t k = 0; k < na; ++k)
            for (int r = 0; r < 3; ++r)
                diff = fmaxf(diff, fabsf(a[f][k][r] - b[f][k][r]));
    fprintf(stderr, "  extras kept: joints within %.2g H of the rigged file\n", diff / H);
    ENSURE(diff / H < 1e-4f);
    char* out = NULL;
    ENSURE(tl_test_cli(&out, "play '%s' --clip Run --seconds 0.05 2>&1", plain) == 0);
    ENSURE_MSG(out && strstr(out, "recognised by its joint names"), "%s", out ? out : "");
    free(out);
}

/* tailor rig --bake: one step, every clip baked (each chain bone keyed in every clip), the
 * bones' nodes at the settled rest like tailor bake's. */
static void rig_bake_bakes_every_clip(void) {
    const char* out = tl_test_scratch("trex-rig-bake.glb");
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --bake > /dev/null",
                       tl_test_shared("cases/trex-tailless.glb"), out) == 0);
    opened o;
    ENSURE(open_file(out, &o));
    uint32_t nodes[16 * (TL_CHAIN_MAX_BONES + 1)];
    chain_nodes(&o, nodes);
    uint32_t keyed = 0, expected = o.scene->clip_count * o.chains[0].bone_count;
    for (uint32_t c = 0; c < o.scene->clip_count; ++c)
        for (uint32_t b = 0; b < o.chains[0].bone_count; ++b) {
            uint32_t n = 0;
            float* t = key_times(o.scene, c, nodes[b], &n);
            keyed += t && n >= 2 && fabsf(t[n - 1] - o.scene->clips[c].duration) < 1e-6f;
            free(t);
        }
    close_file(&o);
    fprintf(stderr, "  %u of %u chain bone channels baked\n", keyed, expected);
    ENSURE(expected > 0 && keyed == expected);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"baked_clips_play_in_three", baked_clips_play_in_three},
        {"default_pose_is_settled_rest", default_pose_is_settled_rest},
        {"rest_settle_ends_when_still", rest_settle_ends_when_still},
        {"blender_round_trip", blender_round_trip},
        {"rig_bake_bakes_every_clip", rig_bake_bakes_every_clip},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
