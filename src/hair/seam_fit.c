/* The seam fit (seam_fit.h; docs/hair.md "Session 26 (hairfit26)"). Per free vertex i and its
 * candidate joints k, x_i(t) = sum_k w_k M_k(t) b_i is linear in w; the energy over the poses t
 * and i's edges ij is sum |x_i(t) - (x_j(t) + L_ij d_ij(t))|^2 (local/global: d_ij the edge's
 * current direction, L_ij its rest length; a sample stretched past 1.3 or under 1 / 1.3 weighs
 * 4), plus a pull toward the input weights. Gauss-Seidel over the band, each vertex's QP solved
 * exactly (seam_qp.c) on the simplex, at most 4 joints kept, and the collider half-spaces found
 * violated so far: a plane on the collider's outward normal at the input point, the fitted point
 * no deeper than the input put it (kept across the sweeps, so the next sweep cannot pull the
 * vertex back onto the chord between two locks that part around the body). */
#include "hair/seam_fit_internal.h"

#include "internal.h"

#include "play/chain_colliders.h"

#include <tailor/colliders.h>
#include <tailor/play.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hair_seam_fit_def hair_default_seam_fit_def(void) {
    hair_seam_fit_def d;
    d.jump = 0.5f;
    d.rings = 3;
    d.samples[0] = 48, d.samples[1] = 36, d.samples[2] = 30;
    for (int k = 3; k < HAIR_FIT_PLAYS; ++k)
        d.samples[k] = 0;
    d.sweeps = 30;
    d.pull = 0.01f;
    d.colliders = true;
    d.clips = NULL;
    return d;
}

static void fit_free(fit* f) {
    free(f->mats), free(f->world), free(f->spheres), free(f->rest_in), free(f->weld), free(f->rep);
    free(f->adj_start), free(f->adj), free(f->free_w), free(f->fidx), free(f->cand), free(f->kc);
    free(f->w), free(f->win), free(f->P), free(f->X), free(f->H0), free(f->pair_start);
    free(f->pairs);
}

/* The clips fitted: def.clips (names the file lacks skipped), else every clip of the file (no
 * names guessed: a character's motions are what it has). */
static uint32_t pick_clips(const tl_scene* scene, const char* names, uint32_t* out) {
    uint32_t n = 0;
    tl_error err;
    while (names && *names && n < 64) {
        const char* end = strchr(names, ',');
        size_t len = end ? (size_t)(end - names) : strlen(names);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), names);
        uint32_t c;
        if (len && tl_scene_find_clip(scene, name, &c, &err) == TL_OK) out[n++] = c;
        names += len + (end ? 1 : 0);
    }
    for (uint32_t c = 0; !names && c < scene->clip_count && c < 64; ++c)
        out[n++] = c;
    return n;
}

/* The poses: each clip played by the player from its start (the stored play data, which the
 * fitted weights do not change), the joint matrices and the body colliders at each sample. */
