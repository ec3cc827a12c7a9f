/* The junction fit (docs/rig.md "The junction fit", tails.md §6): the weights of the skin
 * where a re-weighted tail meets the body, fitted to the character's own motion.
 *
 * Linear blend skinning is linear in the weights, so over sampled poses of the file's clips
 * (the chain following its attachment rigidly) each edge's change of length is a quadratic
 * in the weights of its two ends once its deformed direction is fixed (local/global, as in
 * as-rigid-as-possible fitting; cf. SSDR, Le & Deng 2012). Every pass is one sparse
 * least-squares problem solved with CHOLMOD: the edge term, a graph Laplacian of the weights,
 * a small pull towards the rig's weights; sum to one by eliminating one weight per vertex;
 * non-negativity and four influences by projection after each solve (an influence projected
 * away stays out). Then a vertex takes the input's weights back where that is no worse for
 * its edges. The chain counts as its attachment joint during the fit (it moves with it); the
 * attachment's share is split back over the attachment and chain bones in the rig's
 * proportions. */
#include "junction_internal.h"

#include <math.h>
#include <string.h>

/* The vertex's fitted group weights split back over joints: a group's share goes to its
 * joints in the rig's proportions at this vertex, else the file's, else the representative. */
static void split_back(const fit* f, uint32_t i, const wset* groups, uint32_t jo[4], float wo[4]) {
    wset out = {0};
    for (uint32_t k = 0; k < groups->n; ++k) {
        uint32_t g = groups->j[k];
        const wset* src[2] = {&f->rig_joints[i], &f->input_joints[i]};
        bool done = false;
        for (int s = 0; s < 2 && !done; ++s) {
            double total = 0;
            for (uint32_t m = 0; m < src[s]->n; ++m)
                if (src[s]->j[m] < f->joint_total && f->group_of[src[s]->j[m]] == (int32_t)g)
                    total += src[s]->w[m];
            if (!(total > 0)) continue;
            for (uint32_t m = 0; m < src[s]->n; ++m)
                if (src[s]->j[m] < f->joint_total && f->group_of[src[s]->j[m]] == (int32_t)g)
                    wset_add(&out, src[s]->j[m], (float)(groups->w[k] * src[s]->w[m] / total));
            done = true;
        }
        if (!done) wset_add(&out, f->group_joint[g], groups->w[k]);
    }
    /* the four largest, renormalised */
    for (int k = 0; k < 4; ++k)
        jo[k] = 0, wo[k] = 0;
    uint32_t m4 = 0;
    for (uint32_t k = 0; k < out.n; ++k) {
        float wt = out.w[k];
        if (!(wt >= FIT_DROP)) continue;
        uint32_t at = m4 < 4 ? m4 : 4;
        while (at > 0 && wo[at - 1] < wt) {
            if (at < 4) wo[at] = wo[at - 1], jo[at] = jo[at - 1];
            --at;
        }
        if (at < 4) wo[at] = wt, jo[at] = out.j[k];
        if (m4 < 4) ++m4;
    }
    float sum = 0;
    for (uint32_t k = 0; k < m4; ++k)
        sum += wo[k];
    for (uint32_t k = 0; k < m4; ++k)
        wo[k] /= sum;
    if (m4 == 0) jo[0] = (uint32_t)f->p->attach, wo[0] = 1;
}

static void fit_free(fit* f) {
    free(f->local), free(f->verts), free(f->input), free(f->rig), free(f->input_joints);
    free(f->rig_joints), free(f->group_of), free(f->group_joint), free(f->mats), free(f->Q);
    free(f->bind), free(f->cand), free(f->ncand), free(f->w), free(f->wrig), free(f->active);
    free(f->pos), free(f->pos_in), free(f->depth), free(f->in_part), free(f->reached);
    free(f->held), free(f->tail);
    free(f->eoff), free(f->omega), free(f->cpos), free(f->torn_in), free(f->clip_jm);
}
void rig_fit_file_weights(const rig_ctx* ctx, uint32_t w, wset* out) {
    const tl_scene_skin* skin = ctx->skin;
    uint32_t first = ctx->copy_first[w], copies = ctx->copy_first[w + 1] - first;
    for (uint32_t k = 0; k < copies; ++k) {
        size_t v = ctx->copies[first + k];
        for (uint32_t m = 0; m < skin->influence_count; ++m) {
            float wt = skin->influence_weights[v * skin->influence_count + m];
            if (wt > 0)
                wset_add(out, skin->influence_joints[v * skin->influence_count + m],
                         wt / (float)copies);
        }
    }
}

