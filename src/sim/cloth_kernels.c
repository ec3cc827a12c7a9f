/* The cloth's relaxation (cloth.md §3): each group's pairs move toward their rest length, the
 * correction shared by the pair's weights (a pinned end takes none). A group's pairs never share
 * a particle, so a run of pairs is one vector loop: 16 pairs a vector with AVX-512, 8 with AVX2
 * (chosen at run time), 4 with SSE2, one at a time elsewhere (WebAssembly) and at the AVX2/SSE2
 * runs' ends. The vector kernels take 1/|d| from the hardware estimate with one Newton step
 * (relative error ~1e-7, far below what relaxation leaves; the tether pass, which must be exact,
 * is in cloth_passes.c). */
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
