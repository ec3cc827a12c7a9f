/* The adapter's cover (chains.c): the hair off the cap each candidate chain would take. */
#include "internal.h"
#include "mesh/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each bone's box grown by bind and a slack far above the distance test's float rounding
 * (1e-4 of the coordinates' size and of bind), so a vertex outside it is beyond bind in the test
 * as well. */
static void cover_boxes(const float* joints, uint32_t bones, float bind, float* box, float* sure) {
    for (uint32_t b = 0; b < bones; ++b) {
        const float *j = joints + 3 * b, *e = j + 3;
        double size = bind;
        for (int k = 0; k < 3; ++k)
            size += fabs((double)j[k]) + fabs((double)e[k]);
        double grow = bind + 1e-4 * size, in = bind - 1e-4 * size;
        sure[b] = in > 0 ? (float)(in * in) : -1;
        for (int k = 0; k < 3; ++k) {
            box[6 * b + k] = (float)(fmin(j[k], e[k]) - grow);
            box[6 * b + 3 + k] = (float)(fmax(j[k], e[k]) + grow);
        }
    }
}

/* Whether p lies within bind of bone b (near: its box meets p's cell), the box first: outside
 * it, surely not. */
static inline bool cover_bone_takes(const float* p, const float* joints, const float* box,
                                    const float* sure, uint32_t b, float bind2) {
    box += 6 * b;
    if (p[0] < box[0] || p[1] < box[1] || p[2] < box[2] || p[0] > box[3] || p[1] > box[4] ||
        p[2] > box[5])
        return false;
    /* within bind less the slack of a joint: surely within bind of the bone in the test */
    if (tl__dist2(p, joints + 3 * b) <= sure[b] || tl__dist2(p, joints + 3 * b + 3) <= sure[b])
        return true;
    return tl__mesh_segment_distance2(p, joints + 3 * b, joints + 3 * b + 3, NULL) <= bind2;
}

/* Whether p lies within bind of one of the bones in `near` (a bit per bone; the others' boxes
 * miss p's cell): bone *last first (the one that took the vertex before, most often the one
 * that takes this), then the others; *last becomes the bone that took p. An "any": the order
 * does not change the answer. */
static bool cover_takes(const float* p, const float* joints, const float* box, const float* sure,
                        uint32_t bones, uint64_t near, float bind2, uint32_t* last) {
    if (near >> *last & 1 && cover_bone_takes(p, joints, box, sure, *last, bind2)) return true;
    near &= ~((uint64_t)1 << *last);
    for (uint32_t b = 0; b < bones; ++b)
        if (near >> b & 1 && cover_bone_takes(p, joints, box, sure, b, bind2))
            return *last = b, true;
    return false;
}

float hair_cover_bind2(float bind) {
    if (!(bind >= 0)) return -INFINITY;
    if (isinf(bind)) return INFINITY;
    float x = bind * bind;
    while (sqrtf(x) > bind)
        x = nextafterf(x, 0);
    while (x < INFINITY && sqrtf(nextafterf(x, INFINITY)) <= bind)
        x = nextafterf(x, INFINITY);
    return x;
}

/* The bones whose boxes meet cell (x, y, z) grown by `margin` (a bit each): a vertex filed in
 * the cell lies in it but for the rounding of its cell index, far below the margin, so a box
 * that misses it holds none of its vertices. */
static uint64_t cell_bones(const hair_grid* g, uint32_t x, uint32_t y, uint32_t z, const float* box,
                           uint32_t bones, double margin) {
    const uint32_t c[3] = {x, y, z};
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = g->origin[k] + (double)c[k] * g->cell - margin;
        hi[k] = g->origin[k] + (double)(c[k] + 1) * g->cell + margin;
    }
    uint64_t near = 0;
    for (uint32_t b = 0; b < bones; ++b, box += 6) {
        bool apart = false;
        for (int k = 0; k < 3; ++k)
            apart = apart || box[k] > hi[k] || box[3 + k] < lo[k];
        if (!apart) near |= (uint64_t)1 << b;
    }
    return near;
}