/* The free set's working arrays, over the welded vertices (W) or the candidates. */
typedef struct free_scan {
    float r1;         /* the collar radius */
    uint8_t* own;     /* W: 1 in the part, 2 in its own band, 3 reached over torn skin */
    uint8_t* open;    /* W: where the geodesic may pass */
    float* dist;      /* W: geodesic distance */
    void* scratch;    /* for tl_mesh_geodesic */
    rig_list cand;    /* the candidates' welded ids, ascending */
    float* depth;     /* per candidate: distance from the part and its band (0 inside) */
    wset *rigj, *inj; /* per candidate: the rig's and the file's weights in joints */
    rig_list fixed;   /* the fixed vertices around the free ones, in local order */
} free_scan;

/* The candidates: the part, its band, the torn body skin they reach (rig_fit_reach, on a part
 * with no misbound skin), and everything within `junction_ring` collar radii of the part and
 * its band along welded edges (in no other part or band). */
static bool find_candidates(fit* f, free_scan* s, const uint8_t* banded) {
    const rig_ctx* ctx = f->ctx;
    const rig_wpart* p = f->p;
    const tl_rig_part* part = f->part;
    uint32_t W = ctx->W, self = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->part_count; ++i)
        if (&ctx->parts[i] == p) self = i;
    for (uint32_t i = 0; i < p->verts.count; ++i)
        s->own[p->verts.items[i]] = 1;
    for (uint32_t k = 0; k < part->band_count; ++k) {
        uint32_t w = ctx->remap[part->band_vertices[k]];
        if (!s->own[w]) s->own[w] = 2;
    }
    for (uint32_t w = 0; w < W; ++w)
        s->open[w] =
            s->own[w] || ((ctx->owner[w] == -1 || (uint32_t)ctx->owner[w] == self) && !banded[w]);
    /* A part with misbound skin found its root by the file's weights (its growth); one with
       none (the file binds the tail to bones near it) leaves its root to the motion. */
    bool ok = true;
    if (!(p->misbound > 0)) {
        uint8_t* member = calloc(W + 1, 1);
        ok = member != NULL;
        for (uint32_t w = 0; ok && w < W; ++w)
            member[w] = s->own[w] != 0;
        ok = ok && rig_fit_reach(f, s->open, member, &f->part->fit.reached);
        for (uint32_t w = 0; ok && w < W; ++w)
            if (member[w] == 2) s->own[w] = 3;
        free(member);
    }
    /* The ring is measured from the part and its band, and, in a fit from clips, from the
       reached skin too: the fit keeps that skin (its file tears excuse nothing in the revert),
       and without a ring its edges to the file-weighted skin beyond tore anew (session 12).
       The range of motion cannot judge reached skin so far (fox-khronos with no clip tore
       0.385% anew), so there the ring stays the part's. */
    bool clips = rig_fit_poses_from_clips(f);
    rig_list seeds = {0};
    for (uint32_t w = 0; ok && w < W; ++w)
        if (s->own[w] == 1 || s->own[w] == 2 || (clips && s->own[w] == 3))
            ok = rig_list_push(&seeds, w);
    if (ok)
        tl_mesh_geodesic(s->dist, ctx->adj_off, ctx->adj, ctx->adj_len, W, s->open, seeds.items,
                         seeds.count, s->scratch);
    rig_list_free(&seeds);
    float ring = ctx->def->junction_ring * s->r1;
    s->depth = ok ? malloc(((size_t)W + 1) * sizeof *s->depth) : NULL;
    ok = ok && s->depth;
    for (uint32_t w = 0; ok && w < W; ++w) {
        f->local[w] = -1;
        if (s->open[w] && (s->own[w] || s->dist[w] <= ring)) {
            s->depth[s->cand.count] = s->own[w] ? 0 : s->dist[w];
            ok = rig_list_push(&s->cand, w);
        }
    }
    return ok;
}

