/* The cloth step's passes over the particles but the relaxation (cloth_kernels.c): the Verlet
 * step, the final pass's tethers a row at a time, the targets' map and the outputs. The vector
 * versions (AVX2, AVX-512, chosen at run time by cloth_simd_level) use the scalar ones'
 * operations in their order, so every level gives the same bits (test_cloth
 * pass_kernels_identical); WebAssembly runs the scalar ones. */
#if defined(__clang__) /* (before every header: clang's avx512f brings FMA, and contracts) */
#pragma STDC FP_CONTRACT OFF
#endif
#include "cloth_internal.h"

#include <math.h>

#if !defined(TL_CLOTH_AVX2) && defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define TL_CLOTH_AVX2 1
#endif
#if TL_CLOTH_AVX2
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))
#endif

/* ---- scalar (WebAssembly, and the vector loops' ends) ---- */

/* The point on the tether sphere |x - q| = L nearest p whose distance from ref is at most d
 * (the nearest to ref when the two do not meet: the tether wins). In double: where the ball
 * barely meets the sphere (the particle above at its own limit) the cap's edge moves by
 * sqrt(float rounding), which left particles 1.6e-4 d past their safe distance. */
v3 cloth_tether_point(v3 q, float L, v3 p, v3 ref, float d) {
    double u[3] = {(double)ref.x - q.x, (double)ref.y - q.y, (double)ref.z - q.z};
    double w[3] = {(double)p.x - q.x, (double)p.y - q.y, (double)p.z - q.z};
    double D = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    double lw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double axis[3] = {0, -1, 0};
    /* one division and three products, not three divisions (the vector passes' cost) */
    double iD = 1.0 / D, il = 1.0 / lw;
    if (D > 1e-12)
        for (int k = 0; k < 3; ++k)
            axis[k] = u[k] * iD;
    for (int k = 0; k < 3; ++k)
        w[k] = lw > 1e-12 ? w[k] * il : axis[k];
    if (D > 1e-12) {
        double c = ((double)L * L + D * D - (double)d * d) / (2.0 * L * D);
        double dot = w[0] * axis[0] + w[1] * axis[1] + w[2] * axis[2];
        if (c >= 1.0) {
            for (int k = 0; k < 3; ++k)
                w[k] = axis[k];
        } else if (c > -1.0 && dot < c) { /* turned toward the axis onto the cap's edge */
            double perp[3] = {w[0] - axis[0] * dot, w[1] - axis[1] * dot, w[2] - axis[2] * dot};
            double lp = sqrt(perp[0] * perp[0] + perp[1] * perp[1] + perp[2] * perp[2]);
            if (!(lp > 1e-12)) {
                v3 any = v3_perpendicular(v3_make((float)axis[0], (float)axis[1], (float)axis[2]));
                perp[0] = any.x, perp[1] = any.y, perp[2] = any.z, lp = 1;
            }
            double sn = sqrt(1.0 - c * c);
            for (int k = 0; k < 3; ++k)
                w[k] = axis[k] * c + perp[k] / lp * sn;
        }
    }
    return v3_make((float)(q.x + w[0] * L), (float)(q.y + w[1] * L), (float)(q.z + w[2] * L));
}

/* The tether pass over one row's particles [i0, i0 + count) (row >= 1): the clamp count of the
 * particles beyond their safe distance, then each onto its tether (cloth_tether_point). */
static int tether_scalar(tl_cloth* c, int from, int to, float u) {
    const tl_cloth_model* m = c->model;
    int C = m->columns, clamps = 0;
    for (int i = from; i < to; ++i) {
        v3 q = v3_make(c->x[i - C], c->y[i - C], c->z[i - C]);
        v3 p = v3_make(c->x[i], c->y[i], c->z[i]);
        v3 t0 = v3_make(c->t0x[i], c->t0y[i], c->t0z[i]);
        v3 ref = v3_madd(t0, v3_sub(v3_make(c->t1x[i], c->t1y[i], c->t1z[i]), t0), u);
        float d = c->max_distance[i];
        v3 e = v3_sub(p, ref);
        clamps += v3_dot(e, e) > d * d;
        p = cloth_tether_point(q, m->tether[i], p, ref, d);
        c->x[i] = p.x, c->y[i] = p.y, c->z[i] = p.z;
    }
    return clamps;
}

