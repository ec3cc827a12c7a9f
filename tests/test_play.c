/* Playback with chains: the player drives the solver from real clips. The chains here are an
 * artist's own tail bones (Khronos fox: b_Tail01..03 under b_Hip_01), so nothing depends on
 * tailor rig. */
#include "test.h"

#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chain;
    uint32_t clip;
} fixture;

static bool fox_open(fixture* f, const char* clip) {
    tl_error err;
    memset(f, 0, sizeof *f);
    if (tl_gltf_load(tl_test_shared("assets/khronos-fox/Fox.glb"), &f->doc, &err) ||
        tl_scene_create(f->doc, &f->scene, &err) ||
        tl_scene_find_clip(f->scene, clip, &f->clip, &err)) {
        fprintf(stderr, "  %s\n", err.message);
        return false;
    }
    const char* names[] = {"b_Tail01_012", "b_Tail02_013", "b_Tail03_014"};
    f->chain.skin = 0;
    f->chain.end_joint = TL_NONE;
    f->chain.settings = tl_default_chain_def();
    for (int i = 0; i < 3; ++i) {
        int32_t j = tl_scene_find_joint(f->scene, 0, names[i]);
        if (j == TL_NONE) return false;
        f->chain.bone_joints[f->chain.bone_count++] = (uint32_t)j;
    }
    f->chain.attach_joint = (uint32_t)f->scene->skins[0].joints[f->chain.bone_joints[0]].parent;
    return true;
}

static void fox_close(fixture* f) {
    tl_scene_destroy(f->scene);
    tl_gltf_destroy(f->doc);
}

/* Joint world positions of the chain (heads of each bone, then the solver's last tip). */
static void chain_points(const fixture* f, const tl_player* p, const tl_pose* pose,
                         float out[][3]) {
    const tl_scene_skin* sk = &f->scene->skins[0];
    for (uint32_t b = 0; b < f->chain.bone_count; ++b)
        memcpy(out[b], pose->world + 16 * (size_t)sk->joints[f->chain.bone_joints[b]].node + 12,
               sizeof out[b]);
    memcpy(out[f->chain.bone_count],
           tl_chain_tip_positions(tl_player_chain(p, 0)) + 3 * (f->chain.bone_count - 1),
           sizeof out[0]);
}

static float distance3(const float a[3], const float b[3]) {
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                 (a[2] - b[2]) * (a[2] - b[2]));
}

/* The bones the player writes into the pose keep their rest lengths: the pose's joint
 * positions are consistent with the solver's particles. */
static void links_keep_length(void) {
    fixture f;
    ENSURE(fox_open(&f, "Run"));
    tl_player_def def = tl_default_player_def();
    tl_player* p;
    tl_error err;
    ENSURE_OK(tl_player_create(f.scene, &f.chain, 1, &def, &p, &err), err);
    tl_pose* pose = tl_pose_create(f.scene);
    float rest[4][3], now[4][3];
    tl_player_start(p, f.clip, 0);
    tl_player_advance(p, pose, f.clip, 0);
    chain_points(&f, p, pose, rest);
    float worst = 0, moved = 0;
    for (int frame = 1; frame <= 120; ++frame) {
        tl_player_advance(p, pose, f.clip,
                          fmodf((float)frame / 60.0f, f.scene->clips[f.clip].duration));
        chain_points(&f, p, pose, now);
        for (int b = 0; b < 3; ++b) {
            float l0 = distance3(rest[b], rest[b + 1]), l = distance3(now[b], now[b + 1]);
            ENSURE(isfinite(l));
            if (fabsf(l - l0) / l0 > worst) worst = fabsf(l - l0) / l0;
        }
        float tip_from_root = distance3(now[3], now[0]);
        if (fabsf(tip_from_root - distance3(rest[3], rest[0])) > moved)
            moved = fabsf(tip_from_root - distance3(rest[3], rest[0]));
    }
    fprintf(stderr, "  largest link length error %.2g of the link; the chain bent by %.3g units\n",
            worst, moved);
    ENSURE(worst < 1e-4f);
    ENSURE(moved > 0); /* it is not a rigid plank: the tail bends */
    tl_pose_destroy(pose);
    tl_player_destroy(p);
    fox_close(&f);
}

