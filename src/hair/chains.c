/* The adapter (hair.md §6): at most max_chains guide chains chosen for free length and spread,
 * bones along each, and the hair mesh's weights: the cap and unsupported hair on the head. */
#include "internal.h"

#include <stdlib.h>

#define TL_HAIR_MAX_CHAINS 256 /* the most chains whose weights are diffused */
#include <string.h>

tl_hair_chain_def tl_default_hair_chain_def(void) {
    tl_chain_settings chain = tl_default_chain_settings();
    chain.gravity = 0;
    /* no carry: the carry lifts a lock to carry_deg from straight down, so 0 still lifted the
       locks hanging forward (bob01 sagged 30 mm at rest); -180 lies below every direction */
    chain.carry_deg = -180;
    chain.rest_curve = 1;
    /* twice the article's springs (0.9 / 0.45 Hz), critically damped: neighbouring locks swing
     * apart less (hair.md); not the tails' root default, which is raised for their settling */
    chain.root_frequency = 1.8f, chain.tip_frequency *= 2, chain.damping_ratio = 1;
    return (tl_hair_chain_def){
        .chain = chain,
        .max_chains = 24,
        .bones = 6,
        .cap_mm = 30.0f,
        .min_free_mm = 120.0f,
        .bind_mm = 40.0f,
        .head_ramp_mm = 0.0f,
        .smooth_steps = 0,
        .seam_steps = 0,
        .colliders = NULL,
        .collider_count = 0,
        .fill_unowned = false,
        .cover_unowned = true,
        .nape = true,
        .min_drop = 0.5f,
        .min_vertices = 16,
    };
}

typedef struct chains_storage {
    tl_hair_chains out;
    tl_hair_chain* chains;
    uint32_t* influence;
    float* weight;
    float* scalp_d; /* per vertex: its scalp distance within reach, else INFINITY */
    float reach;
} chains_storage;

void tl_hair_chains_destroy(tl_hair_chains* chains) {
    if (!chains) return;
    chains_storage* s = chains->internal;
    free(s->chains), free(s->influence), free(s->weight), free(s->scalp_d), free(s);
}

const float* hair_chains_scalp(const tl_hair_chains* chains, float* reach) {
    const chains_storage* s = chains->internal;
    *reach = s->reach;
    return s->scalp_d;
}

/* The lock of guide g: its parents' points up to where it leaves them, then its own. Writes at
 * most `cap` points (and their indices in gs->points into ids, when not NULL); returns the
 * count. Depth is bounded: a file's parents may loop. */
static uint32_t lock_of(const tl_hair_guides* gs, uint32_t g, float* out, uint32_t* ids,
                        uint32_t cap, int depth) {
    const tl_hair_guide* guide = &gs->guides[g];
    uint32_t n = 0;
    if (guide->parent != TL_NONE && depth < 64) {
        const tl_hair_guide* parent = &gs->guides[guide->parent];
        n = lock_of(gs, (uint32_t)guide->parent, out, ids, cap, depth + 1);
        uint32_t drop = parent->point_count - 1 - guide->parent_point; /* past the link */
        n = n > drop ? n - drop : 0;
    }
    for (uint32_t k = 0; k < guide->point_count && n < cap; ++k) {
        if (ids) ids[n] = guide->first_point + k;
        memcpy(out + 3 * n++, gs->points + 3 * ((size_t)guide->first_point + k), 3 * sizeof(float));
    }
    return n;
}

/* The free part of a lock: from its last point within `cap` of the scalp to its tip. ids: the
 * lock's points' indices, whose answers `within` keeps (0: not asked, 1: no, 2: yes; a lock
 * shares its parent's points, braid01 a quarter of its queries); NULL: each point asked. */
static uint32_t free_start(const tl_hair_scalp* scalp, const float* lock, const uint32_t* ids,
                           uint8_t* within, uint32_t n, float cap) {
    for (uint32_t k = n; k-- > 1;) { /* from the tip: the last such point is the first found */
        uint8_t* w = ids ? &within[ids[k]] : NULL;
        if (w && *w == 0) *w = hair_scalp_within(scalp, lock + 3 * k, cap) ? 2 : 1;
        if (w ? *w == 2 : hair_scalp_within(scalp, lock + 3 * k, cap)) return k;
    }
    return 0;
}

static float arc(const float* p, uint32_t from, uint32_t n) {
    float l = 0;
    for (uint32_t k = from + 1; k < n; ++k)
        l += sqrtf(tl__dist2(p + 3 * k, p + 3 * (k - 1)));
    return l;
}

/* bones + 1 joints evenly along p[from..n-1] by arc length. */
static void joints_along(const float* p, uint32_t from, uint32_t n, uint32_t bones, float* out) {
    float length = arc(p, from, n), walked = 0;
    uint32_t seg = from;
    for (uint32_t j = 0; j <= bones; ++j) {
        float at = length * (float)j / (float)bones;
        while (seg + 2 < n) {
            float l = sqrtf(tl__dist2(p + 3 * (seg + 1), p + 3 * seg));
            if (walked + l >= at) break;
            walked += l, seg++;
        }
        float l = sqrtf(tl__dist2(p + 3 * (seg + 1), p + 3 * seg));
        float f = l > 0 ? (at - walked) / l : 0;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        for (int k = 0; k < 3; ++k)
            out[3 * j + k] = p[3 * seg + k] + f * (p[3 * (seg + 1) + k] - p[3 * seg + k]);
    }
}

