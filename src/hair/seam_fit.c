/* The seam fit (seam_fit.h; docs/hair.md "Session 26 (hairfit26)"). Per free vertex i and its
 * candidate joints k, x_i(t) = sum_k w_k M_k(t) b_i is linear in w; the energy over the poses t
 * and i's edges ij is sum |x_i(t) - (x_j(t) + L_ij d_ij(t))|^2 (local/global: d_ij the edge's
 * current direction, L_ij its rest length; a sample stretched past 1.3 or under 1 / 1.3 weighs
 * 4), plus a pull toward the input weights. Gauss-Seidel over the band, each vertex's QP solved
 * exactly (seam_qp.c) on the simplex, at most 4 joints kept, and the collider half-spaces found
 * violated so far: a plane on the collider's outward normal at the input point, the fitted point
 * no deeper than the input put it (kept across the sweeps, so the next sweep cannot pull the
 * vertex back onto the chord between two locks that part around the body). */
#include "hair/seam_fit.h"

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

enum { K_MAX = HAIR_QP_MAX, PAIR_NONE = 0, PAIR_PLANE = 1, PAIR_STRICT = 2 };

/* A (pose, collider) a free vertex can reach: its input depth and, once violated, its plane. */
typedef struct fit_pair {
    uint32_t t, c;
    uint8_t state; /* PAIR_NONE, PAIR_PLANE (may come in to the surface), PAIR_STRICT (no deeper
                      than the input point along the normal) */
    float depth;   /* the input point's depth (<= 0 outside) */
    float n[3];    /* outward normal at the input point */
} fit_pair;

typedef struct fit {
    const tl_scene* scene;
    const tl_scene_skin* sk;
    hair_seam_fit_def def;
    const seam_fit_set* set;
    uint32_t T, C, J;
    const tl_body_collider* body; /* C: the colliders' joints */
    tl_body_collider body_store[TL_BODY_COLLIDERS_MAX];
    float* mats;        /* T x J x 16 */
    tl_collider* world; /* T x C */
    float* spheres;     /* T x C x 4: a sphere around each (tl_collider_sphere); radius -1: none */
    uint8_t* rest_in;   /* per free vertex x collider: inside at rest (not held, as measured) */
    int32_t* weld;      /* per union vertex: its welded hair vertex, or -1 */
    uint32_t nw, *rep;  /* welded vertices and a union vertex of each */
    uint32_t *adj_start, *adj;
    uint32_t nf, *free_w; /* free welded vertices */
    int32_t* fidx;        /* welded -> free index or -1 */
    uint32_t* cand;       /* nf x K_MAX joints */
    uint8_t* kc;          /* candidates per free vertex */
    double *w, *win;      /* nf x K_MAX */
    float* P;             /* nf x T x K_MAX x 3: candidate k's position of the vertex */
    float* X;             /* nw x T x 3: positions (band vertices only) */
    double* H0;           /* nf x K_MAX^2: sum over t of P_t' P_t */
    uint32_t* pair_start; /* nf + 1 */
    fit_pair* pairs;
} fit;

static void fit_free(fit* f) {
    free(f->mats), free(f->world), free(f->spheres), free(f->rest_in), free(f->weld), free(f->rep);
    free(f->adj_start), free(f->adj), free(f->free_w), free(f->fidx), free(f->cand), free(f->kc);
    free(f->w), free(f->win), free(f->P), free(f->X), free(f->H0), free(f->pair_start);
    free(f->pairs);
}

static void skin_point(const float* m, const float* b, float* out) {
    for (int i = 0; i < 3; ++i)
        out[i] = m[i] * b[0] + m[4 + i] * b[1] + m[8 + i] * b[2] + m[12 + i];
}

/* Vertex v's weight on joint j. */
static float weight_on(const tl_scene_skin* sk, uint32_t v, uint32_t j) {
    float s = 0;
    for (uint32_t k = 0; k < sk->influence_count; ++k)
        if (sk->influence_joints[(size_t)v * sk->influence_count + k] == j)
            s += sk->influence_weights[(size_t)v * sk->influence_count + k];
    return s;
}

