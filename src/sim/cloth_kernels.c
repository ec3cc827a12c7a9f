/* The cloth's relaxation (cloth.md §3): each group's pairs move toward their rest length, the
 * correction shared by the pair's weights (a pinned end takes none). A group's pairs never share
 * a particle, so a run of pairs is one vector loop: 8 pairs a vector with AVX2 (chosen at run
 * time), 4 with SSE2, one at a time elsewhere (WebAssembly) and at the runs' ends. The vector
 * kernels take 1/|d| from the hardware estimate with one Newton step (relative error ~1e-7, far
 * below what relaxation leaves; the tether pass, which must be exact, is in cloth_step.c). */
#if defined(__clang__) /* (before every header: clang's avx512f brings FMA, and contracts) */
#pragma STDC FP_CONTRACT OFF
#endif
#include "cloth_internal.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define CLOTH_SSE2 1
#endif
#if !defined(TL_CLOTH_AVX2) && defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define TL_CLOTH_AVX2 1
#endif
#if TL_CLOTH_AVX2
#include <immintrin.h>
#endif

#define TINY 1e-24f

static void relax_scalar(float* x, float* y, float* z, const cloth_run* r, int from,
                         const float* rest, float k) {
    for (int j = from; j < r->count; ++j) {
        int a = r->width == 1 ? r->first + j * r->stride : cloth_run_a(r, j), b = a + r->offset;
        float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
        float d2 = dx * dx + dy * dy + dz * dz;
        float f = d2 > TINY ? k * (1.0f - rest[j] / sqrtf(d2)) : 0.0f;
        float fa = f * r->wa, fb = f * r->wb;
        x[a] += dx * fa, y[a] += dy * fa, z[a] += dz * fa;
        x[b] -= dx * fb, y[b] -= dy * fb, z[b] -= dz * fb;
    }
}

/* ---- the final pass's tethers and the Verlet step, a row at a time ---- */

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
    if (D > 1e-12)
        for (int k = 0; k < 3; ++k)
            axis[k] = u[k] / D;
    for (int k = 0; k < 3; ++k)
        w[k] = lw > 1e-12 ? w[k] / lw : axis[k];
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

#if CLOTH_SSE2
/* f = k (1 - rest / |d|), 0 where |d| is ~0 */
static inline __m128 factor_sse(__m128 dx, __m128 dy, __m128 dz, __m128 rest, __m128 k) {
    __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
    __m128 ok = _mm_cmpgt_ps(d2, _mm_set1_ps(TINY));
    __m128 e = _mm_rsqrt_ps(_mm_max_ps(d2, _mm_set1_ps(TINY)));
    e = _mm_mul_ps(e, _mm_sub_ps(_mm_set1_ps(1.5f),
                                 _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), d2), _mm_mul_ps(e, e))));
    __m128 f = _mm_mul_ps(k, _mm_sub_ps(_mm_set1_ps(1.0f), _mm_mul_ps(rest, e)));
    return _mm_and_ps(f, ok);
}

/* pairs (first + j, first + j + offset) */
static int relax_sse_contiguous(float* x, float* y, float* z, const cloth_run* r, const float* rest,
                                float kk) {
    float *xa = x + r->first, *ya = y + r->first, *za = z + r->first;
    float *xb = xa + r->offset, *yb = ya + r->offset, *zb = za + r->offset;
    __m128 k = _mm_set1_ps(kk), wa = _mm_set1_ps(r->wa), wb = _mm_set1_ps(r->wb);
    int j = 0;
    for (; j + 4 <= r->count; j += 4) {
        __m128 ax = _mm_loadu_ps(xa + j), ay = _mm_loadu_ps(ya + j), az = _mm_loadu_ps(za + j);
        __m128 bx = _mm_loadu_ps(xb + j), by = _mm_loadu_ps(yb + j), bz = _mm_loadu_ps(zb + j);
        __m128 dx = _mm_sub_ps(bx, ax), dy = _mm_sub_ps(by, ay), dz = _mm_sub_ps(bz, az);
        __m128 f = factor_sse(dx, dy, dz, _mm_loadu_ps(rest + j), k);
        __m128 fa = _mm_mul_ps(f, wa), fb = _mm_mul_ps(f, wb);
        _mm_storeu_ps(xa + j, _mm_add_ps(ax, _mm_mul_ps(dx, fa)));
        _mm_storeu_ps(ya + j, _mm_add_ps(ay, _mm_mul_ps(dy, fa)));
        _mm_storeu_ps(za + j, _mm_add_ps(az, _mm_mul_ps(dz, fa)));
        _mm_storeu_ps(xb + j, _mm_sub_ps(bx, _mm_mul_ps(dx, fb)));
        _mm_storeu_ps(yb + j, _mm_sub_ps(by, _mm_mul_ps(dy, fb)));
        _mm_storeu_ps(zb + j, _mm_sub_ps(bz, _mm_mul_ps(dz, fb)));
    }
    return j;
}

