/* Guides: roots bound to the scalp (hair.md §3), fragments linked to attached guides (§4), and
 * the audit (§5). */
#include "internal.h"

#include "base/try.h"

#include <stdlib.h>
#include <string.h>

tl_hair_def tl_default_hair_def(void) {
    return (tl_hair_def){
        .weld_mm = 0.0175f,
        .spacing_mm = 7.0f,
        .sample_mm = 6.0f,
        .smooth_passes = 3,
        .max_points = 64,
        .max_guides_per_component = 512,
        .min_length_mm = 2.0f,
        .root_distance_mm = 20.0f,
        .merge_distance_mm = 25.0f,
        .merge_dot = 0.5f,
        .mid_guide_links = true,
        .merge_passes = 16,
        .max_chain_mm = 1200.0f,
        .max_chain_points = 1024,
        .coverage_mm = 10.0f,
        .scalp_ear_level = 0.35f,
        .scalp_brow_level = 0.8f,
        .scalp_face_front = 0.3f,
    };
}

const char* tl_hair_reject_string(tl_hair_reject reason) {
    switch (reason) {
    case TL_HAIR_REJECT_NONE:
        return "none";
    case TL_HAIR_REJECT_TOO_FAR:
        return "too_far";
    case TL_HAIR_REJECT_DIRECTION:
        return "direction";
    case TL_HAIR_REJECT_CAPPED:
        return "capped";
    default:
        return "unknown";
    }
}

const char* tl_hair_link_string(tl_hair_link link) {
    switch (link) {
    case TL_HAIR_LINK_NONE:
        return "none";
    case TL_HAIR_LINK_ROOT:
        return "root";
    case TL_HAIR_LINK_TIP:
        return "tip";
    case TL_HAIR_LINK_MID:
        return "mid";
    default:
        return "unknown";
    }
}

void tl_hair_guides_destroy(tl_hair_guides* guides) {
    if (!guides) return;
    hair_store* s = guides->internal;
    if (s) free(s->guides), free(s->points), free(s);
    free(guides);
}

static float* point_of(hair_store* s, uint32_t guide, uint32_t k) {
    return s->points + 3 * ((size_t)s->guides[guide].first_point + k);
}

static void guide_reverse(hair_store* s, uint32_t g) {
    uint32_t n = s->guides[g].point_count;
    for (uint32_t i = 0; i < n / 2; ++i) {
        float tmp[3];
        memcpy(tmp, point_of(s, g, i), sizeof tmp);
        memcpy(point_of(s, g, i), point_of(s, g, n - 1 - i), sizeof tmp);
        memcpy(point_of(s, g, n - 1 - i), tmp, sizeof tmp);
    }
}

/* The unit direction of guide g at point k, towards its far end (from `end` 0) or from the last
 * point backwards (end 1): the chord over `span` points around k (from an end: the span after
 * it), so a path's first sample step (which may run along a cut edge before turning down the
 * card) does not stand for its direction. */
static void tangent(hair_store* s, uint32_t g, uint32_t k, int end, uint32_t span, float out[3]) {
    uint32_t n = s->guides[g].point_count, half = span / 2 ? span / 2 : 1;
    uint32_t a, b;
    if (k == 0) {
        a = 0, b = span < n - 1 ? span : n - 1;
    } else if (k + 1 == n) {
        a = k > span ? k - span : 0, b = k;
    } else {
        a = k > half ? k - half : 0, b = k + half < n - 1 ? k + half : n - 1;
    }
    const float* p = point_of(s, g, a);
    const float* q = point_of(s, g, b);
    float sign = end ? -1.0f : 1.0f;
    for (int i = 0; i < 3; ++i)
        out[i] = sign * (q[i] - p[i]);
    float l = sqrtf(tl__dot(out, out));
    for (int i = 0; i < 3; ++i)
        out[i] = l > 0 ? out[i] / l : 0;
}

