/* The guide layer (hair.md §6): the attached guides of a rigged style written beside the visible
 * mesh as one skinned line primitive with the same skin weights, so an engine that grows strands
 * along guides (or a reviewer) gets curves that move with the hair. */
#include "internal.h"

#include "base/try.h"

#include <stdlib.h>
#include <string.h>

/* Influences gathered over a triangle's vertices: summed per joint, the four largest kept. */
#define LAYER_MAX_INFLUENCES 48
/* The seed's triangles whose distance the visit reuses (a vertex's first ones). */
#define LAYER_SEED_KEPT 16

typedef struct nearest_query {
    const float* positions;
    const float* p;
    uint32_t best;
    float best_d2;
} nearest_query;

static bool nearest_visit(void* user, uint32_t id) {
    nearest_query* q = user;
    float d2 = tl__dist2(q->positions + 3 * (size_t)id, q->p);
    if (d2 < q->best_d2) q->best_d2 = d2, q->best = id;
    return true;
}

/* The hair vertex nearest to p: the grid's cells around it, else every vertex. */
static uint32_t nearest_vertex(const hair_grid* g, const tl_hair_mesh* mesh, const float p[3]) {
    nearest_query q = {mesh->positions, p, UINT32_MAX, INFINITY};
    hair_grid_visit(g, p, nearest_visit, &q);
    for (uint32_t v = 0; q.best == UINT32_MAX && v < mesh->vertex_count; ++v)
        nearest_visit(&q, v);
    return q.best;
}

/* The four largest of the summed influences of vertices vs (skin-union indices) at weights w,
 * renormalised. */
static void blend_weights(const tl_scene_skin* sk, const uint32_t vs[3], const float w[3],
                          uint16_t joints[4], float weights[4]) {
    uint32_t joint[LAYER_MAX_INFLUENCES];
    float sum[LAYER_MAX_INFLUENCES];
    uint32_t n = 0, per = sk->influence_count < 16 ? sk->influence_count : 16;
    for (int k = 0; k < 3; ++k)
        for (uint32_t i = 0; i < per; ++i) {
            size_t at = (size_t)vs[k] * sk->influence_count + i;
            float x = w[k] * sk->influence_weights[at];
            if (!(x > 0)) continue;
            uint32_t j = 0;
            while (j < n && joint[j] != sk->influence_joints[at])
                j++;
            if (j == n) joint[n] = sk->influence_joints[at], sum[n++] = 0;
            sum[j] += x;
        }
    float total = 0;
    for (int slot = 0; slot < 4; ++slot) {
        uint32_t best = UINT32_MAX;
        for (uint32_t j = 0; j < n; ++j)
            if (sum[j] > 0 && (best == UINT32_MAX || sum[j] > sum[best])) best = j;
        joints[slot] = best == UINT32_MAX ? 0 : (uint16_t)joint[best];
        weights[slot] = best == UINT32_MAX ? 0 : sum[best];
        total += weights[slot];
        if (best != UINT32_MAX) sum[best] = 0;
    }
    if (!(total > 0)) { /* no influence at all: the skin's head (the hair's frame) */
        joints[0] = (uint16_t)sk->body.head, weights[0] = 1, total = 1;
    }
    for (int slot = 0; slot < 4; ++slot)
        weights[slot] /= total;
}

/* Vertex → triangles of the hair mesh (CSR). */
static bool vertex_triangles(const tl_hair_mesh* mesh, uint32_t** start, uint32_t** items) {
    *start = calloc((size_t)mesh->vertex_count + 1, sizeof(uint32_t));
    *items = malloc(3 * sizeof(uint32_t) * ((size_t)mesh->triangle_count + 1));
    uint32_t* fill = malloc(sizeof(uint32_t) * ((size_t)mesh->vertex_count + 1));
    if (!*start || !*items || !fill) return free(fill), false;
    for (size_t i = 0; i < 3 * (size_t)mesh->triangle_count; ++i)
        (*start)[mesh->triangles[i] + 1]++;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        (*start)[v + 1] += (*start)[v];
    memcpy(fill, *start, sizeof(uint32_t) * mesh->vertex_count);
    for (size_t i = 0; i < 3 * (size_t)mesh->triangle_count; ++i)
        (*items)[fill[mesh->triangles[i]]++] = (uint32_t)(i / 3);
    free(fill);
    return true;
}

