/* Covariance of a point set and the eigen-decomposition of a symmetric 3×3 matrix. */
#include "internal.h"

#include <math.h>
#include <string.h>

void tl_mesh_covariance(float covariance[9], float mean[3], const float* positions,
                        size_t point_count, size_t stride, const uint32_t* subset,
                        size_t subset_count) {
    assert(covariance && mean && (positions || (subset ? subset_count : point_count) == 0));
    size_t n = subset ? subset_count : point_count;
    double m[3] = {0, 0, 0}, c[6] = {0, 0, 0, 0, 0, 0}; /* xx xy xz yy yz zz */
    /* Two passes (mean, then spread about it): one-pass sums lose the spread of a small part
     * far from the origin. */
    for (size_t i = 0; i < n; ++i) {
        size_t v = subset ? subset[i] : i;
        assert(!subset || v < point_count);
        const float* p = tl__mesh_position(positions, stride, v);
        m[0] += p[0], m[1] += p[1], m[2] += p[2];
    }
    if (n > 0) m[0] /= (double)n, m[1] /= (double)n, m[2] /= (double)n;
    for (size_t i = 0; i < n; ++i) {
        const float* p = tl__mesh_position(positions, stride, subset ? subset[i] : i);
        double d[3] = {p[0] - m[0], p[1] - m[1], p[2] - m[2]};
        c[0] += d[0] * d[0], c[1] += d[0] * d[1], c[2] += d[0] * d[2];
        c[3] += d[1] * d[1], c[4] += d[1] * d[2], c[5] += d[2] * d[2];
    }
    double scale = n > 0 ? 1.0 / (double)n : 0.0;
    static const int upper[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
    for (int k = 0; k < 9; ++k)
        covariance[k] = (float)(c[upper[k]] * scale);
    for (int k = 0; k < 3; ++k)
        mean[k] = (float)m[k];
}

/* One Jacobi rotation in the (p, q) plane that zeroes a[p][q]; v collects the rotations, so
 * its columns become the eigenvectors. */
static void jacobi_rotate(double a[3][3], double v[3][3], int p, int q) {
    double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
    double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
    double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
    for (int k = 0; k < 3; ++k) { /* a ← a·J, columns p and q */
        double akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
    }
    for (int k = 0; k < 3; ++k) { /* a ← Jᵀ·a, rows p and q */
        double apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
    }
    a[p][q] = a[q][p] = 0.0; /* exact by construction; rounding would leave a trace */
    for (int k = 0; k < 3; ++k) {
        double vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

void tl_mesh_eigen_symmetric(float values[3], float vectors[9], const float matrix[9]) {
    assert(values && vectors && matrix);
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j)
            a[i][j] = a[j][i] = matrix[3 * i + j];

    double norm = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            norm += a[i][j] * a[i][j];
    /* Cyclic sweeps converge quadratically; a dozen is far more than 3×3 ever needs. */
    for (int sweep = 0; sweep < 32; ++sweep) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        if (off <= 1e-30 * norm) break; /* relative, so tiny (bind-space) matrices converge too */
        static const int planes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 3; ++k)
            if (a[planes[k][0]][planes[k][1]] != 0.0)
                jacobi_rotate(a, v, planes[k][0], planes[k][1]);
    }

    int order[3] = {0, 1, 2}; /* by eigenvalue, descending */
    for (int i = 1; i < 3; ++i)
        for (int j = i; j > 0 && a[order[j]][order[j]] > a[order[j - 1]][order[j - 1]]; --j) {
            int swap = order[j];
            order[j] = order[j - 1], order[j - 1] = swap;
        }
    for (int i = 0; i < 3; ++i) {
        int col = order[i];
        values[i] = (float)a[col][col];
        int largest = 0;
        for (int k = 1; k < 3; ++k)
            if (fabs(v[k][col]) > fabs(v[largest][col])) largest = k;
        double sign = v[largest][col] < 0 ? -1.0 : 1.0;
        for (int k = 0; k < 3; ++k)
            vectors[3 * i + k] = (float)(sign * v[k][col]);
    }
}