/* The hair a candidate chain would take: for each guide with free_len[g] > 0, the vertices off
 * the cap (off_cap[v]) within `bind` of a bone of its joints (along its lock from point
 * start[g]), listed in items[off[g] .. off[g + 1]). False: out of memory. */
static bool cover_build(const tl_hair_guides* gs, const uint32_t* start, const float* free_len,
                        const tl_hair_mesh* mesh, const uint8_t* off_cap, uint32_t bones,
                        float bind, float* lock, uint32_t cap_points, uint32_t* off,
                        uint32_t** items) {
    size_t G = gs->guide_count, stride = 3 * (size_t)(bones + 1);
    float* joints = malloc(sizeof(float) * stride * (G ? G : 1));
    uint8_t* skip = malloc(G ? G : 1);
    bool ok = joints && skip;
    for (uint32_t g = 0; ok && g < G; ++g) {
        skip[g] = !(free_len[g] > 0);
        if (skip[g]) continue;
        uint32_t n = lock_of(gs, g, lock, NULL, cap_points, 0);
        joints_along(lock, start[g], n, bones, joints + stride * g);
    }
    ok = ok && hair_cover_build(mesh->positions, mesh->vertex_count, off_cap, joints, skip,
                                (uint32_t)G, bones, bind, off, items);
    free(joints), free(skip);
    return ok;
}

/* What the choice reads of each guide, found once: the choice runs again after chains are
 * dropped, and only which guides are dropped changes between runs. */
typedef struct candidates {
    uint32_t bones;
    uint32_t cap_points;
    float* lock;     /* cap_points × 3: scratch for a guide's lock */
    float* free_len; /* per guide: its free part's length, 0 when it cannot be a chain */
    float* tip;      /* per guide: its lock's last point */
    uint32_t* start; /* per guide: where its free part begins on its lock */
    uint32_t* off;   /* with cover_unowned: guide g's hair is items[off[g] .. off[g + 1]) */
    uint32_t* items;
    hair_cover_tally tally; /* over off and items; by_off NULL: none (every fresh count 0) */
    float longest;          /* the longest free part of any guide */
} candidates;

static void candidates_free(candidates* c) {
    free(c->lock), free(c->free_len), free(c->tip), free(c->start), free(c->off), free(c->items);
    if (c->tally.by_off) hair_cover_tally_free(&c->tally);
}

/* Every attached guide's free part and, with cover_unowned, the hair it would take. False: out
 * of memory. */
static bool candidates_find(candidates* cd, const tl_hair_guides* gs, const tl_hair_scalp* scalp,
                            const tl_hair_chain_def* def, float scale, const tl_hair_mesh* mesh,
                            const uint8_t* off_cap) {
    const float* up = scalp->scene->skins[scalp->skin].up;
    *cd = (candidates){.cap_points = 4096};
    cd->lock = malloc(3 * sizeof(float) * cd->cap_points);
    cd->free_len = calloc(gs->guide_count ? gs->guide_count : 1, sizeof(float));
    cd->tip = malloc(3 * sizeof(float) * (gs->guide_count ? gs->guide_count : 1));
    cd->start = calloc(gs->guide_count ? gs->guide_count : 1, sizeof(uint32_t));
    if (!cd->lock || !cd->free_len || !cd->tip || !cd->start) return false;
    float* lock = cd->lock;
    uint32_t* ids = malloc(sizeof(uint32_t) * cd->cap_points);
    uint8_t* within = calloc((size_t)gs->point_count + 1, 1);
    if (!ids || !within) free(ids), free(within), ids = NULL, within = NULL; /* each asked */
    for (uint32_t g = 0; g < gs->guide_count; ++g) {
        if (gs->guides[g].link == TL_HAIR_LINK_NONE) continue;
        uint32_t n = lock_of(gs, g, lock, ids, cd->cap_points, 0);
        uint32_t s = cd->start[g] = free_start(scalp, lock, ids, within, n, def->cap_mm * scale);
        cd->free_len[g] = s + 1 < n ? arc(lock, s, n) : 0;
        /* hair hangs: a free part that does not drop by half its length (an antler, a horn, a
           crest standing up) is not a lock for a chain */
        float drop = tl__dot(lock + 3 * s, up) - tl__dot(lock + 3 * (n - 1), up);
        if (drop < def->min_drop * cd->free_len[g]) cd->free_len[g] = 0;
        memcpy(cd->tip + 3 * g, lock + 3 * (n - 1), 3 * sizeof(float));
        cd->longest = cd->free_len[g] > cd->longest ? cd->free_len[g] : cd->longest;
    }
    free(ids), free(within);
    cd->bones = def->bones < 1                    ? 1
                : def->bones > TL_CHAIN_MAX_BONES ? TL_CHAIN_MAX_BONES
                                                  : def->bones;
    for (uint32_t g = 0; g < gs->guide_count; ++g)
        if (cd->free_len[g] < def->min_free_mm * scale) cd->free_len[g] = 0;
    /* with cover_unowned, the hair each candidate would take off the cap */
    bool cover = def->cover_unowned && def->bind_mm * scale > 0; /* no reach: nothing to take */
    if (!cover) return true;
    cd->off = malloc(sizeof(uint32_t) * (gs->guide_count + 1));
    if (!cd->off) return false;
    if (!cover_build(gs, cd->start, cd->free_len, mesh, off_cap, cd->bones, def->bind_mm * scale,
                     lock, cd->cap_points, cd->off, &cd->items))
        free(cd->off), cd->off = NULL; /* chosen without it, as when it is off */
    else if (!hair_cover_tally_init(&cd->tally, cd->off, cd->items, gs->guide_count,
                                    mesh->vertex_count))
        cd->tally = (hair_cover_tally){0}; /* as without memory for the choice's marks */
    return true;
}

