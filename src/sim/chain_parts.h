/* The spring chain's internal parts, shared by the files of src/sim (not installed):
 * chain_api.c (create, defaults, accessors), chain_bind.c (bind maths, the rest arc),
 * chain_frame.c (frame planning: cuts, teleports, hitches, the path), chain_batch.c (batching
 * and dispatch), chain_kernels.c, chain_kernels_avx2.c and chain_kernels_avx512.c (the lane
 * kernels, spring_chain_lanes.h). */
#ifndef TL_CHAIN_PARTS_H
#define TL_CHAIN_PARTS_H

#include <tailor/sim.h>

#include <assert.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
/* x86-64 with gcc or clang: the batch kernels also built for AVX2, taken when the CPU has it */
#if !defined(TL_LANES_AVX2) && defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define TL_LANES_AVX2 1
#endif
#if TL_LANES_AVX2
#include <immintrin.h>
#endif
/* ... and for AVX-512 (-DTL_LANES_AVX512=0: without) */
#if TL_LANES_AVX2 && !defined(TL_LANES_AVX512)
#define TL_LANES_AVX512 1
#endif

#include "sim_math.h"
#include "contact_memo.h"

#define PI_F 3.14159265358979f
#define DEG_TO_RAD (PI_F / 180.0f)
#define JUMP_TURN_COS_HALF 0.9238795f /* cos(45 deg / 2) */

/* Chains with the same bone count are stepped LANES at a time, one chain per lane, by loops
 * over the lanes that compilers turn into SIMD (4 floats: SSE2, NEON, WebAssembly SIMD). A chain
 * stepped alone takes lane 0 of the same code, so alone or in a batch it gets the same bits.
 * With AVX2 one 8-float vector would leave a link's long chain of dependent operations
 * (square roots, divisions) the bottleneck, so batches take 16 lanes there, two independent
 * vectors; a batch of at most 8 chains, or without AVX2 at run time, takes 8-lane kernels. */
#if TL_LANES_AVX2
#define LANES 16
#define HALF_LANES 8 /* LANES / 2, as a literal for the kernels' names */
#else
#define LANES 8
#endif

/* What never changes after create, per link. The step works in the hips frame carried by the
 * current parent, W_i = G_i A_i^-1 (G_i the parent's corrected world rotation): then the bend
 * is swing(u_i, W^-1 d), the read-back swing(b_i, W^-1 d) and W_{i+1} = W_i S_i C_i. */
typedef struct link_const {
    qt hips_from_parent; /* A_i: the parent's corrected rest frame -> hips frame */
    qt neutral;          /* N_i: bone i's neutral local rotation */
    qt rest_local;       /* the local rotation that puts the link on its rest arc */
    qt next_frame;       /* C_i = A_i N_i A_{i+1}^-1: W_{i+1} = W_i S_i C_i */
    qt rest_swing;       /* S_i at rest: swing(b_i, u_i) */
    v3 rest_dir;         /* r_i: rest arc direction in the parent's frame */
    v3 rest_dir_hips;    /* u_i: the same in the hips frame */
    v3 bind_dir;         /* the bind direction in the parent's frame */
    v3 bind_dir_hips;    /* b_i = A_i bind */
    v3 own_dir;          /* the bind direction in the bone's own frame (FK of the output) */
    float length;        /* bind units */
    float omega2;        /* omega^2, 1/s^2 */
    float damping;       /* 2 zeta omega, 1/s */
    float limit;         /* theta_max, radians */
    float cos_half_limit, sin_half_limit;
} link_const;

/* One link of W chains, structure of arrays (the step's working copy): lane_link for a batch
 * (W = LANES), lane_link1 for a chain alone (W = 1, on the stack of its step). */
#define LANE_LINK_FIELDS(W)                                                                        \
    /* state, gathered from the chains every frame and scattered back */                           \
    float px[W], py[W], pz[W]; /* tip particle, world */                                           \
    float vx[W], vy[W], vz[W];                                                                     \
    float bx[W], by[W], bz[W], bw[W]; /* bend (hips frame), last step */                           \
    float sx[W], sy[W], sz[W], sw[W]; /* read-back swing S_i, last step */                         \
    float ox[W], oy[W], oz[W], ow[W]; /* ... the step before */                                    \
    /* constants, gathered only when a lane changes chain */                                       \
    float ux[W], uy[W], uz[W];        /* u_i */                                                    \
    float cx[W], cy[W], cz[W];        /* b_i */                                                    \
    float kx[W], ky[W], kz[W], kw[W]; /* C_i */                                                    \
    float ax[W], ay[W], az[W], aw[W]; /* A_i */                                                    \
    float nx[W], ny[W], nz[W], nw[W]; /* N_i */                                                    \
    float ex[W], ey[W], ez[W];        /* own direction */                                          \
    float len[W], omega2[W], damping[W], cos_lim[W], sin_lim[W];
