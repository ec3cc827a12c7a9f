/* The cloth player's lattice set-up and bone write on plain arrays (cloth_lattice.h).
 *
 *   bones     bone (r, b) sits at particle (r, 2 b) at rest; its world is the rest bone carried
 *             by the rigid motion best fitting the patch of particles the bone's weights span
 *             (patch_rotation: the rotation, and the patch's centroid onto its centroid now) */
#include "play/cloth_lattice.h"

#include <tailor/colliders.h>
#include <tailor/mesh.h>

#include "base/mat4.h"

#include <math.h>
#include <string.h>

/* The particle frame (cloth.md §1) as a 3x3 (columns x, y, z) from positions. */
static void particle_frame(const float* p, uint32_t R, uint32_t C, bool closed, uint32_t r,
                           uint32_t c, double f[9]) {
    uint32_t i = r * C + c;
    uint32_t a = r + 1 < R ? i : i - C, b = r + 1 < R ? i + C : i;
    uint32_t left = c > 0 ? i - 1 : (closed ? i + C - 1 : i);
    uint32_t right = c + 1 < C ? i + 1 : (closed ? i - C + 1 : i);
    double x[3], y[3];
    for (int k = 0; k < 3; ++k)
        x[k] = (double)p[3 * b + k] - p[3 * a + k],
        y[k] = (double)p[3 * right + k] - p[3 * left + k];
    double l = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int k = 0; k < 3; ++k)
        x[k] = l > 0 ? x[k] / l : (k == 1 ? -1 : 0);
    double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    for (int k = 0; k < 3; ++k)
        y[k] -= d * x[k];
    l = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    if (!(l > 1e-12)) { /* no width: any perpendicular */
        double e[3] = {fabs(x[0]) < 0.9 ? 1 : 0, fabs(x[0]) < 0.9 ? 0 : 1, 0};
        double t = e[0] * x[0] + e[1] * x[1];
        for (int k = 0; k < 3; ++k)
            y[k] = e[k] - t * x[k];
        l = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    }
    for (int k = 0; k < 3; ++k)
        y[k] /= l;
    for (int k = 0; k < 3; ++k)
        f[k] = x[k], f[3 + k] = y[k];
    f[6] = x[1] * y[2] - x[2] * y[1], f[7] = x[2] * y[0] - x[0] * y[2],
    f[8] = x[0] * y[1] - x[1] * y[0];
}

/* The rotation (3x3, column-major) best taking the rest patch of bone (r, c) onto the patch now
 * (Horn's quaternion fit) and the patch's weighted centroids, rest and now: rows r and r + 1 (the
 * rows the bone's weights span), columns c - 1 .. c + 1 (the neighbours at half weight). A frame
 * from two particles alone swings with its shortest link: a skirt's row 1 lying 1.3 cm under the
 * waist turned the waist bone by the direction of a 3.6 cm link and tore the skin it weights 2.7x.
 * `guess` (the two-particle frames' rotation) starts the power iteration and settles a patch too
 * thin to fix a turn. */
