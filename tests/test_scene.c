/* Tests of the scene module: rest pose from inverse bind matrices, joint roles on every
 * shared skeleton, clip sampling against three.js, STEP and CUBICSPLINE by hand. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/tailor.h>

#include "scene/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float max_abs3(const float* a, const float* b) {
    float m = 0;
    for (int i = 0; i < 3; ++i)
        m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

/* The character's size for relative tolerances: H, or the joints' extent when there is no
 * mesh (animation-only files). */
static float scene_size(const tl_scene_skin* skin) {
    if (skin->height > 0) return skin->height;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t j = 0; j < skin->joint_count; ++j)
        for (int i = 0; i < 3; ++i) {
            lo[i] = fminf(lo[i], skin->joints[j].rest_world[12 + i]);
            hi[i] = fmaxf(hi[i], skin->joints[j].rest_world[12 + i]);
        }
    return fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
}

/* The rest pose (every joint at its local from the IBMs) must give every joint matrix
 * W · IBM = M, so skinning reproduces M · bind position to float precision. The stored
 * pose must not (on some file), or this test could not tell rest from stored. */
static void test_bind_pose_skinning(void) {
    const char** paths;
    size_t count = tl_test_shared_files(&paths);
    ENSURE(count >= 20);
    int skinned_files = 0, stored_differs = 0;
    for (size_t f = 0; f < count; ++f) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(paths[f], &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        tl_pose* pose = tl_pose_create(scene);
        ENSURE(pose);
        for (uint32_t s = 0; s < scene->skin_count; ++s) {
            const tl_scene_skin* skin = &scene->skins[s];
            if (skin->vertex_count == 0) continue;
            float size = skin->height;
            ENSURE_MSG(size > 0, "%s: skin %u has height 0", paths[f], s);
            float* joints = malloc(sizeof(float) * 16 * skin->joint_count);
            float* out = malloc(sizeof(float) * 3 * skin->vertex_count);
            tl_pose_set_rest(pose, scene, s);
            tl_pose_joint_matrices(pose, scene, s, joints);
            float scale = 0; /* M's largest column, to compare matrix entries relatively */
            for (int c = 0; c < 3; ++c)
                scale =
                    fmaxf(scale, sqrtf(skin->rest_world[4 * c] * skin->rest_world[4 * c] +
                                       skin->rest_world[4 * c + 1] * skin->rest_world[4 * c + 1] +
                                       skin->rest_world[4 * c + 2] * skin->rest_world[4 * c + 2]));
            float worst_m = 0;
            for (uint32_t j = 0; j < skin->joint_count; ++j)
                for (int i = 0; i < 16; ++i) {
                    float tol = i >= 12 ? size : scale;
                    worst_m = fmaxf(worst_m, fabsf(joints[16 * j + i] - skin->rest_world[i]) / tol);
                }
            tl_scene_skin_positions(scene, s, joints, out);
            float worst = 0;
            for (uint32_t v = 0; v < skin->vertex_count; ++v)
                worst = fmaxf(worst, max_abs3(out + 3 * v, skin->rest_positions + 3 * v));
            /* the same vertices from the stored node transforms */
            tl_pose_set_stored(pose, scene);
            tl_pose_joint_matrices(pose, scene, s, joints);
            tl_scene_skin_positions(scene, s, joints, out);
            float stored = 0;
            for (uint32_t v = 0; v < skin->vertex_count; ++v)
                stored = fmaxf(stored, max_abs3(out + 3 * v, skin->rest_positions + 3 * v));
            free(joints);
            free(out);
            fprintf(stderr,
                    "  %-60s H %-9.4g rest error %.2e H, joint matrices %.2e, stored pose %.2e H\n",
                    paths[f] + strlen(tl_test_shared("")), size, worst / size, worst_m,
                    stored / size);
            /* Float precision through the joint chain: ≤ 2.3e-6 and 6e-7 H on every file but
             * the Quaternius horse, whose tail IBMs are not quite rigid (column lengths off 1
             * by 5e-6, a shear a TRS local cannot hold): 7.5e-6 and 1.9e-6 H there. */
            ENSURE_MSG(worst_m < 1e-5f, "%s: W·IBM differs from M by %g (relative)", paths[f],
                       worst_m);
            ENSURE_MSG(worst < 3e-6f * size, "%s: rest skinning off by %g H", paths[f],
                       worst / size);
            if (stored > 1e-3f * size) stored_differs++;
            skinned_files++;
        }
        tl_pose_destroy(pose);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    ENSURE(skinned_files >= 20);
    ENSURE_MSG(stored_differs >= 1, "no file's stored pose differs from its bind pose");
}

/* Expected main joints per skeleton, written by hand from the joint trees (joint names
 * and bind positions in each SOURCE.md / dumped from the files). */
typedef struct expected_body {
    const char* file; /* a suffix of the path */
    const char *pelvis, *head, *thigh_l, *thigh_r, *shin_l, *shin_r;
    float forward_z; /* +1: faces +Z in the rest-world frame; -1: faces -Z */
} expected_body;

static const expected_body expected_bodies[] = {
    {"kaykit-anim-clips/Med_General.glb", "hips", "head", "upperleg.l", "upperleg.r", "lowerleg.l",
     "lowerleg.r", 1},
    {"kaykit-anim-clips/Med_MovementBasic.glb", "hips", "head", "upperleg.l", "upperleg.r",
     "lowerleg.l", "lowerleg.r", 1},
    {"kaykit-knight/Knight.glb", "hips", "head", "upperleg.l", "upperleg.r", "lowerleg.l",
     "lowerleg.r", 1},
    /* CesiumMan has no head joint: the neck chain's end is the head */
    {"khronos-cesiumman/CesiumMan.glb", "Skeleton_torso_joint_1", "Skeleton_neck_joint_2",
     "leg_joint_L_1", "leg_joint_R_1", "leg_joint_L_2", "leg_joint_R_2", 1},
    {"khronos-fox/Fox.glb", "b_Hip_01", "b_Head_05", "b_LeftLeg01_015", "b_RightLeg01_019",
     "b_LeftLeg02_016", "b_RightLeg02_020", 1},
    /* Quaternius animals: the hind legs hang from Back (Body is the root above it) */
    {"quaternius-fox/Fox.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R", "BackLowerLeg.L",
     "BackLowerLeg.R", 1},
    {"quaternius-horse/Horse.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R",
     "BackLowerLeg.L", "BackLowerLeg.R", 1},
    {"quaternius-husky/Husky.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R",
     "BackLowerLeg.L", "BackLowerLeg.R", 1},
    {"quaternius-stag/Stag.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R",
     "BackLowerLeg.L", "BackLowerLeg.R", 1},
    /* the knight's legs hang from Body; its "Hips" is a spine joint above them */
    {"quaternius-knight/KnightCharacter.glb", "Body", "Head", "UpperLeg.L", "UpperLeg.R",
     "LowerLeg.L", "LowerLeg.R", 1},
    /* the rat's and the T-rex's legs hang from Body; their "Hips" leads to the torso */
    {"quaternius-rat/Rat.glb", "Body", "Head", "BackUpLeg.L", "BackUpLeg.R", "BackLowLeg.L",
     "BackLowLeg.R", 1},
    {"quaternius-trex/Trex.glb", "Body", "Head", "BackUpLeg.L", "BackUpLeg.R", "BackLowLeg.L",
     "BackLowLeg.R", 1},
    /* VRM 0.x faces -Z */
    {"vrm-godette/Godette_vrm_v4.vrm", "pelvis_Armature", "head_Armature", "thigh.l_Armature",
     "thigh.r_Armature", "shin.l_Armature", "shin.r_Armature", -1},
    {"fox-khronos-tailless.glb", "b_Hip_01", "b_Head_05", "b_LeftLeg01_015", "b_RightLeg01_019",
     "b_LeftLeg02_016", "b_RightLeg02_020", 1},
    {"fox-quaternius-tailless.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R",
     "BackLowerLeg.L", "BackLowerLeg.R", 1},
    {"horse-tailless.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R", "BackLowerLeg.L",
     "BackLowerLeg.R", 1},
    {"husky-tailless.glb", "Back", "Head", "BackUpperLeg.L", "BackUpperLeg.R", "BackLowerLeg.L",
     "BackLowerLeg.R", 1},
    {"knight-tailed.glb", "Body", "Head", "UpperLeg.L", "UpperLeg.R", "LowerLeg.L", "LowerLeg.R",
     1},
    {"rat-tailless.glb", "Body", "Head", "BackUpLeg.L", "BackUpLeg.R", "BackLowLeg.L",
     "BackLowLeg.R", 1},
    {"trex-tailless.glb", "Body", "Head", "BackUpLeg.L", "BackUpLeg.R", "BackLowLeg.L",
     "BackLowLeg.R", 1},
    /* MakeHuman: pelvis.L/.R are hip girdles below root; upperleg02/lowerleg02 are twists */
    {"cases/mh-", "root", "head", "upperleg01.L", "upperleg01.R", "lowerleg01.L", "lowerleg01.R",
     1},
};

static const char* joint_name(const tl_scene_skin* skin, int32_t j) {
    return j == TL_NONE ? "(none)" : skin->joints[j].name;
}

static void test_roles(void) {
    const char** paths;
    size_t count = tl_test_shared_files(&paths);
    size_t n_expected = sizeof expected_bodies / sizeof expected_bodies[0];
    ENSURE(count >= 20);
    for (size_t f = 0; f < count; ++f) {
        const expected_body* e = NULL;
        for (size_t k = 0; k < n_expected && !e; ++k)
            if (strstr(paths[f], expected_bodies[k].file)) e = &expected_bodies[k];
        ENSURE_MSG(e, "%s: no expected roles written for this file", paths[f]);
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(paths[f], &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        ENSURE(scene->skin_count >= 1);
        const tl_scene_skin* skin = &scene->skins[0];
        const tl_scene_body* b = &skin->body;
        const char* got[6] = {joint_name(skin, b->pelvis),
                              joint_name(skin, b->head),
                              joint_name(skin, b->thigh[TL_SIDE_LEFT]),
                              joint_name(skin, b->thigh[TL_SIDE_RIGHT]),
                              joint_name(skin, b->shin[TL_SIDE_LEFT]),
                              joint_name(skin, b->shin[TL_SIDE_RIGHT])};
        const char* want[6] = {e->pelvis, e->head, e->thigh_l, e->thigh_r, e->shin_l, e->shin_r};
        static const char* what[6] = {"pelvis",      "head",      "left thigh",
                                      "right thigh", "left shin", "right shin"};
        for (int i = 0; i < 6; ++i)
            ENSURE_MSG(!strcmp(got[i], want[i]), "%s: %s is %s, expected %s", paths[f], what[i],
                       got[i], want[i]);
        /* the per-joint roles agree with the landmarks */
        ENSURE(skin->joints[b->pelvis].role == TL_ROLE_PELVIS);
        ENSURE(skin->joints[b->head].role == TL_ROLE_HEAD);
        for (int s = 0; s < 2; ++s) {
            ENSURE(skin->joints[b->thigh[s]].role == TL_ROLE_THIGH &&
                   skin->joints[b->thigh[s]].side == (tl_side)s);
            ENSURE(skin->joints[b->shin[s]].role == TL_ROLE_SHIN &&
                   skin->joints[b->shin[s]].side == (tl_side)s);
        }
        /* every file here is Y-up in the rest-world frame, left at +X when facing +Z */
        ENSURE_NEAR(skin->up[1], 1, 1e-6);
        ENSURE_NEAR(skin->forward[2], e->forward_z, 1e-3);
        ENSURE_NEAR(skin->lateral[0], e->forward_z, 1e-3);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    ENSURE(!strcmp(tl_role_string(TL_ROLE_UPPER_ARM), "upper_arm"));
    ENSURE(!strcmp(tl_side_string(TL_SIDE_RIGHT), "right"));
}

/* With every node name removed, the shape alone must find the same pelvis, head, thighs
 * and shins (by node) as the names did. */
static void test_roles_from_shape(void) {
    static const char* files[] = {"assets/khronos-cesiumman/CesiumMan.glb",
                                  "assets/kaykit-knight/Knight.glb", "cases/mh-body.glb"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        tl_gltf* doc;
        tl_scene *named, *unnamed;
        tl_error err;
        ENSURE_OK(tl_gltf_load(tl_test_shared(files[f]), &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &named, &err), err);
        const tl_scene_body* a = &named->skins[0].body;
        uint32_t want[6] = {
            named->skins[0].joints[a->pelvis].node,   named->skins[0].joints[a->head].node,
            named->skins[0].joints[a->thigh[0]].node, named->skins[0].joints[a->thigh[1]].node,
            named->skins[0].joints[a->shin[0]].node,  named->skins[0].joints[a->shin[1]].node};
        tl_scene_destroy(named);
        size_t i;
        json_t* node;
        json_array_foreach(json_object_get(doc->json, "nodes"), i, node)
            json_object_del(node, "name");
        ENSURE_OK(tl_gltf_reindex(doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &unnamed, &err), err);
        const tl_scene_skin* skin = &unnamed->skins[0];
        const tl_scene_body* b = &skin->body;
        int32_t got[6] = {b->pelvis, b->head, b->thigh[0], b->thigh[1], b->shin[0], b->shin[1]};
        static const char* what[6] = {"pelvis",      "head",      "left thigh",
                                      "right thigh", "left shin", "right shin"};
        for (int k = 0; k < 6; ++k)
            ENSURE_MSG(got[k] != TL_NONE && skin->joints[got[k]].node == want[k],
                       "%s: unnamed %s is node %d, named %u", files[f], what[k],
                       got[k] == TL_NONE ? -1 : (int)skin->joints[got[k]].node, want[k]);
        tl_scene_destroy(unnamed);
        tl_gltf_destroy(doc);
    }
}

/* Runs tests/three_sample.mjs and returns its JSON, or NULL. */
static json_t* three_sample(const char* path, uint32_t clip, const float* times, int n) {
    char command[8192];
    int len = snprintf(command, sizeof command, "node '%s' '%s' %u",
                       tl_test_source("tests/three_sample.mjs"), path, clip);
    for (int i = 0; i < n; ++i)
        len += snprintf(command + len, sizeof command - (size_t)len, " %.9g", times[i]);
    FILE* p = popen(command, "r");
    if (!p) return NULL;
    json_error_t jerr;
    json_t* out = json_loadf(p, 0, &jerr);
    int status = pclose(p);
    if (status != 0 || !out) {
        fprintf(stderr, "  three_sample.mjs failed on %s clip %u: %s\n", path, clip,
                out ? "" : jerr.text);
        json_decref(out);
        return NULL;
    }
    return out;
}

typedef struct three_case {
    const char* file;
    const char* clips[3]; /* names (NULL ends); "*" means every clip */
} three_case;

/* Samples clips at several times with tailor and with three.js and compares every node's
 * world matrix: translations within 1e-4 H, the 3×3 part within 1e-4 of its scale. */
static void test_clips_match_three(void) {
    static const three_case cases[] = {
        {"assets/khronos-fox/Fox.glb", {"*"}},
        {"assets/quaternius-fox/Fox.glb", {"Walk", "Gallop_Jump", "Idle_HitReact_Left"}},
        {"assets/khronos-cesiumman/CesiumMan.glb", {"*"}},
        {"assets/kaykit-knight/Knight.glb",
         {"Walking_A", "Jump_Full_Long", "2H_Melee_Attack_Spin"}},
        {"cases/mh-body.glb", {"Walk", "HeadTurn", "Jump"}},
        {"cases/rat-tailless.glb", {"Rat_Walk"}},
        /* STEP samplers (58 of 72 in Hit_A), on a skin with no mesh */
        {"assets/kaykit-anim-clips/Med_General.glb", {"Hit_A", "Death_A"}},
    };
    int compared = 0;
    for (size_t f = 0; f < sizeof cases / sizeof cases[0]; ++f) {
        const char* path = tl_test_shared(cases[f].file);
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        tl_pose* pose = tl_pose_create(scene);
        ENSURE(pose);
        float size = scene_size(&scene->skins[0]);
        uint32_t clips[64], clip_count = 0;
        if (!strcmp(cases[f].clips[0], "*"))
            for (uint32_t c = 0; c < scene->clip_count && c < 64; ++c)
                clips[clip_count++] = c;
        else
            for (int k = 0; k < 3 && cases[f].clips[k]; ++k)
                ENSURE_OK(tl_scene_find_clip(scene, cases[f].clips[k], &clips[clip_count++], &err),
                          err);
        for (uint32_t ci = 0; ci < clip_count; ++ci) {
            const tl_scene_clip* clip = &scene->clips[clips[ci]];
            ENSURE(clip->duration > 0);
            /* inside (0, duration): three.js wraps a looping clip at its end */
            float times[5] = {0, 0.13f * clip->duration, 0.37f * clip->duration,
                              0.71f * clip->duration, 0.96f * clip->duration};
            json_t* three = three_sample(path, clips[ci], times, 5);
            ENSURE_MSG(three, "three.js sampling failed (is node with three installed?)");
            json_t* worlds = json_object_get(three, "world");
            ENSURE(json_array_size(worlds) == 5);
            ENSURE_NEAR(json_number_value(json_object_get(three, "duration")), clip->duration,
                        1e-6);
            float worst_t = 0, worst_r = 0;
            for (int t = 0; t < 5; ++t) {
                tl_pose_sample(pose, scene, clips[ci], times[t]);
                json_t* nodes = json_array_get(worlds, (size_t)t);
                ENSURE(json_array_size(nodes) == scene->node_count);
                for (uint32_t n = 0; n < scene->node_count; ++n) {
                    json_t* m = json_array_get(nodes, n);
                    if (json_is_null(m)) continue;
                    const float* ours = pose->world + 16 * n;
                    for (int c = 0; c < 4; ++c) {
                        float col_scale = c < 3 ? sqrtf(ours[4 * c] * ours[4 * c] +
                                                        ours[4 * c + 1] * ours[4 * c + 1] +
                                                        ours[4 * c + 2] * ours[4 * c + 2])
                                                : size;
                        for (int r = 0; r < 4; ++r) {
                            float d = fabsf(ours[4 * c + r] -
                                            (float)json_number_value(json_array_get(m, 4 * c + r)));
                            float rel = d / fmaxf(col_scale, 1e-20f);
                            if (c < 3)
                                worst_r = fmaxf(worst_r, rel);
                            else
                                worst_t = fmaxf(worst_t, rel);
                            ENSURE_MSG(rel <= 1e-4f,
                                       "%s clip %s t=%g node %u (%s) m[%d] = %g, three.js %g",
                                       cases[f].file, clip->name, times[t], n,
                                       doc->nodes[n].name ? doc->nodes[n].name : "", 4 * c + r,
                                       ours[4 * c + r],
                                       json_number_value(json_array_get(m, 4 * c + r)));
                        }
                    }
                }
            }
            fprintf(stderr, "  %-40s %-28s worst translation %.2e H, rotation/scale %.2e\n",
                    cases[f].file, clip->name, worst_t, worst_r);
            json_decref(three);
            compared++;
        }
        tl_pose_destroy(pose);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    ENSURE(compared >= 12);
}

/* A document with four nodes and hand-made clips:
 *   node 0: translation, STEP, keys 0, 1, 2 s: (0,0,0) (1,2,3) (4,5,6)
 *   node 1: scale, CUBICSPLINE, keys 0, 2 s: value (0,2,0) → (1,2,0),
 *           out-tangent of key 0 (1,0,3), in-tangent of key 1 (0,-1,3)
 *   node 2: rotation, CUBICSPLINE, keys 0, 1 s: identity → 90° about Z, tangents 0
 *   node 3: rotation, LINEAR, keys 0.5, 1 s: identity → −(90° about Z) (the same rotation
 *           on the far hemisphere: the shorter arc is +45° at the middle)
 * and a node 4 no clip animates, stored translation (7, 8, 9). */
static tl_gltf* hand_clips(bool decreasing_keys, tl_error* err) {
    tl_gltf* doc;
    if (tl_gltf_create(&doc, err) != TL_OK) return NULL;
    const float h = 0.70710678f;
    const float t3_good[] = {0, 1, 2}, t3_bad[] = {0, 2, 1};
    const float* t3 = decreasing_keys ? t3_bad : t3_good;
    const float t2[] = {0, 2}, r2[] = {0, 1}, l2[] = {0.5f, 1};
    const float step[] = {0, 0, 0, 1, 2, 3, 4, 5, 6};
    const float cubic[] = {/* key 0: in, value, out */ 9,
                           9,
                           9,
                           0,
                           2,
                           0,
                           1,
                           0,
                           3,
                           /* key 1 */ 0,
                           -1,
                           3,
                           1,
                           2,
                           0,
                           9,
                           9,
                           9};
    const float qcubic[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, h, h, 0, 0, 0, 0};
    const float qlinear[] = {0, 0, 0, 1, 0, 0, -h, -h};
    const void* data[] = {t3, step, t2, cubic, r2, qcubic, l2, qlinear};
    const size_t counts[] = {3, 3, 2, 6, 2, 6, 2, 2};
    const tl_gltf_type types[] = {TL_GLTF_SCALAR, TL_GLTF_VEC3, TL_GLTF_SCALAR, TL_GLTF_VEC3,
                                  TL_GLTF_SCALAR, TL_GLTF_VEC4, TL_GLTF_SCALAR, TL_GLTF_VEC4};
    uint32_t acc[8];
    for (int i = 0; i < 8; ++i) {
        tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
        def.data = data[i];
        def.count = counts[i];
        def.component_type = TL_GLTF_FLOAT;
        def.type = types[i];
        def.min_max = types[i] == TL_GLTF_SCALAR; /* animation inputs need min/max */
        if (tl_gltf_accessor_add(doc, &def, &acc[i], err) != TL_OK) {
            tl_gltf_destroy(doc);
            return NULL;
        }
    }
    char json[2048];
    snprintf(
        json, sizeof json,
        "{\"nodes\": [{\"name\": \"step\"}, {\"name\": \"cubic\"}, {\"name\": \"qcubic\"},"
        " {\"name\": \"qlinear\"}, {\"name\": \"still\", \"translation\": [7, 8, 9]}],"
        " \"scenes\": [{\"nodes\": [0, 1, 2, 3, 4]}], \"scene\": 0,"
        " \"animations\": [{\"name\": \"Armature|Hand\", \"samplers\": ["
        "  {\"input\": %u, \"output\": %u, \"interpolation\": \"STEP\"},"
        "  {\"input\": %u, \"output\": %u, \"interpolation\": \"CUBICSPLINE\"},"
        "  {\"input\": %u, \"output\": %u, \"interpolation\": \"CUBICSPLINE\"},"
        "  {\"input\": %u, \"output\": %u, \"interpolation\": \"LINEAR\"}],"
        " \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}},"
        "  {\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"scale\"}},"
        "  {\"sampler\": 2, \"target\": {\"node\": 2, \"path\": \"rotation\"}},"
        "  {\"sampler\": 3, \"target\": {\"node\": 3, \"path\": \"rotation\"}}]}]}",
        acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]);
    json_t* parts = json_loads(json, 0, NULL);
    json_object_update(doc->json, parts);
    json_decref(parts);
    if (tl_gltf_reindex(doc, err) != TL_OK) {
        tl_gltf_destroy(doc);
        return NULL;
    }
    return doc;
}

static void test_step_and_cubic_by_hand(void) {
    tl_error err;
    tl_gltf* doc = hand_clips(false, &err);
    ENSURE_MSG(doc, "%s", err.message);
    tl_scene* scene;
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(scene, "Hand", &clip, &err), err);
    ENSURE(tl_scene_find_clip(scene, "Walk", &clip, &err) == TL_ERROR_NOT_FOUND);
    ENSURE(strstr(err.message, "Armature|Hand"));
    ENSURE_OK(tl_scene_find_clip(scene, "Armature|Hand", &clip, &err), err);
    ENSURE_NEAR(scene->clips[clip].start, 0, 0);
    ENSURE_NEAR(scene->clips[clip].duration, 2, 0);
    tl_pose* pose = tl_pose_create(scene);
    ENSURE(pose);
    const float tol = 1e-6f;
    const float h = 0.70710678f;
    /* STEP holds the earlier key; times outside the keys clamp */
    static const struct {
        float t, x, y, z;
    } steps[] = {{-1, 0, 0, 0},     {0.5f, 0, 0, 0}, {1, 1, 2, 3},
                 {1.999f, 1, 2, 3}, {2, 4, 5, 6},    {5, 4, 5, 6}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; ++i) {
        tl_pose_sample(pose, scene, clip, steps[i].t);
        const float* p = pose->locals[0].translation;
        ENSURE_MSG(fabsf(p[0] - steps[i].x) <= tol && fabsf(p[1] - steps[i].y) <= tol &&
                       fabsf(p[2] - steps[i].z) <= tol,
                   "STEP at %g: (%g %g %g)", steps[i].t, p[0], p[1], p[2]);
    }
    /* CUBICSPLINE, dt = 2: at s = 1/2, h = (1/2, 1/8, 1/2, -1/8):
     *   x = 1/8·2·1 + 1/2·1 = 0.75;  y = 1/2·2 + 1/2·2 + (-1/8)·2·(-1) = 2.25;
     *   z = 1/8·2·3 + (-1/8)·2·3 = 0
     * at s = 1/4, h = (27/32, 9/64, 5/32, -3/64):
     *   x = 9/64·2 + 5/32 = 0.4375;  y = 27/32·2 + 5/32·2 + 3/64·2 = 2.09375;
     *   z = 9/64·6 − 3/64·6 = 0.5625 */
    static const struct {
        float t, x, y, z;
    } cubics[] = {
        {1, 0.75f, 2.25f, 0}, {0.5f, 0.4375f, 2.09375f, 0.5625f}, {-1, 0, 2, 0}, {3, 1, 2, 0}};
    for (size_t i = 0; i < sizeof cubics / sizeof cubics[0]; ++i) {
        tl_pose_sample(pose, scene, clip, cubics[i].t);
        const float* p = pose->locals[1].scale;
        ENSURE_MSG(fabsf(p[0] - cubics[i].x) <= tol && fabsf(p[1] - cubics[i].y) <= tol &&
                       fabsf(p[2] - cubics[i].z) <= tol,
                   "CUBICSPLINE at %g: (%g %g %g)", cubics[i].t, p[0], p[1], p[2]);
    }
    /* CUBICSPLINE rotation with zero tangents, normalised after:
     *   s = 1/2: (0, 0, h/2, 1/2 + h/2) / |…| = 45° about Z = (0, 0, 0.3826834, 0.9238795)
     *   s = 1/4: (0, 0, 5/32·h, 27/32 + 5/32·h) / |…| = (0, 0, 0.1104854, 0.9542354) / 0.9606103
     *          = (0, 0, 0.1150159, 0.9933637) */
    tl_pose_sample(pose, scene, clip, 0.5f);
    ENSURE_NEAR(pose->locals[2].rotation[2], 0.3826834, tol);
    ENSURE_NEAR(pose->locals[2].rotation[3], 0.9238795, tol);
    tl_pose_sample(pose, scene, clip, 0.25f);
    ENSURE_NEAR(pose->locals[2].rotation[0], 0, tol);
    ENSURE_NEAR(pose->locals[2].rotation[2], 0.1150159, tol);
    ENSURE_NEAR(pose->locals[2].rotation[3], 0.9933637, tol);
    /* LINEAR rotation on the shorter arc: at 0.75 s, 45° about +Z (or its negation) */
    tl_pose_sample(pose, scene, clip, 0.75f);
    const float* q = pose->locals[3].rotation;
    float sign = q[3] < 0 ? -1.0f : 1.0f;
    ENSURE_NEAR(sign * q[2], 0.3826834, tol);
    ENSURE_NEAR(sign * q[3], 0.9238795, tol);
    /* before its first key (0.5 s) the channel holds the first value */
    tl_pose_sample(pose, scene, clip, 0.1f);
    ENSURE_NEAR(pose->locals[3].rotation[3], 1, tol);
    /* the node no clip animates keeps its stored transform; world follows locals */
    ENSURE_NEAR(pose->locals[4].translation[1], 8, 0);
    ENSURE_NEAR(pose->world[16 * 4 + 13], 8, 0);
    tl_pose_sample(pose, scene, clip, 1.0f);
    ENSURE_NEAR(pose->world[16 * 2 + 0], 0, 1e-6); /* 90° about Z: x axis → +y */
    ENSURE_NEAR(pose->world[16 * 2 + 1], 1, 1e-6);
    (void)h;
    tl_pose_destroy(pose);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* Key times that go backwards are the file's error: the scene says which accessor. */
static void test_bad_keys(void) {
    tl_error err;
    tl_gltf* doc = hand_clips(true, &err);
    ENSURE_MSG(doc, "%s", err.message);
    tl_scene* scene = (tl_scene*)1;
    ENSURE(tl_scene_create(doc, &scene, &err) == TL_ERROR_INVALID);
    ENSURE(scene == NULL);
    ENSURE_MSG(strstr(err.message, "/accessors/0") && strstr(err.message, "key time 2"), "%s",
               err.message);
    tl_gltf_destroy(doc);
}

/* TRS ↔ matrix round trip on a rotation with non-uniform scale and a mirror. */
static void test_trs_matrix(void) {
    tl_trs a = {{1, -2, 3}, {0.1825742f, 0.3651484f, 0.5477226f, 0.7302967f}, {2, 0.5f, 3}};
    float m[16];
    tl_trs_to_matrix(&a, m);
    /* the x axis: R·(1,0,0)·2, R's first column worked out from the quaternion by hand:
     * (1 − 2(y² + z²), 2(xy + zw), 2(xz − yw)) = (0.1333333, 0.9333333, −0.3333333) */
    ENSURE_NEAR(m[0], 2 * 0.1333333, 1e-6);
    ENSURE_NEAR(m[1], 2 * 0.9333333, 1e-6);
    ENSURE_NEAR(m[2], 2 * -0.3333333, 1e-6);
    tl_trs b = tl_trs_from_matrix(m);
    for (int i = 0; i < 3; ++i) {
        ENSURE_NEAR(b.translation[i], a.translation[i], 1e-6);
        ENSURE_NEAR(b.scale[i], a.scale[i], 1e-5);
    }
    for (int i = 0; i < 4; ++i)
        ENSURE_NEAR(b.rotation[i], a.rotation[i], 1e-6);
}

/* --- extras.tailor (docs/schema.md) --- */

#define RIGGED_V1 "tests/data/rig/fox-khronos-rigged-v1.glb"

/* Sets (value JSON text) or removes (NULL) the value at a '/'-separated path inside `root`. */
static bool json_edit(json_t* root, const char* path, const char* value) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t* at = root;
    char* save = NULL;
    char* key = strtok_r(buf, "/", &save);
    for (char* next; key && (next = strtok_r(NULL, "/", &save)); key = next)
        at = json_is_array(at) ? json_array_get(at, (size_t)atoi(key)) : json_object_get(at, key);
    if (!at || !key) return false;
    json_t* v = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
    if (value && !v) return false;
    if (json_is_array(at))
        return v ? json_array_set_new(at, (size_t)atoi(key), v) == 0
                 : json_array_remove(at, (size_t)atoi(key)) == 0;
    return v ? json_object_set_new(at, key, v) == 0 : json_object_del(at, key) == 0;
}

/* The rigged fixture with one edit; builds its scene and returns the result (message in err). */
static tl_result scene_after_edit(const char* path, const char* value, tl_error* err,
                                  tl_scene** keep) {
    tl_gltf* doc;
    tl_scene* scene = NULL;
    if (tl_gltf_load(tl_test_source(RIGGED_V1), &doc, err) != TL_OK) return TL_ERROR_IO;
    tl_result r =
        json_edit(doc->json, path, value) ? tl_scene_create(doc, &scene, err) : TL_ERROR_ARGUMENT;
    if (keep && r == TL_OK) {
        *keep = scene; /* the caller destroys scene and scene->doc */
        return r;
    }
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return r;
}

/* Every refusal names the file, the JSON pointer of the bad value and why. */
static void test_schema_refusals(void) {
    static const struct {
        const char *path, *value, *message;
    } cases[] = {
        {"nodes/23/extras/tailor/version", "3",
         "/nodes/23/extras/tailor/version: version 3 is newer than this reader (2)"},
        {"nodes/23/extras/tailor/version", NULL, "/nodes/23/extras/tailor/version: is missing"},
        {"nodes/23/extras/tailor/version", "\"1\"",
         "/nodes/23/extras/tailor/version: must be an integer, is a string"},
        {"nodes/23/extras/tailor/chain/damping_ratio", "-1",
         "/nodes/23/extras/tailor/chain/damping_ratio: must be >= 0, is -1"},
        {"nodes/23/extras/tailor/chain/root_frequency", "0",
         "/nodes/23/extras/tailor/chain/root_frequency: must be > 0, is 0"},
        {"nodes/23/extras/tailor/chain/root_frequency", "1e-60", /* 0 as a float */
         "/nodes/23/extras/tailor/chain/root_frequency: must be > 0, is 1e-60"},
        {"nodes/23/extras/tailor/chain/rest_curve", "1.5",
         "/nodes/23/extras/tailor/chain/rest_curve: must be <= 1, is 1.5"},
        {"nodes/23/extras/tailor/chain/gravity", "-9.8",
         "/nodes/23/extras/tailor/chain/gravity: must be >= 0, is -9.8"},
        {"nodes/23/extras/tailor/chain/carry_deg", "1e300",
         "/nodes/23/extras/tailor/chain/carry_deg: must be a finite number, is 1e+300"},
        {"nodes/23/extras/tailor/chain/gravity", "\"strong\"",
         "/nodes/23/extras/tailor/chain/gravity: must be a number, is a string"},
        {"nodes/23/extras/tailor/chain", "[]",
         "/nodes/23/extras/tailor/chain: must be an object, is an array"},
        {"nodes/23/extras/tailor", "5", "/nodes/23/extras/tailor: must be an object, is a number"},
        {"nodes/23/extras/tailor/kind", "\"fur\"",
         "/nodes/23/extras/tailor/kind: must be \"tail\", \"hair\", \"cloth\", \"pendulum\" or "
         "\"aim\", is \"fur\""},
        {"nodes/23/extras/tailor/bones/3", "999",
         "/nodes/23/extras/tailor/bones/3: node 999 does not exist (32 nodes)"},
        {"nodes/23/extras/tailor/bones/3", "1",
         "/nodes/23/extras/tailor/bones/3: node 1 is not a joint of skin 0"},
        {"nodes/23/extras/tailor/bones/3", "24",
         "/nodes/23/extras/tailor/bones/3: node 24 is listed twice"},
        {"nodes/23/extras/tailor/bones/3", "\"Tail_4\"",
         "/nodes/23/extras/tailor/bones/3: must be a node index, is a string"},
        {"nodes/23/extras/tailor/attachment", NULL,
         "/nodes/23/extras/tailor/attachment: must be a node index, is missing"},
        {"nodes/23/extras/tailor/attachment", "1",
         "/nodes/23/extras/tailor: attachment (node 1) and bones (node 23, ...) are not joints "
         "of one skin"},
        {"nodes/23/extras/tailor/bones", "[23]",
         "/nodes/23/extras/tailor/bones: must list 2..65 nodes (the bones, then the end joint), "
         "lists 1"},
        {"nodes/23/extras/tailor/radii/2", "-0.5",
         "/nodes/23/extras/tailor/radii/2: must be >= 0, is -0.5"},
        {"nodes/23/extras/tailor/radii/7", NULL,
         "/nodes/23/extras/tailor/radii: must be an array of 8 numbers, one per bone"},
        {"skins/0/extras", "{\"tailor\": {\"version\": 7, \"colliders\": []}}",
         "/skins/0/extras/tailor/version: version 7 is newer than this reader (2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tl_error err = {0};
        tl_result r = scene_after_edit(cases[i].path, cases[i].value, &err, NULL);
        char expected[512];
        snprintf(expected, sizeof expected, "fox-khronos-rigged-v1.glb: %s", cases[i].message);
        ENSURE_MSG(r == TL_ERROR_INVALID && !strcmp(err.message, expected),
                   "%s = %s: %s \"%s\", expected \"%s\"", cases[i].path,
                   cases[i].value ? cases[i].value : "(removed)", tl_result_string(r), err.message,
                   expected);
    }
}

/* The fixture as it is: one tail part with the file's settings and no notes; a missing
 * setting takes its default; an unknown key is kept out of the part and noted. */
static void test_schema_reads_v1(void) {
    tl_error err;
    tl_scene* scene = NULL;
    ENSURE_OK(scene_after_edit("nodes/23/extras/tailor/chain/gravity", "1.0", &err, &scene), err);
    ENSURE(scene->part_count == 1 && scene->note_count == 0);
    const tl_scene_part* p = &scene->parts[0];
    const tl_scene_skin* sk = &scene->skins[p->skin];
    ENSURE(p->kind == TL_PART_TAIL && p->node == 23 && p->version == 1 && p->bone_count == 8);
    ENSURE(sk->joints[p->attach_joint].node == 4 && sk->joints[p->end_joint].node == 31);
    for (uint32_t b = 0; b < 8; ++b)
        ENSURE(sk->joints[p->bone_joints[b]].node == 23 + b);
    ENSURE(p->radii[0] == 13.3716402053833f && p->radii[7] == 3.634120225906372f);
    ENSURE(p->chain.root_frequency == 0.9f && p->chain.ground_clearance == 0.025f);
    ENSURE(!p->resolved_by_name);
    const tl_gltf* doc = scene->doc;
    tl_scene_destroy(scene);
    tl_gltf_destroy((tl_gltf*)doc);

    ENSURE_OK(scene_after_edit("nodes/23/extras/tailor/chain/slip_damping", NULL, &err, &scene),
              err);
    ENSURE(scene->parts[0].chain.slip_damping == tl_default_chain_settings().slip_damping);
    ENSURE(scene->note_count == 0);
    doc = scene->doc;
    tl_scene_destroy(scene);
    tl_gltf_destroy((tl_gltf*)doc);

    ENSURE_OK(scene_after_edit("nodes/23/extras/tailor/wobble", "2", &err, &scene), err);
    ENSURE(scene->part_count == 1 && scene->note_count == 1);
    ENSURE_MSG(!strcmp(scene->notes[0], "fox-khronos-rigged-v1.glb: /nodes/23/extras/tailor/"
                                        "wobble: unknown key, ignored"),
               "%s", scene->notes[0]);
    doc = scene->doc;
    tl_scene_destroy(scene);
    tl_gltf_destroy((tl_gltf*)doc);
}

/* Names beside the indices (version 2): a stale index with its node's name is followed by
 * name and noted; a name no node has, or several have, is refused at its pointer. */
static void test_schema_names(void) {
    static const char* names = "[\"Tail_1\", \"Tail_2\", \"Tail_3\", \"Tail_4\", \"Tail_5\", "
                               "\"Tail_6\", \"Tail_7\", \"Tail_8\", \"Tail_End\"]";
    tl_error err;
    tl_gltf* doc;
    ENSURE_OK(tl_gltf_load(tl_test_source(RIGGED_V1), &doc, &err), err);
    ENSURE(json_edit(doc->json, "nodes/23/extras/tailor/version", "2") &&
           json_edit(doc->json, "nodes/23/extras/tailor/bone_names", names) &&
           json_edit(doc->json, "nodes/23/extras/tailor/attachment_name", "\"b_Hip_01\"") &&
           json_edit(doc->json, "nodes/23/extras/tailor/chain/scale", NULL));
    tl_scene* scene;
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE(scene->part_count == 1 && scene->note_count == 0 && !scene->parts[0].resolved_by_name);
    tl_scene_destroy(scene);
    /* stale indices: bones 2 and 3 swapped, attachment pointing at the spine */
    ENSURE(json_edit(doc->json, "nodes/23/extras/tailor/bones/2", "26") &&
           json_edit(doc->json, "nodes/23/extras/tailor/bones/3", "25") &&
           json_edit(doc->json, "nodes/23/extras/tailor/attachment", "5"));
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    const tl_scene_part* p = &scene->parts[0];
    const tl_scene_skin* sk = &scene->skins[p->skin];
    ENSURE(p->resolved_by_name && sk->joints[p->attach_joint].node == 4);
    ENSURE(sk->joints[p->bone_joints[2]].node == 25 && sk->joints[p->bone_joints[3]].node == 26);
    ENSURE(scene->note_count == 1 && strstr(scene->notes[0], "fox-khronos-rigged-v1.glb: "
                                                             "/nodes/23/extras/tailor: node "
                                                             "indices disagree with the node "
                                                             "names"));
    tl_scene_destroy(scene);
    /* a name no node has */
    ENSURE(json_edit(doc->json, "nodes/23/extras/tailor/bone_names/3", "\"Tail_Nine\""));
    ENSURE(tl_scene_create(doc, &scene, &err) == TL_ERROR_INVALID);
    ENSURE_MSG(!strcmp(err.message, "fox-khronos-rigged-v1.glb: /nodes/23/extras/tailor/"
                                    "bone_names/3: no node is named \"Tail_Nine\" (the index "
                                    "says node 25)"),
               "%s", err.message);
    /* a name two nodes have (the index stale) */
    ENSURE(json_edit(doc->json, "nodes/23/extras/tailor/bone_names/3", "\"Tail_4\"") &&
           json_edit(doc->json, "nodes/1/name", "\"Tail_4\""));
    ENSURE_OK(tl_gltf_reindex(doc, &err), err); /* node names are read at indexing */
    ENSURE(tl_scene_create(doc, &scene, &err) == TL_ERROR_INVALID);
    ENSURE_MSG(!strcmp(err.message, "fox-khronos-rigged-v1.glb: /nodes/23/extras/tailor/"
                                    "bone_names/3: 2 nodes are named \"Tail_4\" (nodes 1 and 26) "
                                    "and node 25 is none of them"),
               "%s", err.message);
    tl_gltf_destroy(doc);
}

/* Up on a character an exporter wrapped in a scaled Z-up root (scripts/tail_styles.py
 * --scale S --z-up: +90 deg about X), its tail bound the way other auto-riggers bind it.
 * The wrapped file's up must be +Z, its H S times the unwrapped asset's, and its forward the
 * asset's turned the same way. The Khronos fox bound to the nearest bones (its tail on the
 * shins) and the rat bound to one thigh failed this with the unanimous leg vote (up +Y, H
 * 15 470 for a fox of 7 903). */
static void test_up_axis_wrapped(void) {
    static const struct {
        const char *asset, *tail, *parent, *shin, *thigh_l, *thigh_r, *style;
        float scale;
    } files[] = {
        {"khronos-fox/Fox.glb", "b_Tail", "b_Hip_01", "b_LeftLeg02_016", "b_LeftLeg01_015",
         "b_RightLeg01_019", "nearest", 100},
        {"quaternius-rat/Rat.glb", "Tail", "Back", "BackUpLeg.L", "BackLeg.L", "BackLeg.R", "thigh",
         0.01f},
        {"quaternius-rat/Rat.glb", "Tail", "Back", "BackUpLeg.L", "BackLeg.L", "BackLeg.R",
         "nearest", 100},
        {"quaternius-stag/Stag.glb", "Tail", "Back", "BackLowerLeg.L", "BackUpperLeg.L",
         "BackUpperLeg.R", "template", 100},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char name[64], base[4096], path[4200], command[12288];
        snprintf(name, sizeof name, "up-%zu", f);
        snprintf(base, sizeof base, "%s", tl_test_scratch(name));
        snprintf(path, sizeof path, "%s.glb", base);
        char asset_path[4096];
        snprintf(asset_path, sizeof asset_path, "assets/%s", files[f].asset);
        const char* asset = tl_test_shared(asset_path);
        snprintf(command, sizeof command,
                 "python3 '%s' '%s' '%s' --tail '%s' --parent '%s' --style %s --shin '%s' "
                 "--thigh-l '%s' --thigh-r '%s' --scale %g --z-up >/dev/null",
                 tl_test_source("scripts/tail_styles.py"), asset, base, files[f].tail,
                 files[f].parent, files[f].style, files[f].shin, files[f].thigh_l, files[f].thigh_r,
                 (double)files[f].scale);
        ENSURE_MSG(system(command) == 0, "%s", command);
        tl_gltf *doc, *wrapped_doc;
        tl_scene *scene, *wrapped;
        tl_error err;
        ENSURE_OK(tl_gltf_load(asset, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        ENSURE_OK(tl_gltf_load(path, &wrapped_doc, &err), err);
        ENSURE_OK(tl_scene_create(wrapped_doc, &wrapped, &err), err);
        const tl_scene_skin *a = &scene->skins[0], *b = &wrapped->skins[0];
        float up[3] = {0, 0, 1}; /* +90 deg about X: (x, y, z) -> (x, -z, y) */
        float forward[3] = {a->forward[0], -a->forward[2], a->forward[1]};
        fprintf(stderr, "  %-26s %-8s x%-5g up %+.0f %+.0f %+.0f  H %.5g (asset %.5g)\n",
                files[f].asset, files[f].style, (double)files[f].scale, (double)b->up[0],
                (double)b->up[1], (double)b->up[2], (double)b->height, (double)a->height);
        ENSURE_MSG(a->up[1] == 1, "%s: the asset's up is not +Y", files[f].asset);
        ENSURE_MSG(max_abs3(b->up, up) < 1e-6f, "%s %s x%g: up (%g, %g, %g), not +Z",
                   files[f].asset, files[f].style, (double)files[f].scale, (double)b->up[0],
                   (double)b->up[1], (double)b->up[2]);
        ENSURE_MSG(max_abs3(b->forward, forward) < 1e-4f, "%s: forward turned wrong",
                   files[f].asset);
        ENSURE_MSG(fabsf(b->height - files[f].scale * a->height) < 1e-4f * b->height,
                   "%s: H %g, not %g x %g", files[f].asset, (double)b->height,
                   (double)files[f].scale, (double)a->height);
        tl_scene_destroy(wrapped), tl_gltf_destroy(wrapped_doc);
        tl_scene_destroy(scene), tl_gltf_destroy(doc);
    }
}

/* Pendulum and aim parts (docs/schema.md): written by tl_part_write_*, saved, loaded and read
 * back with the same values; each hostile value refused with its JSON pointer; a cycle of aims
 * refused; the player's order puts an aim after the aim that moves its target. On the rigged
 * fox: node 8 b_Head_05, 7 b_Neck_04, 12 b_LeftUpperArm_09, 9 b_RightUpperArm_06, 24 Tail_2. */
static void test_schema_joint_parts(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(tl_test_source(RIGGED_V1), &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    int32_t head = tl_scene_find_joint(scene, 0, "b_Head_05");
    int32_t arm = tl_scene_find_joint(scene, 0, "b_LeftUpperArm_09");
    ENSURE(head != TL_NONE && arm != TL_NONE);
    tl_pendulum_def pd = tl_part_default_pendulum(scene, 0, (uint32_t)head, 0.3f);
    pd.gravity = 5, pd.damping = 0.2f, pd.stiffness = 0.1f, pd.max_angle_deg = 40;
    pd.teleport_distance = 2;
    tl_aim_def ad = tl_part_default_aim(scene, 0, (uint32_t)arm);
    ad.weight = 0.5f, ad.max_angle_deg = 30;
    tl_scene_destroy(scene);
    ENSURE_OK(tl_part_write_pendulum(doc, 8, &pd, &err), err);
    ENSURE_OK(tl_part_write_aim(doc, 12, 8, &ad, &err), err);
    ENSURE(tl_part_write_aim(doc, 12, 8, &ad, &err) == TL_ERROR_INVALID); /* one part a node */
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    const char* path = tl_test_scratch("fox-joint-parts.glb");
    ENSURE_OK(tl_gltf_save(doc, path, &save, &err), err);
    tl_gltf_destroy(doc);
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE_MSG(scene->joint_part_count == 2, "%u joint parts", scene->joint_part_count);
    const tl_scene_part* p = &scene->parts[scene->joint_parts[0]];
    const tl_scene_part* a = &scene->parts[scene->joint_parts[1]];
    ENSURE(p->kind == TL_PART_PENDULUM && p->bone_joints[0] == (uint32_t)head);
    ENSURE(a->kind == TL_PART_AIM && a->bone_joints[0] == (uint32_t)arm &&
           a->aim_target == (uint32_t)head);
    ENSURE(p->pendulum.length == pd.length && p->pendulum.gravity == pd.gravity &&
           p->pendulum.damping == pd.damping && p->pendulum.stiffness == pd.stiffness &&
           p->pendulum.max_angle_deg == pd.max_angle_deg &&
           p->pendulum.teleport_distance == pd.teleport_distance);
    for (int k = 0; k < 3; ++k) {
        ENSURE(fabsf(p->pendulum.rest_direction[k] - pd.rest_direction[k]) <= 1e-6f);
        ENSURE(fabsf(a->aim.aim_axis[k] - ad.aim_axis[k]) <= 1e-6f);
    }
    ENSURE(a->aim.weight == ad.weight && a->aim.max_angle_deg == ad.max_angle_deg);
    fprintf(stderr, "  round trip: pendulum length %g, rest (%g %g %g); aim axis (%g %g %g)\n",
            (double)p->pendulum.length, (double)p->pendulum.rest_direction[0],
            (double)p->pendulum.rest_direction[1], (double)p->pendulum.rest_direction[2],
            (double)a->aim.aim_axis[0], (double)a->aim.aim_axis[1], (double)a->aim.aim_axis[2]);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);

#define PEN(x) "{\"tailor\": {\"version\": 2, \"kind\": \"pendulum\", \"pendulum\": " x "}}"
#define AIM(t, x) "{\"tailor\": {\"version\": 2, \"kind\": \"aim\", \"target\": " t x "}}"
    static const struct {
        const char *path, *value, *message;
    } cases[] = {
        {"nodes/8/extras", PEN("{\"length\": -1}"),
         "/nodes/8/extras/tailor/pendulum/length: must be > 0, is -1"},
        {"nodes/8/extras", PEN("{\"damping\": 1e300}"),
         "/nodes/8/extras/tailor/pendulum/damping: must be a finite number, is 1e+300"},
        {"nodes/8/extras", PEN("{\"max_angle_deg\": 181}"),
         "/nodes/8/extras/tailor/pendulum/max_angle_deg: must be <= 180, is 181"},
        {"nodes/8/extras", PEN("{\"stiffness\": \"stiff\"}"),
         "/nodes/8/extras/tailor/pendulum/stiffness: must be a number, is a string"},
        {"nodes/8/extras", PEN("{\"rest_direction\": [0, 0, 0]}"),
         "/nodes/8/extras/tailor/pendulum/rest_direction: must not be zero"},
        {"nodes/8/extras", PEN("{\"rest_direction\": [0, \"up\", 0]}"),
         "/nodes/8/extras/tailor/pendulum/rest_direction/1: must be a finite number, is a string"},
        {"nodes/8/extras", PEN("[]"),
         "/nodes/8/extras/tailor/pendulum: must be an object, is an array"},
        {"nodes/1/extras", PEN("{}"),
         "/nodes/1/extras/tailor: node 1 is not a joint of any skin (a pendulum turns a joint)"},
        {"nodes/24/extras", PEN("{}"),
         "/nodes/24/extras/tailor: joint 22 is a bone of the tail part at /nodes/23 (two parts "
         "would turn it)"},
        {"nodes/12/extras", AIM("999", ""),
         "/nodes/12/extras/tailor/target: node 999 does not exist (32 nodes)"},
        {"nodes/12/extras", AIM("1", ""),
         "/nodes/12/extras/tailor/target: node 1 is not a joint of skin 0"},
        {"nodes/12/extras", AIM("12", ""),
         "/nodes/12/extras/tailor/target: node 12 is the aimed joint itself (node 12): turning "
         "it would move its own target (a cycle)"},
        {"nodes/7/extras", AIM("8", ""),
         "/nodes/7/extras/tailor/target: node 8 is below the aimed joint (node 7): turning it "
         "would move its own target (a cycle)"},
        {"nodes/12/extras", "{\"tailor\": {\"version\": 2, \"kind\": \"aim\"}}",
         "/nodes/12/extras/tailor/target: is missing"},
        {"nodes/12/extras", AIM("8", ", \"aim\": {\"weight\": 2}"),
         "/nodes/12/extras/tailor/aim/weight: must be <= 1, is 2"},
        {"nodes/12/extras", AIM("8", ", \"aim\": {\"max_angle_deg\": -1}"),
         "/nodes/12/extras/tailor/aim/max_angle_deg: must be >= 0, is -1"},
        {"nodes/12/extras", AIM("8", ", \"aim\": {\"aim_axis\": [0, 1e39, 0]}"),
         "/nodes/12/extras/tailor/aim/aim_axis/1: must be a finite number, is not finite as a "
         "float"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tl_error e = {0};
        tl_result r = scene_after_edit(cases[i].path, cases[i].value, &e, NULL);
        char expected[512];
        snprintf(expected, sizeof expected, "fox-khronos-rigged-v1.glb: %s", cases[i].message);
        ENSURE_MSG(r == TL_ERROR_INVALID && !strcmp(e.message, expected),
                   "%s = %s: %s \"%s\", expected \"%s\"", cases[i].path, cases[i].value,
                   tl_result_string(r), e.message, expected);
    }
    /* a cycle of aims: the left arm aims at the right hand, the right arm at the left hand */
    ENSURE_OK(tl_gltf_load(tl_test_source(RIGGED_V1), &doc, &err), err);
    ENSURE(json_edit(doc->json, "nodes/12/extras", AIM("11", "")));
    ENSURE(json_edit(doc->json, "nodes/9/extras", AIM("14", "")));
    ENSURE(tl_scene_create(doc, &scene, &err) == TL_ERROR_INVALID);
    fprintf(stderr, "  cycle: %s\n", err.message);
    ENSURE(strstr(err.message, "(a cycle of aims)") != NULL);
    /* without it, the order: the right arm's aim (its target the left hand) after the left
       arm's, though it comes first in the file */
    ENSURE(json_edit(doc->json, "nodes/12/extras", AIM("8", "")));
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE(scene->joint_part_count == 2);
    ENSURE_MSG(scene->parts[scene->joint_parts[0]].node == 12 &&
                   scene->parts[scene->joint_parts[1]].node == 9,
               "order: nodes %u, %u", scene->parts[scene->joint_parts[0]].node,
               scene->parts[scene->joint_parts[1]].node);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
#undef PEN
#undef AIM
}

/* The floor signal's one pass gives the axis of one pass per signed axis (tl_scene_floor_axis
 * plain): every skin of the shared cases with each joint's subtree as the leg's end, and random
 * clouds with zeros of both signs, infinities, NaNs, repeated and flat coordinates, for each
 * lateral axis. */
static uint32_t floor_lcg(uint32_t* r) {
    *r = *r * 1664525u + 1013904223u;
    return *r >> 8;
}

static void floor_axis_one_pass_matches_plain(void) {
    static const char* files[] = {"cases/mh-bob01.glb", "cases/fox-khronos-tailless.glb",
                                  "cases/rat-tailless.glb", "cases/trex-tailless.glb",
                                  "cases/knight-tailed.glb"};
    uint32_t calls = 0, differ = 0, found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(tl_test_shared(files[f]), &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        for (uint32_t s = 0; s < scene->skin_count; ++s) {
            const tl_scene_skin* sk = &scene->skins[s];
            uint32_t* dom = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
            bool* below = malloc(sk->joint_count + 1);
            ENSURE(dom && below);
            for (uint32_t v = 0; v < sk->vertex_count; ++v)
                dom[v] = tl_scene_skin_dominant_joint(sk, v);
            for (uint32_t end = 0; end < sk->joint_count; ++end) {
                for (uint32_t j = 0; j < sk->joint_count; ++j) { /* j in end's subtree */
                    int32_t a = (int32_t)j;
                    while (a != TL_NONE && a != (int32_t)end)
                        a = sk->joints[a].parent;
                    below[j] = a == (int32_t)end;
                }
                for (int lateral = -1; lateral < 3; ++lateral) {
                    int x = tl_scene_floor_axis(sk->rest_positions, sk->vertex_count, dom, below,
                                                lateral, false);
                    int y = tl_scene_floor_axis(sk->rest_positions, sk->vertex_count, dom, below,
                                                lateral, true);
                    differ += x != y, found += y >= 0, calls++;
                }
            }
            free(dom), free(below);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    enum { N = 64, J = 8 };
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f};
    float pos[3 * N];
    uint32_t dom[N], r = 12345;
    bool below[J];
    for (int trial = 0; trial < 20000; ++trial) {
        uint32_t n = 1 + floor_lcg(&r) % N;
        for (uint32_t i = 0; i < 3 * n; ++i) {
            uint32_t pick = floor_lcg(&r) % 16;
            pos[i] = pick < 8 ? special[pick] : (float)(floor_lcg(&r) % 7) - 3.0f;
            if (trial % 3 == 0 && pick % 2) pos[i] = (float)(floor_lcg(&r) % 1000) * 1e-3f;
        }
        for (uint32_t v = 0; v < n; ++v)
            dom[v] = floor_lcg(&r) % J;
        for (int j = 0; j < J; ++j)
            below[j] = floor_lcg(&r) % 3 == 0;
        for (int lateral = -1; lateral < 3; ++lateral) {
            int x = tl_scene_floor_axis(pos, n, dom, below, lateral, false);
            int y = tl_scene_floor_axis(pos, n, dom, below, lateral, true);
            differ += x != y, found += y >= 0, calls++;
        }
    }
    printf("  %u calls, %u with an axis, %u differ from the plain passes\n", calls, found, differ);
    ENSURE(found > 10000 && differ == 0);
}

/* A hair rig's stored sheet ties (parts_hair.c, check_tie) and a part's bones and radii: each
 * refusal and note names the tie or bone and its key (the paths are built only for these,
 * session 26; the messages are session 25's, checked against its binary). */
static void test_sheet_refusals(void) {
    const char* rigged = tl_test_rigged_case("mh-bob02");
    ENSURE(rigged);
    static const struct {
        const char *path, *value, *message;
    } cases[] = {
        {"skins/0/extras/tailor/sheet/5", "5",
         "/skins/0/extras/tailor/sheet/5: must be an object, is a number"},
        {"skins/0/extras/tailor/sheet/5/parts", "[165]",
         "/skins/0/extras/tailor/sheet/5/parts: must be an array of 2 integers"},
        {"skins/0/extras/tailor/sheet/5/parts", "[165, 1]",
         "/skins/0/extras/tailor/sheet/5/parts: node 1 is no hair part of skin 0"},
        {"skins/0/extras/tailor/sheet/5/parts", "[165, 165]",
         "/skins/0/extras/tailor/sheet/5/parts: ties a part to itself"},
        {"skins/0/extras/tailor/sheet/5/links", NULL,
         "/skins/0/extras/tailor/sheet/5/links: must be an array of 2 integers"},
        {"skins/0/extras/tailor/sheet/5/links", "[0, 99]",
         "/skins/0/extras/tailor/sheet/5/links: link 99 of a part of 6 bones"},
        {"skins/0/extras/tailor/sheet/5/at", "[0.5, 2]",
         "/skins/0/extras/tailor/sheet/5/at: must be an array of 2 numbers in [0, 1]"},
        {"skins/0/extras/tailor/sheet/5/seam", "\"x\"",
         "/skins/0/extras/tailor/sheet/5/seam: must be a number, is a string"},
        {"skins/0/extras/tailor/sheet/289/seam", "-2",
         "/skins/0/extras/tailor/sheet/289/seam: must be >= 0, is -2"},
        {"skins/0/extras/tailor/sheet/5/wobble", "1",
         "note /skins/0/extras/tailor/sheet/5/wobble: unknown key, ignored"},
        {"nodes/165/extras/tailor/radii/2", "-0.5",
         "/nodes/165/extras/tailor/radii/2: must be >= 0, is -0.5"},
        {"nodes/165/extras/tailor/radii/2", "\"a\"",
         "/nodes/165/extras/tailor/radii/2: must be a number, is a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tl_gltf* doc;
        tl_scene* scene = NULL;
        tl_error err = {0};
        ENSURE_OK(tl_gltf_load(rigged, &doc, &err), err);
        ENSURE(json_edit(doc->json, cases[i].path, cases[i].value));
        tl_result r = tl_scene_create(doc, &scene, &err);
        bool note = !strncmp(cases[i].message, "note ", 5);
        char expected[512], got[512] = "";
        snprintf(expected, sizeof expected, "mh-bob02.rigged.glb: %s",
                 cases[i].message + (note ? 5 : 0));
        snprintf(got, sizeof got, "%s",
                 note ? (r == TL_OK && scene->note_count ? scene->notes[0] : "") : err.message);
        ENSURE_MSG(r == (note ? TL_OK : TL_ERROR_INVALID) && !strcmp(got, expected),
                   "%s = %s: %s \"%s\", expected \"%s\"", cases[i].path,
                   cases[i].value ? cases[i].value : "(removed)", tl_result_string(r), got,
                   expected);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
}

static const tl_test_case cases[] = {
    {"trs_matrix", test_trs_matrix},
    {"step_and_cubic_by_hand", test_step_and_cubic_by_hand},
    {"bad_keys", test_bad_keys},
    {"bind_pose_skinning", test_bind_pose_skinning},
    {"roles", test_roles},
    {"roles_from_shape", test_roles_from_shape},
    {"up_axis_wrapped", test_up_axis_wrapped},
    {"clips_match_three", test_clips_match_three},
    {"schema_refusals", test_schema_refusals},
    {"schema_reads_v1", test_schema_reads_v1},
    {"schema_names", test_schema_names},
    {"schema_joint_parts", test_schema_joint_parts},
    {"sheet_refusals", test_sheet_refusals},
    {"floor_axis_one_pass_matches_plain", floor_axis_one_pass_matches_plain},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