/* The fox's Run played with frame_step 1/30, 1/60 and 1/144 s: the largest distance of the
 * tip between two of them at common times (every 1/6 s for 1 s), over the chain's length. */
static void tips_apart(bool sample_chains, float* out) {
    fixture f;
    ENSURE(fox_open(&f, "Run"));
    const double rates[] = {30, 60, 144};
    float tips[3][7][3];
    float length = 0;
    for (int r = 0; r < 3; ++r) {
        tl_player_def def = tl_default_player_def();
        def.frame_step = (float)(1.0 / rates[r]);
        def.sample_chains = sample_chains;
        def.loop = true;
        tl_player* p;
        tl_error err;
        ENSURE_OK(tl_player_create(f.scene, &f.chain, 1, &def, &p, &err), err);
        tl_pose* pose = tl_pose_create(f.scene);
        tl_player_start(p, f.clip, 0);
        float pts[4][3];
        int sample = 0;
        /* common times: every 1/6 s (a multiple of each frame length) */
        for (int frame = 0; frame <= (int)rates[r]; ++frame) {
            double t = frame / rates[r];
            tl_player_advance(p, pose, f.clip, fmodf((float)t, f.scene->clips[f.clip].duration));
            if (fabs(t * 6 - round(t * 6)) < 1e-9) {
                chain_points(&f, p, pose, pts);
                memcpy(tips[r][sample++], pts[3], sizeof pts[3]);
                if (r == 0 && length == 0)
                    length = distance3(pts[0], pts[1]) + distance3(pts[1], pts[2]) +
                             distance3(pts[2], pts[3]);
            }
        }
        ENSURE(sample == 7);
        tl_pose_destroy(pose);
        tl_player_destroy(p);
    }
    float worst = 0;
    for (int s = 0; s < 7; ++s)
        for (int r = 1; r < 3; ++r)
            worst = fmaxf(worst, distance3(tips[0][s], tips[r][s]) / length);
    fox_close(&f);
    *out = worst;
}

/* Fed only render-frame poses (two a frame: a host without a sampler), the same clip at 30,
 * 60 and 144 fps gives the same tip at common times to 1% of the chain's length, since the
 * solver runs at its own fixed step. */
static void frame_rate_independent(void) {
    float worst = 1;
    tips_apart(false, &worst);
    fprintf(stderr,
            "  two poses a frame: tips at 30/60/144 fps differ by at most %.3g%% of the "
            "chain length\n",
            100 * worst);
    ENSURE(worst <= 0.01f);
}

/* With the pose sampler (the player's default) the chains see the clip at their own internal
 * steps however far apart the player's frames are: 30, 60 and 144 fps frames give the same
 * tips to float precision (measure.md "Stress": <= 0.1%), where two poses a frame do not. */
static void sampler_frees_frame_step(void) {
    float sampled = 1, two_poses = 0;
    tips_apart(true, &sampled);
    tips_apart(false, &two_poses);
    fprintf(stderr,
            "  sampled: tips at 30/60/144 fps differ by %.3g of the chain (two poses a "
            "frame: %.3g)\n",
            sampled, two_poses);
    ENSURE(sampled <= 1e-6f);
    ENSURE(two_poses > 1e-4f); /* the comparison sees the render-pose difference */
}

