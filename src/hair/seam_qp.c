/* The seam fit's per-vertex problem (seam_fit.h): a dense convex QP of at most
 * HAIR_QP_MAX variables on the simplex with a few half-spaces, solved exactly by a primal active
 * set. Small and dense on purpose: a sparse library buys nothing at 8 variables. */
#include "hair/seam_fit.h"

#include <math.h>
#include <string.h>

enum { KKT_MAX = 2 * HAIR_QP_MAX + 1 };

/* Solves the d x d system M y = r in place (partial pivoting); false when singular. */
static bool solve_dense(int d, double M[KKT_MAX][KKT_MAX], double* r) {
    for (int k = 0; k < d; ++k) {
        int p = k;
        for (int i = k + 1; i < d; ++i)
            if (fabs(M[i][k]) > fabs(M[p][k])) p = i;
        if (!(fabs(M[p][k]) > 1e-300)) return false;
        if (p != k) {
            for (int j = 0; j < d; ++j) {
                double t = M[k][j];
                M[k][j] = M[p][j], M[p][j] = t;
            }
            double t = r[k];
            r[k] = r[p], r[p] = t;
        }
        for (int i = k + 1; i < d; ++i) {
            double f = M[i][k] / M[k][k];
            if (f == 0) continue;
            for (int j = k; j < d; ++j)
                M[i][j] -= f * M[k][j];
            r[i] -= f * r[k];
        }
    }
    for (int k = d - 1; k >= 0; --k) {
        double s = r[k];
        for (int j = k + 1; j < d; ++j)
            s -= M[k][j] * r[j];
        r[k] = s / M[k][k];
    }
    return true;
}

int hair_qp_solve(int n, const double* Q, const double* c, int m, const double* A, const double* b,
                  double step_min, double* x) {
    int work[HAIR_QP_MAX];
    int nw = 0;
    for (int iter = 0; iter < 200; ++iter) {
        double M[KKT_MAX][KKT_MAX], r[KKT_MAX];
        int d = n + 1 + nw;
        memset(M, 0, sizeof M);
        for (int i = 0; i < n; ++i) {
            double g = -c[i];
            for (int j = 0; j < n; ++j)
                M[i][j] = Q[i * n + j], g += Q[i * n + j] * x[j];
            r[i] = -g;
            M[i][n] = M[n][i] = 1; /* the sum */
            for (int k = 0; k < nw; ++k)
                M[i][n + 1 + k] = M[n + 1 + k][i] = A[(size_t)work[k] * n + i];
        }
        for (int k = n; k < d; ++k)
            r[k] = 0;
        if (!solve_dense(d, M, r)) return -1;
        double step = 0;
        for (int i = 0; i < n; ++i)
            step = fmax(step, fabs(r[i]));
        if (step < step_min) { /* optimal on this working set: drop a wrong-signed multiplier */
            int worst = -1;
            double least = -1e-12;
            for (int k = 0; k < nw; ++k)
                if (r[n + 1 + k] < least) least = r[n + 1 + k], worst = k;
            if (worst < 0) return iter;
            work[worst] = work[--nw];
            continue;
        }
        double alpha = 1;
        int block = -1;
        for (int i = 0; i < m; ++i) {
            bool in = false;
            for (int k = 0; k < nw; ++k)
                in |= work[k] == i;
            if (in) continue;
            double ap = 0, ax = 0;
            for (int j = 0; j < n; ++j)
                ap += A[(size_t)i * n + j] * r[j], ax += A[(size_t)i * n + j] * x[j];
            if (!(ap > 1e-15)) continue;
            double t = fmax(b[i] - ax, 0) / ap;
            if (t < alpha) alpha = t, block = i;
        }
        for (int j = 0; j < n; ++j)
            x[j] += alpha * r[j];
        if (block >= 0) {
            if (nw == n - 1) return iter; /* (degenerate: a vertex of the set; stop there) */
            work[nw++] = block;
        }
    }
    return -1;
}
