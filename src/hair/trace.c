/* Candidate guides (hair.md §2): per welded component, surface shortest paths from the highest
 * vertex to geodesic extremes, added until every vertex lies near one, smoothed and resampled. */
#include "internal.h"

#include "base/try.h"

#include <stdlib.h>
#include <string.h>

bool hair_store_guide(hair_store* s, const float* points, uint32_t count, uint32_t component) {
    if (s->guide_count == s->guide_capacity) {
        uint32_t capacity = s->guide_capacity ? 2 * s->guide_capacity : 256;
        tl_hair_guide* g = realloc(s->guides, capacity * sizeof *g);
        if (!g) return false;
        s->guides = g, s->guide_capacity = capacity;
    }
    while (s->point_count + count > s->point_capacity) {
        uint32_t capacity = s->point_capacity ? 2 * s->point_capacity : 4096;
        float* p = realloc(s->points, 3 * sizeof(float) * capacity);
        if (!p) return false;
        s->points = p, s->point_capacity = capacity;
    }
    memcpy(s->points + 3 * (size_t)s->point_count, points, 3 * sizeof(float) * count);
    float length = 0;
    for (uint32_t i = 1; i < count; ++i)
        length += sqrtf(tl__dist2(points + 3 * i, points + 3 * (i - 1)));
    s->guides[s->guide_count++] = (tl_hair_guide){
        .first_point = s->point_count,
        .point_count = count,
        .component = component,
        .length = length,
        .reason = TL_HAIR_REJECT_TOO_FAR,
        .link = TL_HAIR_LINK_NONE,
        .parent = TL_NONE,
    };
    s->point_count += count;
    return true;
}

/* The welded mesh, its vertices grouped by component, with a CSR adjacency per component. */
typedef struct welded {
    uint32_t count;       /* welded vertices in some triangle */
    uint32_t* remap;      /* original vertex → welded id */
    uint32_t* part;       /* welded id → component (UINT32_MAX: in no triangle) */
    uint32_t parts;       /* components */
    uint32_t* part_start; /* parts + 1: each component's range in `order` */
    uint32_t* order;      /* welded ids grouped by component */
    uint32_t* local;      /* welded id → index in its component's range */
    float* positions;     /* 3 per entry of `order` */
    uint32_t* offsets;    /* per component c, at part_start[c] + c: n + 1 local offsets */
    uint32_t* edge_start; /* parts + 1: each component's range of undirected edges */
    uint32_t* neighbors;  /* at 2 × edge_start[c], local ids */
    float* lengths;
    uint32_t largest; /* vertices of the largest component */
} welded;

static void welded_free(welded* w) {
    free(w->remap), free(w->part), free(w->part_start), free(w->order), free(w->local);
    free(w->positions), free(w->offsets), free(w->edge_start), free(w->neighbors);
    free(w->lengths);
}

