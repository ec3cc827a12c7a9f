/* 4×4 matrix helpers shared by the modules. */
#include "mat4.h"

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
