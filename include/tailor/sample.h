/* tailor/sample.h — built-in test characters, made from nothing.
 *
 * A library of its own (tailor_sample, libtailor_sample.a; CMake target tailor::tailor_sample),
 * linked by the command and the tests; libtailor does not contain it.
 *
 * Every property of a sample is known, so tests and demos can check what tailor finds
 * against the truth, on a machine with no files at hand. A sample is a procedurally built,
 * skinned and animated glTF document with a tail that an automatic rigger bound the wrong
 * way: no tail bones; the distal part of the tail on the left shin, the root split between
 * the two thighs, a blend between. Building is deterministic: the same name and def give a
 * byte-identical file.
 *
 *   tailed-biped      a humanoid with a Mixamo-named skeleton (mixamorig:Hips, Spine, Spine1,
 *                     Spine2, Neck, Head, LeftShoulder, LeftArm, LeftForeArm, LeftHand,
 *                     LeftUpLeg, LeftLeg, LeftFoot, LeftToeBase and the Right ones), in
 *                     T-pose; a tail from the back of the pelvis hanging down and back, clear
 *                     of the legs, to low on the shins, wrongly bound to mixamorig:LeftLeg
 *                     (distal) and mixamorig:LeftUpLeg / RightUpLeg (root).
 *                     Clips: Walk 1.0 s, Run 0.6 s, Shake 2/3 s.
 *   tailed-quadruped  a four-legged animal (Hips, Spine, Chest, Neck, Head; BackThigh,
 *                     BackShin, BackFoot and FrontUpperArm, FrontForearm, FrontFoot, each .L
 *                     and .R), body horizontal, with a tail that droops to the floor, wrongly
 *                     bound to BackShin.L (distal) and BackThigh.L / BackThigh.R (root).
 *                     Clips: Walk 1.0 s, Gallop 0.5 s, Shake 2/3 s.
 *
 * Both have one mesh "Body" with two primitives: 0 is the body skin (material "Skin") with the
 * tail's skin shell as its last connected piece, 1 is a slightly larger fur shell over the
 * tail (material "Fur"), never welded to the skin shell. Every piece is a swept tube with a UV
 * seam: the seam's vertices are split the way exporters split them (same position and normal,
 * different UV). Vertices carry NORMAL, TEXCOORD_0 and up to four influences (JOINTS_0 as
 * unsigned bytes, WEIGHTS_0 as normalized unsigned bytes summing to exactly 255).
 *
 * Clips are sampled at 30 frames per second with LINEAR interpolation and loop (the last key
 * equals the first). Shake swings the hips along the character's lateral axis,
 * x(t) = 0.25 (H / 1.8 m) sin(3πt), and yaws them by 45° sin(3πt) about up; Walk and
 * Run / Gallop swing the legs and arms and bob the hips. Lengths in clips scale with H / 1.8 m.
 *
 * Frames. The rest-world character (the armature node's world matrix times bind space) always
 * stands on y = 0, +Y up, metres, `height` tall, facing `facing`; its left is at +X when it
 * faces +Z. Bind space (the mesh positions and the inverse bind matrices) is what the def
 * varies, as real files do: Y-up or Z-up (an armature node rotating −90° about X, as Blender
 * exports), at `scale` units per metre (the armature node scales by 1 / scale). The mesh node
 * is a scene root with no transform; the joints hang under the node "Armature". Joints have
 * bone-aligned bind rotations (local +Y along the bone), so nothing is the identity.
 *
 * Example:
 *     tl_sample_def def = tl_default_sample_def();
 *     def.up = TL_SAMPLE_Z_UP;
 *     def.scale = 0.01f;
 *     tl_gltf* doc; tl_sample_truth truth; tl_error err;
 *     if (tl_sample_build("tailed-biped", &def, &doc, &truth, &err) != TL_OK) return 1;
 *     ... tl_gltf_save(doc, "biped.glb", &save, &err) ...
 *     tl_sample_truth_free(&truth);
 *     tl_gltf_destroy(doc);
 *
 * Ownership: tl_sample_build allocates the document (free with tl_gltf_destroy) and the
 * truth's vertex lists (free with tl_sample_truth_free). Names are static strings.
 */
#ifndef TAILOR_SAMPLE_H
#define TAILOR_SAMPLE_H

