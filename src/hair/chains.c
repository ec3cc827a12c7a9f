/* The adapter (hair.md §6): at most max_chains guide chains chosen for free length and spread,
 * bones along each, and the hair mesh's weights: the cap and unsupported hair on the head. */
#include "internal.h"

#include <stdlib.h>
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
        .min_drop = 0.5f,
        .min_vertices = 16,
    };
}

typedef struct chains_storage {
    tl_hair_chains out;
    tl_hair_chain* chains;
    uint32_t* influence;
    float* weight;
} chains_storage;

void tl_hair_chains_destroy(tl_hair_chains* chains) {
    if (!chains) return;
    chains_storage* s = chains->internal;
    free(s->chains), free(s->influence), free(s->weight), free(s);
}

/* The lock of guide g: its parents' points up to where it leaves them, then its own. Writes at
 * most `cap` points; returns the count. Depth is bounded: a file's parents may loop. */
static uint32_t lock_of(const tl_hair_guides* gs, uint32_t g, float* out, uint32_t cap, int depth) {
    const tl_hair_guide* guide = &gs->guides[g];
    uint32_t n = 0;
    if (guide->parent != TL_NONE && depth < 64) {
        const tl_hair_guide* parent = &gs->guides[guide->parent];
        n = lock_of(gs, (uint32_t)guide->parent, out, cap, depth + 1);
        uint32_t drop = parent->point_count - 1 - guide->parent_point; /* past the link */
        n = n > drop ? n - drop : 0;
    }
    for (uint32_t k = 0; k < guide->point_count && n < cap; ++k)
        memcpy(out + 3 * n++, gs->points + 3 * ((size_t)guide->first_point + k), 3 * sizeof(float));
    return n;
}