/* The choice by free length × spread among the guides not dropped. */
static uint32_t choose(candidates* cd, const tl_hair_guides* gs, const tl_hair_chain_def* def,
                       const uint8_t* dropped, tl_hair_chain* chains) {
    uint32_t chosen = 0;
    const float* tip = cd->tip;
    hair_cover_tally* tally = cd->tally.by_off ? &cd->tally : NULL;
    if (tally) hair_cover_tally_reset(tally);
    while (chosen < def->max_chains) {
        int64_t best = -1;
        float best_score = 0;
        float best_take = 0;
        for (uint32_t g = 0; g < gs->guide_count; ++g) {
            float free_len = dropped[g] ? 0 : cd->free_len[g];
            if (!(free_len > 0)) continue;
            float spread = INFINITY;
            for (uint32_t c = 0; c < chosen; ++c)
                spread = fminf(spread, sqrtf(tl__dist2(tip + 3 * g, tip + 3 * chains[c].guide)));
            float score = chosen ? free_len * spread : free_len;
            uint32_t fresh = tally ? tally->fresh[g] : 0;
            /* first the hair no chain takes yet, weighed by the lock's free length (a long lock
               left on the head swings farthest into the body), then free length × spread */
            float take = (float)fresh * free_len;
            if (take > best_take || (take == best_take && score > best_score))
                best_score = score, best = g, best_take = take;
        }
        if (best < 0) break;
        if (tally) hair_cover_tally_take(tally, (uint32_t)best);
        tl_hair_chain* c = &chains[chosen++];
        c->guide = (uint32_t)best;
        c->bone_count = cd->bones;
        c->free_length = cd->free_len[best];
        uint32_t n = lock_of(gs, c->guide, cd->lock, NULL, cd->cap_points, 0);
        joints_along(cd->lock, cd->start[best], n, cd->bones, c->joints);
    }
    return chosen;
}

/* Adds `weight` on influence id to a vertex's list. */
static void influence_add(uint32_t* inf, float* w, uint32_t* n, uint32_t id, float weight) {
    if (!(weight > 0)) return;
    for (uint32_t k = 0; k < *n; ++k)
        if (inf[k] == id) {
            w[k] += weight;
            return;
        }
    inf[*n] = id, w[(*n)++] = weight;
}

/* One chain's bone pair for a point nearest bone b at t along it: the bone at its middle, half
 * and half with the neighbour at a joint (the head before the first bone). */
static void chain_pair(const tl_hair_chain* chain, uint32_t c, uint32_t b, float t, float share,
                       uint32_t* inf, float* w, uint32_t* n) {
    uint32_t id = c * TL_CHAIN_MAX_BONES + b;
    if (t >= 0.5f && b + 1 < chain->bone_count) {
        influence_add(inf, w, n, id, share * (1.5f - t));
        influence_add(inf, w, n, id + 1, share * (t - 0.5f));
    } else if (t >= 0.5f) {
        influence_add(inf, w, n, id, share);
    } else {
        influence_add(inf, w, n, id, share * (0.5f + t));
        influence_add(inf, w, n, b > 0 ? id - 1 : UINT32_MAX, share * (0.5f - t));
    }
}

/* The influences of one vertex (see tl_hair_chains) before the diffusion: the head on the cap
 * and farther than `bind` from every chain, else the nearest chain's bone pair; within `ramp`
 * past the cap's edge (scalp distance `sd`) the head keeps a linear share, so the step from
 * the cap to a bone spreads over a band of hair. */