/* pairs along a row in blocks of w = offset (stride 2 w): w = 1 is (2j, 2j + 1), w = 2 is
 * (4j, 4j + 2), (4j + 1, 4j + 3); de-interleaved in registers, 4 pairs from 8 floats. The
 * shuffles are immediates, so each block width is its own loop. */
#define SPLIT1(l0, l1, a, b)                                                                       \
    a = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(2, 0, 2, 0)),                                           \
    b = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 1, 3, 1))
#define JOIN1(a, b, l0, l1) l0 = _mm_unpacklo_ps(a, b), l1 = _mm_unpackhi_ps(a, b)
#define SPLIT2(l0, l1, a, b)                                                                       \
    a = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(1, 0, 1, 0)),                                           \
    b = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 2, 3, 2))
#define JOIN2(a, b, l0, l1) SPLIT2(a, b, l0, l1)
#define BLOCK_KERNEL(name, SPLIT, JOIN)                                                            \
    static int name(float* x, float* y, float* z, const cloth_run* r, const float* rest,           \
                    float kk) {                                                                    \
        float *px = x + r->first, *py = y + r->first, *pz = z + r->first;                          \
        __m128 k = _mm_set1_ps(kk), wa = _mm_set1_ps(r->wa), wb = _mm_set1_ps(r->wb);              \
        int j = 0;                                                                                 \
        for (; j + 4 <= r->count; j += 4) {                                                        \
            __m128 ax, bx, ay, by, az, bz;                                                         \
            SPLIT(_mm_loadu_ps(px + 2 * j), _mm_loadu_ps(px + 2 * j + 4), ax, bx);                 \
            SPLIT(_mm_loadu_ps(py + 2 * j), _mm_loadu_ps(py + 2 * j + 4), ay, by);                 \
            SPLIT(_mm_loadu_ps(pz + 2 * j), _mm_loadu_ps(pz + 2 * j + 4), az, bz);                 \
            __m128 dx = _mm_sub_ps(bx, ax), dy = _mm_sub_ps(by, ay), dz = _mm_sub_ps(bz, az);      \
            __m128 f = factor_sse(dx, dy, dz, _mm_loadu_ps(rest + j), k);                          \
            __m128 fa = _mm_mul_ps(f, wa), fb = _mm_mul_ps(f, wb), l0, l1;                         \
            JOIN(_mm_add_ps(ax, _mm_mul_ps(dx, fa)), _mm_sub_ps(bx, _mm_mul_ps(dx, fb)), l0, l1);  \
            _mm_storeu_ps(px + 2 * j, l0), _mm_storeu_ps(px + 2 * j + 4, l1);                      \
            JOIN(_mm_add_ps(ay, _mm_mul_ps(dy, fa)), _mm_sub_ps(by, _mm_mul_ps(dy, fb)), l0, l1);  \
            _mm_storeu_ps(py + 2 * j, l0), _mm_storeu_ps(py + 2 * j + 4, l1);                      \
            JOIN(_mm_add_ps(az, _mm_mul_ps(dz, fa)), _mm_sub_ps(bz, _mm_mul_ps(dz, fb)), l0, l1);  \
            _mm_storeu_ps(pz + 2 * j, l0), _mm_storeu_ps(pz + 2 * j + 4, l1);                      \
        }                                                                                          \
        return j;                                                                                  \
    }