/* The closest point of the hair surface to a query: over the triangles of the vertices in the
 * grid cells around it (locks lying over each other: the nearest vertex may be another lock's). */
typedef struct closest_query {
    const tl_hair_mesh* mesh;
    const uint32_t *start, *items;
    const float* p;
    float best;
    uint32_t triangle;
    float bary[3];
    uint32_t* tested; /* per triangle: mark when this query tested it, mark + 1 when the seed did */
    uint32_t mark;
    const float* sphere; /* per triangle: centre xyz and radius */
    const float* pad;    /* per vertex: its longest edge and the rounding slack, see vertex_pads */
    double lim;          /* the best's distance (its square root, kept to spare one a test) */
    double slack;        /* 1e-5 of the query's |x| + |y| + |z|: rounding at its size */
    bool seeded;         /* best is closest_seed's bound, no triangle taken yet */
    uint32_t seed_count; /* the seed's triangles, their distances and barycentrics */
    uint32_t seed_tri[LAYER_SEED_KEPT];
    float seed_d2[LAYER_SEED_KEPT], seed_bary[LAYER_SEED_KEPT][3];
} closest_query;

/* Whether triangle t lies surely farther than the best so far: its sphere's distance, less a
 * slack 100 times the float rounding of coordinates this large, beyond the best's. Only those
 * are skipped, so the triangle taken is the one the full test takes. */
static bool closest_beyond(const closest_query* q, uint32_t t) {
    const float* c = q->sphere + 4 * (size_t)t;
    double d2 = 0, size = c[3];
    for (int k = 0; k < 3; ++k) {
        double d = (double)q->p[k] - c[k];
        d2 += d * d;
        size += fabs((double)c[k]);
    }
    double reach = q->lim + c[3] + 1e-5 * size + q->slack; /* infinite until a best */
    return d2 > reach * reach;
}

/* Per vertex: its longest edge (its triangles lie within it) and the slack of closest_beyond
 * for its coordinates, so that a vertex farther than the best's distance, its pad and the
 * query's slack has only triangles closest_beyond would skip (rounded up by 1e-5 each). */
static void vertex_pads(const tl_hair_mesh* mesh, float* pad) {
    for (size_t i = 0; i < 3 * (size_t)mesh->triangle_count; ++i) {
        uint32_t a = mesh->triangles[i], b = mesh->triangles[i % 3 == 2 ? i - 2 : i + 1];
        float e =
            sqrtf(tl__dist2(mesh->positions + 3 * (size_t)a, mesh->positions + 3 * (size_t)b)) *
            (1 + 1e-5f);
        pad[a] = fmaxf(pad[a], e), pad[b] = fmaxf(pad[b], e);
    }
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        const float* c = mesh->positions + 3 * (size_t)v;
        double size = fabs((double)c[0]) + fabs((double)c[1]) + fabs((double)c[2]);
        pad[v] = (float)((pad[v] + 2e-5 * (size + pad[v])) * (1 + 1e-5));
    }
}