/* The candidates' weights in joints: the file's, and the rig's (the part's plan or its
 * band's where it has them, else the file's). */
static bool candidate_weights(const fit* f, free_scan* s) {
    const rig_ctx* ctx = f->ctx;
    const tl_rig_part* part = f->part;
    s->rigj = calloc(s->cand.count + 1, sizeof *s->rigj);
    s->inj = calloc(s->cand.count + 1, sizeof *s->inj);
    if (!s->rigj || !s->inj) return false;
    for (uint32_t c = 0; c < s->cand.count; ++c) {
        uint32_t w = s->cand.items[c];
        rig_fit_file_weights(ctx, w, &s->inj[c]);
        uint32_t u = ctx->copies[ctx->copy_first[w]];
        bool in_part = s->own[w] == 1;
        uint32_t at = in_part ? sorted_index(part->vertices, part->vertex_count, u)
                              : sorted_index(part->band_vertices, part->band_count, u);
        const uint32_t* pj = in_part ? part->new_joints : part->band_joints;
        const float* pw = in_part ? part->new_weights : part->band_weights;
        if (s->own[w] && at != UINT32_MAX) {
            for (int m = 0; m < 4; ++m)
                if (pw[4 * (size_t)at + m] > 0)
                    wset_add(&s->rigj[c], pj[4 * (size_t)at + m], pw[4 * (size_t)at + m]);
        } else {
            s->rigj[c] = s->inj[c];
        }
    }
    return true;
}

/* The local indices: the candidates are free, numbered first, but the tail's core (wholly on
 * chain bones and farther than one collar radius from anything else); the free vertices'
 * neighbours outside them are fixed, numbered after. */
static bool number_local(fit* f, free_scan* s) {
    const rig_ctx* ctx = f->ctx;
    uint32_t W = ctx->W;
    uint8_t* chainy = calloc(s->cand.count + 1, 1);
    rig_list sources = {0};
    bool ok = chainy != NULL;
    memset(s->open, 0, W);
    for (uint32_t c = 0; ok && c < s->cand.count; ++c) {
        float on = 0;
        for (uint32_t m = 0; m < s->rigj[c].n; ++m)
            if (s->rigj[c].j[m] >= ctx->skin->joint_count) on += s->rigj[c].w[m];
        chainy[c] = s->own[s->cand.items[c]] == 1 && on >= 0.999f;
        s->open[s->cand.items[c]] = 1;
        if (!chainy[c]) ok = rig_list_push(&sources, s->cand.items[c]);
    }
    if (ok && sources.count)
        tl_mesh_geodesic(s->dist, ctx->adj_off, ctx->adj, ctx->adj_len, W, s->open, sources.items,
                         sources.count, s->scratch);
    uint32_t nf = 0;
    for (uint32_t c = 0; ok && c < s->cand.count; ++c) {
        uint32_t w = s->cand.items[c];
        bool core = chainy[c] && (!sources.count || s->dist[w] > s->r1);
        if (!core) f->local[w] = (int32_t)nf++;
    }
    f->nf = nf;
    uint32_t nl = nf;
    for (uint32_t c = 0; ok && c < s->cand.count; ++c) {
        uint32_t w = s->cand.items[c];
        if (f->local[w] < 0) continue;
        for (uint32_t k = ctx->adj_off[w]; ok && k < ctx->adj_off[w + 1]; ++k) {
            uint32_t u = ctx->adj[k];
            if (f->local[u] >= 0) continue;
            f->local[u] = (int32_t)nl++;
            ok = rig_list_push(&s->fixed, u);
        }
    }
    f->nl = nl;
    free(chainy);
    rig_list_free(&sources);
    return ok;
}

/* The local vertices' welded ids, weights in joints and bind positions, and the free ones'
 * depths. Fixed vertices: a core vertex keeps the chain's weights; beyond, the file's (or
 * the band's of another part: the weights they will be written with). */
