/* The built-in samples, inside: a character is described in the design frame (metres, +Y up,
 * facing +Z, its left at +X), swept into tubes by mesh.c, and written as glTF by document.c.
 * Everything is computed in double and rounded to float only when written, so inverse bind
 * matrices can be exact inverses of what a reader computes from the stored floats. */
#ifndef TL_SAMPLE_INTERNAL_H
#define TL_SAMPLE_INTERNAL_H

#include <tailor/gltf_json.h>
#include <tailor/sample.h>

#include "base/mat4.h"
#include "base/vec.h"

#include <math.h>

#define SAMPLE_PI 3.14159265358979323846
#define SAMPLE_DEG (SAMPLE_PI / 180.0)
#define SAMPLE_FPS 30
#define SAMPLE_MAX_JOINTS 32
#define SAMPLE_MAX_CLIPS 4
#define SAMPLE_REF_HEIGHT 1.8 /* metres: clip lengths are given for this height */

/* ---- the mesh builder ---- */

/* Up to four skin influences of one vertex; unused slots have weight 0. */
typedef struct sample_weights {
    int joint[4];
    double weight[4];
} sample_weights;

/* Adds `weight` on `joint` to w, merging with an existing slot, keeping the four largest. */
void sample_weights_add(sample_weights* w, int joint, double weight);

typedef struct sample_prim {
    dv3* position;
    dv3* normal;
    double (*uv)[2];
    sample_weights* weights;
    uint32_t vertex_count, vertex_capacity;
    uint32_t* indices;
    uint32_t index_count, index_capacity;
} sample_prim;

void sample_prim_free(sample_prim* prim);

/* One cross-section of a tube's path: centre and the two radii (ra along the frame's side
 * axis, which starts as `side` below; rb along the other). */
typedef struct sample_station {
    dv3 p;
    double ra, rb;
} sample_station;

/* How a tube weighs a vertex: `arc` is the distance along the path from its start (clamped to
 * the path on the caps), `fraction` = arc / path length, `center` the ring's centre. */
typedef void sample_weigh_fn(const void* ctx, double arc, double fraction, dv3 center, dv3 vertex,
                             sample_weights* out);

/* A bone chain along a tube: joint[i] takes over from joint[i-1] where the path passes
 * nearest to start[i] (a joint position), blended over ±blend metres. */
typedef struct sample_chain {
    int joint[8];
    dv3 start[8];
    int count;
    double blend;
    double start_arc[8]; /* filled by sample_tube_add */
} sample_chain;

typedef struct sample_tube {
    const sample_station* stations;
    uint32_t station_count;
    uint32_t sides;         /* vertices around a ring, plus one seam duplicate */
    uint32_t rings;         /* rings along the path, ends included, caps not */
    uint32_t cap_rings;     /* extra rings on each hemispherical end cap */
    dv3 side;               /* direction the seam's opposite side (ra axis) prefers at the start */
    double uv[4];           /* u0, v0, u1, v1: the tube's rectangle in the texture */
    sample_chain* chain;    /* weights by chain, or … */
    sample_weigh_fn* weigh; /* … by function (with weigh_ctx) */
    const void* weigh_ctx;
} sample_tube;

/* Appends a swept tube with end caps to prim; returns false when out of memory. */
bool sample_tube_add(sample_prim* prim, sample_tube* tube);

/* Arc length of a station path. */
double sample_path_length(const sample_station* stations, uint32_t count);

/* Samples a cubic Bézier into `count` stations evenly spaced in arc length, radius from
 * r0 at the start to r1 at the end (linear in arc length, both axes equal). */
void sample_bezier_stations(sample_station* out, uint32_t count, dv3 p0, dv3 p1, dv3 p2, dv3 p3,
                            double r0, double r1);

/* ---- a character, in the design frame ---- */

typedef struct sample_pose {
    dquat rotation[SAMPLE_MAX_JOINTS]; /* delta applied at each joint, in design axes */
    dv3 hips_offset;                   /* root translation, design axes, final metres */
} sample_pose;

/* Fills a pose at time t (seconds) for a character `height` metres tall. */
typedef void sample_pose_fn(double t, double height, sample_pose* out);

typedef struct sample_clip {
    const char* name;
    uint32_t frames; /* duration = frames / SAMPLE_FPS; frames + 1 keys */
    sample_pose_fn* pose;
} sample_clip;

typedef struct sample_character {
    const char* name;
    uint32_t joint_count;
    const char* joint_name[SAMPLE_MAX_JOINTS];
    int parent[SAMPLE_MAX_JOINTS]; /* -1 for the root; parents come before children */
    int aim[SAMPLE_MAX_JOINTS];    /* child the bone points at, or -1 for a leaf, which
                                      takes its parent's rotation */
    dv3 joint[SAMPLE_MAX_JOINTS];  /* positions */
    sample_prim body, fur;         /* primitive 0 and 1 */
    uint32_t tail_skin_first;      /* the tail's skin shell: body vertices from here on */
    dv3 tail_root, tail_tip;
    double tail_length, tail_radius;
    int tail_parent, thigh_l, thigh_r, shin_l;
    sample_clip clips[SAMPLE_MAX_CLIPS];
    uint32_t clip_count;
} sample_character;

/* Proportions varied by tl_sample_def.seed: 1 for seed 0, else within [1 - spread, 1 + spread]. */
typedef struct sample_rng {
    uint64_t state;
} sample_rng;
double sample_rng_factor(sample_rng* rng, double spread);

/* Fill `c` (zeroed by the caller) in design metres at the sample's natural size; false when
 * out of memory. */
bool sample_biped_build(sample_character* c, uint32_t seed);
bool sample_quadruped_build(sample_character* c, uint32_t seed);

/* Adds the tail along `skin` (stations in design metres) as the last piece of the body and a
 * fur shell over it as the fur primitive, bound the way an auto-rigger binds it: the root
 * split between the thighs by side, the distal part on the left shin, blended between.
 * `fur` is scratch for as many stations. */
bool sample_tail_add(sample_character* c, const sample_station* skin, sample_station* fur,
                     uint32_t count, int thigh_l, int thigh_r, int shin_l, int parent);

/* Appends a clip; false when the table is full (a programming error). */
bool sample_clip_add(sample_character* c, const char* name, uint32_t frames, sample_pose_fn* pose);

/* Shake, shared by every sample: the hips (joint 0) swing along the lateral axis,
 * x(t) = 0.25 m (H / 1.8 m) sin(3πt), and yaw by 45° sin(3πt). 20 frames. */
void sample_pose_shake(double t, double height, sample_pose* out);

/* A JSON array of floats (exact: each float is written as its double value). */
json_t* sample_json_floats(const float* v, size_t n);

/* Writes the character as a glTF document in the def's frame and fills the truth. */
tl_result sample_document_write(sample_character* c, const tl_sample_def* def, tl_gltf** out,
                                tl_sample_truth* truth, tl_error* err);

#endif