static void map_targets_scalar(tl_cloth* c, const double m[9], const double t[3], const double o[3],
                               const float* targets, int from) {
    for (int i = from; i < c->n; ++i) {
        const float* w = targets + 3 * i;
        double q[3];
        for (int k = 0; k < 3; ++k)
            q[k] = m[3 * k] * w[0] + m[3 * k + 1] * w[1] + m[3 * k + 2] * w[2] - t[k] - o[k];
        c->t1x[i] = (float)q[0], c->t1y[i] = (float)q[1], c->t1z[i] = (float)q[2];
    }
}

/* The outputs, interleaved: out_local the state, out_world its map (affine_apply's order). */
static void write_outputs_scalar(tl_cloth* c, const float* A, int from) {
    for (int i = from; i < c->n; ++i) {
        float q[3] = {c->x[i], c->y[i], c->z[i]};
        for (int k = 0; k < 3; ++k) {
            c->out_local[3 * i + k] = q[k];
            c->out_world[3 * i + k] =
                (A[k] * q[0] + A[3 + k] * q[1]) + (A[6 + k] * q[2] + A[9 + k]);
        }
    }
}

static void integrate_scalar(tl_cloth* c, const float* A, v3 g, v3 w, float contact_keep, int from,
                             int to) {
    for (int i = from; i < to; ++i) {
        float a = c->share[i];
        float x[3] = {c->x[i], c->y[i], c->z[i]}, p[3] = {c->px[i], c->py[i], c->pz[i]};
        float keep = (1.0f - c->damping[i]) * (c->contact[i] ? contact_keep : 1.0f);
        float gw[3] = {g.x + w.x * c->wind[i], g.y + w.y * c->wind[i], g.z + w.z * c->wind[i]};
        float next[3], xs[3];
        for (int k = 0; k < 3; ++k) { /* affine_apply, then a share of the world motion */
            float xw = (A[k] * x[0] + A[3 + k] * x[1]) + (A[6 + k] * x[2] + A[9 + k]);
            float pw = (A[k] * p[0] + A[3 + k] * p[1]) + (A[6 + k] * p[2] + A[9 + k]);
            float pk = p[k] + (pw - p[k]) * a;
            xs[k] = x[k] + (xw - x[k]) * a;
            next[k] = (xs[k] + (xs[k] - pk) * keep) + gw[k];
        }
        c->px[i] = xs[0], c->py[i] = xs[1], c->pz[i] = xs[2];
        c->x[i] = next[0], c->y[i] = next[1], c->z[i] = next[2];
    }
}

#if TL_CLOTH_AVX2
/* The tether pass 4 particles a vector, in double as cloth_tether_point and with its operations
 * in its order, so the same bits; its branches are blends, and a lane in its rare corner (w on
 * the cap's axis) is solved again by it. */