static void weigh(const tl_hair_chains* cs, const float* boxes, const float* p, float sd, float cap,
                  float bind, float ramp, uint32_t* inf_out, float* w_out) {
    uint32_t inf[TL_HAIR_INFLUENCES], n = 0;
    float w[TL_HAIR_INFLUENCES];
    for (int k = 0; k < TL_HAIR_INFLUENCES; ++k)
        inf_out[k] = UINT32_MAX, w_out[k] = k == 0;
    if (cs->rigid || sd <= cap) return;
    float bt;
    uint32_t bb, bc = hair_chain_nearest(cs, boxes, p, bind, &bb, &bt);
    if (bc == UINT32_MAX) return;
    /* not also at bind's edge: lock ends half a metre down, partly rigid with the head, tore
       and sank more (long01 Jump, hair.md) */
    float head = ramp > 0 ? 1 - (sd - cap) / ramp : 0;
    head = head < 0 ? 0 : head;
    chain_pair(&cs->chains[bc], bc, bb, bt, 1 - head, inf, w, &n);
    influence_add(inf, w, &n, UINT32_MAX, head);
    /* the larger first (at most three) */
    for (uint32_t k = 1; k < n; ++k)
        for (uint32_t i = k; i > 0 && w[i] > w[i - 1]; --i) {
            float tw = w[i];
            uint32_t ti = inf[i];
            w[i] = w[i - 1], inf[i] = inf[i - 1], w[i - 1] = tw, inf[i - 1] = ti;
        }
    for (uint32_t k = 0; k < n; ++k)
        inf_out[k] = inf[k], w_out[k] = w[k];
    for (uint32_t k = n; k < TL_HAIR_INFLUENCES; ++k)
        inf_out[k] = UINT32_MAX, w_out[k] = 0;
}

/* The dominant chain of a vertex's influences, UINT32_MAX when the head outweighs every bone. */
static uint32_t dominant_chain(const uint32_t* inf) {
    return inf[0] == UINT32_MAX ? UINT32_MAX : inf[0] / TL_CHAIN_MAX_BONES;
}

/* The weights over the welded hair surface: W rows of J columns (every chain's bones, then the
 * head last), seam copies sharing one welded vertex (the first copy's weights). */
typedef struct weight_field {
    size_t W, J, E;
    uint32_t first[TL_HAIR_MAX_CHAINS + 1]; /* each chain's first column */
    uint32_t* remap;
    uint32_t* edges;
    float *a, *b, *count;
    uint8_t* held;
} weight_field;

static void field_close(weight_field* f) {
    free(f->remap), free(f->edges), free(f->a), free(f->b), free(f->count), free(f->held);
}

/* The field of the weighed influences. False: out of memory. */
static bool field_open(weight_field* f, const tl_hair_mesh* mesh, const tl_hair_chains* cs,
                       float weld, const uint32_t* influence, const float* weight) {
    size_t V = mesh->vertex_count, ic = (size_t)mesh->triangle_count * 3;
    memset(f, 0, sizeof *f);
    f->J = 1;
    for (uint32_t c = 0; c < cs->chain_count; ++c)
        f->first[c] = (uint32_t)f->J - 1, f->J += cs->chains[c].bone_count;
    f->first[cs->chain_count] = (uint32_t)f->J - 1;
    f->remap = malloc(sizeof(uint32_t) * V);
    f->edges = malloc(sizeof(uint32_t) * 2 * (tl_mesh_edges_bound(ic) + 1));
    f->W = f->remap ? tl_mesh_weld(f->remap, mesh->positions, V, 3 * sizeof(float), weld) : 0;
    f->E = f->edges && f->W != TL_MESH_OUT_OF_MEMORY
               ? tl_mesh_edges(f->edges, mesh->triangles, ic, f->remap)
               : TL_MESH_OUT_OF_MEMORY;
    if (f->E == TL_MESH_OUT_OF_MEMORY) return false;
    f->a = calloc(f->W * f->J, sizeof(float));
    f->b = calloc(f->W * f->J, sizeof(float));
    f->count = calloc(f->W, sizeof(float));
    f->held = calloc(f->W, 1);
    if (!f->a || !f->b || !f->count || !f->held) return false;
    for (size_t v = 0; v < V; ++v) {
        size_t u = f->remap[v];
        if (f->count[u]++ > 0) continue; /* the first copy's weights */
        for (int k = 0; k < TL_HAIR_INFLUENCES; ++k) {
            uint32_t id = influence[TL_HAIR_INFLUENCES * v + k];
            size_t col = id == UINT32_MAX
                             ? f->J - 1
                             : f->first[id / TL_CHAIN_MAX_BONES] + id % TL_CHAIN_MAX_BONES;
            f->a[u * f->J + col] += weight[TL_HAIR_INFLUENCES * v + k];
        }
    }
    return true;
}

/* `iterations` Jacobi steps of the mean over each vertex and its neighbours, held rows kept. */
static void field_smooth(weight_field* f, uint32_t iterations) {
    size_t J = f->J;
    for (uint32_t it = 0; it < iterations; ++it) {
        memcpy(f->b, f->a, sizeof(float) * f->W * J);
        for (size_t u = 0; u < f->W; ++u)
            f->count[u] = 1;
        for (size_t e = 0; e < f->E; ++e) {
            size_t p = f->edges[2 * e], q = f->edges[2 * e + 1];
            for (size_t j = 0; j < J; ++j)
                f->b[p * J + j] += f->a[q * J + j], f->b[q * J + j] += f->a[p * J + j];
            f->count[p]++, f->count[q]++;
        }
        for (size_t u = 0; u < f->W; ++u)
            for (size_t j = 0; j < J && !f->held[u]; ++j)
                f->a[u * J + j] = f->b[u * J + j] / f->count[u];
    }
}