/* §3: the end nearer the scalp becomes the root; bound when within root_distance. */
static void bind_roots(hair_store* s, const tl_hair_scalp* scalp, float root_distance) {
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        tl_hair_guide* guide = &s->guides[g];
        float d0 = INFINITY, d1 = INFINITY, b0[3], b1[3];
        uint32_t t0 = hair_scalp_nearest(scalp, point_of(s, g, 0), root_distance, &d0, b0);
        uint32_t t1 = hair_scalp_nearest(scalp, point_of(s, g, guide->point_count - 1),
                                         root_distance, &d1, b1);
        if (t1 != UINT32_MAX && (t0 == UINT32_MAX || d1 < d0)) {
            guide_reverse(s, g);
            t0 = t1, d0 = d1;
            memcpy(b0, b1, sizeof b0);
        }
        if (t0 == UINT32_MAX) continue;
        guide->reason = TL_HAIR_REJECT_NONE;
        guide->link = TL_HAIR_LINK_ROOT;
        guide->root_distance = d0;
        guide->binding = hair_bind(scalp, t0, b0, point_of(s, g, 0));
    }
}

/* What merging keeps per guide: the lock's length and points from its scalp root to point 0. */
typedef struct merger {
    hair_store* s;
    const tl_hair_def* def;
    float distance, max_chain;
    uint32_t span;          /* points a tangent spans: the merge distance over the sample step */
    float weld;             /* points this close are one (weld_mm) */
    uint32_t* point_guide;  /* point → its guide */
    uint8_t* parent_ok;     /* attached before this pass */
    float* chain_length;    /* from the lock's root to the guide's point 0 */
    float* along;           /* per point of an attached guide: its length from point 0 (NULL:
                               summed on each visit) */
    uint32_t* chain_points; /* points of the lock before the guide */
    /* the query in flight */
    uint32_t child;
    int end;
    const float* q;
    float dir[3];
    float best_d;
    int32_t best_id;
    bool best_tip, near, capped;
    bool relink; /* every attached guide a parent but those hanging from the child */
    const float* up;
    float* root_up; /* relinking: the height along up of each guide's lock root */
    float best_root;
} merger;

/* True when guide a is g or hangs from it: linking g to a would close a loop. */
static bool hangs_from(const hair_store* s, uint32_t a, uint32_t g) {
    for (uint32_t depth = 0; depth <= s->guide_count; ++depth) {
        if (a == g) return true;
        if (s->guides[a].parent == TL_NONE) return false;
        a = (uint32_t)s->guides[a].parent;
    }
    return true;
}

/* Guide g's length from its point 0 to its point k, summed from point 0 (the order fixes the
 * float). */
static float guide_along(hair_store* s, uint32_t g, uint32_t k) {
    float along = 0;
    for (uint32_t i = 0; i < k; ++i)
        along += sqrtf(tl__dist2(point_of(s, g, i + 1), point_of(s, g, i)));
    return along;
}

static bool merge_visit(void* user, uint32_t id) {
    merger* m = user;
    uint32_t a = m->point_guide[id];
    if (!m->parent_ok[a] || a == m->child) return true;
    float d = sqrtf(tl__dist2(m->q, m->s->points + 3 * (size_t)id));
    if (d > m->distance) return true;
    if (m->relink && (m->s->guides[a].component == m->s->guides[m->child].component ||
                      hangs_from(m->s, a, m->child)))
        return true;
    const tl_hair_guide* pa = &m->s->guides[a];
    uint32_t k = id - pa->first_point;
    bool tip = k + 1 == pa->point_count;
    if (!tip && !m->def->mid_guide_links) return true;
    m->near = true;
    /* an end on the very point of an attached guide traced in the same piece (siblings from the
       piece's root) is held by the surface itself: the direction test is for separate pieces */
    bool same_piece = pa->component == m->s->guides[m->child].component && d <= m->weld;
    float t[3];
    tangent(m->s, a, k, 0, m->span, t);
    if (!same_piece && tl__dot(t, m->dir) <= m->def->merge_dot) return true;
    float along = m->along ? m->along[id] : guide_along(m->s, a, k);
    const tl_hair_guide* c = &m->s->guides[m->child];
    if (m->chain_length[a] + along + d + c->length > m->max_chain ||
        m->chain_points[a] + k + 1 + c->point_count > m->def->max_chain_points) {
        m->capped = true;
        return true;
    }
    /* a tip link beats a mid-guide one; relinking, then the lock from the higher root; then the
       nearer */
    float root = m->relink ? m->root_up[a] : 0;
    bool higher = root > m->best_root, level = root == m->best_root;
    if (m->best_id < 0 || (tip && !m->best_tip) ||
        (tip == m->best_tip && (higher || (level && d < m->best_d)))) {
        m->best_id = (int32_t)id, m->best_d = d, m->best_tip = tip, m->best_root = root;
        m->chain_length[m->child] = m->chain_length[a] + along + d; /* provisional */
        m->chain_points[m->child] = m->chain_points[a] + k + 1;
    }
    return true;
}