static bool fill_local(fit* f, const free_scan* s) {
    const rig_ctx* ctx = f->ctx;
    uint32_t nf = f->nf, nl = f->nl;
    f->verts = malloc(((size_t)nl + 1) * sizeof *f->verts);
    f->input_joints = calloc(nl + 1, sizeof *f->input_joints);
    f->rig_joints = calloc(nl + 1, sizeof *f->rig_joints);
    f->bind = malloc(((size_t)nl + 1) * 3 * sizeof *f->bind);
    f->depth = malloc(((size_t)nf + 1) * sizeof *f->depth);
    if (!f->verts || !f->input_joints || !f->rig_joints || !f->bind || !f->depth) return false;
    for (uint32_t c = 0; c < s->cand.count; ++c) {
        uint32_t w = s->cand.items[c];
        if (f->local[w] < 0) continue;
        uint32_t i = (uint32_t)f->local[w];
        if (i < nf) f->verts[i] = w, f->input_joints[i] = s->inj[c], f->rig_joints[i] = s->rigj[c];
        if (i < nf) f->depth[i] = s->depth[c];
    }
    for (uint32_t x = 0; x < s->fixed.count; ++x) {
        uint32_t w = s->fixed.items[x], i = nf + x;
        f->verts[i] = w;
        uint32_t c = sorted_index(s->cand.items, s->cand.count, w);
        if (c != UINT32_MAX) {
            f->input_joints[i] = s->inj[c], f->rig_joints[i] = s->rigj[c];
            continue;
        }
        rig_fit_file_weights(ctx, w, &f->input_joints[i]);
        f->rig_joints[i] = f->input_joints[i];
    }
    for (uint32_t i = 0; i < nl; ++i)
        memcpy(f->bind + 3 * (size_t)i,
               ctx->skin->bind_positions + 3 * (size_t)ctx->copies[ctx->copy_first[f->verts[i]]],
               3 * sizeof *f->bind);
    return true;
}

/* 1. The free set (find_candidates, number_local) and the fixed vertices around it. */
static bool free_set(fit* f, const uint8_t* banded) {
    const rig_ctx* ctx = f->ctx;
    uint32_t W = ctx->W;
    free_scan s = {0};
    s.r1 = rig_collar_radius(ctx, f->p);
    if (!(s.r1 > 0)) s.r1 = 0.05f * ctx->H; /* a shell with a point collar: a twentieth of H */
    s.own = calloc(W + 1, 1);
    s.open = calloc(W + 1, 1);
    s.dist = malloc(((size_t)W + 1) * sizeof *s.dist);
    s.scratch = malloc(tl_mesh_geodesic_scratch_size(W));
    f->local = malloc(((size_t)W + 1) * sizeof *f->local);
    bool ok = s.own && s.open && s.dist && s.scratch && f->local;
    ok = ok && find_candidates(f, &s, banded);
    ok = ok && candidate_weights(f, &s);
    ok = ok && number_local(f, &s);
    ok = ok && fill_local(f, &s);
    f->reached = ok ? calloc(f->nl + 1, 1) : NULL;
    ok = ok && f->reached;
    for (uint32_t i = 0; ok && i < f->nl; ++i)
        f->reached[i] = s.own[f->verts[i]] == 3;
    free(s.own), free(s.open), free(s.dist), free(s.scratch), free(s.depth);
    free(s.rigj), free(s.inj);
    rig_list_free(&s.cand), rig_list_free(&s.fixed);
    return ok;
}

/* 2. The poses and the joint groups, over every joint the local vertices' weights name. */
static bool poses_and_groups(fit* f) {
    const tl_scene_skin* skin = f->ctx->skin;
    const tl_rig_part* part = f->part;
    f->slots = skin->joint_count + part->segments;
    uint8_t* used = calloc(f->slots + 1, 1);
    bool ok = used != NULL;
    for (uint32_t i = 0; ok && i < f->nl; ++i)
        for (int s = 0; s < 2; ++s) {
            const wset* ws = s ? &f->rig_joints[i] : &f->input_joints[i];
            for (uint32_t m = 0; m < ws->n; ++m) {
                uint32_t j = ws->j[m];
                if (j < skin->joint_count)
                    used[j] = 1;
                else if (j >= part->first_new_joint && j < part->first_new_joint + part->segments)
                    used[skin->joint_count + (j - part->first_new_joint)] = 1;
            }
        }
    float* jm = f->clip_jm; /* the reach's clip poses (the same: they name every joint) */
    f->clip_jm = NULL;
    if (jm)
        f->P = f->clip_P;
    else
        jm = ok ? rig_fit_sample_poses(f, used, &f->P) : NULL;
    ok = ok && jm && f->P > 0 && rig_fit_build_groups(f, jm, used);
    free(jm), free(used);
    return ok;
}