/* The rows not held filled from the held ones over the surface: first each takes the mean of
 * its neighbours already known (a front spreading out from the held rows), then Jacobi steps of
 * the mean of its neighbours alone (a harmonic fill: the weights vary smoothly from every held
 * row around it) until no weight moves by 1e-4. Rows no held row reaches keep theirs. */
static void field_fill(weight_field* f, uint8_t* known) {
    size_t J = f->J;
    for (size_t u = 0; u < f->W; ++u)
        known[u] = f->held[u];
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t u = 0; u < f->W; ++u)
            f->count[u] = 0;
        for (size_t e = 0; e < f->E; ++e)
            for (int side = 0; side < 2; ++side) {
                size_t p = f->edges[2 * e + side], q = f->edges[2 * e + 1 - side];
                if (known[q] || !known[p]) continue;
                if (f->count[q]++ == 0) memset(f->b + q * J, 0, sizeof(float) * J);
                for (size_t j = 0; j < J; ++j)
                    f->b[q * J + j] += f->a[p * J + j];
            }
        for (size_t u = 0; u < f->W; ++u)
            if (!known[u] && f->count[u] > 0) {
                for (size_t j = 0; j < J; ++j)
                    f->a[u * J + j] = f->b[u * J + j] / f->count[u];
                known[u] = grew = true;
            }
    }
    for (uint32_t it = 0; it < 4096; ++it) {
        float moved = 0;
        for (size_t u = 0; u < f->W; ++u)
            if (!f->held[u]) f->count[u] = 0, memset(f->b + u * J, 0, sizeof(float) * J);
        for (size_t e = 0; e < f->E; ++e)
            for (int side = 0; side < 2; ++side) {
                size_t p = f->edges[2 * e + side], q = f->edges[2 * e + 1 - side];
                if (f->held[q]) continue;
                f->count[q]++;
                for (size_t j = 0; j < J; ++j)
                    f->b[q * J + j] += f->a[p * J + j];
            }
        for (size_t u = 0; u < f->W; ++u)
            for (size_t j = 0; j < J && !f->held[u] && f->count[u] > 0; ++j) {
                float w = f->b[u * J + j] / f->count[u];
                moved = fmaxf(moved, fabsf(w - f->a[u * J + j]));
                f->a[u * J + j] = w;
            }
        if (moved < 1e-4f) break;
    }
}

/* Each vertex's largest TL_HAIR_INFLUENCES of the field, renormalised. */
static void field_write(const weight_field* f, const tl_hair_chains* cs, size_t V,
                        uint32_t* influence, float* weight) {
    size_t J = f->J;
    for (size_t v = 0; v < V; ++v) {
        const float* row = f->a + (size_t)f->remap[v] * J;
        uint32_t* inf = influence + TL_HAIR_INFLUENCES * v;
        float *w = weight + TL_HAIR_INFLUENCES * v, total = 0;
        size_t pick[TL_HAIR_INFLUENCES];
        for (int k = 0; k < TL_HAIR_INFLUENCES; ++k) {
            size_t m = J;
            for (size_t j = 0; j < J; ++j) {
                bool taken = false;
                for (int i = 0; i < k; ++i)
                    taken |= pick[i] == j;
                if (!taken && row[j] > 0 && (m == J || row[j] > row[m])) m = j;
            }
            pick[k] = m, w[k] = m < J ? row[m] : 0, inf[k] = UINT32_MAX;
            for (uint32_t c = 0; m + 1 < J && c < cs->chain_count; ++c)
                if (m >= f->first[c] && m < f->first[c + 1])
                    inf[k] = c * TL_CHAIN_MAX_BONES + (uint32_t)(m - f->first[c]);
            total += w[k];
        }
        for (int k = 0; k < TL_HAIR_INFLUENCES; ++k)
            w[k] = total > 0 ? w[k] / total : k == 0;
    }
}

/* The band along the seams between chains: each welded vertex with an edge to a vertex another
 * chain dominates (the head's column is no chain), and their neighbours `rings` edges out.
 * Uses f->count as scratch. */
static void field_seam_band(weight_field* f, uint32_t rings, uint8_t* band, uint8_t* scratch) {
    size_t J = f->J;
    memset(band, 0, f->W);
    for (size_t u = 0; u < f->W; ++u) { /* the dominant column, -1 the head's */
        size_t m = 0;
        for (size_t j = 1; j < J; ++j)
            if (f->a[u * J + j] > f->a[u * J + m]) m = j;
        f->count[u] = m + 1 == J ? -1.0f : (float)m;
    }
    for (size_t e = 0; e < f->E; ++e) {
        size_t p = f->edges[2 * e], q = f->edges[2 * e + 1];
        float cp = f->count[p], cq = f->count[q];
        if (cp < 0 || cq < 0) continue;
        uint32_t chain_p = 0, chain_q = 0;
        while (f->first[chain_p + 1] <= (uint32_t)cp)
            chain_p++;
        while (f->first[chain_q + 1] <= (uint32_t)cq)
            chain_q++;
        if (chain_p != chain_q) band[p] = band[q] = 1;
    }
    for (uint32_t r = 0; r < rings; ++r) {
        memcpy(scratch, band, f->W);
        for (size_t e = 0; e < f->E; ++e) {
            size_t p = f->edges[2 * e], q = f->edges[2 * e + 1];
            if (scratch[p] || scratch[q]) band[p] = band[q] = 1;
        }
    }
}