static tl_result sample_poses(fit* f, uint32_t skin, const uint32_t* clips, uint32_t nc,
                              tl_error* err) {
    const tl_scene_skin* sk = f->sk;
    tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
    const tl_body_collider* body = sk->colliders;
    f->C = sk->collider_count;
    if (f->C == 0) {
        tl_result r =
            tl_body_colliders_fit(f->scene, skin, fitted, TL_BODY_COLLIDERS_MAX, &f->C, err);
        if (r != TL_OK) return r;
        body = fitted;
    }
    memcpy(f->body_store, body, sizeof *body * f->C);
    f->body = f->body_store;
    uint32_t ns = 0, S = 0;
    while (ns < HAIR_FIT_PLAYS && f->def.samples[ns] > 0)
        S += f->def.samples[ns++];
    f->T = nc * S, f->J = sk->joint_count;
    f->mats = malloc(sizeof *f->mats * 16 * (size_t)f->J * f->T + 1);
    f->world = malloc(sizeof *f->world * ((size_t)f->C * f->T + 1));
    f->spheres = malloc(sizeof *f->spheres * 4 * ((size_t)f->C * f->T + 1));
    f->rest_in = calloc((size_t)f->nf * (f->C + 1), 1);
    tl_pose* pose = tl_pose_create(f->scene);
    tl_play_chain chains[64];
    uint32_t n = 0;
    tl_player* player = NULL;
    tl_result r = TL_OK;
    if (!f->mats || !f->world || !f->spheres || !f->rest_in || !pose)
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = tl_play_chains_find(f->scene, chains, 64, &n, err);
    tl_player_def def = tl_default_player_def();
    if (r == TL_OK) r = tl_player_create(f->scene, chains, n < 64 ? n : 64, &def, &player, err);
    uint32_t t = 0;
    for (uint32_t c = 0; r == TL_OK && c < nc; ++c)
        for (uint32_t k = 0; k < ns; ++k) {
            tl_player_start(player, clips[c], 0);
            float duration = f->scene->clips[clips[c]].duration;
            uint32_t Sk = f->def.samples[k];
            for (uint32_t s = 0; s < Sk; ++s, ++t) {
                tl_player_advance(player, pose, clips[c],
                                  Sk > 1 ? duration * (float)s / (float)(Sk - 1) : 0);
                tl_pose_joint_matrices(pose, f->scene, skin, f->mats + 16 * (size_t)f->J * t);
                tl_body_colliders_pose(f->scene, skin, body, f->C, pose,
                                       f->world + (size_t)f->C * t);
                for (uint32_t m = 0; m < f->C; ++m) {
                    float* sp = f->spheres + 4 * ((size_t)f->C * t + m);
                    if (!tl_collider_sphere(&f->world[(size_t)f->C * t + m], sp)) sp[3] = -1;
                }
            }
        }
    for (uint32_t i = 0; r == TL_OK && i < f->nf; ++i)
        for (uint32_t c = 0; c < f->C; ++c)
            f->rest_in[(size_t)i * f->C + c] =
                tl_collider_depth(&body[c].local,
                                  sk->rest_positions + 3 * (size_t)f->rep[f->free_w[i]]) > 0;
    tl_player_destroy(player);
    tl_pose_destroy(pose);
    return r;
}

/* Each free vertex's candidate positions per pose (P), the band's positions (X), the normal
 * matrices with unit weights (H0), and the (pose, collider) pairs the vertex can reach at all
 * (the ball around its candidate points meets the collider's sphere). */