/* Components and their adjacency (the edge list in `edges`, pairs over welded ids). */
static bool welded_group(welded* w, const uint32_t* edges, size_t edge_count, size_t n,
                         const float* wpos) {
    w->part_start = calloc(w->parts + 1, sizeof(uint32_t));
    w->edge_start = calloc(w->parts + 1, sizeof(uint32_t));
    w->order = malloc((n ? n : 1) * sizeof(uint32_t));
    w->local = malloc((n ? n : 1) * sizeof(uint32_t));
    w->positions = malloc(3 * sizeof(float) * (n ? n : 1));
    w->offsets = malloc(sizeof(uint32_t) * (n + w->parts + 1));
    w->neighbors = malloc(2 * sizeof(uint32_t) * (edge_count ? edge_count : 1));
    w->lengths = malloc(2 * sizeof(float) * (edge_count ? edge_count : 1));
    uint32_t* local_edges = malloc(2 * sizeof(uint32_t) * (edge_count ? edge_count : 1));
    uint32_t* fill = malloc((w->parts + 1) * sizeof(uint32_t));
    bool ok = w->part_start && w->edge_start && w->order && w->local && w->positions &&
              w->offsets && w->neighbors && w->lengths && local_edges && fill;
    if (ok) {
        for (size_t v = 0; v < n; ++v)
            if (w->part[v] != UINT32_MAX) w->part_start[w->part[v] + 1]++;
        for (size_t e = 0; e < edge_count; ++e)
            w->edge_start[w->part[edges[2 * e]] + 1]++;
        for (uint32_t c = 0; c < w->parts; ++c) {
            w->part_start[c + 1] += w->part_start[c];
            w->edge_start[c + 1] += w->edge_start[c];
            uint32_t size = w->part_start[c + 1] - w->part_start[c];
            w->largest = size > w->largest ? size : w->largest;
        }
        memcpy(fill, w->part_start, (w->parts + 1) * sizeof(uint32_t));
        for (size_t v = 0; v < n; ++v) {
            if (w->part[v] == UINT32_MAX) continue;
            uint32_t at = fill[w->part[v]]++;
            w->order[at] = (uint32_t)v;
            w->local[v] = at - w->part_start[w->part[v]];
            memcpy(w->positions + 3 * (size_t)at, wpos + 3 * v, 3 * sizeof(float));
        }
        memcpy(fill, w->edge_start, (w->parts + 1) * sizeof(uint32_t));
        for (size_t e = 0; e < edge_count; ++e) {
            uint32_t at = fill[w->part[edges[2 * e]]]++;
            local_edges[2 * at] = w->local[edges[2 * e]];
            local_edges[2 * at + 1] = w->local[edges[2 * e + 1]];
        }
        for (uint32_t c = 0; c < w->parts; ++c) {
            uint32_t first = w->part_start[c], size = w->part_start[c + 1] - first;
            uint32_t e0 = w->edge_start[c], ec = w->edge_start[c + 1] - e0;
            tl_mesh_adjacency(w->offsets + first + c, w->neighbors + 2 * (size_t)e0,
                              w->lengths + 2 * (size_t)e0, local_edges + 2 * (size_t)e0, ec, size,
                              w->positions + 3 * (size_t)first, 12);
        }
    }
    free(local_edges);
    free(fill);
    return ok;
}

static tl_result welded_build(welded* w, const tl_hair_mesh* mesh, float tolerance, tl_error* err) {
    memset(w, 0, sizeof *w);
    size_t n = mesh->vertex_count, index_count = 3 * (size_t)mesh->triangle_count;
    w->remap = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t* edges = malloc(2 * sizeof(uint32_t) * (tl_mesh_edges_bound(index_count) + 1));
    if (!w->remap || !edges) goto oom;
    size_t count = n ? tl_mesh_weld(w->remap, mesh->positions, n, 12, tolerance) : 0;
    if (count == TL_MESH_OUT_OF_MEMORY) goto oom;
    size_t edge_count = tl_mesh_edges(edges, mesh->triangles, index_count, w->remap);
    if (edge_count == TL_MESH_OUT_OF_MEMORY) goto oom;
    float* wpos = malloc(3 * sizeof(float) * (count ? count : 1));
    uint8_t* used = calloc(count ? count : 1, 1);
    w->part = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!wpos || !used || !w->part) {
        free(wpos), free(used);
        goto oom;
    }
    if (n) tl_mesh_weld_positions(wpos, w->remap, mesh->positions, n, 12);
    for (size_t i = 0; i < index_count; ++i)
        used[w->remap[mesh->triangles[i]]] = 1;
    w->count = (uint32_t)count;
    w->parts = (uint32_t)tl_mesh_components(w->part, edges, edge_count, used, count);
    bool ok = welded_group(w, edges, edge_count, count, wpos);
    free(wpos), free(used), free(edges);
    if (!ok) {
        welded_free(w);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    return TL_OK;
oom:
    free(edges);
    welded_free(w);
    return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
}