/* The weights spread over the hair surface. With `fill`, hair off the cap that no chain took
 * (farther than bind from every chain) gets the harmonic fill of the cap's head and the chain
 * weights around it instead of the head alone: left on the head it swung rigidly at the lock's
 * length (long01's lock ends 0.5 m below the scalp went 0.027 H into the back in HeadTurn) and
 * tore from the chain-bound hair beside it. Then `iterations` smoothing steps over every vertex
 * but the cap held on the head, and `seam_steps` on the band along the seams, given back where
 * they would sink hair into def->colliders (seam_guard.c). False: out of memory. */
static bool weights_diffuse(const tl_hair_mesh* mesh, const tl_hair_chains* cs,
                            const float* scalp_d, float cap, float weld, bool fill,
                            uint32_t iterations, uint32_t seam_steps, const tl_hair_chain_def* def,
                            float height, uint32_t* influence, float* weight) {
    size_t V = mesh->vertex_count;
    if (cs->chain_count > TL_HAIR_MAX_CHAINS) return true; /* left as weighed */
    if ((iterations == 0 && !fill && seam_steps == 0) || V == 0 || cs->chain_count == 0)
        return true;
    weight_field f;
    bool ok = field_open(&f, mesh, cs, weld, influence, weight);
    uint8_t* known = ok ? calloc(f.W, 1) : NULL;
    ok = ok && known;
    /* the first copy of a welded vertex decides, as for its weights */
    for (int pass = 0; ok && pass < 1 + fill; ++pass) {
        memset(known, 0, f.W);
        for (size_t v = 0; v < V; ++v) {
            size_t u = f.remap[v];
            bool head = influence[TL_HAIR_INFLUENCES * v] == UINT32_MAX &&
                        weight[TL_HAIR_INFLUENCES * v] == 1;
            /* the fill holds every row but the hair off the cap on the head alone; the
               smoothing holds the cap alone */
            if (!known[u])
                f.held[u] = pass < fill ? !head || scalp_d[v] <= cap : head && scalp_d[v] <= cap;
            known[u] = 1;
        }
        if (pass < fill) field_fill(&f, known);
    }
    if (ok) field_smooth(&f, iterations);
    uint8_t* band = ok && seam_steps > 0 ? malloc(f.W) : NULL;
    ok = ok && (seam_steps == 0 || band);
    if (ok && band) {
        /* the seams between chains blended: only the band beside them moves, the cap held */
        field_seam_band(&f, 1, band, known);
        for (size_t u = 0; u < f.W; ++u)
            f.held[u] = !band[u];
        for (size_t v = 0; v < V; ++v)
            if (influence[TL_HAIR_INFLUENCES * v] == UINT32_MAX &&
                weight[TL_HAIR_INFLUENCES * v] == 1 && scalp_d[v] <= cap)
                f.held[f.remap[v]] = 1;
        float* a0 = def->collider_count > 0 ? malloc(sizeof(float) * f.W * f.J) : NULL;
        float* pos = a0 ? malloc(sizeof(float) * 3 * f.W) : NULL;
        ok = def->collider_count == 0 || (a0 && pos);
        if (ok && a0) {
            memcpy(a0, f.a, sizeof(float) * f.W * f.J);
            for (size_t v = V; v-- > 0;) /* the first copy's position */
                memcpy(pos + 3 * (size_t)f.remap[v], mesh->positions + 3 * v, 3 * sizeof(float));
        }
        if (ok) field_smooth(&f, seam_steps);
        /* the blend given back where it sinks hair (seam_guard.c); half the penetration bar
           (measure.md) of slack */
        hair_seam_field sf = {f.W, f.J, f.first, pos, cs};
        if (ok && a0)
            ok = hair_seam_guard(&sf, band, a0, f.a, def->colliders, def->collider_count,
                                 def->chain.bend_limit_deg * 0.017453293f, 0.001f * height);
        free(a0), free(pos);
    }
    free(band);
    if (ok) field_write(&f, cs, V, influence, weight);
    free(known);
    field_close(&f);
    return ok;
}

/* One query of hair_scalp_distances. */
static float scalp_distance(const tl_hair_scalp* scalp, const float p[3], float reach) {
    float d, b[3];
    return hair_scalp_nearest(scalp, p, reach, &d, b) != UINT32_MAX ? d : INFINITY;
}

/* The distances of the points ids[0..n) (finite), grouped by the cells of a grid of `cell`:
 * each cell's scalp triangles gathered once around its centre (hair_scalp_near_list, as far
 * as its farthest point), then each point's scan over them alone. False: no grid (memory). */