/* The attached guides (m->parent_ok) and their points' ids into ids; returns the count. Their
 * points' lengths from point 0 into m->along, added in guide_along's order (the same floats):
 * a pass reverses only guides not attached before it, so they hold through the pass. */
static uint32_t attached_point_ids(merger* m, uint32_t* ids) {
    hair_store* s = m->s;
    uint32_t count = 0;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        m->parent_ok[g] = s->guides[g].link != TL_HAIR_LINK_NONE;
        float along = 0;
        for (uint32_t k = 0; m->parent_ok[g] && k < s->guides[g].point_count; ++k) {
            uint32_t id = s->guides[g].first_point + k;
            if (k > 0) along += sqrtf(tl__dist2(point_of(s, g, k), point_of(s, g, k - 1)));
            if (m->along) m->along[id] = along;
            ids[count++] = id;
        }
    }
    return count;
}

/* One pass: each rejected guide, tested from both ends, against the guides attached before the
 * pass. Returns the links made, or -1 when out of memory. */
static int64_t merge_pass(merger* m) {
    hair_store* s = m->s;
    uint32_t* ids = malloc((s->point_count ? s->point_count : 1) * sizeof(uint32_t));
    if (!ids) return -1;
    uint32_t count = attached_point_ids(m, ids);
    hair_grid grid;
    bool ok = hair_grid_build(&grid, s->points, ids, count, m->distance);
    free(ids);
    if (!ok) return -1;
    int64_t links = 0;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        tl_hair_guide* guide = &s->guides[g];
        if (guide->link != TL_HAIR_LINK_NONE) continue;
        m->child = g, m->best_id = -1, m->near = false, m->capped = false;
        int best_end = 0;
        for (int end = 0; end < 2; ++end) {
            int32_t before = m->best_id;
            m->end = end;
            m->q = point_of(s, g, end ? guide->point_count - 1 : 0);
            tangent(s, g, end ? guide->point_count - 1 : 0, end, m->span, m->dir);
            hair_grid_visit(&grid, m->q, merge_visit, m);
            if (m->best_id != before) best_end = end;
        }
        if (m->best_id < 0) {
            guide->reason = m->capped ? TL_HAIR_REJECT_CAPPED
                            : m->near ? TL_HAIR_REJECT_DIRECTION
                                      : TL_HAIR_REJECT_TOO_FAR;
            continue;
        }
        if (best_end) guide_reverse(s, g);
        uint32_t parent = m->point_guide[m->best_id];
        guide->reason = TL_HAIR_REJECT_NONE;
        guide->link = m->best_tip ? TL_HAIR_LINK_TIP : TL_HAIR_LINK_MID;
        guide->parent = (int32_t)parent;
        guide->parent_point = (uint32_t)m->best_id - s->guides[parent].first_point;
        links++;
    }
    hair_grid_free(&grid);
    return links;
}

/* The length and points of guide g's lock from its scalp root to its point 0, along its links
 * (as merge_visit counts them). */
static void lock_before(hair_store* s, uint32_t g, float* length, uint32_t* points) {
    *length = 0, *points = 0;
    for (uint32_t depth = 0; s->guides[g].parent != TL_NONE && depth < s->guide_count; ++depth) {
        uint32_t a = (uint32_t)s->guides[g].parent, k = s->guides[g].parent_point;
        for (uint32_t i = 0; i < k; ++i)
            *length += sqrtf(tl__dist2(point_of(s, a, i + 1), point_of(s, a, i)));
        *length += sqrtf(tl__dist2(point_of(s, g, 0), point_of(s, a, k)));
        *points += k + 1;
        g = a;
    }
}

