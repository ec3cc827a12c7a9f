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
    float* out_world;         /* n x 3 */
    float* out_local;         /* n x 3, rest-world */
    tl_chain_pose frame;      /* the last frame's end */
    tl_chain_pose step_frame; /* the frame of the last internal step */
    float accumulator;        /* time since the last internal step, s */
    bool started;
    cloth_shape shapes[TL_CLOTH_MAX_COLLIDERS];
    int shape_count;
    /* the colliders at the last two-pose frame's start and its length, for the curve of their
     * path across the next one (older_count -1: none) */
    cloth_shape older[TL_CLOTH_MAX_COLLIDERS];
    int older_count;
    float older_dt;
    tl_cloth_stats stats;
};

/* The kernels (cloth_kernels.c). Level: 0 scalar, 1 SSE2, 2 AVX2 (the best the CPU has by
 * default); the benchmark compares them. */
void cloth_relax(const tl_cloth_model* m, float* x, float* y, float* z, float stretch, float shear,
                 int iterations);
int cloth_simd_level(void);
void cloth_set_simd_level(int level); /* clamped to what the CPU has; -1: the best */

#endif
