/* The lane kernels of the spring chain, included by chain_kernels*.c once per lane count:
 * LANE_COUNT 4 (a batch: loops over the lanes compile to SIMD) and 1 (a chain alone: the same
 * operations as scalar code, so a chain gets the same bits alone or in a batch). Every
 * function is named NAME(x) = x_<LANE_COUNT>. */
#ifndef LANE_FEEDBACK /* the article's bug 2 (spring_chain_internal.h): a test's variant */
#define LANE_FEEDBACK 0
#define LANE_FEEDBACK_DEFAULT
#endif
#ifndef LANE_ISA /* a suffix for a build of the kernels for another instruction set */
#define LANE_ISA
#define LANE_TARGET
#endif
#define NAME(x) NAME_(x, LANE_COUNT, LANE_ISA)
#if LANE_COUNT == 1 /* the working copy's type: one lane or a batch */
#define LINK_T lane_link1
#define OUTPUT_T lane_output1
#else
#define LINK_T lane_link
#define OUTPUT_T lane_output
#endif
#define NAME_(x, n, isa) NAME__(x, n, isa)
#define NAME__(x, n, isa) x##_##n##isa
#if defined(__clang__) && LANE_COUNT > 1
/* clang unrolls short loops before its loop vectoriser sees them */
#define EACH _Pragma("clang loop unroll(disable)") for (int l = 0; l < LANE_COUNT; ++l)
#else
#define EACH for (int l = 0; l < LANE_COUNT; ++l)
#endif

/* c ? a : b. For lanes, written with bit masks: gcc (with its default -ftrapping-math)
 * vectorises no float ?: in a loop; the value is the same for every a and b, NaN included. */
KERNEL float NAME(pick)(int c, float a, float b) {
#if LANE_COUNT == 1
    return c ? a : b;
#else
    uint32_t m = (uint32_t)0 - (uint32_t)(c != 0), x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    x = (x & m) | (y & ~m);
    memcpy(&a, &x, sizeof a);
    return a;
#endif
}
KERNEL v3 NAME(v3_pick)(int c, v3 a, v3 b) {
    return (v3){NAME(pick)(c, a.x, b.x), NAME(pick)(c, a.y, b.y), NAME(pick)(c, a.z, b.z)};
}
KERNEL qt NAME(qt_pick)(int c, qt a, qt b) {
    return (qt){NAME(pick)(c, a.x, b.x), NAME(pick)(c, a.y, b.y), NAME(pick)(c, a.z, b.z),
                NAME(pick)(c, a.w, b.w)};
}
/* c ? -a : a. For lanes, the sign bit flipped by a mask (what negation does), one operation a
 * value instead of a negation and a select. */
KERNEL float NAME(flip)(int c, float a) {
#if LANE_COUNT == 1
    return c ? -a : a;
#else
    uint32_t m = ((uint32_t)0 - (uint32_t)(c != 0)) & 0x80000000u, x;
    memcpy(&x, &a, sizeof x);
    x ^= m;
    memcpy(&a, &x, sizeof a);
    return a;
#endif
}
KERNEL qt NAME(qt_flip)(int c, qt a) {
    return (qt){NAME(flip)(c, a.x), NAME(flip)(c, a.y), NAME(flip)(c, a.z), NAME(flip)(c, a.w)};
}

/* 1 / sqrt(x) of one lane, written inside the loops over the lanes (as sqrtf) so that the values
 * on either side stay in registers (it was a loop of its own, with the values passed through
 * arrays). The kernel files are built with -fno-math-errno (CMakeLists.txt): compilers then make
 * vector square roots and divisions of them, correctly rounded as the scalar ones. */
KERNEL float NAME(rsqrt_lane)(float x) {
#if LANE_COUNT == 1
    return x != 0 ? 1.0f / sqrtf(x) : copysignf(INFINITY, x);
#else
    return 1.0f / sqrtf(x); /* (x = 0: inf, as 1 / sqrt in vectors) */
#endif
}

/* Whether any lane is flagged (the rare branches run per lane only then). With AVX2 and
 * AVX-512 one test of the flags: gcc reduced the loop by halves (about ten instructions a call,
 * most of them on the vector pipes the arithmetic needs; the pair kernel makes 16 calls a
 * link). */
LANE_TARGET KERNEL bool NAME(any_lane)(const int* flag) {
#if defined(LANE_AVX512) && LANE_COUNT == 16
    __m512i v = _mm512_loadu_si512((const void*)flag);
    return _mm512_test_epi32_mask(v, v) != 0;
#elif defined(LANE_AVX2) && LANE_COUNT == 16
    __m256i v = _mm256_or_si256(_mm256_loadu_si256((const __m256i*)flag),
                                _mm256_loadu_si256((const __m256i*)(flag + 8)));
    return !_mm256_testz_si256(v, v);
#elif defined(LANE_AVX2) && LANE_COUNT == 8
    __m256i v = _mm256_loadu_si256((const __m256i*)flag);
    return !_mm256_testz_si256(v, v);
#else
    int any = 0;
    EACH any |= flag[l];
    return any != 0;
#endif
}

/* The attachment pose and hips axes of one internal step in every lane (as pose_lerp and
 * qt_slerp: series weights within 36 degrees, exact ones beyond), W_0 = R H and the root. */
