/* The runtime spring chain (spring-chain.md): one damped-spring particle per bone tip in
 * world space, rope projection, bend coupling and limit in the hips frame, the plane behind
 * the hips, ground contact; fixed internal step with interpolated input and output. */
#include <tailor/sim.h>

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
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

#include "sim_math.h"
#include "spring_chain_internal.h"

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

/* One link of LANES chains, structure of arrays (the step's working copy). */
typedef struct lane_link {
    /* state, gathered from the chains every frame and scattered back */
    float px[LANES], py[LANES], pz[LANES]; /* tip particle, world */
    float vx[LANES], vy[LANES], vz[LANES];
    float bx[LANES], by[LANES], bz[LANES], bw[LANES]; /* bend (hips frame), last step */
    float sx[LANES], sy[LANES], sz[LANES], sw[LANES]; /* read-back swing S_i, last step */
    float ox[LANES], oy[LANES], oz[LANES], ow[LANES]; /* ... the step before */
    /* constants, gathered only when a lane changes chain */
    float ux[LANES], uy[LANES], uz[LANES];            /* u_i */
    float cx[LANES], cy[LANES], cz[LANES];            /* b_i */
    float kx[LANES], ky[LANES], kz[LANES], kw[LANES]; /* C_i */
    float ax[LANES], ay[LANES], az[LANES], aw[LANES]; /* A_i */
    float nx[LANES], ny[LANES], nz[LANES], nw[LANES]; /* N_i */
    float ex[LANES], ey[LANES], ez[LANES];            /* own direction */
    float len[LANES], omega2[LANES], damping[LANES], cos_lim[LANES], sin_lim[LANES];
    /* render-time output */
    float Lx[LANES], Ly[LANES], Lz[LANES], Lw[LANES]; /* local rotation */
    float Tx[LANES], Ty[LANES], Tz[LANES];            /* tip */
} lane_link;

/* The root's rigid motion over a frame as a velocity field: v(x) = linear + angular x (x - o). */
typedef struct rigid_motion {
    v3 linear, angular, origin;
} rigid_motion;

struct tl_chain {
    tl_allocator allocator;
    int n;
    uint64_t serial; /* unique per create: the key of the lanes' caches */
    uint64_t stamp;  /* counts the changes of the state arrays below */
    /* settings, in world units for one internal step */
    float step;           /* fixed internal step, s */
    float coupling_alpha; /* 1 - exp(-k step) */
    float slip_decay;     /* exp(-gamma step) */
    float gravity;        /* world units / s^2 */
    float floor_level;    /* F = floor + clearance, along up */
    float teleport2;      /* squared teleport distance, world units^2 */
    int max_substeps;
    bool floor_enabled, plane_enabled;
    v3 up;
    v3 root_offset;        /* bone 0's origin in the attachment frame */
    qt hips_in_attachment; /* H: hips axes (lateral, up, forward) as a rotation */
    link_const* links;
    /* state */
    float* positions;          /* 3N world */
    float* velocities;         /* 3N world / s */
    qt* bends;                 /* N: last step's bends in the hips frame (the neighbour snapshot) */
    qt* swing_prev;            /* N: read-back swings S_i after the step before the last */
    qt* swing_cur;             /* N: ... after the last internal step */
    float* out_local;          /* 4N render-time output */
    float* out_tips;           /* 3N */
    float* out_lengths;        /* N */
    float* rest_dirs;          /* 3N, attachment frame */
    float* limits;             /* N */
    tl_chain_pose solved_pose; /* the attachment pose of the last internal step */
    tl_chain_pose last_target; /* the previous frame's target */
    qt solved_hips;            /* the hips frame's world rotation there */
    /* the previous frame, for the curve of the attachment's motion across a frame and the
     * motion a teleport frame would have had without its jump */
    tl_chain_pose last_start; /* its start (after a teleport: where it would have started) */
    qt last_hips_start;       /* the hips frame's world rotation there */
    double last_dt;           /* its length, s */
    bool history;             /* last_* describe an ordinary frame just before this one */
    double accumulator;       /* simulated time owed, s, in [0, step) */
    bool placed;
    bool velocity_feedback; /* test hook: the article's bug 2 (spring_chain_internal.h) */
    tl_chain_stats stats;
    /* working copy for the batches this chain leads (N lane_links) and whose constants it
     * holds in each lane */
    lane_link* lanes;
    uint64_t lane_serial[LANES];       /* whose constants each lane holds */
    uint64_t lane_state_serial[LANES]; /* whose state each lane holds (0: nobody's) ... */
    uint64_t lane_state_stamp[LANES];  /* ... and as of which change */
};

tl_chain_settings tl_default_chain_settings(void) {
    tl_chain_settings s;
    s.root_frequency = 0.9f;
    s.tip_frequency = 0.45f;
    s.damping_ratio = 0.65f;
    s.gravity = 1.0f;
    s.carry_deg = 50;
    s.rest_curve = 0;
    s.coupling_rate = 12;
    s.bend_limit_deg = 30;
    s.ground_clearance = 0.025f;
    s.slip_damping = 8;
    return s;
}

tl_chain_def tl_default_chain_def(void) {
    tl_chain_def def;
    memset(&def, 0, sizeof def);
    def.hips_lateral[0] = 1;
    def.hips_up[1] = 1;
    def.hips_forward[2] = 1;
    def.up[1] = 1;
    def.scale = 1;
    def.floor_enabled = true;
    def.floor_height = 0;
    def.hips_plane_enabled = true;
    def.settings = tl_default_chain_settings();
    def.fixed_step = 1.0f / 120.0f;
    def.max_substeps = 8;
    def.teleport_distance = 1.0f;
    return def;
}

static tl_chain_pose identity_pose(void) {
    tl_chain_pose p = {{0, 0, 0}, {0, 0, 0, 1}, 1};
    return p;
}

tl_chain_input tl_default_chain_input(void) {
    tl_chain_input in;
    memset(&in, 0, sizeof in);
    in.start = in.target = identity_pose();
    in.hips_start[3] = in.hips_target[3] = 1;
    return in;
}

/* ---- matrices (only at create and for the caller's convenience) ---- */

static v3 mat_column(const float* m, int c) {
    return v3_make(m[4 * c], m[4 * c + 1], m[4 * c + 2]);
}

tl_chain_pose tl_chain_pose_from_matrix(const float m[16]) {
    tl_chain_pose pose;
    v3 x = mat_column(m, 0), y = mat_column(m, 1), z = mat_column(m, 2);
    float sx = v3_length(x), sy = v3_length(y), sz = v3_length(z);
    pose.scale = (sx + sy + sz) / 3.0f;
    x = v3_normalize_or(x, v3_make(1, 0, 0));
    y = v3_normalize_or(y, v3_make(0, 1, 0));
    z = v3_normalize_or(z, v3_make(0, 0, 1));
    qt_store(pose.rotation, qt_from_basis(x, y, z));
    v3_store(pose.position, mat_column(m, 3));
    return pose;
}

/* Inverse of an affine column-major 4x4 whose upper 3x3 is rotation times uniform scale. */
static void affine_inverse(float out[16], const float m[16]) {
    v3 x = mat_column(m, 0), y = mat_column(m, 1), z = mat_column(m, 2), t = mat_column(m, 3);
    float s2 = (v3_dot(x, x) + v3_dot(y, y) + v3_dot(z, z)) / 3.0f;
    float inv = s2 > 0 ? 1.0f / s2 : 0;
    /* (sR)^-1 = R^T / s = (sR)^T / s^2 */
    memset(out, 0, 16 * sizeof(float));
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            out[4 * c + row] = m[4 * row + c] * inv;
    for (int row = 0; row < 3; ++row)
        out[12 + row] = -(out[row] * t.x + out[4 + row] * t.y + out[8 + row] * t.z);
    out[15] = 1;
}

static void mat_mul(float out[16], const float a[16], const float b[16]) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            float s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[4 * k + r] * b[4 * c + k];
            out[4 * c + r] = s;
        }
}