static bool closest_visit(void* user, uint32_t v) {
    closest_query* q = user;
    if (q->best < INFINITY) { /* v's triangles all surely beyond the best: skipped unmarked */
        const float* c = q->mesh->positions + 3 * (size_t)v;
        double d2 = 0, r = q->lim + q->pad[v] + 2 * q->slack;
        for (int k = 0; k < 3; ++k)
            d2 += ((double)q->p[k] - c[k]) * ((double)q->p[k] - c[k]);
        if (d2 > r * r) return true;
    }
    for (uint32_t i = q->start[v]; i < q->start[v + 1]; ++i) {
        /* a triangle met again through another of its vertices gives the same distance, which
           the strict test below would not take: skipped */
        uint32_t was = q->tested[q->items[i]];
        if (was == q->mark) continue;
        q->tested[q->items[i]] = q->mark; /* the best only shrinks: skipped now, skipped then */
        float bary[3], d2;
        if (was == q->mark + 1) { /* the seed's: its distance, the same the test gives */
            uint32_t k = 0;
            while (q->seed_tri[k] != q->items[i])
                k++;
            d2 = q->seed_d2[k];
            memcpy(bary, q->seed_bary[k], sizeof bary);
        } else {
            if (closest_beyond(q, q->items[i])) continue; /* skips only d2 > best: not taken */
            const uint32_t* t = q->mesh->triangles + 3 * (size_t)q->items[i];
            d2 = tl_mesh_triangle_nearest(q->p, q->mesh->positions + 3 * (size_t)t[0],
                                          q->mesh->positions + 3 * (size_t)t[1],
                                          q->mesh->positions + 3 * (size_t)t[2], bary);
        }
        /* of equals the first in the visit: the one taken strictly below an infinite start */
        bool first = q->seeded && q->triangle == UINT32_MAX && d2 == q->best;
        if (!(d2 < q->best) && !first) continue;
        q->best = d2, q->triangle = q->items[i];
        q->lim = sqrt((double)d2);
        memcpy(q->bary, bary, sizeof bary);
    }
    return true;
}

/* A bound on the best before the visit, so that its tests skip from the start: the distance to
 * the triangles of the vertex nearest p in p's own cell, or when it has none in the 27 cells
 * around it (candidates of the visit, so no nearer than its closest). The visit then takes the
 * first triangle in its order whose distance is the least, as from an infinite start; the first
 * LAYER_SEED_KEPT of them are marked mark + 1 and their distances kept, so the visit does not test
 * them again. */
static void closest_seed(closest_query* q, const hair_grid* g) {
    uint32_t c[3], near = UINT32_MAX;
    if (!g->start || !hair_grid_range(g, q->p, q->p, c, c)) return;
    for (int k = 0; k < 3; ++k) /* the visit's own cell, unclamped */
        if (floorf((q->p[k] - g->origin[k]) / g->cell) != (float)c[k]) return;
    size_t cell = hair_grid_cell(g, c[0], c[1], c[2]);
    float nd2 = INFINITY;
    for (uint32_t i = g->start[cell]; i < g->start[cell + 1]; ++i) {
        float d2 = tl__dist2(q->mesh->positions + 3 * (size_t)g->items[i], q->p);
        if (d2 < nd2) nd2 = d2, near = g->items[i];
    }
    if (near == UINT32_MAX) { /* an empty cell: the nearest vertex in the 27 around it */
        nearest_query nq = {q->mesh->positions, q->p, UINT32_MAX, INFINITY};
        hair_grid_visit(g, q->p, nearest_visit, &nq);
        near = nq.best;
    }
    float best = INFINITY, bary[3];
    for (uint32_t i = near == UINT32_MAX ? 0 : q->start[near];
         near != UINT32_MAX && i < q->start[near + 1]; ++i) {
        const uint32_t* t = q->mesh->triangles + 3 * (size_t)q->items[i];
        float d2 = tl_mesh_triangle_nearest(q->p, q->mesh->positions + 3 * (size_t)t[0],
                                            q->mesh->positions + 3 * (size_t)t[1],
                                            q->mesh->positions + 3 * (size_t)t[2], bary);
        best = d2 < best ? d2 : best;
        if (q->seed_count == LAYER_SEED_KEPT) continue;
        uint32_t k = q->seed_count++;
        q->seed_tri[k] = q->items[i], q->seed_d2[k] = d2;
        memcpy(q->seed_bary[k], bary, sizeof bary);
        q->tested[q->items[i]] = q->mark + 1;
    }
    if (!(best < INFINITY)) return;
    q->best = best, q->lim = sqrt((double)best), q->seeded = true;
}