LANE_TARGET
static void NAME(lanes_pose)(lane_frame* restrict f) {
    float r_x[LANE_COUNT], r_y[LANE_COUNT], r_z[LANE_COUNT], r_w[LANE_COUNT];
    float cos_half[LANE_COUNT];
    int flag[LANE_COUNT];
    EACH {
        const float t = f->t[l], bend = t * (t - 1.0f);
        v3 a = LANE_V3(f, ps, l), b = LANE_V3(f, pt, l);
        v3 position = v3_madd(v3_madd(a, v3_sub(b, a), t), LANE_V3(f, cp, l), bend);
        SET_V3(f, pp, l, position);
        f->scale[l] = f->ss[l] + (f->st[l] - f->ss[l]) * t;
        qt A = LANE_QT(f, rs, l), B = LANE_QT(f, rt, l);
        float d = qt_dot(A, B);
        B = NAME(qt_flip)(d < 0, B);
        d = NAME(flip)(d < 0, d);
        float e = (1.0f - d) * (1.0f / 3.0f), s = 1.0f - t;
        float wa = s * (1.0f + (1.0f - s * s) * e), wb = t * (1.0f + (1.0f - t * t) * e);
        flag[l] = !(d > 0.95f);
        cos_half[l] = d;
        r_x[l] = A.x * wa + B.x * wb, r_y[l] = A.y * wa + B.y * wb;
        r_z[l] = A.z * wa + B.z * wb, r_w[l] = A.w * wa + B.w * wb;
    }
    if (NAME(any_lane)(flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (flag[l]) {
                qt A = LANE_QT(f, rs, l), B = LANE_QT(f, rt, l);
                if (qt_dot(A, B) < 0) B = qt_neg(B);
                float t = f->t[l], angle = acosf(cos_half[l]), s = 1.0f / sinf(angle);
                float wa = sinf((1.0f - t) * angle) * s, wb = sinf(t * angle) * s;
                r_x[l] = A.x * wa + B.x * wb, r_y[l] = A.y * wa + B.y * wb;
                r_z[l] = A.z * wa + B.z * wb, r_w[l] = A.w * wa + B.w * wb;
            }
    EACH {
        const float bend = f->t[l] * (f->t[l] - 1.0f); /* the path's bend (frame_plan) */
        r_x[l] += f->crx[l] * bend, r_y[l] += f->cry[l] * bend;
        r_z[l] += f->crz[l] * bend, r_w[l] += f->crw[l] * bend;
        float norm2 = r_x[l] * r_x[l] + r_y[l] * r_y[l] + r_z[l] * r_z[l] + r_w[l] * r_w[l];
        float inv = NAME(rsqrt_lane)(norm2);
        qt R = {r_x[l] * inv, r_y[l] * inv, r_z[l] * inv, r_w[l] * inv};
        R = NAME(qt_pick)(norm2 > 1e-30f, R, qt_identity());
        qt W = qt_mul(R, LANE_QT(f, hip, l)); /* W_0 = G_0 A_0^-1 = R H; the hips ride it */
        v3 root = v3_madd(LANE_V3(f, pp, l), qt_rotate(R, LANE_V3(f, off, l)), f->scale[l]);
        SET_QT(f, pr, l, R);
        SET_QT(f, w, l, W);
        SET_QT(f, pk, l, W);
        SET_QT(f, w0, l, W);
        SET_V3(f, a, l, root);
        f->hvx[l] = 0, f->hvy[l] = 0, f->hvz[l] = 0;
        SET_V3(f, h, l, root);
        SET_V3(f, r, l, root);
        flag[l] = f->has_hips[l];
    }
    if (NAME(any_lane)(flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (flag[l]) {
                float t = f->t[l], bend = t * (t - 1.0f);
                qt K = qt_slerp(LANE_QT(f, hs, l), LANE_QT(f, ht, l), t), c = LANE_QT(f, ch, l);
                if (qt_dot(K, LANE_QT(f, hs, l)) < 0) K = qt_neg(K);
                K = qt_normalize(
                    (qt){K.x + c.x * bend, K.y + c.y * bend, K.z + c.z * bend, K.w + c.w * bend});
                SET_QT(f, pk, l, K);
            }
    EACH { /* the hips' up and forward axes: columns of its rotation matrix */
        qt K = LANE_QT(f, pk, l);
        f->ex[l] = 2.0f * (K.x * K.y - K.w * K.z);
        f->ey[l] = 1.0f - 2.0f * (K.x * K.x + K.z * K.z);
        f->ez[l] = 2.0f * (K.y * K.z + K.w * K.x);
        f->fx[l] = 2.0f * (K.x * K.z + K.w * K.y);
        f->fy[l] = 2.0f * (K.y * K.z - K.w * K.x);
        f->fz[l] = 1.0f - 2.0f * (K.x * K.x + K.y * K.y);
        f->contacts[l] = 0;
    }
}

/* The working values of one link in every lane, passed between the parts of lanes_link. */
typedef struct NAME(link_work) {
    float rest_x[LANE_COUNT], rest_y[LANE_COUNT], rest_z[LANE_COUNT], len[LANE_COUNT];
    float p_x[LANE_COUNT], p_y[LANE_COUNT], p_z[LANE_COUNT];
    float v_x[LANE_COUNT], v_y[LANE_COUNT], v_z[LANE_COUNT];
    float g_x[LANE_COUNT], g_y[LANE_COUNT], g_z[LANE_COUNT]; /* held back (link_hold) */
    float c_x[LANE_COUNT], c_y[LANE_COUNT], c_z[LANE_COUNT]; /* coupled direction, if limited */
    float d_x[LANE_COUNT], d_y[LANE_COUNT], d_z[LANE_COUNT];
    float m_x[LANE_COUNT], m_y[LANE_COUNT], m_z[LANE_COUNT], m_w[LANE_COUNT]; /* neighbours' bend */
    float q_x[LANE_COUNT], q_y[LANE_COUNT], q_z[LANE_COUNT], q_w[LANE_COUNT]; /* the bend */
    float h_x[LANE_COUNT], h_y[LANE_COUNT], h_z[LANE_COUNT]; /* its direction, hips frame */
    int flag[LANE_COUNT];
} NAME(link_work);

/* The neighbour target from the snapshot (§4): midpoint(I or old_{i-1}, old_{i+1}) or
 * old_{n-2}; keeps this link's old bend for the next link. */
LANE_TARGET KERNEL void NAME(link_neighbours)(const LINK_T* restrict links, int n, int i,
                                              lane_frame* restrict f,
                                              NAME(link_work) * restrict w) {
    const LINK_T* restrict k = &links[i];
    const bool coupled = n > 1;
    if (coupled && i + 1 < n) {
        const LINK_T* restrict next = &links[i + 1];
        if (i == 0) EACH f->qx[l] = 0, f->qy[l] = 0, f->qz[l] = 0, f->qw[l] = 1;
        EACH {
            qt a = LANE_QT(f, q, l), b = LANE_QT(next, b, l);
            b = NAME(qt_flip)(qt_dot(a, b) < 0, b);
            qt m = {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
            float mid2 = m.x * m.x + m.y * m.y + m.z * m.z + m.w * m.w,
                  inv = NAME(rsqrt_lane)(mid2);
            m = NAME(qt_pick)(mid2 > 1e-30f, (qt){m.x * inv, m.y * inv, m.z * inv, m.w * inv},
                              qt_identity());
            w->m_x[l] = m.x, w->m_y[l] = m.y, w->m_z[l] = m.z, w->m_w[l] = m.w;
        }
    } else if (coupled) {
        EACH w->m_x[l] = f->qx[l], w->m_y[l] = f->qy[l], w->m_z[l] = f->qz[l], w->m_w[l] = f->qw[l];
    }
    /* keep this link's old bend for the next link's neighbour target */
    EACH f->qx[l] = k->bx[l], f->qy[l] = k->by[l], f->qz[l] = k->bz[l], f->qw[l] = k->bw[l];
}

/* The damped spring to the rest target (semi-implicit Euler) and the bend it leaves.
 * - The target is the tip's point on the rest arc carried by the attachment (W_0): a swing of
 *   the whole chain is restored by every link's spring, not by the root's alone (which left an
 *   over-damped mode that crept for seconds).
 * - The spring damps the particle's velocity and, beyond the root (`inner` 1), as much again
 *   its velocity relative to its head: the tail's own bending is damped.
 * - The muscle holds the rest arc against gravity: a lift of |g| along the hips' up carried by
 *   the parent, less its part along the link. On an upright body it cancels gravity's pull
 *   across the link, so a still chain rests on its arc, inside its limit cones, where every
 *   correction is zero (no tremor, no stored velocity, one rest whatever the history); when the
 *   body tilts or the link swings, gravity and the lift part and the tail sags. */
LANE_TARGET KERNEL void NAME(link_spring)(const LINK_T* restrict k, lane_frame* restrict f,
                                          NAME(link_work) * restrict w, float inner) {
    EACH {
        const qt W = LANE_QT(f, w, l);
        const v3 head = LANE_V3(f, h, l);
        const float dt = f->dt[l];
        const v3 u = LANE_V3(k, u, l);
        v3 rest = qt_rotate(W, u);
        float length = k->len[l] * f->scale[l];
        v3 p = LANE_V3(k, p, l), v = LANE_V3(k, v, l);
        v3 target = v3_madd(LANE_V3(f, a, l), qt_rotate(LANE_QT(f, w0, l), u), length);
        SET_V3(f, a, l, target);
        /* W's up axis (the hips' up carried by the parent) without the part along the link */
        const float wx = W.x, wy = W.y, wz = W.z, ww = W.w;
        v3 up = {2.0f * (wx * wy - ww * wz), 1.0f - 2.0f * (wx * wx + wz * wz),
                 2.0f * (wy * wz + ww * wx)};
        v3 lift = v3_scale(v3_madd(up, rest, -u.y), f->lift[l]);
        v3 acc =
            v3_add(v3_sub(v3_scale(v3_sub(target, p), k->omega2[l]), v3_scale(v, k->damping[l])),
                   v3_add(LANE_V3(f, g, l), lift));
        acc = v3_madd(acc, v3_sub(v, LANE_V3(f, hv, l)), -k->damping[l] * inner);
        v = v3_madd(v, acc, dt);
        p = v3_madd(p, v, dt);
        /* rope: the bend relative to the rest arc in the hips frame, swing(u, d / |d|) =
         * normalize(u x d, |d| + u . d) with d the particle's offset from the head in the hips
         * frame: no division before the square root of the normalisation */
        v3 d = qt_unrotate(W, v3_sub(p, head));
        float dot = v3_dot(u, d);
        v3 c = v3_cross(u, d);
        w->rest_x[l] = rest.x, w->rest_y[l] = rest.y, w->rest_z[l] = rest.z, w->len[l] = length;
        w->p_x[l] = p.x, w->p_y[l] = p.y, w->p_z[l] = p.z, w->v_x[l] = v.x, w->v_y[l] = v.y,
        w->v_z[l] = v.z;
        float d2 = v3_dot(d, d), d_len = sqrtf(d2);
        w->flag[l] = dot < -0.999999f * d_len; /* d opposite u */
        qt q = {c.x, c.y, c.z, dot + d_len};
        float norm2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, inv = NAME(rsqrt_lane)(norm2);
        /* (a particle on the head: no bend) */
        q = NAME(qt_pick)((norm2 > 1e-30f) & (d2 > 1e-24f),
                          (qt){q.x * inv, q.y * inv, q.z * inv, q.w * inv}, qt_identity());
        w->q_x[l] = q.x, w->q_y[l] = q.y, w->q_z[l] = q.z, w->q_w[l] = q.w;
    }
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) { /* d opposite u */
                qt q = qt_axis_angle(v3_perpendicular(LANE_V3(k, u, l)), PI_F);
                w->q_x[l] = q.x, w->q_y[l] = q.y, w->q_z[l] = q.z, w->q_w[l] = q.w;
            }
}

/* Coupled to the neighbours: slerp(q, m, alpha). */
LANE_TARGET KERNEL void NAME(link_couple)(const lane_frame* restrict f,
                                          NAME(link_work) * restrict w) {
    float r_x[LANE_COUNT], r_y[LANE_COUNT], r_z[LANE_COUNT], r_w[LANE_COUNT], cos_half[LANE_COUNT];
    EACH {
        qt a = {w->q_x[l], w->q_y[l], w->q_z[l], w->q_w[l]},
           b = {w->m_x[l], w->m_y[l], w->m_z[l], w->m_w[l]};
        float d = qt_dot(a, b), t = f->alpha[l];
        b = NAME(qt_flip)(d < 0, b);
        d = NAME(flip)(d < 0, d);
        /* as qt_slerp: series weights within 36 degrees, exact ones beyond (fixed below) */
        float e = (1.0f - d) * (1.0f / 3.0f), s = 1.0f - t;
        float wa = s * (1.0f + (1.0f - s * s) * e), wb = t * (1.0f + (1.0f - t * t) * e);
        w->flag[l] = !(d > 0.95f);
        cos_half[l] = d;
        w->m_x[l] = b.x, w->m_y[l] = b.y, w->m_z[l] = b.z, w->m_w[l] = b.w;
        r_x[l] = a.x * wa + b.x * wb, r_y[l] = a.y * wa + b.y * wb;
        r_z[l] = a.z * wa + b.z * wb, r_w[l] = a.w * wa + b.w * wb;
    }
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) {
                float t = f->alpha[l], angle = acosf(cos_half[l]), s = 1.0f / sinf(angle);
                float wa = sinf((1.0f - t) * angle) * s, wb = sinf(t * angle) * s;
                r_x[l] = w->q_x[l] * wa + w->m_x[l] * wb, r_y[l] = w->q_y[l] * wa + w->m_y[l] * wb;
                r_z[l] = w->q_z[l] * wa + w->m_z[l] * wb, r_w[l] = w->q_w[l] * wa + w->m_w[l] * wb;
            }
    EACH {
        float norm2 = r_x[l] * r_x[l] + r_y[l] * r_y[l] + r_z[l] * r_z[l] + r_w[l] * r_w[l];
        float inv = NAME(rsqrt_lane)(norm2);
        qt r = {r_x[l] * inv, r_y[l] * inv, r_z[l] * inv, r_w[l] * inv};
        r = NAME(qt_pick)(norm2 > 1e-30f, r, qt_identity());
        qt q = NAME(qt_pick)(f->alpha[l] > 0, r, (qt){w->q_x[l], w->q_y[l], w->q_z[l], w->q_w[l]});
        w->q_x[l] = q.x, w->q_y[l] = q.y, w->q_z[l] = q.z, w->q_w[l] = q.w;
    }
}

/* On a still body (lane_frame.still), the velocity's part the coupling took back this step is
 * set apart (g) before the limit's and the contact's velocity drops, and given back after them
 * (link_rope). The coupling moves the tip as a position and leaves its velocity: a free link
 * whose spring it holds back keeps a velocity it never moves by (the spring's pull over the
 * damping). A drop that took it now and then let the coupling throw the tip off the collider or
 * the limit, to come back as the velocity built up again: a buzz for ever on a still body
 * (docs/sim.md, sphere22 and still22). Kept where the body moves, it raised a jump's stretch:
 * there the drops take it as before. g: v's part against the coupling's move m (from the
 * spring's direction to the coupled one, dir; where the limit fired, the coupled one before it,
 * c), at most |m| / dt. Counted along v only, the part of the pull across v was left to the
 * drops, which took it now and then (a tip sliding into a two-collider crease, a bend at the
 * limit one substep in three): a buzz for ever (docs/sim.md, crease22b). */
LANE_TARGET KERNEL void NAME(link_hold)(const lane_frame* restrict f,
                                        NAME(link_work) * restrict w) {
    EACH {
        const v3 v = {w->v_x[l], w->v_y[l], w->v_z[l]};
        const v3 d = v3_sub((v3){w->p_x[l], w->p_y[l], w->p_z[l]}, LANE_V3(f, h, l));
        const float d2 = v3_dot(d, d);
        int limited = w->flag[l];
        v3 to = {w->d_x[l], w->d_y[l], w->d_z[l]};
        to = NAME(v3_pick)(limited, (v3){w->c_x[l], w->c_y[l], w->c_z[l]}, to);
        const v3 from = v3_scale(d, NAME(rsqrt_lane)(NAME(pick)(d2 > 1e-24f, d2, 1.0f)));
        const v3 m = v3_scale(v3_sub(to, from), w->len[l]);
        const float back = -v3_dot(m, v), m2 = v3_dot(m, m);
        float s = back / NAME(pick)(m2 > 1e-30f, m2, 1.0f); /* g = -s m */
        int keep = f->still[l] & (back > 0) & (m2 > 1e-30f) & (d2 > 1e-24f);
        s = NAME(pick)(keep, fminf(s, 1.0f / f->dt[l]), 0.0f);
        w->g_x[l] = -m.x * s, w->g_y[l] = -m.y * s, w->g_z[l] = -m.z * s;
        w->v_x[l] = NAME(pick)(keep, v.x - w->g_x[l], v.x);
        w->v_y[l] = NAME(pick)(keep, v.y - w->g_y[l], v.y);
        w->v_z[l] = NAME(pick)(keep, v.z - w->g_z[l], v.z);
    }
}

/* The limit: beyond theta_max the bend turns back to the limit about its own axis, and the
 * velocity that keeps pushing into it is dropped. */
LANE_TARGET KERNEL void NAME(link_limit)(const LINK_T* restrict k, const lane_frame* restrict f,
                                         NAME(link_work) * restrict w, const bool hold) {
    EACH w->flag[l] = fabsf(w->q_w[l]) < k->cos_lim[l];
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) {
                if (hold && f->still[l]) { /* (link_hold's) */
                    v3 c = qt_rotate(LANE_QT(f, w, l),
                                     qt_rotate((qt){w->q_x[l], w->q_y[l], w->q_z[l], w->q_w[l]},
                                               LANE_V3(k, u, l)));
                    w->c_x[l] = c.x, w->c_y[l] = c.y, w->c_z[l] = c.z;
                }
                float axis =
                    sqrtf(w->q_x[l] * w->q_x[l] + w->q_y[l] * w->q_y[l] + w->q_z[l] * w->q_z[l]);
                float s = (w->q_w[l] < 0 ? -k->sin_lim[l] : k->sin_lim[l]) / axis;
                w->q_x[l] *= s, w->q_y[l] *= s, w->q_z[l] *= s, w->q_w[l] = k->cos_lim[l];
            }
    EACH {
        v3 h = qt_rotate((qt){w->q_x[l], w->q_y[l], w->q_z[l], w->q_w[l]}, LANE_V3(k, u, l));
        v3 dir = qt_rotate(LANE_QT(f, w, l), h);
        w->h_x[l] = h.x, w->h_y[l] = h.y, w->h_z[l] = h.z;
        w->d_x[l] = dir.x, w->d_y[l] = dir.y, w->d_z[l] = dir.z;
    }
    if (hold) NAME(link_hold)(f, w);
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) { /* drop the velocity that keeps pushing further into the limit */
                v3 dir = {w->d_x[l], w->d_y[l], w->d_z[l]},
                   rest = {w->rest_x[l], w->rest_y[l], w->rest_z[l]};
                v3 v = {w->v_x[l], w->v_y[l], w->v_z[l]};
                v3 away =
                    v3_normalize_or(v3_madd(v3_scale(dir, v3_dot(rest, dir)), rest, -1.0f), dir);
                float into = v3_dot(v, away);
                if (into > 0) v = v3_madd(v, away, -into);
                w->v_x[l] = v.x, w->v_y[l] = v.y, w->v_z[l] = v.z;
            }
}

/* Whether each lane's tip p may be inside one of its colliders (chain_cull_setup): the
 * segment's point nearest p within the grown radius. (The steps' tips and the output's.) */
LANE_TARGET KERNEL void NAME(lanes_cull)(const lane_frame* restrict f, const float* restrict p_x,
                                         const float* restrict p_y, const float* restrict p_z,
                                         int* restrict near) {
    EACH near[l] = f->cull_all[l];
    for (int m = 0; m < f->cull_count; ++m)
        EACH {
            float px = p_x[l] - f->cull_ax[m][l], py = p_y[l] - f->cull_ay[m][l],
                  pz = p_z[l] - f->cull_az[m][l];
            float bx = f->cull_bx[m][l], by = f->cull_by[m][l], bz = f->cull_bz[m][l];
            float t = (px * bx + py * by + pz * bz) * f->cull_inv[m][l];
            t = NAME(pick)(t < 0, 0.0f, t);
            t = NAME(pick)(t > 1, 1.0f, t);
            float dx = px - bx * t, dy = py - by * t, dz = pz - bz * t;
            near[l] |= dx * dx + dy * dy + dz * dz < f->cull_r2[m][l];
        }
}

/* The rope (a rope cannot stretch, so neither can its velocity), then contact. */
LANE_TARGET KERNEL void NAME(link_rope)(const LINK_T* restrict k, int i, lane_frame* restrict f,
                                        NAME(link_work) * restrict w, const bool hold) {
    int near[LANE_COUNT];
    EACH {
        v3 dir = {w->d_x[l], w->d_y[l], w->d_z[l]}, v = {w->v_x[l], w->v_y[l], w->v_z[l]};
        v3 head = LANE_V3(f, h, l);
        v = v3_madd(v, dir, -v3_dot(v, dir));
        v3 p = v3_madd(head, dir, w->len[l]);
        v3 rel = v3_sub(p, LANE_V3(f, r, l));
        int below_root = v3_dot(rel, LANE_V3(f, e, l))<0, ahead = v3_dot(rel, LANE_V3(f, f, l))> 0;
        int behind = below_root & ahead;
        int below = v3_dot(p, LANE_V3(f, up, l)) < f->floor_level[l];
        w->flag[l] = (f->plane[l] & behind) | (f->floor[l] & below) | LANE_FEEDBACK;
        w->v_x[l] = v.x, w->v_y[l] = v.y, w->v_z[l] = v.z, w->p_x[l] = p.x, w->p_y[l] = p.y,
        w->p_z[l] = p.z;
    }
    NAME(lanes_cull)(f, w->p_x, w->p_y, w->p_z, near);
    EACH w->flag[l] |= near[l];
#ifndef NDEBUG /* a tip the cull passes over is one the contact pass would leave as it is */
    for (int l = 0; l < LANE_COUNT; ++l)
        if (!w->flag[l] && f->collider_count[l] > 0) {
            v3 p = {w->p_x[l], w->p_y[l], w->p_z[l]}, v = {w->v_x[l], w->v_y[l], w->v_z[l]};
            bool touch;
            assert(!chain_contact(f, l, i, LANE_V3(f, h, l), w->len[l],
                                  (v3){w->rest_x[l], w->rest_y[l], w->rest_z[l]}, &p, &v, &touch));
        }
#endif
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) {
                v3 head = LANE_V3(f, h, l), rest = {w->rest_x[l], w->rest_y[l], w->rest_z[l]};
                v3 p = {w->p_x[l], w->p_y[l], w->p_z[l]}, v = {w->v_x[l], w->v_y[l], w->v_z[l]};
                bool touch;
                if (chain_contact(f, l, i, head, w->len[l], rest, &p, &v, &touch)) {
                    const qt W = LANE_QT(f, w, l);
                    v3 dir = v3_scale(v3_sub(p, head), 1.0f / w->len[l]);
                    v = v3_madd(v, dir, -v3_dot(v, dir));
                    v3 h = qt_unrotate(W, dir);
                    qt q = qt_swing(LANE_V3(k, u, l), h);
                    w->q_x[l] = q.x, w->q_y[l] = q.y, w->q_z[l] = q.z, w->q_w[l] = q.w;
                    w->h_x[l] = h.x, w->h_y[l] = h.y, w->h_z[l] = h.z;
                    f->contacts[l] += touch;
                }
                if (LANE_FEEDBACK) /* every correction / dt */
                    v = v3_scale(v3_sub(p, LANE_V3(k, p, l)), 1.0f / f->dt[l]);
                w->p_x[l] = p.x, w->p_y[l] = p.y, w->p_z[l] = p.z, w->v_x[l] = v.x, w->v_y[l] = v.y,
                w->v_z[l] = v.z;
            }
    if (hold) EACH { /* link_hold's part given back, across the link (the rope) */
            v3 e = v3_sub((v3){w->p_x[l], w->p_y[l], w->p_z[l]}, LANE_V3(f, h, l));
            v3 g = {w->g_x[l], w->g_y[l], w->g_z[l]};
            float e2 = v3_dot(e, e);
            g = v3_madd(g, e, -v3_dot(g, e) / NAME(pick)(e2 > 1e-24f, e2, 1.0f));
            int keep = f->still[l];
            w->v_x[l] = NAME(pick)(keep, w->v_x[l] + g.x, w->v_x[l]);
            w->v_y[l] = NAME(pick)(keep, w->v_y[l] + g.y, w->v_y[l]);
            w->v_z[l] = NAME(pick)(keep, w->v_z[l] + g.z, w->v_z[l]);
        }
}