void tl_chain_local_from_binds(const float parent_inverse_bind[16], const float inverse_bind[16],
                               float translation[3], float rotation[4]) {
    /* L = W_parent^-1 W = IBM_parent * IBM^-1 */
    float world[16], local[16];
    affine_inverse(world, inverse_bind);
    mat_mul(local, parent_inverse_bind, world);
    tl_chain_pose pose = tl_chain_pose_from_matrix(local);
    memcpy(translation, pose.position, sizeof pose.position);
    memcpy(rotation, pose.rotation, sizeof pose.rotation);
}

/* ---- create ---- */

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

size_t tl_chain_memory_size(int n) {
    size_t N = (size_t)n;
    return align16(sizeof(tl_chain)) + align16(N * sizeof(link_const)) +
           align16(N * sizeof(lane_link)) + 3 * align16(N * sizeof(qt)) +
           align16(N * 3 * sizeof(float)) * 4 + align16(N * 4 * sizeof(float)) +
           align16(N * sizeof(float)) * 2;
}

static void* default_alloc(size_t size, void* user) {
    (void)user;
    return malloc(size);
}
static void default_free(void* pointer, void* user) {
    (void)user;
    free(pointer);
}

static bool all_finite(const float* values, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (!isfinite(values[i])) return false;
    return true;
}

/* The hips axes as an orthonormal right-handed frame built from up and forward
 * (lateral = up x forward: the character's left when it faces +Z with +Y up). */
static tl_result hips_frame(const tl_chain_def* def, qt* out, tl_error* err) {
    v3 lateral = v3_load(def->hips_lateral), up = v3_load(def->hips_up);
    v3 forward = v3_load(def->hips_forward);
    if (!v3_finite(lateral) || !v3_finite(up) || !v3_finite(forward))
        return tl_error_set(err, TL_ERROR_INVALID, "chain: hips axes are not finite");
    up = v3_normalize_or(up, v3_make(0, 0, 0));
    forward = v3_normalize_or(v3_madd(forward, up, -v3_dot(forward, up)), v3_make(0, 0, 0));
    v3 side = v3_cross(up, forward);
    if (v3_dot(side, side) < 0.5f)
        return tl_error_set(err, TL_ERROR_INVALID,
                            "chain: hips up and forward are parallel or zero");
    if (v3_dot(side, lateral) < 0)
        return tl_error_set(err, TL_ERROR_INVALID,
                            "chain: hips axes are left-handed (lateral should be up x forward)");
    *out = qt_from_basis(side, up, forward);
    return TL_OK;
}

/* Builds the rest arc (spring-chain.md §3, §6) and every per-link constant. */
static tl_result build_links(tl_chain* chain, const tl_chain_def* def, tl_error* err) {
    int n = def->bone_count;
    link_const* L = chain->links;
    qt H = chain->hips_in_attachment;
    /* bind geometry: each bone's own-frame tip direction and length */
    for (int i = 0; i < n; ++i) {
        qt q = qt_load(def->rest_rotations + 4 * i);
        if (qt_dot(q, q) < 1e-12f)
            return tl_error_set(err, TL_ERROR_INVALID, "chain: bone %d: zero rest rotation", i);
        L[i].neutral = qt_normalize(q);
        v3 tip;
        if (i + 1 < n) {
            tip = v3_load(def->rest_translations + 3 * (i + 1));
        } else if (def->tip_translation) {
            tip = v3_load(def->tip_translation);
        } else {
            /* No Tail_End: continue the incoming tangent, expressed in the last bone's own
             * frame (copying the parent-frame vector is wrong once the bone is rotated). */
            v3 incoming = v3_load(def->rest_translations + 3 * i);
            tip = qt_unrotate(L[i].neutral, incoming);
            if (i > 0) /* as long as the link before it */
                tip = v3_scale(v3_normalize_or(tip, tip),
                               v3_length(v3_load(def->rest_translations + 3 * i)));
        }
        float len = v3_length(tip);
        if (!(len > 0) || !isfinite(len))
            return tl_error_set(err, TL_ERROR_INVALID, "chain: bone %d: link has zero length", i);
        L[i].length = len;
        L[i].own_dir = v3_scale(tip, 1.0f / len);
        L[i].bind_dir = qt_rotate(L[i].neutral, L[i].own_dir);
    }
    /* Zero length relative to the chain, so a 1 mm character's links are as long as any. */
    float longest = 0;
    for (int i = 0; i < n; ++i)
        longest = fmaxf(longest, L[i].length);
    for (int i = 0; i < n; ++i)
        if (!(L[i].length > 1e-6f * longest))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "chain: bone %d: link has zero length (%g, the longest is %g)", i,
                                (double)L[i].length, (double)longest);
    /* authored directions in hips space (x lateral, y up, z forward) */
    v3 authored[TL_CHAIN_MAX_BONES] = {{0}}, centred[TL_CHAIN_MAX_BONES] = {{0}};
    qt G = qt_identity();
    for (int i = 0; i < n; ++i) {
        G = qt_mul(G, L[i].neutral);
        authored[i] = qt_unrotate(H, qt_rotate(G, L[i].own_dir));
        centred[i] = v3_normalize_or(v3_make(0, authored[i].y, authored[i].z), v3_make(0, -1, 0));
    }
    /* The carry lifts the rest to carry_deg from straight down: a tail already further back
     * (quadrupeds) gets none. phi is signed, positive backwards (-z), in the sagittal plane. */
    float phi = atan2f(-centred[0].z, -centred[0].y); /* n >= 1 */
    float carry = def->settings.carry_deg * DEG_TO_RAD - phi;
    if (carry < 0) carry = 0;
    /* rest arc and the corrected rest frames A_i */
    float k_limit = def->settings.bend_limit_deg * DEG_TO_RAD;
    G = qt_identity();
    for (int i = 0; i < n; ++i) {
        qt Q = qt_slerp(qt_identity(), qt_swing(centred[i], authored[i]), def->settings.rest_curve);
        qt R = qt_axis_angle(v3_make(1, 0, 0), carry * (float)(i + 1) / (float)n);
        v3 u = qt_rotate(R, qt_rotate(Q, centred[i]));
        L[i].rest_dir_hips = u;
        L[i].hips_from_parent = qt_normalize(qt_mul(qt_conj(H), G));
        L[i].rest_dir = qt_unrotate(G, qt_rotate(H, u));
        L[i].rest_local =
            qt_normalize(qt_mul(qt_swing(L[i].bind_dir, L[i].rest_dir), L[i].neutral));
        G = qt_normalize(qt_mul(G, L[i].rest_local));
        v3_store(chain->rest_dirs + 3 * i, qt_rotate(H, u));

        float f = def->settings.root_frequency;
        if (n > 1)
            f += (def->settings.tip_frequency - def->settings.root_frequency) * (float)i /
                 (float)(n - 1);
        float omega = 2.0f * PI_F * f;
        L[i].omega2 = omega * omega;
        L[i].damping = 2.0f * def->settings.damping_ratio * omega;

        float limit = k_limit;
        float radius = def->joint_radii ? def->joint_radii[i] : 0;
        if (radius > 0) {
            float shortest = i > 0 && L[i - 1].length < L[i].length ? L[i - 1].length : L[i].length;
            float thick = 0.15f * shortest / radius;
            if (thick < limit) limit = thick;
        }
        L[i].limit = limit;
        L[i].cos_half_limit = cosf(0.5f * limit);
        L[i].sin_half_limit = sinf(0.5f * limit);
        chain->limits[i] = limit;
        L[i].bind_dir_hips = qt_rotate(L[i].hips_from_parent, L[i].bind_dir);
        L[i].rest_swing = qt_swing(L[i].bind_dir_hips, L[i].rest_dir_hips);
    }
    for (int i = 0; i < n; ++i) {
        qt next = i + 1 < n ? L[i + 1].hips_from_parent : qt_identity();
        L[i].next_frame =
            qt_normalize(qt_mul(qt_mul(L[i].hips_from_parent, L[i].neutral), qt_conj(next)));
    }
    return TL_OK;
}