static bool scalp_distances_by_cell(const tl_hair_scalp* scalp, const float* positions,
                                    const uint32_t* ids, uint32_t n, float reach, float cell,
                                    uint32_t* tris, float* out) {
    hair_grid g;
    if (!hair_grid_build(&g, positions, ids, n, cell)) return false;
    for (uint32_t z = 0; z < g.dims[2]; ++z)
        for (uint32_t y = 0; y < g.dims[1]; ++y)
            for (uint32_t x = 0; x < g.dims[0]; ++x) {
                size_t at = hair_grid_cell(&g, x, y, z);
                if (g.start[at + 1] - g.start[at] < 3) { /* a list costs more than one or two */
                    for (uint32_t i = g.start[at]; i < g.start[at + 1]; ++i)
                        out[g.items[i]] =
                            scalp_distance(scalp, positions + 3 * (size_t)g.items[i], reach);
                    continue;
                }
                float centre[3] = {g.origin[0] + ((float)x + 0.5f) * g.cell,
                                   g.origin[1] + ((float)y + 0.5f) * g.cell,
                                   g.origin[2] + ((float)z + 0.5f) * g.cell};
                double far = 0; /* the cell's farthest point from the centre (clamped ones too) */
                for (uint32_t i = g.start[at]; i < g.start[at + 1]; ++i) {
                    const float* p = positions + 3 * (size_t)g.items[i];
                    double d2 = 0;
                    for (int k = 0; k < 3; ++k)
                        d2 += ((double)p[k] - centre[k]) * ((double)p[k] - centre[k]);
                    far = d2 > far ? d2 : far;
                }
                float spread = (float)sqrt(far);
                if ((double)spread < sqrt(far)) spread = nextafterf(spread, INFINITY);
                uint32_t listed = hair_scalp_near_list(scalp, centre, reach, spread, tris);
                for (uint32_t i = g.start[at]; i < g.start[at + 1]; ++i) {
                    uint32_t v = g.items[i];
                    float d, b[3];
                    out[v] =
                        hair_scalp_nearest_listed(scalp, tris, listed, positions + 3 * (size_t)v,
                                                  reach, &d, b) != UINT32_MAX
                            ? d
                            : INFINITY;
                }
            }
    hair_grid_free(&g);
    return true;
}

void hair_scalp_distances(const tl_hair_scalp* scalp, const float* positions, uint32_t count,
                          float reach, bool memo, float* out) {
    /* a hash of the positions' bits (2 slots a point at least): a repeat copies its first's */
    size_t slots = 64;
    while (memo && slots < 2 * (size_t)count)
        slots *= 2;
    uint32_t* first = memo ? malloc(slots * sizeof *first) : NULL;
    uint32_t* rep = memo ? malloc(sizeof(uint32_t) * ((size_t)count + 1)) : NULL;
    uint32_t* ids = memo ? malloc(sizeof(uint32_t) * ((size_t)count + 1)) : NULL;
    uint32_t* tris = memo ? malloc(sizeof(uint32_t) * ((size_t)scalp->triangle_count + 1)) : NULL;
    if (!first || !rep || !ids || !tris) { /* each point asked */
        for (uint32_t v = 0; v < count; ++v)
            out[v] = scalp_distance(scalp, positions + 3 * (size_t)v, reach);
        free(first), free(rep), free(ids), free(tris);
        return;
    }
    memset(first, 0xff, slots * sizeof *first); /* UINT32_MAX: empty */
    uint32_t n = 0;
    for (uint32_t v = 0; v < count; ++v) {
        const float* p = positions + 3 * (size_t)v;
        uint32_t bits[3];
        memcpy(bits, p, sizeof bits);
        uint64_t h = (bits[0] * 0x9E3779B97F4A7C15ull) ^ (bits[1] * 0xC2B2AE3D27D4EB4Full) ^
                     (bits[2] * 0x165667B19E3779F9ull);
        size_t at = (size_t)(h ^ h >> 29) & (slots - 1);
        while (first[at] != UINT32_MAX &&
               memcmp(positions + 3 * (size_t)first[at], p, sizeof bits) != 0)
            at = (at + 1) & (slots - 1);
        if (first[at] == UINT32_MAX) first[at] = v;
        rep[v] = first[at];
        if (rep[v] != v) continue;
        if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))
            ids[n++] = v; /* grouped below */
        else
            out[v] = scalp_distance(scalp, p, reach);
    }
    /* hair vertices in index order jump about: grouped by cells of the reach, a cell of three
       or more sharing one list (bob01's 4979 distances 7.3 -> 4.7 ms, braid01's 1.4 -> 1.3;
       half or twice the reach cost more) */
    if (!(isfinite(reach) && reach > 0 && n > 0 &&
          scalp_distances_by_cell(scalp, positions, ids, n, reach, reach, tris, out)))
        for (uint32_t i = 0; i < n; ++i)
            out[ids[i]] = scalp_distance(scalp, positions + 3 * (size_t)ids[i], reach);
    for (uint32_t v = 0; v < count; ++v)
        out[v] = out[rep[v]]; /* a repeat takes its first's (the same query: the same bits) */
    free(first), free(rep), free(ids), free(tris);
}