#include <tailor/gltf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_sample_up {
    TL_SAMPLE_Y_UP, /* bind space is glTF's: +Y up */
    TL_SAMPLE_Z_UP, /* bind space +Z up, under an armature node rotating −90° about X (Blender) */
} tl_sample_up;

typedef enum tl_sample_facing {
    TL_SAMPLE_FACING_POS_Z, /* glTF's convention: faces +Z, left at +X */
    TL_SAMPLE_FACING_NEG_Z, /* faces −Z, left at −X (the three.js Soldier) */
} tl_sample_facing;

/* How to build a sample. Make one with tl_default_sample_def. */
typedef struct tl_sample_def {
    tl_sample_up up;         /* bind-space up axis; typical TL_SAMPLE_Y_UP */
    float scale;             /* bind-space units per metre, > 0; the armature node scales by
                                1 / scale; typical 1, Blender/Quaternius files 0.01 */
    tl_sample_facing facing; /* which way the rest-world character faces; typical +Z */
    float height;            /* metres, > 0: vertical extent of all skinned vertices at rest,
                                floor to the top of the head; typical 1.8 (the quadruped is
                                then horse-sized) */
    uint32_t seed;           /* 0: the canonical proportions; any other value varies limb,
                                torso and tail lengths and girths by up to about ±10 %, the
                                same way for the same seed; typical 0 */
} tl_sample_def;

tl_sample_def tl_default_sample_def(void);

/* The samples, for listing: index 0 .. tl_sample_count() - 1. */
uint32_t tl_sample_count(void);
const char* tl_sample_name(uint32_t index);    /* "tailed-biped"; static */
const char* tl_sample_summary(uint32_t index); /* one line for `tailor sample --list`; static */

/* Where a sample's tail is in the document: the tail's vertices of one primitive. */
typedef struct tl_sample_shell {
    const char* name;   /* "skin" or "fur"; static */
    uint32_t mesh;      /* mesh index */
    uint32_t primitive; /* primitive index in that mesh */
    uint32_t* vertices; /* the tail's vertex indices in that primitive, ascending; owned */
    uint32_t vertex_count;
} tl_sample_shell;

#define TL_SAMPLE_MAX_SHELLS 2

/* Ground truth for tests: what a correct analysis of the sample finds. Positions and lengths
 * are in the rest-world frame, metres. */
typedef struct tl_sample_truth {
    const char* name;          /* the sample's name; static */
    tl_sample_def def;         /* the def it was built with */
    float height;              /* H, metres: vertical extent of the skinned vertices at rest */
    float up[3];               /* rest-world up: (0, 1, 0) */
    float forward[3];          /* rest-world forward: (0, 0, ±1) */
    float bind_to_world[16];   /* column-major: rest-world from bind space (the armature node's
                                  world matrix as the file stores it) */
    float tail_root[3];        /* start of the tail's centre line, just inside the back of the
                                  pelvis (biped) or the rump (quadruped) */
    float tail_tip[3];         /* end of the tail's centre line */
    float tail_length;         /* arc length of the centre line, metres */
    float tail_radius;         /* radius of the skin shell at the root, metres */
    const char* tail_parent;   /* the joint the tail should hang from ("mixamorig:Hips") */
    const char* wrong_thigh_l; /* the wrong joints the root of the tail is split between … */
    const char* wrong_thigh_r;
    const char* wrong_shin_l;                     /* … and the one its distal part is bound to */
    tl_sample_shell shells[TL_SAMPLE_MAX_SHELLS]; /* skin shell, fur shell */
    uint32_t shell_count;
} tl_sample_truth;

/* Builds the named sample (see the list above). `truth` is optional (NULL). Errors:
 * TL_ERROR_NOT_FOUND for an unknown name, TL_ERROR_ARGUMENT for a def out of range (scale or
 * height not positive and finite). On failure *out is NULL and truth is left empty. */
tl_result tl_sample_build(const char* name, const tl_sample_def* def, tl_gltf** out,
                          tl_sample_truth* truth, tl_error* err);

/* Frees the truth's vertex lists and empties it. NULL and an empty truth are fine. */
void tl_sample_truth_free(tl_sample_truth* truth);

#ifdef __cplusplus
}
#endif

#endif
