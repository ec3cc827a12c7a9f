/* A chain along a part (tails.md §7–§8): the geodesic coordinate from the collar, joints
 * at the centroids of geodesic bands, smoothed twice, bones Tail_1..Tail_K + Tail_End, and
 * weights that give each segment to its bone and blend 50/50 at the joints, over a width
 * that grows with the tail's radius there (docs/rig.md, "Chain weights"). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The geodesic coordinate runs on the part's own small graph (its vertices and its collar),
 * so a part costs its own size, not the whole mesh's. */
bool rig_part_geodesic(rig_ctx* ctx, rig_wpart* p) {
    uint32_t n = p->verts.count;
    free(p->g);
    p->g = malloc((n ? n : 1) * sizeof *p->g);
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < n; ++i)
        ctx->stamp[p->verts.items[i]] = in, ctx->queue[p->verts.items[i]] = i;
    uint32_t ring = rig_stamp(ctx), m = n;
    for (uint32_t i = 0; i < p->collar.count; ++i) {
        uint32_t w = p->collar.items[i];
        if (ctx->stamp[w] == in || ctx->stamp[w] == ring) continue;
        ctx->stamp[w] = ring;
        ctx->queue[w] = m++;
    }
    size_t edges = 0;
    for (uint32_t i = 0; i < n; ++i)
        edges += ctx->adj_off[p->verts.items[i] + 1] - ctx->adj_off[p->verts.items[i]];
    uint32_t* offsets = malloc((m + 1) * sizeof *offsets);
    uint32_t* neighbors = malloc((2 * edges + 1) * sizeof *neighbors);
    float* lengths = malloc((2 * edges + 1) * sizeof *lengths);
    float* dist = malloc((m + 1) * sizeof *dist);
    uint32_t* sources = malloc((p->collar.count + 1) * sizeof *sources);
    void* heap = malloc(tl_mesh_geodesic_scratch_size(m + 1));
    float* sorted = malloc((n ? n : 1) * sizeof *sorted);
    bool ok = p->g && offsets && neighbors && lengths && dist && sources && heap && sorted;
    if (ok) {
        /* part vertices: edges to part and collar; collar vertices: edges into the part */
        uint32_t k = 0, local = 0;
        for (uint32_t pass = 0; pass < 2; ++pass) {
            const uint32_t* list = pass ? p->collar.items : p->verts.items;
            uint32_t count = pass ? p->collar.count : n;
            for (uint32_t i = 0; i < count; ++i) {
                uint32_t w = list[i];
                if (pass && (ctx->stamp[w] != ring || ctx->queue[w] != local)) continue;
                offsets[local++] = k;
                for (uint32_t e = ctx->adj_off[w]; e < ctx->adj_off[w + 1]; ++e) {
                    uint32_t u = ctx->adj[e];
                    if (ctx->stamp[u] != in && (pass || ctx->stamp[u] != ring)) continue;
                    neighbors[k] = ctx->queue[u];
                    lengths[k++] = ctx->adj_len[e];
                }
            }
        }
        offsets[local] = k;
        for (uint32_t i = 0; i < p->collar.count; ++i)
            sources[i] = ctx->queue[p->collar.items[i]];
        tl_mesh_geodesic(dist, offsets, neighbors, lengths, m, NULL, sources, p->collar.count,
                         heap);
        for (uint32_t i = 0; i < n; ++i)
            p->g[i] = dist[i];
    }
    free(offsets);
    free(neighbors);
    free(lengths);
    free(sources);
    free(heap);
    if (!ok) {
        free(dist);
        free(sorted);
        return false;
    }
    uint32_t reached = 0;
    for (uint32_t i = 0; i < n; ++i)
        reached += isfinite(p->g[i]);
    /* a vertex the search cannot reach (a shell no edge joins to the collar) takes the g of
     * its nearest reached vertex */
    if (reached < n) {
        uint32_t unreached = n - reached;
        float* have = malloc(3 * (size_t)(reached ? reached : 1) * sizeof *have);
        float* want = malloc(3 * (size_t)unreached * sizeof *want);
        float* have_g = malloc((reached ? reached : 1) * sizeof *have_g);
        uint32_t* nearest = malloc(unreached * sizeof *nearest);
        ok = have && want && have_g && nearest;
        uint32_t a = 0, b = 0;
        for (uint32_t i = 0; ok && i < n; ++i) {
            const float* x = ctx->wpos + 3 * (size_t)p->verts.items[i];
            if (isfinite(p->g[i]))
                memcpy(have + 3 * a, x, 3 * sizeof *x), have_g[a++] = p->g[i];
            else
                memcpy(want + 3 * b++, x, 3 * sizeof *x);
        }
        if (ok && reached)
            ok = tl_mesh_nearest_points(nearest, want, unreached, 3 * sizeof(float), have, reached,
                                        3 * sizeof(float)) != TL_MESH_OUT_OF_MEMORY;
        for (uint32_t i = 0, k = 0; ok && i < n; ++i)
            if (!isfinite(p->g[i])) p->g[i] = reached ? have_g[nearest[k++]] : 0.0f;
        free(have), free(want), free(have_g), free(nearest);
        if (!ok) {
            free(dist);
            free(sorted);
            return false;
        }
    }
    memcpy(sorted, p->g, n * sizeof *sorted);
    p->length = n ? tl_mesh_percentile(sorted, n, 99.0f) : 0;
    free(sorted);
    free(dist);
    return true;
}