BLOCK_KERNEL(relax_sse_pairs, SPLIT1, JOIN1)
BLOCK_KERNEL(relax_sse_pairs2, SPLIT2, JOIN2)
#endif

#if TL_CLOTH_AVX2
#define AVX2 __attribute__((target("avx2")))
/* f = k (1 - rest / |d|), 0 where |d| is ~0 */
AVX2 static inline __m256 factor_avx2(__m256 dx, __m256 dy, __m256 dz, __m256 rest, __m256 k,
                                      __m256 tiny) {
    __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                              _mm256_mul_ps(dz, dz));
    __m256 ok = _mm256_cmp_ps(d2, tiny, _CMP_GT_OQ);
    __m256 e = _mm256_rsqrt_ps(_mm256_max_ps(d2, tiny));
    e = _mm256_mul_ps(e, _mm256_sub_ps(_mm256_set1_ps(1.5f),
                                       _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), d2),
                                                     _mm256_mul_ps(e, e))));
    __m256 f = _mm256_mul_ps(k, _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(rest, e)));
    return _mm256_and_ps(f, ok);
}
AVX2 static int relax_avx2_contiguous(float* x, float* y, float* z, const cloth_run* r,
                                      const float* rest, float kk) {
    float *xa = x + r->first, *ya = y + r->first, *za = z + r->first;
    float *xb = xa + r->offset, *yb = ya + r->offset, *zb = za + r->offset;
    __m256 k = _mm256_set1_ps(kk), tiny = _mm256_set1_ps(TINY);
    __m256 wa = _mm256_set1_ps(r->wa), wb = _mm256_set1_ps(r->wb);
    int j = 0;
    for (; j + 8 <= r->count; j += 8) {
        __m256 ax = _mm256_loadu_ps(xa + j), ay = _mm256_loadu_ps(ya + j);
        __m256 az = _mm256_loadu_ps(za + j), bx = _mm256_loadu_ps(xb + j);
        __m256 by = _mm256_loadu_ps(yb + j), bz = _mm256_loadu_ps(zb + j);
        __m256 dx = _mm256_sub_ps(bx, ax), dy = _mm256_sub_ps(by, ay), dz = _mm256_sub_ps(bz, az);
        __m256 f = factor_avx2(dx, dy, dz, _mm256_loadu_ps(rest + j), k, tiny);
        __m256 fa = _mm256_mul_ps(f, wa), fb = _mm256_mul_ps(f, wb);
        _mm256_storeu_ps(xa + j, _mm256_add_ps(ax, _mm256_mul_ps(dx, fa)));
        _mm256_storeu_ps(ya + j, _mm256_add_ps(ay, _mm256_mul_ps(dy, fa)));
        _mm256_storeu_ps(za + j, _mm256_add_ps(az, _mm256_mul_ps(dz, fa)));
        _mm256_storeu_ps(xb + j, _mm256_sub_ps(bx, _mm256_mul_ps(dx, fb)));
        _mm256_storeu_ps(yb + j, _mm256_sub_ps(by, _mm256_mul_ps(dy, fb)));
        _mm256_storeu_ps(zb + j, _mm256_sub_ps(bz, _mm256_mul_ps(dz, fb)));
    }
    return j;
}

/* The blocks along a row, 8 pairs from 16 floats: the in-lane shuffles leave the pairs in the
 * order 0 1 4 5 2 3 6 7, so the rest lengths are loaded in that order too. */
#define SPLIT1_8(l0, l1, a, b)                                                                     \
    a = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(2, 0, 2, 0)),                                        \
    b = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 1, 3, 1))
#define JOIN1_8(a, b, l0, l1) l0 = _mm256_unpacklo_ps(a, b), l1 = _mm256_unpackhi_ps(a, b)
#define SPLIT2_8(l0, l1, a, b)                                                                     \
    a = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(1, 0, 1, 0)),                                        \
    b = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 2, 3, 2))
