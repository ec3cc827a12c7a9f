/* The root band (docs/rig.md): the body skin around a re-weighted tail's collar gets weights
 * that interpolate harmonically between the part's new weights and the body's own weights
 * beyond the band. An auto-rigger's wrong weights do not stop where the skin stops being
 * misbound: the tail's last ring or two outside the part keep their thigh weights and tear
 * against the re-weighted part when the legs swing. Replacing the whole band by the smooth
 * solution removes them without a rule for what is wrong (§6's open problem), and spreads
 * the step between the tail's and the body's motion over a tail's thickness of skin. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BAND_MAX_ITERATIONS = 2000 };
static const float BAND_TOLERANCE = 1e-5f; /* largest weight change of a sweep at convergence */
static const float BAND_DROP = 1e-3f;      /* influences below this are dropped before the top 4 */

static int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* Index of union vertex u in the part's ascending vertex list, or UINT32_MAX. */
static uint32_t part_index(const tl_rig_part* part, uint32_t u) {
    const uint32_t* hit = bsearch(&u, part->vertices, part->vertex_count, sizeof u, compare_u32);
    return hit ? (uint32_t)(hit - part->vertices) : UINT32_MAX;
}

/* The collar ring's radius: the mean distance of its vertices from their centroid. */
float rig_collar_radius(const rig_ctx* ctx, const rig_wpart* p) {
    double s = 0;
    for (uint32_t i = 0; i < p->collar.count; ++i) {
        const float* x = ctx->wpos + 3 * (size_t)p->collar.items[i];
        float d[3] = {x[0] - p->collar_c[0], x[1] - p->collar_c[1], x[2] - p->collar_c[2]};
        s += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    return p->collar.count ? (float)(s / p->collar.count) : 0.0f;
}

/* Welded vertices in no classified part and in no earlier band, within r of the part along
 * mesh edges (Dijkstra from every part vertex through those only). False when out of memory. */
static bool band_find(rig_ctx* ctx, const rig_wpart* p, uint32_t self, float r,
                      const uint8_t* banded, rig_list* out) {
    uint32_t in_part = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i)
        ctx->stamp[p->verts.items[i]] = in_part;
    uint8_t* open = ctx->mask; /* borrowed: cleared below */
    for (uint32_t w = 0; w < ctx->W; ++w)
        open[w] = ctx->stamp[w] != in_part &&
                  (ctx->owner[w] == -1 || (uint32_t)ctx->owner[w] == self) && !banded[w];
    float* dist = malloc((size_t)ctx->W * sizeof *dist);
    void* scratch = malloc(tl_mesh_geodesic_scratch_size(ctx->W));
    bool ok = dist && scratch;
    if (ok)
        tl_mesh_geodesic(dist, ctx->adj_off, ctx->adj, ctx->adj_len, ctx->W, open, p->verts.items,
                         p->verts.count, scratch);
    for (uint32_t w = 0; ok && w < ctx->W; ++w)
        if (open[w] && dist[w] <= r) ok = rig_list_push(out, w);
    memset(open, 0, ctx->W);
    free(scratch);
    free(dist);
    return ok;
}

/* Gauss-Seidel on the band: each band vertex is the mean of its neighbours weighted by inverse
 * edge length (positive weights: every value stays in 0..1 and sums to 1). x holds J weights
 * per slot (ctx->queue: band vertices first, then their fixed neighbours); acc J floats. */
static void band_solve(const rig_ctx* ctx, const rig_list* band, float* x, float* acc, uint32_t J) {
    uint32_t nb = band->count;
    for (int it = 0; it < BAND_MAX_ITERATIONS; ++it) {
        float change = 0;
        for (uint32_t i = 0; i < nb; ++i) {
            uint32_t v = band->items[i];
            double total = 0;
            memset(acc, 0, J * sizeof *acc);
            for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
                uint32_t s = ctx->queue[ctx->adj[k]];
                float e = 1.0f / fmaxf(ctx->adj_len[k], 1e-6f * ctx->H);
                total += e;
                for (uint32_t j = 0; j < J; ++j)
                    acc[j] += e * x[(size_t)s * J + j];
            }
            if (!(total > 0)) continue;
            for (uint32_t j = 0; j < J; ++j) {
                float nv = (float)(acc[j] / total);
                float d = fabsf(nv - x[(size_t)i * J + j]);
                if (d > change) change = d;
                x[(size_t)i * J + j] = nv;
            }
        }
        if (change < BAND_TOLERANCE) break;
    }
}

