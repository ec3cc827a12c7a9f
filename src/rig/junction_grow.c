/* The junction fit's reach over torn body skin (docs/rig.md §8 "Free vertices"). A file that
 * binds the tail's skin to the bones nearest it, or all of it to the hips, leaves a root flare
 * that is neither far nor misbound: neither the part, its growth nor its band takes it, yet it
 * tears in the character's own poses. Its input edges say where it is: from the part and its
 * band, the fit's free set reaches on over body skin whose edges, with the file's weights,
 * stretch beyond the p99 of the body's own edge samples over the same poses, and stops where
 * the input skin no longer does. */
#include "junction_internal.h"

#include <string.h>

enum { REACH_SAMPLE_EDGES = 4096 }; /* body edges sampled for the body's p99 (a cost bound) */

/* Positions over the poses of welded vertices with the file's weights, computed when first
 * asked for. */
typedef struct pos_cache {
    const fit* f;
    const float* jm; /* P × slots × 16, column-major */
    int32_t* slot;   /* W: index into store, or -1 */
    float* store;    /* cap × P × 3 */
    uint32_t n, cap;
} pos_cache;

static const float* cached_positions(pos_cache* c, uint32_t w) {
    const fit* f = c->f;
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P;
    if (c->slot[w] >= 0) return c->store + (size_t)c->slot[w] * P * 3;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 256;
        float* grown = realloc(c->store, ((size_t)cap * P + 1) * 3 * sizeof *grown);
        if (!grown) return NULL;
        c->store = grown, c->cap = cap;
    }
    wset ws = {0};
    rig_fit_file_weights(ctx, w, &ws);
    const float* b = ctx->skin->bind_positions + 3 * (size_t)ctx->copies[ctx->copy_first[w]];
    float* out = c->store + (size_t)c->n * P * 3;
    for (uint32_t t = 0; t < P; ++t) {
        float* o = out + 3 * (size_t)t;
        o[0] = o[1] = o[2] = 0;
        for (uint32_t k = 0; k < ws.n; ++k) {
            if (ws.j[k] >= ctx->skin->joint_count) continue; /* cannot happen: file joints */
            const float* m = c->jm + ((size_t)t * f->slots + ws.j[k]) * 16;
            for (int r = 0; r < 3; ++r)
                o[r] += ws.w[k] * (m[r] * b[0] + m[4 + r] * b[1] + m[8 + r] * b[2] + m[12 + r]);
        }
    }
    c->slot[w] = (int32_t)c->n;
    return c->store + (size_t)(c->n++) * P * 3;
}

/* The positions of both ends of an edge (the second look-up may move the store). */
static bool edge_positions(pos_cache* c, uint32_t u, uint32_t v, const float** a, const float** b) {
    *a = cached_positions(c, u);
    *b = *a ? cached_positions(c, v) : NULL;
    *a = *b ? cached_positions(c, u) : NULL;
    return *a && *b;
}

/* The p99 of the stretch of the body's edge samples (edges with both ends in `body`), over
 * at most REACH_SAMPLE_EDGES edges taken at an even stride; 0 when there is none. */
static float body_p99(pos_cache* c, const uint8_t* body, bool* ok) {
    const rig_ctx* ctx = c->f->ctx;
    uint32_t P = c->f->P, edges = 0;
    for (uint32_t u = 0; u < ctx->W; ++u)
        for (uint32_t k = ctx->adj_off[u]; body[u] && k < ctx->adj_off[u + 1]; ++k)
            edges += ctx->adj[k] > u && body[ctx->adj[k]] && ctx->adj_len[k] > 1e-6f * ctx->H;
    if (!edges) return 0;
    uint32_t stride = (edges + REACH_SAMPLE_EDGES - 1) / REACH_SAMPLE_EDGES, e = 0;
    float* s = malloc(((size_t)(edges / stride + 1) * P + 1) * sizeof *s);
    if (!s) return *ok = false, 0;
    size_t n = 0;
    for (uint32_t u = 0; *ok && u < ctx->W; ++u)
        for (uint32_t k = ctx->adj_off[u]; *ok && body[u] && k < ctx->adj_off[u + 1]; ++k) {
            uint32_t v = ctx->adj[k];
            float L = ctx->adj_len[k];
            if (!(v > u && body[v] && L > 1e-6f * ctx->H) || e++ % stride) continue;
            const float *a, *b;
            if (!edge_positions(c, u, v, &a, &b)) {
                *ok = false;
                break;
            }
            for (uint32_t t = 0; t < P; ++t)
                s[n++] = pose_ratio(a, b, t, L);
        }
    float p99 = *ok && n ? tl_mesh_nth(s, n, (size_t)(0.99 * (double)(n - 1))) : 0;
    free(s);
    return p99;
}