/* Read back: S = swing(b, h), the rotation carrying the bind direction to the link; the
 * state stored, W of the next link. */
LANE_TARGET KERNEL void NAME(link_read_back)(LINK_T* restrict k, lane_frame* restrict f,
                                             NAME(link_work) * restrict w) {
    EACH {
        v3 b = LANE_V3(k, c, l), h = {w->h_x[l], w->h_y[l], w->h_z[l]};
        float dot = v3_dot(b, h);
        v3 c = v3_cross(b, h);
        w->flag[l] = dot < -0.999999f;
        qt S = {c.x, c.y, c.z, 1.0f + dot};
        float norm2 = S.x * S.x + S.y * S.y + S.z * S.z + S.w * S.w, inv = NAME(rsqrt_lane)(norm2);
        S = NAME(qt_pick)(norm2 > 1e-30f, (qt){S.x * inv, S.y * inv, S.z * inv, S.w * inv},
                          qt_identity());
        w->m_x[l] = S.x, w->m_y[l] = S.y, w->m_z[l] = S.z, w->m_w[l] = S.w;
    }
    if (NAME(any_lane)(w->flag))
        for (int l = 0; l < LANE_COUNT; ++l)
            if (w->flag[l]) {
                qt S = qt_axis_angle(v3_perpendicular(LANE_V3(k, c, l)), PI_F);
                w->m_x[l] = S.x, w->m_y[l] = S.y, w->m_z[l] = S.z, w->m_w[l] = S.w;
            }
    EACH {
        qt S = {w->m_x[l], w->m_y[l], w->m_z[l], w->m_w[l]};
        qt W = qt_mul(qt_mul(LANE_QT(f, w, l), S), LANE_QT(k, k, l)); /* unit: no renormalising */
        SET_QT(f, w, l, W);
        k->ox[l] = k->sx[l], k->oy[l] = k->sy[l], k->oz[l] = k->sz[l], k->ow[l] = k->sw[l];
        SET_QT(k, s, l, S);
        k->bx[l] = w->q_x[l], k->by[l] = w->q_y[l], k->bz[l] = w->q_z[l], k->bw[l] = w->q_w[l];
        k->px[l] = w->p_x[l], k->py[l] = w->p_y[l], k->pz[l] = w->p_z[l];
        k->vx[l] = w->v_x[l], k->vy[l] = w->v_y[l], k->vz[l] = w->v_z[l];
        f->hx[l] = w->p_x[l], f->hy[l] = w->p_y[l], f->hz[l] = w->p_z[l];
        f->hvx[l] = w->v_x[l], f->hvy[l] = w->v_y[l], f->hvz[l] = w->v_z[l];
    }
}