/* The visit's key of triangle t, whose distance ties another's: the visit (hair_grid_visit over
 * the 27 cells around cell c, each cell's vertices ascending, each vertex's triangles ascending)
 * meets it first through the earliest of its vertices in those cells, and takes the first of
 * equals. Returns that vertex's cell index (the visit's cell order) and sets *vertex. */
static size_t visit_key(const closest_query* q, const hair_grid* g, const int64_t c[3],
                        const uint32_t* vcell, uint32_t t, uint32_t* vertex) {
    size_t best = SIZE_MAX;
    *vertex = UINT32_MAX;
    for (int i = 0; i < 3; ++i) {
        uint32_t v = q->mesh->triangles[3 * (size_t)t + i];
        const uint32_t* vc = vcell + 3 * (size_t)v;
        bool in = true;
        for (int k = 0; k < 3; ++k)
            in = in && (int64_t)vc[k] >= c[k] - 1 && (int64_t)vc[k] <= c[k] + 1;
        if (!in) continue;
        size_t at = hair_grid_cell(g, vc[0], vc[1], vc[2]);
        if (at < best || (at == best && v < *vertex)) best = at, *vertex = v;
    }
    return best;
}

/* What the visit finds, from the seed's bound on: the triangles that have a vertex in the 27
 * cells around p (the visit's candidates) and lie within the seed's distance, found through a
 * grid over the triangles' boxes; the least distance, ties to the triangle the visit meets
 * first (visit_key, then the lower index). The seed's best is a candidate's distance, so
 * every triangle the visit could take lies within it (the box is widened by 1e-4 of it and the
 * query's slack against rounding). */
static void closest_triangles(closest_query* q, const hair_grid* g, const hair_grid* tg,
                              const float* boxes, const uint32_t* vcell) {
    int64_t c[3];
    for (int k = 0; k < 3; ++k)
        c[k] = (int64_t)floorf((q->p[k] - g->origin[k]) / g->cell);
    double reach = q->lim * (1 + 1e-4) + 4 * q->slack;
    float lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        lo[k] = (float)(q->p[k] - reach), hi[k] = (float)(q->p[k] + reach);
    uint32_t l[3], h[3], key_vertex = UINT32_MAX;
    size_t key_cell = SIZE_MAX;
    if (!hair_grid_range(tg, lo, hi, l, h)) return;
    for (uint32_t z = l[2]; z <= h[2]; ++z)
        for (uint32_t y = l[1]; y <= h[1]; ++y)
            for (uint32_t x = l[0]; x <= h[0]; ++x) {
                size_t cell = hair_grid_cell(tg, x, y, z);
                for (uint32_t i = tg->start[cell]; i < tg->start[cell + 1]; ++i) {
                    uint32_t t = tg->items[i], was = q->tested[t];
                    if (was == q->mark) continue;
                    q->tested[t] = q->mark;
                    const float* b = boxes + 6 * (size_t)t;
                    int apart = 0; /* (no branch per axis: they mispredict) */
                    for (int k = 0; k < 3; ++k)
                        apart |= (b[k] > hi[k]) | (b[3 + k] < lo[k]);
                    if (apart) continue; /* farther than the reach on one axis */
                    float bary[3], d2;
                    if (was == q->mark + 1) {
                        uint32_t k = 0;
                        while (q->seed_tri[k] != t)
                            k++;
                        d2 = q->seed_d2[k];
                        memcpy(bary, q->seed_bary[k], sizeof bary);
                    } else {
                        if (closest_beyond(q, t)) continue;
                        const uint32_t* tri = q->mesh->triangles + 3 * (size_t)t;
                        d2 =
                            tl_mesh_triangle_nearest(q->p, q->mesh->positions + 3 * (size_t)tri[0],
                                                     q->mesh->positions + 3 * (size_t)tri[1],
                                                     q->mesh->positions + 3 * (size_t)tri[2], bary);
                    }
                    /* the visit's key only for a triangle that could be taken or tie: one
                       farther is not taken whether a candidate or not */
                    if (!(d2 <= q->best)) continue;
                    uint32_t vertex;
                    size_t at = visit_key(q, g, c, vcell, t, &vertex);
                    if (at == SIZE_MAX) continue; /* not one of the visit's candidates */
                    bool tie = d2 == q->best &&
                               (q->triangle == UINT32_MAX || at < key_cell ||
                                (at == key_cell && (vertex < key_vertex ||
                                                    (vertex == key_vertex && t < q->triangle))));
                    if (!(d2 < q->best) && !tie) continue;
                    q->best = d2, q->triangle = t, key_cell = at, key_vertex = vertex;
                    q->lim = sqrt((double)d2);
                    memcpy(q->bary, bary, sizeof bary);
                }
            }
}