#define JOIN2_8(a, b, l0, l1) SPLIT2_8(a, b, l0, l1)
#define BLOCK_KERNEL8(name, SPLIT, JOIN)                                                           \
    AVX2 static int name(float* x, float* y, float* z, const cloth_run* r, const float* rest,      \
                         float kk) {                                                               \
        float *px = x + r->first, *py = y + r->first, *pz = z + r->first;                          \
        __m256 k = _mm256_set1_ps(kk), wa = _mm256_set1_ps(r->wa), wb = _mm256_set1_ps(r->wb);     \
        __m256 tiny = _mm256_set1_ps(TINY);                                                        \
        int j = 0;                                                                                 \
        for (; j + 8 <= r->count; j += 8) {                                                        \
            __m256 ax, bx, ay, by, az, bz;                                                         \
            SPLIT(_mm256_loadu_ps(px + 2 * j), _mm256_loadu_ps(px + 2 * j + 8), ax, bx);           \
            SPLIT(_mm256_loadu_ps(py + 2 * j), _mm256_loadu_ps(py + 2 * j + 8), ay, by);           \
            SPLIT(_mm256_loadu_ps(pz + 2 * j), _mm256_loadu_ps(pz + 2 * j + 8), az, bz);           \
            __m256 dx = _mm256_sub_ps(bx, ax), dy = _mm256_sub_ps(by, ay);                         \
            __m256 dz = _mm256_sub_ps(bz, az);                                                     \
            __m256 len = _mm256_castpd_ps(_mm256_permute4x64_pd(                                   \
                _mm256_castps_pd(_mm256_loadu_ps(rest + j)), _MM_SHUFFLE(3, 1, 2, 0)));            \
            __m256 f = factor_avx2(dx, dy, dz, len, k, tiny);                                      \
            __m256 fa = _mm256_mul_ps(f, wa), fb = _mm256_mul_ps(f, wb), l0, l1;                   \
            JOIN(_mm256_add_ps(ax, _mm256_mul_ps(dx, fa)),                                         \
                 _mm256_sub_ps(bx, _mm256_mul_ps(dx, fb)), l0, l1);                                \
            _mm256_storeu_ps(px + 2 * j, l0), _mm256_storeu_ps(px + 2 * j + 8, l1);                \
            JOIN(_mm256_add_ps(ay, _mm256_mul_ps(dy, fa)),                                         \
                 _mm256_sub_ps(by, _mm256_mul_ps(dy, fb)), l0, l1);                                \
            _mm256_storeu_ps(py + 2 * j, l0), _mm256_storeu_ps(py + 2 * j + 8, l1);                \
            JOIN(_mm256_add_ps(az, _mm256_mul_ps(dz, fa)),                                         \
                 _mm256_sub_ps(bz, _mm256_mul_ps(dz, fb)), l0, l1);                                \
            _mm256_storeu_ps(pz + 2 * j, l0), _mm256_storeu_ps(pz + 2 * j + 8, l1);                \
        }                                                                                          \
        return j;                                                                                  \
    }
BLOCK_KERNEL8(relax_avx2_pairs, SPLIT1_8, JOIN1_8)
BLOCK_KERNEL8(relax_avx2_pairs2, SPLIT2_8, JOIN2_8)

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
        __m256d ax = _mm256_blendv_pd(zero, _mm256_div_pd(ux, D), hasD);
        __m256d ay = _mm256_blendv_pd(minus1, _mm256_div_pd(uy, D), hasD);
        __m256d az = _mm256_blendv_pd(zero, _mm256_div_pd(uz, D), hasD);
        wx = _mm256_blendv_pd(ax, _mm256_div_pd(wx, lw), hasw);
        wy = _mm256_blendv_pd(ay, _mm256_div_pd(wy, lw), hasw);
        wz = _mm256_blendv_pd(az, _mm256_div_pd(wz, lw), hasw);
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

/* AVX-512, 16 pairs a vector; a run's last pairs are one masked vector, not a scalar loop (a
 * row of 100 leaves 4 of every 100 pairs, 2 of 50, 3 of 99, at ~4x a vector pair's cost).
 * 1/|d| from the 14-bit estimate with one Newton step: other bits than AVX2's, within the same
 * tolerance of the scalar kernel. */