/* The local vertices' weights in groups and their positions over the poses: with the file's
 * weights, and for the fixed ones with the rig's (which they keep). */
static bool group_weights(fit* f) {
    const rig_ctx* ctx = f->ctx;
    uint32_t nl = f->nl, P = f->P;
    f->input = calloc(nl + 1, sizeof *f->input);
    f->rig = calloc(nl + 1, sizeof *f->rig);
    f->pos = malloc(((size_t)nl * P + 1) * 3 * sizeof *f->pos);
    f->pos_in = malloc(((size_t)nl * P + 1) * 3 * sizeof *f->pos_in);
    f->in_part = calloc(nl + 1, 1);
    if (!f->input || !f->rig || !f->pos || !f->pos_in || !f->in_part) return false;
    for (uint32_t i = 0; i < nl; ++i)
        f->in_part[i] = sorted_index(f->part->vertices, f->part->vertex_count,
                                     ctx->copies[ctx->copy_first[f->verts[i]]]) != UINT32_MAX;
    for (uint32_t i = 0; i < nl; ++i) {
        rig_fit_to_groups(f, &f->input_joints[i], &f->input[i]);
        rig_fit_to_groups(f, &f->rig_joints[i], &f->rig[i]);
        rig_fit_wset_positions(f, &f->input[i], f->bind + 3 * (size_t)i,
                               f->pos_in + (size_t)i * P * 3);
        if (i >= f->nf)
            rig_fit_wset_positions(f, &f->rig[i], f->bind + 3 * (size_t)i,
                                   f->pos + (size_t)i * P * 3);
    }
    return true;
}

/* Free vertex i's groups scored: its own (the rig's above the file's), then its
 * neighbours', each by weight. */
static void score_groups(const fit* f, uint32_t i, wset* score) {
    const rig_ctx* ctx = f->ctx;
    for (uint32_t m = 0; m < f->rig[i].n; ++m)
        wset_add(score, f->rig[i].j[m], 4 + f->rig[i].w[m]);
    for (uint32_t m = 0; m < f->input[i].n; ++m)
        wset_add(score, f->input[i].j[m], 2 + f->input[i].w[m]);
    uint32_t v = f->verts[i];
    for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
        int32_t j = f->local[ctx->adj[k]];
        if (j < 0) continue;
        for (uint32_t m = 0; m < f->rig[j].n; ++m)
            wset_add(score, f->rig[j].j[m], 0.1f * f->rig[j].w[m]);
        for (uint32_t m = 0; m < f->input[j].n; ++m)
            wset_add(score, f->input[j].j[m], 0.1f * f->input[j].w[m]);
    }
}

/* The tail's own skin may not be bound again to bones the rig found too far from it (the
 * misbinding rule of tails.md §1, per joint): near joints and the rig's only. */
void rig_fit_drop_misbound(const fit* f, uint32_t i, wset* score) {
    const rig_ctx* ctx = f->ctx;
    uint32_t v = f->verts[i];
    const float* x = ctx->wpos + 3 * (size_t)v;
    float limit = ctx->def->misbound_ratio * ctx->dskel[v] + ctx->def->misbound_slack * ctx->H;
    for (uint32_t m = 0; m < score->n;) {
        uint32_t g = score->j[m], rj = f->group_joint[g];
        bool kept = rj >= ctx->skin->joint_count || rig_joint_distance(&ctx->bones, rj, x) <= limit;
        for (uint32_t q = 0; q < f->rig[i].n; ++q)
            kept = kept || f->rig[i].j[q] == g;
        if (kept)
            ++m;
        else
            score->j[m] = score->j[--score->n], score->w[m] = score->w[score->n];
    }
}