/* Does the edge u-v (adjacency slot k of u) stretch beyond `limit` in some pose? */
static bool edge_torn(pos_cache* c, uint32_t u, uint32_t k, float limit, bool* ok) {
    const rig_ctx* ctx = c->f->ctx;
    float L = ctx->adj_len[k];
    if (!(L > 1e-6f * ctx->H)) return false;
    const float *a, *b;
    if (!edge_positions(c, u, ctx->adj[k], &a, &b)) return *ok = false;
    for (uint32_t t = 0; t < c->f->P; ++t)
        if (pose_ratio(a, b, t, L) > limit) return true;
    return false;
}

/* Does an edge of welded vertex u stretch beyond `limit` in some pose? */
static bool vertex_torn(pos_cache* c, uint32_t u, float limit, bool* ok) {
    const rig_ctx* ctx = c->f->ctx;
    for (uint32_t k = ctx->adj_off[u]; *ok && k < ctx->adj_off[u + 1]; ++k)
        if (edge_torn(c, u, k, limit, ok)) return true;
    return false;
}

bool rig_fit_reach(fit* f, const uint8_t* open, uint8_t* member, uint32_t* reached) {
    const rig_ctx* ctx = f->ctx;
    const tl_scene_skin* skin = ctx->skin;
    uint32_t W = ctx->W;
    *reached = 0;
    f->slots = skin->joint_count + f->part->segments;
    uint8_t* used = calloc(f->slots + 1, 1);
    uint8_t* body = calloc(W + 1, 1);
    uint32_t* queue = malloc(((size_t)W + 1) * sizeof *queue);
    bool ok = used && body && queue;
    uint32_t head = 0, tail = 0;
    for (uint32_t w = 0; ok && w < W; ++w) {
        body[w] = ctx->owner[w] == -1; /* the spec's body: in no classified part */
        if (!member[w]) continue;
        queue[tail++] = w;
        wset ws = {0}; /* the joints the set's file weights name (the range of motion's) */
        rig_fit_file_weights(ctx, w, &ws);
        for (uint32_t m = 0; m < ws.n; ++m)
            if (ws.j[m] < skin->joint_count) used[ws.j[m]] = 1;
    }
    uint32_t P = 0;
    float* jm = ok ? rig_fit_sample_poses(f, used, &P) : NULL;
    ok = ok && jm;
    f->P = P;
    if (!P) tail = 0;
    pos_cache c = {f, jm, tail ? malloc(((size_t)W + 1) * sizeof *c.slot) : NULL, NULL, 0, 0};
    ok = ok && (!tail || c.slot);
    for (uint32_t w = 0; ok && tail && w < W; ++w)
        c.slot[w] = -1;
    float limit = ok && tail ? body_p99(&c, body, &ok) : 0;
    if (!(limit > 0)) tail = 0;
    /* breadth first: a neighbour of the set with a torn edge, then on over torn edges */
    while (ok && head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = ctx->adj_off[u]; ok && k < ctx->adj_off[u + 1]; ++k) {
            uint32_t v = ctx->adj[k];
            if (member[v] || !open[v] || !body[v]) continue;
            bool torn =
                member[u] == 1 ? vertex_torn(&c, v, limit, &ok) : edge_torn(&c, u, k, limit, &ok);
            if (torn) member[v] = 2, queue[tail++] = v, ++*reached;
        }
    }
    if (ok && P && rig_fit_poses_from_clips(f)) /* the fit samples the same clip poses */
        f->clip_jm = jm, f->clip_P = P, jm = NULL;
    free(used), free(body), free(queue), free(c.slot), free(c.store), free(jm);
    f->P = 0;
    return ok;
}
