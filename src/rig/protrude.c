/* Bone-less protrusions of body skin (tails.md §2, tailor): a short tail on a thick rump (the
 * Quaternius stag's) is neither apart from the rump by skeleton distance nor, when the file
 * binds it to the hips, misbound. What sets it apart is its shape: under its skin the solid is
 * thinner than the distance to the nearest bone, so no bone runs into it. Those vertices are
 * its core; the skin nearer (along the surface) to a core than to any bone grows onto it. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A uniform grid over the skin's welded triangles, for rays. */
typedef struct tri_grid {
    float lo[3], cell;
    int32_t n[3];
    uint32_t* start; /* cells + 1 */
    uint32_t* items; /* triangle ids by cell */
} tri_grid;

static void sub3(float* out, const float* a, const float* b) {
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}
static void cross3(float* out, const float* a, const float* b) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
static float dot3(const float* a, const float* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int32_t cell_of(const tri_grid* g, float x, int axis) {
    float c = floorf((x - g->lo[axis]) / g->cell); /* clamped before the conversion */
    return !(c >= 0) ? 0 : c >= (float)g->n[axis] ? g->n[axis] - 1 : (int32_t)c;
}

static size_t cell_index(const tri_grid* g, const int32_t* c) {
    return ((size_t)c[2] * (size_t)g->n[1] + (size_t)c[1]) * (size_t)g->n[0] + (size_t)c[0];
}

static const float* corner(const rig_ctx* ctx, const uint32_t* tri, int k) {
    return ctx->wpos + 3 * (size_t)ctx->remap[tri[k]];
}

/* A grid over `box` of the welded triangles that touch it (each listed in every cell its own
 * box touches, clamped to the grid). */
static bool grid_build(tri_grid* g, const rig_ctx* ctx, tl_mesh_box box) {
    const tl_scene_skin* skin = ctx->skin;
    uint32_t* list = malloc((skin->triangle_count + 1) * sizeof *list);
    if (!list) return false;
    uint32_t n = 0;
    double extent = 0, edge = 0;
    for (uint32_t t = 0; t < skin->triangle_count; ++t) {
        const uint32_t* tri = skin->triangles + 3 * (size_t)t;
        bool outside = false;
        for (int k = 0; k < 3 && !outside; ++k) {
            float lo = INFINITY, hi = -INFINITY;
            for (int m = 0; m < 3; ++m) {
                float x = corner(ctx, tri, m)[k];
                lo = fminf(lo, x), hi = fmaxf(hi, x);
            }
            outside = hi < box.min[k] || lo > box.max[k];
        }
        if (outside) continue;
        float e[3];
        sub3(e, corner(ctx, tri, 1), corner(ctx, tri, 0));
        edge += sqrt((double)dot3(e, e));
        list[n++] = t;
    }
    for (int k = 0; k < 3; ++k)
        extent = fmax(extent, (double)(box.max[k] - box.min[k]));
    /* about twice the mean edge, but no more cells than twice the triangles */
    double volume = 1;
    for (int k = 0; k < 3; ++k)
        volume *= fmax((double)(box.max[k] - box.min[k]), extent * 1e-3);
    g->cell = (float)fmax(n ? 2.0 * edge / n : extent, cbrt(volume / (2.0 * n + 1)));
    if (!(g->cell > 0)) g->cell = 1;
    size_t cells = 1;
    for (int k = 0; k < 3; ++k) {
        g->lo[k] = box.min[k];
        g->n[k] = (int32_t)((box.max[k] - box.min[k]) / g->cell) + 1;
        cells *= (size_t)g->n[k];
    }
    g->start = calloc(cells + 1, sizeof *g->start);
    bool ok = g->start != NULL;
    for (int pass = 0; pass < 2 && ok; ++pass) {
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t* tri = skin->triangles + 3 * (size_t)list[i];
            int32_t a[3], b[3], c[3];
            for (int k = 0; k < 3; ++k) {
                float lo = INFINITY, hi = -INFINITY;
                for (int m = 0; m < 3; ++m) {
                    float x = corner(ctx, tri, m)[k];
                    lo = fminf(lo, x), hi = fmaxf(hi, x);
                }
                a[k] = cell_of(g, lo, k), b[k] = cell_of(g, hi, k);
            }
            for (c[2] = a[2]; c[2] <= b[2]; ++c[2])
                for (c[1] = a[1]; c[1] <= b[1]; ++c[1])
                    for (c[0] = a[0]; c[0] <= b[0]; ++c[0]) {
                        size_t cell = cell_index(g, c);
                        if (pass == 0)
                            g->start[cell + 1]++;
                        else
                            g->items[g->start[cell]++] = list[i];
                    }
        }
        if (pass == 0) {
            for (size_t i = 0; i < cells; ++i)
                g->start[i + 1] += g->start[i];
            g->items = malloc((g->start[cells] ? g->start[cells] : 1) * sizeof *g->items);
            ok = g->items != NULL;
        } else {
            for (size_t i = cells; i > 0; --i)
                g->start[i] = g->start[i - 1];
            g->start[0] = 0;
        }
    }
    free(list);
    return ok;
}

