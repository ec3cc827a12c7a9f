/* Shared between the files of the junction fit (junction.c: the free set, the driver, the
 * revert and the write-back; junction_poses.c: the poses and the joint groups;
 * junction_solve.c: the local/global solve and the projection). Not part of the public API. */
#ifndef TL_RIG_JUNCTION_INTERNAL_H
#define TL_RIG_JUNCTION_INTERNAL_H

#include "internal.h"

#include <math.h>
#include <stdlib.h>

enum {
    FIT_STALL = 2, /* passes without fewer bad samples before the fit stops */
    FIT_PATCH_RINGS = 3,
    FIT_PATCH_MAX = 64,
    FIT_CANDIDATES = 6,
    FIT_MAX_INFLUENCES = 4,
    FIT_GROUP_MEMBERS = TL_RIG_MAX_LINKS + 8,
    FIT_REPAIR_STEPS = 3, /* local steps per vertex in the repair after the revert */
    FIT_REPAIR_SWEEPS = 4 /* … sweeps over the free vertices at most */
};
static const float FIT_DROP = 1e-3f;        /* influences below this are dropped */
static const float FIT_NEAR = 1.3f;         /* an edge sample stretched beyond this (or below
                                               its inverse) is near tearing (torn: 1.5, 0.67) */
static const float FIT_REWEIGHT = 2.0f;     /* … and weighs this much more after each pass */
static const float FIT_REWEIGHT_MAX = 4.0f; /* … up to this much more */
static const double FIT_REPAIR_HEAVY = 8.0; /* the repair: a sample that tears anew weighs
                                               this much more, … */
static const double FIT_REPAIR_PULL = 0.1;  /* … the pull towards the fitted weights; a sample
                                               of an edge inside the tail that tears weighs
                                               FIT_REPAIR_HEAVY times a new tear's weight */
static const float FIT_PART_END = 0.5f;     /* a part vertex the fit gives less than this share on
                                               the chain's bones is past the part's end */

static const float TORN_ABOVE = 1.5f; /* measure.md: torn above 1.5 or below 0.67 */
static const float TORN_BELOW = 0.67f;

static inline bool is_torn(float r) {
    return r > TORN_ABOVE || r < TORN_BELOW;
}

