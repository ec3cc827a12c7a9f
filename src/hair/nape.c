/* Cap hair lying on skin the head does not move (the nape, the sides of the neck): bound to the
 * head alone it cannot follow that skin, and a head turn carries it into the neck (issue #12,
 * docs/hair.md "Hair lying on the neck"). Such hair takes the weights of the skin beneath it,
 * blended with the head's by its distance from that skin. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The body skin's triangles near p: a grid whose cell is the lying-on distance (and a little,
 * so that rounding in the cell arithmetic cannot leave out a triangle just within it), each
 * triangle filed in every cell its box meets, so every triangle within that distance is visited
 * (some more than once); the nearest found so far, ties by `rank` (tie_ranks). Each
 * triangle's centroid and centroid-to-corner distance (its bounding ball) let a visit pass over
 * one surely farther than the best so far. */
typedef struct nape_skin {
    const tl_scene_skin* sk;
    hair_grid grid;
    const float *centre, *ball; /* per triangle: 3 floats, 1 float */
    const uint32_t* rank;       /* per triangle: of equals the lowest rank wins */
    uint32_t *seen, query; /* per triangle: the last query that met it (filed in several cells) */
    const float* p;
    float best, bary[3];
    uint32_t tri;
} nape_skin;

/* Tests triangle id against the best so far. */
static void nape_test(nape_skin* n, uint32_t id) {
    const uint32_t* t = n->sk->triangles + 3 * (size_t)id;
    const float* r = n->sk->rest_positions;
    float b[3];
    /* surely farther: the ball's gap exceeds the best by 1e-4 (~100x float rounding), so a
       triangle that would tie or win is always tested; of equals the lowest rank wins, whatever
       the visit order */
    float gap = sqrtf(tl__dist2(n->p, n->centre + 3 * (size_t)id)) - n->ball[id];
    if (gap > 0 && gap * gap > n->best * (1 + 1e-4f)) return;
    float d2 = tl_mesh_triangle_nearest(n->p, r + 3 * (size_t)t[0], r + 3 * (size_t)t[1],
                                        r + 3 * (size_t)t[2], b);
    if (d2 < n->best || (d2 == n->best && n->tri != UINT32_MAX && n->rank[id] < n->rank[n->tri]))
        n->best = d2, n->tri = id, memcpy(n->bary, b, sizeof b);
}

static bool nape_visit(void* user, uint32_t id) {
    nape_skin* n = user;
    if (n->seen[id] == n->query) return true; /* met again: the same distance, the same outcome */
    n->seen[id] = n->query;
    nape_test(n, id);
    return true;
}

/* Visits the cells of n->grid that meet the box of p within r. */
static void nape_visit_box(nape_skin* n, double r) {
    const hair_grid* g = &n->grid;
    float a[3], b[3];
    uint32_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        a[k] = (float)(n->p[k] - r), b[k] = (float)(n->p[k] + r);
    if (!hair_grid_range(g, a, b, lo, hi)) return;
    for (uint32_t z = lo[2]; z <= hi[2]; ++z)
        for (uint32_t y = lo[1]; y <= hi[1]; ++y)
            for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
                size_t at = hair_grid_cell(g, x, y, z);
                for (uint32_t i = g->start[at]; i < g->start[at + 1]; ++i)
                    nape_visit(n, g->items[i]);
            }
}

/* The nearest body triangle to n->p within lie (n->tri UINT32_MAX: none): the least distance,
 * of equals the lowest rank, whatever the order the triangles are tested in (only those surely
 * farther than the best are skipped). Plain (narrow false): the triangles filed in the 27 cells
 * around p's, of a side over lie, so every triangle within lie. Narrowed: `hint` (the previous
 * query's triangle, UINT32_MAX: none) first, then the cells that meet the box of p within the
 * best's distance (lie, or the hint's when nearer), grown by 1e-4 and 1e-5 of p's size, far above
 * the distance's rounding: every triangle that could win or tie, in cells of any size. */