#define D4(v) _mm256_cvtps_pd(v)
AVX2 static int tether_avx2(tl_cloth* c, int from, int to, float u) {
    const tl_cloth_model* m = c->model;
    int C = m->columns, clamps = 0, i = from;
    const __m256d eps = _mm256_set1_pd(1e-12), one = _mm256_set1_pd(1.0);
    const __m256d zero = _mm256_setzero_pd(), minus1 = _mm256_set1_pd(-1.0);
    __m128 uu = _mm_set1_ps(u);
    for (; i + 4 <= to; i += 4) {
        int rare = 0;
        __m128 fqx = _mm_loadu_ps(c->x + i - C), fqy = _mm_loadu_ps(c->y + i - C);
        __m128 fqz = _mm_loadu_ps(c->z + i - C);
        __m128 fpx = _mm_loadu_ps(c->x + i), fpy = _mm_loadu_ps(c->y + i);
        __m128 fpz = _mm_loadu_ps(c->z + i);
        __m128 t0x = _mm_loadu_ps(c->t0x + i), t0y = _mm_loadu_ps(c->t0y + i);
        __m128 t0z = _mm_loadu_ps(c->t0z + i);
        __m128 rx = _mm_add_ps(t0x, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(c->t1x + i), t0x), uu));
        __m128 ry = _mm_add_ps(t0y, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(c->t1y + i), t0y), uu));
        __m128 rz = _mm_add_ps(t0z, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(c->t1z + i), t0z), uu));
        __m128 fd = _mm_loadu_ps(c->max_distance + i), fL = _mm_loadu_ps(m->tether + i);
        __m128 ex = _mm_sub_ps(fpx, rx), ey = _mm_sub_ps(fpy, ry), ez = _mm_sub_ps(fpz, rz);
        __m128 e2 =
            _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex, ex), _mm_mul_ps(ey, ey)), _mm_mul_ps(ez, ez));
        clamps +=
            __builtin_popcount((unsigned)_mm_movemask_ps(_mm_cmpgt_ps(e2, _mm_mul_ps(fd, fd))));

        __m256d qx = D4(fqx), qy = D4(fqy), qz = D4(fqz), L = D4(fL), d = D4(fd);
        __m256d ux = _mm256_sub_pd(D4(rx), qx), uy = _mm256_sub_pd(D4(ry), qy);
        __m256d uz = _mm256_sub_pd(D4(rz), qz);
        __m256d wx = _mm256_sub_pd(D4(fpx), qx), wy = _mm256_sub_pd(D4(fpy), qy);
        __m256d wz = _mm256_sub_pd(D4(fpz), qz);
        __m256d D = _mm256_sqrt_pd(_mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(ux, ux), _mm256_mul_pd(uy, uy)), _mm256_mul_pd(uz, uz)));
        __m256d lw = _mm256_sqrt_pd(_mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(wx, wx), _mm256_mul_pd(wy, wy)), _mm256_mul_pd(wz, wz)));
        __m256d hasD = _mm256_cmp_pd(D, eps, _CMP_GT_OQ), hasw = _mm256_cmp_pd(lw, eps, _CMP_GT_OQ);
        __m256d iD = _mm256_div_pd(one, D), il = _mm256_div_pd(one, lw);
        __m256d ax = _mm256_blendv_pd(zero, _mm256_mul_pd(ux, iD), hasD);
        __m256d ay = _mm256_blendv_pd(minus1, _mm256_mul_pd(uy, iD), hasD);
        __m256d az = _mm256_blendv_pd(zero, _mm256_mul_pd(uz, iD), hasD);
        wx = _mm256_blendv_pd(ax, _mm256_mul_pd(wx, il), hasw);
        wy = _mm256_blendv_pd(ay, _mm256_mul_pd(wy, il), hasw);
        wz = _mm256_blendv_pd(az, _mm256_mul_pd(wz, il), hasw);
        __m256d cc =
            _mm256_div_pd(_mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(L, L), _mm256_mul_pd(D, D)),
                                        _mm256_mul_pd(d, d)),
                          _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), L), D));
        __m256d dot = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(wx, ax), _mm256_mul_pd(wy, ay)),
                                    _mm256_mul_pd(wz, az));
        __m256d full = _mm256_and_pd(hasD, _mm256_cmp_pd(cc, one, _CMP_GE_OQ));
        __m256d cap = _mm256_andnot_pd(
            full, _mm256_and_pd(hasD, _mm256_and_pd(_mm256_cmp_pd(cc, minus1, _CMP_GT_OQ),
                                                    _mm256_cmp_pd(dot, cc, _CMP_LT_OQ))));
        if (_mm256_movemask_pd(cap)) {
            __m256d sx = _mm256_sub_pd(wx, _mm256_mul_pd(ax, dot));
            __m256d sy = _mm256_sub_pd(wy, _mm256_mul_pd(ay, dot));
            __m256d sz = _mm256_sub_pd(wz, _mm256_mul_pd(az, dot));
            __m256d lp = _mm256_sqrt_pd(
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(sx, sx), _mm256_mul_pd(sy, sy)),
                              _mm256_mul_pd(sz, sz)));
            __m256d sn = _mm256_sqrt_pd(_mm256_sub_pd(one, _mm256_mul_pd(cc, cc)));
            __m256d kx =
                _mm256_add_pd(_mm256_mul_pd(ax, cc), _mm256_mul_pd(_mm256_div_pd(sx, lp), sn));
            __m256d ky =
                _mm256_add_pd(_mm256_mul_pd(ay, cc), _mm256_mul_pd(_mm256_div_pd(sy, lp), sn));
            __m256d kz =
                _mm256_add_pd(_mm256_mul_pd(az, cc), _mm256_mul_pd(_mm256_div_pd(sz, lp), sn));
            wx = _mm256_blendv_pd(wx, kx, cap), wy = _mm256_blendv_pd(wy, ky, cap);
            wz = _mm256_blendv_pd(wz, kz, cap);
            rare = _mm256_movemask_pd(_mm256_andnot_pd(_mm256_cmp_pd(lp, eps, _CMP_GT_OQ), cap));
        }
        wx = _mm256_blendv_pd(wx, ax, full), wy = _mm256_blendv_pd(wy, ay, full);
        wz = _mm256_blendv_pd(wz, az, full);
        _mm_storeu_ps(c->x + i, _mm256_cvtpd_ps(_mm256_add_pd(qx, _mm256_mul_pd(wx, L))));
        _mm_storeu_ps(c->y + i, _mm256_cvtpd_ps(_mm256_add_pd(qy, _mm256_mul_pd(wy, L))));
        _mm_storeu_ps(c->z + i, _mm256_cvtpd_ps(_mm256_add_pd(qz, _mm256_mul_pd(wz, L))));
        if (rare) { /* from the particles as they were */
            float px[4], py[4], pz[4];
            _mm_storeu_ps(px, fpx), _mm_storeu_ps(py, fpy), _mm_storeu_ps(pz, fpz);
            for (int k = 0; k < 4; ++k)
                if (rare >> k & 1) {
                    c->x[i + k] = px[k], c->y[i + k] = py[k], c->z[i + k] = pz[k];
                    tether_scalar(c, i + k, i + k + 1, u); /* (its clamp already counted) */
                }
        }
    }
    return clamps + tether_scalar(c, i, to, u);
}