/* Per-component working arrays, sized for the largest component. */
typedef struct tracer {
    const tl_hair_def* def;
    float scale;
    float* from_root; /* geodesic distance from the root */
    float* cover;     /* geodesic distance to the nearest path so far */
    void* heap;
    uint32_t* path; /* local ids, tip first */
    float* curve;   /* path positions, then smoothed */
    float* smooth;
    uint8_t* pinned;   /* per path vertex (root first): held where it is by the passes */
    float* before;     /* the cover before the current path */
    uint32_t* claimed; /* the vertices the current path brought within the spacing */
    uint32_t claimed_count;
    uint8_t* lost_all; /* per entry of `order`: 1 its path's smoothed curve left it (the first
                        * trace), 2 and no guide holds it either (pinned for in the second) */
    uint8_t* lost;     /* the current component's part of it */
    bool repin;        /* the second trace */
    float* samples;    /* max_points × 3 */
} tracer;

/* The shortest path from the root to `tip` down the distance field: the neighbour through
 * which the tip's distance was reached, repeatedly. Returns its length in vertices. */
static uint32_t path_to(const tracer* t, const uint32_t* offsets, const uint32_t* neighbors,
                        const float* lengths, uint32_t n, uint32_t tip, uint32_t root) {
    uint32_t count = 0, v = tip;
    t->path[count++] = v;
    while (v != root && count < n) {
        uint32_t best = UINT32_MAX;
        float best_d = INFINITY;
        for (uint32_t k = offsets[v]; k < offsets[v + 1]; ++k) {
            uint32_t u = neighbors[k];
            float d = t->from_root[u] + lengths[k];
            if (t->from_root[u] < t->from_root[v] && d < best_d) best_d = d, best = u;
        }
        if (best == UINT32_MAX) break;
        v = best;
        t->path[count++] = v;
    }
    return count;
}

/* Laplacian passes over the path (root first, ends and pinned vertices fixed). */
static void curve_smooth(const tracer* t, const float* pos, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i)
        memcpy(t->curve + 3 * i, pos + 3 * (size_t)t->path[count - 1 - i], 3 * sizeof(float));
    for (uint32_t pass = 0; pass < t->def->smooth_passes && count > 2; ++pass) {
        memcpy(t->smooth, t->curve, 3 * sizeof(float) * count);
        for (uint32_t i = 1; i + 1 < count; ++i)
            for (int k = 0; !t->pinned[i] && k < 3; ++k)
                t->curve[3 * i + k] =
                    0.5f * t->smooth[3 * i + k] +
                    0.25f * (t->smooth[3 * (i - 1) + k] + t->smooth[3 * (i + 1) + k]);
    }
}

/* Whether a segment of the curve in [lo, hi) passes within `hold` of p. */
static bool curve_near(const tracer* t, const float* p, uint32_t lo, uint32_t hi, float hold) {
    for (uint32_t j = lo; j < hi; ++j)
        if (tl_mesh_segment_distance(p, t->curve + 3 * j, t->curve + 3 * (j + 1), NULL) <= hold)
            return true;
    return false;
}

/* The vertices the path claimed that the smoothed curve left farther than `hold` from: marked
 * lost in the first trace (nothing pinned, the curve as before); in the second, for those no
 * guide held, the path vertex nearest each is pinned. Returns how many it pinned. */
static uint32_t curve_pin(const tracer* t, const float* pos, uint32_t count, float hold) {
    uint32_t pinned = 0, reach = t->def->smooth_passes + 1;
    for (uint32_t c = 0; c < t->claimed_count; ++c) {
        uint32_t v = t->claimed[c];
        if (t->repin && t->lost[v] != 2) continue;
        const float* p = pos + 3 * (size_t)v;
        uint32_t near = 0;
        float near_d = INFINITY;
        for (uint32_t i = 0; i < count; ++i) {
            float d = tl__dist2(p, pos + 3 * (size_t)t->path[count - 1 - i]);
            if (d < near_d) near_d = d, near = i;
        }
        /* the passes move a vertex along its `reach` neighbours: look there first */
        uint32_t lo = near > reach ? near - reach : 0;
        uint32_t hi = near + reach < count - 1 ? near + reach : count - 1;
        if (curve_near(t, p, lo, hi, hold) || curve_near(t, p, 0, count - 1, hold)) continue;
        if (!t->repin)
            t->lost[v] = 1;
        else if (!t->pinned[near])
            t->pinned[near] = 1, pinned++;
    }
    return pinned;
}

