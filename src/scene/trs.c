/* TRS <-> matrix for poses. */
#include "internal.h"

#include <math.h>
#include <string.h>

void tl_trs_to_matrix(const tl_trs* trs, float out[16]) {
    float x = trs->rotation[0], y = trs->rotation[1], z = trs->rotation[2], w = trs->rotation[3];
    float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                  2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                  2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c) {
        for (int row = 0; row < 3; ++row)
            out[c * 4 + row] = r[c * 3 + row] * trs->scale[c];
        out[c * 4 + 3] = 0;
    }
    out[12] = trs->translation[0], out[13] = trs->translation[1], out[14] = trs->translation[2];
    out[15] = 1;
}

tl_trs tl_trs_from_matrix(const float m[16]) {
    tl_trs trs;
    double col[3][3], s[3];
    for (int c = 0; c < 3; ++c) {
        for (int row = 0; row < 3; ++row)
            col[c][row] = m[c * 4 + row];
        s[c] = sqrt(col[c][0] * col[c][0] + col[c][1] * col[c][1] + col[c][2] * col[c][2]);
    }
    double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
                 col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
                 col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
    if (det < 0) s[0] = -s[0];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            col[c][row] = s[c] != 0 ? col[c][row] / s[c] : c == row;
    /* Rotation matrix R[row][c] = col[c][row] to quaternion (Shepperd's method). */
    double q[4], trace = col[0][0] + col[1][1] + col[2][2];
    if (trace > 0) {
        double k = 0.5 / sqrt(trace + 1.0);
        q[3] = 0.25 / k;
        q[0] = (col[1][2] - col[2][1]) * k;
        q[1] = (col[2][0] - col[0][2]) * k;
        q[2] = (col[0][1] - col[1][0]) * k;
    } else if (col[0][0] > col[1][1] && col[0][0] > col[2][2]) {
        double k = 2.0 * sqrt(1.0 + col[0][0] - col[1][1] - col[2][2]);
        q[3] = (col[1][2] - col[2][1]) / k;
        q[0] = 0.25 * k;
        q[1] = (col[1][0] + col[0][1]) / k;
        q[2] = (col[2][0] + col[0][2]) / k;
    } else if (col[1][1] > col[2][2]) {
        double k = 2.0 * sqrt(1.0 + col[1][1] - col[0][0] - col[2][2]);
        q[3] = (col[2][0] - col[0][2]) / k;
        q[0] = (col[1][0] + col[0][1]) / k;
        q[1] = 0.25 * k;
        q[2] = (col[2][1] + col[1][2]) / k;
    } else {
        double k = 2.0 * sqrt(1.0 + col[2][2] - col[0][0] - col[1][1]);
        q[3] = (col[0][1] - col[1][0]) / k;
        q[0] = (col[2][0] + col[0][2]) / k;
        q[1] = (col[2][1] + col[1][2]) / k;
        q[2] = 0.25 * k;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i)
        trs.rotation[i] = (float)(q[i] / n);
    for (int i = 0; i < 3; ++i) {
        trs.translation[i] = m[12 + i];
        trs.scale[i] = (float)s[i];
    }
    return trs;
}
