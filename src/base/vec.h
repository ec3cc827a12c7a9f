/* Double-precision 3-vectors and (x, y, z, w) quaternions for build-time work (the sample
 * characters are modelled with them), with base/mat4.h the math kit the modules share
 * outside the solver (not part of the public API). */
#ifndef TL_BASE_VEC_H
#define TL_BASE_VEC_H

#include <math.h>

typedef struct dv3 {
    double x, y, z;
} dv3;

typedef struct dquat {
    double x, y, z, w;
} dquat;

static inline dv3 v3(double x, double y, double z) {
    return (dv3){x, y, z};
}
static inline dv3 v3_add(dv3 a, dv3 b) {
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline dv3 v3_sub(dv3 a, dv3 b) {
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline dv3 v3_scale(dv3 a, double s) {
    return v3(a.x * s, a.y * s, a.z * s);
}
static inline dv3 v3_lerp(dv3 a, dv3 b, double t) {
    return v3_add(a, v3_scale(v3_sub(b, a), t));
}
static inline double v3_dot(dv3 a, dv3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline dv3 v3_cross(dv3 a, dv3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double v3_length(dv3 a) {
    return sqrt(v3_dot(a, a));
}
static inline dv3 v3_normalize(dv3 a) {
    double n = v3_length(a);
    return n > 0 ? v3_scale(a, 1.0 / n) : a;
}

static inline dquat quat_identity(void) {
    return (dquat){0, 0, 0, 1};
}
static inline dquat quat_axis_angle(dv3 axis, double radians) {
    dv3 a = v3_normalize(axis);
    double s = sin(radians * 0.5);
    return (dquat){a.x * s, a.y * s, a.z * s, cos(radians * 0.5)};
}
static inline dquat quat_mul(dquat a, dquat b) {
    return (dquat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                   a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static inline dquat quat_conjugate(dquat q) {
    return (dquat){-q.x, -q.y, -q.z, q.w};
}
static inline dquat quat_normalize(dquat q) {
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (dquat){q.x / n, q.y / n, q.z / n, q.w / n};
}
static inline dv3 quat_rotate(dquat q, dv3 v) {
    dv3 u = v3(q.x, q.y, q.z);
    dv3 t = v3_scale(v3_cross(u, v), 2.0);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
/* The rotation whose columns are the given orthonormal axes (Shepperd's method), w >= 0. */
dquat tl_dquat_from_axes(dv3 x, dv3 y, dv3 z);

/* The column-major matrix T · R · S. */
void tl_mat4d_from_trs(double out[16], dv3 t, dquat r, dv3 s);

#endif
