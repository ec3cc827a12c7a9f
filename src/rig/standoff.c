/* The garment test (issue #13): a far part that is most of a mesh shell of its own, not the
 * body's, and whose lower edge stands off the other shells' skin, is a garment hanging off the
 * body. The limb test (tails.md §4) does not apply to it: a skirt is a closed ring round the
 * legs, so its centroid falls on the pelvis axis as body skin's does round its bone, but the
 * skin it wraps is another shell's, not its own. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

bool rig_shells_build(rig_ctx* ctx) {
    uint32_t W = ctx->W;
    ctx->shell = malloc((W ? W : 1) * sizeof *ctx->shell);
    ctx->shell_size = calloc(W ? W : 1, sizeof *ctx->shell_size);
    if (!ctx->shell || !ctx->shell_size) return false;
    for (uint32_t w = 0; w < W; ++w)
        ctx->shell[w] = UINT32_MAX;
    uint32_t count = 0;
    ctx->largest_shell = 0;
    for (uint32_t seed = 0; seed < W; ++seed) {
        if (ctx->shell[seed] != UINT32_MAX) continue;
        uint32_t head = 0, tail = 0;
        ctx->queue[tail++] = seed;
        ctx->shell[seed] = count;
        while (head < tail) {
            uint32_t v = ctx->queue[head++];
            for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
                uint32_t u = ctx->adj[k];
                if (ctx->shell[u] != UINT32_MAX) continue;
                ctx->shell[u] = count;
                ctx->queue[tail++] = u;
            }
        }
        ctx->shell_size[count] = tail;
        if (tail > ctx->shell_size[ctx->largest_shell]) ctx->largest_shell = count;
        count++;
    }
    ctx->shell_count = count;
    return true;
}

/* A fresh far component (one shell) hanging from the pelvis region or the spine is a garment
 * when (1) its shell is not the largest one
 * (the body), (2) it holds at least half of its shell (the shell as a whole stands off the
 * skeleton, where body skin is a patch of a shell that mostly lies near its bones), and (3) the
 * tenth of it farthest from every other shell (a skirt's hem) stands off them by more than the
 * far distance: a garment hugging the skin (a belt, a sleeve, tight trousers) stays body. */
bool rig_part_garment(rig_ctx* ctx, const rig_wpart* p, bool* garment) {
    *garment = false;
    uint32_t n = p->verts.count;
    if (!n || ctx->shell_count < 2 || p->attach == TL_NONE) return true;
    /* only where a wide part hangs as cloth (tails.md §4): a helmet stays with the head */
    tl_rig_region region = (tl_rig_region)ctx->region[p->attach];
    if (region != TL_RIG_REGION_PELVIS && region != TL_RIG_REGION_SPINE) return true;
    uint32_t s = ctx->shell[p->verts.items[0]];
    for (uint32_t i = 1; i < n; ++i)
        if (ctx->shell[p->verts.items[i]] != s) return true;
    if (s == ctx->largest_shell || 2 * (uint64_t)n < ctx->shell_size[s]) return true;
    uint32_t others = ctx->W - ctx->shell_size[s];
    float* points = malloc(3 * (size_t)(others ? others : 1) * sizeof *points);
    float* queries = malloc(3 * (size_t)n * sizeof *queries);
    uint32_t* nearest = malloc((size_t)n * sizeof *nearest);
    float* gap = malloc((size_t)n * sizeof *gap);
    bool ok = points && queries && nearest && gap;
    if (ok) {
        uint32_t m = 0;
        for (uint32_t w = 0; w < ctx->W; ++w) {
            if (ctx->shell[w] == s) continue;
            for (int k = 0; k < 3; ++k)
                points[3 * (size_t)m + k] = ctx->wpos[3 * (size_t)w + k];
            m++;
        }
        for (uint32_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                queries[3 * (size_t)i + k] = ctx->wpos[3 * (size_t)p->verts.items[i] + k];
        ok = tl_mesh_nearest_points(nearest, queries, n, 12, points, m, 12) == n;
    }
    if (ok) {
        for (uint32_t i = 0; i < n; ++i) {
            const float* a = queries + 3 * (size_t)i;
            const float* b = points + 3 * (size_t)nearest[i];
            float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
            gap[i] = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
        *garment = tl_mesh_percentile(gap, n, 90.0f) > ctx->def->far * ctx->H;
    }
    free(points);
    free(queries);
    free(nearest);
    free(gap);
    return ok;
}
