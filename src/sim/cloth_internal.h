/* The cloth solver's private layout (include/tailor/cloth.h): the shared model, the per-instance
 * state and the kernels. Internal coordinates are rest-world minus the rest centroid (`origin`),
 * so that floats keep their precision for the tether lengths. */
#ifndef TL_SIM_CLOTH_INTERNAL_H
#define TL_SIM_CLOTH_INTERNAL_H

#include <tailor/cloth.h>

#include "sim_math.h"

/* A run of independent pairs within one row: pair j joins particle
 * a = first + (j / width) * stride + j % width to a + offset (blocks of `width` pairs). */
typedef struct cloth_run {
    int first, stride, offset, count, width;
    int data;     /* index of pair 0 in the model's pair arrays */
    float wa, wb; /* the shares of the correction moving a and b (a on row 0: 0 and 1) */
} cloth_run;

static inline int cloth_run_a(const cloth_run* r, int j) {
    return r->first + (j / r->width) * r->stride + j % r->width;
}

/* A constraint group: runs whose pairs never share a particle. */
typedef struct cloth_group {
    int first_run, run_count, pair_count;
    bool stretch;
} cloth_group;

#define CLOTH_MAX_GROUPS 64

struct tl_cloth_model {
    tl_allocator allocator;
    int rows, columns, n;
    bool closed;
    v3 origin;       /* the rest centroid, rest-world */
    float* rest;     /* n x 3, rest-world */
    uint8_t* edge;   /* n */
    float* tether;   /* n: rest distance to the particle above (0 on row 0) */
    cloth_run* runs; /* ordered by group */
    cloth_group groups[CLOTH_MAX_GROUPS];
    int run_count, group_count, pair_count;
    float* pair_rest; /* pair_count */
    float up[3], scale, fixed_step, teleport_distance;
    int max_substeps;
    float* slack;              /* n x 2: the depth each particle's links may have (tl_cloth_def) */
    tl_cloth_skin_point* skin; /* skin_count (tl_cloth_def.skin_points) */
    int skin_count;
    tl_cloth_settings settings;
};

/* A collider in internal coordinates. */
typedef enum cloth_shape_kind {
    SHAPE_SPHERE,
    SHAPE_CAPSULE,
    SHAPE_PLANE,
    SHAPE_ELLIPSOID
} cloth_shape_kind;
typedef struct cloth_shape {
    cloth_shape_kind kind;
    v3 a, b;      /* sphere/capsule: centre, other end; plane: point, normal; ellipsoid: centre */
    float radius; /* with the margin */
    qt rotation;  /* ellipsoid axes */
    v3 radii;     /* ellipsoid semi-axes with the margin */
} cloth_shape;

struct tl_cloth {
    const tl_cloth_model* model;
    tl_allocator allocator;
    tl_cloth_settings settings;
    int n;
    float *x, *y, *z;                             /* current, internal */
    float *px, *py, *pz;                          /* previous */
    float *t0x, *t0y, *t0z;                       /* targets at the frame's start, internal */
    float *t1x, *t1y, *t1z;                       /* ... at its end */
    float *damping, *share, *wind, *max_distance; /* per particle, from the settings */
    uint8_t* contact;
    float* row_before;        /* 3 x columns: a row before its tethers (final_pass) */
    float* out_world;         /* n x 3 */
    float* out_local;         /* n x 3, rest-world */
    tl_chain_pose frame;      /* the last frame's end */
    tl_chain_pose step_frame; /* the frame of the last internal step */
    tl_chain_pose prior_step; /* ... of the step before it (step_frame after a cut: no motion) */
    float accumulator;        /* time since the last internal step, s */
    bool started;
    bool guessed; /* the last step's body motion was a hitch's straight-path guess (prior_step
                   * to step_frame): the next step replaces it (rebase_velocity) */
    cloth_shape shapes[TL_CLOTH_MAX_COLLIDERS];
    int shape_count;
    /* the colliders at the last two-pose frame's start and its length, for the curve of their
     * path across the next one (older_count -1: none) */
    cloth_shape older[TL_CLOTH_MAX_COLLIDERS];
    int older_count;
    float older_dt;
    tl_cloth_stats stats;
};

/* The kernels (cloth_kernels.c). Level: 0 scalar, 1 SSE2, 2 AVX2, 3 AVX-512 (the best the CPU has
 * by default); the benchmark compares them. */
void cloth_relax(const tl_cloth_model* m, float* x, float* y, float* z, float stretch, float shear,
                 int iterations);
int cloth_simd_level(void);
void cloth_set_simd_level(int level); /* clamped to what the CPU has; -1: the best */

/* The point on the tether sphere |x - q| = L nearest p within d of ref (cloth_passes.c, as
 * the passes below). */
v3 cloth_tether_point(v3 q, float L, v3 p, v3 ref, float d);
/* The final pass's first half on one row (i0 on row >= 1): each particle onto its tether from
 * the final particle above, within its safe distance from its reference (the targets at u);
 * returns how many were beyond it. The same bits at every level. */
int cloth_tether_row(tl_cloth* c, int i0, int count, float u);
/* False when any of `count` floats is NaN or infinite (cloth_passes.c). */
bool cloth_floats_finite(const float* v, int count);
/* The Verlet step of particles [from, to): the world-motion map x -> map[0..2] x.x + map[3..5]
 * x.y + map[6..8] x.z + map[9..11] shared by `share`, damping (more on contact), gravity g and
 * wind w (both x h^2). The same bits at every level. */
void cloth_integrate(tl_cloth* c, const float* map, v3 g, v3 w, float contact_keep, int from,
                     int to);
/* The targets t1 (internal) from the host's interleaved world targets: m w - t - o in double,
 * m the frame's inverse map (row-major), t its translation, o the model's origin. The same bits at
 * every level. */
/* out_local (the state) and out_world (its map, laid out as cloth_integrate's), interleaved.
 * The same bits at every level. */
void cloth_write_outputs(tl_cloth* c, const float* map);
/* On an open lattice, every link of rows >= 1 that sags into a collider beyond its slack pushed
 * out by moving its end particles, as an inelastic contact; then every skin point (a closed
 * ring's too) through its cell's particles (cloth_contact.c). */
void cloth_push_segments(tl_cloth* c);
/* The relaxation's iterations with cloth_push_segments before each (cloth_contact.c). */
void cloth_relax_links_out(tl_cloth* c);
/* A lattice with colliders just placed: its links (open lattices) and skin points out
 * (cloth_contact.c); false: nothing done, and nothing to do. */
bool cloth_links_out_at_start(tl_cloth* c);
void cloth_map_targets(tl_cloth* c, const double m[9], const double t[3], const double o[3],
                       const float* targets);

#endif