typedef struct lane_link {
    LANE_LINK_FIELDS(LANES)
} lane_link;
typedef struct lane_link1 {
    LANE_LINK_FIELDS(1)
} lane_link1;

/* The render-time output of one link of W chains on its way to them: a few links at a time on
 * the stack (OUTPUT_BLOCK), not in the batch's working copy, which stays smaller in cache. */
#define LANE_OUTPUT_FIELDS(W)                                                                      \
    float Lx[W], Ly[W], Lz[W], Lw[W]; /* local rotation */                                         \
    float Tx[W], Ty[W], Tz[W];        /* tip */                                                    \
    int N[W]; /* whether the tip may be inside a collider (set only with cull slots) */
typedef struct lane_output {
    LANE_OUTPUT_FIELDS(LANES)
} lane_output;
typedef struct lane_output1 {
    LANE_OUTPUT_FIELDS(1)
} lane_output1;
enum { OUTPUT_BLOCK = 8 };

/* The state of one link that only the step reads (48 B; a chain keeps N of them, wherever it
 * is stepped): its bend and read-back swings, named as the lane fields so that LANE_QT and
 * SET_QT take them, each quaternion's four floats in a row (one 16-byte store). */
typedef struct link_swings {
    float bx[1], by[1], bz[1], bw[1]; /* bend (hips frame), last step: the neighbour snapshot */
    float sx[1], sy[1], sz[1], sw[1]; /* read-back swing S_i after the last internal step */
    float ox[1], oy[1], oz[1], ow[1]; /* ... the step before */
} link_swings;

/* The root's rigid motion over a frame as a velocity field: v(x) = linear + angular x (x - o). */
typedef struct rigid_motion {
    v3 linear, angular, origin;
} rigid_motion;