/* A looping clip's wrap is a cut. Quaternius' Gallop (0.54 s) ends one key short of its
 * start, so its pose jumps at every wrap; the player steps to the wrap with the last pose and
 * starts the chains again from the first, so the jump does not depend on the frame the wrap
 * falls in. Fed only render-frame poses at 240 and 480 fps (the same poses at every internal
 * step), the tips agree through eight wraps; when the wrap was left inside a frame they
 * differed by 2.1% of the chain. The same with the player's pose sampler. */
static void loop_wrap_is_a_cut(void) {
    tl_error err;
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE_OK(tl_gltf_load(tl_test_shared("assets/quaternius-fox/Fox.glb"), &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(scene, "Gallop", &clip, &err), err);
    tl_play_chain chain = {.skin = 0, .end_joint = TL_NONE};
    chain.settings = tl_default_chain_def();
    for (int i = 0; i < 8; ++i) {
        char name[16];
        snprintf(name, sizeof name, "Tail%d", i + 1);
        int32_t j = tl_scene_find_joint(scene, 0, name);
        ENSURE(j != TL_NONE);
        chain.bone_joints[chain.bone_count++] = (uint32_t)j;
    }
    chain.attach_joint = (uint32_t)scene->skins[0].joints[chain.bone_joints[0]].parent;
    /* render-frame poses only, then the player's pose sampler: the wrap is a cut in both */
    for (int sampled = 0; sampled < 2; ++sampled) {
        const double rates[2] = {240, 480}, duration = scene->clips[clip].duration;
        tl_player* players[2];
        tl_pose* poses[2];
        for (int r = 0; r < 2; ++r) {
            tl_player_def def = tl_default_player_def();
            def.frame_step = (float)(1.0 / rates[r]);
            def.sample_chains = sampled;
            def.loop = true;
            ENSURE_OK(tl_player_create(scene, &chain, 1, &def, &players[r], &err), err);
            poses[r] = tl_pose_create(scene);
            tl_player_start(players[r], clip, 0);
        }
        float worst = 0, length = 0;
        const float* lengths = tl_chain_link_lengths(tl_player_chain(players[0], 0));
        for (int i = 0; i < 8; ++i)
            length += lengths[i];
        for (int frame = 1; frame <= 480 * 5; ++frame) {
            for (int r = 0; r < 2; ++r)
                if (frame % (int)(480 / rates[r]) == 0)
                    tl_player_advance(players[r], poses[r], clip,
                                      (float)fmod(frame / 480.0, duration));
            if (frame % 2) continue;
            const float* a = tl_chain_tip_positions(tl_player_chain(players[0], 0));
            const float* b = tl_chain_tip_positions(tl_player_chain(players[1], 0));
            for (int i = 0; i < 8; ++i)
                worst = fmaxf(worst, distance3(a + 3 * i, b + 3 * i) / length);
        }
        tl_chain_stats stats = tl_chain_get_stats(tl_player_chain(players[1], 0));
        fprintf(stderr,
                "  %s: 240 vs 480 fps through %u wraps: tips differ by at most %.2g of the chain\n",
                sampled ? "sampled" : "two poses a frame", stats.cuts, worst);
        ENSURE_MSG(stats.cuts >= 8 && stats.teleports == 0, "cuts %u teleports %u", stats.cuts,
                   stats.teleports);
        ENSURE(worst < 1e-4f);
        for (int r = 0; r < 2; ++r) {
            tl_pose_destroy(poses[r]);
            tl_player_destroy(players[r]);
        }
    }
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* `tailor play` evaluates the clip at the solver's own step whatever the render rate: the
 * tips at 30, 60 and 144 fps agree at common times to float precision. */
static void play_is_render_rate_free(void) {
    double tips[3][3];
    const char* rates[] = {"30", "60", "144"};
    for (int r = 0; r < 3; ++r) {
        char* out = NULL;
        ENSURE(tl_test_cli(&out,
                           "play '%s' --clip Run --fps %s --seconds 1 --chain "
                           "b_Tail01_012,b_Tail02_013,b_Tail03_014 --json",
                           tl_test_shared("assets/khronos-fox/Fox.glb"), rates[r]) == 0);
        json_t* doc = tl_test_play_json(out);
        free(out);
        ENSURE(doc);
        json_t* frames = json_object_get(doc, "frames");
        json_t* last = json_array_get(
            json_object_get(json_array_get(frames, json_array_size(frames) - 1), "chains"), 0);
        ENSURE_NEAR(json_number_value(
                        json_object_get(json_array_get(frames, json_array_size(frames) - 1), "t")),
                    1.0, 1e-6);
        for (int c = 0; c < 3; ++c)
            tips[r][c] = json_number_value(json_array_get(json_array_get(last, 3), c));
        json_decref(doc);
    }
    for (int r = 1; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            ENSURE_NEAR(tips[r][c], tips[0][c], 1e-3); /* fox units: cm */
}

/* `tailor play --json` prints finite joints for every frame, and the tip moves relative to
 * the hips during a run (the chain is simulated, not frozen). */
/* `tailor play` on the Khronos fox's own tail with the given options, --json parsed; NULL
 * (and a message) when it fails. */
static json_t* fox_play_json(const char* options) {
    char* out = NULL;
    int code = tl_test_cli(&out,
                           "play '%s' --clip Run %s --chain b_Tail01_012,b_Tail02_013,b_Tail03_014 "
                           "--json",
                           tl_test_shared("assets/khronos-fox/Fox.glb"), options);
    json_t* doc = code == 0 ? tl_test_play_json(out) : NULL;
    if (!doc) fprintf(stderr, "  tailor play %s: exit %d\n", options, code);
    free(out);
    return doc;
}

static void play_command(void) {
    char* out = NULL;
    json_t* doc = fox_play_json("--fps 30");
    ENSURE(doc);
    json_t* frames = json_object_get(doc, "frames");
    ENSURE(json_array_size(frames) == (size_t)floor(1.1583333 * 30) + 1);
    size_t i;
    json_t* frame;
    json_array_foreach(frames, i, frame) {
        json_t* joints = json_array_get(json_object_get(frame, "chains"), 0);
        ENSURE(json_array_size(joints) == 4);
        for (size_t k = 0; k < 4; ++k)
            for (size_t c = 0; c < 3; ++c)
                ENSURE(isfinite(json_number_value(json_array_get(json_array_get(joints, k), c))));
    }
    json_decref(doc);
    ENSURE(tl_test_cli(&out, "play '%s' --clip Run 2>&1",
                       tl_test_shared("assets/khronos-fox/Fox.glb")) == 1);
    ENSURE(strstr(out, "no chains"));
    free(out);
}

/* `tailor play --seconds` past the clip's end plays the clip again (the Khronos fox's Run is
 * 139 frames at 120 fps): the chain root at frame f + 139 is where it was at frame f, and the
 * body keeps moving instead of freezing on the last key. */
static void play_loops_past_the_end(void) {
    json_t* doc = fox_play_json("--fps 120 --seconds 3");
    ENSURE(doc);
    json_t* frames = json_object_get(doc, "frames");
    ENSURE(json_array_size(frames) == 361);
    float root[3][3];
    const size_t at[3] = {10, 149, 300};
    for (int k = 0; k < 3; ++k) {
        json_t* joint = json_array_get(
            json_array_get(json_object_get(json_array_get(frames, at[k]), "chains"), 0), 0);
        for (int c = 0; c < 3; ++c)
            root[k][c] = (float)json_number_value(json_array_get(joint, (size_t)c));
    }
    json_decref(doc);
    fprintf(stderr, "  root at frames 10 / 149: %.2g apart; at 10 / 300: %.3g apart\n",
            distance3(root[0], root[1]), distance3(root[0], root[2]));
    ENSURE(distance3(root[0], root[1]) < 1e-3f);
    ENSURE(distance3(root[0], root[2]) > 0.1f);
}

/* A file written by tailor rig before the schema had an owner (tests/data/rig/README.md)
 * plays bit for bit as it did then: every clip at 60 fps for 3 s, looping, the chain bones'
 * local rotations, world matrices and the solver's tips hashed per frame. The golden hashes
 * were printed by this test at commit 80be324 (the reader then parsed the JSON in
 * src/play/player.c). */
static uint64_t fnv(uint64_t h, const void* data, size_t size) {
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static bool play_hash_scene(const tl_scene* scene, uint64_t out[3]) {
    tl_error err;
    tl_player* p = NULL;
    tl_play_chain chains[4];
    uint32_t count = 0;
    bool ok = tl_play_chains_find(scene, chains, 4, &count, &err) == TL_OK;
    ok = ok && count == 1 && scene->clip_count == 3;
    tl_pose* pose = ok ? tl_pose_create(scene) : NULL;
    for (uint32_t clip = 0; ok && clip < 3; ++clip) {
        tl_player_def def = tl_default_player_def();
        def.loop = true;
        ok = tl_player_create(scene, chains, count, &def, &p, &err) == TL_OK;
        uint64_t h = 1469598103934665603ull;
        const tl_scene_skin* sk = &scene->skins[chains[0].skin];
        float duration = scene->clips[clip].duration;
        for (int f = 0; ok && f <= 180; ++f) {
            tl_player_advance(p, pose, clip, fmodf((float)f / 60.0f, duration));
            for (uint32_t b = 0; b < chains[0].bone_count; ++b) {
                uint32_t node = sk->joints[chains[0].bone_joints[b]].node;
                h = fnv(h, pose->locals[node].rotation, sizeof pose->locals[node].rotation);
                h = fnv(h, pose->world + 16 * (size_t)node, 16 * sizeof(float));
            }
            h = fnv(h, tl_chain_tip_positions(tl_player_chain(p, 0)),
                    3 * chains[0].bone_count * sizeof(float));
        }
        out[clip] = h;
        tl_player_destroy(p);
        p = NULL;
    }
    tl_pose_destroy(pose);
    return ok;
}

static bool play_hash(const char* path, uint64_t out[3]) {
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    bool ok =
        tl_gltf_load(path, &doc, &err) == TL_OK && tl_scene_create(doc, &scene, &err) == TL_OK;
    if (!ok) fprintf(stderr, "  %s\n", err.message);
    ok = ok && play_hash_scene(scene, out);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return ok;
}

/* (updated in issue #11's solver change: rest targets carried by the attachment, the muscle's
 * lift, the bending damped; the same file, different motion by design. Updated again when the
 * player handed the chains its pose sampler: after a loop's wrap the internal steps fall between
 * the player's 1/120 s samples and now see the clip there, not a curve through them; the tips
 * moved by at most 2.1e-6 H, 3 s of each clip at 60 fps. Updated again when the player composed
 * the attachment and colliders in double from the pose's locals (docs/stress.md "Session 20"):
 * `tailor play FILE --clip C --seconds 3 --json` before and after, the joints moved by at most
 * 5.5e-7 (Survey, Walk) and 1.5e-6 (Run) of the chain's length) */
static const uint64_t rigged_v1_golden[3] = {0x6c72f7dcfcb271d6ull, 0xd41552c92c52bfc9ull,
                                             0x7a05c00900548ab7ull};

static void rigged_v1_plays_as_before(void) {
    const uint64_t* golden = rigged_v1_golden;
    uint64_t h[3];
    ENSURE(play_hash(tl_test_source("tests/data/rig/fox-khronos-rigged-v1.glb"), h));
    fprintf(stderr, "  hashes %016llx %016llx %016llx\n", (unsigned long long)h[0],
            (unsigned long long)h[1], (unsigned long long)h[2]);
    for (int c = 0; c < 3; ++c)
        ENSURE_MSG(h[c] == golden[c], "clip %d: %016llx, was %016llx", c, (unsigned long long)h[c],
                   (unsigned long long)golden[c]);
}

/* Renumbers every node of a document (node i becomes node N-1-i), rewriting every reference
 * to a node (children, skins' joints and skeleton, scenes, animation targets) as an exporter
 * that rebuilds the node list does, and leaving extras.tailor's indices stale. */
static bool renumber_nodes(tl_gltf* doc, tl_error* err) {
    json_t* nodes = json_object_get(doc->json, "nodes");
    json_int_t n = (json_int_t)json_array_size(nodes);
#define REMAP(v) json_integer(n - 1 - json_integer_value(v))
    json_t* moved = json_array();
    for (json_int_t i = n - 1; i >= 0; --i) {
        json_t* node = json_array_get(nodes, (size_t)i);
        json_t* children = json_object_get(node, "children");
        for (size_t c = 0; c < json_array_size(children); ++c)
            json_array_set_new(children, c, REMAP(json_array_get(children, c)));
        json_array_append(moved, node);
    }
    json_object_set_new(doc->json, "nodes", moved);
    size_t i;
    json_t* v;
    json_array_foreach(json_object_get(doc->json, "skins"), i, v) {
        json_t* joints = json_object_get(v, "joints");
        for (size_t j = 0; j < json_array_size(joints); ++j)
            json_array_set_new(joints, j, REMAP(json_array_get(joints, j)));
        if (json_object_get(v, "skeleton"))
            json_object_set_new(v, "skeleton", REMAP(json_object_get(v, "skeleton")));
    }
    json_array_foreach(json_object_get(doc->json, "scenes"), i, v) {
        json_t* roots = json_object_get(v, "nodes");
        for (size_t j = 0; j < json_array_size(roots); ++j)
            json_array_set_new(roots, j, REMAP(json_array_get(roots, j)));
    }
    json_array_foreach(json_object_get(doc->json, "animations"), i, v) {
        size_t c;
        json_t* channel;
        json_array_foreach(json_object_get(v, "channels"), c, channel) {
            json_t* target = json_object_get(channel, "target");
            if (json_object_get(target, "node"))
                json_object_set_new(target, "node", REMAP(json_object_get(target, "node")));
        }
    }
#undef REMAP
    return tl_gltf_reindex(doc, err) == TL_OK;
}

/* Every chain joint's world position (bones, then the end joint) over 3 s of each of the 3
 * clips at 60 fps, into out[clip][frame][joint]; *H the model height. */
static bool chain_track(const tl_scene* scene, float out[3][181][9][3], float* H) {
    tl_error err;
    tl_play_chain chain;
    uint32_t count = 0;
    if (tl_play_chains_find(scene, &chain, 1, &count, &err) || count != 1 || chain.bone_count > 8)
        return false;
    const tl_scene_skin* sk = &scene->skins[chain.skin];
    *H = sk->height;
    tl_pose* pose = tl_pose_create(scene);
    bool ok = pose != NULL && scene->clip_count == 3;
    for (uint32_t clip = 0; ok && clip < 3; ++clip) {
        tl_player_def def = tl_default_player_def();
        def.loop = true;
        tl_player* p;
        ok = tl_player_create(scene, &chain, 1, &def, &p, &err) == TL_OK;
        for (int f = 0; ok && f <= 180; ++f) {
            tl_player_advance(p, pose, clip, fmodf((float)f / 60.0f, scene->clips[clip].duration));
            for (uint32_t b = 0; b <= chain.bone_count; ++b) {
                int32_t j = b < chain.bone_count ? (int32_t)chain.bone_joints[b] : chain.end_joint;
                memcpy(out[clip][f][b], pose->world + 16 * (size_t)sk->joints[j].node + 12,
                       3 * sizeof(float));
            }
        }
        if (ok) tl_player_destroy(p);
    }
    tl_pose_destroy(pose);
    return ok;
}

/* The one writer and the one reader together: the tailless fox rigged in memory (the scene
 * refreshed after tl_rig_apply) moves as the file an earlier tailor rig wrote (its bones then
 * shared the hips' bind rotation; now each points at its child, which changes the bones'
 * frames, not the motion: within 1e-5 H); with its nodes renumbered and saved, the names
 * stored beside the stale indices find the chain again and it plays bit for bit the same as
 * in memory. */
static void renumbered_plays_the_same(void) {
    tl_error err;
    tl_gltf* doc;
    tl_scene* scene;
    tl_rig_analysis* rig;
    tl_rig_def def = tl_default_rig_def();
    /* the v1 file stores the settings of its day (root 0.9 Hz, before the 1.2 Hz default):
     * rigged with the same, the two must move alike */
    def.chain.root_frequency = 0.9f;
    ENSURE_OK(tl_gltf_load(tl_test_shared("cases/fox-khronos-tailless.glb"), &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE(scene->part_count == 0);
    ENSURE_OK(tl_rig_analyze(scene, &def, &rig, &err), err);
    ENSURE_OK(tl_rig_apply(doc, rig, &err), err);
    tl_rig_analysis_destroy(rig);
    ENSURE_OK(tl_scene_refresh(scene, &err), err);
    ENSURE(scene->part_count == 1 && scene->parts[0].version == 2 && scene->note_count == 0);
    uint64_t h[3], in_memory[3];
    ENSURE(play_hash_scene(scene, in_memory));
    static float now[3][181][9][3], before[3][181][9][3];
    float H = 0, H_before = 0, worst = 0;
    ENSURE(chain_track(scene, now, &H));
    tl_scene_destroy(scene);
    {
        tl_gltf* v1;
        ENSURE_OK(
            tl_gltf_load(tl_test_source("tests/data/rig/fox-khronos-rigged-v1.glb"), &v1, &err),
            err);
        ENSURE_OK(tl_scene_create(v1, &scene, &err), err);
        bool tracked = chain_track(scene, before, &H_before);
        tl_scene_destroy(scene);
        tl_gltf_destroy(v1);
        ENSURE(tracked && H > 0);
    }
    for (int c = 0; c < 3; ++c)
        for (int f = 0; f <= 180; ++f)
            for (int k = 0; k < 9; ++k)
                worst = fmaxf(worst, distance3(now[c][f][k], before[c][f][k]));
    fprintf(stderr, "  rigged in memory: joints within %.2g H of the v1 file\n", worst / H);
    ENSURE(worst / H < 1e-5f);

    ENSURE(renumber_nodes(doc, &err));
    const char* path = tl_test_scratch("fox-renumbered.glb");
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    ENSURE_OK(tl_gltf_save(doc, path, &save, &err), err);
    tl_gltf_destroy(doc);
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE(scene->part_count == 1 && scene->parts[0].resolved_by_name);
    ENSURE(scene->parts[0].node == doc->node_count - 1 - 23);
    /* the skin's body colliders (read first) and the part each say so once */
    ENSURE(scene->skins[0].collider_count > 0);
    ENSURE(scene->note_count == 2 &&
           strstr(scene->notes[0], "/skins/0/extras/tailor/colliders: node indices disagree") &&
           strstr(scene->notes[1], "/extras/tailor: node indices disagree"));
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(play_hash(path, h));
    for (int c = 0; c < 3; ++c)
        ENSURE_MSG(h[c] == in_memory[c], "renumbered, clip %d: %016llx, in memory %016llx", c,
                   (unsigned long long)h[c], (unsigned long long)in_memory[c]);
    /* the command says what the reader did */
    char* out = NULL;
    ENSURE(tl_test_cli(&out, "play '%s' --clip Run --seconds 0.05 2>&1", path) == 0);
    ENSURE_MSG(out && strstr(out, "tailor play: note: fox-renumbered.glb: /nodes/8/extras/tailor: "
                                  "node indices disagree"),
               "%s", out ? out : "(no output)");
    free(out);
}

/* The chain's joints (bones, then the end joint) in world over 2 s of Walk at 60 fps. */
static bool walk_joints(const char* path, float out[121][9][3], bool* by_name) {
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_player* p = NULL;
    tl_play_chain chain;
    uint32_t count = 0, clip = 0;
    bool ok = tl_gltf_load(path, &doc, &err) == TL_OK &&
              tl_scene_create(doc, &scene, &err) == TL_OK &&
              tl_scene_find_clip(scene, "Walk", &clip, &err) == TL_OK &&
              tl_play_chains_find(scene, &chain, 1, &count, &err) == TL_OK && count == 1;
    tl_player_def def = tl_default_player_def();
    def.loop = true;
    ok = ok && chain.bone_count == 8 && tl_player_create(scene, &chain, 1, &def, &p, &err) == TL_OK;
    if (!ok) fprintf(stderr, "  %s: %s\n", path, err.message);
    tl_pose* pose = ok ? tl_pose_create(scene) : NULL;
    const tl_scene_skin* sk = ok ? &scene->skins[chain.skin] : NULL;
    for (int f = 0; ok && f <= 120; ++f) {
        tl_player_advance(p, pose, clip, fmodf((float)f / 60.0f, scene->clips[clip].duration));
        for (uint32_t b = 0; b < 9; ++b) {
            uint32_t j = b < 8 ? chain.bone_joints[b] : (uint32_t)chain.end_joint;
            memcpy(out[f][b], pose->world + 16 * (size_t)sk->joints[j].node + 12, sizeof out[f][b]);
        }
    }
    if (ok) *by_name = scene->part_count == 1 && scene->parts[0].resolved_by_name;
    tl_pose_destroy(pose);
    tl_player_destroy(p);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return ok;
}

/* A rigged file exported back by Blender (tests/data/rig/README.md: Blender 3.4's glTF
 * exporter with extras kept, which reorders every node and copies extras.tailor as it was)
 * plays like the file it came from: the reader follows the stored names to the renumbered
 * nodes. Blender re-encodes inverse binds and keys, so the joints agree to float noise
 * (measured 1.6e-6 of the chain's length), not bit for bit. */
static void blender_export_plays(void) {
    static float a[121][9][3], b[121][9][3];
    bool a_named = true, b_named = false;
    ENSURE(walk_joints(tl_test_source("tests/data/rig/fox-rigged-v2-small.glb"), a, &a_named));
    ENSURE(
        walk_joints(tl_test_source("tests/data/rig/fox-rigged-v2-small-blender.glb"), b, &b_named));
    ENSURE(!a_named && b_named);
    float length = 0, worst = 0;
    for (int k = 0; k < 8; ++k)
        length += distance3(a[0][k], a[0][k + 1]);
    for (int f = 0; f <= 120; ++f)
        for (int k = 0; k < 9; ++k)
            worst = fmaxf(worst, distance3(a[f][k], b[f][k]));
    fprintf(stderr, "  joints differ by at most %.2g of the chain's length\n", worst / length);
    ENSURE(length > 0 && worst / length < 1e-5f);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"links_keep_length", links_keep_length},
        {"frame_rate_independent", frame_rate_independent},
        {"sampler_frees_frame_step", sampler_frees_frame_step},
        {"play_command", play_command},
        {"play_is_render_rate_free", play_is_render_rate_free},
        {"loop_wrap_is_a_cut", loop_wrap_is_a_cut},
        {"play_loops_past_the_end", play_loops_past_the_end},
        {"rigged_v1_plays_as_before", rigged_v1_plays_as_before},
        {"renumbered_plays_the_same", renumbered_plays_the_same},
        {"blender_export_plays", blender_export_plays},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