float hair_seam_weight_jump(const tl_scene_skin* sk, uint32_t u, uint32_t v) {
    const uint32_t IC = sk->influence_count;
    float sum = 0;
    for (int side = 0; side < 2; ++side) {
        uint32_t a = side ? v : u, b = side ? u : v;
        for (uint32_t k = 0; k < IC; ++k) {
            uint32_t j = sk->influence_joints[(size_t)a * IC + k];
            bool first = true;
            for (uint32_t i = 0; i < k; ++i)
                first &= sk->influence_joints[(size_t)a * IC + i] != j;
            float wb = weight_on(sk, b, j);
            if (first && (!side || wb == 0)) sum += fabsf(weight_on(sk, a, j) - wb);
        }
    }
    return 0.5f * sum;
}

/* qsort has no context: the rest positions the weld sorts by (set just before the sort). */
static const float* sort_positions;
static int weld_order(const void* x, const void* y) {
    const float* p = sort_positions;
    uint32_t a = *(const uint32_t*)x, b = *(const uint32_t*)y;
    for (int k = 0; k < 3; ++k) {
        float u = p[3 * (size_t)a + k], v = p[3 * (size_t)b + k];
        if (u != v) return u < v ? -1 : 1;
    }
    return (a > b) - (a < b);
}

static float dot3(const float* a, const float* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int compare_u64(const void* x, const void* y) {
    uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
    return (a > b) - (a < b);
}

/* The set's mesh welded (the same rest position) and its edges. */
static bool weld_mesh(fit* f) {
    const tl_scene_skin* sk = f->sk;
    uint32_t* order = malloc(sizeof *order * (sk->vertex_count + 1));
    f->weld = malloc(sizeof *f->weld * (sk->vertex_count + 1));
    f->rep = malloc(sizeof *f->rep * (sk->vertex_count + 1));
    uint64_t* edges = malloc(sizeof *edges * (3 * (size_t)sk->triangle_count + 1));
    bool ok = order && f->weld && f->rep && edges;
    if (!ok) return free(order), free(edges), false;
    uint32_t n = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        f->weld[v] = -1;
        if (f->set->mesh[v]) order[n++] = v;
    }
    sort_positions = sk->rest_positions;
    qsort(order, n, sizeof *order, weld_order);
    f->nw = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const float *p = sk->rest_positions + 3 * (size_t)order[i],
                    *q = i ? sk->rest_positions + 3 * (size_t)order[i - 1] : NULL;
        if (!q || memcmp(p, q, 3 * sizeof *p) != 0) f->rep[f->nw++] = order[i];
        f->weld[order[i]] = (int32_t)f->nw - 1;
    }
    size_t ne = 0;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            int32_t a = f->weld[sk->triangles[3 * t + e]],
                    b = f->weld[sk->triangles[3 * t + (e + 1) % 3]];
            if (a < 0 || b < 0 || a == b) continue;
            uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
            edges[ne++] = lo << 32 | hi;
        }
    qsort(edges, ne, sizeof *edges, compare_u64);
    f->adj_start = calloc(f->nw + 2, sizeof *f->adj_start);
    f->adj = malloc(sizeof *f->adj * (2 * ne + 1));
    ok = f->adj_start && f->adj;
    size_t u = 0;
    for (size_t i = 0; ok && i < ne; ++i)
        if (i == 0 || edges[i] != edges[i - 1]) edges[u++] = edges[i];
    for (size_t i = 0; ok && i < u; ++i)
        f->adj_start[(edges[i] >> 32) + 1]++, f->adj_start[(edges[i] & 0xffffffffu) + 1]++;
    for (uint32_t w = 0; ok && w < f->nw; ++w)
        f->adj_start[w + 1] += f->adj_start[w];
    uint32_t* at = ok ? malloc(sizeof *at * (f->nw + 1)) : NULL;
    ok = ok && at;
    if (ok) memcpy(at, f->adj_start, sizeof *at * f->nw);
    for (size_t i = 0; ok && i < u; ++i) {
        uint32_t a = (uint32_t)(edges[i] >> 32), b = (uint32_t)(edges[i] & 0xffffffffu);
        f->adj[at[a]++] = b, f->adj[at[b]++] = a;
    }
    free(at), free(order), free(edges);
    return ok;
}

/* The body floor as the player finds it (player.c body_floor): the seam vertices at or under it
 * stay as they are, so the fit cannot move the floor the chains are played with. */