/* Whether the ray from welded vertex w along d leaves the solid (the first surface it meets
 * faces away from it: the far wall from inside) within `limit`. Triangles through w are
 * skipped; `seen` (one stamp per triangle) keeps a triangle from being tested twice. */
static float ray_exit(const rig_ctx* ctx, const tri_grid* g, uint32_t w, const float* d,
                      float limit, uint32_t* seen, uint32_t stamp) {
    const tl_scene_skin* skin = ctx->skin;
    const float* o = ctx->wpos + 3 * (size_t)w;
    float best = INFINITY;
    bool exits = false;
    /* the cells the ray crosses, in order (a 3D DDA), until the next one starts beyond the
       nearest hit or the limit */
    int32_t c[3], step[3];
    float next[3], delta[3];
    for (int k = 0; k < 3; ++k) {
        c[k] = cell_of(g, o[k], k);
        step[k] = d[k] > 0 ? 1 : d[k] < 0 ? -1 : 0;
        float wall = g->lo[k] + (float)(c[k] + (d[k] > 0)) * g->cell;
        next[k] = step[k] ? (wall - o[k]) / d[k] : INFINITY;
        delta[k] = step[k] ? g->cell / fabsf(d[k]) : INFINITY;
    }
    for (;;) {
        size_t i = cell_index(g, c);
        for (uint32_t k = g->start[i]; k < g->start[i + 1]; ++k) {
            uint32_t t = g->items[k];
            if (seen[t] == stamp) continue;
            seen[t] = stamp;
            const uint32_t* tri = skin->triangles + 3 * (size_t)t;
            if (ctx->remap[tri[0]] == w || ctx->remap[tri[1]] == w || ctx->remap[tri[2]] == w)
                continue;
            const float *a = corner(ctx, tri, 0), *b = corner(ctx, tri, 1),
                        *cc = corner(ctx, tri, 2);
            double dd[3] = {d[0], d[1], d[2]}, at = tl_mesh_ray_triangle(o, dd, a, b, cc);
            float hit = at > 0 ? (float)at : INFINITY;
            if (!(hit < best)) continue;
            float e1[3], e2[3], n[3];
            sub3(e1, b, a), sub3(e2, cc, a), cross3(n, e1, e2);
            best = hit;
            exits = dot3(n, d) > 0;
        }
        int axis = next[0] <= next[1] ? (next[0] <= next[2] ? 0 : 2) : (next[1] <= next[2] ? 1 : 2);
        if (!(next[axis] <= limit && next[axis] < best)) break;
        c[axis] += step[axis];
        if (c[axis] < 0 || c[axis] >= g->n[axis]) break;
        next[axis] += delta[axis];
    }
    return exits && best < limit ? best : INFINITY;
}

/* Whether the nearest point of the skeleton to p is a pelvis-region joint at the end of its
 * segment: skin beyond the skeleton's end behind the hips (a tail's), not beside a bone nor
 * beyond a limb's or the head's end (a foot, a snout, an antler). */
static bool beyond_pelvis(const rig_ctx* ctx, const float* p) {
    const rig_bones* bones = &ctx->bones;
    float d, t;
    uint32_t s;
    tl_mesh_nearest_segments(&d, &s, p, 1, 12, bones->ab, bones->count);
    const float* a = bones->ab + 6 * (size_t)s;
    tl_mesh_segment_distance(p, a, a + 3, &t);
    if (t > 0 && t < 1) return false;
    uint32_t j = bones->joint[s]; /* the segment's start, or a leaf's extension */
    if (t >= 1) {
        const tl_scene_skin* skin = ctx->skin;
        for (uint32_t k = 0; k < skin->joint_count; ++k) {
            const float* q = skin->joints[k].rest_world + 12;
            if (q[0] == a[3] && q[1] == a[4] && q[2] == a[5] && skin->joints[k].deforming) j = k;
        }
    }
    return ctx->region[j] == TL_RIG_REGION_PELVIS;
}

