/* Small vector and quaternion helpers for the solvers: values, not pointers, so the hot loop
 * reads like the spec. Quaternions are (x, y, z, w). Only libm. */
#ifndef TL_SIM_MATH_H
#define TL_SIM_MATH_H

#include <math.h>

typedef struct v3 {
    float x, y, z;
} v3;
typedef struct qt {
    float x, y, z, w;
} qt;

static inline v3 v3_make(float x, float y, float z) {
    return (v3){x, y, z};
}
static inline v3 v3_load(const float* p) {
    return (v3){p[0], p[1], p[2]};
}
static inline void v3_store(float* p, v3 a) {
    p[0] = a.x, p[1] = a.y, p[2] = a.z;
}
static inline v3 v3_add(v3 a, v3 b) {
    return (v3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline v3 v3_sub(v3 a, v3 b) {
    return (v3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline v3 v3_scale(v3 a, float s) {
    return (v3){a.x * s, a.y * s, a.z * s};
}
static inline v3 v3_madd(v3 a, v3 b, float s) {
    return (v3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s};
}
static inline float v3_dot(v3 a, v3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline v3 v3_cross(v3 a, v3 b) {
    return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float v3_length(v3 a) {
    return sqrtf(v3_dot(a, a));
}
/* a / |a|, or fallback when a is (nearly) zero. */
static inline v3 v3_normalize_or(v3 a, v3 fallback) {
    float len2 = v3_dot(a, a);
    return len2 > 1e-24f ? v3_scale(a, 1.0f / sqrtf(len2)) : fallback;
}
/* Some unit vector perpendicular to unit a. */
static inline v3 v3_perpendicular(v3 a) {
    v3 other = fabsf(a.x) < 0.6f ? v3_make(1, 0, 0) : v3_make(0, 1, 0);
    return v3_normalize_or(v3_cross(a, other), v3_make(0, 0, 1));
}
static inline int v3_finite(v3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

static inline qt qt_identity(void) {
    return (qt){0, 0, 0, 1};
}
static inline qt qt_load(const float* p) {
    return (qt){p[0], p[1], p[2], p[3]};
}
static inline void qt_store(float* p, qt q) {
    p[0] = q.x, p[1] = q.y, p[2] = q.z, p[3] = q.w;
}
static inline qt qt_conj(qt q) {
    return (qt){-q.x, -q.y, -q.z, q.w};
}
static inline float qt_dot(qt a, qt b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
static inline qt qt_neg(qt q) {
    return (qt){-q.x, -q.y, -q.z, -q.w};
}
static inline qt qt_normalize(qt q) {
    float len2 = qt_dot(q, q);
    if (!(len2 > 1e-30f)) return qt_identity();
    float s = 1.0f / sqrtf(len2);
    return (qt){q.x * s, q.y * s, q.z * s, q.w * s};
}
static inline qt qt_mul(qt a, qt b) {
    return (qt){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
/* rot(q, v) for unit q: v + 2w (u x v) + 2 u x (u x v). */
static inline v3 qt_rotate(qt q, v3 v) {
    v3 u = {q.x, q.y, q.z};
    v3 t = v3_scale(v3_cross(u, v), 2.0f);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
static inline v3 qt_unrotate(qt q, v3 v) {
    return qt_rotate(qt_conj(q), v);
}
static inline qt qt_axis_angle(v3 unit_axis, float angle) {
    float s = sinf(0.5f * angle);
    return (qt){unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(0.5f * angle)};
}
/* swing(a, b): the shortest rotation taking unit a to unit b. */
static inline qt qt_swing(v3 a, v3 b) {
    float d = v3_dot(a, b);
    if (d < -0.999999f) return qt_axis_angle(v3_perpendicular(a), 3.14159265358979f);
    v3 c = v3_cross(a, b);
    return qt_normalize((qt){c.x, c.y, c.z, 1.0f + d});
}
/* Spherical interpolation along the shorter arc; t in [0, 1]. */
static inline qt qt_slerp(qt a, qt b, float t) {
    float d = qt_dot(a, b);
    if (d < 0) b = qt_neg(b), d = -d;
    float wa, wb;
    if (d > 0.95f) {
        /* Within 36 degrees (the hot path: coupling, sub-step poses) the weights
         * sin(t phi) / sin(phi) = t (1 + (1 - t^2) phi^2 / 6 + O(phi^4)), phi^2 ~ 2 (1 - d),
         * are exact to 2e-4 relative, which turns the result by < 3e-5 rad (checked numerically).
         */
        float e = (1.0f - d) * (1.0f / 3.0f), s = 1.0f - t;
        wa = s * (1.0f + (1.0f - s * s) * e), wb = t * (1.0f + (1.0f - t * t) * e);
    } else {
        float angle = acosf(d), inv = 1.0f / sinf(angle);
        wa = sinf((1.0f - t) * angle) * inv, wb = sinf(t * angle) * inv;
    }
    return qt_normalize(
        (qt){a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb});
}
/* slerp(a, b, 1/2) without trigonometry: the normalised sum on the shorter arc. */
static inline qt qt_midpoint(qt a, qt b) {
    if (qt_dot(a, b) < 0) b = qt_neg(b);
    return qt_normalize((qt){a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w});
}
static inline qt qt_nlerp(qt a, qt b, float t) {
    if (qt_dot(a, b) < 0) b = qt_neg(b);
    return qt_normalize((qt){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t,
                             a.w + (b.w - a.w) * t});
}
/* The rotation angle of unit q, radians in [0, pi]. */
static inline float qt_angle(qt q) {
    float w = fabsf(q.w);
    return 2.0f * acosf(w > 1.0f ? 1.0f : w);
}
static inline int qt_finite(qt q) {
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}
/* The rotation of an orthonormal basis given by its columns (a right-handed frame). */
static inline qt qt_from_basis(v3 x, v3 y, v3 z) {
    float t = x.x + y.y + z.z;
    qt q;
    if (t > 0) {
        float s = 0.5f / sqrtf(t + 1.0f);
        q = (qt){(y.z - z.y) * s, (z.x - x.z) * s, (x.y - y.x) * s, 0.25f / s};
    } else if (x.x > y.y && x.x > z.z) {
        float s = 2.0f * sqrtf(1.0f + x.x - y.y - z.z);
        q = (qt){0.25f * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s};
    } else if (y.y > z.z) {
        float s = 2.0f * sqrtf(1.0f + y.y - x.x - z.z);
        q = (qt){(y.x + x.y) / s, 0.25f * s, (z.y + y.z) / s, (z.x - x.z) / s};
    } else {
        float s = 2.0f * sqrtf(1.0f + z.z - x.x - y.y);
        q = (qt){(z.x + x.z) / s, (z.y + y.z) / s, 0.25f * s, (x.y - y.x) / s};
    }
    return qt_normalize(q);
}

/* ---- column-major 4x4 matrices (glTF layout; only at create and for callers) ---- */

static inline v3 m4_column(const float* m, int c) {
    return v3_make(m[4 * c], m[4 * c + 1], m[4 * c + 2]);
}

/* Inverse of an affine column-major 4x4 whose upper 3x3 is rotation times uniform scale. */
static inline void m4_affine_inverse(float out[16], const float m[16]) {
    v3 x = m4_column(m, 0), y = m4_column(m, 1), z = m4_column(m, 2), t = m4_column(m, 3);
    float s2 = (v3_dot(x, x) + v3_dot(y, y) + v3_dot(z, z)) / 3.0f;
    float inv = s2 > 0 ? 1.0f / s2 : 0;
    /* (sR)^-1 = R^T / s = (sR)^T / s^2 */
    for (int i = 0; i < 16; ++i)
        out[i] = 0;
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            out[4 * c + row] = m[4 * row + c] * inv;
    for (int row = 0; row < 3; ++row)
        out[12 + row] = -(out[row] * t.x + out[4 + row] * t.y + out[8 + row] * t.z);
    out[15] = 1;
}

static inline void m4_mul(float out[16], const float a[16], const float b[16]) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            float s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[4 * k + r] * b[4 * c + k];
            out[4 * c + r] = s;
        }
}

#endif