/* Smooths the path (root first, ends fixed) and resamples it by arc length into t->samples.
 * The passes average over a fixed number of vertices, so on a path of few, long segments they
 * cut across a bend by far more than on a dense one and lose the hair around it. In the second
 * trace, where hair the path claimed (within the spacing of it) is lost, the path vertex
 * nearest it is held and the passes run again. That vertex is within the spacing of the hair,
 * so this ends; every other path is smoothed as before. */
static uint32_t curve_of(const tracer* t, const float* pos, uint32_t count) {
    memset(t->pinned, 0, count);
    t->pinned[0] = t->pinned[count - 1] = 1; /* the ends stay anyway */
    float hold = t->def->coverage_mm * t->scale;
    do
        curve_smooth(t, pos, count);
    while (curve_pin(t, pos, count, hold));
    float length = 0;
    for (uint32_t i = 1; i < count; ++i)
        length += sqrtf(tl__dist2(t->curve + 3 * i, t->curve + 3 * (i - 1)));
    float step = t->def->sample_mm * t->scale;
    uint32_t samples = (uint32_t)ceilf(length / step) + 1;
    samples = samples < 2 ? 2 : samples > t->def->max_points ? t->def->max_points : samples;
    uint32_t seg = 0;
    float seg_start = 0;
    for (uint32_t s = 0; s < samples; ++s) {
        float at = length * (float)s / (float)(samples - 1);
        while (seg + 2 < count) {
            float l = sqrtf(tl__dist2(t->curve + 3 * (seg + 1), t->curve + 3 * seg));
            if (seg_start + l >= at) break;
            seg_start += l, seg++;
        }
        float l = sqrtf(tl__dist2(t->curve + 3 * (seg + 1), t->curve + 3 * seg));
        float f = l > 0 ? (at - seg_start) / l : 0;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        for (int k = 0; k < 3; ++k)
            t->samples[3 * s + k] =
                t->curve[3 * seg + k] + f * (t->curve[3 * (seg + 1) + k] - t->curve[3 * seg + k]);
    }
    return samples;
}

/* Whether a guide of the store from `first` on passes within `hold` of p. */
static bool guides_near(const hair_store* s, uint32_t first, const float* p, float hold) {
    for (uint32_t g = first; g < s->guide_count; ++g) {
        const float* q = s->points + 3 * (size_t)s->guides[g].first_point;
        for (uint32_t j = 0; j + 1 < s->guides[g].point_count; ++j)
            if (tl_mesh_segment_distance(p, q + 3 * j, q + 3 * (j + 1), NULL) <= hold) return true;
    }
    return false;
}

/* guides_near through a grid over the guides' points from `first` on: its cell the hold and the
 * longest segment, grown by 1%, so that every segment within hold of a vertex starts at a point
 * in the 27 cells around it; each point tests the segment it starts (the same arguments). The
 * answer is an "any", the same. */
typedef struct near_query {
    const hair_store* s;
    const uint32_t* point_guide; /* from the first guide's first point on */
    uint32_t first_point;
    const float* p;
    float hold;
    bool hit;
} near_query;

static bool near_visit(void* user, uint32_t id) {
    near_query* q = user;
    const tl_hair_guide* g = &q->s->guides[q->point_guide[id - q->first_point]];
    const float* a = q->s->points + 3 * (size_t)id;
    if (id + 1 < g->first_point + g->point_count &&
        tl_mesh_segment_distance(q->p, a, a + 3, NULL) <= q->hold)
        q->hit = true;
    return !q->hit;
}