/* The Verlet step 8 particles a vector: integrate_scalar's operations in its order. */
AVX2 static void integrate_avx2(tl_cloth* c, const float* A, v3 g, v3 w, float contact_keep,
                                int from, int to) {
    __m256 m[12];
    for (int k = 0; k < 12; ++k)
        m[k] = _mm256_set1_ps(A[k]);
    __m256 gx = _mm256_set1_ps(g.x), gy = _mm256_set1_ps(g.y), gz = _mm256_set1_ps(g.z);
    __m256 wx = _mm256_set1_ps(w.x), wy = _mm256_set1_ps(w.y), wz = _mm256_set1_ps(w.z);
    __m256 one = _mm256_set1_ps(1.0f), ck = _mm256_set1_ps(contact_keep);
    int i = from;
    for (; i + 8 <= to; i += 8) {
        __m256 a = _mm256_loadu_ps(c->share + i), wind = _mm256_loadu_ps(c->wind + i);
        __m256 x[3] = {_mm256_loadu_ps(c->x + i), _mm256_loadu_ps(c->y + i),
                       _mm256_loadu_ps(c->z + i)};
        __m256 p[3] = {_mm256_loadu_ps(c->px + i), _mm256_loadu_ps(c->py + i),
                       _mm256_loadu_ps(c->pz + i)};
        __m256i touch = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(c->contact + i)));
        __m256 on = _mm256_castsi256_ps(_mm256_cmpgt_epi32(touch, _mm256_setzero_si256()));
        __m256 keep = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_loadu_ps(c->damping + i)),
                                    _mm256_blendv_ps(one, ck, on));
        __m256 gw[3] = {_mm256_add_ps(gx, _mm256_mul_ps(wx, wind)),
                        _mm256_add_ps(gy, _mm256_mul_ps(wy, wind)),
                        _mm256_add_ps(gz, _mm256_mul_ps(wz, wind))};
        __m256 next[3], xs[3];
        for (int k = 0; k < 3; ++k) {
            __m256 xw = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(m[k], x[0]), _mm256_mul_ps(m[3 + k], x[1])),
                _mm256_add_ps(_mm256_mul_ps(m[6 + k], x[2]), m[9 + k]));
            __m256 pw = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(m[k], p[0]), _mm256_mul_ps(m[3 + k], p[1])),
                _mm256_add_ps(_mm256_mul_ps(m[6 + k], p[2]), m[9 + k]));
            xs[k] = _mm256_add_ps(x[k], _mm256_mul_ps(_mm256_sub_ps(xw, x[k]), a));
            __m256 pk = _mm256_add_ps(p[k], _mm256_mul_ps(_mm256_sub_ps(pw, p[k]), a));
            next[k] = _mm256_add_ps(
                _mm256_add_ps(xs[k], _mm256_mul_ps(_mm256_sub_ps(xs[k], pk), keep)), gw[k]);
        }
        _mm256_storeu_ps(c->px + i, xs[0]), _mm256_storeu_ps(c->py + i, xs[1]);
        _mm256_storeu_ps(c->pz + i, xs[2]);
        _mm256_storeu_ps(c->x + i, next[0]), _mm256_storeu_ps(c->y + i, next[1]);
        _mm256_storeu_ps(c->z + i, next[2]);
    }
    integrate_scalar(c, A, g, w, contact_keep, i, to);
}