static void patch_rotation(const float* rest, const float* now, uint32_t R, uint32_t C, bool closed,
                           uint32_t r, uint32_t c, const double guess[9], double rot[9],
                           double centre_rest[3], double centre_now[3]) {
    uint32_t r0 = r + 1 < R ? r : r - 1, idx[6];
    double w[6], ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0}, wsum = 0;
    int n = 0;
    for (uint32_t rr = r0; rr <= r0 + 1; ++rr)
        for (int dc = -1; dc <= 1; ++dc) {
            long cc = (long)c + dc;
            if (cc < 0 || cc >= (long)C) {
                if (!closed) continue;
                cc = (cc + (long)C) % (long)C;
            }
            idx[n] = rr * C + (uint32_t)cc, w[n] = dc ? 0.5 : 1.0;
            for (int k = 0; k < 3; ++k)
                ca[k] += w[n] * rest[3 * idx[n] + k], cb[k] += w[n] * now[3 * idx[n] + k];
            wsum += w[n++];
        }
    for (int k = 0; k < 3; ++k)
        centre_rest[k] = ca[k] / wsum, centre_now[k] = cb[k] / wsum;
    double S[3][3] = {{0}}, scale = 0;
    for (int i = 0; i < n; ++i) {
        double a[3], b[3];
        for (int k = 0; k < 3; ++k)
            a[k] = rest[3 * idx[i] + k] - ca[k] / wsum, b[k] = now[3 * idx[i] + k] - cb[k] / wsum;
        for (int x = 0; x < 3; ++x)
            for (int y = 0; y < 3; ++y)
                S[x][y] += w[i] * a[x] * b[y];
        scale += w[i] * sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) *
                             (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
    }
    double N[4][4] = {
        {S[0][0] + S[1][1] + S[2][2], S[1][2] - S[2][1], S[2][0] - S[0][2], S[0][1] - S[1][0]},
        {S[1][2] - S[2][1], S[0][0] - S[1][1] - S[2][2], S[0][1] + S[1][0], S[2][0] + S[0][2]},
        {S[2][0] - S[0][2], S[0][1] + S[1][0], -S[0][0] + S[1][1] - S[2][2], S[1][2] + S[2][1]},
        {S[0][1] - S[1][0], S[2][0] + S[0][2], S[1][2] + S[2][1], -S[0][0] - S[1][1] + S[2][2]}};
    for (int k = 0; k < 4; ++k)
        N[k][k] += scale; /* eigenvalues in [-scale, scale]: shifted to >= 0 */
    /* the guess as a quaternion (w, x, y, z) */
    const double* g = guess;
    double q[4], t = g[0] + g[4] + g[8];
    if (t > -0.99) {
        q[0] = 0.5 * sqrt(1 + t);
        q[1] = (g[5] - g[7]) / (4 * q[0]), q[2] = (g[6] - g[2]) / (4 * q[0]),
        q[3] = (g[1] - g[3]) / (4 * q[0]);
    } else {
        q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 0;
    }
    for (int it = 0; it < 64; ++it) {
        double nq[4] = {0, 0, 0, 0}, l = 0;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                nq[a] += N[a][b] * q[b];
        for (int a = 0; a < 4; ++a)
            l += nq[a] * nq[a];
        if (!(l > 1e-300)) break;
        l = sqrt(l);
        for (int a = 0; a < 4; ++a)
            q[a] = nq[a] / l;
    }
    double qw = q[0], qx = q[1], qy = q[2], qz = q[3];
    rot[0] = 1 - 2 * (qy * qy + qz * qz), rot[1] = 2 * (qx * qy + qw * qz),
    rot[2] = 2 * (qx * qz - qw * qy);
    rot[3] = 2 * (qx * qy - qw * qz), rot[4] = 1 - 2 * (qx * qx + qz * qz),
    rot[5] = 2 * (qy * qz + qw * qx);
    rot[6] = 2 * (qx * qz + qw * qy), rot[7] = 2 * (qy * qz - qw * qx),
    rot[8] = 1 - 2 * (qx * qx + qy * qy);
}

/* An ellipsoid scaled about its centre until the points (and the margin) clear it; false when
 * it would keep less than half its size. */
static bool shrink_ellipsoid(tl_collider* c, const float* points, uint32_t count, float margin) {
    float len[3], t = 1;
    for (int k = 0; k < 3; ++k)
        len[k] = sqrtf(c->axes[k][0] * c->axes[k][0] + c->axes[k][1] * c->axes[k][1] +
                       c->axes[k][2] * c->axes[k][2]);
    if (!(len[0] > 0 && len[1] > 0 && len[2] > 0)) return false;
    for (uint32_t i = 0; i < count; ++i) {
        float q2 = 0;
        for (int k = 0; k < 3; ++k) {
            float d = 0;
            for (int j = 0; j < 3; ++j)
                d += (points[3 * i + j] - c->a[j]) * c->axes[k][j];
            float u = d / len[k] / (len[k] + margin);
            q2 += u * u;
        }
        if (sqrtf(q2) < t) t = sqrtf(q2);
    }
    for (int k = 0; k < 3; ++k) {
        float shrunk = t * (len[k] + margin) - margin;
        if (!(shrunk >= 0.5f * len[k])) return false;
        for (int j = 0; j < 3; ++j)
            c->axes[k][j] *= shrunk / len[k];
    }
    return true;
}