/* A vertex lies in one grid cell, and a vertex within bind of a bone in a cell its box meets
 * (the cell index is monotone in the coordinate), so each cell met by a bone's box is read once
 * per set and each of its vertices tested once: the set is the plain scan's. In a cell only the
 * bones whose boxes meet it are tested (an "any": the same answer). */
bool hair_cover_build(const float* positions, uint32_t V, const uint8_t* off_cap,
                      const float* joints, const uint8_t* skip, uint32_t count, uint32_t bones,
                      float bind, uint32_t* off, uint32_t** items) {
    assert(bones >= 1 && bones <= TL_CHAIN_MAX_BONES);
    uint32_t n_off = 0, *ids = malloc(sizeof(uint32_t) * ((size_t)V + 1)), *stamp = NULL;
    uint32_t* list = NULL; /* the sets' vertices: count of capacity */
    size_t count_all = 0, capacity = 0;
    hair_grid grid = {0};
    for (uint32_t v = 0; ids && v < V; ++v)
        if (off_cap[v]) ids[n_off++] = v;
    bool ok = ids && hair_grid_build(&grid, positions, ids, n_off, bind);
    size_t cells = ok ? (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] : 0;
    ok = ok && (stamp = calloc(cells + 1, sizeof(uint32_t)));
    float box[6 * TL_CHAIN_MAX_BONES], sure[TL_CHAIN_MAX_BONES];
    /* the cell index's rounding is ~1e-7 of the coordinates: a margin far above it */
    double margin = 1e-3 * grid.cell;
    const float bind2 = hair_cover_bind2(bind);
    for (int k = 0; ok && k < 3; ++k)
        margin += 1e-5 * (fabs((double)grid.origin[k]) + (double)grid.dims[k] * grid.cell);
    for (uint32_t i = 0; ok && i < count; ++i) {
        off[i] = (uint32_t)count_all;
        if (skip && skip[i]) continue;
        const float* j = joints + 3 * (size_t)(bones + 1) * i;
        cover_boxes(j, bones, bind, box, sure);
        uint32_t last = 0;
        for (uint32_t b = 0; ok && b < bones; ++b) {
            uint32_t lo[3], hi[3];
            if (!hair_grid_range(&grid, box + 6 * b, box + 6 * b + 3, lo, hi)) continue;
            for (uint32_t z = lo[2]; z <= hi[2]; ++z)
                for (uint32_t y = lo[1]; y <= hi[1]; ++y)
                    for (uint32_t x = lo[0]; ok && x <= hi[0]; ++x) {
                        size_t c = hair_grid_cell(&grid, x, y, z);
                        if (stamp[c] == i + 1) continue; /* read for an earlier bone */
                        stamp[c] = i + 1;
                        if (grid.start[c] == grid.start[c + 1]) continue;
                        uint64_t near = cell_bones(&grid, x, y, z, box, bones, margin);
                        /* room for the whole cell once, so a vertex taken is only stored */
                        size_t need = count_all + (grid.start[c + 1] - grid.start[c]);
                        if (need > capacity) {
                            size_t grown = capacity ? 2 * capacity : 1024;
                            grown = grown < need ? need : grown;
                            uint32_t* more = realloc(list, sizeof(uint32_t) * grown);
                            ok = more != NULL;
                            if (!ok) break;
                            list = more, capacity = grown;
                        }
                        for (uint32_t k = grid.start[c]; k < grid.start[c + 1]; ++k) {
                            uint32_t v = grid.items[k];
                            if (cover_takes(positions + 3 * (size_t)v, j, box, sure, bones, near,
                                            bind2, &last))
                                list[count_all++] = v;
                        }
                    }
        }
    }
    if (ok) off[count] = (uint32_t)count_all;
    hair_grid_free(&grid);
    free(ids), free(stamp);
    *items = list;
    if (!ok) free(list), *items = NULL;
    return ok;
}