/* Free vertex i's candidates, the best scored first, all active, starting from the rig's
 * weights on them (renormalised; even where the rig gives them none). Reached skin (torn body skin
 * the free set took, rig_fit_reach) also gets the chain's first bone, in place of the lowest-scored
 * where there are six: the reach goes past the band, where no neighbour's weights name a chain
 * bone, so without it the fit could not move the tail's root onto the chain whatever the motion
 * says (docs/rig.md §8, session 14b). */
static void vertex_candidates(fit* f, uint32_t i) {
    uint32_t C = FIT_CANDIDATES;
    wset score = {0};
    score_groups(f, i, &score);
    if (f->in_part[i]) rig_fit_drop_misbound(f, i, &score);
    uint32_t n = 0;
    while (n < C && score.n) {
        uint32_t best = 0;
        for (uint32_t m = 1; m < score.n; ++m)
            if (score.w[m] > score.w[best]) best = m;
        f->cand[i * C + n++] = score.j[best];
        score.j[best] = score.j[--score.n], score.w[best] = score.w[score.n];
    }
    if (f->reached && f->reached[i]) { /* the chain's first bone, last of the candidates */
        int32_t g = f->group_of[f->part->first_new_joint];
        bool has = g < 0;
        for (uint32_t c = 0; c < n; ++c)
            has = has || f->cand[i * C + c] == (uint32_t)g;
        if (!has) f->cand[i * C + (n < C ? n++ : C - 1)] = (uint32_t)g;
    }
    f->ncand[i] = n;
    double s = 0;
    for (uint32_t c = 0; c < n; ++c) {
        f->active[i * C + c] = 1;
        for (uint32_t m = 0; m < f->rig[i].n; ++m)
            if (f->rig[i].j[m] == f->cand[i * C + c]) f->wrig[i * C + c] = f->rig[i].w[m];
        s += f->wrig[i * C + c];
    }
    for (uint32_t c = 0; c < n; ++c)
        f->w[i * C + c] = f->wrig[i * C + c] = s > 0 ? f->wrig[i * C + c] / s : 1.0 / n;
    rig_fit_free_positions(f, i);
}

static bool choose_candidates(fit* f) {
    uint32_t nf = f->nf, C = FIT_CANDIDATES;
    f->cand = calloc((size_t)nf * C + 1, sizeof *f->cand);
    f->ncand = calloc(nf + 1, sizeof *f->ncand);
    f->w = calloc((size_t)nf * C + 1, sizeof *f->w);
    f->wrig = calloc((size_t)nf * C + 1, sizeof *f->wrig);
    f->active = calloc((size_t)nf * C + 1, 1);
    if (!f->cand || !f->ncand || !f->w || !f->wrig || !f->active) return false;
    for (uint32_t i = 0; i < nf; ++i)
        vertex_candidates(f, i);
    return true;
}

/* The weights free vertex i writes: the file's top four where reverted, else the fit's,
 * split back over joints. */
static void vertex_result(const fit* f, uint32_t i, const uint8_t* reverted, uint32_t jo[4],
                          float wo[4]) {
    uint32_t C = FIT_CANDIDATES;
    if (reverted[i]) {
        split_back(f, i, &f->input[i], jo, wo);
        return;
    }
    wset groups = {0};
    for (uint32_t c = 0; c < f->ncand[i]; ++c)
        if (f->w[i * C + c] > 0) wset_add(&groups, f->cand[i * C + c], (float)f->w[i * C + c]);
    split_back(f, i, &groups, jo, wo);
}

/* The share of the weights on the chain's bones (the joints after the file's). */
static float chain_share(const fit* f, const uint32_t jo[4], const float wo[4]) {
    float share = 0;
    for (int k = 0; k < 4; ++k)
        if (jo[k] >= f->ctx->skin->joint_count) share += wo[k];
    return share;
}

/* The group that carries most of the part's file weights: the body joint the file binds the
 * tail to (the attachment's group where the file follows the tail's parent). */