static float body_floor(const fit* f, uint32_t skin) {
    tl_play_chain chains[64];
    uint32_t n = 0;
    tl_error err;
    const tl_scene_skin* sk = f->sk;
    if (tl_play_chains_find(f->scene, chains, 64, &n, &err) != TL_OK) return INFINITY;
    int32_t* lock = malloc(sizeof *lock * (sk->vertex_count + 1));
    uint32_t* joint = malloc(sizeof *joint * (sk->vertex_count + 1));
    float floor = INFINITY;
    bool found = lock && joint &&
                 play_skin_locks(f->scene, skin, chains, n < 64 ? n : 64, lock, joint, NULL);
    for (uint32_t v = 0; found && v < sk->vertex_count; ++v)
        if (lock[v] < 0) floor = fminf(floor, dot3(sk->rest_positions + 3 * (size_t)v, sk->up));
    if (!found) floor = INFINITY;                     /* (out of memory: every seam vertex stays) */
    if (found && !isfinite(floor)) floor = sk->floor; /* (as the player: no body skin) */
    free(lock), free(joint);
    return floor;
}

/* The free vertices: the welded ends of seam edges above the floor, and `rings` rings beside
 * them; their candidates the K_MAX heaviest joints over the vertex and its neighbours within
 * rings + 1 edges, the vertex's own joints first. */
static bool pick_free(fit* f, float floor, hair_seam_fit_report* rep) {
    const tl_scene_skin* sk = f->sk;
    int32_t* ring = malloc(sizeof *ring * (f->nw + 1));
    uint32_t* queue = malloc(sizeof *queue * (f->nw + 1));
    f->fidx = malloc(sizeof *f->fidx * (f->nw + 1));
    f->free_w = malloc(sizeof *f->free_w * (f->nw + 1));
    if (!ring || !queue || !f->fidx || !f->free_w) return free(ring), free(queue), false;
    uint32_t head = 0, tail = 0;
    for (uint32_t w = 0; w < f->nw; ++w)
        ring[w] = -1, f->fidx[w] = -1;
    for (uint32_t v = 0; f->set->fitted && v < sk->vertex_count; ++v) /* (every vertex welded
                                                                         into it in the set) */
        if (!f->set->fitted[v] && f->weld[v] >= 0) ring[f->weld[v]] = INT32_MAX;
    for (uint32_t v = 0; f->set->fitted && v < sk->vertex_count; ++v)
        if (f->set->fitted[v] && f->weld[v] >= 0 && ring[f->weld[v]] < 0)
            ring[f->weld[v]] = (int32_t)f->def.rings, queue[tail++] = (uint32_t)f->weld[v];
    for (uint32_t a = 0; !f->set->fitted && a < f->nw; ++a)
        for (uint32_t e = f->adj_start[a]; e < f->adj_start[a + 1]; ++e) {
            uint32_t b = f->adj[e];
            if (b < a || hair_seam_weight_jump(sk, f->rep[a], f->rep[b]) < f->def.jump) continue;
            ++rep->seams;
            for (int s = 0; s < 2; ++s) {
                uint32_t v = s ? b : a;
                if (ring[v] >= 0) continue;
                if (dot3(sk->rest_positions + 3 * (size_t)f->rep[v], sk->up) <= floor) {
                    ++rep->floor_kept;
                    continue;
                }
                ring[v] = 0, queue[tail++] = v;
            }
        }
    while (head < tail) {
        uint32_t v = queue[head++];
        if ((uint32_t)ring[v] >= f->def.rings) continue;
        for (uint32_t e = f->adj_start[v]; e < f->adj_start[v + 1]; ++e) {
            uint32_t b = f->adj[e];
            if (ring[b] >= 0 || dot3(sk->rest_positions + 3 * (size_t)f->rep[b], sk->up) <= floor)
                continue;
            ring[b] = ring[v] + 1, queue[tail++] = b;
        }
    }
    f->nf = tail;
    for (uint32_t i = 0; i < tail; ++i)
        f->free_w[i] = queue[i], f->fidx[queue[i]] = (int32_t)i;
    free(ring), free(queue);
    return true;
}

/* The joints of the set->entered colliders welded vertex v's input point goes deepest into over
 * the poses (those it rests outside), added to sum (after its own joints, before its
 * neighbours'). */