tl_result tl_chain_create(const tl_chain_def* def, const tl_allocator* allocator, tl_chain** out,
                          tl_error* err) {
    assert(def && out);
    *out = NULL;
    int n = def->bone_count;
    assert(n >= 1 && n <= TL_CHAIN_MAX_BONES);
    assert(def->rest_translations && def->rest_rotations);
    assert(def->settings.root_frequency > 0 && def->settings.tip_frequency > 0 &&
           def->settings.damping_ratio >= 0);
    assert(def->settings.gravity >= 0 && def->scale > 0 && def->fixed_step > 0 &&
           def->max_substeps >= 1);
    assert(def->settings.rest_curve >= 0 && def->settings.rest_curve <= 1 &&
           def->settings.coupling_rate >= 0);
    assert(def->settings.bend_limit_deg > 0 && def->settings.ground_clearance >= 0 &&
           def->settings.slip_damping >= 0);
    assert(def->teleport_distance > 0);
    if (!all_finite(def->rest_translations, 3 * (size_t)n) ||
        !all_finite(def->rest_rotations, 4 * (size_t)n) ||
        (def->tip_translation && !all_finite(def->tip_translation, 3)) ||
        (def->joint_radii && !all_finite(def->joint_radii, (size_t)n)))
        return tl_error_set(err, TL_ERROR_INVALID, "chain: rest geometry has a non-finite value");
    v3 up = v3_normalize_or(v3_load(def->up), v3_make(0, 0, 0));
    assert(v3_dot(up, up) > 0.5f && "def.up must be a non-zero vector");
    qt H;
    tl_result r = hips_frame(def, &H, err);
    if (r != TL_OK) return r;

    tl_allocator a = allocator ? *allocator : (tl_allocator){default_alloc, default_free, NULL};
    unsigned char* block = a.alloc(tl_chain_memory_size(n), a.user);
    if (!block) return tl_error_set(err, TL_ERROR_MEMORY, "chain: out of memory");
    memset(block, 0, tl_chain_memory_size(n));
    tl_chain* c = (tl_chain*)block;
    size_t at = align16(sizeof(tl_chain)), N = (size_t)n;
#define CARVE(field, type, count)                                                                  \
    c->field = (type*)(block + at);                                                                \
    at += align16((count) * sizeof(type))
    CARVE(links, link_const, N);
    CARVE(lanes, lane_link, N);
    CARVE(bends, qt, N);
    CARVE(swing_prev, qt, N);
    CARVE(swing_cur, qt, N);
    CARVE(positions, float, 3 * N);
    CARVE(velocities, float, 3 * N);
    CARVE(out_tips, float, 3 * N);
    CARVE(rest_dirs, float, 3 * N);
    CARVE(out_local, float, 4 * N);
    CARVE(out_lengths, float, N);
    CARVE(limits, float, N);
#undef CARVE
    assert(at <= tl_chain_memory_size(n));

    static atomic_uint_fast64_t next_serial = 1;
    c->allocator = a;
    c->n = n;
    c->serial = (uint64_t)atomic_fetch_add(&next_serial, 1);
    c->step = def->fixed_step;
    c->coupling_alpha = 1.0f - expf(-def->settings.coupling_rate * def->fixed_step);
    c->slip_decay = expf(-def->settings.slip_damping * def->fixed_step);
    c->gravity = def->settings.gravity * def->scale;
    c->floor_level = def->floor_height + def->settings.ground_clearance * def->scale;
    c->teleport2 = def->teleport_distance * def->scale * def->teleport_distance * def->scale;
    c->max_substeps = def->max_substeps;
    c->floor_enabled = def->floor_enabled;
    c->plane_enabled = def->hips_plane_enabled;
    c->up = up;
    c->root_offset = v3_load(def->rest_translations);
    c->hips_in_attachment = H;
    r = build_links(c, def, err);
    if (r != TL_OK) {
        a.free(block, a.user);
        return r;
    }
    tl_chain_clear(c);
    *out = c;
    return TL_OK;
}

void tl_chain_destroy(tl_chain* chain) {
    if (chain) chain->allocator.free(chain, chain->allocator.user);
}

/* ---- poses ---- */

static bool pose_valid(const tl_chain_pose* p) {
    qt q = qt_load(p->rotation);
    return all_finite(p->position, 3) && qt_finite(q) && qt_dot(q, q) > 1e-12f &&
           isfinite(p->scale) && p->scale > 0;
}

static bool pose_equal(const tl_chain_pose* a, const tl_chain_pose* b) {
    return a->position[0] == b->position[0] && a->position[1] == b->position[1] &&
           a->position[2] == b->position[2] && a->rotation[0] == b->rotation[0] &&
           a->rotation[1] == b->rotation[1] && a->rotation[2] == b->rotation[2] &&
           a->rotation[3] == b->rotation[3] && a->scale == b->scale;
}

static tl_chain_pose pose_normalized(const tl_chain_pose* p) {
    tl_chain_pose out = *p;
    qt_store(out.rotation, qt_normalize(qt_load(p->rotation)));
    return out;
}

static tl_chain_pose pose_lerp(const tl_chain_pose* a, const tl_chain_pose* b, float t) {
    tl_chain_pose out;
    v3_store(out.position,
             v3_madd(v3_load(a->position), v3_sub(v3_load(b->position), v3_load(a->position)), t));
    qt_store(out.rotation, qt_slerp(qt_load(a->rotation), qt_load(b->rotation), t));
    out.scale = a->scale + (b->scale - a->scale) * t;
    return out;
}

/* The hips frame's world rotation under an attachment pose. */
static qt hips_world(const tl_chain* c, const tl_chain_pose* p) {
    return qt_mul(qt_load(p->rotation), c->hips_in_attachment);
}

/* World tips by forward kinematics from an attachment pose and local rotations. */
static void forward_kinematics(const tl_chain* c, const tl_chain_pose* pose, const qt* locals,
                               float* tips) {
    qt G = qt_load(pose->rotation);
    float s = pose->scale;
    v3 head = v3_madd(v3_load(pose->position), qt_rotate(G, c->root_offset), s);
    for (int i = 0; i < c->n; ++i) {
        G = qt_mul(G, locals[i]);
        head = v3_madd(head, qt_rotate(G, c->links[i].own_dir), s * c->links[i].length);
        v3_store(tips + 3 * i, head);
    }
}

/* The constant motion that takes the attachment from pose a to pose b in dt seconds. */
static rigid_motion motion_between(const tl_chain_pose* a, const tl_chain_pose* b, double dt) {
    rigid_motion m = {{0, 0, 0}, {0, 0, 0}, v3_load(b->position)};
    if (!(dt > 0)) return m;
    float inv = (float)(1.0 / dt);
    m.linear = v3_scale(v3_sub(v3_load(b->position), v3_load(a->position)), inv);
    qt turn = qt_mul(qt_load(b->rotation), qt_conj(qt_load(a->rotation)));
    if (turn.w < 0) turn = qt_neg(turn);
    v3 axis = {turn.x, turn.y, turn.z};
    float sine = v3_length(axis);
    if (sine > 1e-12f) m.angular = v3_scale(axis, 2.0f * atan2f(sine, turn.w) / sine * inv);
    return m;
}

static v3 motion_at(const rigid_motion* m, v3 x) {
    return v3_add(m->linear, v3_cross(m->angular, v3_sub(x, m->origin)));
}

/* How a link's damped spring on its own, x'' = -omega^2 x - 2 zeta omega x', moves a
 * displacement x and a velocity v in t seconds: x(t) = xx x + xv v, v(t) = vx x + vv v. */
static void spring_response(const link_const* L, double t, float* xx, float* xv, float* vx,
                            float* vv) {
    double w2 = L->omega2, a = 0.5 * L->damping, d2 = w2 - a * a;
    double cosine, sine_over; /* cos(w_d t), sin(w_d t) / w_d */
    if (d2 > 1e-9) {
        double wd = sqrt(d2);
        cosine = cos(wd * t), sine_over = sin(wd * t) / wd;
    } else if (d2 < -1e-9) { /* overdamped */
        double k = sqrt(-d2);
        cosine = cosh(k * t), sine_over = sinh(k * t) / k;
    } else {
        cosine = 1, sine_over = t;
    }
    double e = exp(-a * t);
    *xx = (float)(e * (cosine + a * sine_over)), *xv = (float)(e * sine_over);
    *vx = (float)(-e * w2 * sine_over), *vv = (float)(e * (cosine - a * sine_over));
}

