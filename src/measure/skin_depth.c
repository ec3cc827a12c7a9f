/* How deep a region's vertices go inside the body's posed skin (skin_depth.h). The body's
 * triangles are put in a hashed grid each sample; a vertex's depth is its distance to the
 * nearest triangle within the reach, signed by the skin's normal interpolated at the nearest
 * point (smooth, so a point off an edge or a corner is not taken inside by the one face it
 * happens to be nearest). */
#include "skin_depth.h"

#include <tailor/mesh.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPAN 2 /* cells a side of the query's cell: a cell is reach / SPAN */
#define SIDE (2 * SPAN + 1)
#define DIRECT 0.7f /* the least cosine of p - q to the normal for "inside" */
#define SPAN_CAP 64 /* cells a triangle may cover along an axis (a wider one is cut) */

struct skin_depth {
    uint32_t skin, region_count;
    uint32_t* tris; /* the body's triangles, 3 union vertices each */
    uint32_t tri_count;
    uint32_t* first; /* region r measures verts[first[r] .. first[r + 1]) */
    uint32_t* verts;
    float* deepest;
    float reach, inv_cell;
    float* positions; /* vertex_count x 3 */
    float* normals;   /* vertex_count x 3, the body's, area-weighted */
    float* joints;    /* joint_cap x 16 */
    uint32_t joint_cap;
    uint32_t table_mask;
    uint32_t *start, *cursor; /* table + 1 each */
    uint32_t* entries;        /* pairs: triangle, its cell's key */
    size_t entry_cap;
    int* cells;     /* tri_count x 6: each triangle's cell range this sample */
    float* spheres; /* tri_count x 4: a sphere round each triangle this sample (a cheap skip) */
    int order[SIDE * SIDE * SIDE][3]; /* the neighbourhood, nearest cells first */
};

static int cell_coord(float x, float inv) {
    float c = floorf(x * inv);
    if (c != c) return 0; /* (a non-finite position: any cell, its distances are not finite) */
    return c > 1e8f ? 100000000 : c < -1e8f ? -100000000 : (int)c; /* (far points: one cell) */
}

/* A cell's key; its bucket is key & table_mask (entries keep the key: a bucket holds other
 * cells too, whose triangles are skipped without a test). */
static uint32_t cell_hash(int x, int y, int z) {
    return (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
}

static void tri_cells(const skin_depth* d, const float* pos, const uint32_t* t, int lo[3],
                      int hi[3]) {
    for (int k = 0; k < 3; ++k) {
        float a = pos[3 * (size_t)t[0] + k], b = pos[3 * (size_t)t[1] + k],
              c = pos[3 * (size_t)t[2] + k];
        lo[k] = cell_coord(fminf(a, fminf(b, c)), d->inv_cell);
        hi[k] = cell_coord(fmaxf(a, fmaxf(b, c)), d->inv_cell);
        if (hi[k] - lo[k] >= SPAN_CAP) hi[k] = lo[k] + SPAN_CAP - 1;
    }
}

/* The grid of the body's triangles at `pos`, and its vertex normals. False on memory. */
static bool grid_build(skin_depth* d, const float* pos, uint32_t vertex_count) {
    uint32_t table = d->table_mask + 1;
    memset(d->start, 0, sizeof(uint32_t) * (table + 1));
    memset(d->normals, 0, 3 * sizeof(float) * vertex_count);
    size_t total = 0;
    for (uint32_t t = 0; t < d->tri_count; ++t) {
        const uint32_t* i = d->tris + 3 * (size_t)t;
        const float *a = pos + 3 * (size_t)i[0], *b = pos + 3 * (size_t)i[1],
                    *c = pos + 3 * (size_t)i[2];
        float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                      ab[0] * ac[1] - ab[1] * ac[0]};
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j)
                d->normals[3 * (size_t)i[k] + j] += n[j];
        float *sp = d->spheres + 4 * (size_t)t, r2 = 0;
        for (int k = 0; k < 3; ++k)
            sp[k] = (a[k] + b[k] + c[k]) / 3.0f;
        for (int j = 0; j < 3; ++j) {
            const float* x = pos + 3 * (size_t)i[j];
            float e = (x[0] - sp[0]) * (x[0] - sp[0]) + (x[1] - sp[1]) * (x[1] - sp[1]) +
                      (x[2] - sp[2]) * (x[2] - sp[2]);
            r2 = fmaxf(r2, e);
        }
        sp[3] = sqrtf(r2) * 1.0001f;
        int *lo = d->cells + 6 * (size_t)t, *hi = lo + 3;
        tri_cells(d, pos, i, lo, hi);
        for (int x = lo[0]; x <= hi[0]; ++x)
            for (int y = lo[1]; y <= hi[1]; ++y)
                for (int z = lo[2]; z <= hi[2]; ++z, ++total)
                    d->start[(cell_hash(x, y, z) & d->table_mask) + 1]++;
    }
    if (total > d->entry_cap) {
        uint32_t* grown = realloc(d->entries, 2 * sizeof(uint32_t) * total);
        if (!grown) return false;
        d->entries = grown, d->entry_cap = total;
    }
    for (uint32_t h = 0; h < table; ++h)
        d->start[h + 1] += d->start[h];
    memcpy(d->cursor, d->start, sizeof(uint32_t) * table);
    for (uint32_t t = 0; t < d->tri_count; ++t) {
        const int *lo = d->cells + 6 * (size_t)t, *hi = lo + 3;
        for (int x = lo[0]; x <= hi[0]; ++x)
            for (int y = lo[1]; y <= hi[1]; ++y)
                for (int z = lo[2]; z <= hi[2]; ++z) {
                    uint32_t key = cell_hash(x, y, z), at = d->cursor[key & d->table_mask]++;
                    d->entries[2 * (size_t)at] = t, d->entries[2 * (size_t)at + 1] = key;
                }
    }
    return true;
}