static void nape_nearest(nape_skin* n, float lie, bool narrow, uint32_t hint) {
    n->best = lie * lie, n->tri = UINT32_MAX, n->query++;
    if (!narrow) {
        hair_grid_visit(&n->grid, n->p, nape_visit, n);
        return;
    }
    if (hint != UINT32_MAX) n->seen[hint] = n->query, nape_test(n, hint);
    double size = fabs((double)n->p[0]) + fabs((double)n->p[1]) + fabs((double)n->p[2]);
    nape_visit_box(n, sqrt((double)n->best) * (1 + 1e-4) + 1e-5 * size);
}

/* The skin weights at the nearest point of triangle t (barycentrics b) summed per joint into
 * w[joint_count]. */
static void skin_weights(const tl_scene_skin* sk, uint32_t t, const float* b, float* w) {
    memset(w, 0, sizeof(float) * sk->joint_count);
    uint32_t n = sk->influence_count;
    for (int i = 0; i < 3; ++i) {
        uint32_t v = sk->triangles[3 * (size_t)t + i];
        for (uint32_t k = 0; k < n; ++k)
            w[sk->influence_joints[(size_t)v * n + k]] +=
                b[i] * sk->influence_weights[(size_t)v * n + k];
    }
}

/* The skin's share for hair `d` off skin whose weights are w: falls linearly from 1 on the skin
 * to 0 at the lying-on distance `lie`, and stays below the share at which a joint outside the
 * head's subtree would outweigh it (the rigged hair must stay hair: tl_hair_find_primitives). */
static float skin_share(const tl_scene_skin* sk, const uint8_t* in_head, const float* w, float d,
                        float lie) {
    float s = 1 - d / lie, other = 0, head = w[sk->body.head];
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        if (!in_head[j]) other = w[j] > other ? w[j] : other;
    /* the head's weight (1 - s) + s * head must stay above s * other */
    if (other > head) {
        float limit = 1 / (1 + other - head);
        s = s < limit ? s : limit * 0.999f; /* strictly below: ties go to the first joint */
    }
    return s > 0 ? s : 0;
}