/* Outward normals of the welded vertices of `set` (area-weighted; zero where the faces
 * cancel, as on a two-sided sheet). `normal` holds W × 3 floats. */
static void set_normals(const rig_ctx* ctx, float* normal) {
    const tl_scene_skin* skin = ctx->skin;
    memset(normal, 0, 3 * (size_t)ctx->W * sizeof *normal);
    for (uint32_t t = 0; t < skin->triangle_count; ++t) {
        const uint32_t* tri = skin->triangles + 3 * (size_t)t;
        float e1[3], e2[3], n[3];
        sub3(e1, corner(ctx, tri, 1), corner(ctx, tri, 0));
        sub3(e2, corner(ctx, tri, 2), corner(ctx, tri, 0));
        cross3(n, e1, e2);
        for (int k = 0; k < 3; ++k)
            for (int m = 0; m < 3; ++m)
                normal[3 * (size_t)ctx->remap[tri[k]] + m] += n[m];
    }
}

bool rig_protrusions(rig_ctx* ctx, const rig_list* set, uint8_t* grown) {
    uint32_t W = ctx->W, T = ctx->skin->triangle_count;
    uint32_t* sources = malloc((set->count ? set->count : 1) * sizeof *sources);
    if (!sources) return false;
    /* candidates first (cheap): most body components have no skin beyond the hips */
    uint32_t candidates = 0;
    for (uint32_t i = 0; i < set->count; ++i) {
        uint32_t w = set->items[i];
        grown[w] = 0;
        if (beyond_pelvis(ctx, ctx->wpos + 3 * (size_t)w)) sources[candidates++] = w;
    }
    if (!candidates) return free(sources), true;
    /* rays reach at most a candidate's skeleton distance: the grid covers no more */
    tl_mesh_box box = tl_mesh_box_of(ctx->wpos, W, 12, sources, candidates);
    float reach = 0;
    for (uint32_t i = 0; i < candidates; ++i)
        reach = fmaxf(reach, ctx->dskel[sources[i]]);
    for (int k = 0; k < 3; ++k)
        box.min[k] -= reach, box.max[k] += reach;
    tri_grid g = {0};
    float* normal = malloc(3 * (size_t)W * sizeof *normal);
    uint32_t* seen = calloc(T ? T : 1, sizeof *seen);
    uint8_t* mask = calloc(W, 1);
    float* dist = malloc(W * sizeof *dist);
    void* heap = malloc(tl_mesh_geodesic_scratch_size(W));
    bool ok = normal && seen && mask && dist && heap && grid_build(&g, ctx, box);
    uint32_t cores = 0;
    if (ok) {
        set_normals(ctx, normal);
        for (uint32_t i = 0; i < set->count; ++i)
            mask[set->items[i]] = 1;
        for (uint32_t i = 0; i < candidates; ++i) {
            uint32_t w = sources[i];
            float* n = normal + 3 * (size_t)w;
            float len = sqrtf(dot3(n, n));
            if (!(len > 0)) continue;
            float d[3] = {-n[0] / len, -n[1] / len, -n[2] / len};
            const float* o = ctx->wpos + 3 * (size_t)w;
            float t = ray_exit(ctx, &g, w, d, ctx->dskel[w], seen, i + 1);
            float x[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
            /* the chord through the solid is shorter than the distance from either of its
               ends to every bone: no bone runs inside, nor close under the far wall */
            if (t < ctx->dskel[w] && t < rig_skeleton_distance(&ctx->bones, x))
                sources[cores++] = w; /* cores ≤ i: overwrites only candidates already read */
        }
    }
    /* the skin nearer a core than any bone, reached through such skin: the first pass bounds
       the set, the second measures paths inside it */
    for (int pass = 0; pass < 2 && ok && cores; ++pass) {
        tl_mesh_geodesic(dist, ctx->adj_off, ctx->adj, ctx->adj_len, W, mask, sources, cores, heap);
        for (uint32_t i = 0; i < set->count; ++i) {
            uint32_t w = set->items[i];
            mask[w] = dist[w] <= ctx->dskel[w];
            grown[w] = mask[w];
        }
    }
    for (uint32_t i = 0; i < set->count && mask; ++i)
        mask[set->items[i]] = 0;
    free(g.start);
    free(g.items);
    free(normal);
    free(seen);
    free(mask);
    free(dist);
    free(sources);
    free(heap);
    return ok;
}