#define AVX512 __attribute__((target("avx512f")))
AVX512 static inline __m512 factor_avx512(__m512 dx, __m512 dy, __m512 dz, __m512 rest, __m512 k,
                                          __mmask16 valid) {
    __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                              _mm512_mul_ps(dz, dz));
    __m512 tiny = _mm512_set1_ps(TINY);
    __mmask16 ok = _mm512_mask_cmp_ps_mask(valid, d2, tiny, _CMP_GT_OQ);
    __m512 e = _mm512_rsqrt14_ps(_mm512_max_ps(d2, tiny));
    e = _mm512_mul_ps(e, _mm512_sub_ps(_mm512_set1_ps(1.5f),
                                       _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), d2),
                                                     _mm512_mul_ps(e, e))));
    __m512 f = _mm512_mul_ps(k, _mm512_sub_ps(_mm512_set1_ps(1.0f), _mm512_mul_ps(rest, e)));
    return _mm512_maskz_mov_ps(ok, f);
}

static inline __mmask16 prefix16(int n) {
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n < 0 ? 0 : n)) - 1u);
}

/* `same`: wa == wb (both ends free, most pairs), one product a coordinate serves both ends
 * (the same bits). Inlined with a constant, each kernel is two loops. */
AVX512 static inline __attribute__((always_inline)) void
relax_avx512_contiguous_(float* x, float* y, float* z, const cloth_run* r, const float* rest,
                         float kk, bool same) {
    float *xa = x + r->first, *ya = y + r->first, *za = z + r->first;
    float *xb = xa + r->offset, *yb = ya + r->offset, *zb = za + r->offset;
    __m512 k = _mm512_set1_ps(kk), wa = _mm512_set1_ps(r->wa), wb = _mm512_set1_ps(r->wb);
    for (int j = 0; j < r->count; j += 16) {
        __mmask16 m = prefix16(r->count - j);
        __m512 ax = _mm512_maskz_loadu_ps(m, xa + j), ay = _mm512_maskz_loadu_ps(m, ya + j);
        __m512 az = _mm512_maskz_loadu_ps(m, za + j), bx = _mm512_maskz_loadu_ps(m, xb + j);
        __m512 by = _mm512_maskz_loadu_ps(m, yb + j), bz = _mm512_maskz_loadu_ps(m, zb + j);
        __m512 dx = _mm512_sub_ps(bx, ax), dy = _mm512_sub_ps(by, ay), dz = _mm512_sub_ps(bz, az);
        __m512 f = factor_avx512(dx, dy, dz, _mm512_maskz_loadu_ps(m, rest + j), k, m);
        __m512 fa = _mm512_mul_ps(f, wa), fb = same ? fa : _mm512_mul_ps(f, wb);
        __m512 tx = _mm512_mul_ps(dx, fa), ty = _mm512_mul_ps(dy, fa), tz = _mm512_mul_ps(dz, fa);
        __m512 sx = same ? tx : _mm512_mul_ps(dx, fb), sy = same ? ty : _mm512_mul_ps(dy, fb);
        __m512 sz = same ? tz : _mm512_mul_ps(dz, fb);
        _mm512_mask_storeu_ps(xa + j, m, _mm512_add_ps(ax, tx));
        _mm512_mask_storeu_ps(ya + j, m, _mm512_add_ps(ay, ty));
        _mm512_mask_storeu_ps(za + j, m, _mm512_add_ps(az, tz));
        _mm512_mask_storeu_ps(xb + j, m, _mm512_sub_ps(bx, sx));
        _mm512_mask_storeu_ps(yb + j, m, _mm512_sub_ps(by, sy));
        _mm512_mask_storeu_ps(zb + j, m, _mm512_sub_ps(bz, sz));
    }
}

AVX512 static void relax_avx512_contiguous(float* x, float* y, float* z, const cloth_run* r,
                                           const float* rest, float k) {
    if (r->wa == r->wb)
        relax_avx512_contiguous_(x, y, z, r, rest, k, true);
    else
        relax_avx512_contiguous_(x, y, z, r, rest, k, false);
}