/* Marks each lost vertex (lost[v] 1) 0 when a guide from `first` on passes within hold of it, 2
 * when none does; returns whether any is 2. Without memory or a grid, guides_near for each. */
static bool lost_unheld(const hair_store* s, uint32_t first, const float* pos, uint8_t* lost,
                        uint32_t count, float hold, bool grid_kept) {
    uint32_t p0 = first < s->guide_count ? s->guides[first].first_point : s->point_count;
    uint32_t n = s->point_count - p0;
    uint32_t* ids = grid_kept ? malloc(sizeof(uint32_t) * (n + 1)) : NULL;
    uint32_t* point_guide = grid_kept ? malloc(sizeof(uint32_t) * (n + 1)) : NULL;
    float longest = 0;
    for (uint32_t g = first; ids && point_guide && g < s->guide_count; ++g)
        for (uint32_t k = 0; k < s->guides[g].point_count; ++k) {
            uint32_t id = s->guides[g].first_point + k;
            ids[id - p0] = id, point_guide[id - p0] = g;
            if (k > 0)
                longest = fmaxf(longest, sqrtf(tl__dist2(s->points + 3 * (size_t)id,
                                                         s->points + 3 * (size_t)id - 3)));
        }
    hair_grid grid = {0};
    bool ok =
        ids && point_guide && hair_grid_build(&grid, s->points, ids, n, (hold + longest) * 1.01f);
    bool any = false;
    for (uint32_t v = 0; v < count; ++v) {
        if (!lost[v]) continue;
        const float* p = pos + 3 * (size_t)v;
        near_query q = {s, point_guide, p0, p, hold, false};
        if (ok)
            hair_grid_visit(&grid, p, near_visit, &q);
        else
            q.hit = guides_near(s, first, p, hold);
        lost[v] = q.hit ? 0 : 2;
        any |= lost[v] == 2;
    }
    hair_grid_free(&grid);
    free(ids), free(point_guide);
    return any;
}

/* The guides of component c. Returns false when out of memory; *excluded when it gave none. */
static bool trace_component(tracer* t, const welded* w, uint32_t c, const float up[3],
                            hair_store* store, bool* excluded) {
    uint32_t first = w->part_start[c], n = w->part_start[c + 1] - first;
    const float* pos = w->positions + 3 * (size_t)first;
    const uint32_t* offsets = w->offsets + first + c;
    const uint32_t* neighbors = w->neighbors + 2 * (size_t)w->edge_start[c];
    const float* lengths = w->lengths + 2 * (size_t)w->edge_start[c];
    uint32_t root = 0;
    for (uint32_t v = 1; v < n; ++v)
        if (tl__dot(pos + 3 * v, up) > tl__dot(pos + 3 * root, up)) root = v;
    tl_mesh_geodesic(t->from_root, offsets, neighbors, lengths, n, NULL, &root, 1, t->heap);
    t->lost = t->lost_all + first;
    memcpy(t->cover, t->from_root, n * sizeof(float));
    float spacing = t->def->spacing_mm * t->scale, min_length = t->def->min_length_mm * t->scale;
    uint32_t made = 0;
    while (made < t->def->max_guides_per_component) {
        uint32_t tip = 0;
        for (uint32_t v = 1; v < n; ++v)
            if (t->cover[v] > t->cover[tip]) tip = v;
        float reach = t->cover[tip];
        if (made == 0 ? !(t->from_root[tip] >= min_length) : !(reach > spacing)) break;
        if (!isfinite(t->from_root[tip])) break; /* cannot happen inside one component */
        uint32_t count = path_to(t, offsets, neighbors, lengths, n, tip, root);
        /* the minimum of the cover and the path's distance, visiting only what it claims */
        memcpy(t->before, t->cover, n * sizeof(float));
        tl_mesh_geodesic_lower(t->cover, offsets, neighbors, lengths, n, t->path, count, t->heap);
        t->claimed_count = 0;
        for (uint32_t v = 0; v < n; ++v)
            if (t->cover[v] < t->before[v] && t->cover[v] <= spacing)
                t->claimed[t->claimed_count++] = v;
        uint32_t samples = curve_of(t, pos, count);
        if (!hair_store_guide(store, t->samples, samples, c)) return false;
        made++;
    }
    *excluded = made == 0;
    return true;
}

