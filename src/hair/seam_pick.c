/* The seam fit's vertices and joints (seam_fit_internal.h): the set's mesh welded, the vertices
 * it frees and each one's candidate joints. */
#include "hair/seam_fit_internal.h"

#include "internal.h"

#include "play/chain_colliders.h"

#include <tailor/play.h>

#include <stdlib.h>
#include <string.h>

/* Vertex v's weight on joint j. */
float seam_weight_on(const tl_scene_skin* sk, uint32_t v, uint32_t j) {
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
            float wb = seam_weight_on(sk, b, j);
            if (first && (!side || wb == 0)) sum += fabsf(seam_weight_on(sk, a, j) - wb);
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

static int compare_u64(const void* x, const void* y) {
    uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
    return (a > b) - (a < b);
}

/* The set's mesh welded (the same rest position) and its edges. */
bool seam_weld_mesh(fit* f) {
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
float seam_body_floor(const fit* f, uint32_t skin) {
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
bool seam_pick_free(fit* f, float floor, hair_seam_fit_report* rep) {
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

bool seam_pick_candidates(fit* f) {
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
            f->win[(size_t)K_MAX * i + k] = seam_weight_on(sk, f->rep[v0], (uint32_t)best);
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
