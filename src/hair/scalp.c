/* The scalp (hair.md §1): the head-dominated skin on the top and back of the head, and the
 * binding of roots to its triangles (§3). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct scalp_storage {
    tl_hair_scalp scalp;
    uint32_t* triangles;
    float* sphere;  /* per triangle: centre xyz and radius, to skip far triangles */
    hair_grid grid; /* each triangle filed in the cells of its sphere's box; none: scans */
} scalp_storage;

void tl_hair_scalp_destroy(tl_hair_scalp* scalp) {
    if (!scalp) return;
    scalp_storage* s = (scalp_storage*)scalp;
    tl_hair_scalp_destroy((tl_hair_scalp*)scalp->head);
    free(s->triangles);
    free(s->sphere);
    hair_grid_free(&s->grid);
    free(s);
}

/* Files each triangle in the cells of its sphere's box (cells four times the mean radius or
 * more, about one per triangle: a query reads the triangles around it, not all of them; the
 * adapter asks for every hair vertex and every point of every lock). The queries reach a cap's
 * depth, several triangles wide: at twice the mean radius most of the cells they read were
 * empty (plan bob01 65.5 -> 61.8 ms; a triangle read but beyond the query's box is skipped by
 * its sphere, so the cell changes no result). Without memory or with degenerate spheres it
 * leaves no grid: the queries then scan every triangle, as they would anyway. */
static void scalp_grid_build(hair_grid* g, const float* sphere, uint32_t count) {
    *g = (hair_grid){0};
    double radius = 0;
    float* box = malloc(6 * sizeof(float) * (count ? count : 1));
    if (!box) return;
    for (uint32_t t = 0; t < count; ++t) {
        const float* c = sphere + 4 * (size_t)t;
        for (int k = 0; k < 3; ++k)
            box[6 * (size_t)t + k] = c[k] - c[3], box[6 * (size_t)t + 3 + k] = c[k] + c[3];
        radius += c[3];
    }
    float cell = (float)(4 * radius / (count ? count : 1));
    /* the build leaves no grid when the boxes' bounds are not finite */
    if (count > 0 && cell > 0 && isfinite(cell))
        hair_grid_build_boxes(g, box, NULL, count, cell, (size_t)count + 64);
    free(box);
}

static const float* vertex(const tl_hair_scalp* scalp, uint32_t v) {
    return scalp->positions + 3 * (size_t)v;
}

/* Wraps `count` triangles (copied) as a scalp with its bounding spheres. */
static tl_result scalp_make(const tl_scene* scene, uint32_t skin, const uint32_t* tris,
                            uint32_t count, tl_hair_scalp** out, tl_error* err) {
    scalp_storage* s = calloc(1, sizeof *s);
    if (s) s->triangles = malloc(3 * sizeof(uint32_t) * (count ? count : 1));
    if (s) s->sphere = malloc(4 * sizeof(float) * (count ? count : 1));
    if (!s || !s->triangles || !s->sphere) {
        tl_hair_scalp_destroy(s ? &s->scalp : NULL);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    memcpy(s->triangles, tris, 3 * sizeof(uint32_t) * count);
    const tl_scene_skin* sk = &scene->skins[skin];
    s->scalp =
        (tl_hair_scalp){scene, skin, count, s->triangles, sk->rest_positions, sk->height, NULL, s};
    for (uint32_t t = 0; t < count; ++t) {
        float* c = s->sphere + 4 * (size_t)t;
        for (int k = 0; k < 3; ++k)
            c[k] = (vertex(&s->scalp, tris[3 * t])[k] + vertex(&s->scalp, tris[3 * t + 1])[k] +
                    vertex(&s->scalp, tris[3 * t + 2])[k]) /
                   3;
        float r2 = 0;
        for (int k = 0; k < 3; ++k) {
            float d2 = tl__dist2(c, vertex(&s->scalp, tris[3 * t + k]));
            r2 = d2 > r2 ? d2 : r2;
        }
        c[3] = sqrtf(r2);
    }
    scalp_grid_build(&s->grid, s->sphere, count);
    *out = &s->scalp;
    return TL_OK;
}

/* The whole head skin (every triangle whose three vertices are dominated by the head or a joint
 * below it, primitives with exclude[p] left out), for the adapter's cap and the guides' scale. */
static tl_result head_skin_of(const tl_scene* scene, uint32_t skin, const uint8_t* exclude,
                              tl_hair_scalp** out, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* in_head = malloc(sk->joint_count ? sk->joint_count : 1);
    uint8_t* head_vertex = calloc(sk->vertex_count ? sk->vertex_count : 1, 1);
    uint32_t* tris = malloc(3 * sizeof(uint32_t) * (sk->triangle_count ? sk->triangle_count : 1));
    tl_result r = TL_OK;
    *out = NULL;
    if (!in_head || !head_vertex || !tris) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK && hair_head_joints(sk, in_head)) {
        for (uint32_t p = 0; p < sk->primitive_count; ++p) {
            if (exclude && exclude[p]) continue;
            const tl_scene_primitive* prim = &sk->primitives[p];
            for (uint32_t v = prim->first_vertex; v < prim->first_vertex + prim->vertex_count; ++v)
                head_vertex[v] = in_head[tl_scene_skin_dominant_joint(sk, v)];
        }
        uint32_t all = 0;
        for (uint32_t t = 0; t < sk->triangle_count; ++t) {
            const uint32_t* tri = sk->triangles + 3 * (size_t)t;
            if (head_vertex[tri[0]] && head_vertex[tri[1]] && head_vertex[tri[2]])
                memcpy(tris + 3 * all++, tri, 3 * sizeof(uint32_t));
        }
        if (all) r = scalp_make(scene, skin, tris, all, out, err);
    }
    free(in_head), free(head_vertex), free(tris);
    return r;
}