/* Link i of every lane. The straight-line code runs in loops over the lanes (SIMD); the rare
 * branches (antiparallel swings, bends more than 36 degrees from their neighbours, the bend
 * limit, contact) are flagged there and fixed per lane. `hold`: some lane is still (link_hold),
 * a constant in each of its two copies, chosen once a step (lanes_links): a moving body runs
 * the plain one (a choice per link cost the batches 5%). */
LANE_TARGET KERNEL void NAME(lanes_link_as)(LINK_T* restrict links, int n, int i,
                                            lane_frame* restrict f, const bool hold) {
    LINK_T* restrict k = &links[i];
    NAME(link_work) work;
    NAME(link_neighbours)(links, n, i, f, &work);
    NAME(link_spring)(k, f, &work, i > 0 ? 1.0f : 0.0f);
    if (n > 1) NAME(link_couple)(f, &work);
    NAME(link_limit)(k, f, &work, hold);
    NAME(link_rope)(k, i, f, &work, hold);
    NAME(link_read_back)(k, f, &work);
}
LANE_TARGET
static void NAME(lanes_link)(LINK_T* restrict links, int n, int i, lane_frame* restrict f) {
    NAME(lanes_link_as)(links, n, i, f, false);
}
LANE_TARGET
static void NAME(lanes_link_held)(LINK_T* restrict links, int n, int i, lane_frame* restrict f) {
    NAME(lanes_link_as)(links, n, i, f, true);
}
/* Every link of one internal step. */
LANE_TARGET
static void NAME(lanes_links)(LINK_T* restrict links, int n, lane_frame* restrict f) {
    if (!LANE_FEEDBACK && NAME(any_lane)(f->still))
        for (int i = 0; i < n; ++i)
            NAME(lanes_link_held)(links, n, i, f);
    else
        for (int i = 0; i < n; ++i)
            NAME(lanes_link)(links, n, i, f);
}