static int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* The chain's segment of link b (1..K), from J_{b-1} to J_b. */
static float link_distance(const tl_rig_part* part, uint32_t b, const float* x) {
    return tl_mesh_segment_distance(x, part->joints + 3 * (b - 1), part->joints + 3 * b, NULL);
}

/* Joints J_0..J_K (§8): J_0 the collar centroid, J_i the centroid of the part vertices
 * whose g lies within half a segment of i·L/K, interior joints smoothed twice. */
static void chain_joints(const rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, uint32_t K,
                         float L) {
    memcpy(part->joints, p->collar_c, 3 * sizeof(float));
    float half = 0.5f * L / (float)K;
    for (uint32_t i = 1; i <= K; ++i) {
        float at = (float)i * L / (float)K;
        double s[3] = {0, 0, 0};
        uint32_t count = 0, closest = 0;
        float closest_d = INFINITY;
        for (uint32_t k = 0; k < p->verts.count; ++k) {
            float d = fabsf(p->g[k] - at);
            if (d < closest_d) closest_d = d, closest = k;
            if (d > half) continue;
            const float* x = ctx->wpos + 3 * (size_t)p->verts.items[k];
            for (int c = 0; c < 3; ++c)
                s[c] += x[c];
            count++;
        }
        for (int c = 0; c < 3; ++c)
            part->joints[3 * i + c] =
                count ? (float)(s[c] / count) : ctx->wpos[3 * (size_t)p->verts.items[closest] + c];
    }
    /* a bushy tail's cross-section is never balanced: unsmoothed, the chain zigzags */
    for (int pass = 0; pass < 2; ++pass) {
        float prev[(TL_RIG_MAX_LINKS + 1) * 3];
        memcpy(prev, part->joints, sizeof prev);
        for (uint32_t i = 1; i < K; ++i)
            for (int c = 0; c < 3; ++c)
                part->joints[3 * i + c] = 0.5f * prev[3 * i + c] +
                                          0.25f * (prev[3 * (i - 1) + c] + prev[3 * (i + 1) + c]);
    }
}

static float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