tl_result tl_hair_scalp_from_mask(const tl_scene* scene, uint32_t skin, const uint8_t* mask,
                                  tl_hair_scalp** out, tl_error* err) {
    assert(scene && mask && out && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    uint32_t* tris = malloc(3 * sizeof(uint32_t) * (sk->triangle_count ? sk->triangle_count : 1));
    if (!tris) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint32_t n = 0;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        if (mask[t]) memcpy(tris + 3 * n++, sk->triangles + 3 * (size_t)t, 3 * sizeof(uint32_t));
    tl_result r = n ? scalp_make(scene, skin, tris, n, out, err)
                    : tl_error_set(err, TL_ERROR_NOT_FOUND, "the scalp mask selects no triangle");
    free(tris);
    tl_hair_scalp* head = NULL;
    if (r == TL_OK) r = head_skin_of(scene, skin, NULL, &head, err);
    if (r == TL_OK) (*out)->head = head;
    if (r != TL_OK && n) tl_hair_scalp_destroy(*out), *out = NULL;
    return r;
}

/* The head skin's frame: centre, and its extent along up and forward. */
typedef struct head_frame {
    float centre[3];
    float up_lo, up_hi, fwd_hi;
} head_frame;

static bool head_frame_of(const tl_scene_skin* sk, const uint8_t* head_vertex, head_frame* f) {
    /* the box's centre, not the mean: a face's dense mesh would pull the mean forward */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t n = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (!head_vertex[v]) continue;
        const float* p = sk->rest_positions + 3 * (size_t)v;
        for (int k = 0; k < 3; ++k) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
        n++;
    }
    if (n < 3) return false;
    for (int k = 0; k < 3; ++k)
        f->centre[k] = 0.5f * (lo[k] + hi[k]);
    f->up_lo = INFINITY, f->up_hi = -INFINITY, f->fwd_hi = -INFINITY;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (!head_vertex[v]) continue;
        float d[3];
        for (int k = 0; k < 3; ++k)
            d[k] = sk->rest_positions[3 * (size_t)v + k] - f->centre[k];
        float u = tl__dot(d, sk->up), w = tl__dot(d, sk->forward);
        f->up_lo = u < f->up_lo ? u : f->up_lo;
        f->up_hi = u > f->up_hi ? u : f->up_hi;
        f->fwd_hi = w > f->fwd_hi ? w : f->fwd_hi;
    }
    return true;
}