struct tl_chain {
    tl_allocator allocator;
    contact_memo* memo; /* its caller's (chain_contact_memo_attach), or NULL */
    int n;
    uint64_t serial;       /* unique per create: the key of the lanes' state caches */
    uint64_t constants_id; /* ... of their constants' caches: new at every change of settings */
    uint64_t settings_id;  /* ... of their settings' (lane_settings): new at every change */
    uint64_t stamp;        /* counts the changes of the state arrays below */
    /* settings, in world units for one internal step */
    float step;             /* fixed internal step, s */
    float coupling_alpha;   /* 1 - exp(-k step) */
    float slip_decay;       /* exp(-gamma step): a body collider's slip */
    float floor_slip_decay; /* ... the floor's, gamma capped (chain_api.c) */
    float gravity;          /* world units / s^2 */
    float floor_level;      /* F = floor + clearance, along up */
    float teleport2;        /* squared teleport distance, world units^2 */
    int max_substeps;
    bool floor_enabled, plane_enabled;
    v3 up;
    v3 root_offset;        /* bone 0's origin in the attachment frame */
    qt hips_in_attachment; /* H: hips axes (lateral, up, forward) as a rotation */
    link_const* links;
    /* state */
    float* positions;           /* 3N world */
    float* velocities;          /* 3N world / s */
    float* out_local;           /* 4N render-time output */
    float* out_tips;            /* 3N */
    float* out_lengths;         /* N */
    float* rest_dirs;           /* 3N, attachment frame */
    float* limits;              /* N */
    float* radii;               /* N: the def's joint_radii (0: unknown) */
    tl_chain_settings settings; /* as given (tl_chain_get_settings) */
    float scale, floor_height;  /* the def's, for tl_chain_set_settings */
    v3 force;                   /* this frame's external acceleration, world units / s^2 */
    float last_hips_target[4];  /* tl_chain_step_sampled: the hips rotation its last frame
                                   ended with (the next one starts there) */
    tl_chain_pose solved_pose;  /* the attachment pose of the last internal step */
    tl_chain_pose last_target;  /* the previous frame's target */
    qt solved_hips;             /* the hips frame's world rotation at solved_pose */
    /* last_target as the caller gave it (before normalising), when given_known: a start
     * bit-identical to it is valid and no cut, and normalises to last_target (its checks are
     * skipped) */
    tl_chain_pose last_given;
    bool given_known;
    bool given_hips_known; /* ... and that frame's hips rode the attachment: given_hips is its
                              hips_target, hips_world(last_target) (the next start's) */
    qt given_hips;
    /* the previous frame, for the curve of the attachment's motion across a frame and the
     * motion a teleport frame would have had without its jump */
    tl_chain_pose last_start; /* its start (after a teleport: where it would have started) */
    qt last_hips_start;       /* the hips frame's world rotation there */
    double last_dt;           /* its length, s */
    bool history;             /* last_* describe an ordinary frame just before this one */
    bool still;               /* the body was still over the last frame judged (frame_still) */
    double still_for;         /* ... and how long it has been still, s */
    double accumulator;       /* simulated time owed, s, in [0, step) */
    bool placed;
    bool unseated; /* placed at rest since the last frame: not yet kept out of the colliders */
    bool velocity_feedback; /* test hook: the article's bug 2 (spring_chain_internal.h) */
    tl_chain_stats stats;
    /* N: its bends and read-back swings, the chain's own wherever it was stepped (a chain
     * stepped alone gathers everything into a working copy on the stack: 48 B a link here
     * instead of a 204-byte copy kept per chain) */
    link_swings* own;
    uint64_t listed; /* the tl_chain_batch_step call whose open groups hold its frame (0: none):
                        a chain listed twice is found without a search */
    /* where its state is while a batch's lane holds it (NULL: in the arrays above). A batch
     * keeps a chain's state in the lane it was stepped in and writes it back only when it is
     * read, changed outside the step or the lane is wanted (chain_state_sync) */
    struct lane_group* home;
    int home_lane;
    /* sleep (chain_sleep.c): the window over which the output must stay still, and the last
     * frame's input the next one must repeat */
    float sleep_speed;        /* world units / s */
    float sleep_seconds;      /* the window, s; 0: never sleeps */
    float* sleep_tips;        /* 3N: the output tips the window last counted */
    float* sleep_sums;        /* 2 x 3N: the tips integrated over time in each half of the window */
    float* sleep_from;        /* 2 x 3N: the tips where each half began */
    float sleep_reach[2];     /* the farthest any tip went from where its half began */
    double sleep_quiet;       /* s the output has moved slower than sleep_speed */
    double sleep_half[2];     /* the halves' lengths so far, s (the earlier one, the current one) */
    bool sleep_touch[2];      /* ... each touched a collider or the floor in every frame */
    uint64_t sleep_hash;      /* the last frame's colliders and growth, hashed */
    float sleep_force[3];     /* ... its force */
    float sleep_hips[4];      /* ... its hips_target (when has_hips) */
    bool sleep_has_hips;      /* ... */
    bool sleep_known;         /* the four above hold the last frame's input */
    bool sleep_dirty;         /* the host changed the settings or the particles since */
    unsigned char sleep_last; /* what the last frame adds to the window (chain_sleep.c) */
    float sleep_dt;           /* ... and its length */
};

/* (the settings' rows: kept in a batch's lanes across frames, lane_group.settings) */
#define LANE_SETTINGS_ROWS                                                                         \
    float dt[LANES], alpha[LANES], slip[LANES], floor_slip[LANES], floor_level[LANES];             \
    float lift[LANES]; /* gravity's magnitude, world units / s^2: what the muscle holds */         \
    float gx[LANES], gy[LANES], gz[LANES];    /* gravity (a frame adds its force) */               \
    float upx[LANES], upy[LANES], upz[LANES]; /* world up */                                       \
    int plane[LANES], floor[LANES];                                                                \
    float offx[LANES], offy[LANES], offz[LANES];              /* bone 0's origin, attachment */    \
    float hipx[LANES], hipy[LANES], hipz[LANES], hipw[LANES]; /* H */
typedef struct lane_settings {
    LANE_SETTINGS_ROWS
} lane_settings;