void play_lattice_player_step(tl_cloth_def* def) {
    float ratio = (1.0f / 120.0f) / def->fixed_step;
    def->fixed_step = 1.0f / 120.0f;
    def->max_substeps *= 2;
    tl_cloth_settings* s = &def->settings;
    s->damping = 1.0f - powf(1.0f - s->damping, ratio);
    s->edge_damping = 1.0f - powf(1.0f - s->edge_damping, ratio);
    s->contact_damping = 1.0f - powf(1.0f - s->contact_damping, ratio);
}

bool play_lattice_fit_collider(tl_collider* c, const float* rest, uint32_t R, uint32_t C,
                               float margin) {
    uint32_t n = R * C;
    bool holds = false;
    for (uint32_t q = 0; q < C && !holds; ++q)
        holds = tl_collider_depth(c, rest + 3 * q) > 0;
    if (holds || c->shape == TL_COLLIDER_PLANE) return false;
    if (c->shape == TL_COLLIDER_ELLIPSOID)
        return shrink_ellipsoid(c, rest + 3 * C, n - C, 1.01f * margin);
    float radius = c->radius;
    for (uint32_t i = C; i < n; ++i) {
        float core = c->radius - tl_collider_depth(c, rest + 3 * i); /* to the axis */
        if (core - 1.01f * margin < radius) radius = core - 1.01f * margin;
    }
    if (!(radius >= 0.5f * c->radius)) return false;
    c->radius = radius;
    return true;
}

/* How deep each link the solver keeps outside (tl_cloth_def.link_slack: particle i's link up and
 * its link to the right) lies in the colliders (and the margin) at rest: the solver lets it go that
 * deep and no deeper, so the rest pose pushes nothing and the colliders need not shrink further
 * for it. Without it the skirt's rest links, which cut into the thighs where the rounder skin does
 * not, were pushed out at rest (HeadTurn mesh 0.0023 -> 0.0247 H); shrinking the thighs until the
 * links cleared them took them from 0.059 to 0.046 m. */
void play_lattice_link_slack(const tl_collider* colliders, uint32_t count, const float* rest,
                             uint32_t R, uint32_t C, bool closed, float margin, float* slack) {
    enum { SAMPLES = 8 }; /* a link's points: 7 between its ends */
    memset(slack, 0, sizeof(float) * 2 * R * C);
    for (uint32_t r = 1; r < R; ++r)
        for (uint32_t j = 0; j < C; ++j) {
            uint32_t i = r * C + j, other[2] = {i - C, r * C + (j + 1) % C};
            bool used[2] = {true, closed || j + 1 < C};
            for (int k = 0; k < 2; ++k)
                for (int s = 1; used[k] && s < SAMPLES; ++s) {
                    float t = (float)s / SAMPLES, p[3];
                    for (int a = 0; a < 3; ++a)
                        p[a] = rest[3 * i + a] + t * (rest[3 * other[k] + a] - rest[3 * i + a]);
                    for (uint32_t q = 0; q < count; ++q) {
                        float d = tl_collider_depth(&colliders[q], p) + 1.01f * margin;
                        if (d > slack[2 * i + k]) slack[2 * i + k] = d;
                    }
                }
        }
}

static void bilinear(const float* rest, uint32_t C, uint32_t cell, float u, float v, float out[3]) {
    const float *a = rest + 3 * cell, *b = a + 3, *c = a + 3 * C, *d = c + 3;
    for (int k = 0; k < 3; ++k)
        out[k] = (1 - u) * (1 - v) * a[k] + (1 - u) * v * b[k] + u * (1 - v) * c[k] + u * v * d[k];
}