/* The rule of §1 for one head triangle. */
static bool is_scalp(const tl_scene_skin* sk, const uint32_t* tri, const head_frame* f,
                     const tl_hair_def* def) {
    const float* a = sk->rest_positions + 3 * (size_t)tri[0];
    const float* b = sk->rest_positions + 3 * (size_t)tri[1];
    const float* c = sk->rest_positions + 3 * (size_t)tri[2];
    float e1[3], e2[3], n[3], d[3];
    for (int k = 0; k < 3; ++k) {
        e1[k] = b[k] - a[k];
        e2[k] = c[k] - a[k];
        d[k] = (a[k] + b[k] + c[k]) / 3 - f->centre[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    if (tl__dot(n, d) <= 0) return false; /* faces inward: inside the mouth, eye sockets */
    float span = f->up_hi - f->up_lo;
    float height = (tl__dot(d, sk->up) - f->up_lo) / span;
    float front = f->fwd_hi > 0 ? tl__dot(d, sk->forward) / f->fwd_hi : 0;
    if (height < def->scalp_ear_level && front > 0) return false; /* jaw, cheeks, throat */
    if (height < def->scalp_brow_level && front > def->scalp_face_front) return false; /* face */
    return true;
}

tl_result tl_hair_scalp_find(const tl_scene* scene, uint32_t skin, const tl_hair_def* def,
                             const uint8_t* exclude, tl_hair_scalp** out, tl_error* err) {
    assert(scene && def && out && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* in_head = malloc(sk->joint_count ? sk->joint_count : 1);
    uint8_t* head_vertex = calloc(sk->vertex_count ? sk->vertex_count : 1, 1);
    uint32_t* tris = malloc(3 * sizeof(uint32_t) * (sk->triangle_count ? sk->triangle_count : 1));
    tl_result r = TL_OK;
    head_frame f;
    if (!in_head || !head_vertex || !tris) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        goto done;
    }
    if (!hair_head_joints(sk, in_head)) {
        r = tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u has no head joint: no scalp", skin);
        goto done;
    }
    for (uint32_t p = 0; p < sk->primitive_count; ++p) {
        if (exclude && exclude[p]) continue;
        const tl_scene_primitive* prim = &sk->primitives[p];
        for (uint32_t v = prim->first_vertex; v < prim->first_vertex + prim->vertex_count; ++v)
            head_vertex[v] = in_head[tl_scene_skin_dominant_joint(sk, v)];
    }
    uint32_t n = 0;
    if (head_frame_of(sk, head_vertex, &f) && f.up_hi > f.up_lo) {
        for (uint32_t t = 0; t < sk->triangle_count; ++t) {
            const uint32_t* tri = sk->triangles + 3 * (size_t)t;
            if (!head_vertex[tri[0]] || !head_vertex[tri[1]] || !head_vertex[tri[2]]) continue;
            if (is_scalp(sk, tri, &f, def)) memcpy(tris + 3 * n++, tri, 3 * sizeof(uint32_t));
        }
    }
    r = n ? scalp_make(scene, skin, tris, n, out, err)
          : tl_error_set(err, TL_ERROR_NOT_FOUND,
                         "skin %u: no skin dominated by the head joint faces outward: no scalp",
                         skin);
    if (r == TL_OK) { /* the whole head skin, for the adapter's cap */
        tl_hair_scalp* head = NULL;
        r = head_skin_of(scene, skin, exclude, &head, err);
        if (r == TL_OK) (*out)->head = head;
        if (r != TL_OK) tl_hair_scalp_destroy(*out), *out = NULL;
    }
done:
    free(in_head);
    free(head_vertex);
    free(tris);
    return r;
}

float hair_scalp_scale(const tl_hair_scalp* scalp) {
    float body = scalp->height / TL_HAIR_HUMAN_MM;
    const tl_hair_scalp* head = scalp->head;
    if (!head || head->triangle_count == 0) return body;
    const float* lateral = scalp->scene->skins[scalp->skin].lateral;
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < 3 * (size_t)head->triangle_count; ++i) {
        float c = tl__dot(vertex(head, head->triangles[i]), lateral);
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    float by_head = (hi - lo) / TL_HAIR_HUMAN_HEAD_MM;
    return by_head > body ? by_head : body;
}

/* Triangle t as the scan tests it: skipped when its sphere lies beyond the best so far, taken
 * when no farther than the best (the last of equals wins). *root: sqrtf(*best2), kept with it
 * (the same value, not found again for every triangle). */
static bool scalp_test(const tl_hair_scalp* scalp, const scalp_storage* s, uint32_t t,
                       const float p[3], float* best2, float* root, float bary[3]) {
    const float* c = s->sphere + 4 * (size_t)t;
    float reach = *root + c[3];
    if (tl__dist2(p, c) > reach * reach) return false;
    const uint32_t* tri = scalp->triangles + 3 * (size_t)t;
    float b[3];
    float d2 = tl_mesh_triangle_nearest(p, vertex(scalp, tri[0]), vertex(scalp, tri[1]),
                                        vertex(scalp, tri[2]), b);
    if (!(d2 <= *best2)) return false;
    if (d2 != *best2) *best2 = d2, *root = sqrtf(d2);
    memcpy(bary, b, sizeof b);
    return true;
}

/* The cells a query within max_distance of p reads: the box of p ± max_distance, widened so
 * that every triangle left out is one the scan skips by its sphere however far the best has
 * shrunk (the sphere test only tightens). False: scan every triangle (no grid, no finite
 * distance, or a box over a large part of the grid). */
static bool scalp_query_cells(const scalp_storage* s, const float p[3], float max_distance,
                              uint32_t lo[3], uint32_t hi[3], bool* none) {
    const hair_grid* g = &s->grid;
    *none = false;
    if (!g->start || !isfinite(max_distance) || !(max_distance >= 0)) return false;
    float margin = max_distance + max_distance / 64 + g->cell / 1024;
    float a[3], b[3];
    for (int k = 0; k < 3; ++k) {
        if (!isfinite(p[k])) return false;
        a[k] = p[k] - margin, b[k] = p[k] + margin;
    }
    if (!hair_grid_range(g, a, b, lo, hi)) {
        *none = true; /* beyond the grid: every triangle is skipped by its sphere */
        return false;
    }
    size_t cells = 1;
    for (int k = 0; k < 3; ++k)
        cells *= hi[k] - lo[k] + 1;
    return cells <= 4096;
}

static uint32_t lowest_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctzll(bits);
#else
    uint32_t b = 0;
    while (!(bits >> b & 1))
        b++;
    return b;
#endif
}

/* ORs `bits` into word w of a query's marks (none when w is UINT32_MAX), clearing the words
 * as the marked range first..last grows (so only the range is ever cleared). */
static void mark_word(uint64_t* mark, uint32_t* first, uint32_t* last, uint32_t w, uint64_t bits) {
    if (w == UINT32_MAX) return;
    if (*first == UINT32_MAX) *first = *last = w, mark[w] = 0;
    while (w < *first)
        mark[--*first] = 0;
    while (w > *last)
        mark[++*last] = 0;
    mark[w] |= bits;
}

enum { SCALP_QUERY_WORDS = 1024 }; /* a grid query marks at most 65 536 triangles; more: the scan */

/* Marks the triangles of the grid's cells [lo, hi] (words *first..*last of mark; *first
 * UINT32_MAX: none). */
static void scalp_marks(const scalp_storage* s, const uint32_t lo[3], const uint32_t hi[3],
                        uint64_t* mark, uint32_t* first, uint32_t* last) {
    uint64_t gathered = 0;
    uint32_t word = UINT32_MAX;
    *first = UINT32_MAX, *last = 0;
    for (uint32_t z = lo[2]; z <= hi[2]; ++z)
        for (uint32_t y = lo[1]; y <= hi[1]; ++y)
            for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
                size_t at = hair_grid_cell(&s->grid, x, y, z);
                for (uint32_t i = s->grid.start[at]; i < s->grid.start[at + 1]; ++i) {
                    uint32_t t = s->grid.items[i];
                    if (t / 64 != word) { /* a cell's triangles ascend: bits gathered */
                        mark_word(mark, first, last, word, gathered);
                        word = t / 64, gathered = 0;
                    }
                    gathered |= (uint64_t)1 << (t % 64);
                }
            }
    mark_word(mark, first, last, word, gathered);
}