/* Chains are grouped by bone count, chain_batch_lanes() to a group, in their order; a batch
 * holds a working copy per open group. */
enum { OPEN_GROUPS = 4 };
typedef struct lane_group {
    lane_link* links;                  /* max_bones */
    tl_chain* lane_owner[LANES];       /* the chain whose state only this lane holds (or NULL) */
    float lane_scale[LANES];           /* ... and its last step's scale (its link lengths) */
    uint64_t lane_serial[LANES];       /* whose constants each lane holds (constants_id) */
    uint64_t lane_state_serial[LANES]; /* whose state each lane holds (0: nobody's) ... */
    uint64_t lane_state_stamp[LANES];  /* ... and as of which change */
    uint64_t lane_settings_id[LANES];  /* whose settings each lane of `settings` holds */
    lane_settings settings;            /* (copied into each frame's lane_frame) */
} lane_group;
struct tl_chain_batch {
    tl_allocator allocator;
    int max_bones;
    int group_count; /* working copies: enough for max_chains, so that listed in the same order
                        every frame each group of chains finds its lanes holding them */
    lane_group* groups;
};

/* Functions of one file called from another: not exported from the shared library. */
#if defined(__GNUC__)
#define SIM_INTERNAL __attribute__((visibility("hidden")))
#else
#define SIM_INTERNAL
#endif

/* ---- lanes: helpers ---- */

#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif
/* p in an ellipsoid's unit-sphere space (p = a + sum q_k axes[k]) into q; returns |q|^2, the
 * very value chain_ellipsoid_inside compares with 1 (the contact tests it alone first: most
 * tips are outside, and then nothing else is read). */
static inline float chain_ellipsoid_q(const tl_collider* c, v3 p, float q[3]) {
    v3 d = v3_sub(p, v3_load(c->a));
    float q2 = 0;
    for (int k = 0; k < 3; ++k) {
        v3 axis = v3_load(c->axes[k]);
        float r2 = v3_dot(axis, axis);
        q[k] = r2 > 0 ? v3_dot(d, axis) / r2 : 0;
        q2 += q[k] * q[k];
    }
    return q2;
}

/* An ellipsoid in its unit-sphere space q (p = a + sum q_k axes[k]): the surface point radially
 * out from the centre there, s = a + sum (q_k / |q|) axes[k], and the outward normal at s
 * (the gradient of |q|^2); true when p is inside (|q| < 1). The centre itself goes out along
 * the shortest axis. */
static inline bool chain_ellipsoid_inside(const tl_collider* c, v3 p, v3* surface, v3* normal) {
    v3 a = v3_load(c->a), axis[3];
    float q[3], q2 = chain_ellipsoid_q(c, p, q);
    int shortest = 0;
    for (int k = 0; k < 3; ++k) {
        axis[k] = v3_load(c->axes[k]);
        if (v3_dot(axis[k], axis[k]) < v3_dot(axis[shortest], axis[shortest])) shortest = k;
    }
    float rho = sqrtf(q2);
    v3 s = a, n = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        float r2 = v3_dot(axis[k], axis[k]);
        float u = rho > 1e-12f ? q[k] / rho : (k == shortest ? 1.0f : 0.0f);
        s = v3_madd(s, axis[k], u);
        if (r2 > 0) n = v3_madd(n, axis[k], u / r2);
    }
    *surface = s, *normal = v3_normalize_or(n, v3_perpendicular(axis[shortest]));
    return q2 < 1;
}

/* Ellipsoid c's axes grown by g (each axis' length plus g, its direction kept) into out; false
 * when an axis has no length or g leaves it none. The contact's growth, as src/play grows them:
 * the same bits. */
static inline bool chain_ellipsoid_grow(const tl_collider* c, float g, float out[3][3]) {
    for (int a = 0; a < 3; ++a) {
        const float* x = c->axes[a];
        float len = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (!(len > 0) || !(len + g > 0)) return false;
        for (int j = 0; j < 3; ++j)
            out[a][j] = x[j] * (len + g) / len;
    }
    return true;
}