/* What the skipped part of a long frame does to the chain's motion relative to the root. */
typedef struct relaxation {
    double seconds;      /* skipped */
    rigid_motion before; /* the root's motion as the state was left */
    rigid_motion after;  /* ... and where the simulation resumes */
} relaxation;

/* Pose p moved by the rigid motion (with uniform scale) that takes `from` to `to`. */
static tl_chain_pose pose_carried(const tl_chain_pose* from, const tl_chain_pose* to,
                                  const tl_chain_pose* p) {
    qt delta = qt_normalize(qt_mul(qt_load(to->rotation), qt_conj(qt_load(from->rotation))));
    float ratio = to->scale / from->scale;
    tl_chain_pose out;
    v3_store(
        out.position,
        v3_add(v3_load(to->position),
               v3_scale(qt_rotate(delta, v3_sub(v3_load(p->position), v3_load(from->position))),
                        ratio)));
    qt_store(out.rotation, qt_normalize(qt_mul(delta, qt_load(p->rotation))));
    out.scale = p->scale * ratio;
    return out;
}

/* Moves the state rigidly with the root from one pose to another (a teleport). With `relax`
 * (the skipped part of a hitch) each particle's displacement from its steady state under the
 * root's motion, and its velocity relative to the root, evolve meanwhile as its link's damped
 * spring would on its own: what simulating the skipped time along the frame's straight path
 * would do, without its cost. */
static void carry(tl_chain* c, const tl_chain_pose* from_pose, const tl_chain_pose* to_pose,
                  const relaxation* relax) {
    const tl_chain_pose from = *from_pose, to = *to_pose; /* either may be c->solved_pose */
    qt delta = qt_normalize(qt_mul(qt_load(to.rotation), qt_conj(qt_load(from.rotation))));
    float ratio = to.scale / from.scale;
    v3 a = v3_load(from.position), b = v3_load(to.position);
    float rest[3 * TL_CHAIN_MAX_BONES];
    const v3 gravity = v3_scale(c->up, -c->gravity);
    if (relax) {
        qt locals[TL_CHAIN_MAX_BONES];
        for (int i = 0; i < c->n; ++i)
            locals[i] = c->links[i].rest_local;
        forward_kinematics(c, &from, locals, rest);
    }
    c->stamp++;
    for (int i = 0; i < c->n; ++i) {
        v3 p = v3_load(c->positions + 3 * i), v = v3_load(c->velocities + 3 * i);
        if (relax) {
            /* relative to the particle's steady state under the root's motion: the rest arc
             * shifted by (g - 2 zeta omega v_root) / omega^2 */
            const link_const* L = &c->links[i];
            v3 at_rest = v3_load(rest + 3 * i);
            v3 before = v3_madd(gravity, motion_at(&relax->before, at_rest), -L->damping);
            v3 x = v3_sub(p, v3_madd(at_rest, before, 1.0f / L->omega2));
            v3 u = v3_sub(v, motion_at(&relax->before, p));
            float xx, xv, vx, vv;
            spring_response(L, relax->seconds, &xx, &xv, &vx, &vv);
            v3 x2 = v3_add(v3_scale(x, xx), v3_scale(u, xv));
            v3 u2 = v3_add(v3_scale(x, vx), v3_scale(u, vv));
            v3 rest_to = v3_add(b, v3_scale(qt_rotate(delta, v3_sub(at_rest, a)), ratio));
            v3 after = v3_madd(gravity, motion_at(&relax->after, rest_to), -L->damping);
            p = v3_add(v3_madd(rest_to, after, 1.0f / L->omega2),
                       v3_scale(qt_rotate(delta, x2), ratio));
            v = v3_add(motion_at(&relax->after, p), v3_scale(qt_rotate(delta, u2), ratio));
        } else {
            p = v3_add(b, v3_scale(qt_rotate(delta, v3_sub(p, a)), ratio));
            v = v3_scale(qt_rotate(delta, v), ratio);
        }
        v3_store(c->positions + 3 * i, p);
        v3_store(c->velocities + 3 * i, v);
    }
    c->solved_hips = qt_normalize(qt_mul(delta, c->solved_hips));
    c->solved_pose = pose_carried(&from, &to, &c->solved_pose);
}

static void place_at_rest(tl_chain* c, const tl_chain_pose* pose, qt hips) {
    c->stamp++;
    qt locals[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < c->n; ++i) {
        locals[i] = c->links[i].rest_local;
        c->swing_prev[i] = c->swing_cur[i] = c->links[i].rest_swing;
        c->bends[i] = qt_identity();
        c->out_lengths[i] = c->links[i].length * pose->scale;
        qt_store(c->out_local + 4 * i, locals[i]);
    }
    forward_kinematics(c, pose, locals, c->positions);
    memcpy(c->out_tips, c->positions, 3 * (size_t)c->n * sizeof(float));
    memset(c->velocities, 0, 3 * (size_t)c->n * sizeof(float));
    c->solved_pose = c->last_target = *pose;
    c->solved_hips = hips;
    c->accumulator = 0;
    c->placed = true;
    c->history = false;
}

void tl_chain_reset(tl_chain* chain, const tl_chain_pose* attachment) {
    assert(chain && attachment);
    /* A pose from a file may be degenerate (a joint keyed to scale 0, a singular matrix):
     * counted, and the chain placed under the last good pose instead. */
    if (!pose_valid(attachment)) {
        chain->stats.nonfinite_inputs++;
        attachment = &chain->last_target;
    }
    tl_chain_pose pose = pose_normalized(attachment);
    place_at_rest(chain, &pose, hips_world(chain, &pose));
}

void tl_chain_clear(tl_chain* chain) {
    assert(chain);
    tl_chain_pose origin = identity_pose();
    tl_chain_reset(chain, &origin); /* finite outputs even before the first step */
    chain->placed = false;
}

/* ---- lanes: helpers ---- */

