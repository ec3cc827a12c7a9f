/* 4×4 matrix helpers shared by the modules. */
#include "mat4.h"
#include "vec.h"

#include <math.h>
#include <string.h>

void tl_mat4d_from_float(double out[16], const float m[16]) {
    for (int i = 0; i < 16; ++i)
        out[i] = m[i];
}

void tl_mat4d_to_float(float out[16], const double m[16]) {
    for (int i = 0; i < 16; ++i)
        out[i] = (float)m[i];
}

void tl_mat4d_mul(double out[16], const double a[16], const double b[16]) {
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

/* Gauss-Jordan with partial pivoting on [m | I]. */
bool tl_mat4d_invert(double out[16], const double m[16]) {
    double a[4][8];
    for (int row = 0; row < 4; ++row)
        for (int c = 0; c < 4; ++c) {
            a[row][c] = m[c * 4 + row];
            a[row][c + 4] = row == c;
        }
    for (int c = 0; c < 4; ++c) {
        int pivot = c;
        for (int row = c + 1; row < 4; ++row)
            if (fabs(a[row][c]) > fabs(a[pivot][c])) pivot = row;
        if (!(fabs(a[pivot][c]) > 1e-300)) {
            for (int i = 0; i < 16; ++i)
                out[i] = i % 5 == 0;
            return false;
        }
        if (pivot != c)
            for (int k = 0; k < 8; ++k) {
                double t = a[c][k];
                a[c][k] = a[pivot][k];
                a[pivot][k] = t;
            }
        double inv = 1.0 / a[c][c];
        for (int k = 0; k < 8; ++k)
            a[c][k] *= inv;
        for (int row = 0; row < 4; ++row) {
            if (row == c || a[row][c] == 0) continue;
            double f = a[row][c];
            for (int k = 0; k < 8; ++k)
                a[row][k] -= f * a[c][k];
        }
    }
    for (int row = 0; row < 4; ++row)
        for (int c = 0; c < 4; ++c)
            out[c * 4 + row] = a[row][c + 4];
    return true;
}

/* Four float lanes, one per output column, so that each of the inverse's terms is formed by
 * the same products and sums, in the same order, in every column. */
typedef struct lanes4 {
    float v[4];
} lanes4;

static lanes4 lanes_of(float x0, float x1, float x2, float x3) {
    lanes4 r = {{x0, x1, x2, x3}};
    return r;
}

/* p*q - r*s per lane, each product rounded, then the difference. */
static lanes4 lanes_cross(lanes4 p, lanes4 q, lanes4 r, lanes4 s) {
    lanes4 out;
    for (int k = 0; k < 4; ++k) {
        float pq = p.v[k] * q.v[k], rs = r.v[k] * s.v[k];
        out.v[k] = pq - rs;
    }
    return out;
}

/* (x*t - y*u) + z*w per lane, each product and sum rounded in that order. */
static lanes4 lanes_cofactor(lanes4 x, lanes4 t, lanes4 y, lanes4 u, lanes4 z, lanes4 w) {
    lanes4 out;
    for (int k = 0; k < 4; ++k) {
        float xt = x.v[k] * t.v[k], yu = y.v[k] * u.v[k], zw = z.v[k] * w.v[k];
        float d = xt - yu;
        out.v[k] = d + zw;
    }
    return out;
}

bool tl_mat4_invert(float out[16], const float m[16]) {
    /* columns (a b c d) (e f g h) (i j k l) (m n o p) */
    const float a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7];
    const float i = m[8], j = m[9], k = m[10], l = m[11], M = m[12], n = m[13], o = m[14],
                p = m[15];
    /* the 2x2 minors of the lower (lane 0, 1) and mixed (lanes 2, 3) rows */
    lanes4 t0 = lanes_cross(lanes_of(k, k, g, g), lanes_of(p, p, p, l), lanes_of(o, o, o, k),
                            lanes_of(l, l, h, h));
    lanes4 t1 = lanes_cross(lanes_of(j, j, f, f), lanes_of(p, p, p, l), lanes_of(n, n, n, j),
                            lanes_of(l, l, h, h));
    lanes4 t2 = lanes_cross(lanes_of(j, j, f, f), lanes_of(o, o, o, k), lanes_of(n, n, n, j),
                            lanes_of(k, k, g, g));
    lanes4 t3 = lanes_cross(lanes_of(i, i, e, e), lanes_of(p, p, p, l), lanes_of(M, M, M, i),
                            lanes_of(l, l, h, h));
    lanes4 t4 = lanes_cross(lanes_of(i, i, e, e), lanes_of(o, o, o, k), lanes_of(M, M, M, i),
                            lanes_of(k, k, g, g));
    lanes4 t5 = lanes_cross(lanes_of(i, i, e, e), lanes_of(n, n, n, j), lanes_of(M, M, M, i),
                            lanes_of(j, j, f, f));
    lanes4 x0 = lanes_of(e, a, a, a), x1 = lanes_of(f, b, b, b), x2 = lanes_of(g, c, c, c),
           x3 = lanes_of(h, d, d, d);
    /* the adjugate's columns, signs alternating */
    lanes4 v[4] = {lanes_cofactor(x1, t0, x2, t1, x3, t2), lanes_cofactor(x0, t0, x2, t3, x3, t4),
                   lanes_cofactor(x0, t1, x1, t3, x3, t5), lanes_cofactor(x0, t2, x1, t4, x2, t5)};
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row)
            if ((row + col) % 2) v[col].v[row] = -v[col].v[row];
    float s0 = v[0].v[0] * a, s1 = v[1].v[0] * b, s2 = v[2].v[0] * c, s3 = v[3].v[0] * d;
    float s03 = s0 + s3, s12 = s1 + s2;
    float det = s03 + s12;
    if (!(det != 0) || !isfinite(det)) {
        for (int q = 0; q < 16; ++q)
            out[q] = q % 5 == 0;
        return false;
    }
    float inv = 1.0f / det;
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row)
            out[4 * col + row] = v[col].v[row] * inv;
    return true;
}