#define LANE_V3(s, f, l) ((v3){(s)->f##x[l], (s)->f##y[l], (s)->f##z[l]})
#define LANE_QT(s, f, l) ((qt){(s)->f##x[l], (s)->f##y[l], (s)->f##z[l], (s)->f##w[l]})
#define SET_V3(s, f, l, v) ((s)->f##x[l] = (v).x, (s)->f##y[l] = (v).y, (s)->f##z[l] = (v).z)
#define SET_QT(s, f, l, q)                                                                         \
    ((s)->f##x[l] = (q).x, (s)->f##y[l] = (q).y, (s)->f##z[l] = (q).z, (s)->f##w[l] = (q).w)

enum { CULL_COLLIDERS = 8 }; /* spheres and capsules a lane culls by (beyond: no cull) */

/* The per-chain settings of the lanes and the running values of one internal step. */
typedef struct lane_frame {
    union { /* the settings' rows, by name (f->dt) or as a block (f->settings) */
        lane_settings settings;
        struct {
            LANE_SETTINGS_ROWS
        };
    };
    float scale[LANES];
    const tl_collider* colliders[LANES]; /* world, the frame's */
    int collider_count[LANES];
    const float* growth[LANES]; /* per collider and link, or NULL (tl_chain_input) */
    int links;                  /* the lanes' link count (growth's stride) */
    contact_memo* memo[LANES];  /* a chain alone's (tl_chain.memo), or NULL */
    /* the spheres and capsules of the frame's colliders again, across the lanes, so that a tip
     * outside all of them skips the contact pass (chain_cull_setup): segment start, its
     * direction ab and 1 / |ab|^2 (0: a sphere), and a squared radius grown by a margin that
     * covers the rounding of the exact test (-1: an unused slot) */
    float cull_ax[CULL_COLLIDERS][LANES], cull_ay[CULL_COLLIDERS][LANES],
        cull_az[CULL_COLLIDERS][LANES];
    float cull_bx[CULL_COLLIDERS][LANES], cull_by[CULL_COLLIDERS][LANES],
        cull_bz[CULL_COLLIDERS][LANES];
    float cull_inv[CULL_COLLIDERS][LANES], cull_r2[CULL_COLLIDERS][LANES];
    int cull_all[LANES]; /* other shapes, too many or non-finite ones: always the contact pass */
    int cull_count;      /* slots used by any lane */
    /* per internal step */
    float rx[LANES], ry[LANES], rz[LANES];            /* the chain root (head of link 0) */
    float fx[LANES], fy[LANES], fz[LANES];            /* hips forward, world */
    float ex[LANES], ey[LANES], ez[LANES];            /* hips up, world */
    float hx[LANES], hy[LANES], hz[LANES];            /* head of the current link */
    float wx[LANES], wy[LANES], wz[LANES], ww[LANES]; /* W of the current link */
    float qx[LANES], qy[LANES], qz[LANES], qw[LANES]; /* the previous link's bend snapshot */
    int contacts[LANES];
    /* the frame's poses: attachment at its start and end, hips (when given apart) */
    float psx[LANES], psy[LANES], psz[LANES], ptx[LANES], pty[LANES], ptz[LANES];
    float rsx[LANES], rsy[LANES], rsz[LANES], rsw[LANES], rtx[LANES], rty[LANES], rtz[LANES],
        rtw[LANES];
    float hsx[LANES], hsy[LANES], hsz[LANES], hsw[LANES], htx[LANES], hty[LANES], htz[LANES],
        htw[LANES];
    float ss[LANES], st[LANES];               /* scale */
    float cpx[LANES], cpy[LANES], cpz[LANES]; /* the path's bend (frame_plan) */
    float crx[LANES], cry[LANES], crz[LANES], crw[LANES];
    float chx[LANES], chy[LANES], chz[LANES], chw[LANES];
    int has_hips[LANES];
    int still[LANES]; /* the body is still this frame (frame_plan.still) */
    /* per internal step: where it is in the frame and the interpolated poses */
    float t[LANES];
    float ppx[LANES], ppy[LANES], ppz[LANES];             /* attachment position */
    float prx[LANES], pry[LANES], prz[LANES], prw[LANES]; /* attachment rotation */
    float pkx[LANES], pky[LANES], pkz[LANES], pkw[LANES]; /* hips rotation */
    float w0x[LANES], w0y[LANES], w0z[LANES], w0w[LANES]; /* W_0 = R H: the rest arc's frame */
    float ax[LANES], ay[LANES], az[LANES];    /* the rest arc's point at the current link's head */
    float hvx[LANES], hvy[LANES], hvz[LANES]; /* the head's velocity (link 0: unused) */
} lane_frame;

/* One chain's frame as tl_chain_step decided it before the internal steps. */
typedef struct frame_plan {
    tl_chain* chain;
    tl_chain_pose start, target, last_pose; /* last_pose: the last internal step's */
    qt hips_start, hips_target, last_hips;
    bool has_hips;
    /* the body is still: the attachment (and hips) have moved the chain's reach slower than its
     * rest bar for a period of the root's spring (chain_frame.c, frame_still) */
    bool still;
    const tl_collider* colliders; /* the input's, world */
    int collider_count;
    const float* collider_growth; /* the input's, or NULL */
    /* the bend of the attachment's path across the frame: an internal step at t in [0, 1]
     * takes lerp(start, target, t) + t (t - 1) curve (positions; rotations as quaternions,
     * then normalised): the parabola through the previous frame's start as well */
    v3 curve_position;
    qt curve_rotation, curve_hips;
    double begin, dt, owed;
    long steps;
} frame_plan;

/* Whether every value is finite: x - x is 0 for a finite x and NaN otherwise, so the sum is 0
 * exactly when all are (no branch per value: every frame checks its input). */
static inline bool chain_all_finite(const float* values, size_t count) {
    float zero = 0;
    for (size_t i = 0; i < count; ++i)
        zero += values[i] - values[i];
    return zero == 0;
}

/* chain_api.c: a new unique id (chain serials, constants keys, batch calls) */
SIM_INTERNAL uint64_t chain_new_id(void);

/* chain_bind.c: the rest arc and every per-link constant (spring-chain.md §3, §6) */
SIM_INTERNAL tl_result chain_hips_frame(const tl_chain_def* def, qt* out, tl_error* err);
SIM_INTERNAL tl_result chain_build_links(tl_chain* chain, const tl_chain_def* def, tl_error* err);
SIM_INTERNAL void chain_build_rest(tl_chain* chain, const tl_chain_settings* settings);

/* Link i's spring, omega = 2 pi f, f from the root's to the tip's frequency along the links. */
static inline float chain_link_omega(const tl_chain_settings* s, int i, int n) {
    float f = s->root_frequency;
    if (n > 1) f += (s->tip_frequency - s->root_frequency) * (float)i / (float)(n - 1);
    return 2.0f * PI_F * f;
}

/* chain_batch.c: writes back a chain's state from the batch lane that holds it (if any) and
 * leaves the lane a copy; chain_state_drop forgets that lane (the state is being replaced) */
SIM_INTERNAL void chain_state_sync(tl_chain* c);
SIM_INTERNAL void chain_state_drop(tl_chain* c);

/* chain_sleep.c: before a frame, whether the chain sleeps through it (nothing to step);
 * chain_sleep_reset forgets the window and wakes the chain */
SIM_INTERNAL bool chain_sleep_frame(tl_chain* c, const tl_chain_input* in, float dt);
SIM_INTERNAL void chain_sleep_reset(tl_chain* c);

/* chain_frame.c */
SIM_INTERNAL void chain_place_at_rest(tl_chain* c, const tl_chain_pose* pose, qt hips);
SIM_INTERNAL bool chain_frame_begin(tl_chain* c, const tl_chain_input* in, float dt,
                                    frame_plan* fp);
/* Where internal step j is in its frame, 0 (start) to 1 (target). (Inline: it is called per
 * lane and step.) */
static inline float chain_step_time(const frame_plan* fp, long j) {
    float t = (float)(fp->begin + (double)j * fp->chain->step / fp->dt);
    return t > 1 ? 1 : t;
}

/* chain_kernels.c: one internal step of `lanes` lanes (chain_lanes_for), the render-time
 * output, and the lane counts. `feedback`: the article's bug 2 (spring_chain_internal.h), a
 * chain alone only. */
SIM_INTERNAL int chain_batch_lanes(void);
SIM_INTERNAL int chain_lanes_for(int count);
SIM_INTERNAL void chain_lanes_steps(void* links, int n, lane_frame* f, int lanes, bool feedback);
/* Two groups of LANES lanes (each as chain_lanes_steps; their kernels interleaved) */
SIM_INTERNAL void chain_lanes_steps2(void* la, lane_frame* fa, void* lb, lane_frame* fb, int n);
/* Whether each of the LANES lanes' state (particles, swings) is finite */
SIM_INTERNAL void chain_lanes_finite(const void* links, int n, bool* finite);
SIM_INTERNAL void chain_lanes_outputs(const void* links, void* out, int n, float* t, float* gx,
                                      float* gy, float* gz, float* gw, float* hx, float* hy,
                                      float* hz, float* s, const lane_frame* f, int lanes);
/* the cull's slots of lanes 0..lanes-1 from their colliders (setup after every lane's) */
SIM_INTERNAL void chain_cull_setup(lane_frame* f, int lanes);
SIM_INTERNAL bool chain_contact(const lane_frame* f, int l, int link, v3 head, float len, v3 rest,
                                v3* pp, v3* vp, bool* touch);
SIM_INTERNAL bool chain_contact_output(const frame_plan* fp, const lane_frame* f, int l, int link,
                                       v3 head, float len, contact_memo* memo, v3* p);
SIM_INTERNAL void chain_output_near(const frame_plan* fp, const float* tips, int n, bool* near);
/* contact_memo.c: the memo's entry of collider k and link `link` (grown again when its key, the
 * axes and the growth as bits, is not theirs), or -1 when it keeps none (no memo, past its size,
 * not a grown ellipsoid); and whether the collider of entry i surely leaves the link's tip p as
 * it is (a grown ellipsoid whose bound p is beyond, or one the growth leaves no size, which the
 * pass skips; false for no entry). */
SIM_INTERNAL int chain_contact_memo_entry(contact_memo* memo, const tl_collider* colliders,
                                          const float* growth, int links, int k, int link);
SIM_INTERNAL bool chain_contact_memo_far(const contact_memo* memo, int i,
                                         const tl_collider* collider, v3 p);
/* contact_memo.c: the frame's balls of the colliders (a chain alone's frame: step_alone sets
 * them before its steps and clears them after), and which colliders' ball the rope sphere
 * |x - head| = len (with p, the tip, on it) comes within: bit k of *near; false when the memo
 * has no balls of these colliders or p is off the sphere (every collider then). Every place the
 * contact pass gives a tip is on that sphere (up to rounding, far below the margins), so a
 * collider without its bit would leave the tip as it is. */
SIM_INTERNAL void chain_contact_memo_balls(contact_memo* memo, const tl_collider* colliders,
                                           int count, const float* growth, int links);
SIM_INTERNAL bool chain_contact_memo_near(const contact_memo* memo, const tl_collider* colliders,
                                          int count, v3 head, float len, v3 p, uint32_t* near);
#if TL_LANES_AVX2
/* chain_kernels_avx2.c: the batch kernels built for AVX2 (taken when the CPU has it) */
SIM_INTERNAL bool chain_has_avx2(void);
SIM_INTERNAL void chain_lanes_steps_avx2(lane_link* links, int n, lane_frame* f, int lanes);
SIM_INTERNAL void chain_lanes_steps2_avx2(lane_link* la, lane_frame* fa, lane_link* lb,
                                          lane_frame* fb, int n);
SIM_INTERNAL void chain_lanes_finite_avx2(const lane_link* links, int n, bool* finite);
SIM_INTERNAL void chain_lanes_outputs_avx2(const lane_link* links, lane_output* out, int n,
                                           float* t, float* gx, float* gy, float* gz, float* gw,
                                           float* hx, float* hy, float* hz, float* s,
                                           const lane_frame* f, int lanes);
/* chain_kernels_avx512.c: the full batch kernels again for AVX-512 (16 floats a vector) */
SIM_INTERNAL bool chain_has_avx512(void);
SIM_INTERNAL void chain_lanes_steps_avx512(lane_link* links, int n, lane_frame* f);
SIM_INTERNAL void chain_lanes_steps2_avx512(lane_link* la, lane_frame* fa, lane_link* lb,
                                            lane_frame* fb, int n);
SIM_INTERNAL void chain_lanes_finite_avx512(const lane_link* links, int n, bool* finite);
SIM_INTERNAL void chain_lanes_outputs_avx512(const lane_link* links, lane_output* out, int n,
                                             float* t, float* gx, float* gy, float* gz, float* gw,
                                             float* hx, float* hy, float* hz, float* s,
                                             const lane_frame* f);
#endif

#endif