/* The band's union vertices (every welded copy, ascending) and their four largest influences
 * of the solution x, renormalised. joints maps x's local joints to skin joints. */
static bool band_write(const rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part,
                       const rig_list* band, const float* x, uint32_t J, const uint32_t* joints) {
    uint32_t nb = band->count, n = 0;
    for (uint32_t i = 0; i < nb; ++i)
        n += ctx->copy_first[band->items[i] + 1] - ctx->copy_first[band->items[i]];
    part->band_vertices = malloc((n + 1) * sizeof *part->band_vertices);
    part->band_joints = calloc(4 * (size_t)n + 1, sizeof *part->band_joints);
    part->band_weights = calloc(4 * (size_t)n + 1, sizeof *part->band_weights);
    if (!part->band_vertices || !part->band_joints || !part->band_weights) return false;
    uint32_t m = 0;
    for (uint32_t i = 0; i < nb; ++i) {
        uint32_t w = band->items[i];
        for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c)
            part->band_vertices[m++] = ctx->copies[c];
    }
    qsort(part->band_vertices, n, sizeof *part->band_vertices, compare_u32);
    part->band_count = n;
    for (uint32_t k = 0; k < n; ++k) {
        const float* xs = x + (size_t)ctx->queue[ctx->remap[part->band_vertices[k]]] * J;
        uint32_t* jo = part->band_joints + 4 * (size_t)k;
        float* wo = part->band_weights + 4 * (size_t)k;
        uint32_t m4 = 0;
        for (uint32_t j = 0; j < J; ++j) {
            float wt = xs[j];
            if (!(wt >= BAND_DROP)) continue;
            /* insertion into the top four, largest first */
            uint32_t at = m4 < 4 ? m4 : 4;
            while (at > 0 && wo[at - 1] < wt) {
                if (at < 4) wo[at] = wo[at - 1], jo[at] = jo[at - 1];
                --at;
            }
            if (at < 4) wo[at] = wt, jo[at] = joints[j];
            if (m4 < 4) ++m4;
        }
        float sum = 0;
        for (uint32_t q = 0; q < m4; ++q)
            sum += wo[q];
        for (uint32_t q = 0; q < m4; ++q)
            wo[q] = sum > 0 ? wo[q] / sum : 0;
        if (m4 == 0) jo[0] = (uint32_t)p->attach, wo[0] = 1; /* cannot happen: weights sum to 1 */
    }
    return true;
}