/* The stretch of the edge a-b in pose t (P positions each, 3 floats apiece). */
static inline float pose_ratio(const float* a, const float* b, uint32_t t, float L) {
    float d[3] = {a[3 * t] - b[3 * t], a[3 * t + 1] - b[3 * t + 1], a[3 * t + 2] - b[3 * t + 2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L;
}

enum { RATIO_CHUNK = 64 }; /* poses per batch of stretches */

/* The stretches of the edge a-b in poses t0..t0+n-1, in a loop of their own: the compiler
 * batches the square roots (in files built without errno for them), to the same bits. */
static inline void pose_ratios(const float* a, const float* b, uint32_t t0, uint32_t n, float L,
                               float* r) {
    for (uint32_t u = 0; u < n; ++u)
        r[u] = pose_ratio(a, b, t0 + u, L);
}

static inline int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* The index of u in the ascending list, else UINT32_MAX. */
static inline uint32_t sorted_index(const uint32_t* list, uint32_t n, uint32_t u) {
    const uint32_t* hit = list ? bsearch(&u, list, n, sizeof u, compare_u32) : NULL;
    return hit ? (uint32_t)(hit - list) : UINT32_MAX;
}

/* Sparse weights of one vertex as (joint, weight) pairs. */
typedef struct wset {
    uint32_t n;
    uint32_t j[16];
    float w[16];
} wset;

static inline void wset_add(wset* s, uint32_t j, float w) {
    for (uint32_t k = 0; k < s->n; ++k)
        if (s->j[k] == j) {
            s->w[k] += w;
            return;
        }
    if (s->n < 16) s->j[s->n] = j, s->w[s->n++] = w;
}

/* Everything one fit works on. Vertices are welded ids; "local" vertices are the free ones
 * (0..nf-1) then the fixed ones around them (nf..nl-1). */
typedef struct fit {
    rig_ctx* ctx;
    const rig_wpart* p;
    tl_rig_part* part;
    uint32_t joint_total;
    int32_t* local;  /* W: local index or -1 */
    uint32_t* verts; /* nl welded ids */
    uint32_t nf, nl;
    wset* input; /* nl: the file's weights (mean over copies), in groups */
    wset* rig;   /* nl: the rig's weights (part plan, band, else the file's), in groups */
    wset *input_joints, *rig_joints; /* the same in joints, for splitting back */
    /* groups: joints that move identically over the poses; the chain joins its attachment */
    int32_t* group_of; /* joint_total */
    uint32_t G;
    uint32_t* group_joint; /* G: a representative joint */
    uint32_t slots;        /* pose matrices per pose: the skin's joints, then the chain's bones */
    uint32_t P;
    float* mats; /* P × G × 12: rows of the 3×4 skinning matrix per group */
    double* Q;   /* G × G × 16: Σ_t M_g(t)^T M_h(t), 4×4 on homogeneous bind positions */
    float* bind; /* nl × 3 */
    /* candidates of free vertices */
    uint32_t* cand; /* nf × FIT_CANDIDATES group ids */
    uint32_t* ncand;
    double* w;    /* nf × FIT_CANDIDATES current weights */
    double* wrig; /* nf × FIT_CANDIDATES the rig's weights on the candidates */
    uint8_t* active;
    uint8_t* in_part; /* nl: 1 for vertices of the part */
    uint8_t* held;    /* nf: kept from the revert (mark_held, fits with no clip), or NULL */
    uint8_t* reached; /* nl: 1 for torn body skin the free set reached (rig_fit_reach) */
    uint8_t* tail;    /* nl: the tail as the kept pass has it: the part, and free vertices it
                         puts at least FIT_PART_END on the chain (rig_fit_revert) */
    float* clip_jm;   /* the clips' pose matrices rig_fit_reach sampled, kept for the fit */
    uint32_t clip_P;
    float* pos;    /* nl × P × 3 */
    float* pos_in; /* nl × P × 3: with the file's weights */
    float* depth;  /* nf: distance from the part and its band along the mesh (0 inside) */
    /* the edge samples' extra weights (iteratively reweighted: each pass adds to the samples
       near tearing): per free vertex, per mesh neighbour slot, per pose */
    uint32_t* eoff;   /* nf + 1: the first slot of free vertex i */
    float* omega;     /* eoff[nf] × P */
    uint8_t* torn_in; /* eoff[nf] × P: the edge sample torn with the file's weights */
    float* cpos;      /* nf × FIT_CANDIDATES × P × 3: free vertex i bound wholly to each
                         candidate, over the poses (fixed through the passes) */
} fit;

/* The poses (junction_poses.c): `junction_poses` samples of every clip not skipped, a file
 * with no clip the range-of-motion set of the joints `used` marks (slots), the chain
 * simulated as the player will move it.
 * Returns the per-pose joint matrices (P × slots × 16, column-major) and sets *out_P; NULL
 * when out of memory. */
float* rig_fit_sample_poses(fit* f, const uint8_t* used, uint32_t* out_P);

/* Are the poses sampled from clips (not the range-of-motion set, which depends on `used`)? */
bool rig_fit_poses_from_clips(const fit* f);

/* Groups the joints `used` marks (and the attachment) by identical motion over the poses
 * `jm`; the chain's joints join the attachment's group. Fills group_of, group_joint, G,
 * mats and Q; false when out of memory. */
bool rig_fit_build_groups(fit* f, const float* jm, const uint8_t* used);

/* Positions over the poses (junction_solve.c) of a vertex with group weights `s` and bind
 * position `b`: out is P × 3. */
void rig_fit_wset_positions(const fit* f, const wset* s, const float* b, float* out);

/* Refreshes f->pos of free vertex i from its current weights. */
void rig_fit_free_positions(const fit* f, uint32_t i);

/* Joint weights summed into their groups. */
void rig_fit_to_groups(const fit* f, const wset* joints, wset* out);

/* The edge term over every edge touching the free set (the fit's energy, for the report). */
double rig_fit_energy(const fit* f);

/* The local/global passes: up to `junction_iterations` global steps, each projected and
 * followed by the free vertices' new positions. Sets the part's energy before and after and
 * *iterations (the passes done); false when out of memory or when CHOLMOD fails. */
bool rig_fit_solve(fit* f, uint32_t* iterations);

/* Drops from `score` (groups) those a vertex of the part may not take (junction.c): a joint
 * whose bone is farther than the misbinding rule allows, unless the rig's weights use it. */
void rig_fit_drop_misbound(const fit* f, uint32_t i, wset* score);

/* The revert (junction_revert.c): marks `reverted` (nf), the free vertices given back the
 * file's weights (their f->pos too), and counts the reverts; false when out of memory. */
bool rig_fit_revert(fit* f, uint8_t* reverted, uint32_t* reverts);

/* The file's weights of welded vertex w in joints: the mean over its copies (junction.c). */
void rig_fit_file_weights(const rig_ctx* ctx, uint32_t w, wset* out);

/* The free set's reach over torn body skin (junction_grow.c): from the welded vertices
 * `member` marks (the part and its band), breadth first into `open` body vertices (in no
 * classified part): a neighbour of the set with an edge, then on over edges, whose stretch
 * with the file's weights over the fit's poses exceeds in some pose the p99 of the body's edge
 * samples. Marks them 2 in `member` and counts them; false when out of memory. */
bool rig_fit_reach(fit* f, const uint8_t* open, uint8_t* member, uint32_t* reached);

#endif