#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif
#define LANE_V3(s, f, l) ((v3){(s)->f##x[l], (s)->f##y[l], (s)->f##z[l]})
#define LANE_QT(s, f, l) ((qt){(s)->f##x[l], (s)->f##y[l], (s)->f##z[l], (s)->f##w[l]})
#define SET_V3(s, f, l, v) ((s)->f##x[l] = (v).x, (s)->f##y[l] = (v).y, (s)->f##z[l] = (v).z)
#define SET_QT(s, f, l, q)                                                                         \
    ((s)->f##x[l] = (q).x, (s)->f##y[l] = (q).y, (s)->f##z[l] = (q).z, (s)->f##w[l] = (q).w)

/* The per-chain settings of the lanes and the running values of one internal step. */
typedef struct lane_frame {
    float dt[LANES], alpha[LANES], slip[LANES], floor_level[LANES], scale[LANES];
    float gx[LANES], gy[LANES], gz[LANES];    /* gravity, world units / s^2 */
    float upx[LANES], upy[LANES], upz[LANES]; /* world up */
    int plane[LANES], floor[LANES], feedback[LANES];
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
    float offx[LANES], offy[LANES], offz[LANES];              /* bone 0's origin, attachment */
    float hipx[LANES], hipy[LANES], hipz[LANES], hipw[LANES]; /* H */
    int has_hips[LANES];
    /* per internal step: where it is in the frame and the interpolated poses */
    float t[LANES];
    float ppx[LANES], ppy[LANES], ppz[LANES];             /* attachment position */
    float prx[LANES], pry[LANES], prz[LANES], prw[LANES]; /* attachment rotation */
    float pkx[LANES], pky[LANES], pkz[LANES], pkw[LANES]; /* hips rotation */
} lane_frame;

/* ---- one internal step of LANES chains (spring-chain.md §1, §3, §4, §7) ---- */

/* The point of the sphere |p - h| = len with dot(n, p) >= c nearest the candidate p: the
 * circle where the sphere meets the plane. u is clamped, so the link never stretches. */
static v3 project_onto_circle(v3 h, float len, v3 p, v3 n, float c, v3 fallback) {
    float u = (c - v3_dot(n, h)) / len;
    u = u > 1 ? 1 : (u < -1 ? -1 : u);
    v3 d = v3_sub(p, h);
    v3 t = v3_madd(d, n, -v3_dot(d, n));
    v3 tf = v3_madd(fallback, n, -v3_dot(fallback, n));
    t = v3_normalize_or(t, v3_normalize_or(tf, v3_perpendicular(n)));
    return v3_add(h, v3_scale(v3_madd(v3_scale(t, sqrtf(1.0f - u * u)), n, u), len));
}

/* The plane behind the hips and the floor for one lane's tip (rare: scalar). Returns whether
 * the tip moved; *touch whether it is on the floor. */
static bool contact(const lane_frame* f, int l, v3 head, float len, v3 rest, v3* pp, v3* vp,
                    bool* touch) {
    v3 p = *pp, v = *vp;
    const v3 root = LANE_V3(f, r, l), forward = LANE_V3(f, f, l), hips_up = LANE_V3(f, e, l);
    const v3 up = LANE_V3(f, up, l);
    const float floor_level = f->floor_level[l];
    bool moved = false;
    *touch = false;
    if (f->plane[l] && v3_dot(v3_sub(p, root), hips_up) < 0 &&
        v3_dot(v3_sub(p, root), forward) > 0) {
        v3 back = v3_scale(forward, -1.0f);
        p = project_onto_circle(head, len, p, back, v3_dot(back, root), rest);
        float into = v3_dot(v, back);
        if (into < 0) v = v3_madd(v, back, -into);
        moved = true;
    }
    /* ground contact wins over the bend limit */
    if (f->floor[l] && v3_dot(p, up) < floor_level) {
        p = project_onto_circle(head, len, p, up, floor_level, rest);
        if (f->plane[l] && v3_dot(v3_sub(p, root), hips_up) < 0 &&
            v3_dot(v3_sub(p, root), forward) > 0) {
            /* keep to the part of the contact circle behind the hips */
            v3 ahead = v3_normalize_or(v3_madd(forward, up, -v3_dot(forward, up)), forward);
            v3 beside = v3_madd(p, ahead, -v3_dot(v3_sub(p, head), ahead));
            p = project_onto_circle(head, len, beside, up, floor_level, v3_scale(ahead, -1.0f));
        }
        v3 dir = v3_scale(v3_sub(p, head), 1.0f / len);
        v = v3_madd(v, dir, -v3_dot(v, dir));
        float vy = v3_dot(v, up);
        v = v3_scale(v3_madd(v, up, vy > 0 ? 0 : -vy), f->slip[l]);
        moved = true;
        *touch = true;
    }
    *pp = p, *vp = v;
    return moved;
}

#define LANE_COUNT LANES
#include "spring_chain_lanes.h"
#undef LANE_COUNT
#if TL_LANES_AVX2
#define LANE_COUNT HALF_LANES
#include "spring_chain_lanes.h"
#undef LANE_COUNT
/* The batch kernels again, 8 floats a vector. The same IEEE operations in the same order (no
 * FMA: none is enabled, and C11 mode contracts nothing), so the same bits as the SSE build. */
#define LANE_COUNT LANES
#define LANE_ISA _avx2
#define LANE_TARGET __attribute__((target("avx2")))
#define LANE_AVX2 1
#include "spring_chain_lanes.h"
#undef LANE_COUNT
#define LANE_COUNT HALF_LANES
#define LANE_ISA _avx2
#define LANE_TARGET __attribute__((target("avx2")))
#include "spring_chain_lanes.h"
#undef LANE_AVX2
#undef LANE_COUNT
#endif
#define LANE_COUNT 1
#include "spring_chain_lanes.h"
#undef LANE_COUNT

/* The kernels for a batch, half a batch and one chain. */
#define BATCH(x) BATCH_(x, LANES, )
#define BATCH_(x, n, isa) BATCH__(x, n, isa)
#define BATCH__(x, n, isa) x##_##n##isa
#if TL_LANES_AVX2
#define HALF(x) BATCH_(x, HALF_LANES, )
#define BATCH_AVX2(x) BATCH_(x, LANES, _avx2)
#define HALF_AVX2(x) BATCH_(x, HALF_LANES, _avx2)
static bool has_avx2(void) {
    static atomic_int known; /* 0 not asked yet, 1 no, 2 yes */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v == 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v == 2;
}
#endif

/* How many chains a batch takes. */
static int batch_lanes(void) {
#if TL_LANES_AVX2
    return has_avx2() ? LANES : HALF_LANES;
#else
    return LANES;
#endif
}

/* The lanes that step `count` chains: LANES, HALF_LANES or 1. */
static int lanes_for(int count) {
#if TL_LANES_AVX2
    if (count > 1 && count <= HALF_LANES) return HALF_LANES;
#endif
    return count == 1 ? 1 : LANES;
}

/* One internal step of `lanes` lanes (lanes_for). (Not inlined: gcc 12 then warns
 * of the neighbours' bend that an uncoupled chain never reads.) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
lanes_steps(lane_link* links, int n, lane_frame* f, int lanes) {
#if TL_LANES_AVX2
    if (lanes > 1 && has_avx2()) {
        if (lanes == LANES) {
            BATCH_AVX2(lanes_pose)(f);
            for (int i = 0; i < n; ++i)
                BATCH_AVX2(lanes_link)(links, n, i, f);
        } else {
            HALF_AVX2(lanes_pose)(f);
            for (int i = 0; i < n; ++i)
                HALF_AVX2(lanes_link)(links, n, i, f);
        }
        return;
    }
#endif
    if (lanes == LANES) {
        BATCH(lanes_pose)(f);
        for (int i = 0; i < n; ++i)
            BATCH(lanes_link)(links, n, i, f);
#if TL_LANES_AVX2
    } else if (lanes == HALF_LANES) {
        HALF(lanes_pose)(f);
        for (int i = 0; i < n; ++i)
            HALF(lanes_link)(links, n, i, f);
#endif
    } else {
        lanes_pose_1(f);
        for (int i = 0; i < n; ++i)
            lanes_link_1(links, n, i, f);
    }
}

static void lanes_outputs(lane_link* links, int n, float* t, float* gx, float* gy, float* gz,
                          float* gw, float* hx, float* hy, float* hz, float* s, int lanes) {
#if TL_LANES_AVX2
    if (lanes > 1 && has_avx2()) {
        if (lanes == LANES)
            BATCH_AVX2(lanes_output)(links, n, t, gx, gy, gz, gw, hx, hy, hz, s);
        else
            HALF_AVX2(lanes_output)(links, n, t, gx, gy, gz, gw, hx, hy, hz, s);
        return;
    }
#endif
    if (lanes == LANES) BATCH(lanes_output)(links, n, t, gx, gy, gz, gw, hx, hy, hz, s);
#if TL_LANES_AVX2
    else if (lanes == HALF_LANES)
        HALF(lanes_output)(links, n, t, gx, gy, gz, gw, hx, hy, hz, s);
#endif
    else
        lanes_output_1(links, n, t, gx, gy, gz, gw, hx, hy, hz, s);
}

/* ---- frames ---- */

/* One chain's frame as tl_chain_step decided it before the internal steps. */
typedef struct frame_plan {
    tl_chain* chain;
    tl_chain_pose start, target, last_pose; /* last_pose: the last internal step's */
    qt hips_start, hips_target, last_hips;
    bool has_hips;
    /* the bend of the attachment's path across the frame: an internal step at t in [0, 1]
     * takes lerp(start, target, t) + t (t - 1) curve (positions; rotations as quaternions,
     * then normalised): the parabola through the previous frame's start as well */
    v3 curve_position;
    qt curve_rotation, curve_hips;
    double begin, dt, owed;
    long steps;
} frame_plan;

/* c (t) with c = (before - a + r (b - a)) / (r (r + 1)): the parabola through a (t = 0), b (1)
 * and `before` (t = -r) is lerp(a, b, t) + t (t - 1) c. */
static float curve_of(float before, float a, float b, double r) {
    /* times the reciprocal: the calls of a frame share one division (exact for r = 1) */
    return (float)(((double)before - a + r * ((double)b - a)) * (1.0 / (r * (r + 1))));
}
/* (inlined: a call passes the quaternions by halves through the stack and stalls on them) */
KERNEL qt quaternion_curve(qt before, qt a, qt b, double r) {
    if (qt_dot(a, b) < 0) b = qt_neg(b); /* the sides the step's slerp takes */
    if (qt_dot(a, before) < 0) before = qt_neg(before);
    return (qt){curve_of(before.x, a.x, b.x, r), curve_of(before.y, a.y, b.y, r),
                curve_of(before.z, a.z, b.z, r), curve_of(before.w, a.w, b.w, r)};
}

/* Validates the input, handles teleports and hitches and counts the internal steps. False
 * when the input was not finite: the chain was reset and is done for this frame. */
static bool frame_begin(tl_chain* c, const tl_chain_input* in, float dt, frame_plan* fp) {
    assert(c && in);
    bool finite = isfinite(dt) && pose_valid(&in->start) && pose_valid(&in->target);
    if (finite && in->has_hips) {
        qt a = qt_load(in->hips_start), b = qt_load(in->hips_target);
        finite = qt_finite(a) && qt_finite(b) && qt_dot(a, a) > 1e-12f && qt_dot(b, b) > 1e-12f;
    }
    if (!finite) {
        c->stats.nonfinite_inputs++;
        tl_chain_pose last = c->last_target;
        bool placed = c->placed;
        tl_chain_reset(c, &last);
        c->placed = placed;
        return false;
    }
    assert(dt >= 0 && "dt must not be negative");
    fp->chain = c;
    fp->start = pose_normalized(&in->start), fp->target = pose_normalized(&in->target);
    fp->has_hips = in->has_hips;
    fp->hips_start =
        in->has_hips ? qt_normalize(qt_load(in->hips_start)) : hips_world(c, &fp->start);
    fp->hips_target =
        in->has_hips ? qt_normalize(qt_load(in->hips_target)) : hips_world(c, &fp->target);
    fp->dt = dt;
    fp->curve_position = v3_make(0, 0, 0);
    fp->curve_rotation = fp->curve_hips = (qt){0, 0, 0, 0};

    bool history = c->placed && c->history;
    if (!c->placed) {
        place_at_rest(c, &fp->start, fp->hips_start);
    } else if (!pose_equal(&fp->start, &c->last_target)) {
        /* A cut between frames (a looping clip's wrap, a teleport, a blend snapping): the
         * caller says the attachment jumped there, so the chain jumps with it rigidly, whatever
         * the frame rate; left to the springs, the jump's response would depend on how many
         * frames it was spread over. */
        const tl_chain_pose before = c->last_target;
        carry(c, &before, &fp->start, NULL);
        /* the previous frame's path, moved by the same jump, still guides this one */
        c->last_start = pose_carried(&before, &fp->start, &c->last_start);
        qt delta =
            qt_normalize(qt_mul(qt_load(fp->start.rotation), qt_conj(qt_load(before.rotation))));
        c->last_hips_start = qt_normalize(qt_mul(delta, c->last_hips_start));
        v3 cut = v3_sub(v3_load(fp->start.position), v3_load(before.position));
        if (v3_dot(cut, cut) > c->teleport2) c->stats.teleports++;
        c->stats.cuts++;
    }
    /* the previous frame is a guide to this one when it was about as long */
    double r = history && dt > 0 ? c->last_dt / (double)dt : 0;
    bool smooth = r >= 0.25 && r <= 4;
    /* A jump within the frame (a teleport: a translation) is the frame's target position minus
     * the frame's own motion, taken as the previous frame's velocity (without one: none). Carry
     * the chain by the jump alone and simulate the frame from there as usual, its own turn
     * included; a turn of more than 45 degrees in one frame is taken to be part of the jump. */
    v3 jump = v3_sub(v3_load(fp->target.position), v3_load(fp->start.position));
    if (v3_dot(jump, jump) > c->teleport2) {
        tl_chain_pose jumped = fp->target;
        qt r0 = qt_load(fp->start.rotation), r1 = qt_load(fp->target.rotation);
        if (fabsf(qt_dot(r0, r1)) > JUMP_TURN_COS_HALF) {
            qt_store(jumped.rotation, r0);
            jumped.scale = fp->start.scale;
            if (smooth) {
                v3 velocity = v3_scale(
                    v3_sub(v3_load(c->last_target.position), v3_load(c->last_start.position)),
                    (float)(1.0 / c->last_dt));
                v3_store(jumped.position, v3_madd(v3_load(fp->target.position), velocity, -dt));
            }
        }
        qt turn = qt_mul(qt_load(jumped.rotation), qt_conj(r0));
        fp->hips_start =
            in->has_hips ? qt_normalize(qt_mul(turn, fp->hips_start)) : hips_world(c, &jumped);
        carry(c, &fp->start, &jumped, NULL);
        fp->start = jumped;
        c->stats.teleports++;
        smooth = false;
    }

    double owed = c->accumulator + (double)dt;
    long steps = (long)(owed / c->step + 1e-6); /* 1/60 s is two steps, not 1.9999 */
    fp->begin = 0; /* fraction of the frame where the simulated window starts */
    bool clamped = steps > c->max_substeps;
    if (clamped) {
        /* A hitch: simulate only the frame's last max_substeps steps at the real speed of the
         * pose. Over the rest the chain is carried with the root and relaxes as its springs
         * would, so a long frame can neither explode nor inject energy. */
        c->stats.clamped_frames++;
        steps = c->max_substeps;
        fp->begin = 1.0 - (double)steps * c->step / (double)dt;
        owed = (double)steps * c->step;
        tl_chain_pose window = pose_lerp(&fp->start, &fp->target, (float)fp->begin);
        relaxation relax;
        relax.seconds = c->accumulator + fp->begin * (double)dt;
        relax.before = motion_between(&c->last_start, &c->last_target, history ? c->last_dt : 0);
        relax.after = motion_between(&fp->start, &fp->target, dt);
        relax.after.origin = v3_load(window.position);
        carry(c, &c->solved_pose, &window, &relax);
        smooth = false;
    } else if (steps > 0) {
        fp->begin = -c->accumulator / (double)dt;
    }
    if (smooth) {
        const tl_chain_pose *a = &fp->start, *b = &fp->target, *before = &c->last_start;
        fp->curve_position =
            v3_make(curve_of(before->position[0], a->position[0], b->position[0], r),
                    curve_of(before->position[1], a->position[1], b->position[1], r),
                    curve_of(before->position[2], a->position[2], b->position[2], r));
        fp->curve_rotation = quaternion_curve(qt_load(before->rotation), qt_load(a->rotation),
                                              qt_load(b->rotation), r);
        if (fp->has_hips)
            fp->curve_hips =
                quaternion_curve(c->last_hips_start, fp->hips_start, fp->hips_target, r);
    }
    c->last_start = fp->start;
    c->last_hips_start = fp->hips_start;
    c->last_dt = dt;
    c->history = dt > 0 && !clamped;
    fp->steps = steps;
    fp->owed = owed;
    return true;
}

/* Where internal step j is in its frame, 0 (start) to 1 (target). */
static float step_time(const frame_plan* fp, long j) {
    float t = (float)(fp->begin + (double)j * fp->chain->step / fp->dt);
    return t > 1 ? 1 : t;
}

static void gather_constants(lane_link* k, int l, const tl_chain* c) {
    for (int i = 0; i < c->n; ++i, ++k) {
        const link_const* L = &c->links[i];
        SET_V3(k, u, l, L->rest_dir_hips);
        SET_V3(k, c, l, L->bind_dir_hips);
        SET_QT(k, k, l, L->next_frame);
        SET_QT(k, a, l, L->hips_from_parent);
        SET_QT(k, n, l, L->neutral);
        SET_V3(k, e, l, L->own_dir);
        k->len[l] = L->length, k->omega2[l] = L->omega2, k->damping[l] = L->damping;
        k->cos_lim[l] = L->cos_half_limit, k->sin_lim[l] = L->sin_half_limit;
    }
}

/* Copies a chain's state into lane l of a lead's working copy, unless the lane holds it
 * already (the chain was stepped in that lane last and has not changed since). */
static void gather_state(tl_chain* lead, int l, const tl_chain* c) {
    if (lead->lane_state_serial[l] == c->serial && lead->lane_state_stamp[l] == c->stamp) return;
    lead->lane_state_serial[l] = c->serial;
    lead->lane_state_stamp[l] = c->stamp;
    lane_link* k = lead->lanes;
    for (int i = 0; i < c->n; ++i, ++k) {
        SET_V3(k, p, l, v3_load(c->positions + 3 * i));
        SET_V3(k, v, l, v3_load(c->velocities + 3 * i));
        SET_QT(k, b, l, c->bends[i]);
        SET_QT(k, s, l, c->swing_cur[i]);
        SET_QT(k, o, l, c->swing_prev[i]);
    }
}

/* Whether each of the first `lanes` lanes' state (particles and swings) is finite: x - x is
 * 0 for a finite x and NaN otherwise. */
static inline void lanes_finite_n(const lane_link* k, int n, bool* finite, const int lanes) {
    float nan_if_not_finite[LANES] = {0};
    for (int i = 0; i < n; ++i, ++k)
        for (int l = 0; l < lanes; ++l)
            nan_if_not_finite[l] += (k->px[l] - k->px[l]) + (k->py[l] - k->py[l]) +
                                    (k->pz[l] - k->pz[l]) + (k->vx[l] - k->vx[l]) +
                                    (k->vy[l] - k->vy[l]) + (k->vz[l] - k->vz[l]) +
                                    (k->sx[l] - k->sx[l]) + (k->sy[l] - k->sy[l]) +
                                    (k->sz[l] - k->sz[l]) + (k->sw[l] - k->sw[l]);
    for (int l = 0; l < lanes; ++l)
        finite[l] = nan_if_not_finite[l] == 0;
}
static void lanes_finite(const lane_link* k, int n, bool* finite, int lanes) {
    if (lanes > 1)
        lanes_finite_n(k, n, finite, LANES); /* (all lanes at once: SIMD) */
    else
        lanes_finite_n(k, n, finite, 1);
}

/* Writes lane l's state back into its chain. */
static void scatter_lane(const lane_link* k, int l, tl_chain* c, float scale) {
    for (int i = 0; i < c->n; ++i, ++k) {
        v3_store(c->positions + 3 * i, LANE_V3(k, p, l));
        v3_store(c->velocities + 3 * i, LANE_V3(k, v, l));
        c->bends[i] = LANE_QT(k, b, l);
        c->swing_cur[i] = LANE_QT(k, s, l);
        c->swing_prev[i] = LANE_QT(k, o, l);
        c->out_lengths[i] = k->len[l] * scale;
    }
}

#if defined(__SSE__)
/* Lanes l..l+3 of four rows (x, y, z, w) as four quaternions, one per lane: a transpose. */
static inline void lanes_to_qt4(const float* x, const float* y, const float* z, const float* w,
                                __m128 out[4]) {
    __m128 a = _mm_loadu_ps(x), b = _mm_loadu_ps(y), c = _mm_loadu_ps(z), d = _mm_loadu_ps(w);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}
/* (x, y, z, -) to three floats. */
static inline void store_xyz(float* p, __m128 v) {
    _mm_storel_pi((__m64*)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
#endif

/* Writes the state of every lane l with chains[l] back into that chain (scale[l]: the last
 * step's) and says in finite[] whether it was finite. Four lanes at a time by transposes
 * where the four lanes all go back. */
static void scatter_states(tl_chain* lead, tl_chain* const* chains, const float* scale,
                           bool* finite) {
    const lane_link* links = lead->lanes;
    const int n = lead->n;
    int lanes = LANES;
    while (lanes > 1 && !chains[lanes - 1])
        --lanes;
    if (lanes == 1 && chains[0]) { /* a chain alone: the check and the copy in one pass */
        tl_chain* c = chains[0];
        const lane_link* k = links;
        float nan_if_not_finite = 0;
        lead->lane_state_serial[0] = c->serial;
        lead->lane_state_stamp[0] = ++c->stamp;
        for (int i = 0; i < n; ++i, ++k) {
            v3 p = LANE_V3(k, p, 0), v = LANE_V3(k, v, 0);
            qt S = LANE_QT(k, s, 0);
            v3_store(c->positions + 3 * i, p);
            v3_store(c->velocities + 3 * i, v);
            c->bends[i] = LANE_QT(k, b, 0);
            c->swing_cur[i] = S;
            c->swing_prev[i] = LANE_QT(k, o, 0);
            c->out_lengths[i] = k->len[0] * scale[0];
            nan_if_not_finite += (p.x - p.x) + (p.y - p.y) + (p.z - p.z) + (v.x - v.x) +
                                 (v.y - v.y) + (v.z - v.z) + (S.x - S.x) + (S.y - S.y) +
                                 (S.z - S.z) + (S.w - S.w);
        }
        finite[0] = nan_if_not_finite == 0;
        return;
    }
    lanes_finite(links, n, finite, lanes);
    for (int l = 0; l < lanes; ++l)
        if (chains[l]) {
            lead->lane_state_serial[l] = chains[l]->serial;
            lead->lane_state_stamp[l] = ++chains[l]->stamp;
        }
    int l = 0;
#if defined(__SSE__)
    for (; l + 4 <= lanes && chains[l] && chains[l + 1] && chains[l + 2] && chains[l + 3]; l += 4) {
        tl_chain* const* c = chains + l;
        const lane_link* k = links;
        for (int i = 0; i < n; ++i, ++k) {
            __m128 q[4];
            lanes_to_qt4(k->px + l, k->py + l, k->pz + l, k->pz + l, q);
            for (int j = 0; j < 4; ++j)
                store_xyz(c[j]->positions + 3 * i, q[j]);
            lanes_to_qt4(k->vx + l, k->vy + l, k->vz + l, k->vz + l, q);
            for (int j = 0; j < 4; ++j)
                store_xyz(c[j]->velocities + 3 * i, q[j]);
            lanes_to_qt4(k->bx + l, k->by + l, k->bz + l, k->bw + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(&c[j]->bends[i].x, q[j]);
            lanes_to_qt4(k->sx + l, k->sy + l, k->sz + l, k->sw + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(&c[j]->swing_cur[i].x, q[j]);
            lanes_to_qt4(k->ox + l, k->oy + l, k->oz + l, k->ow + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(&c[j]->swing_prev[i].x, q[j]);
            for (int j = 0; j < 4; ++j)
                c[j]->out_lengths[i] = k->len[l + j] * scale[l + j];
        }
    }
#endif
    for (; l < lanes; ++l)
        if (chains[l]) scatter_lane(links, l, chains[l], scale[l]);
}

/* Steps up to LANES chains with the same bone count through one frame each. */
static void step_group(frame_plan* plans, int count) {
    tl_chain* lead = plans[0].chain;
    const int n = lead->n;
    lane_link* links = lead->lanes;
    lane_frame f;
    long max_steps = 0;
    bool early[LANES] = {false};
    const int lanes = lanes_for(count);
    for (int l = 0; l < lanes; ++l) {
        const frame_plan* fp = &plans[l < count ? l : 0]; /* spare lanes repeat lane 0 */
        const tl_chain* c = fp->chain;
        if (lead->lane_serial[l] != c->serial) {
            gather_constants(links, l, c);
            lead->lane_serial[l] = c->serial;
        }
        gather_state(lead, l, c);
        f.dt[l] = c->step, f.alpha[l] = n > 1 ? c->coupling_alpha : 0, f.slip[l] = c->slip_decay;
        f.floor_level[l] = c->floor_level;
        SET_V3(&f, g, l, v3_scale(c->up, -c->gravity));
        SET_V3(&f, up, l, c->up);
        f.plane[l] = c->plane_enabled, f.floor[l] = c->floor_enabled;
        f.feedback[l] = c->velocity_feedback;
        SET_V3(&f, ps, l, v3_load(fp->start.position));
        SET_V3(&f, pt, l, v3_load(fp->target.position));
        SET_QT(&f, rs, l, qt_load(fp->start.rotation));
        SET_QT(&f, rt, l, qt_load(fp->target.rotation));
        SET_QT(&f, hs, l, fp->hips_start);
        SET_QT(&f, ht, l, fp->hips_target);
        f.ss[l] = fp->start.scale, f.st[l] = fp->target.scale;
        SET_V3(&f, cp, l, fp->curve_position);
        SET_QT(&f, cr, l, fp->curve_rotation);
        SET_QT(&f, ch, l, fp->curve_hips);
        SET_V3(&f, off, l, c->root_offset);
        SET_QT(&f, hip, l, c->hips_in_attachment);
        f.has_hips[l] = fp->has_hips;
        if (fp->steps > max_steps) max_steps = fp->steps;
    }
    for (long j = 1; j <= max_steps; ++j) {
        for (int l = 0; l < lanes; ++l) {
            const frame_plan* fp = &plans[l < count ? l : 0];
            f.t[l] = step_time(fp, j <= fp->steps ? j : fp->steps);
        }
        lanes_steps(links, n, &f, lanes);
        for (int l = 0; l < count; ++l) {
            tl_chain* c = plans[l].chain;
            if (j > plans[l].steps) continue;
            tl_chain_pose* pose = &plans[l].last_pose;
            v3_store(pose->position, LANE_V3(&f, pp, l));
            qt_store(pose->rotation, LANE_QT(&f, pr, l));
            pose->scale = f.scale[l];
            plans[l].last_hips = LANE_QT(&f, pk, l);
            c->stats.contacts = (uint32_t)f.contacts[l];
            c->stats.steps++;
            if (j == plans[l].steps && j < max_steps) { /* done before the others */
                early[l] = true;
                tl_chain* only[LANES] = {NULL};
                float scale[LANES] = {0};
                bool finite[LANES];
                only[l] = c, scale[l] = plans[l].last_pose.scale;
                scatter_states(lead, only, scale, finite);
                if (!finite[l]) {
                    c->stats.nonfinite_states++;
                    place_at_rest(c, &plans[l].target, plans[l].hips_target);
                }
            }
        }
    }
    /* lanes the padding steps ran over no longer hold their chain's state */
    for (int l = 0; l < lanes; ++l)
        if (l >= count || plans[l].steps < max_steps) lead->lane_state_serial[l] = 0;
    /* the render-time output, from the state of each lane's own last step */
    float t[LANES], gx[LANES], gy[LANES], gz[LANES], gw[LANES], hx[LANES], hy[LANES], hz[LANES],
        s[LANES];
    tl_chain* back[LANES] = {NULL}; /* the chains whose state goes back now */
    float back_scale[LANES] = {0};
    bool finite[LANES];
    for (int l = 0; l < count; ++l) {
        frame_plan* fp = &plans[l];
        if (fp->steps > 0 && !early[l]) back[l] = fp->chain, back_scale[l] = fp->last_pose.scale;
    }
    scatter_states(lead, back, back_scale, finite);
    for (int l = 0; l < lanes; ++l) {
        frame_plan* fp = &plans[l < count ? l : 0];
        tl_chain* c = fp->chain;
        if (l < count) {
            double owed = fp->owed;
            for (long j = 0; j < fp->steps; ++j)
                owed -= c->step;
            c->accumulator = owed < 0 ? 0 : owed;
            c->last_target = fp->target;
            if (fp->steps > 0) c->solved_pose = fp->last_pose, c->solved_hips = fp->last_hips;
            if (back[l] && !finite[l]) {
                c->stats.nonfinite_states++;
                place_at_rest(c, &fp->target, fp->hips_target);
            }
            gather_state(lead, l, c); /* (only where the lane is not the chain's state) */
        }
        const tl_chain_pose* pose = &fp->target;
        qt G = qt_load(pose->rotation);
        v3 root = v3_madd(v3_load(pose->position), qt_rotate(G, c->root_offset), pose->scale);
        t[l] = (float)(c->accumulator / c->step);
        gx[l] = G.x, gy[l] = G.y, gz[l] = G.z, gw[l] = G.w;
        hx[l] = root.x, hy[l] = root.y, hz[l] = root.z, s[l] = pose->scale;
    }
    lanes_outputs(links, n, t, gx, gy, gz, gw, hx, hy, hz, s, lanes);
    int l = 0;
#if defined(__SSE__)
    for (; l + 4 <= count; l += 4) { /* four lanes at a time, as scatter_states */
        const lane_link* k = links;
        for (int i = 0; i < n; ++i, ++k) {
            __m128 q[4];
            lanes_to_qt4(k->Lx + l, k->Ly + l, k->Lz + l, k->Lw + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(plans[l + j].chain->out_local + 4 * i, q[j]);
            lanes_to_qt4(k->Tx + l, k->Ty + l, k->Tz + l, k->Tz + l, q);
            for (int j = 0; j < 4; ++j)
                store_xyz(plans[l + j].chain->out_tips + 3 * i, q[j]);
        }
    }
#endif
    for (; l < count; ++l) {
        tl_chain* c = plans[l].chain;
        const lane_link* k = links;
        for (int i = 0; i < n; ++i, ++k) {
            qt_store(c->out_local + 4 * i, LANE_QT(k, L, l));
            v3_store(c->out_tips + 3 * i, LANE_V3(k, T, l));
        }
    }
}

void tl_chain_step(tl_chain* c, const tl_chain_input* in, float dt) {
    tl_chain_step_many(&c, in, 1, dt);
}

/* Chains are grouped by bone count, batch_lanes() to a group, in their order. */
enum { OPEN_GROUPS = 4 };

void tl_chain_step_many(tl_chain* const* chains, const tl_chain_input* inputs, int count,
                        float dt) {
    assert(count >= 0 && (count == 0 || (chains && inputs)));
    frame_plan groups[OPEN_GROUPS][LANES];
    int used[OPEN_GROUPS] = {0};
    const int capacity = batch_lanes();
    for (int k = 0; k < count; ++k) {
        tl_chain* c = chains[k];
        /* a chain listed twice steps twice, one frame after the other */
        for (int g = 0; g < OPEN_GROUPS; ++g)
            for (int l = 0; l < used[g]; ++l)
                if (groups[g][l].chain == c) {
                    step_group(groups[g], used[g]);
                    used[g] = 0;
                }
        /* the group first, so that the plan is made in its place (not copied) */
        int g = 0;
        while (g < OPEN_GROUPS && !(used[g] > 0 && groups[g][0].chain->n == c->n))
            ++g;
        if (g == OPEN_GROUPS) {
            g = 0;
            while (g < OPEN_GROUPS && used[g] > 0)
                ++g;
            if (g == OPEN_GROUPS) { /* every group open for other bone counts */
                g = 0;
                step_group(groups[0], used[0]);
                used[0] = 0;
            }
        }
        if (!frame_begin(c, &inputs[k], dt, &groups[g][used[g]])) continue;
        if (++used[g] == capacity) {
            step_group(groups[g], used[g]);
            used[g] = 0;
        }
    }
    for (int g = 0; g < OPEN_GROUPS; ++g)
        if (used[g] > 0) step_group(groups[g], used[g]);
}

/* ---- output ---- */

int tl_chain_bone_count(const tl_chain* c) {
    return c->n;
}
const float* tl_chain_local_rotations(const tl_chain* c) {
    return c->out_local;
}
const float* tl_chain_tip_positions(const tl_chain* c) {
    return c->out_tips;
}
const float* tl_chain_particle_positions(const tl_chain* c) {
    return c->positions;
}
const float* tl_chain_particle_velocities(const tl_chain* c) {
    return c->velocities;
}
const float* tl_chain_link_lengths(const tl_chain* c) {
    return c->out_lengths;
}
const float* tl_chain_rest_directions(const tl_chain* c) {
    return c->rest_dirs;
}
const float* tl_chain_bend_limits(const tl_chain* c) {
    return c->limits;
}
tl_chain_stats tl_chain_get_stats(const tl_chain* c) {
    return c->stats;
}

void tl_chain_debug_velocity_feedback(tl_chain* chain, bool on) {
    chain->velocity_feedback = on;
}