bool rig_part_band(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, uint8_t* banded) {
    if (!part->new_joints || !(ctx->def->root_band > 0) || p->own_collar || !p->collar.count)
        return true;
    float r = ctx->def->root_band * rig_collar_radius(ctx, p);
    if (!(r > 0)) return true;
    part->band_radius = r;
    const tl_scene_skin* skin = ctx->skin;
    uint32_t self = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->part_count; ++i)
        if (&ctx->parts[i] == p) self = i;

    /* 1. the band */
    rig_list band = {0};
    bool ok = band_find(ctx, p, self, r, banded, &band);
    if (!ok || band.count == 0) {
        rig_list_free(&band);
        return ok;
    }
    uint32_t nb = band.count;
    for (uint32_t i = 0; i < nb; ++i)
        banded[band.items[i]] = 1;

    /* 2. the joints involved, and the fixed values: the part's planned weights inside, the
       file's weights outside (the mean over welded copies) */
    uint32_t joint_total = skin->joint_count;
    if (part->action == TL_RIG_ACTION_CHAIN &&
        part->first_new_joint + part->segments + 1 > joint_total)
        joint_total = part->first_new_joint + part->segments + 1;
    int32_t* local = malloc((size_t)joint_total * sizeof *local);
    uint32_t* joints = NULL; /* local -> skin joint */
    uint32_t J = 0;
    /* welded id -> slot: band vertices 0..nb-1, fixed neighbours nb.. (ctx->queue) */
    uint32_t is_band = rig_stamp(ctx);
    for (uint32_t i = 0; i < nb; ++i)
        ctx->stamp[band.items[i]] = is_band, ctx->queue[band.items[i]] = i;
    rig_list fixed = {0};
    ok = local != NULL;
    if (ok)
        for (uint32_t j = 0; j < joint_total; ++j)
            local[j] = -1;
    uint32_t is_fixed = rig_stamp(ctx);
    for (uint32_t i = 0; ok && i < nb; ++i) {
        uint32_t v = band.items[i];
        for (uint32_t k = ctx->adj_off[v]; ok && k < ctx->adj_off[v + 1]; ++k) {
            uint32_t u = ctx->adj[k];
            if (ctx->stamp[u] == is_band || ctx->stamp[u] == is_fixed) continue;
            ctx->stamp[u] = is_fixed;
            ctx->queue[u] = nb + fixed.count;
            ok = rig_list_push(&fixed, u);
        }
    }
    /* the weights of a welded vertex as (joint, weight) pairs: planned for part vertices,
       else the file's (every copy, averaged) */
    uint32_t nf = fixed.count, slots = nb + nf;
    uint32_t* pair_off = malloc(((size_t)slots + 1) * sizeof *pair_off);
    size_t pair_cap = 0;
    for (uint32_t s = 0; s < slots; ++s) {
        uint32_t w = s < nb ? band.items[s] : fixed.items[s - nb];
        pair_cap +=
            (size_t)(ctx->copy_first[w + 1] - ctx->copy_first[w]) * (skin->influence_count + 4);
    }
    uint32_t* pair_j = malloc((pair_cap + 1) * sizeof *pair_j);
    float* pair_w = malloc((pair_cap + 1) * sizeof *pair_w);
    ok = ok && pair_off && pair_j && pair_w;
    size_t np = 0;
    for (uint32_t s = 0; ok && s < slots; ++s) {
        uint32_t w = s < nb ? band.items[s] : fixed.items[s - nb];
        pair_off[s] = (uint32_t)np;
        uint32_t first = ctx->copy_first[w], copies = ctx->copy_first[w + 1] - first;
        uint32_t in = s >= nb ? part_index(part, ctx->copies[first]) : UINT32_MAX;
        if (in != UINT32_MAX) { /* a part vertex: its planned weights (equal on every copy) */
            for (int k = 0; k < 4; ++k)
                if (part->new_weights[4 * (size_t)in + k] > 0)
                    pair_j[np] = part->new_joints[4 * (size_t)in + k],
                    pair_w[np++] = part->new_weights[4 * (size_t)in + k];
        } else {
            for (uint32_t c = 0; c < copies; ++c) {
                size_t v = ctx->copies[first + c];
                for (uint32_t k = 0; k < skin->influence_count; ++k) {
                    float wt = skin->influence_weights[v * skin->influence_count + k];
                    if (wt > 0)
                        pair_j[np] = skin->influence_joints[v * skin->influence_count + k],
                        pair_w[np++] = wt / (float)copies;
                }
            }
        }
        for (size_t q = pair_off[s]; q < np; ++q) {
            if (pair_j[q] >= joint_total)
                continue; /* cannot happen: indices are checked by the scene */
            if (local[pair_j[q]] < 0) {
                uint32_t* grown = realloc(joints, (J + 1) * sizeof *grown);
                if (!grown) {
                    ok = false;
                    break;
                }
                joints = grown;
                local[pair_j[q]] = (int32_t)J++;
            }
        }
    }
    if (ok) pair_off[slots] = (uint32_t)np;
    for (uint32_t j = 0; ok && j < joint_total; ++j)
        if (local[j] >= 0) joints[local[j]] = j;

    /* 3. Gauss-Seidel on the band: each band vertex is the mean of its neighbours weighted by
       inverse edge length (positive weights: every value stays in 0..1 and sums to 1) */
    float* x = ok ? calloc((size_t)slots * J + 1, sizeof *x) : NULL;
    ok = ok && x;
    for (uint32_t s = 0; ok && s < slots; ++s)
        for (uint32_t q = pair_off[s]; q < pair_off[s + 1]; ++q)
            if (pair_j[q] < joint_total) x[(size_t)s * J + (uint32_t)local[pair_j[q]]] += pair_w[q];
    float* acc = ok ? malloc((J + 1) * sizeof *acc) : NULL;
    ok = ok && acc;
    if (ok) band_solve(ctx, &band, x, acc, J);

    /* 4. per band vertex: the four largest influences, renormalised, on every welded copy */
    if (ok) ok = band_write(ctx, p, part, &band, x, J, joints);
    free(acc);
    free(x);
    free(pair_off);
    free(pair_j);
    free(pair_w);
    free(joints);
    free(local);
    rig_list_free(&fixed);
    rig_list_free(&band);
    return ok;
}