#if LANE_COUNT > 1 && defined(LANE_FULL) /* (the full batch's width: its extras) */
/* Whether each lane's state (particles and swings) is finite: x - x is 0 for a finite x and
 * NaN otherwise. */
LANE_TARGET
static void NAME(lanes_finite)(const LINK_T* restrict links, int n, bool* restrict finite) {
    float nan_if_not_finite[LANE_COUNT] = {0};
    for (int i = 0; i < n; ++i) {
        const LINK_T* restrict k = &links[i];
        EACH nan_if_not_finite[l] += (k->px[l] - k->px[l]) + (k->py[l] - k->py[l]) +
                                     (k->pz[l] - k->pz[l]) + (k->vx[l] - k->vx[l]) +
                                     (k->vy[l] - k->vy[l]) + (k->vz[l] - k->vz[l]) +
                                     (k->sx[l] - k->sx[l]) + (k->sy[l] - k->sy[l]) +
                                     (k->sz[l] - k->sz[l]) + (k->sw[l] - k->sw[l]);
    }
    for (int l = 0; l < LANE_COUNT; ++l)
        finite[l] = nan_if_not_finite[l] == 0;
}

/* Link i of two groups' lanes, their parts alternating: each group's link is one dependent
 * chain of square roots and divisions, and the other group's part beside it gives the core
 * independent work meanwhile. Each group's operations are lanes_link's, so its bits too (a group
 * without a still lane held or not: link_hold leaves a moving lane's values as they are). */