/* One sweep after the passes: each guide linked to another piece moves to a lock whose root lies
 * higher along up (hair hangs from its root), never from a tip to a mid-guide point, among
 * every attached guide of another piece not hanging from it that passes merge_visit's tests (a
 * tip before a mid-guide point, then the higher root, then the nearer). The passes link a
 * piece to the first lock that reaches it: cut into cards, a lock bound lower on the scalp
 * (fewer pieces away) took the pieces below another lock's tip 2 mm off, and both locks ended
 * short of the chains' min_free_mm (bob02's cards: 3 chains, the style 6). Links within a piece
 * stay (the surface holds them). Only links change: what is attached, and so the audit, stays.
 * Returns the links changed, or -1 when out of memory. */
static int64_t relink_pass(merger* m) {
    hair_store* s = m->s;
    uint32_t* ids = malloc((s->point_count ? s->point_count : 1) * sizeof(uint32_t));
    if (!ids) return -1;
    uint32_t count = attached_point_ids(m, ids);
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        if (m->parent_ok[g]) lock_before(s, g, &m->chain_length[g], &m->chain_points[g]);
        uint32_t r = g;
        for (uint32_t depth = 0; s->guides[r].parent != TL_NONE && depth < s->guide_count; ++depth)
            r = (uint32_t)s->guides[r].parent;
        m->root_up[g] = tl__dot(point_of(s, r, 0), m->up);
    }
    hair_grid grid;
    bool ok = hair_grid_build(&grid, s->points, ids, count, m->distance);
    free(ids);
    if (!ok) return -1;
    int64_t changed = 0;
    m->relink = true;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        tl_hair_guide* guide = &s->guides[g];
        if (guide->link != TL_HAIR_LINK_TIP && guide->link != TL_HAIR_LINK_MID) continue;
        const tl_hair_guide* parent = &s->guides[guide->parent];
        if (parent->component == guide->component) continue; /* held by the surface */
        bool tip = guide->parent_point + 1 == parent->point_count;
        m->child = g, m->best_id = -1, m->near = false, m->capped = false, m->end = 0;
        m->best_root = -INFINITY;
        m->q = point_of(s, g, 0);
        tangent(s, g, 0, 0, m->span, m->dir);
        hair_grid_visit(&grid, m->q, merge_visit, m);
        float root = m->root_up[guide->parent];
        if (m->best_id >= 0 && (m->best_tip || !tip) && m->best_root > root) {
            uint32_t a = m->point_guide[m->best_id];
            guide->link = m->best_tip ? TL_HAIR_LINK_TIP : TL_HAIR_LINK_MID;
            guide->parent = (int32_t)a;
            guide->parent_point = (uint32_t)m->best_id - s->guides[a].first_point;
            changed++;
        }
        lock_before(s, g, &m->chain_length[g], &m->chain_points[g]); /* not the provisional */
    }
    m->relink = false;
    hair_grid_free(&grid);
    return changed;
}

static tl_result merge(hair_store* s, const tl_hair_def* def, float scale, const float* up,
                       bool along_kept, tl_error* err) {
    float span = def->sample_mm > 0 ? roundf(def->merge_distance_mm / def->sample_mm) : 1;
    merger m = {s,
                def,
                def->merge_distance_mm * scale,
                def->max_chain_mm * scale,
                span < 1    ? 1u
                : span > 64 ? 64u
                            : (uint32_t)span,
                def->weld_mm * scale};
    size_t n = s->guide_count ? s->guide_count : 1;
    m.point_guide = malloc((s->point_count ? s->point_count : 1) * sizeof(uint32_t));
    m.parent_ok = calloc(n, 1);
    m.chain_length = calloc(n, sizeof(float));
    m.chain_points = calloc(n, sizeof(uint32_t));
    m.root_up = malloc(n * sizeof(float));
    if (along_kept) m.along = malloc((s->point_count ? s->point_count : 1) * sizeof(float));
    m.up = up;
    tl_result r = TL_OK;
    if (!m.point_guide || !m.parent_ok || !m.chain_length || !m.chain_points || !m.root_up ||
        (along_kept && !m.along)) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    } else {
        for (uint32_t g = 0; g < s->guide_count; ++g)
            for (uint32_t k = 0; k < s->guides[g].point_count; ++k)
                m.point_guide[s->guides[g].first_point + k] = g;
        for (uint32_t pass = 0; pass < def->merge_passes; ++pass) {
            int64_t links = merge_pass(&m);
            if (links < 0) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            if (links <= 0) break;
        }
        for (uint32_t pass = 0; r == TL_OK && pass < def->merge_passes; ++pass) {
            int64_t changed = relink_pass(&m);
            if (changed < 0) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            if (changed <= 0) break;
        }
    }
    free(m.point_guide), free(m.parent_ok), free(m.chain_length), free(m.chain_points);
    free(m.root_up), free(m.along);
    return r;
}