static bool place(fit* f) {
    const tl_scene_skin* sk = f->sk;
    const uint32_t IC = sk->influence_count, T = f->T;
    f->P = malloc(sizeof *f->P * 3 * K_MAX * (size_t)T * (f->nf + 1));
    f->X = malloc(sizeof *f->X * 3 * (size_t)T * (f->nw + 1));
    f->H0 = calloc((size_t)K_MAX * K_MAX * (f->nf + 1), sizeof *f->H0);
    f->pair_start = calloc(f->nf + 2, sizeof *f->pair_start);
    uint8_t* band = calloc(f->nw + 1, 1);
    hair_grow pairs = {.size = sizeof(fit_pair)};
    bool ok = f->P && f->X && f->H0 && f->pair_start && band;
    for (uint32_t i = 0; ok && i < f->nf; ++i) {
        uint32_t v = f->free_w[i];
        band[v] = 1;
        for (uint32_t e = f->adj_start[v]; e < f->adj_start[v + 1]; ++e)
            band[f->adj[e]] = 1;
    }
    for (uint32_t v = 0; ok && v < f->nw; ++v) /* the band's input positions */
        for (uint32_t t = 0; band[v] && t < T; ++t) {
            float* x = f->X + 3 * ((size_t)v * T + t);
            const float* b = sk->bind_positions + 3 * (size_t)f->rep[v];
            x[0] = x[1] = x[2] = 0;
            for (uint32_t k = 0; k < IC; ++k) {
                float wk = sk->influence_weights[(size_t)f->rep[v] * IC + k], y[3];
                if (wk == 0) continue;
                skin_point(f->mats + 16 * ((size_t)f->J * t +
                                           sk->influence_joints[(size_t)f->rep[v] * IC + k]),
                           b, y);
                for (int a = 0; a < 3; ++a)
                    x[a] += wk * y[a];
            }
        }
    for (uint32_t i = 0; ok && i < f->nf; ++i) {
        const float* b = sk->bind_positions + 3 * (size_t)f->rep[f->free_w[i]];
        uint32_t K = f->kc[i];
        double* H = f->H0 + (size_t)K_MAX * K_MAX * i;
        f->pair_start[i] = (uint32_t)pairs.count;
        for (uint32_t t = 0; t < T; ++t) {
            float* p = f->P + 3 * K_MAX * ((size_t)i * T + t);
            float mid[3] = {0, 0, 0}, reach = 0, x[3] = {0, 0, 0};
            for (uint32_t k = 0; k < K; ++k) {
                skin_point(f->mats + 16 * ((size_t)f->J * t + f->cand[K_MAX * i + k]), b,
                           p + 3 * k);
                for (int a = 0; a < 3; ++a)
                    mid[a] += p[3 * k + a] / (float)K,
                        x[a] += (float)f->win[K_MAX * i + k] * p[3 * k + a];
            }
            for (uint32_t k = 0; k < K; ++k) {
                reach = fmaxf(reach, sqrtf(tl__dist2(mid, p + 3 * k)));
                for (uint32_t m = 0; m < K; ++m)
                    H[k * K + m] += (double)dot3(p + 3 * k, p + 3 * m);
            }
            for (uint32_t c = 0; ok && f->def.colliders && c < f->C; ++c) {
                const tl_collider* col = &f->world[(size_t)f->C * t + c];
                float sphere[4];
                if (f->rest_in[(size_t)i * f->C + c]) continue;
                if (tl_collider_sphere(col, sphere) &&
                    sqrtf(tl__dist2(mid, sphere)) > reach + sphere[3])
                    continue;
                fit_pair q = {t, c, PAIR_NONE, tl_collider_depth(col, x), {0, 0, 0}};
                ok = hair_grow_push(&pairs, &q);
            }
        }
    }
    f->pair_start[f->nf] = (uint32_t)pairs.count;
    f->pairs = pairs.items;
    free(band);
    return ok;
}

/* The outward normal of a collider at p (its depth's gradient, central differences). */
static void outward(const tl_collider* c, const float p[3], float h, float n[3]) {
    float len = 0;
    for (int a = 0; a < 3; ++a) {
        float q[3] = {p[0], p[1], p[2]}, r[3] = {p[0], p[1], p[2]};
        q[a] += h, r[a] -= h;
        n[a] = tl_collider_depth(c, r) - tl_collider_depth(c, q);
        len += n[a] * n[a];
    }
    len = sqrtf(len);
    for (int a = 0; a < 3; ++a)
        n[a] = len > 0 ? n[a] / len : 0;
}

/* Vertex i's QP on its candidates with its planes (and `zero` candidates held at 0), from its
 * input weights (feasible for every plane); x out. */