/* tether_avx2 8 lanes a vector (the same operations, so the same bits). */
#define D8(v) _mm512_cvtps_pd(v)
#define SUM3(a, b, c) _mm512_add_pd(_mm512_add_pd(a, b), c)
AVX512 static int tether_avx512(tl_cloth* c, int from, int to, float u) {
    const tl_cloth_model* m = c->model;
    int C = m->columns, clamps = 0, i = from;
    const __m512d eps = _mm512_set1_pd(1e-12), one = _mm512_set1_pd(1.0);
    const __m512d zero = _mm512_setzero_pd(), minus1 = _mm512_set1_pd(-1.0);
    __m256 uu = _mm256_set1_ps(u);
    for (; i + 8 <= to; i += 8) {
        __m256 fqx = _mm256_loadu_ps(c->x + i - C), fqy = _mm256_loadu_ps(c->y + i - C);
        __m256 fqz = _mm256_loadu_ps(c->z + i - C);
        __m256 fpx = _mm256_loadu_ps(c->x + i), fpy = _mm256_loadu_ps(c->y + i);
        __m256 fpz = _mm256_loadu_ps(c->z + i);
        __m256 t0x = _mm256_loadu_ps(c->t0x + i), t0y = _mm256_loadu_ps(c->t0y + i);
        __m256 t0z = _mm256_loadu_ps(c->t0z + i);
        __m256 rx =
            _mm256_add_ps(t0x, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(c->t1x + i), t0x), uu));
        __m256 ry =
            _mm256_add_ps(t0y, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(c->t1y + i), t0y), uu));
        __m256 rz =
            _mm256_add_ps(t0z, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(c->t1z + i), t0z), uu));
        __m256 fd = _mm256_loadu_ps(c->max_distance + i), fL = _mm256_loadu_ps(m->tether + i);
        __m256 ex = _mm256_sub_ps(fpx, rx), ey = _mm256_sub_ps(fpy, ry),
               ez = _mm256_sub_ps(fpz, rz);
        __m256 e2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ex, ex), _mm256_mul_ps(ey, ey)),
                                  _mm256_mul_ps(ez, ez));
        clamps += __builtin_popcount(
            (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(e2, _mm256_mul_ps(fd, fd), _CMP_GT_OQ)));

        __m512d qx = D8(fqx), qy = D8(fqy), qz = D8(fqz), L = D8(fL), d = D8(fd);
        __m512d ux = _mm512_sub_pd(D8(rx), qx), uy = _mm512_sub_pd(D8(ry), qy);
        __m512d uz = _mm512_sub_pd(D8(rz), qz);
        __m512d wx = _mm512_sub_pd(D8(fpx), qx), wy = _mm512_sub_pd(D8(fpy), qy);
        __m512d wz = _mm512_sub_pd(D8(fpz), qz);
        __m512d D = _mm512_sqrt_pd(
            SUM3(_mm512_mul_pd(ux, ux), _mm512_mul_pd(uy, uy), _mm512_mul_pd(uz, uz)));
        __m512d lw = _mm512_sqrt_pd(
            SUM3(_mm512_mul_pd(wx, wx), _mm512_mul_pd(wy, wy), _mm512_mul_pd(wz, wz)));
        __mmask8 hasD = _mm512_cmp_pd_mask(D, eps, _CMP_GT_OQ);
        __mmask8 hasw = _mm512_cmp_pd_mask(lw, eps, _CMP_GT_OQ);
        __m512d iD = _mm512_div_pd(one, D), il = _mm512_div_pd(one, lw);
        __m512d ax = _mm512_mask_blend_pd(hasD, zero, _mm512_mul_pd(ux, iD));
        __m512d ay = _mm512_mask_blend_pd(hasD, minus1, _mm512_mul_pd(uy, iD));
        __m512d az = _mm512_mask_blend_pd(hasD, zero, _mm512_mul_pd(uz, iD));
        wx = _mm512_mask_blend_pd(hasw, ax, _mm512_mul_pd(wx, il));
        wy = _mm512_mask_blend_pd(hasw, ay, _mm512_mul_pd(wy, il));
        wz = _mm512_mask_blend_pd(hasw, az, _mm512_mul_pd(wz, il));
        __m512d cc =
            _mm512_div_pd(_mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(L, L), _mm512_mul_pd(D, D)),
                                        _mm512_mul_pd(d, d)),
                          _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), L), D));
        __m512d dot = SUM3(_mm512_mul_pd(wx, ax), _mm512_mul_pd(wy, ay), _mm512_mul_pd(wz, az));
        __mmask8 full = hasD & _mm512_cmp_pd_mask(cc, one, _CMP_GE_OQ);
        __mmask8 cap = (__mmask8)(hasD & ~full & _mm512_cmp_pd_mask(cc, minus1, _CMP_GT_OQ) &
                                  _mm512_cmp_pd_mask(dot, cc, _CMP_LT_OQ));
        int rare = 0;
        if (cap) {
            __m512d sx = _mm512_sub_pd(wx, _mm512_mul_pd(ax, dot));
            __m512d sy = _mm512_sub_pd(wy, _mm512_mul_pd(ay, dot));
            __m512d sz = _mm512_sub_pd(wz, _mm512_mul_pd(az, dot));
            __m512d lp = _mm512_sqrt_pd(
                SUM3(_mm512_mul_pd(sx, sx), _mm512_mul_pd(sy, sy), _mm512_mul_pd(sz, sz)));
            __m512d sn = _mm512_sqrt_pd(_mm512_sub_pd(one, _mm512_mul_pd(cc, cc)));
            __m512d kx =
                _mm512_add_pd(_mm512_mul_pd(ax, cc), _mm512_mul_pd(_mm512_div_pd(sx, lp), sn));
            __m512d ky =
                _mm512_add_pd(_mm512_mul_pd(ay, cc), _mm512_mul_pd(_mm512_div_pd(sy, lp), sn));
            __m512d kz =
                _mm512_add_pd(_mm512_mul_pd(az, cc), _mm512_mul_pd(_mm512_div_pd(sz, lp), sn));
            wx = _mm512_mask_blend_pd(cap, wx, kx), wy = _mm512_mask_blend_pd(cap, wy, ky);
            wz = _mm512_mask_blend_pd(cap, wz, kz);
            rare = cap & ~_mm512_cmp_pd_mask(lp, eps, _CMP_GT_OQ);
        }
        wx = _mm512_mask_blend_pd(full, wx, ax), wy = _mm512_mask_blend_pd(full, wy, ay);
        wz = _mm512_mask_blend_pd(full, wz, az);
        _mm256_storeu_ps(c->x + i, _mm512_cvtpd_ps(_mm512_add_pd(qx, _mm512_mul_pd(wx, L))));
        _mm256_storeu_ps(c->y + i, _mm512_cvtpd_ps(_mm512_add_pd(qy, _mm512_mul_pd(wy, L))));
        _mm256_storeu_ps(c->z + i, _mm512_cvtpd_ps(_mm512_add_pd(qz, _mm512_mul_pd(wz, L))));
        if (rare) { /* from the particles as they were */
            float px[8], py[8], pz[8];
            _mm256_storeu_ps(px, fpx), _mm256_storeu_ps(py, fpy), _mm256_storeu_ps(pz, fpz);
            for (int k = 0; k < 8; ++k)
                if (rare >> k & 1) {
                    c->x[i + k] = px[k], c->y[i + k] = py[k], c->z[i + k] = pz[k];
                    tether_scalar(c, i + k, i + k + 1, u); /* (its clamp already counted) */
                }
        }
    }
    return clamps + tether_avx2(c, i, to, u);
}