/* The signed distance of p to the body skin at `pos` (negative inside), or INFINITY when no
 * triangle lies within the reach. */
static float signed_depth(const skin_depth* d, const float* pos, const float* p) {
    int c[3] = {cell_coord(p[0], d->inv_cell), cell_coord(p[1], d->inv_cell),
                cell_coord(p[2], d->inv_cell)};
    float cell = 1.0f / d->inv_cell, best = d->reach * d->reach, bary[3] = {0, 0, 0};
    uint32_t tri = UINT32_MAX;
    for (int o = 0; o < SIDE * SIDE * SIDE; ++o) {
        const int* off = d->order[o];
        uint32_t key = cell_hash(c[0] + off[0], c[1] + off[1], c[2] + off[2]);
        uint32_t h = key & d->table_mask;
        if (d->start[h] == d->start[h + 1]) continue;
        float gap = 0; /* p's distance to the cell's box */
        for (int k = 0; k < 3; ++k) {
            float lo = (float)(c[k] + off[k]) * cell, hi = lo + cell;
            float g = p[k] < lo ? lo - p[k] : p[k] > hi ? p[k] - hi : 0;
            gap += g * g;
        }
        if (gap >= best) continue;
        for (uint32_t e = d->start[h]; e < d->start[h + 1]; ++e) {
            if (d->entries[2 * (size_t)e + 1] != key) continue;
            uint32_t t = d->entries[2 * (size_t)e];
            const float* sp = d->spheres + 4 * (size_t)t;
            float dx = p[0] - sp[0], dy = p[1] - sp[1], dz = p[2] - sp[2];
            float out = sqrtf(dx * dx + dy * dy + dz * dz) - sp[3];
            if (out > 0 && out * out >= best) continue;
            const uint32_t* i = d->tris + 3 * (size_t)t;
            float w[3];
            float d2 = tl_mesh_triangle_nearest(p, pos + 3 * (size_t)i[0], pos + 3 * (size_t)i[1],
                                                pos + 3 * (size_t)i[2], w);
            if (d2 < best) best = d2, tri = t, memcpy(bary, w, sizeof bary);
        }
    }
    if (tri == UINT32_MAX) return INFINITY;
    const uint32_t* i = d->tris + 3 * (size_t)tri;
    float side = 0, across = 0, nn = 0; /* (p - q) . n, and it against |p - q| |n| */
    for (int k = 0; k < 3; ++k) {
        float q = 0, n = 0;
        for (int j = 0; j < 3; ++j)
            q += bary[j] * pos[3 * (size_t)i[j] + k],
                n += bary[j] * d->normals[3 * (size_t)i[j] + k];
        side += (p[k] - q) * n, nn += n * n;
    }
    const float den = nn * best; /* (0 for a point on the skin or a skin of no size here) */
    across = den > 0 ? side * side / den : 0;
    /* Behind the skin and straight across it: a point beyond an open sheet's edge (a body whose
       skin under the clothes was cut away) is behind it only obliquely, and is not inside. */
    return side < 0 && across >= DIRECT * DIRECT ? -sqrtf(best) : sqrtf(best);
}

static int order_cmp(const void* a, const void* b) {
    const int *x = a, *y = b;
    int dx = 0, dy = 0;
    for (int k = 0; k < 3; ++k) {
        int ax = abs(x[k]) - 1, ay = abs(y[k]) - 1;
        dx += ax > 0 ? ax * ax : 0, dy += ay > 0 ? ay * ay : 0;
    }
    return (dx > dy) - (dx < dy);
}