/* Coverage (§5): how many mesh vertices lie within `radius` of an attached guide's polyline. */
typedef struct coverer {
    hair_store* s;
    const uint32_t* point_guide;
    const float* reach2; /* per point: the squared reach of its segments' test, or -1 */
    const float* q;
    float radius;
    bool hit;
    uint32_t segment; /* the first point of the segment that hit */
} coverer;

static bool cover_visit(void* user, uint32_t id) {
    coverer* c = user;
    const float* p = c->s->points + 3 * (size_t)id;
    /* both of the point's segments surely beyond radius: the tests below would say so too */
    if (tl__dist2(c->q, p) > c->reach2[id]) return true;
    const tl_hair_guide* g = &c->s->guides[c->point_guide[id]];
    if (id > g->first_point && tl_mesh_segment_distance(c->q, p - 3, p, NULL) <= c->radius)
        c->hit = true, c->segment = id - 1;
    else if (id + 1 < g->first_point + g->point_count &&
             tl_mesh_segment_distance(c->q, p, p + 3, NULL) <= c->radius)
        c->hit = true, c->segment = id;
    return !c->hit;
}

/* The largest coordinate's magnitude of the store's points and the mesh's vertices. */
static double cover_size(const hair_store* s, const tl_hair_mesh* mesh) {
    double size = 0;
    for (size_t i = 0; i < 3 * (size_t)s->point_count; ++i)
        size = fmax(size, fabs((double)s->points[i]));
    for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; ++i)
        size = fmax(size, fabs((double)mesh->positions[i]));
    return size;
}

/* Per point of an attached guide: a vertex within radius of a segment lies within radius + half
 * its length of the segment's end nearer its nearest point, and that end's visit tests the
 * segment; so a point farther than radius + half its longer segment needs no test. Grown by a
 * slack far above the float tests' rounding (1e-4 of the coordinates' size and of that sum),
 * squared. Returns the longest segment. */
static float cover_reach(const hair_store* s, const tl_hair_mesh* mesh, float radius,
                         float* reach2) {
    double slack = 1e-4 * cover_size(s, mesh);
    float longest = 0;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        const tl_hair_guide* guide = &s->guides[g];
        for (uint32_t k = 0; k < guide->point_count; ++k) {
            const float* p = s->points + 3 * ((size_t)guide->first_point + k);
            float before = k > 0 ? sqrtf(tl__dist2(p, p - 3)) : 0;
            float after = k + 1 < guide->point_count ? sqrtf(tl__dist2(p, p + 3)) : 0;
            double reach = (radius + 0.5 * (double)fmaxf(before, after)) * (1 + 1e-4) + slack;
            reach2[guide->first_point + k] = (float)(reach * reach);
            if (guide->link != TL_HAIR_LINK_NONE) longest = before > longest ? before : longest;
        }
    }
    return longest;
}