/* map_targets_scalar 8 particles a vector: their 24 interleaved floats split by two-source
 * permutes, then its double operations in its order (the same bits). */
AVX512 static void map_targets_avx512(tl_cloth* c, const double m[9], const double t[3],
                                      const double o[3], const float* targets) {
    __m512d mm[3][3], tt[3], oo[3];
    for (int k = 0; k < 3; ++k) {
        for (int j = 0; j < 3; ++j)
            mm[k][j] = _mm512_set1_pd(m[3 * k + j]);
        tt[k] = _mm512_set1_pd(t[k]), oo[k] = _mm512_set1_pd(o[k]);
    }
    const __m512i split[3] = {
        _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 0, 0, 0, 0, 0, 0, 0, 0),
        _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 0, 0, 0, 0, 0, 0, 0, 0),
        _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 0, 0, 0, 0, 0, 0, 0, 0)};
    float* out[3] = {c->t1x, c->t1y, c->t1z};
    int i = 0;
    for (; i + 8 <= c->n; i += 8) {
        const float* w = targets + 3 * i;
        __m512 lo = _mm512_loadu_ps(w), hi = _mm512_castps256_ps512(_mm256_loadu_ps(w + 16));
        __m512d v[3];
        for (int j = 0; j < 3; ++j)
            v[j] =
                _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_permutex2var_ps(lo, split[j], hi)));
        for (int k = 0; k < 3; ++k) {
            __m512d q = _mm512_add_pd(
                _mm512_add_pd(_mm512_mul_pd(mm[k][0], v[0]), _mm512_mul_pd(mm[k][1], v[1])),
                _mm512_mul_pd(mm[k][2], v[2]));
            q = _mm512_sub_pd(_mm512_sub_pd(q, tt[k]), oo[k]);
            _mm256_storeu_ps(out[k] + i, _mm512_cvtpd_ps(q));
        }
    }
    map_targets_scalar(c, m, t, o, targets, i);
}

