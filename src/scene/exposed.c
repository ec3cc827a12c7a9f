/* Which skin vertices an outside observer can see (include/tailor/colliders.h tl_skin_exposed):
 * a vertex is exposed when a ray from it in one of 26 fixed directions within 90 degrees of its
 * normal meets no triangle. Each direction bins the triangles on a grid across it, so a ray
 * tests only the triangles of its own cell. */
#include <tailor/colliders.h>
#include <tailor/mesh.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Area-weighted normals of the rest positions (not unit; a vertex in no triangle keeps 0). */
static void rest_normals(const tl_scene_skin* sk, const uint8_t* ignore, float* normals) {
    memset(normals, 0, sizeof(float) * 3 * sk->vertex_count);
    for (uint32_t t = 0; t < sk->triangle_count; ++t) {
        const uint32_t* i = sk->triangles + 3 * (size_t)t;
        if (ignore && (ignore[i[0]] || ignore[i[1]] || ignore[i[2]])) continue;
        const float *p = sk->rest_positions + 3 * (size_t)i[0],
                    *q = sk->rest_positions + 3 * (size_t)i[1],
                    *r = sk->rest_positions + 3 * (size_t)i[2];
        float u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        float v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        float n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                      u[0] * v[1] - u[1] * v[0]};
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c)
                normals[3 * (size_t)i[k] + c] += n[c];
    }
}

/* The triangles binned on a grid across one direction. */
typedef struct bins {
    double d[3], u[3], w[3]; /* the direction and two axes across it */
    double lo[2], cell;      /* the grid's corner and cell size (across the direction) */
    uint32_t side;           /* cells per side */
    uint32_t* start;         /* side * side + 1 offsets into `items` */
    uint32_t* items;
} bins;

static void across(const bins* b, const float* p, double out[2]) {
    out[0] = p[0] * b->u[0] + p[1] * b->u[1] + p[2] * b->u[2];
    out[1] = p[0] * b->w[0] + p[1] * b->w[1] + p[2] * b->w[2];
}

static uint32_t cell_of(const bins* b, double x, int axis) {
    double c = floor((x - b->lo[axis]) / b->cell);
    return c < 0 ? 0 : c >= b->side ? b->side - 1 : (uint32_t)c;
}

/* The cell range a triangle covers; false for an ignored one. */
static bool triangle_cells(const tl_scene_skin* sk, const uint8_t* ignore, const bins* b,
                           uint32_t t, uint32_t range[4]) {
    const uint32_t* i = sk->triangles + 3 * (size_t)t;
    if (ignore && (ignore[i[0]] || ignore[i[1]] || ignore[i[2]])) return false;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, x[2];
    for (int k = 0; k < 3; ++k) {
        across(b, sk->rest_positions + 3 * (size_t)i[k], x);
        for (int a = 0; a < 2; ++a)
            lo[a] = fmin(lo[a], x[a]), hi[a] = fmax(hi[a], x[a]);
    }
    range[0] = cell_of(b, lo[0], 0), range[1] = cell_of(b, hi[0], 0);
    range[2] = cell_of(b, lo[1], 1), range[3] = cell_of(b, hi[1], 1);
    return true;
}