static void entered_joints(const fit* f, uint32_t v, float* sum, uint32_t* touched, uint32_t* nt) {
    const tl_scene_skin* sk = f->sk;
    const uint32_t IC = sk->influence_count, i = (uint32_t)f->fidx[v];
    float best[4] = {0, 0, 0, 0};
    uint32_t joint[4], n = f->set->entered < 4 ? f->set->entered : 4;
    for (uint32_t k = 0; k < n; ++k)
        joint[k] = UINT32_MAX;
    for (uint32_t t = 0; n && t < f->T; ++t) {
        float x[3] = {0, 0, 0}, y[3];
        for (uint32_t k = 0; k < IC; ++k) {
            float wk = sk->influence_weights[(size_t)f->rep[v] * IC + k];
            if (wk == 0) continue;
            skin_point(f->mats + 16 * ((size_t)f->J * t +
                                       sk->influence_joints[(size_t)f->rep[v] * IC + k]),
                       sk->bind_positions + 3 * (size_t)f->rep[v], y);
            for (int a = 0; a < 3; ++a)
                x[a] += wk * y[a];
        }
        for (uint32_t c = 0; c < f->C; ++c) {
            if (f->rest_in[(size_t)i * f->C + c]) continue;
            float d = tl_collider_depth(&f->world[(size_t)f->C * t + c], x);
            uint32_t j = f->body[c].joint, at = 0;
            while (at < n && joint[at] != j)
                ++at;
            if (at < n) { /* (kept sorted: its depth only grows) */
                best[at] = fmaxf(best[at], d);
                for (; at > 0 && best[at] > best[at - 1]; --at) {
                    float b = best[at];
                    best[at] = best[at - 1], best[at - 1] = b;
                    uint32_t q = joint[at];
                    joint[at] = joint[at - 1], joint[at - 1] = q;
                }
                continue;
            }
            if (!(d > best[n - 1])) continue;
            for (at = n - 1; at > 0 && d > best[at - 1]; --at)
                best[at] = best[at - 1], joint[at] = joint[at - 1];
            best[at] = d, joint[at] = j;
        }
    }
    for (uint32_t k = 0; k < n; ++k) {
        if (joint[k] >= sk->joint_count) continue;
        if (sum[joint[k]] == 0) touched[(*nt)++] = joint[k];
        sum[joint[k]] += 2e3f;
    }
}