/* 16 particles' x, y, z interleaved into 48 floats: two two-source permutes a vector. */
AVX512 static inline void store_interleaved(float* out, __m512 x, __m512 y, __m512 z,
                                            const __m512i* xy, const __m512i* xyz) {
    for (int v = 0; v < 3; ++v)
        _mm512_storeu_ps(out + 16 * v,
                         _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, xy[v], y), xyz[v], z));
}

/* write_outputs_scalar 16 particles a vector (the same bits). */
AVX512 static void write_outputs_avx512(tl_cloth* c, const float* A) {
    __m512i xy[3], xyz[3];
    for (int v = 0; v < 3; ++v) {
        int a[16], b[16];
        for (int e = 0; e < 16; ++e) {
            int f = 16 * v + e, particle = f / 3, comp = f % 3;
            a[e] = comp == 1 ? 16 + particle : particle; /* x or y */
            b[e] = comp == 2 ? 16 + particle : e;        /* z, or what xy put there */
        }
        xy[v] = _mm512_loadu_si512(a), xyz[v] = _mm512_loadu_si512(b);
    }
    __m512 m[12];
    for (int k = 0; k < 12; ++k)
        m[k] = _mm512_set1_ps(A[k]);
    int i = 0;
    for (; i + 16 <= c->n; i += 16) {
        __m512 q[3] = {_mm512_loadu_ps(c->x + i), _mm512_loadu_ps(c->y + i),
                       _mm512_loadu_ps(c->z + i)};
        __m512 w[3];
        for (int k = 0; k < 3; ++k)
            w[k] = _mm512_add_ps(
                _mm512_add_ps(_mm512_mul_ps(m[k], q[0]), _mm512_mul_ps(m[3 + k], q[1])),
                _mm512_add_ps(_mm512_mul_ps(m[6 + k], q[2]), m[9 + k]));
        store_interleaved(c->out_local + 3 * i, q[0], q[1], q[2], xy, xyz);
        store_interleaved(c->out_world + 3 * i, w[0], w[1], w[2], xy, xyz);
    }
    write_outputs_scalar(c, A, i);
}
#endif