/* The triangles' grid of closest_triangles: each triangle's box (6 floats in boxes), filed in
 * cells of half the boxes' mean largest side (a query's reach box reads fewer items than in
 * cells of the whole side; 16 cells a triangle at most, the cell grown past that); and each
 * vertex's cell in the vertex grid g (3 per vertex, read from g's lists). False: out of memory or
 * no grid (the visit alone then). */
static bool triangle_grid(const tl_hair_mesh* mesh, const hair_grid* g, hair_grid* tg, float* boxes,
                          uint32_t* vcell) {
    double side = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        const uint32_t* tri = mesh->triangles + 3 * (size_t)t;
        float* b = boxes + 6 * (size_t)t;
        float most = 0;
        for (int k = 0; k < 3; ++k) {
            float x = mesh->positions[3 * (size_t)tri[0] + k],
                  y = mesh->positions[3 * (size_t)tri[1] + k],
                  z = mesh->positions[3 * (size_t)tri[2] + k];
            b[k] = fminf(x, fminf(y, z)), b[3 + k] = fmaxf(x, fmaxf(y, z));
            most = fmaxf(most, b[3 + k] - b[k]);
        }
        side += most;
    }
    float cell = 0.5f * (float)(side / (mesh->triangle_count ? mesh->triangle_count : 1));
    if (!g->start || !(cell > 0) || !isfinite(cell) || mesh->triangle_count == 0) return false;
    for (uint32_t z = 0; z < g->dims[2]; ++z)
        for (uint32_t y = 0; y < g->dims[1]; ++y)
            for (uint32_t x = 0; x < g->dims[0]; ++x) {
                size_t at = hair_grid_cell(g, x, y, z);
                for (uint32_t i = g->start[at]; i < g->start[at + 1]; ++i) {
                    uint32_t* vc = vcell + 3 * (size_t)g->items[i];
                    vc[0] = x, vc[1] = y, vc[2] = z;
                }
            }
    return hair_grid_build_boxes(tg, boxes, NULL, mesh->triangle_count, cell,
                                 16 * (size_t)mesh->triangle_count + 64);
}

/* What the closest-point queries read: the hair mesh's vertex → triangles lists, per-triangle
 * marks and spheres, per-vertex pads, the vertex grid and the triangle grid (tgrid.start NULL:
 * the visit alone). */
typedef struct layer_index {
    const tl_hair_mesh* mesh;
    uint32_t *start, *items, *tested, *vcell;
    float *sphere, *pad, *boxes;
    hair_grid grid, tgrid;
} layer_index;

static void layer_index_free(layer_index* li) {
    hair_grid_free(&li->grid);
    hair_grid_free(&li->tgrid);
    free(li->start), free(li->items), free(li->tested), free(li->vcell), free(li->sphere),
        free(li->pad), free(li->boxes);
}