/* Blocks along a row (width w = offset = 1 or 2, stride 2 w): 16 pairs from 32 floats, split
 * into the a and b ends by two-source permutes (pair order kept, so the rest lengths load as
 * they are). A last partial vector of m pairs loads and stores only the floats they reach: 2 m,
 * or 2 m + 1 when w = 2 and the row's end cut the last block short (its b is float 2 m). */
AVX512 static inline __attribute__((always_inline)) void
relax_avx512_blocks_(float* x, float* y, float* z, const cloth_run* r, const float* rest, float kk,
                     bool same) {
    float *px = x + r->first, *py = y + r->first, *pz = z + r->first;
    __m512 k = _mm512_set1_ps(kk), wa = _mm512_set1_ps(r->wa), wb = _mm512_set1_ps(r->wb);
    __m512i ia, ib, ilo, ihi; /* a = permute(lo, hi, ia); lo = permute(a, b, ilo) */
    if (r->width == 1) {
        ia = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        ib = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    } else {
        ia = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29);
        ib = _mm512_setr_epi32(2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
        ilo = _mm512_setr_epi32(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        ihi = _mm512_setr_epi32(8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    }
    for (int j = 0; j < r->count; j += 16) {
        int m = r->count - j < 16 ? r->count - j : 16;
        int reach = r->width == 2 && (m & 1) ? 2 * m + 1 : 2 * m;
        __mmask16 valid = prefix16(m), lo = prefix16(reach), hi = prefix16(reach - 16);
        float *qx = px + 2 * j, *qy = py + 2 * j, *qz = pz + 2 * j;
        __m512 x0 = _mm512_maskz_loadu_ps(lo, qx), x1 = _mm512_maskz_loadu_ps(hi, qx + 16);
        __m512 y0 = _mm512_maskz_loadu_ps(lo, qy), y1 = _mm512_maskz_loadu_ps(hi, qy + 16);
        __m512 z0 = _mm512_maskz_loadu_ps(lo, qz), z1 = _mm512_maskz_loadu_ps(hi, qz + 16);
        __m512 ax = _mm512_permutex2var_ps(x0, ia, x1), bx = _mm512_permutex2var_ps(x0, ib, x1);
        __m512 ay = _mm512_permutex2var_ps(y0, ia, y1), by = _mm512_permutex2var_ps(y0, ib, y1);
        __m512 az = _mm512_permutex2var_ps(z0, ia, z1), bz = _mm512_permutex2var_ps(z0, ib, z1);
        __m512 dx = _mm512_sub_ps(bx, ax), dy = _mm512_sub_ps(by, ay), dz = _mm512_sub_ps(bz, az);
        __m512 f = factor_avx512(dx, dy, dz, _mm512_maskz_loadu_ps(valid, rest + j), k, valid);
        __m512 fa = _mm512_mul_ps(f, wa), fb = same ? fa : _mm512_mul_ps(f, wb);
        __m512 tx = _mm512_mul_ps(dx, fa), ty = _mm512_mul_ps(dy, fa), tz = _mm512_mul_ps(dz, fa);
        __m512 sx = same ? tx : _mm512_mul_ps(dx, fb), sy = same ? ty : _mm512_mul_ps(dy, fb);
        __m512 sz = same ? tz : _mm512_mul_ps(dz, fb);
        ax = _mm512_add_ps(ax, tx), bx = _mm512_sub_ps(bx, sx);
        ay = _mm512_add_ps(ay, ty), by = _mm512_sub_ps(by, sy);
        az = _mm512_add_ps(az, tz), bz = _mm512_sub_ps(bz, sz);
        _mm512_mask_storeu_ps(qx, lo, _mm512_permutex2var_ps(ax, ilo, bx));
        _mm512_mask_storeu_ps(qx + 16, hi, _mm512_permutex2var_ps(ax, ihi, bx));
        _mm512_mask_storeu_ps(qy, lo, _mm512_permutex2var_ps(ay, ilo, by));
        _mm512_mask_storeu_ps(qy + 16, hi, _mm512_permutex2var_ps(ay, ihi, by));
        _mm512_mask_storeu_ps(qz, lo, _mm512_permutex2var_ps(az, ilo, bz));
        _mm512_mask_storeu_ps(qz + 16, hi, _mm512_permutex2var_ps(az, ihi, bz));
    }
}

AVX512 static void relax_avx512_blocks(float* x, float* y, float* z, const cloth_run* r,
                                       const float* rest, float k) {
    if (r->wa == r->wb)
        relax_avx512_blocks_(x, y, z, r, rest, k, true);
    else
        relax_avx512_blocks_(x, y, z, r, rest, k, false);
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
        __m512d ax = _mm512_mask_blend_pd(hasD, zero, _mm512_div_pd(ux, D));
        __m512d ay = _mm512_mask_blend_pd(hasD, minus1, _mm512_div_pd(uy, D));
        __m512d az = _mm512_mask_blend_pd(hasD, zero, _mm512_div_pd(uz, D));
        wx = _mm512_mask_blend_pd(hasw, ax, _mm512_div_pd(wx, lw));
        wy = _mm512_mask_blend_pd(hasw, ay, _mm512_div_pd(wy, lw));
        wz = _mm512_mask_blend_pd(hasw, az, _mm512_div_pd(wz, lw));
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

static int best_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 3;
    return __builtin_cpu_supports("avx2") ? 2 : 1;
}
#elif CLOTH_SSE2
static int best_level(void) {
    return 1;
}
#else
static int best_level(void) {
    return 0;
}
#endif

/* -1 until first asked; set once, before any step, by one thread (benchmarks set it too). */
static int simd_level = -1;

int cloth_simd_level(void) {
    if (simd_level < 0) simd_level = best_level();
    return simd_level;
}

void cloth_set_simd_level(int level) {
    int best = best_level();
    simd_level = level < 0 || level > best ? best : level;
}

static void relax_run(int level, float* x, float* y, float* z, const cloth_run* r,
                      const float* rest, float k) {
    int from = 0;
    bool contiguous = r->stride == 1 && r->width == 1;
    bool blocks = r->offset == r->width && r->stride == 2 * r->width && r->width <= 2;
    (void)level, (void)contiguous, (void)blocks; /* (no vector kernels on this target) */
#if TL_CLOTH_AVX2
    if (level >= 3 && (contiguous || blocks)) {
        if (contiguous)
            relax_avx512_contiguous(x, y, z, r, rest, k);
        else
            relax_avx512_blocks(x, y, z, r, rest, k);
        return;
    }
    if (level >= 2 && contiguous && r->count >= 8)
        from = relax_avx2_contiguous(x, y, z, r, rest, k);
    if (level >= 2 && blocks && r->count >= 8)
        from = r->width == 1 ? relax_avx2_pairs(x, y, z, r, rest, k)
                             : relax_avx2_pairs2(x, y, z, r, rest, k);
#endif
#if CLOTH_SSE2
    if (level >= 1 && contiguous && r->count - from >= 4) {
        cloth_run tail = *r;
        tail.first += from, tail.count -= from;
        from += relax_sse_contiguous(x, y, z, &tail, rest + from, k);
    } else if (level >= 1 && blocks && r->count - from >= 4) {
        cloth_run tail = *r;
        tail.first += 2 * from, tail.count -= from; /* from is a multiple of 8: whole blocks */
        from += r->width == 1 ? relax_sse_pairs(x, y, z, &tail, rest + from, k)
                              : relax_sse_pairs2(x, y, z, &tail, rest + from, k);
    }
#endif
    relax_scalar(x, y, z, r, from, rest, k);
}

void cloth_relax(const tl_cloth_model* m, float* x, float* y, float* z, float stretch, float shear,
                 int iterations) {
    int level = cloth_simd_level();
    for (int it = 0; it < iterations; ++it)
        for (int g = 0; g < m->group_count; ++g) {
            const cloth_group* group = &m->groups[g];
            float k = group->stretch ? stretch : shear;
            if (!(k > 0)) continue;
            for (int q = group->first_run; q < group->first_run + group->run_count; ++q) {
                const cloth_run* r = &m->runs[q];
                relax_run(level, x, y, z, r, m->pair_rest + r->data, k);
            }
        }
}

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