/* Bins the skin's triangles across direction d (two passes: count, then fill). */
static bool bins_build(const tl_scene_skin* sk, const uint8_t* ignore, const double d[3], bins* b) {
    memcpy(b->d, d, sizeof b->d);
    double a[3] = {fabs(d[0]) < 0.9 ? 1 : 0, fabs(d[0]) < 0.9 ? 0 : 1, 0};
    double u[3] = {a[1] * d[2] - a[2] * d[1], a[2] * d[0] - a[0] * d[2], a[0] * d[1] - a[1] * d[0]};
    double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int c = 0; c < 3; ++c)
        b->u[c] = u[c] / n;
    b->w[0] = d[1] * b->u[2] - d[2] * b->u[1];
    b->w[1] = d[2] * b->u[0] - d[0] * b->u[2];
    b->w[2] = d[0] * b->u[1] - d[1] * b->u[0];
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, x[2];
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        across(b, sk->rest_positions + 3 * (size_t)v, x);
        for (int k = 0; k < 2; ++k)
            lo[k] = fmin(lo[k], x[k]), hi[k] = fmax(hi[k], x[k]);
    }
    /* about four triangles a cell where the skin covers the grid */
    b->side = 1 + (uint32_t)sqrt(sk->triangle_count / 4.0);
    if (b->side > 512) b->side = 512;
    b->cell = fmax(hi[0] - lo[0], hi[1] - lo[1]) / b->side;
    if (!(b->cell > 0)) b->cell = 1;
    b->lo[0] = lo[0], b->lo[1] = lo[1];
    size_t cells = (size_t)b->side * b->side;
    b->start = calloc(cells + 1, sizeof *b->start);
    if (!b->start) return false;
    uint32_t r[4];
    size_t total = 0;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        if (triangle_cells(sk, ignore, b, t, r))
            for (uint32_t y = r[2]; y <= r[3]; ++y)
                for (uint32_t c = r[0]; c <= r[1]; ++c)
                    ++b->start[(size_t)y * b->side + c + 1], ++total;
    for (size_t c = 0; c < cells; ++c)
        b->start[c + 1] += b->start[c];
    b->items = malloc(sizeof *b->items * (total + 1));
    uint32_t* fill = malloc(sizeof *fill * (cells + 1));
    if (!b->items || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, b->start, sizeof *fill * cells);
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        if (triangle_cells(sk, ignore, b, t, r))
            for (uint32_t y = r[2]; y <= r[3]; ++y)
                for (uint32_t c = r[0]; c <= r[1]; ++c)
                    b->items[fill[(size_t)y * b->side + c]++] = t;
    free(fill);
    return true;
}

/* Does the ray from vertex v along the bins' direction meet a triangle beyond `eps`? */
static bool ray_blocked(const tl_scene_skin* sk, const bins* b, uint32_t v, double eps) {
    const float* o = sk->rest_positions + 3 * (size_t)v;
    double x[2];
    across(b, o, x);
    size_t cell = (size_t)cell_of(b, x[1], 1) * b->side + cell_of(b, x[0], 0);
    const double* d = b->d;
    for (uint32_t k = b->start[cell]; k < b->start[cell + 1]; ++k) {
        const uint32_t* i = sk->triangles + 3 * (size_t)b->items[k];
        if (i[0] == v || i[1] == v || i[2] == v) continue;
        const float *p = sk->rest_positions + 3 * (size_t)i[0],
                    *q = sk->rest_positions + 3 * (size_t)i[1],
                    *r = sk->rest_positions + 3 * (size_t)i[2];
        double t = tl_mesh_ray_triangle(o, d, p, q, r);
        if (t != INFINITY && t > eps) return true;
    }
    return false;
}

tl_result tl_skin_exposed(const tl_scene* scene, uint32_t skin, const uint8_t* ignore,
                          const uint8_t* query, uint8_t* exposed, tl_error* err) {
    assert(scene && skin < scene->skin_count && query && exposed);
    const tl_scene_skin* sk = &scene->skins[skin];
    memset(exposed, 0, sk->vertex_count);
    float* normals = malloc(sizeof(float) * 3 * (sk->vertex_count + 1));
    uint8_t* open = calloc(sk->vertex_count + 1, 1); /* still to decide */
    if (!normals || !open) {
        free(normals), free(open);
        return tl_error_set(err, TL_ERROR_MEMORY, "exposed: out of memory");
    }
    rest_normals(sk, ignore, normals);
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        open[v] = query[v] && !(ignore && ignore[v]);
    /* (a hit nearer than float rounding of the skin's size is the vertex's own surface) */
    double eps = 1e-5 * (sk->height > 0 ? sk->height : 1);
    tl_result res = TL_OK;
    for (int dir = 0; dir < 27 && res == TL_OK; ++dir) {
        double d[3] = {dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len == 0) continue;
        for (int c = 0; c < 3; ++c)
            d[c] /= len;
        bins b = {0};
        if (!bins_build(sk, ignore, d, &b)) {
            res = tl_error_set(err, TL_ERROR_MEMORY, "exposed: out of memory");
        } else {
            for (uint32_t v = 0; v < sk->vertex_count; ++v) {
                const float* n = normals + 3 * (size_t)v;
                /* directions in front of the surface only: behind it the ray starts inside */
                if (!open[v] || n[0] * d[0] + n[1] * d[1] + n[2] * d[2] <= 0) continue;
                if (!ray_blocked(sk, &b, v, eps)) exposed[v] = 1, open[v] = 0;
            }
        }
        free(b.start), free(b.items);
    }
    free(normals), free(open);
    return res;
}
