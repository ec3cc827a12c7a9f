/* The junction fit's reach over torn body skin (docs/rig.md §8 "Free vertices"): an
 * auto-rigger that bound the tail's root flare to the bones nearest it (or all to the hips)
 * leaves skin that is neither far nor misbound, so neither the part, its growth nor its band
 * takes it, yet it tears in the character's own poses. Its torn edges say where it is: from
 * the free set, the fit reaches on over body skin whose input edges stretch beyond what the
 * body's own skin does (the p99 of every body edge sample over the same poses), and stops
 * where the input skin no longer does. */
#include "junction_internal.h"

#include <stdio.h>
#include <string.h>

enum { GROW_SAMPLE_EDGES = 4096 }; /* body edges sampled for the body's p99 (a cost bound) */

/* Positions over the poses of welded vertices, computed when first asked for. */
typedef struct pos_cache {
    const fit* f;
    const float* jm; /* P × slots × 16, column-major */
    int32_t* slot;   /* W: index into store, -1 */
    float* store;    /* cap × P × 3 */
    uint32_t n, cap;
} pos_cache;

/* Welded vertex w's positions with the file's weights (the mean over its copies). */
static const float* cached_positions(pos_cache* c, uint32_t w) {
    const fit* f = c->f;
    uint32_t P = f->P;
    if (c->slot[w] >= 0) return c->store + (size_t)c->slot[w] * P * 3;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 256;
        float* grown = realloc(c->store, ((size_t)cap * P + 1) * 3 * sizeof *grown);
        if (!grown) return NULL;
        c->store = grown, c->cap = cap;
    }
    wset ws = {0};
    rig_fit_file_weights(f->ctx, w, &ws);
    const float* b =
        f->ctx->skin->bind_positions + 3 * (size_t)f->ctx->copies[f->ctx->copy_first[w]];
    float* out = c->store + (size_t)c->n * P * 3;
    for (uint32_t t = 0; t < P; ++t) {
        float* o = out + 3 * (size_t)t;
        o[0] = o[1] = o[2] = 0;
        for (uint32_t k = 0; k < ws.n; ++k) {
            if (ws.j[k] >= f->ctx->skin->joint_count) continue;
            const float* m = c->jm + ((size_t)t * f->slots + ws.j[k]) * 16;
            for (int r = 0; r < 3; ++r)
                o[r] += ws.w[k] * (m[r] * b[0] + m[4 + r] * b[1] + m[8 + r] * b[2] + m[12 + r]);
        }
    }
    c->slot[w] = (int32_t)c->n;
    return c->store + (size_t)(c->n++) * P * 3;
}

/* An edge sample's departure from its rest length, either way (≥ 1). */
static float departure(float r) {
    return r;
}