uint32_t hair_scalp_nearest(const tl_hair_scalp* scalp, const float p[3], float max_distance,
                            float* distance, float bary[3]) {
    const scalp_storage* s = scalp->internal;
    uint32_t best = UINT32_MAX;
    float best2 = max_distance * max_distance, root = sqrtf(best2);
    uint32_t lo[3], hi[3];
    bool none = false, grid = scalp->triangle_count <= 64 * SCALP_QUERY_WORDS &&
                              scalp_query_cells(s, p, max_distance, lo, hi, &none);
    if (!grid && none) return UINT32_MAX;
    if (!grid) {
        for (uint32_t t = 0; t < scalp->triangle_count; ++t)
            if (scalp_test(scalp, s, t, p, &best2, &root, bary)) best = t;
    } else {
        /* the cells' triangles marked, then tested in the scan's order (ties go to the last) */
        uint64_t mark[SCALP_QUERY_WORDS];
        uint32_t first, last;
        scalp_marks(s, lo, hi, mark, &first, &last);
        for (uint32_t w = first; first != UINT32_MAX && w <= last; ++w)
            for (uint64_t bits = mark[w]; bits; bits &= bits - 1) {
                uint32_t t = 64 * w + lowest_bit(bits);
                if (scalp_test(scalp, s, t, p, &best2, &root, bary)) best = t;
            }
    }
    if (best != UINT32_MAX) *distance = sqrtf(best2);
    return best;
}