LANE_TARGET KERNEL void NAME(lanes_link2_as)(LINK_T* restrict la, lane_frame* restrict fa,
                                             LINK_T* restrict lb, lane_frame* restrict fb, int n,
                                             int i, const bool hold) {
    LINK_T* restrict ka = &la[i];
    LINK_T* restrict kb = &lb[i];
    NAME(link_work) wa, wb;
    NAME(link_neighbours)(la, n, i, fa, &wa);
    NAME(link_neighbours)(lb, n, i, fb, &wb);
    NAME(link_spring)(ka, fa, &wa, i > 0 ? 1.0f : 0.0f);
    NAME(link_spring)(kb, fb, &wb, i > 0 ? 1.0f : 0.0f);
    if (n > 1) NAME(link_couple)(fa, &wa);
    if (n > 1) NAME(link_couple)(fb, &wb);
    NAME(link_limit)(ka, fa, &wa, hold);
    NAME(link_limit)(kb, fb, &wb, hold);
    NAME(link_rope)(ka, i, fa, &wa, hold);
    NAME(link_rope)(kb, i, fb, &wb, hold);
    NAME(link_read_back)(ka, fa, &wa);
    NAME(link_read_back)(kb, fb, &wb);
}
LANE_TARGET
static void NAME(lanes_link2)(LINK_T* restrict la, lane_frame* restrict fa, LINK_T* restrict lb,
                              lane_frame* restrict fb, int n, int i) {
    NAME(lanes_link2_as)(la, fa, lb, fb, n, i, false);
}
LANE_TARGET
static void NAME(lanes_link2_held)(LINK_T* restrict la, lane_frame* restrict fa,
                                   LINK_T* restrict lb, lane_frame* restrict fb, int n, int i) {
    NAME(lanes_link2_as)(la, fa, lb, fb, n, i, true);
}
/* Every link of one internal step of the two groups. */
LANE_TARGET
static void NAME(lanes_links2)(LINK_T* restrict la, lane_frame* restrict fa, LINK_T* restrict lb,
                               lane_frame* restrict fb, int n) {
    if (NAME(any_lane)(fa->still) || NAME(any_lane)(fb->still))
        for (int i = 0; i < n; ++i)
            NAME(lanes_link2_held)(la, fa, lb, fb, n, i);
    else
        for (int i = 0; i < n; ++i)
            NAME(lanes_link2)(la, fa, lb, fb, n, i);
}
#endif