/* False: out of memory. */
static bool layer_index_build(layer_index* li, const tl_hair_mesh* mesh, float cell,
                              bool triangles) {
    *li = (layer_index){.mesh = mesh};
    size_t V = (size_t)mesh->vertex_count + 1, T = (size_t)mesh->triangle_count + 1;
    uint32_t* ids = malloc(sizeof(uint32_t) * V);
    li->tested = calloc(T, sizeof(uint32_t));
    li->sphere = malloc(4 * sizeof(float) * T);
    li->pad = calloc(V, sizeof(float));
    li->boxes = malloc(6 * sizeof(float) * T);
    li->vcell = malloc(3 * sizeof(uint32_t) * V);
    bool ok = ids && li->tested && li->sphere && li->pad && li->boxes && li->vcell;
    if (ok) vertex_pads(mesh, li->pad);
    for (uint32_t t = 0; ok && t < mesh->triangle_count; ++t) {
        const uint32_t* tri = mesh->triangles + 3 * (size_t)t;
        float* c = li->sphere + 4 * (size_t)t;
        for (int k = 0; k < 3; ++k)
            c[k] =
                (mesh->positions[3 * (size_t)tri[0] + k] + mesh->positions[3 * (size_t)tri[1] + k] +
                 mesh->positions[3 * (size_t)tri[2] + k]) /
                3;
        float r2 = 0;
        for (int k = 0; k < 3; ++k) {
            float d2 = tl__dist2(c, mesh->positions + 3 * (size_t)tri[k]);
            r2 = d2 > r2 ? d2 : r2;
        }
        c[3] = sqrtf(r2) * (1 + 1e-5f); /* rounded up: it bounds the vertices */
    }
    for (uint32_t v = 0; ids && v < mesh->vertex_count; ++v)
        ids[v] = v;
    ok = ok && vertex_triangles(mesh, &li->start, &li->items) &&
         hair_grid_build(&li->grid, mesh->positions, ids, mesh->vertex_count, cell);
    if (ok && (!triangles || !triangle_grid(mesh, &li->grid, &li->tgrid, li->boxes, li->vcell)))
        li->tgrid = (hair_grid){0}; /* the visit alone, as it finds the same */
    free(ids);
    return ok;
}

/* A tighter bound from triangle `hint` (the previous query's, a guide's next point lying near
 * it): its distance when it is one of the visit's candidates and nearer than the seed's. The
 * bound stays a candidate's distance, so closest_triangles takes what it took from the seed's
 * (the hint is left unmarked: the scan tests it again and weighs its tie by its key). */
static void closest_hint(closest_query* q, const hair_grid* g, const uint32_t* vcell,
                         uint32_t hint) {
    if (hint >= q->mesh->triangle_count || q->tested[hint] == q->mark + 1) return;
    const uint32_t* t = q->mesh->triangles + 3 * (size_t)hint;
    float bary[3];
    float d2 = tl_mesh_triangle_nearest(q->p, q->mesh->positions + 3 * (size_t)t[0],
                                        q->mesh->positions + 3 * (size_t)t[1],
                                        q->mesh->positions + 3 * (size_t)t[2], bary);
    if (!(d2 < q->best)) return;
    int64_t c[3];
    for (int k = 0; k < 3; ++k)
        c[k] = (int64_t)floorf((q->p[k] - g->origin[k]) / g->cell);
    uint32_t vertex;
    if (visit_key(q, g, c, vcell, hint, &vertex) == SIZE_MAX) return;
    q->best = d2, q->lim = sqrt((double)d2);
}

/* The closest point of the hair surface to p: its triangle and barycentrics in q, or, when no
 * vertex is in the cells around p, q->triangle UINT32_MAX and the nearest vertex returned.
 * `mark` is new per query and at least 2 (the seed marks mark + 1); `hint` a triangle likely
 * near p (UINT32_MAX: none), which only narrows the search. */