/* Whether triangle t may pass scalp_test for some point within spread of centre, from a best
 * of max_distance down (root0: its root as the scan finds it). Left out only when the sphere
 * lies farther from centre than root0 + its radius + spread, 1e-4 over: then for each such
 * point the float test's distance exceeds its reach (both within a few roundings, 1e-7, of
 * theirs) however far the best has shrunk. NaN: kept, as the test keeps it. */
static bool scalp_near_keeps(const scalp_storage* s, uint32_t t, const float centre[3],
                             double root0, double spread) {
    const float* c = s->sphere + 4 * (size_t)t;
    double d2 = 0;
    for (int k = 0; k < 3; ++k)
        d2 += ((double)centre[k] - c[k]) * ((double)centre[k] - c[k]);
    double reach = (root0 + c[3] + spread) * (1 + 1e-4);
    return !(d2 > reach * reach);
}

uint32_t hair_scalp_near_list(const tl_hair_scalp* scalp, const float centre[3], float max_distance,
                              float spread, uint32_t* tris) {
    const scalp_storage* s = scalp->internal;
    double root0 = sqrtf(max_distance * max_distance);
    uint32_t lo[3], hi[3], n = 0;
    bool none = false, grid = scalp->triangle_count <= 64 * SCALP_QUERY_WORDS &&
                              scalp_query_cells(s, centre, max_distance + spread, lo, hi, &none);
    if (!grid && none) return 0; /* (as hair_scalp_nearest: its box holds each point's box) */
    if (!grid) {
        for (uint32_t t = 0; t < scalp->triangle_count; ++t)
            if (scalp_near_keeps(s, t, centre, root0, spread)) tris[n++] = t;
        return n;
    }
    uint64_t mark[SCALP_QUERY_WORDS];
    uint32_t first, last;
    scalp_marks(s, lo, hi, mark, &first, &last);
    for (uint32_t w = first; first != UINT32_MAX && w <= last; ++w)
        for (uint64_t bits = mark[w]; bits; bits &= bits - 1) {
            uint32_t t = 64 * w + lowest_bit(bits);
            if (scalp_near_keeps(s, t, centre, root0, spread)) tris[n++] = t;
        }
    return n;
}

uint32_t hair_scalp_nearest_listed(const tl_hair_scalp* scalp, const uint32_t* tris, uint32_t count,
                                   const float p[3], float max_distance, float* distance,
                                   float bary[3]) {
    const scalp_storage* s = scalp->internal;
    uint32_t best = UINT32_MAX;
    float best2 = max_distance * max_distance, root = sqrtf(best2);
    for (uint32_t i = 0; i < count; ++i)
        if (scalp_test(scalp, s, tris[i], p, &best2, &root, bary)) best = tris[i];
    if (best != UINT32_MAX) *distance = sqrtf(best2);
    return best;
}

bool hair_scalp_within(const tl_hair_scalp* scalp, const float p[3], float max_distance) {
    const scalp_storage* s = scalp->internal;
    float best2 = max_distance * max_distance, root = sqrtf(best2), bary[3];
    uint32_t lo[3], hi[3];
    bool none;
    if (!scalp_query_cells(s, p, max_distance, lo, hi, &none)) {
        if (none) return false;
        for (uint32_t t = 0; t < scalp->triangle_count; ++t)
            if (scalp_test(scalp, s, t, p, &best2, &root, bary)) return true;
        return false;
    }
    /* the scan finds one exactly when some triangle passes both tests at max_distance (before
       its first find the best is max_distance), whatever the order */
    for (uint32_t z = lo[2]; z <= hi[2]; ++z)
        for (uint32_t y = lo[1]; y <= hi[1]; ++y)
            for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
                size_t at = hair_grid_cell(&s->grid, x, y, z);
                for (uint32_t i = s->grid.start[at]; i < s->grid.start[at + 1]; ++i)
                    if (scalp_test(scalp, s, s->grid.items[i], p, &best2, &root, bary)) return true;
            }
    return false;
}