static uint32_t part_file_group(const fit* f, double* share) {
    for (uint32_t i = 0; i < f->nf; ++i)
        for (uint32_t m = 0; f->in_part[i] && m < f->input[i].n; ++m)
            share[f->input[i].j[m]] += f->input[i].w[m];
    uint32_t best = 0;
    for (uint32_t g = 1; g < f->G; ++g)
        if (share[g] > share[best]) best = g;
    return best;
}

/* In a fit with no clip, the skin outside the part that the revert may not give back its
 * file weights (f->held), as the part's own may not (junction_revert.c): a vertex the kept
 * pass puts on the chain more than on any body joint, whose file weights follow mostly the
 * joint the file binds the part to, when that is not the chain's attachment. The file binds
 * it as it binds the tail, and the range of motion, holding the chain still but for its
 * swings, cannot judge that binding: with the girdles at 60° it judged the file's binding of
 * a tail's flare to a hip joint no worse, and the flare tore once the chain moved (docs/rig.md
 * §8, session 10c). Body skin the fit put on the chain but the file binds elsewhere (a thigh
 * beside a tail the file gave the hips) stays free to take its file weights back. `none` is
 * all zero (nothing reverted yet). */
static bool mark_held(fit* f, const uint8_t* none) {
    if (rig_fit_poses_from_clips(f)) return true;
    f->held = calloc(f->nf + 1, 1);
    double* share = calloc(f->G + 1, sizeof *share);
    if (!f->held || !share) return free(share), false;
    uint32_t tail_g = part_file_group(f, share);
    free(share);
    if (tail_g == (uint32_t)f->group_of[f->p->attach]) return true;
    for (uint32_t i = 0; i < f->nf; ++i) {
        if (f->in_part[i] || f->input[i].n == 0) continue;
        uint32_t top = 0; /* the file's largest group */
        for (uint32_t m = 1; m < f->input[i].n; ++m)
            if (f->input[i].w[m] > f->input[i].w[top]) top = m;
        if (f->input[i].j[top] != tail_g) continue;
        uint32_t jo[4];
        float wo[4];
        vertex_result(f, i, none, jo, wo);
        float body = 0; /* the largest share on one body joint */
        for (int k = 0; k < 4; ++k)
            if (jo[k] < f->ctx->skin->joint_count && wo[k] > body) body = wo[k];
        f->held[i] = chain_share(f, jo, wo) > body;
    }
    return true;
}

/* 5. The write-back: the part's vertices into its plan (each copy); its other changed
 * vertices become its band, in place of the old one, and are marked in `banded`. */