tl_result tl_hair_chains_create(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                                const tl_hair_guides* guides, const tl_hair_chain_def* def,
                                tl_hair_chains** out, tl_error* err) {
    assert(mesh && scalp && guides && def && out);
    *out = NULL;
    chains_storage* s = calloc(1, sizeof *s);
    size_t n = mesh->vertex_count ? mesh->vertex_count : 1;
    if (s) s->chains = calloc(def->max_chains ? def->max_chains : 1, sizeof *s->chains);
    if (s) s->influence = malloc(TL_HAIR_INFLUENCES * n * sizeof(uint32_t));
    if (s) s->weight = malloc(TL_HAIR_INFLUENCES * n * sizeof(float));
    if (!s || !s->chains || !s->influence || !s->weight) {
        if (s) free(s->chains), free(s->influence), free(s->weight), free(s);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    float scale = scalp->height / TL_HAIR_HUMAN_MM;
    tl_hair_chains* cs = &s->out;
    cs->internal = s;
    cs->chains = s->chains;
    uint8_t* dropped = calloc(guides->guide_count + 1, 1);
    float* scalp_d = s->scalp_d = malloc(n * sizeof(float)); /* kept: the nape reads it */
    uint32_t* held = calloc(def->max_chains + 1, sizeof(uint32_t));
    uint8_t* off_cap = malloc(n);
    if (!dropped || !scalp_d || !held || !off_cap) {
        free(dropped), free(held), free(off_cap);
        tl_hair_chains_destroy(&s->out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    float cap_d = def->cap_mm * scale, ramp_d = def->head_ramp_mm * scale;
    s->reach = cap_d + ramp_d;
    /* the scalp distance as far as the ramp past the cap reads it */
    hair_scalp_distances(scalp, mesh->positions, mesh->vertex_count, cap_d + ramp_d, true, scalp_d);
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        off_cap[v] = !(scalp_d[v] <= cap_d);
    candidates cd;
    if (!candidates_find(&cd, guides, scalp, def, scale, mesh, off_cap)) {
        candidates_free(&cd);
        free(dropped), free(held), free(off_cap);
        tl_hair_chains_destroy(&s->out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    cs->longest_free = cd.longest; /* of every guide, dropped or not */
    cs->chain_count = choose(&cd, guides, def, dropped, s->chains);
    cs->rigid = cs->chain_count == 0;
    cs->vertex_count = mesh->vertex_count;
    cs->influence = s->influence;
    cs->weight = s->weight;
    /* weigh and diffuse; the guide of a chain that would move fewer than min_vertices is
       dropped and the chains chosen again (each pass drops at least one guide, so it ends).
       Counted after the diffusion: it can take a narrow lock's every vertex over to its
       neighbours (long01, 8 steps: a chain dominating none, its lock's thickness 0). Counted
       before the seam blend, which runs once the chains are kept: the blend only mixes the
       skins where locks meet, and the chains must not depend on it (bob02 had 7 chains
       unblended, 5 with seam_steps 4) */
    bool ok = true;
    for (;;) {
        memset(held, 0, sizeof(uint32_t) * (def->max_chains + 1));
        /* the chains' boxes skip the bones surely beyond bind (none: every bone tested) */
        float* boxes = malloc(sizeof(float) * (hair_chain_boxes_size(cs) + 1));
        if (boxes) hair_chain_boxes(cs, def->bind_mm * scale, boxes);
        for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
            uint32_t* inf = s->influence + TL_HAIR_INFLUENCES * (size_t)v;
            float* w = s->weight + TL_HAIR_INFLUENCES * (size_t)v;
            weigh(cs, boxes, mesh->positions + 3 * (size_t)v, scalp_d[v], cap_d,
                  def->bind_mm * scale, ramp_d, inf, w);
        }
        free(boxes);
        ok = weights_diffuse(mesh, cs, scalp_d, cap_d, 0.01f * scale, def->fill_unowned,
                             def->smooth_steps, 0, def, scalp->height, s->influence, s->weight);
        if (!ok) break;
        for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
            uint32_t c = dominant_chain(s->influence + TL_HAIR_INFLUENCES * (size_t)v);
            if (c != UINT32_MAX) held[c]++;
        }
        bool any = false;
        for (uint32_t c = 0; c < cs->chain_count; ++c)
            if (held[c] < def->min_vertices) dropped[s->chains[c].guide] = 1, any = true;
        if (!any) break;
        cs->chain_count = choose(&cd, guides, def, dropped, s->chains);
        cs->rigid = cs->chain_count == 0;
    }
    candidates_free(&cd);
    ok = ok && weights_diffuse(mesh, cs, scalp_d, cap_d, 0.01f * scale, false, 0, def->seam_steps,
                               def, scalp->height, s->influence, s->weight);
    if (!ok) {
        free(dropped), free(held), free(off_cap);
        tl_hair_chains_destroy(&s->out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    cs->bound_vertices = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        cs->bound_vertices += s->influence[TL_HAIR_INFLUENCES * (size_t)v] != UINT32_MAX;
    free(dropped), free(held), free(off_cap);
    *out = cs;
    return TL_OK;
}