/* The triangle's frame: unit edge v0→v1, unit normal, their cross product. */
static void triangle_frame(const float* a, const float* b, const float* c, float e[3], float n[3],
                           float m[3]) {
    float e2[3];
    for (int k = 0; k < 3; ++k)
        e[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    n[0] = e[1] * e2[2] - e[2] * e2[1];
    n[1] = e[2] * e2[0] - e[0] * e2[2];
    n[2] = e[0] * e2[1] - e[1] * e2[0];
    float le = sqrtf(tl__dot(e, e)), ln = sqrtf(tl__dot(n, n));
    for (int k = 0; k < 3; ++k) {
        e[k] = le > 0 ? e[k] / le : 0;
        n[k] = ln > 0 ? n[k] / ln : 0;
    }
    m[0] = e[1] * n[2] - e[2] * n[1];
    m[1] = e[2] * n[0] - e[0] * n[2];
    m[2] = e[0] * n[1] - e[1] * n[0];
}

tl_hair_binding hair_bind(const tl_hair_scalp* scalp, uint32_t t, const float bary[3],
                          const float p[3]) {
    tl_hair_binding b;
    memcpy(b.vertices, scalp->triangles + 3 * (size_t)t, sizeof b.vertices);
    memcpy(b.barycentric, bary, sizeof b.barycentric);
    float zero[3] = {0, 0, 0}, q[3];
    memcpy(b.offset, zero, sizeof zero);
    tl_hair_binding_position(&b, scalp->positions, q);
    const float* v0 = vertex(scalp, b.vertices[0]);
    float e[3], n[3], m[3], d[3];
    triangle_frame(v0, vertex(scalp, b.vertices[1]), vertex(scalp, b.vertices[2]), e, n, m);
    for (int k = 0; k < 3; ++k)
        d[k] = p[k] - q[k];
    b.offset[0] = tl__dot(d, e), b.offset[1] = tl__dot(d, n), b.offset[2] = tl__dot(d, m);
    return b;
}

void tl_hair_binding_position(const tl_hair_binding* b, const float* positions, float out[3]) {
    assert(b && positions && out);
    const float* v[3];
    for (int k = 0; k < 3; ++k)
        v[k] = positions + 3 * (size_t)b->vertices[k];
    float e[3], n[3], m[3];
    triangle_frame(v[0], v[1], v[2], e, n, m);
    for (int k = 0; k < 3; ++k)
        out[k] = b->barycentric[0] * v[0][k] + b->barycentric[1] * v[1][k] +
                 b->barycentric[2] * v[2][k] + b->offset[0] * e[k] + b->offset[1] * n[k] +
                 b->offset[2] * m[k];
}

tl_hair_drift tl_hair_root_drift(const tl_scene* scene, uint32_t skin, const tl_hair_guides* guides,
                                 uint32_t clip, uint32_t samples, tl_pose* pose, float* joints,
                                 float* positions) {
    assert(scene && guides && pose && joints && positions && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_hair_drift d = {0, 0, 0};
    for (uint32_t g = 0; g < guides->guide_count; ++g)
        d.roots += guides->guides[g].link == TL_HAIR_LINK_ROOT;
    if (sk->body.head == TL_NONE) return d;
    for (uint32_t s = 0; s < samples; ++s) {
        float t = samples > 1 ? scene->clips[clip].duration * (float)s / (float)(samples - 1) : 0;
        tl_pose_sample(pose, scene, clip, t);
        tl_pose_joint_matrices(pose, scene, skin, joints);
        tl_scene_skin_positions(scene, skin, joints, positions);
        const float* m = joints + 16 * (size_t)sk->body.head;
        for (uint32_t g = 0; g < guides->guide_count; ++g) {
            const tl_hair_guide* guide = &guides->guides[g];
            if (guide->link != TL_HAIR_LINK_ROOT) continue;
            const tl_hair_binding* b = &guide->binding;
            float p[3], q[3] = {0, 0, 0}, h[3];
            tl_hair_binding_position(b, positions, p);
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k)
                    q[k] += b->barycentric[i] * positions[3 * (size_t)b->vertices[i] + k];
            float stored = sqrtf(tl__dot(b->offset, b->offset));
            float tri = fabsf(sqrtf(tl__dist2(p, q)) - stored);
            const float* r = guides->points + 3 * (size_t)guide->first_point; /* rest root */
            for (int k = 0; k < 3; ++k)
                h[k] = m[k] * r[0] + m[4 + k] * r[1] + m[8 + k] * r[2] + m[12 + k];
            float head = sqrtf(tl__dist2(h, p));
            d.triangle_drift = tri > d.triangle_drift ? tri : d.triangle_drift;
            d.head_drift = head > d.head_drift ? head : d.head_drift;
        }
    }
    return d;
}