static void solve_qp(const fit* f, uint32_t i, const double* Q, const double* c, uint32_t zero,
                     double* x) {
    const float tol = 1e-5f * f->sk->height;
    uint32_t K = f->kc[i], T = f->T;
    uint32_t first = f->pair_start[i], np = f->pair_start[i + 1] - first, planes = 0;
    for (uint32_t q = 0; q < np; ++q)
        planes += f->pairs[first + q].state != PAIR_NONE;
    uint32_t m = 3 * K + planes + 1;
    double* A = calloc((size_t)m * K + 1, sizeof *A);
    double* b = calloc(m + 1, sizeof *b);
    memcpy(x, f->win + (size_t)K_MAX * i, sizeof *x * K);
    if (!A || !b) {
        free(A), free(b);
        return;
    }
    uint32_t r = 0;
    for (uint32_t k = 0; k < K; ++k, ++r)
        A[(size_t)r * K + k] = -1; /* x >= 0 */
    for (uint32_t k = 0; k < K; ++k)
        if (zero >> k & 1) A[(size_t)r * K + k] = 1, ++r; /* x_k <= 0 */
    if (f->set->kept) { /* sum of the kept joints' x >= min(share, the input's) */
        const double* in = f->win + (size_t)K_MAX * i;
        double sum = 0;
        uint32_t d = K; /* the input's heaviest kept joint stays heavier than every other joint
                           (the dominant joint, which the body colliders are fitted by) */
        for (uint32_t k = 0; k < K; ++k)
            if (f->set->kept[f->cand[K_MAX * i + k]]) {
                A[(size_t)r * K + k] = -1, sum += in[k];
                if (d == K || in[k] > in[d]) d = k;
            }
        b[r++] = -fmin(f->set->share, sum);
        for (uint32_t k = 0; d < K && k < K; ++k) {
            if (f->set->kept[f->cand[K_MAX * i + k]]) continue;
            A[(size_t)r * K + k] = 1, A[(size_t)r * K + d] = -1;
            b[r++] = fmax(-1e-4, in[k] - in[d]);
        }
    }
    for (uint32_t q = 0; q < np; ++q) {
        const fit_pair* pr = &f->pairs[first + q];
        if (pr->state == PAIR_NONE) continue;
        const float* p = f->P + 3 * K_MAX * ((size_t)i * T + pr->t);
        /* n . (x(w) - x_in) >= off: the input point's depth (outside) may be used up, no more */
        double off = pr->state == PAIR_STRICT ? 0 : fmin(pr->depth, 0), nx = 0;
        /* an input point inside: every pose's plane passes through the start, a degenerate
           corner the active set cycles at; each gets a slack of its own within the fit's
           tolerance (1e-5 H) */
        if (f->set->push > 0 && pr->depth > 0)
            off = -(double)tol * (0.25 + 0.5 * (double)(q % 64) / 64);
        for (uint32_t k = 0; k < K; ++k) {
            double a = -dot3(pr->n, p + 3 * k);
            A[(size_t)r * K + k] = a;
            nx += a * f->win[(size_t)K_MAX * i + k];
        }
        b[r++] = nx - off;
    }
    hair_qp_solve((int)K, Q, c, (int)r, A, b, f->set->qp_step > 0 ? f->set->qp_step : 1e-12, x);
    free(A), free(b);
}

/* The pull of vertex i's current point in pair pr's pose onto the collider's surface when it is
 * inside, added to its normal matrix H and right side g (the set's push; an outward step by the
 * depth along the depth's gradient, found again each sweep as the point moves). */
static void push_term(const fit* f, uint32_t i, const fit_pair* pr, double* H, double* g) {
    const float* xi = f->X + 3 * ((size_t)f->free_w[i] * f->T + pr->t);
    const float* sp = f->spheres + 4 * ((size_t)f->C * pr->t + pr->c);
    if (sp[3] >= 0 && tl__dist2(xi, sp) >= sp[3] * sp[3]) return;
    const tl_collider* col = &f->world[(size_t)f->C * pr->t + pr->c];
    float d = tl_collider_depth(col, xi), s[3];
    if (!(d > 0)) return;
    const float* p = f->P + 3 * K_MAX * ((size_t)i * f->T + pr->t);
    uint32_t K = f->kc[i], best = K;
    float least = d;
    for (uint32_t k = 0; k < K; ++k) {
        float dk = tl_collider_depth(col, p + 3 * k);
        if (dk < least) least = dk, best = k;
    }
    if (best == K) return; /* (no candidate takes it out further) */
    /* the target: toward the candidate point least deep, to the surface when that one is out
       (the depth's nearest exit can point through the body: a swept-through point's does) */
    float lo = 0, hi = 1;
    for (int it = 0; least < 0 && it < 12; ++it) {
        float m = 0.5f * (lo + hi), q[3];
        for (int a = 0; a < 3; ++a)
            q[a] = xi[a] + m * (p[3 * best + a] - xi[a]);
        if (tl_collider_depth(col, q) > 0)
            lo = m;
        else
            hi = m;
    }
    for (int a = 0; a < 3; ++a)
        s[a] = xi[a] + hi * (p[3 * best + a] - xi[a]);
    const double w = f->set->push;
    for (uint32_t k = 0; k < K; ++k) {
        for (int a = 0; a < 3; ++a)
            g[k] += w * s[a] * p[3 * k + a];
        for (uint32_t m = 0; m < K; ++m)
            H[k * K + m] += w * dot3(p + 3 * k, p + 3 * m);
    }
}