static int float_order(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* The lying-on distance: how far the style's cap lies from the scalp, the median of its planned
 * head-alone vertices within `cap` of it (the inner half of the cap lies on the scalp at most
 * that far; the 90th percentile, 22-26 mm at human scale on the shared styles, reached hair
 * beside the jaw that the head turn then carried into the jaw's skin). 0: no cap. */
float hair_lying_on(const tl_hair_scalp* scalp, const float* pos, const uint32_t* ids,
                    uint32_t count, float cap, const float* known) {
    float* d = malloc(sizeof(float) * (count + 1));
    if (!d) return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i) {
        float dist, b[3], k = known ? known[ids[i]] : NAN;
        if (!isnan(k)) { /* the same query, answered before */
            if (k < INFINITY) d[n++] = k;
        } else if (hair_scalp_nearest(scalp, pos + 3 * (size_t)ids[i], cap, &dist, b) != UINT32_MAX)
            d[n++] = dist;
    }
    float lie = 0;
    if (n > 0) {
        qsort(d, n, sizeof *d, float_order);
        lie = d[(uint32_t)(0.5f * (float)(n - 1))];
    }
    free(d);
    return lie;
}

/* Is row k of a planned part the head alone? */
static bool head_alone(const tl_rig_part* part, uint32_t k, uint32_t head) {
    return part->new_joints[4 * (size_t)k] == head && part->new_weights[4 * (size_t)k] == 1;
}

/* The joints triangle t's vertices name and the head, ascending and once each, into `out` (3 ×
 * influence_count + 1 room): the only joints row_blend can give weight (others blend to 0). */
static uint32_t blend_joints(const tl_scene_skin* sk, uint32_t t, uint32_t head, uint32_t* out) {
    uint32_t n = 0, per = sk->influence_count;
    out[n++] = head;
    for (int i = 0; i < 3; ++i)
        for (uint32_t k = 0; k < per; ++k) {
            uint32_t j = sk->influence_joints[(size_t)sk->triangles[3 * (size_t)t + i] * per + k],
                     at = n;
            while (at > 0 && out[at - 1] > j)
                at--;
            if (at > 0 && out[at - 1] == j) continue;
            memmove(out + at + 1, out + at, sizeof(uint32_t) * (n - at));
            out[at] = j, n++;
        }
    return n;
}

/* Row k of a part: the head's weight blended with the skin's w at share s, its 4 largest (of
 * equals the lowest joint). Only the `count` joints in `joints` (ascending) are read: any other
 * has no skin weight and blends to 0, never taken. */
static void row_blend(tl_rig_part* part, uint32_t k, const float* w, const uint32_t* joints,
                      uint32_t count, uint32_t head, float s) {
    uint32_t* jo = part->new_joints + 4 * (size_t)k;
    float* wo = part->new_weights + 4 * (size_t)k;
    float total = 0;
    for (int i = 0; i < 4; ++i) {
        uint32_t m = UINT32_MAX;
        float mw = 0;
        for (uint32_t c = 0; c < count; ++c) {
            uint32_t j = joints[c];
            float x = s * w[j] + (j == head ? 1 - s : 0);
            bool taken = false;
            for (int q = 0; q < i; ++q)
                taken |= jo[q] == j && wo[q] > 0;
            if (!taken && x > mw) m = j, mw = x;
        }
        jo[i] = m == UINT32_MAX ? head : m, wo[i] = mw, total += mw;
    }
    for (int i = 0; i < 4; ++i)
        wo[i] = total > 0 ? wo[i] / total : i == 0;
}

/* The order in which equally near triangles resolve: their order in a grid over the centroids
 * with the lying-on distance past the largest ball as cell, the visit order of the binding
 * before it filed triangles by their boxes (nape15), kept so that the binding's result does not
 * change (a shared edge or corner is equally near from both its triangles, with barycentrics
 * that differ in rounding). */
static bool tie_ranks(const float* centre, const float* ball, const uint32_t* tris, uint32_t nt,
                      float lie, uint32_t* rank) {
    float corner = 0;
    for (uint32_t i = 0; i < nt; ++i)
        corner = fmaxf(corner, ball[tris[i]]);
    hair_grid g;
    if (!hair_grid_build(&g, centre, tris, nt, lie + corner)) return false;
    for (uint32_t i = 0; i < nt; ++i)
        rank[g.items[i]] = i;
    hair_grid_free(&g);
    return true;
}

/* Keeps in tris (in order) the triangles whose boxes meet the box of the points ids grown by
 * `grow`; returns their count. */
static uint32_t tris_near(const float* box, uint32_t* tris, uint32_t nt, const float* pos,
                          const uint32_t* ids, uint32_t count, float grow) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            float x = pos[3 * (size_t)ids[i] + k];
            lo[k] = fminf(lo[k], x - grow), hi[k] = fmaxf(hi[k], x + grow);
        }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < nt; ++i) {
        const float* b = box + 6 * (size_t)tris[i];
        bool apart = false;
        for (int k = 0; k < 3; ++k)
            apart |= b[k] > hi[k] || b[3 + k] < lo[k];
        if (!apart) tris[kept++] = tris[i];
    }
    return kept;
}