static uint32_t layer_closest(layer_index* li, const float p[3], uint32_t mark, uint32_t hint,
                              closest_query* q) {
    double size = fabs((double)p[0]) + fabs((double)p[1]) + fabs((double)p[2]);
    *q = (closest_query){li->mesh,   li->start, li->items,   p,     INFINITY,
                         UINT32_MAX, {1, 0, 0}, li->tested,  mark,  li->sphere,
                         li->pad,    INFINITY,  1e-5 * size, false, 0};
    closest_seed(q, &li->grid);
    if (q->seeded && li->tgrid.start) {
        closest_hint(q, &li->grid, li->vcell, hint);
        closest_triangles(q, &li->grid, &li->tgrid, li->boxes, li->vcell);
    } else
        hair_grid_visit(&li->grid, p, closest_visit, q);
    uint32_t v = UINT32_MAX;
    if (q->triangle == UINT32_MAX) {
        v = nearest_vertex(&li->grid, li->mesh, p);
        closest_visit(q, v);
    }
    return v;
}

/* The skin weights at p: blended over the closest point of the hair surface (the weights the
 * visible mesh has there); when no vertex is in the cells around p, the triangles around the
 * nearest vertex. */
static void weights_at(const tl_scene_skin* sk, layer_index* li, const uint32_t* uidx,
                       uint32_t mark, const float p[3], uint32_t* hint, uint16_t joints[4],
                       float weights[4]) {
    closest_query q;
    uint32_t v = layer_closest(li, p, mark, *hint, &q);
    *hint = q.triangle;
    const tl_hair_mesh* mesh = li->mesh;
    uint32_t vs[3];
    float w[3] = {1, 0, 0};
    for (int k = 0; k < 3; ++k) {
        vs[k] =
            q.triangle == UINT32_MAX ? uidx[v] : uidx[mesh->triangles[3 * (size_t)q.triangle + k]];
        if (q.triangle != UINT32_MAX) w[k] = q.bary[k];
    }
    blend_weights(sk, vs, w, joints, weights);
}

bool hair_layer_closest(const tl_hair_mesh* mesh, float cell, const float* points, uint32_t count,
                        bool triangles, uint32_t* out) {
    layer_index li;
    bool ok = layer_index_build(&li, mesh, cell, triangles);
    for (uint32_t i = 0, hint = UINT32_MAX; ok && i < count; ++i) {
        closest_query q;
        uint32_t v = layer_closest(&li, points + 3 * (size_t)i, 2 * i + 2, hint, &q);
        hint = q.triangle;
        out[i] = q.triangle != UINT32_MAX ? q.triangle : v == UINT32_MAX ? UINT32_MAX : ~v;
    }
    layer_index_free(&li);
    return ok;
}