bool hair_cover_tally_init(hair_cover_tally* t, const uint32_t* off, const uint32_t* items,
                           uint32_t count, uint32_t V) {
    *t = (hair_cover_tally){.count = count, .V = V, .off = off, .items = items};
    size_t total = off[count];
    t->by_off = calloc((size_t)V + 1, sizeof(uint32_t));
    t->by = malloc(sizeof(uint32_t) * (total + 1));
    t->fresh = malloc(sizeof(uint32_t) * ((size_t)count + 1));
    t->taken = malloc((size_t)V + 1);
    if (!t->by_off || !t->by || !t->fresh || !t->taken) return hair_cover_tally_free(t), false;
    for (size_t k = 0; k < total; ++k) /* counted at v + 1, then summed: starts */
        t->by_off[items[k] + 1]++;
    for (uint32_t v = 0; v < V; ++v)
        t->by_off[v + 1] += t->by_off[v];
    for (uint32_t i = 0; i < count; ++i) /* each vertex's sets ascending; starts move one on */
        for (uint32_t k = off[i]; k < off[i + 1]; ++k)
            t->by[t->by_off[items[k]]++] = i;
    for (uint32_t v = V; v > 0; --v)
        t->by_off[v] = t->by_off[v - 1];
    t->by_off[0] = 0;
    hair_cover_tally_reset(t);
    return true;
}

void hair_cover_tally_reset(hair_cover_tally* t) {
    memset(t->taken, 0, t->V);
    for (uint32_t i = 0; i < t->count; ++i)
        t->fresh[i] = t->off[i + 1] - t->off[i];
}

void hair_cover_tally_take(hair_cover_tally* t, uint32_t set) {
    for (uint32_t k = t->off[set]; k < t->off[set + 1]; ++k) {
        uint32_t v = t->items[k];
        if (t->taken[v]) continue;
        t->taken[v] = 1; /* each set listing v (as often as it lists it) has one fewer */
        for (uint32_t i = t->by_off[v]; i < t->by_off[v + 1]; ++i)
            t->fresh[t->by[i]]--;
    }
}

void hair_cover_tally_free(hair_cover_tally* t) {
    free(t->by_off), free(t->by), free(t->fresh), free(t->taken);
    memset(t, 0, sizeof *t);
}

size_t hair_chain_boxes_size(const tl_hair_chains* cs) {
    return 6 * (TL_CHAIN_MAX_BONES + 1) * (size_t)cs->chain_count;
}

void hair_chain_boxes(const tl_hair_chains* cs, float bind, float* boxes) {
    float sure[TL_CHAIN_MAX_BONES];
    for (uint32_t c = 0; c < cs->chain_count; ++c) {
        const tl_hair_chain* chain = &cs->chains[c];
        float* box = boxes + 6 * (TL_CHAIN_MAX_BONES + 1) * (size_t)c;
        for (int k = 0; k < 3; ++k)
            box[k] = INFINITY, box[3 + k] = -INFINITY;
        cover_boxes(chain->joints, chain->bone_count, bind, box + 6, sure);
        for (uint32_t b = 0; b < chain->bone_count; ++b)
            for (int k = 0; k < 3; ++k) {
                box[k] = fminf(box[k], box[6 * (b + 1) + k]);
                box[3 + k] = fmaxf(box[3 + k], box[6 * (b + 1) + 3 + k]);
            }
    }
}

static bool box_misses(const float* box, const float* p) {
    return p[0] < box[0] || p[1] < box[1] || p[2] < box[2] || p[0] > box[3] || p[1] > box[4] ||
           p[2] > box[5];
}

uint32_t hair_chain_nearest(const tl_hair_chains* cs, const float* boxes, const float p[3],
                            float bind, uint32_t* bone, float* t) {
    float best = bind;
    uint32_t bc = UINT32_MAX;
    *bone = 0, *t = 0;
    for (uint32_t c = 0; c < cs->chain_count; ++c) {
        const float* box = boxes ? boxes + 6 * (TL_CHAIN_MAX_BONES + 1) * (size_t)c : NULL;
        /* outside a box: farther than bind, so than the best (which starts at bind) */
        if (box && box_misses(box, p)) continue;
        for (uint32_t b = 0; b < cs->chains[c].bone_count; ++b) {
            if (box && box_misses(box + 6 * (b + 1), p)) continue;
            float tb;
            const float* j = cs->chains[c].joints + 3 * b;
            float d = tl_mesh_segment_distance(p, j, j + 3, &tb);
            if (d <= best) best = d, bc = c, *bone = b, *t = tb;
        }
    }
    return bc;
}