void tl_mat4_mul(float out[16], const float a[16], const float b[16]) {
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row)
            r[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] +
                             a[8 + row] * b[c * 4 + 2] + a[12 + row] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

void tl_mat4_transform_point(float out[3], const float m[16], const float p[3]) {
    float r[3];
    for (int i = 0; i < 3; ++i)
        r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    memcpy(out, r, sizeof r);
}

void tl_mat4_rotation_about(float out[16], const float pivot[3], float radians,
                            const float axis[3]) {
    float n = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    float x = axis[0] / n, y = axis[1] / n, z = axis[2] / n;
    float c = cosf(radians), s = sinf(radians), t = 1 - c;
    /* Rodrigues' rotation matrix, column-major */
    float r[16] = {t * x * x + c,
                   t * x * y + s * z,
                   t * x * z - s * y,
                   0,
                   t * x * y - s * z,
                   t * y * y + c,
                   t * y * z + s * x,
                   0,
                   t * x * z + s * y,
                   t * y * z - s * x,
                   t * z * z + c,
                   0,
                   0,
                   0,
                   0,
                   1};
    /* through the pivot: p - R p */
    for (int i = 0; i < 3; ++i)
        r[12 + i] = pivot[i] - (r[i] * pivot[0] + r[4 + i] * pivot[1] + r[8 + i] * pivot[2]);
    memcpy(out, r, sizeof r);
}

float tl_vec3_distance(const float a[3], const float b[3]) {
    float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

float tl_quat_dot(const float a[4], const float b[4]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

void tl_quat_conjugate(float out[4], const float q[4]) {
    float r[4] = {-q[0], -q[1], -q[2], q[3]};
    memcpy(out, r, sizeof r);
}

void tl_quat_mul(float out[4], const float a[4], const float b[4]) {
    float r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

void tl_quat_rotate(float out[3], const float q[4], const float v[3]) {
    /* v + 2w (u × v) + 2 u × (u × v), u the vector part */
    float t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]),
                  2 * (q[0] * v[1] - q[1] * v[0])};
    float r[3] = {v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]),
                  v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]),
                  v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0])};
    memcpy(out, r, sizeof r);
}

dquat tl_dquat_from_axes(dv3 x, dv3 y, dv3 z) {
    /* Shepperd's method on the matrix [x y z] (columns). */
    double m00 = x.x, m11 = y.y, m22 = z.z, trace = m00 + m11 + m22;
    dquat q;
    if (trace > 0) {
        double s = sqrt(trace + 1.0) * 2;
        q = (dquat){(y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, 0.25 * s};
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q = (dquat){0.25 * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s};
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q = (dquat){(y.x + x.y) / s, 0.25 * s, (z.y + y.z) / s, (z.x - x.z) / s};
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q = (dquat){(z.x + x.z) / s, (z.y + y.z) / s, 0.25 * s, (x.y - y.x) / s};
    }
    if (q.w < 0) q = (dquat){-q.x, -q.y, -q.z, -q.w};
    return quat_normalize(q);
}

void tl_mat4d_from_trs(double out[16], dv3 t, dquat r, dv3 s) {
    double x = r.x, y = r.y, z = r.z, w = r.w;
    double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    double sc[3] = {s.x, s.y, s.z};
    for (int c = 0; c < 3; ++c) {
        for (int r2 = 0; r2 < 3; ++r2)
            out[c * 4 + r2] = m[c * 3 + r2] * sc[c];
        out[c * 4 + 3] = 0;
    }
    out[12] = t.x, out[13] = t.y, out[14] = t.z, out[15] = 1;
}

void tl_mat4_local_direction(const float m[16], const float v[3], float out[3]) {
    float len = 0;
    for (int c = 0; c < 3; ++c) {
        float col =
            sqrtf(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
        out[c] = col > 0 ? (m[4 * c] * v[0] + m[4 * c + 1] * v[1] + m[4 * c + 2] * v[2]) / col : 0;
        len += out[c] * out[c];
    }
    len = sqrtf(len);
    for (int c = 0; c < 3; ++c)
        out[c] = len > 0 ? out[c] / len : 0;
}