/* The k-th smallest of x[0..n-1] (reorders x). */
static float select_kth(float* x, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                ++i;
            while (x[j] > pivot)
                --j;
            if (i <= j) {
                float t = x[i];
                x[i] = x[j], x[j] = t;
                ++i;
                if (j == 0) break;
                --j;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return x[k];
}

/* The p99 of the body's edge samples (edges with both ends in `body`), over at most
 * GROW_SAMPLE_EDGES edges taken at an even stride; 0 when there is none. */
static float body_p99(pos_cache* c, const uint8_t* body, bool* ok) {
    const rig_ctx* ctx = c->f->ctx;
    uint32_t P = c->f->P, edges = 0;
    for (uint32_t u = 0; u < ctx->W; ++u)
        for (uint32_t k = ctx->adj_off[u]; body[u] && k < ctx->adj_off[u + 1]; ++k)
            edges += ctx->adj[k] > u && body[ctx->adj[k]];
    if (!edges) return 0;
    uint32_t stride = (edges + GROW_SAMPLE_EDGES - 1) / GROW_SAMPLE_EDGES, e = 0;
    float* s = malloc(((size_t)(edges / stride + 1) * P + 1) * sizeof *s);
    if (!s) return *ok = false, 0;
    size_t n = 0;
    for (uint32_t u = 0; *ok && u < ctx->W; ++u)
        for (uint32_t k = ctx->adj_off[u]; *ok && body[u] && k < ctx->adj_off[u + 1]; ++k) {
            uint32_t v = ctx->adj[k];
            if (!(v > u && body[v]) || e++ % stride) continue;
            const float* a = cached_positions(c, u);
            const float* b = a ? cached_positions(c, v) : NULL;
            a = b ? cached_positions(c, u) : NULL; /* the store may have moved */
            if (!a || !b) {
                *ok = false;
                break;
            }
            for (uint32_t t = 0; t < P; ++t)
                s[n++] = departure(pose_ratio(a, b, t, ctx->adj_len[k]));
        }
    float p99 = *ok && n ? select_kth(s, n, (size_t)(0.99 * (double)(n - 1))) : 0;
    free(s);
    return p99;
}

/* Whether the edge u-v (adjacency slot k of u) departs beyond `limit` in some pose. */
static bool edge_torn(pos_cache* c, uint32_t u, uint32_t v, uint32_t k, float limit, bool* ok) {
    const float* a = cached_positions(c, u);
    const float* b = a ? cached_positions(c, v) : NULL;
    a = b ? cached_positions(c, u) : NULL;
    if (!a || !b) return *ok = false;
    for (uint32_t t = 0; t < c->f->P; ++t)
        if (departure(pose_ratio(a, b, t, c->f->ctx->adj_len[k])) > limit) return true;
    return false;
}

/* Whether an edge of welded vertex u stretches beyond `limit` in some pose. */
static bool vertex_torn(pos_cache* c, uint32_t u, float limit, bool* ok) {
    const rig_ctx* ctx = c->f->ctx;
    for (uint32_t k = ctx->adj_off[u]; k < ctx->adj_off[u + 1]; ++k) {
        const float* b = cached_positions(c, ctx->adj[k]);
        const float* a = b ? cached_positions(c, u) : NULL;
        if (!a || !b) return *ok = false;
        for (uint32_t t = 0; t < c->f->P; ++t)
            if (departure(pose_ratio(a, b, t, ctx->adj_len[k])) > limit) return true;
    }
    return false;
}

bool rig_fit_grow(fit* f, const uint8_t* open, const uint8_t* body, uint8_t* member,
                  uint32_t* grown_count) {
    const rig_ctx* ctx = f->ctx;
    const tl_scene_skin* skin = ctx->skin;
    uint32_t W = ctx->W;
    *grown_count = 0;
    f->slots = skin->joint_count + f->part->segments;
    uint8_t* used = calloc(f->slots + 1, 1);
    uint32_t* queue = malloc(((size_t)W + 1) * sizeof *queue);
    bool ok = used && queue;
    uint32_t head = 0, tail = 0;
    for (uint32_t w = 0; ok && w < W; ++w) { /* the joints the set's file weights name */
        if (!member[w]) continue;
        queue[tail++] = w;
        wset ws = {0};
        rig_fit_file_weights(ctx, w, &ws);
        for (uint32_t m = 0; m < ws.n; ++m)
            if (ws.j[m] < skin->joint_count) used[ws.j[m]] = 1;
    }
    uint32_t P = 0;
    float* jm = ok ? rig_fit_sample_poses(f, used, &P) : NULL;
    free(used);
    if (!jm || !P) return free(jm), free(queue), ok && jm != NULL;
    f->P = P;
    pos_cache c = {f, jm, malloc(((size_t)W + 1) * sizeof *c.slot), NULL, 0, 0};
    ok = c.slot != NULL;
    for (uint32_t w = 0; ok && w < W; ++w)
        c.slot[w] = -1;
    float limit = ok ? body_p99(&c, body, &ok) : 0;
    if (!(limit > 0)) tail = 0;
    if (getenv("TL_DEBUG_GROW")) {
        fprintf(stderr, "grow: limit %.3f start %u P %u\n", limit, tail, P);
        int32_t* hop = malloc(W * sizeof *hop);
        uint32_t* q2 = malloc(W * sizeof *q2);
        uint32_t h2 = 0, t2 = 0;
        for (uint32_t w = 0; w < W; ++w) hop[w] = member[w] ? 0 : -1;
        for (uint32_t w = 0; w < W; ++w) if (member[w]) q2[t2++] = w;
        while (h2 < t2) { uint32_t u = q2[h2++]; for (uint32_t k = ctx->adj_off[u]; k < ctx->adj_off[u+1]; ++k) { uint32_t v = ctx->adj[k]; if (hop[v] < 0 && open[v]) hop[v] = hop[u]+1, q2[t2++] = v; } }
        for (uint32_t u = 0; u < W; ++u) {
            if (hop[u] < 0 || hop[u] > 6 || !body[u]) continue;
            for (uint32_t k = ctx->adj_off[u]; k < ctx->adj_off[u + 1]; ++k) {
                uint32_t v = ctx->adj[k];
                if (v < u || !body[v] || hop[v] < 0) continue;
                const float* a = cached_positions(&c, u);
                const float* b = cached_positions(&c, v);
                a = cached_positions(&c, u);
                float mx = 0; uint32_t cnt = 0;
                for (uint32_t t = 0; t < P; ++t) { float r = pose_ratio(a, b, t, ctx->adj_len[k]); mx = fmaxf(mx, r); cnt += r > limit; }
                if (mx > limit) fprintf(stderr, "  torn %u-%u hops %d %d max %.3f n %u\n", u, v, hop[u], hop[v], mx, cnt);
            }
        }
        free(hop), free(q2);
    }
    while (ok && head < tail) { /* breadth first over edges that depart beyond the body's p99 */
        uint32_t u = queue[head++];
        for (uint32_t k = ctx->adj_off[u]; ok && k < ctx->adj_off[u + 1]; ++k) {
            uint32_t v = ctx->adj[k];
            if (member[v] || !open[v] || !body[v]) continue;
            bool torn = member[u] == 1 ? vertex_torn(&c, v, limit, &ok)
                                       : edge_torn(&c, u, v, k, limit, &ok);
            if (!torn) continue;
            member[v] = 2, queue[tail++] = v, ++*grown_count;
        }
    }
    free(queue), free(c.slot), free(c.store), free(jm);
    f->P = 0;
    return ok;
}

bool rig_band_reach(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, uint32_t self,
                    const uint8_t* banded, rig_list* band) {
    uint32_t W = ctx->W;
    uint8_t* open = calloc(W + 1, 1);
    uint8_t* body = calloc(W + 1, 1);
    uint8_t* member = calloc(W + 1, 1);
    bool ok = open && body && member;
    for (uint32_t i = 0; ok && i < p->verts.count; ++i)
        member[p->verts.items[i]] = 1;
    for (uint32_t i = 0; ok && i < band->count; ++i)
        member[band->items[i]] = 1;
    for (uint32_t w = 0; ok && w < W; ++w) { /* as the band: no other part, no other band */
        open[w] = (ctx->owner[w] == -1 || (uint32_t)ctx->owner[w] == self) && !banded[w];
        body[w] = ctx->owner[w] == -1;
    }
    fit f = {0};
    f.ctx = ctx, f.p = p, f.part = part;
    uint32_t grown = 0;
    ok = ok && rig_fit_grow(&f, open, body, member, &grown);
    for (uint32_t w = 0; ok && w < W; ++w)
        if (member[w] == 2) ok = rig_list_push(band, w);
    part->band_grown = ok ? grown : 0;
    free(open), free(body), free(member);
    return ok;
}