static bool pick_candidates(fit* f) {
    const tl_scene_skin* sk = f->sk;
    const uint32_t IC = sk->influence_count;
    f->cand = malloc(sizeof *f->cand * K_MAX * (f->nf + 1));
    f->kc = malloc(f->nf + 1);
    f->w = calloc((size_t)K_MAX * (f->nf + 1), sizeof *f->w);
    f->win = calloc((size_t)K_MAX * (f->nf + 1), sizeof *f->win);
    float* sum = calloc(sk->joint_count + 1, sizeof *sum);
    int32_t* seen = malloc(sizeof *seen * (f->nw + 1));
    uint32_t* queue = malloc(sizeof *queue * (f->nw + 1));
    uint8_t* depth = malloc(f->nw + 1);
    uint32_t* touched = malloc(sizeof *touched * (sk->joint_count + 1));
    bool ok = f->cand && f->kc && f->w && f->win && sum && seen && queue && depth && touched;
    for (uint32_t w = 0; ok && w < f->nw; ++w)
        seen[w] = -1;
    for (uint32_t i = 0; ok && i < f->nf; ++i) {
        uint32_t v0 = f->free_w[i], head = 0, tail = 0, nt = 0;
        queue[tail++] = v0, seen[v0] = (int32_t)i, depth[v0] = 0;
        entered_joints(f, v0, sum, touched, &nt);
        for (uint32_t k = 0; f->set->extra && k < f->set->extra_count; ++k) {
            uint32_t j = f->set->extra[(size_t)f->rep[v0] * f->set->extra_count + k];
            if (j >= sk->joint_count) continue;
            if (sum[j] == 0) touched[nt++] = j;
            sum[j] += 1e3f; /* (after its own, before its neighbours') */
        }
        while (head < tail) {
            uint32_t v = queue[head++];
            for (uint32_t k = 0; k < IC; ++k) {
                uint32_t j = sk->influence_joints[(size_t)f->rep[v] * IC + k];
                float x = sk->influence_weights[(size_t)f->rep[v] * IC + k];
                if (!(x > 0)) continue;
                if (sum[j] == 0) touched[nt++] = j;
                sum[j] += x + (v == v0 ? 1e6f : 0); /* (its own first) */
            }
            if (depth[v] > f->def.rings) continue;
            for (uint32_t e = f->adj_start[v]; e < f->adj_start[v + 1]; ++e)
                if (seen[f->adj[e]] != (int32_t)i)
                    seen[f->adj[e]] = (int32_t)i, depth[f->adj[e]] = depth[v] + 1,
                    queue[tail++] = f->adj[e];
        }
        uint8_t k = 0;
        uint32_t* c = f->cand + (size_t)K_MAX * i;
        while (k < K_MAX) {
            int32_t best = -1;
            for (uint32_t m = 0; m < nt; ++m)
                if (sum[touched[m]] > 0 && (best < 0 || sum[touched[m]] > sum[best]))
                    best = (int32_t)touched[m];
            if (best < 0) break;
            c[k] = (uint32_t)best;
            f->win[(size_t)K_MAX * i + k] = weight_on(sk, f->rep[v0], (uint32_t)best);
            sum[best] = 0, ++k;
        }
        for (uint32_t m = 0; m < nt; ++m)
            sum[touched[m]] = 0;
        f->kc[i] = k;
        double total = 0;
        uint32_t used = 0; /* a kept set's vertex on 4 joints starts from its 3 heaviest: room
                              for a body joint within 4 influences */
        for (uint8_t m = 0; m < k; ++m)
            used += f->win[(size_t)K_MAX * i + m] > 0;
        while (f->set->kept && used-- > 3) {
            uint8_t light = k;
            for (uint8_t m = 0; m < k; ++m) {
                double x = f->win[(size_t)K_MAX * i + m];
                if (x > 0 && (light == k || x < f->win[(size_t)K_MAX * i + light])) light = m;
            }
            f->win[(size_t)K_MAX * i + light] = 0, total = 0;
        }
        for (uint8_t m = 0; m < k; ++m)
            total += f->win[(size_t)K_MAX * i + m];
        for (uint8_t m = 0; m < k; ++m) /* (float weights sum to 1 within rounding) */
            f->w[(size_t)K_MAX * i + m] = f->win[(size_t)K_MAX * i + m] /= total > 0 ? total : 1;
    }
    free(sum), free(seen), free(queue), free(depth), free(touched);
    return ok;
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
                       const seam_fit_set* set, uint32_t* joints, float* weights,
                       uint8_t* changed, hair_seam_fit_report* report, tl_error* err) {
    assert(scene && def && set && set->mesh && skin < scene->skin_count && joints && weights &&
           changed && report);
    memset(report, 0, sizeof *report);
    fit f = {.scene = scene, .sk = &scene->skins[skin], .def = *def, .set = set};
    const tl_scene_skin* sk = f.sk;
    memset(changed, 0, sk->vertex_count);
    uint32_t clips[64];
    uint32_t nc = pick_clips(scene, def->clips, clips);
    if (nc == 0 || def->samples[0] == 0) return TL_OK; /* no motion to fit to: as it was */
    tl_result r = TL_OK;
    float floor = set->fitted ? -INFINITY : body_floor(&f, skin);
    if (!weld_mesh(&f) || !pick_free(&f, floor, report))
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK && f.nf == 0) return fit_free(&f), TL_OK;
    if (r == TL_OK) r = sample_poses(&f, skin, clips, nc, err);
    if (r == TL_OK && !pick_candidates(&f)) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
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
            same = wo[k] == 0 || fabsf(wo[k] - weight_on(sk, v, jo[k])) <= 1e-6f;
        for (uint32_t k = 0; k < IC && same; ++k) {
            float x0 = sk->influence_weights[(size_t)v * IC + k];
            uint32_t j = sk->influence_joints[(size_t)v * IC + k];
            float mine = 0;
            for (uint32_t m = 0; m < 4; ++m)
                mine += jo[m] == j ? wo[m] : 0;
            same = fabsf(mine - weight_on(sk, v, j)) <= 1e-6f || x0 == 0;
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