/* Vertex i fitted on its neighbours' current positions; its positions updated. */
static void fit_vertex(fit* f, uint32_t i) {
    uint32_t K = f->kc[i], T = f->T, v = f->free_w[i];
    if (K < 2) return;
    const tl_scene_skin* sk = f->sk;
    double H[K_MAX * K_MAX], g[K_MAX] = {0}, Q[K_MAX * K_MAX], c[K_MAX], x[K_MAX];
    uint32_t deg = f->adj_start[v + 1] - f->adj_start[v];
    for (uint32_t k = 0; k < K * K; ++k)
        H[k] = deg * f->H0[(size_t)K_MAX * K_MAX * i + k];
    const float* ri = sk->rest_positions + 3 * (size_t)f->rep[v];
    for (uint32_t t = 0; t < T; ++t) {
        const float* p = f->P + 3 * K_MAX * ((size_t)i * T + t);
        const float* xi = f->X + 3 * ((size_t)v * T + t);
        double y[3] = {0, 0, 0}, extra = 0;
        for (uint32_t e = f->adj_start[v]; e < f->adj_start[v + 1]; ++e) {
            uint32_t j = f->adj[e];
            const float* xj = f->X + 3 * ((size_t)j * T + t);
            float L = sqrtf(tl__dist2(ri, sk->rest_positions + 3 * (size_t)f->rep[j]));
            float len = sqrtf(tl__dist2(xi, xj));
            double wgt = len > 1.3f * L || len * 1.3f < L ? 4 : 1;
            for (int a = 0; a < 3; ++a) {
                double dir = len > 0 ? (xi[a] - xj[a]) / len : 0;
                y[a] += wgt * (xj[a] + L * dir);
            }
            extra += wgt - 1;
        }
        for (uint32_t k = 0; k < K; ++k) {
            g[k] += y[0] * p[3 * k] + y[1] * p[3 * k + 1] + y[2] * p[3 * k + 2];
            for (uint32_t m = 0; extra > 0 && m < K; ++m)
                H[k * K + m] += extra * dot3(p + 3 * k, p + 3 * m);
        }
    }
    for (uint32_t q = f->pair_start[i]; f->set->push > 0 && q < f->pair_start[i + 1]; ++q)
        push_term(f, i, &f->pairs[q], H, g);
    double trace = 0, sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
        trace += H[k * K + k];
        for (uint32_t m = 0; m < K; ++m)
            sum += H[k * K + m];
    }
    double pull = f->def.pull * fmax(trace - sum / K, 0);
    for (uint32_t k = 0; k < K; ++k) {
        for (uint32_t m = 0; m < K; ++m)
            Q[k * K + m] = 2 * (H[k * K + m] + (k == m ? pull : 0));
        c[k] = 2 * (g[k] + pull * f->win[(size_t)K_MAX * i + k]);
    }
    float h = 1e-4f * f->sk->height, tol = 1e-5f * f->sk->height;
    for (int round = 0;; ++round) { /* solved again after the last planes added */
        uint32_t zero = 0;
        for (;;) { /* at most 4 joints: the lightest outside the input's own held at 0 */
            solve_qp(f, i, Q, c, zero, x);
            uint32_t nz = 0;
            int32_t light = -1;
            for (uint32_t k = 0; k < K; ++k) {
                if (!(x[k] > 1e-9)) continue;
                ++nz;
                /* (one held at 0 may read 1e-9 after a failed solve); with a kept set, its own
                   joints go first: the room is for the body's */
                bool first = f->set->kept && f->set->kept[f->cand[K_MAX * i + k]];
                bool was = light >= 0 && f->set->kept && f->set->kept[f->cand[K_MAX * i + light]];
                if (f->win[(size_t)K_MAX * i + k] == 0 && !(zero >> k & 1) &&
                    (light < 0 || first > was || (first == was && x[k] < x[light])))
                    light = (int32_t)k;
            }
            if (nz <= 4 || light < 0) break;
            zero |= 1u << light;
        }
        bool added = false;
        for (uint32_t q = f->pair_start[i]; round < 6 && q < f->pair_start[i + 1]; ++q) {
            fit_pair* pr = &f->pairs[q];
            if (pr->state == PAIR_STRICT) continue;
            const float* p = f->P + 3 * K_MAX * ((size_t)i * T + pr->t);
            float pt[3] = {0, 0, 0};
            for (uint32_t k = 0; k < K; ++k)
                for (int a = 0; a < 3; ++a)
                    pt[a] += (float)x[k] * p[3 * k + a];
            /* (outside the collider's sphere the depth is <= 0: no violation) */
            const float* sp = f->spheres + 4 * ((size_t)f->C * pr->t + pr->c);
            if (sp[3] >= 0 && tl__dist2(pt, sp) >= sp[3] * sp[3]) continue;
            const tl_collider* col = &f->world[(size_t)f->C * pr->t + pr->c];
            if (tl_collider_depth(col, pt) <= fmaxf(pr->depth, 0) + tol) continue;
            if (pr->state == PAIR_NONE) {
                float in[3] = {0, 0, 0};
                for (uint32_t k = 0; k < K; ++k)
                    for (int a = 0; a < 3; ++a)
                        in[a] += (float)f->win[(size_t)K_MAX * i + k] * p[3 * k + a];
                outward(col, in, h, pr->n);
            }
            pr->state = pr->state == PAIR_NONE ? PAIR_PLANE : PAIR_STRICT;
            added = true;
        }
        if (!added) break;
    }
    memcpy(f->w + (size_t)K_MAX * i, x, sizeof *x * K);
    for (uint32_t t = 0; t < T; ++t) {
        const float* p = f->P + 3 * K_MAX * ((size_t)i * T + t);
        float* xi = f->X + 3 * ((size_t)v * T + t);
        xi[0] = xi[1] = xi[2] = 0;
        for (uint32_t k = 0; k < K; ++k)
            for (int a = 0; a < 3; ++a)
                xi[a] += (float)x[k] * p[3 * k + a];
    }
}