/* The unit normal (down x along the row) of the bilinear surface of `cell` at (u, v). */
static void cell_normal(const float* rest, uint32_t C, uint32_t cell, float u, float v,
                        float n[3]) {
    const float *a = rest + 3 * cell, *b = a + 3, *c = a + 3 * C, *d = c + 3;
    float du[3], dv[3], l = 0;
    for (int k = 0; k < 3; ++k)
        du[k] = (1 - v) * (c[k] - a[k]) + v * (d[k] - b[k]),
        dv[k] = (1 - u) * (b[k] - a[k]) + u * (d[k] - c[k]);
    n[0] = du[1] * dv[2] - du[2] * dv[1], n[1] = du[2] * dv[0] - du[0] * dv[2],
    n[2] = du[0] * dv[1] - du[1] * dv[0];
    for (int k = 0; k < 3; ++k)
        l += n[k] * n[k];
    l = sqrtf(l);
    for (int k = 0; k < 3; ++k)
        n[k] = l > 0 ? n[k] / l : 0;
}

/* Point p's cell and coordinates on an open rest lattice: the nearest point of its surface (each
 * cell two triangles, as the rig's lattice_column), carried on beyond a border column or the
 * last row by p's offset along the cell's edge there (particles are centroids of their cells, so
 * a garment's edge lies beyond them; above row 0 is the body). */
static tl_cloth_skin_point skin_point(const float* rest, uint32_t R, uint32_t C, const float* p) {
    tl_cloth_skin_point s = {0};
    float best = INFINITY, b[3];
    for (uint32_t r = 0; r + 1 < R; ++r)
        for (uint32_t c = 0; c + 1 < C; ++c) {
            const float *p00 = rest + 3 * (r * C + c), *p01 = p00 + 3, *p10 = p00 + 3 * C,
                        *p11 = p10 + 3;
            float d = tl_mesh_triangle_nearest(p, p00, p01, p11, b);
            if (d < best) best = d, s.cell = (int)(r * C + c), s.u = b[2], s.v = b[1] + b[2];
            d = tl_mesh_triangle_nearest(p, p00, p11, p10, b);
            if (d < best) best = d, s.cell = (int)(r * C + c), s.u = b[1] + b[2], s.v = b[1];
        }
    uint32_t r = (uint32_t)s.cell / C, c = (uint32_t)s.cell % C;
    float q[3], e0[3], e1[3], t[3];
    bilinear(rest, C, (uint32_t)s.cell, s.u, s.v, q);
    for (int k = 0; k < 3; ++k)
        t[k] = p[k] - q[k];
    bool left = c == 0 && s.v <= 0, right = c + 2 == C && s.v >= 1, hem = r + 2 == R && s.u >= 1;
    if (left || right) { /* along the row */
        bilinear(rest, C, (uint32_t)s.cell, s.u, 0, e0),
            bilinear(rest, C, (uint32_t)s.cell, s.u, 1, e1);
        float l2 = 0, dot = 0;
        for (int k = 0; k < 3; ++k)
            l2 += (e1[k] - e0[k]) * (e1[k] - e0[k]), dot += t[k] * (e1[k] - e0[k]);
        if (l2 > 0) s.v = fminf(fmaxf(s.v + dot / l2, -1.0f), 2.0f);
    }
    if (hem) { /* down the column */
        bilinear(rest, C, (uint32_t)s.cell, 0, s.v, e0),
            bilinear(rest, C, (uint32_t)s.cell, 1, s.v, e1);
        float l2 = 0, dot = 0;
        for (int k = 0; k < 3; ++k)
            l2 += (e1[k] - e0[k]) * (e1[k] - e0[k]), dot += t[k] * (e1[k] - e0[k]);
        if (l2 > 0) s.u = fminf(fmaxf(s.u + dot / l2, -1.0f), 2.0f);
    }
    return s;
}

/* The skin points an open lattice keeps out of its colliders (tl_cloth_def.skin_points): the
 * vertices the lattice drives, at their cells and coordinates, with their depth at rest (and the
 * margin) as slack like the links'. One point a bin of a quarter cell (in u and v; extrapolated
 * coordinates have bins of their own), the one lying furthest in (least lift): the solver tests
 * every point against every collider each iteration, so its cost stays with the lattice, not the
 * mesh. */
enum { SKIN_BINS = 24 }; /* per side of a cell: u, v in [-1, 2] by eighths */

size_t play_lattice_skin_bins(uint32_t R, uint32_t C) {
    return (size_t)R * C * SKIN_BINS * SKIN_BINS;
}