bool rig_part_plan(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part) {
    const tl_rig_def* def = ctx->def;
    /* the part's union vertices: every welded copy */
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t w = p->verts.items[i];
        n += ctx->copy_first[w + 1] - ctx->copy_first[w];
    }
    part->vertices = malloc((n ? n : 1) * sizeof *part->vertices);
    if (!part->vertices) return false;
    part->vertex_count = n;
    n = 0;
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t w = p->verts.items[i];
        for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c)
            part->vertices[n++] = ctx->copies[c];
    }
    qsort(part->vertices, n, sizeof *part->vertices, compare_u32);
    double before = 0;
    for (uint32_t i = 0; i < n; ++i)
        before += ctx->wbd_union[part->vertices[i]];
    part->bone_distance = n ? (float)(before / n) : 0;
    part->bone_distance_after = part->bone_distance;
    if (part->action != TL_RIG_ACTION_CHAIN && part->action != TL_RIG_ACTION_RIGID) return true;

    part->new_joints = calloc(4 * (size_t)(n ? n : 1), sizeof *part->new_joints);
    part->new_weights = calloc(4 * (size_t)(n ? n : 1), sizeof *part->new_weights);
    if (!part->new_joints || !part->new_weights) return false;
    uint32_t A = (uint32_t)p->attach;
    /* g per union vertex of the part: look up its welded vertex's place in p->verts */
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        ctx->stamp[p->verts.items[i]] = in;
        ctx->queue[p->verts.items[i]] = i;
    }
    double after = 0;
    if (part->action == TL_RIG_ACTION_RIGID) {
        for (uint32_t i = 0; i < n; ++i) {
            part->new_joints[4 * i] = A;
            part->new_weights[4 * i] = 1.0f;
            after += rig_joint_distance(&ctx->bones, A,
                                        ctx->skin->rest_positions + 3 * (size_t)part->vertices[i]);
        }
        part->bone_distance_after = n ? (float)(after / n) : 0;
        return true;
    }

    float L = p->length;
    float segment = def->segment * ctx->H;
    long rounded = segment > 0 ? lroundf(L / segment) : (long)def->min_links;
    uint32_t K = (uint32_t)(rounded < (long)def->min_links   ? (long)def->min_links
                            : rounded > (long)def->max_links ? (long)def->max_links
                                                             : rounded);
    part->segments = K;
    if (!(L > 0)) L = 1e-6f * ctx->H;
    chain_joints(ctx, p, part, K, L);

    uint32_t first = part->first_new_joint;
    float* owned = malloc((n ? n : 1) * sizeof *owned); /* for the radii */
    uint32_t* seg_of = malloc((n ? n : 1) * sizeof *seg_of);
    float* frac = malloc((n ? n : 1) * sizeof *frac);
    if (!owned || !seg_of || !frac) {
        free(owned), free(seg_of), free(frac);
        return false;
    }
    for (uint32_t i = 0; i < n; ++i) {
        float s = (float)K * p->g[ctx->queue[ctx->remap[part->vertices[i]]]] / L;
        float kf = floorf(s);
        seg_of[i] = kf < 0 ? 0 : kf > (float)(K - 1) ? K - 1 : (uint32_t)kf;
        frac[i] = s - (float)seg_of[i];
    }
    /* radii: the 90th percentile distance of the skin each bone owns (its segment) from it */
    for (uint32_t b = 1; b <= K; ++b) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (seg_of[i] == b - 1)
                owned[m++] = link_distance(
                    part, b, ctx->skin->rest_positions + 3 * (size_t)part->vertices[i]);
        part->radii[b - 1] = m ? tl_mesh_percentile(owned, m, 90.0f) : 0;
    }
    /* Blend half-width per joint, in segments (joint b between bones b and b + 1). A bend of
       φ stretches the outer skin across a joint by about r·φ over the blend's width, so the
       width grows with the radius r there, from a quarter segment each side to half (the
       widest linear blend, from one segment's middle to the next's). The root and the first
       joint keep a quarter: the junction fit re-weights the skin there against the body's
       own weights, and wider blends there changed what it finds (docs/rig.md). */
    float half[TL_RIG_MAX_LINKS + 1];
    float seg_len = L / (float)K;
    for (uint32_t b = 0; b <= K; ++b)
        half[b] = 0.25f;
    for (uint32_t b = 2; b < K; ++b)
        half[b] = clampf(0.5f * (part->radii[b - 1] + part->radii[b]) / seg_len, 0.25f, 0.5f);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k = seg_of[i];
        float f = frac[i];
        float w_prev = clampf(0.5f * (1 - f / half[k]), 0, 0.5f);
        float w_next = k + 1 < K ? clampf(0.5f * (1 - (1 - f) / half[k + 1]), 0, 0.5f)
                                 : 0; /* the last bone keeps it */
        float w_self = 1 - w_prev - w_next;
        uint32_t* jo = part->new_joints + 4 * (size_t)i;
        float* wo = part->new_weights + 4 * (size_t)i;
        uint32_t m = 0;
        jo[m] = first + k, wo[m++] = w_self;
        if (w_prev > 0) jo[m] = k == 0 ? A : first + k - 1, wo[m++] = w_prev; /* root: the hips */
        if (w_next > 0) jo[m] = first + k + 1, wo[m++] = w_next;
        const float* x = ctx->skin->rest_positions + 3 * (size_t)part->vertices[i];
        after += w_self * link_distance(part, k + 1, x);
        if (w_prev > 0)
            after += w_prev *
                     (k == 0 ? rig_joint_distance(&ctx->bones, A, x) : link_distance(part, k, x));
        if (w_next > 0) after += w_next * link_distance(part, k + 2, x);
    }
    part->bone_distance_after = n ? (float)(after / n) : 0;
    free(owned);
    free(seg_of);
    free(frac);
    return true;
}