static bool write_back(fit* f, const uint8_t* reverted, uint8_t* banded) {
    rig_ctx* ctx = f->ctx;
    tl_rig_part* part = f->part;
    uint32_t nf = f->nf, C = FIT_CANDIDATES, cap = part->band_count, bn = 0;
    for (uint32_t i = 0; i < nf; ++i)
        cap += ctx->copy_first[f->verts[i] + 1] - ctx->copy_first[f->verts[i]];
    uint32_t* bv = malloc(((size_t)cap + 1) * sizeof *bv);
    uint32_t* order = malloc(((size_t)ctx->W + 1) * sizeof *order); /* band vertex -> free index */
    uint8_t* leave = calloc(part->vertex_count + 1, 1);             /* part vertices past its end */
    uint32_t left = 0;
    if (!bv || !order || !leave) return free(bv), free(order), free(leave), false;
    for (uint32_t i = 0; i < nf; ++i) {
        uint32_t w = f->verts[i];
        uint32_t jo[4];
        float wo[4];
        vertex_result(f, i, reverted, jo, wo);
        uint32_t u0 = ctx->copies[ctx->copy_first[w]];
        bool in_part = sorted_index(part->vertices, part->vertex_count, u0) != UINT32_MAX;
        if (in_part && chain_share(f, jo, wo) < FIT_PART_END) { /* the part ends here */
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c)
                leave[sorted_index(part->vertices, part->vertex_count, ctx->copies[c])] = 1;
            in_part = false;
            ++left;
        }
        if (in_part) {
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c) {
                uint32_t k = sorted_index(part->vertices, part->vertex_count, ctx->copies[c]);
                memcpy(part->new_joints + 4 * (size_t)k, jo, sizeof jo);
                memcpy(part->new_weights + 4 * (size_t)k, wo, sizeof wo);
            }
        } else if (!reverted[i]) {
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c)
                bv[bn++] = ctx->copies[c];
            order[w] = i;
            banded[w] = 1;
            /* stash the weights in the fit's arrays for the sorted pass below */
            for (uint32_t c = 0; c < C; ++c)
                f->w[i * C + c] = c < 4 ? wo[c] : 0, f->cand[i * C + c] = c < 4 ? jo[c] : 0;
        }
    }
    qsort(bv, bn, sizeof *bv, compare_u32);
    uint32_t* bj = calloc(4 * (size_t)bn + 1, sizeof *bj);
    float* bw = calloc(4 * (size_t)bn + 1, sizeof *bw);
    if (!bj || !bw) return free(bv), free(order), free(bj), free(bw), free(leave), false;
    for (uint32_t k = 0; k < bn; ++k) {
        uint32_t i = order[ctx->remap[bv[k]]];
        for (int m = 0; m < 4; ++m)
            bj[4 * (size_t)k + m] = f->cand[i * C + m],
                               bw[4 * (size_t)k + m] = (float)f->w[i * C + m];
    }
    free(order);
    free(part->band_vertices), free(part->band_joints), free(part->band_weights);
    part->band_vertices = bv, part->band_joints = bj, part->band_weights = bw;
    part->band_count = bn;
    uint32_t n = 0; /* the part without the vertices past its end, in order */
    for (uint32_t k = 0; k < part->vertex_count; ++k) {
        if (leave[k]) continue;
        part->vertices[n] = part->vertices[k];
        memmove(part->new_joints + 4 * (size_t)n, part->new_joints + 4 * (size_t)k,
                4 * sizeof *part->new_joints);
        memmove(part->new_weights + 4 * (size_t)n, part->new_weights + 4 * (size_t)k,
                4 * sizeof *part->new_weights);
        ++n;
    }
    part->vertex_count = n;
    part->welded_count -= left;
    free(leave);
    return true;
}

bool rig_part_junction(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, uint8_t* banded) {
    const tl_rig_def* def = ctx->def;
    if (!def->junction_fit || part->action != TL_RIG_ACTION_CHAIN || !part->new_joints ||
        p->attach < 0)
        return true;
    double t0 = rig_now();
    fit f = {0};
    f.ctx = ctx;
    f.p = p;
    f.part = part;
    f.joint_total = part->first_new_joint + part->segments + 1;
    if (f.joint_total < ctx->skin->joint_count) f.joint_total = ctx->skin->joint_count;
    bool ok = free_set(&f, banded);
    if (!ok || f.nf == 0) {
        fit_free(&f);
        return ok;
    }
    ok = poses_and_groups(&f) && group_weights(&f) && choose_candidates(&f);
    uint32_t iterations = 0, reverts = 0;
    ok = ok && rig_fit_solve(&f, &iterations); /* 3. the local/global passes */
    uint8_t* reverted = ok ? calloc(f.nf + 1, 1) : NULL;
    ok = ok && reverted && mark_held(&f, reverted) && rig_fit_revert(&f, reverted, &reverts);
    part->fit.energy_final = ok ? (float)rig_fit_energy(&f) : 0;
    ok = ok && write_back(&f, reverted, banded);
    if (ok) {
        part->fit.free_vertices = f.nf;
        part->fit.fixed_vertices = f.nl - f.nf;
        part->fit.poses = f.P;
        part->fit.iterations = iterations;
        part->fit.joints = f.G;
        part->fit.reverted = reverts;
    }
    free(reverted);
    fit_free(&f);
    double dt = rig_now() - t0;
    part->fit.seconds = (float)dt;
    ctx->seconds[TL_RIG_STAGE_FIT] += dt;
    ctx->seconds[TL_RIG_STAGE_WEIGHTS] -= dt; /* the caller times the fit with the weights */
    return ok;
}