skin_depth* skin_depth_create(const tl_scene* scene, uint32_t skin, const uint8_t* const* regions,
                              uint32_t region_count, const uint8_t* body) {
    const tl_scene_skin* sk = &scene->skins[skin];
    skin_depth* d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->skin = skin, d->region_count = region_count;
    d->reach = TL_SKIN_DEPTH_REACH * sk->height;
    d->inv_cell = d->reach > 0 ? (float)SPAN / d->reach : 1.0f;
    uint32_t table = 1;
    while (table < 2 * sk->triangle_count + 1 && table < (1u << 30))
        table <<= 1;
    d->table_mask = table - 1;
    size_t n = 0;
    for (int x = -SPAN; x <= SPAN; ++x)
        for (int y = -SPAN; y <= SPAN; ++y)
            for (int z = -SPAN; z <= SPAN; ++z, ++n)
                d->order[n][0] = x, d->order[n][1] = y, d->order[n][2] = z;
    qsort(d->order, n, sizeof d->order[0], order_cmp);
    d->tris = malloc(3 * sizeof(uint32_t) * (sk->triangle_count + 1));
    d->first = calloc(region_count + 1, sizeof(uint32_t));
    d->verts = malloc(sizeof(uint32_t) * ((size_t)sk->vertex_count * region_count + 1));
    d->deepest = calloc(region_count + 1, sizeof(float));
    d->positions = malloc(3 * sizeof(float) * (sk->vertex_count + 1));
    d->normals = malloc(3 * sizeof(float) * (sk->vertex_count + 1));
    d->start = malloc(sizeof(uint32_t) * (table + 1));
    d->cursor = malloc(sizeof(uint32_t) * (table + 1));
    d->cells = malloc(6 * sizeof(int) * (sk->triangle_count + 1));
    d->spheres = malloc(4 * sizeof(float) * (sk->triangle_count + 1));
    if (!d->cells || !d->spheres || !d->tris || !d->first || !d->verts || !d->deepest ||
        !d->positions || !d->normals || !d->start || !d->cursor) {
        skin_depth_destroy(d);
        return NULL;
    }
    for (uint32_t t = 0; t < sk->triangle_count; ++t) {
        const uint32_t* i = sk->triangles + 3 * (size_t)t;
        if (body[i[0]] && body[i[1]] && body[i[2]])
            memcpy(d->tris + 3 * (size_t)d->tri_count++, i, 3 * sizeof(uint32_t));
    }
    if (!grid_build(d, sk->rest_positions, sk->vertex_count)) {
        skin_depth_destroy(d);
        return NULL;
    }
    uint32_t m = 0;
    for (uint32_t r = 0; r < region_count; ++r) {
        d->first[r] = m;
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            if (regions[r][v] &&
                !(signed_depth(d, sk->rest_positions, sk->rest_positions + 3 * (size_t)v) < 0))
                d->verts[m++] = v;
    }
    d->first[region_count] = m;
    return d;
}

bool skin_depth_add(skin_depth* d, const tl_scene* scene, const tl_pose* pose) {
    const tl_scene_skin* sk = &scene->skins[d->skin];
    if (sk->joint_count > d->joint_cap) {
        float* grown = realloc(d->joints, 16 * sizeof(float) * sk->joint_count);
        if (!grown) return false;
        d->joints = grown, d->joint_cap = sk->joint_count;
    }
    tl_pose_joint_matrices(pose, scene, d->skin, d->joints);
    tl_scene_skin_positions(scene, d->skin, d->joints, d->positions);
    if (!grid_build(d, d->positions, sk->vertex_count)) return false;
    for (uint32_t r = 0; r < d->region_count; ++r)
        for (uint32_t k = d->first[r]; k < d->first[r + 1]; ++k) {
            float s = signed_depth(d, d->positions, d->positions + 3 * (size_t)d->verts[k]);
            if (-s > d->deepest[r]) d->deepest[r] = -s;
        }
    return true;
}

float skin_depth_deepest(const skin_depth* d, uint32_t r) {
    return r < d->region_count ? d->deepest[r] : 0;
}

void skin_depth_clear(skin_depth* d) {
    memset(d->deepest, 0, sizeof(float) * (d->region_count + 1));
}

void skin_depth_destroy(skin_depth* d) {
    if (!d) return;
    free(d->tris), free(d->first), free(d->verts), free(d->deepest), free(d->positions),
        free(d->normals), free(d->joints), free(d->start), free(d->cursor), free(d->entries),
        free(d->cells), free(d->spheres);
    free(d);
}
