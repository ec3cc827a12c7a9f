/* Body colliders (include/tailor/colliders.h): fits on exact geometry, the colliders tailor rig
 * stores in the file and reads back, and a real tail kept out of a thigh. */
#include "test.h"

#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- fits on exact geometry ---- */

/* A turned frame: rows are the three axes. */
static void turned_frame(double frame[3][3]) {
    double a = 0.7, b = 0.4; /* about z, then about x */
    double rz[3][3] = {{cos(a), sin(a), 0}, {-sin(a), cos(a), 0}, {0, 0, 1}};
    double rx[3][3] = {{1, 0, 0}, {0, cos(b), sin(b)}, {0, -sin(b), cos(b)}};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            frame[r][c] = 0;
            for (int k = 0; k < 3; ++k)
                frame[r][c] += rz[r][k] * rx[k][c];
        }
}

static const double centre[3] = {0.3, 1.1, -0.4};

/* The point centre + sum u_k frame[k]. */
static void place(float* out, double frame[3][3], const double u[3]) {
    for (int c = 0; c < 3; ++c)
        out[c] = (float)(centre[c] + u[0] * frame[0][c] + u[1] * frame[1][c] + u[2] * frame[2][c]);
}

/* n points on the ellipsoid with semi-axes r along the turned frame: a Fibonacci sphere (equal
 * areas) scaled, so each coordinate over r is spread evenly in [-1, 1]. */
static float* ellipsoid_points(uint32_t n, const double r[3], double frame[3][3]) {
    turned_frame(frame);
    float* p = malloc(sizeof(float) * 3 * n);
    for (uint32_t i = 0; i < n; ++i) {
        double z = 1 - (2 * i + 1.0) / n, phi = 2.399963229728653 * i, s = sqrt(1 - z * z);
        double u[3] = {r[0] * z, r[1] * s * cos(phi), r[2] * s * sin(phi)};
        place(p + 3 * i, frame, u);
    }
    return p;
}

/* n points on a cylinder of radius r and length L along the frame's first axis (rings of
 * `around` points). */
static float* cylinder_points(uint32_t rings, uint32_t around, double r, double L,
                              double frame[3][3]) {
    turned_frame(frame);
    float* p = malloc(sizeof(float) * 3 * rings * around);
    for (uint32_t i = 0; i < rings; ++i)
        for (uint32_t k = 0; k < around; ++k) {
            double phi = 6.283185307179586 * k / around;
            double u[3] = {L * ((i + 0.5) / rings - 0.5), r * cos(phi), r * sin(phi)};
            place(p + 3 * (i * around + k), frame, u);
        }
    return p;
}

static double length3(const float v[3]) {
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* A flat ellipsoid's skin (semi-axes 0.3, 0.16, 0.1, turned) gets an ellipsoid on its axes with
 * its radii (the scaled sphere spreads every coordinate alike, so the percentile extents are
 * in proportion to the radii) and its centre. */
static void test_fit_ellipsoid(void) {
    const uint32_t n = 4000;
    const double r[3] = {0.3, 0.16, 0.1};
    double frame[3][3];
    float* p = ellipsoid_points(n, r, frame);
    tl_collider out[2];
    uint32_t fitted;
    tl_error err;
    ENSURE_OK(tl_colliders_fit_points(p, n, out, &fitted, &err), err);
    free(p);
    ENSURE(fitted == 1 && out[0].shape == TL_COLLIDER_ELLIPSOID);
    double worst_radius = 0, worst_angle = 0, off = 0;
    for (int k = 0; k < 3; ++k) {
        double len = length3(out[0].axes[k]), dot = 0;
        for (int c = 0; c < 3; ++c)
            dot += out[0].axes[k][c] / len * frame[k][c];
        worst_radius = fmax(worst_radius, fabs(len - r[k]) / r[k]);
        worst_angle = fmax(worst_angle, acos(fmin(1, fabs(dot))));
        off = fmax(off, fabs(out[0].a[k] - centre[k]));
    }
    fprintf(stderr, "  ellipsoid: radii within %.2g, axes within %.2g rad, centre within %.2g\n",
            worst_radius, worst_angle, off);
    ENSURE(worst_radius <= 0.01 && worst_angle <= 1e-3 && off <= 1e-3);
}

/* A round limb (a cylinder of radius 0.05, 0.2 long: with its caps 5.6 radii) gets a capsule
 * on its axis with its radius exactly and its 5th to 95th percentile span; one 0.6 long (12
 * radii) is split into two such capsules, one per half. */
static void test_fit_capsule(void) {
    for (int split = 0; split < 2; ++split) {
        const double radius = 0.05, L = split ? 0.6 : 0.2;
        const uint32_t rings = 200, around = 24;
        double frame[3][3];
        float* p = cylinder_points(rings, around, radius, L, frame);
        tl_collider out[2];
        uint32_t fitted;
        tl_error err;
        ENSURE_OK(tl_colliders_fit_points(p, rings * around, out, &fitted, &err), err);
        free(p);
        ENSURE(fitted == (split ? 2u : 1u));
        double off_axis = 0, worst_radius = 0, span = 0;
        for (uint32_t k = 0; k < fitted; ++k) {
            ENSURE(out[k].shape == TL_COLLIDER_CAPSULE);
            worst_radius = fmax(worst_radius, fabs(out[k].radius - radius) / radius);
            const float* ends[2] = {out[k].a, out[k].b};
            double t[2];
            for (int e = 0; e < 2; ++e) {
                double d[3], along = 0, d2 = 0;
                for (int c = 0; c < 3; ++c)
                    d[c] = ends[e][c] - centre[c], along += d[c] * frame[0][c];
                for (int c = 0; c < 3; ++c)
                    d2 += (d[c] - along * frame[0][c]) * (d[c] - along * frame[0][c]);
                off_axis = fmax(off_axis, sqrt(d2));
                t[e] = along;
            }
            span += fabs(t[1] - t[0]);
        }
        /* the 5th to 95th percentile of each part: 90% of it */
        double want = split ? 2 * 0.9 * (L / 2) : 0.9 * L;
        fprintf(stderr,
                "  cylinder %.2f long: %u capsules, radius within %.2g, ends %.2g off the axis, "
                "span %.4f (%.4f)\n",
                L, fitted, worst_radius, off_axis, span, want);
        ENSURE(worst_radius <= 1e-5 && off_axis <= 1e-5);
        ENSURE(fabs(span - want) <= 0.01 * L);
    }
}

/* Points on a line (no thickness) and too few points get none. */
static void test_fit_degenerate(void) {
    float p[3 * 64];
    for (int i = 0; i < 64; ++i)
        p[3 * i] = 0.5f * (float)i, p[3 * i + 1] = 0.25f * (float)i, p[3 * i + 2] = 1;
    tl_collider out[2];
    uint32_t fitted = 9;
    tl_error err;
    ENSURE_OK(tl_colliders_fit_points(p, 64, out, &fitted, &err), err);
    ENSURE(fitted == 0);
    ENSURE_OK(tl_colliders_fit_points(p, 7, out, &fitted, &err), err);
    ENSURE(fitted == 0);
}

static const tl_test_case cases[] = {
    {"fit_ellipsoid", test_fit_ellipsoid},
    {"fit_capsule", test_fit_capsule},
    {"fit_degenerate", test_fit_degenerate},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