/* The line primitive's data: every attached guide's points, a segment between consecutive ones. */
static tl_result layer_write(tl_gltf* doc, const tl_scene_skin* sk, const tl_hair_mesh* mesh,
                             const uint32_t* uidx, const tl_hair_guides* g, float cell,
                             uint32_t* written, tl_error* err) {
    uint32_t points = 0, segments = 0;
    for (uint32_t i = 0; i < g->guide_count; ++i)
        if (g->guides[i].reason == TL_HAIR_REJECT_NONE) {
            points += g->guides[i].point_count;
            segments += g->guides[i].point_count - 1;
            (*written)++;
        }
    if (*written == 0) return TL_OK;
    float* pos = malloc(3 * sizeof(float) * points);
    uint16_t* joints = malloc(4 * sizeof(uint16_t) * points);
    float* weights = malloc(4 * sizeof(float) * points);
    uint32_t* lines = malloc(2 * sizeof(uint32_t) * segments);
    layer_index li;
    tl_result r = TL_OK;
    if (!layer_index_build(&li, mesh, cell, true) || !pos || !joints || !weights || !lines)
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint32_t n = 0, s = 0, hint = UINT32_MAX;
    for (uint32_t i = 0; r == TL_OK && i < g->guide_count; ++i) {
        const tl_hair_guide* gd = &g->guides[i];
        if (gd->reason != TL_HAIR_REJECT_NONE) continue;
        for (uint32_t k = 0; k < gd->point_count; ++k, ++n) {
            memcpy(pos + 3 * (size_t)n, g->points + 3 * (size_t)(gd->first_point + k),
                   3 * sizeof(float));
            /* marks 2n + 2 and 2n + 3 (the seed's): never the calloc's 0, new per query */
            weights_at(sk, &li, uidx, 2 * n + 2, pos + 3 * (size_t)n, &hint, joints + 4 * (size_t)n,
                       weights + 4 * (size_t)n);
            if (k > 0) lines[s++] = n - 1, lines[s++] = n;
        }
    }
    if (r == TL_OK)
        r = hair_mesh_add(doc, sk, "hair_guides", pos, points, joints, weights, lines, s, 1, err);
    layer_index_free(&li);
    free(pos), free(joints), free(weights), free(lines);
    return r;
}

tl_result tl_hair_guide_layer_add_guides(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                         const tl_hair_guides* given, uint32_t* guides_written,
                                         tl_error* err) {
    return hair_guide_layer_add(doc, scene, skin, given, NULL, guides_written, err);
}

tl_result hair_guide_layer_add(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                               const tl_hair_guides* given, const uint8_t* hair,
                               uint32_t* guides_written, tl_error* err) {
    assert(doc && scene && scene->doc == doc && skin < scene->skin_count && guides_written);
    *guides_written = 0;
    const tl_scene_skin* sk = &scene->skins[skin];
    if (sk->body.head == TL_NONE || !(sk->height > 0)) return TL_OK;
    if (sk->joint_count > UINT16_MAX)
        return tl_error_set(err, TL_ERROR_LIMIT, "%s: skin %u: %u joints, more than JOINTS_0 holds",
                            doc->path, skin, sk->joint_count);
    uint8_t* flags = malloc(sk->primitive_count + 1);
    if (!flags) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint32_t found = 0;
    if (hair) /* (the caller's, found on this scene) */
        for (uint32_t p = 0; p < sk->primitive_count; ++p)
            flags[p] = hair[p], found += hair[p] != 0;
    else
        found = tl_hair_find_primitives(scene, skin, flags);
    if (found == 0) return free(flags), TL_OK;
    tl_hair_mesh mesh = {0};
    uint32_t* uidx = NULL;
    tl_hair_scalp* scalp = NULL;
    tl_hair_guides* guides = NULL;
    tl_hair_def def = tl_default_hair_def();
    tl_result r = hair_skin_mesh(scene, skin, flags, &mesh, &uidx, err);
    float cell = def.coverage_mm * sk->height / TL_HAIR_HUMAN_MM;
    if (r == TL_OK && given) {
        r = layer_write(doc, sk, &mesh, uidx, given, cell, guides_written, err);
    } else if (r == TL_OK && tl_hair_scalp_find(scene, skin, &def, flags, &scalp, NULL) == TL_OK) {
        /* a skin whose scalp cannot be found has no guides to write (as in the rig's hair step) */
        r = tl_hair_guides_create(&mesh, scalp, &def, &guides, err);
        if (r == TL_OK) r = layer_write(doc, sk, &mesh, uidx, guides, cell, guides_written, err);
    }
    tl_hair_guides_destroy(guides);
    tl_hair_scalp_destroy(scalp);
    tl_hair_mesh_free(&mesh);
    free(uidx);
    free(flags);
    return r;
}

tl_result tl_hair_guide_layer_add(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                  uint32_t* guides_written, tl_error* err) {
    return tl_hair_guide_layer_add_guides(doc, scene, skin, NULL, guides_written, err);
}