/* The deepest free vertex i goes into a collider in the fit's poses, and beyond its input's
 * depth there (0 outside), into the report (H). */
static void excess(const fit* f, uint32_t i, hair_seam_fit_report* rep) {
    const float H = f->sk->height > 0 ? f->sk->height : 1;
    for (uint32_t t = 0; t < f->T; ++t)
        for (uint32_t c = 0; c < f->C; ++c) {
            if (f->rest_in[(size_t)i * f->C + c]) continue;
            const float* p = f->P + 3 * K_MAX * ((size_t)i * f->T + t);
            float pt[3] = {0, 0, 0}, in[3] = {0, 0, 0};
            for (uint32_t k = 0; k < f->kc[i]; ++k)
                for (int a = 0; a < 3; ++a)
                    pt[a] += (float)f->w[K_MAX * i + k] * p[3 * k + a],
                        in[a] += (float)f->win[K_MAX * i + k] * p[3 * k + a];
            const tl_collider* col = &f->world[(size_t)f->C * t + c];
            float dn = tl_collider_depth(col, pt), di = tl_collider_depth(col, in);
            rep->deepest_input = fmaxf(rep->deepest_input, di / H);
            rep->deepest = fmaxf(rep->deepest, dn / H);
            rep->excess = fmaxf(rep->excess, (dn - fmaxf(di, 0)) / H);
        }
}