tl_result hair_trace(const tl_hair_mesh* mesh, const tl_hair_def* def, float scale,
                     const float up[3], hair_store* store, uint32_t* component,
                     tl_hair_audit* audit, bool grid_kept, tl_error* err) {
    for (size_t i = 0; i < 3 * (size_t)mesh->triangle_count; ++i)
        if (mesh->triangles[i] >= mesh->vertex_count)
            return tl_error_set(err, TL_ERROR_INVALID,
                                "triangle %zu: vertex %u is past the mesh's %u vertices", i / 3,
                                mesh->triangles[i], mesh->vertex_count);
    welded w;
    TRY(welded_build(&w, mesh, def->weld_mm * scale, err));
    size_t n = w.largest ? w.largest : 1;
    tracer t = {def, scale};
    t.from_root = malloc(n * sizeof(float));
    t.cover = malloc(n * sizeof(float));
    t.heap = malloc(tl_mesh_geodesic_scratch_size(n));
    t.path = malloc(n * sizeof(uint32_t));
    t.curve = malloc(3 * n * sizeof(float));
    t.smooth = malloc(3 * n * sizeof(float));
    t.pinned = malloc(n);
    t.before = malloc(n * sizeof(float));
    t.claimed = malloc(n * sizeof(uint32_t));
    uint32_t ordered = w.part_start ? w.part_start[w.parts] : 0; /* entries of `order` */
    t.lost_all = calloc(ordered ? ordered : 1, 1);
    t.samples = malloc(3 * sizeof(float) * (def->max_points + 2));
    uint8_t* dropped = calloc(w.parts ? w.parts : 1, 1);
    bool ok = t.from_root && t.cover && t.heap && t.path && t.curve && t.smooth && t.pinned &&
              t.before && t.claimed && t.lost_all && t.samples && dropped;
    uint32_t guides0 = store->guide_count, points0 = store->point_count;
    for (uint32_t c = 0; ok && c < w.parts; ++c) {
        bool excluded = false;
        ok = trace_component(&t, &w, c, up, store, &excluded);
        dropped[c] = excluded;
    }
    /* hair a path's smoothed curve left and no guide holds (the coverage radius of any): trace
     * again, the same paths, pinning for that hair alone; without such hair, as before */
    bool any = ok && lost_unheld(store, guides0, w.positions, t.lost_all, ordered,
                                 def->coverage_mm * scale, grid_kept);
    if (ok && any) {
        store->guide_count = guides0, store->point_count = points0;
        t.repin = true;
        for (uint32_t c = 0; ok && c < w.parts; ++c) {
            bool excluded = false;
            ok = trace_component(&t, &w, c, up, store, &excluded);
            dropped[c] = excluded;
        }
    }
    if (ok) {
        audit->components = w.parts;
        audit->excluded_vertices = 0;
        for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
            uint32_t part = w.part[w.remap[v]];
            component[v] = part != UINT32_MAX && !dropped[part] ? part : UINT32_MAX;
            audit->excluded_vertices += component[v] == UINT32_MAX;
        }
    }
    free(t.from_root), free(t.cover), free(t.heap), free(t.path);
    free(t.curve), free(t.smooth), free(t.pinned), free(t.before), free(t.claimed);
    free(t.lost_all), free(t.samples), free(dropped);
    welded_free(&w);
    return ok ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
}