static tl_result coverage(hair_store* s, const tl_hair_mesh* mesh, float radius,
                          tl_hair_audit* audit, tl_error* err) {
    size_t n = s->point_count ? s->point_count : 1;
    uint32_t* ids = malloc(n * sizeof(uint32_t));
    uint32_t* point_guide = malloc(n * sizeof(uint32_t));
    float* reach2 = malloc(n * sizeof(float));
    if (!ids || !point_guide || !reach2) {
        free(ids), free(point_guide), free(reach2);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    uint32_t count = 0;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        const tl_hair_guide* guide = &s->guides[g];
        for (uint32_t k = 0; k < guide->point_count; ++k) {
            point_guide[guide->first_point + k] = g;
            if (guide->link != TL_HAIR_LINK_NONE) ids[count++] = guide->first_point + k;
        }
    }
    float longest = cover_reach(s, mesh, radius, reach2);
    hair_grid grid;
    /* a vertex within radius of a segment is within radius + its length of its nearer end */
    bool ok = hair_grid_build(&grid, s->points, ids, count, radius + longest);
    /* the vertices in their triangles' order, so that the next lies near the last (the count
       is the same in any order), each once; then those in no triangle */
    uint8_t* done = calloc(mesh->vertex_count + 1, 1);
    ok = ok && done;
    uint32_t covered = 0, last = UINT32_MAX;
    size_t corners = 3 * (size_t)mesh->triangle_count;
    for (size_t i = 0; ok && i < corners + mesh->vertex_count; ++i) {
        uint32_t v = i < corners ? mesh->triangles[i] : (uint32_t)(i - corners);
        if (done[v]) continue;
        done[v] = 1;
        coverer c = {s, point_guide, reach2, mesh->positions + 3 * (size_t)v, radius, false};
        /* the segment that covered the vertex before first: the answer is an "any", and the
           visit tests every segment within radius, in the same argument order */
        const float* a = last != UINT32_MAX ? s->points + 3 * (size_t)last : NULL;
        if (a && tl_mesh_segment_distance(c.q, a, a + 3, NULL) <= radius) {
            covered++;
            continue;
        }
        hair_grid_visit(&grid, c.q, cover_visit, &c);
        covered += c.hit;
        if (c.hit) last = c.segment;
    }
    free(done);
    audit->coverage = mesh->vertex_count ? (double)covered / mesh->vertex_count : 0;
    hair_grid_free(&grid);
    free(ids), free(point_guide), free(reach2);
    return ok ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
}

static void count_audit(const hair_store* s, tl_hair_audit* audit) {
    uint8_t* seen = calloc(audit->components ? audit->components : 1, 1);
    audit->candidates = s->guide_count;
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        const tl_hair_guide* guide = &s->guides[g];
        audit->rejected[guide->reason] += guide->reason != TL_HAIR_REJECT_NONE;
        if (guide->link == TL_HAIR_LINK_NONE) continue;
        audit->attached++;
        audit->merged_links += guide->link != TL_HAIR_LINK_ROOT;
        audit->mid_guide_links += guide->link == TL_HAIR_LINK_MID;
        if (seen && !seen[guide->component])
            seen[guide->component] = 1, audit->components_attached++;
    }
    free(seen);
}

tl_result tl_hair_guides_create(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                                const tl_hair_def* def, tl_hair_guides** out, tl_error* err) {
    return hair_guides_build(mesh, scalp, def, true, out, err);
}

tl_result hair_guides_build(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                            const tl_hair_def* def, bool fast, tl_hair_guides** out,
                            tl_error* err) {
    assert(mesh && scalp && def && out);
    assert(def->max_points >= 2 && def->sample_mm > 0 && def->weld_mm > 0);
    *out = NULL;
    if (!(scalp->height > 0))
        return tl_error_set(err, TL_ERROR_INVALID, "the character has no height: no scale");
    tl_hair_guides* guides = calloc(1, sizeof *guides);
    hair_store* s = calloc(1, sizeof *s);
    uint32_t* component = malloc((mesh->vertex_count ? mesh->vertex_count : 1) * sizeof(uint32_t));
    if (!guides || !s || !component) {
        free(guides), free(s), free(component);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    guides->internal = s;
    tl_hair_audit* audit = &guides->audit;
    audit->vertices = mesh->vertex_count;
    audit->scale = hair_scalp_scale(scalp);
    const float* up = scalp->scene->skins[scalp->skin].up;
    tl_result r = hair_trace(mesh, def, audit->scale, up, s, component, audit, fast, err);
    free(component);
    if (r == TL_OK) {
        bind_roots(s, scalp, def->root_distance_mm * audit->scale);
        r = merge(s, def, audit->scale, up, fast, err);
    }
    if (r == TL_OK) r = coverage(s, mesh, def->coverage_mm * audit->scale, audit, err);
    if (r != TL_OK) {
        tl_hair_guides_destroy(guides);
        return r;
    }
    count_audit(s, audit);
    guides->guides = s->guides;
    guides->guide_count = s->guide_count;
    guides->points = s->points;
    guides->point_count = s->point_count;
    *out = guides;
    return TL_OK;
}