bool hair_nape_bind(tl_rig_analysis* a, const tl_scene* scene, uint32_t skin,
                    const tl_hair_scalp* scalp, uint32_t first_part, uint32_t parts, float cap,
                    const float* known, bool narrow) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint32_t head = (uint32_t)sk->body.head, count = 0, last = UINT32_MAX;
    for (uint32_t p = first_part; p < first_part + parts; ++p)
        count += a->parts[p].vertex_count;
    uint32_t* ids = malloc(sizeof(uint32_t) * (count + 1));
    uint8_t* body = malloc(sk->vertex_count + 1);
    uint8_t* in_head = malloc(sk->joint_count + 1);
    uint32_t* tris = malloc(sizeof(uint32_t) * (sk->triangle_count + 1));
    float* centre = malloc(3 * sizeof(float) * (sk->triangle_count + 1));
    float* box = malloc(6 * sizeof(float) * (sk->triangle_count + 1));
    uint32_t* rank = malloc(sizeof(uint32_t) * (sk->triangle_count + 1));
    uint32_t* seen = calloc(sk->triangle_count + 1, sizeof(uint32_t));
    float* ball = malloc(sizeof(float) * (sk->triangle_count + 1));
    float* w = malloc(sizeof(float) * (sk->joint_count + 1));
    uint32_t* blended = malloc(sizeof(uint32_t) * (3 * (size_t)sk->influence_count + 1));
    nape_skin ns = {.sk = sk, .centre = centre, .ball = ball, .rank = rank, .seen = seen};
    bool ok = ids && body && in_head && tris && centre && box && rank && seen && ball && w &&
              blended && tl_body_skin_mask(scene, skin, body, NULL) == TL_OK &&
              hair_head_joints(sk, in_head);
    uint32_t alone = 0, nt = 0;
    for (uint32_t p = first_part; ok && p < first_part + parts; ++p)
        for (uint32_t k = 0; k < a->parts[p].vertex_count; ++k)
            if (head_alone(&a->parts[p], k, head)) ids[alone++] = a->parts[p].vertices[k];
    float lie = ok ? hair_lying_on(scalp, sk->rest_positions, ids, alone, cap, known) : 0;
    for (uint32_t t = 0; ok && lie > 0 && t < sk->triangle_count; ++t) {
        const uint32_t* i = sk->triangles + 3 * (size_t)t;
        if (!body[i[0]] || !body[i[1]] || !body[i[2]]) continue;
        float *c = centre + 3 * (size_t)t, *bx = box + 6 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            const float* r = sk->rest_positions;
            float x = r[3 * (size_t)i[0] + k], y = r[3 * (size_t)i[1] + k],
                  z = r[3 * (size_t)i[2] + k];
            c[k] = (x + y + z) / 3;
            bx[k] = fminf(x, fminf(y, z)), bx[3 + k] = fmaxf(x, fmaxf(y, z));
        }
        ball[t] = 0;
        for (int k = 0; k < 3; ++k)
            ball[t] = fmaxf(ball[t], sqrtf(tl__dist2(c, sk->rest_positions + 3 * (size_t)i[k])));
        tris[nt++] = t;
    }
    ok = ok && (lie == 0 || nt == 0 || tie_ranks(centre, ball, tris, nt, lie, rank));
    /* narrowed: only the triangles whose boxes come within 2 lie of the hair's box (one farther
       from every query than lie is never taken); tris keeps its order, ranks are made */
    uint32_t filed = nt;
    if (narrow && ok && lie > 0)
        filed = tris_near(box, tris, nt, sk->rest_positions, ids, alone, 2 * lie);
    ok = ok && (lie == 0 || filed == 0 ||
                hair_grid_build_boxes(&ns.grid, box, tris, filed, lie + lie / 64,
                                      4 * (size_t)filed + 64));
    for (uint32_t p = first_part; ok && lie > 0 && filed > 0 && p < first_part + parts; ++p) {
        tl_rig_part* part = &a->parts[p];
        for (uint32_t k = 0; k < part->vertex_count; ++k) {
            if (!head_alone(part, k, head)) continue;
            ns.p = sk->rest_positions + 3 * (size_t)part->vertices[k];
            nape_nearest(&ns, lie, narrow, last);
            if (ns.tri == UINT32_MAX) continue;
            last = ns.tri;
            skin_weights(sk, ns.tri, ns.bary, w);
            float s = skin_share(sk, in_head, w, sqrtf(ns.best), lie);
            if (s > 0)
                row_blend(part, k, w, blended, blend_joints(sk, ns.tri, head, blended), head, s);
        }
    }
    if (filed > 0 && lie > 0) hair_grid_free(&ns.grid);
    free(ids), free(body), free(in_head), free(tris), free(centre), free(box), free(rank),
        free(seen), free(ball), free(w), free(blended);
    return ok;
}