#if !LANE_FEEDBACK /* (the variant shares the output of a chain alone) */
/* Render-time output of every lane: the read-back swings of the last two steps interpolated
 * (nlerp) at t, turned into local rotations L_i = A_i^-1 S A_i N_i, and the tips by FK from
 * the root at head (the attachment pose's rotation g and scale s). With cull slots (f), which
 * tips may be inside a collider (N; output_contact's cull, in the lanes). */
LANE_TARGET
static void NAME(lanes_output)(const LINK_T* restrict links, OUTPUT_T* restrict out, int n,
                               const float* restrict t, float* restrict gx, float* restrict gy,
                               float* restrict gz, float* restrict gw, float* restrict hx,
                               float* restrict hy, float* restrict hz, const float* restrict s,
                               const lane_frame* restrict f) {
    for (int i = 0; i < n; ++i) {
        const LINK_T* restrict k = &links[i];
        OUTPUT_T* restrict o = &out[i];
        EACH {
            qt a = LANE_QT(k, o, l), b = LANE_QT(k, s, l);
            b = NAME(qt_flip)(qt_dot(a, b) < 0, b);
            qt q = {a.x + (b.x - a.x) * t[l], a.y + (b.y - a.y) * t[l], a.z + (b.z - a.z) * t[l],
                    a.w + (b.w - a.w) * t[l]};
            float norm2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
            float inv = NAME(rsqrt_lane)(norm2);
            qt S = {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
            S = NAME(qt_pick)(norm2 > 1e-30f, S, qt_identity());
            v3 axis = qt_unrotate(LANE_QT(k, a, l), (v3){S.x, S.y, S.z});
            qt local = qt_mul((qt){axis.x, axis.y, axis.z, S.w}, LANE_QT(k, n, l));
            qt G = qt_mul((qt){gx[l], gy[l], gz[l], gw[l]}, local);
            v3 head = v3_madd((v3){hx[l], hy[l], hz[l]}, qt_rotate(G, LANE_V3(k, e, l)),
                              s[l] * k->len[l]);
            gx[l] = G.x, gy[l] = G.y, gz[l] = G.z, gw[l] = G.w;
            hx[l] = head.x, hy[l] = head.y, hz[l] = head.z;
            SET_QT(o, L, l, local);
            SET_V3(o, T, l, head);
        }
        if (f->cull_count > 0) NAME(lanes_cull)(f, o->Tx, o->Ty, o->Tz, o->N);
    }
}

#endif

#undef EACH
#undef LINK_T
#undef OUTPUT_T
#ifdef LANE_FEEDBACK_DEFAULT
#undef LANE_FEEDBACK
#undef LANE_FEEDBACK_DEFAULT
#endif
#undef LANE_TARGET
#undef LANE_ISA
#undef NAME__
#undef NAME_
#undef NAME