/* The free part of a lock: from its last point within `cap` of the scalp to its tip. */
static uint32_t free_start(const tl_hair_scalp* scalp, const float* lock, uint32_t n, float cap) {
    uint32_t start = 0;
    for (uint32_t k = 0; k < n; ++k) {
        float d, b[3];
        if (hair_scalp_nearest(scalp, lock + 3 * k, cap, &d, b) != UINT32_MAX) start = k;
    }
    return start;
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

/* Every attached guide's free part, then the choice by free length × spread. */
static uint32_t choose(const tl_hair_guides* gs, const tl_hair_scalp* scalp,
                       const tl_hair_chain_def* def, float scale, const uint8_t* dropped,
                       tl_hair_chain* chains, float* longest) {
    const float* up = scalp->scene->skins[scalp->skin].up;
    uint32_t cap_points = 4096;
    float* lock = malloc(3 * sizeof(float) * cap_points);
    float* free_len = calloc(gs->guide_count ? gs->guide_count : 1, sizeof(float));
    float* tip = malloc(3 * sizeof(float) * (gs->guide_count ? gs->guide_count : 1));
    uint32_t chosen = 0;
    *longest = 0;
    if (!lock || !free_len || !tip) goto done;
    for (uint32_t g = 0; g < gs->guide_count; ++g) {
        if (gs->guides[g].link == TL_HAIR_LINK_NONE) continue;
        uint32_t n = lock_of(gs, g, lock, cap_points, 0);
        uint32_t s = free_start(scalp, lock, n, def->cap_mm * scale);
        free_len[g] = s + 1 < n && !dropped[g] ? arc(lock, s, n) : 0;
        /* hair hangs: a free part that does not drop by half its length (an antler, a horn, a
           crest standing up) is not a lock for a chain */
        float drop = tl__dot(lock + 3 * s, up) - tl__dot(lock + 3 * (n - 1), up);
        if (drop < def->min_drop * free_len[g]) free_len[g] = 0;
        memcpy(tip + 3 * g, lock + 3 * (n - 1), 3 * sizeof(float));
        *longest = free_len[g] > *longest ? free_len[g] : *longest;
    }
    uint32_t bones = def->bones < 1                    ? 1
                     : def->bones > TL_CHAIN_MAX_BONES ? TL_CHAIN_MAX_BONES
                                                       : def->bones;
    while (chosen < def->max_chains) {
        int64_t best = -1;
        float best_score = 0;
        for (uint32_t g = 0; g < gs->guide_count; ++g) {
            if (free_len[g] < def->min_free_mm * scale) continue;
            float spread = INFINITY;
            for (uint32_t c = 0; c < chosen; ++c)
                spread = fminf(spread, sqrtf(tl__dist2(tip + 3 * g, tip + 3 * chains[c].guide)));
            float score = chosen ? free_len[g] * spread : free_len[g];
            if (score > best_score) best_score = score, best = g;
        }
        if (best < 0) break;
        tl_hair_chain* c = &chains[chosen++];
        c->guide = (uint32_t)best;
        c->bone_count = bones;
        c->free_length = free_len[best];
        uint32_t n = lock_of(gs, c->guide, lock, cap_points, 0);
        joints_along(lock, free_start(scalp, lock, n, def->cap_mm * scale), n, bones, c->joints);
    }
done:
    free(lock), free(free_len), free(tip);
    return chosen;
}

/* The two influences of one vertex (see tl_hair_chains). */
static void weigh(const tl_hair_chains* cs, const float* p, bool cap, float bind, uint32_t* inf,
                  float* w) {
    inf[0] = inf[1] = UINT32_MAX;
    w[0] = 1, w[1] = 0;
    if (cap) return;
    float best = bind;
    uint32_t bc = UINT32_MAX, bb = 0;
    float bt = 0;
    for (uint32_t c = 0; c < cs->chain_count; ++c)
        for (uint32_t b = 0; b < cs->chains[c].bone_count; ++b) {
            float t;
            const float* j = cs->chains[c].joints + 3 * b;
            float d = tl_mesh_segment_distance(p, j, j + 3, &t);
            if (d <= best) best = d, bc = c, bb = b, bt = t;
        }
    if (bc == UINT32_MAX) return;
    /* one bone at its middle, half and half with the neighbour at a joint (the head before the
       first bone): continuous along the chain */
    uint32_t id = bc * TL_CHAIN_MAX_BONES + bb;
    inf[0] = id;
    if (bt >= 0.5f) {
        w[0] = 1.5f - bt, w[1] = bt - 0.5f;
        inf[1] = bb + 1 < cs->chains[bc].bone_count ? id + 1 : UINT32_MAX;
        if (inf[1] == UINT32_MAX) w[0] = 1, w[1] = 0;
    } else {
        w[0] = 0.5f + bt, w[1] = 0.5f - bt;
        inf[1] = bb > 0 ? id - 1 : UINT32_MAX;
    }
}

tl_result tl_hair_chains_create(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                                const tl_hair_guides* guides, const tl_hair_chain_def* def,
                                tl_hair_chains** out, tl_error* err) {
    assert(mesh && scalp && guides && def && out);
    *out = NULL;
    chains_storage* s = calloc(1, sizeof *s);
    size_t n = mesh->vertex_count ? mesh->vertex_count : 1;
    if (s) s->chains = calloc(def->max_chains ? def->max_chains : 1, sizeof *s->chains);
    if (s) s->influence = malloc(2 * n * sizeof(uint32_t));
    if (s) s->weight = malloc(2 * n * sizeof(float));
    if (!s || !s->chains || !s->influence || !s->weight) {
        if (s) free(s->chains), free(s->influence), free(s->weight), free(s);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    float scale = scalp->height / TL_HAIR_HUMAN_MM;
    tl_hair_chains* cs = &s->out;
    cs->internal = s;
    cs->chains = s->chains;
    uint8_t* dropped = calloc(guides->guide_count + 1, 1);
    uint8_t* cap = malloc(n);
    uint32_t* held = calloc(def->max_chains + 1, sizeof(uint32_t));
    if (!dropped || !cap || !held) {
        free(dropped), free(cap), free(held);
        tl_hair_chains_destroy(&s->out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    cs->chain_count = choose(guides, scalp, def, scale, dropped, s->chains, &cs->longest_free);
    cs->rigid = cs->chain_count == 0;
    cs->vertex_count = mesh->vertex_count;
    cs->influence = s->influence;
    cs->weight = s->weight;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        float d, b[3];
        cap[v] = cs->rigid || hair_scalp_nearest(scalp, mesh->positions + 3 * (size_t)v,
                                                 def->cap_mm * scale, &d, b) != UINT32_MAX;
    }
    /* weigh; the guide of a chain that would move fewer than min_vertices is dropped and the
       chains chosen again (each pass drops at least one guide, so it ends) */
    for (;;) {
        memset(held, 0, sizeof(uint32_t) * (def->max_chains + 1));
        cs->bound_vertices = 0;
        for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
            weigh(cs, mesh->positions + 3 * (size_t)v, cap[v] || cs->rigid, def->bind_mm * scale,
                  s->influence + 2 * v, s->weight + 2 * v);
            if (s->influence[2 * v] == UINT32_MAX) continue;
            cs->bound_vertices++;
            held[s->influence[2 * v] / TL_CHAIN_MAX_BONES]++;
        }
        bool any = false;
        for (uint32_t c = 0; c < cs->chain_count; ++c)
            if (held[c] < def->min_vertices) dropped[s->chains[c].guide] = 1, any = true;
        if (!any) break;
        float longest = cs->longest_free;
        cs->chain_count = choose(guides, scalp, def, scale, dropped, s->chains, &cs->longest_free);
        cs->longest_free = longest; /* of every guide, dropped or not */
        cs->rigid = cs->chain_count == 0;
    }
    free(dropped), free(cap), free(held);
    *out = cs;
    return TL_OK;
}