tl_result seam_fit_run(const tl_scene* scene, uint32_t skin, const hair_seam_fit_def* def,
                       const seam_fit_set* set, uint32_t* joints, float* weights, uint8_t* changed,
                       hair_seam_fit_report* report, tl_error* err) {
    assert(scene && def && set && set->mesh && skin < scene->skin_count && joints && weights &&
           changed && report);
    memset(report, 0, sizeof *report);
    fit f = {.scene = scene, .sk = &scene->skins[skin], .def = *def, .set = set};
    const tl_scene_skin* sk = f.sk;
    memset(changed, 0, sk->vertex_count);
    uint32_t clips[64];
    uint32_t nc = pick_clips(scene, def->clips, clips);
    report->clip_count = nc;
    memcpy(report->clips, clips, sizeof clips);
    if (nc == 0 || def->samples[0] == 0) return TL_OK; /* no motion to fit to: as it was */
    tl_result r = TL_OK;
    float floor = set->fitted ? -INFINITY : seam_body_floor(&f, skin);
    if (!seam_weld_mesh(&f) || !seam_pick_free(&f, floor, report))
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK && f.nf == 0) return fit_free(&f), TL_OK;
    if (r == TL_OK) r = sample_poses(&f, skin, clips, nc, err);
    if (r == TL_OK && !seam_pick_candidates(&f))
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK && !place(&f)) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    report->free_vertices = f.nf, report->poses = f.T;
    for (uint32_t s = 0; r == TL_OK && s < def->sweeps; ++s)
        for (uint32_t i = 0; i < f.nf; ++i)
            fit_vertex(&f, i);
    for (uint32_t q = 0; r == TL_OK && q < f.pair_start[f.nf]; ++q)
        report->planes += f.pairs[q].state != PAIR_NONE;
    for (uint32_t i = 0; r == TL_OK && i < f.nf; ++i)
        excess(&f, i, report);
    const uint32_t IC = sk->influence_count;
    for (uint32_t v = 0; r == TL_OK && v < sk->vertex_count; ++v) {
        int32_t i = f.weld[v] < 0 ? -1 : f.fidx[f.weld[v]];
        if (i < 0) continue;
        const double* x = f.w + (size_t)K_MAX * i;
        uint32_t* jo = joints + 4 * (size_t)v;
        float* wo = weights + 4 * (size_t)v;
        uint32_t n = 0;
        for (uint32_t k = 0; k < f.kc[i] && n < 4; ++k)
            if (x[k] > 1e-9) jo[n] = f.cand[K_MAX * i + k], wo[n++] = (float)x[k];
        float total = 0;
        for (uint32_t k = 0; k < n; ++k)
            total += wo[k];
        for (uint32_t k = 0; k < 4; ++k) {
            if (k >= n)
                jo[k] = 0, wo[k] = 0;
            else
                wo[k] /= total;
        }
        bool same = true; /* against the file's weights, joint by joint */
        for (uint32_t k = 0; k < 4 && same; ++k)
            same = wo[k] == 0 || fabsf(wo[k] - seam_weight_on(sk, v, jo[k])) <= 1e-6f;
        for (uint32_t k = 0; k < IC && same; ++k) {
            float x0 = sk->influence_weights[(size_t)v * IC + k];
            uint32_t j = sk->influence_joints[(size_t)v * IC + k];
            float mine = 0;
            for (uint32_t m = 0; m < 4; ++m)
                mine += jo[m] == j ? wo[m] : 0;
            same = fabsf(mine - seam_weight_on(sk, v, j)) <= 1e-6f || x0 == 0;
        }
        if (!same) changed[v] = 1, ++report->changed;
    }
    fit_free(&f);
    return r;
}

tl_result hair_seam_fit(const tl_scene* scene, uint32_t skin, const hair_seam_fit_def* def,
                        uint32_t* joints, float* weights, uint8_t* changed,
                        hair_seam_fit_report* report, tl_error* err) {
    assert(scene && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* prims = calloc(sk->primitive_count + 1, 1);
    uint8_t* mesh = calloc(sk->vertex_count + 1, 1);
    if (!prims || !mesh) {
        free(prims), free(mesh);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    tl_hair_find_primitives(scene, skin, prims);
    for (uint32_t p = 0; p < sk->primitive_count; ++p)
        for (uint32_t v = 0; prims[p] && v < sk->primitives[p].vertex_count; ++v)
            mesh[sk->primitives[p].first_vertex + v] = 1;
    seam_fit_set set = {.mesh = mesh};
    tl_result r = seam_fit_run(scene, skin, def, &set, joints, weights, changed, report, err);
    free(prims), free(mesh);
    return r;
}