int cloth_tether_row(tl_cloth* c, int i0, int count, float u) {
#if TL_CLOTH_AVX2
    if (cloth_simd_level() >= 3) return tether_avx512(c, i0, i0 + count, u);
    if (cloth_simd_level() >= 2) return tether_avx2(c, i0, i0 + count, u);
#endif
    return tether_scalar(c, i0, i0 + count, u);
}

void cloth_integrate(tl_cloth* c, const float* map, v3 g, v3 w, float contact_keep, int from,
                     int to) {
#if TL_CLOTH_AVX2
    if (cloth_simd_level() >= 2) {
        integrate_avx2(c, map, g, w, contact_keep, from, to);
        return;
    }
#endif
    integrate_scalar(c, map, g, w, contact_keep, from, to);
}

void cloth_map_targets(tl_cloth* c, const double m[9], const double t[3], const double o[3],
                       const float* targets) {
#if TL_CLOTH_AVX2
    if (cloth_simd_level() >= 3) {
        map_targets_avx512(c, m, t, o, targets);
        return;
    }
#endif
    map_targets_scalar(c, m, t, o, targets, 0);
}

void cloth_write_outputs(tl_cloth* c, const float* map) {
#if TL_CLOTH_AVX2
    if (cloth_simd_level() >= 3) {
        write_outputs_avx512(c, map);
        return;
    }
#endif
    write_outputs_scalar(c, map, 0);
}

bool cloth_floats_finite(const float* v, int count) {
    /* NaN or inf anywhere makes a sum NaN; 8 sums, not one chain of dependent adds */
    float sum[8] = {0};
    int i = 0;
    for (; i + 8 <= count; i += 8)
        for (int k = 0; k < 8; ++k)
            sum[k] += v[i + k] * 0.0f;
    for (; i < count; ++i)
        sum[0] += v[i] * 0.0f;
    for (int k = 1; k < 8; ++k)
        sum[0] += sum[k];
    return sum[0] == 0;
}