int play_lattice_skin_points(const tl_collider* colliders, uint32_t collider_count,
                             const float* rest, uint32_t R, uint32_t C, float margin,
                             const float* mesh, uint32_t count, int* bin,
                             tl_cloth_skin_point* out) {
    size_t bins = play_lattice_skin_bins(R, C);
    for (size_t b = 0; b < bins; ++b)
        bin[b] = -1;
    int kept = 0;
    for (uint32_t i = 0; i < count; ++i) {
        tl_cloth_skin_point s = skin_point(rest, R, C, mesh + 3 * i);
        float q[3], n[3];
        bilinear(rest, C, (uint32_t)s.cell, s.u, s.v, q);
        cell_normal(rest, C, (uint32_t)s.cell, s.u, s.v, n);
        for (int k = 0; k < 3; ++k)
            s.lift += (mesh[3 * i + k] - q[k]) * n[k];
        for (int k = 0; k < 3; ++k)
            q[k] += s.lift * n[k];
        for (uint32_t k = 0; k < collider_count; ++k) {
            float d = tl_collider_depth(&colliders[k], q) + 1.01f * margin;
            if (d > s.slack) s.slack = d;
        }
        int bu = (int)floorf((s.u + 1) * 8), bv = (int)floorf((s.v + 1) * 8);
        bu = bu < 0 ? 0 : (bu >= SKIN_BINS ? SKIN_BINS - 1 : bu),
        bv = bv < 0 ? 0 : (bv >= SKIN_BINS ? SKIN_BINS - 1 : bv);
        int* at = &bin[((size_t)s.cell * SKIN_BINS + (size_t)bu) * SKIN_BINS + (size_t)bv];
        if (*at < 0)
            *at = kept++, out[*at] = s;
        else if (s.lift < out[*at].lift)
            out[*at] = s;
    }
    return kept;
}

void play_lattice_bone_motion(const float* rest, const float* now, uint32_t R, uint32_t C,
                              bool closed, uint32_t r, uint32_t c, double D[16]) {
    double f0[9], f1[9], guess[9], rot[9];
    particle_frame(rest, R, C, closed, r, c, f0);
    particle_frame(now, R, C, closed, r, c, f1);
    for (int a = 0; a < 3; ++a) /* F1 · F0^T */
        for (int b = 0; b < 3; ++b)
            guess[3 * b + a] = f1[a] * f0[b] + f1[3 + a] * f0[3 + b] + f1[6 + a] * f0[6 + b];
    double cr[3], cn[3];
    patch_rotation(rest, now, R, C, closed, r, c, guess, rot, cr, cn);
    /* D = T(now) · Rot · T(-rest) about the patch's centroid, the least-squares rigid motion of
     * the patch: about the bone's particle (the patch's top corner) a hem ring bent around a
     * thigh threw the row below it off by the turn x a row's length (Walk with colliders: mesh
     * p99 1.223 -> 1.170, max 2.619 -> 2.382) */
    memset(D, 0, 16 * sizeof *D);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            D[4 * b + a] = rot[3 * b + a];
    for (int a = 0; a < 3; ++a)
        D[12 + a] = cn[a] - (D[a] * cr[0] + D[4 + a] * cr[1] + D[8 + a] * cr[2]);
    D[15] = 1;
}

void play_lattice_bone_locals(const float* rest, const float* now, uint32_t R, uint32_t C,
                              bool closed, uint32_t BC, uint32_t count, const float* rest_world,
                              const float* attach_world, float* local) {
    double world[TL_CHAIN_MAX_BONES + 1][16];
    for (uint32_t k = 0; k < count && k <= TL_CHAIN_MAX_BONES; ++k) {
        double D[16], bone[16], parent[16], inv[16], l[16];
        play_lattice_bone_motion(rest, now, R, C, closed, k / BC, 2 * (k % BC), D);
        tl_mat4d_from_float(bone, rest_world + 16 * k);
        tl_mat4d_mul(world[k], D, bone);
        if (k < BC)
            tl_mat4d_from_float(parent, attach_world);
        else
            memcpy(parent, world[k - BC], sizeof parent);
        tl_mat4d_invert(inv, parent);
        tl_mat4d_mul(l, inv, world[k]);
        tl_mat4d_to_float(local + 16 * k, l);
    }
}
