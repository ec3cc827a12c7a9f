/* The hair mesh: read from an OBJ file or copied from a character's primitive. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <tailor/file.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/try.h"

void tl_hair_mesh_free(tl_hair_mesh* mesh) {
    if (!mesh) return;
    free(mesh->positions);
    free(mesh->triangles);
    memset(mesh, 0, sizeof *mesh);
}

bool hair_grow_push(hair_grow* g, const void* item) {
    if (g->count == g->capacity) {
        size_t capacity = g->capacity ? 2 * g->capacity : 1024;
        void* items = realloc(g->items, capacity * g->size);
        if (!items) return false;
        g->items = items;
        g->capacity = capacity;
    }
    memcpy((char*)g->items + g->count * g->size, item, g->size);
    g->count++;
    return true;
}

/* One face corner "i", "i/t", "i//n" or "i/t/n": the vertex index, 0-based, or -1 when it is
 * not a valid index of the vertices read so far. */
static int64_t obj_corner(const char** s, size_t vertex_count) {
    char* end;
    errno = 0;
    long long i = strtoll(*s, &end, 10);
    if (end == *s || errno) return -1;
    *s = end;
    while (**s && **s != ' ' && **s != '\t' && **s != '\r' && **s != '\n')
        (*s)++;
    if (i < 0) i += (long long)vertex_count + 1; /* relative: -1 is the last vertex */
    if (i < 1 || (unsigned long long)i > vertex_count) return -1;
    return i - 1;
}

static const char* skip_space(const char* s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static tl_result obj_line(const char* line, const char* path, size_t number, hair_grow* v,
                          hair_grow* t, tl_error* err) {
    if (line[0] == 'v' && (line[1] == ' ' || line[1] == '\t')) {
        float p[3];
        char* end = (char*)line + 1;
        for (int k = 0; k < 3; ++k) {
            const char* start = end;
            p[k] = strtof(start, &end);
            if (end == start || !isfinite(p[k]) || fabsf(p[k]) > TL_SCENE_MAX_MAGNITUDE)
                return tl_error_set(err, TL_ERROR_INVALID,
                                    "%s: line %zu: a vertex needs three finite coordinates", path,
                                    number);
        }
        if (v->count / 3 >= UINT32_MAX / 2)
            return tl_error_set(err, TL_ERROR_LIMIT, "%s: line %zu: too many vertices", path,
                                number);
        for (int k = 0; k < 3; ++k)
            if (!hair_grow_push(v, &p[k]))
                return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        return TL_OK;
    }
    if (line[0] != 'f' || (line[1] != ' ' && line[1] != '\t')) return TL_OK;
    const char* s = line + 1;
    int64_t first = -1, previous = -1;
    size_t corners = 0;
    for (s = skip_space(s); *s && *s != '\r' && *s != '\n'; s = skip_space(s)) {
        int64_t i = obj_corner(&s, v->count / 3);
        if (i < 0)
            return tl_error_set(err, TL_ERROR_INVALID,
                                "%s: line %zu: face corner %zu is not a vertex index (1..%zu)",
                                path, number, corners + 1, v->count / 3);
        if (corners == 0) first = i;
        if (corners >= 2) {
            uint32_t tri[3] = {(uint32_t)first, (uint32_t)previous, (uint32_t)i};
            for (int k = 0; k < 3; ++k)
                if (!hair_grow_push(t, &tri[k]))
                    return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        }
        previous = i;
        corners++;
    }
    if (corners < 3)
        return tl_error_set(err, TL_ERROR_INVALID, "%s: line %zu: a face needs 3 corners, has %zu",
                            path, number, corners);
    if (t->count / 3 >= UINT32_MAX / 4)
        return tl_error_set(err, TL_ERROR_LIMIT, "%s: line %zu: too many faces", path, number);
    return TL_OK;
}

tl_result tl_hair_mesh_read_obj_memory(const void* data, size_t size, const char* name,
                                       tl_hair_mesh* out, tl_error* err) {
    assert((data || size == 0) && name && out);
    memset(out, 0, sizeof *out);
    const char* bytes = data;
    hair_grow v = {.size = sizeof(float)}, t = {.size = sizeof(uint32_t)};
    char* line = NULL; /* each line copied and ended, for the number parsers */
    size_t capacity = 0, number = 0;
    tl_result r = TL_OK;
    for (size_t at = 0; r == TL_OK && at < size;) {
        const char* end = memchr(bytes + at, '\n', size - at);
        size_t n = end ? (size_t)(end - (bytes + at)) + 1 : size - at;
        ++number;
        const char* zero = memchr(bytes + at, 0, n);
        if (zero) {
            r = tl_error_set(err, TL_ERROR_FORMAT, "%s: line %zu: binary data at byte offset %zu",
                             name, number, (size_t)(zero - bytes));
            break;
        }
        if (n + 1 > capacity) {
            char* grown = realloc(line, n + 1);
            if (!grown) {
                r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
                break;
            }
            line = grown, capacity = n + 1;
        }
        memcpy(line, bytes + at, n);
        line[n] = 0;
        r = obj_line(line, name, number, &v, &t, err);
        at += n;
    }
    if (r == TL_OK && v.count == 0)
        r = tl_error_set(err, TL_ERROR_FORMAT, "%s: no vertex (not an OBJ file?)", name);
    free(line);
    if (r != TL_OK) {
        free(v.items);
        free(t.items);
        return r;
    }
    out->positions = v.items;
    out->vertex_count = (uint32_t)(v.count / 3);
    out->triangles = t.items;
    out->triangle_count = (uint32_t)(t.count / 3);
    return TL_OK;
}

tl_result tl_hair_mesh_read_obj(const char* path, tl_hair_mesh* out, tl_error* err) {
    assert(path && out);
    memset(out, 0, sizeof *out);
    uint8_t* data = NULL;
    size_t size = 0;
    tl_result r = tl_file_read(path, TL_HAIR_MAX_OBJ_BYTES, &data, &size, NULL, NULL, err);
    if (r == TL_OK) r = tl_hair_mesh_read_obj_memory(data, size, path, out, err);
    free(data);
    return r;
}

tl_result tl_hair_mesh_from_scene(const tl_scene* scene, uint32_t skin, uint32_t primitive,
                                  tl_hair_mesh* out, tl_error* err) {
    assert(scene && out && skin < scene->skin_count);
    const tl_scene_skin* s = &scene->skins[skin];
    assert(primitive < s->primitive_count);
    const tl_scene_primitive* p = &s->primitives[primitive];
    memset(out, 0, sizeof *out);
    out->positions = malloc(3 * sizeof(float) * (p->vertex_count ? p->vertex_count : 1));
    out->triangles = malloc(3 * sizeof(uint32_t) * (p->triangle_count ? p->triangle_count : 1));
    if (!out->positions || !out->triangles) {
        tl_hair_mesh_free(out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    memcpy(out->positions, s->rest_positions + 3 * (size_t)p->first_vertex,
           3 * sizeof(float) * p->vertex_count);
    out->vertex_count = p->vertex_count;
    uint32_t n = 0;
    for (uint32_t t = 0; t < p->triangle_count; ++t) {
        const uint32_t* tri = s->triangles + 3 * ((size_t)p->first_triangle + t);
        bool inside = true;
        for (int k = 0; k < 3; ++k)
            inside &= tri[k] >= p->first_vertex && tri[k] - p->first_vertex < p->vertex_count;
        if (!inside) continue; /* cannot happen for a primitive's own triangles; be safe */
        for (int k = 0; k < 3; ++k)
            out->triangles[3 * n + k] = tri[k] - p->first_vertex;
        ++n;
    }
    out->triangle_count = n;
    return TL_OK;
}

bool hair_head_joints(const tl_scene_skin* skin, uint8_t* in_head) {
    memset(in_head, 0, skin->joint_count);
    if (skin->body.head == TL_NONE) return false;
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        for (int32_t a = (int32_t)j; a != TL_NONE; a = skin->joints[a].parent)
            if (a == skin->body.head) {
                in_head[j] = 1;
                break;
            }
    }
    return true;
}

/* A point's cell in hair_stitched_count's grid; false when not finite (never within a
 * tolerance of anything) or too far out for 32-bit cells (*big set). */
static bool stitch_cell(const float* x, double cell, int32_t c[3], bool* big) {
    for (int k = 0; k < 3; ++k) {
        double q = floor((double)x[k] / cell);
        if (!isfinite(x[k])) return false;
        if (!(fabs(q) < 1 << 30)) return *big = true, false;
        c[k] = (int32_t)q;
    }
    return true;
}

static uint32_t stitch_slot(const int32_t c[3], uint32_t mask) {
    uint64_t h = (uint64_t)(uint32_t)c[0] * 73856093u ^ (uint64_t)(uint32_t)c[1] * 19349663u ^
                 (uint64_t)(uint32_t)c[2] * 83492791u;
    return (uint32_t)(h ^ h >> 29) & mask;
}

/* hair_stitched_count's grid (internal.h): how many of `mine` have one of `points` at a squared
 * distance under tolerance², computed as the nearest-point test computes it, so the same count
 * as measuring to the nearest. Cells of 2.02 tolerances, hashed: a pair that near is within
 * 1.01 tolerances along each axis (the float test's roundings are far smaller), and the cells
 * that box meets (2 along an axis, 3 by rounding at most; 8 in all where cells of 1.01 read 27)
 * hold every such point. False: out of memory or cells out of range (the caller then finds the
 * nearest). */
bool hair_stitch_grid_build(hair_stitch_grid* g, const float* points, uint32_t n, float tolerance) {
    memset(g, 0, sizeof *g);
    double cell = 2.02 * (double)tolerance;
    if (!(tolerance > 0) || !isfinite(cell) || n >= UINT32_MAX / 4) return false;
    uint32_t slots = 1;
    while (slots < 2 * n)
        slots *= 2;
    uint32_t* head = malloc(sizeof(uint32_t) * slots);
    uint32_t* next = malloc(sizeof(uint32_t) * (n ? n : 1));
    bool big = false;
    if (!head || !next) return free(head), free(next), false;
    memset(head, 0xff, sizeof(uint32_t) * slots);
    for (uint32_t i = 0; i < n && !big; ++i) {
        int32_t c[3];
        if (!stitch_cell(points + 3 * (size_t)i, cell, c, &big)) continue;
        uint32_t slot = stitch_slot(c, slots - 1);
        next[i] = head[slot], head[slot] = i;
    }
    if (big) return free(head), free(next), false;
    *g = (hair_stitch_grid){points, cell, tolerance, n, slots - 1, head, next};
    return true;
}

bool hair_stitch_grid_count(const hair_stitch_grid* g, const float* mine, uint32_t m,
                            uint32_t skip_from, uint32_t skip_to, uint32_t* on) {
    bool big = false;
    float tolerance = g->tolerance;
    double reach = 1.01 * (double)tolerance;
    *on = 0;
    for (uint32_t v = 0; v < m && !big; ++v) {
        const float* a = mine + 3 * (size_t)v;
        int32_t l[3], h[3];
        bool near = false, finite = true;
        for (int k = 0; k < 3 && finite && !big;
             ++k) { /* the cells 1.01 tolerances about a meets */
            double ql = floor(((double)a[k] - reach) / g->cell);
            double qh = floor(((double)a[k] + reach) / g->cell);
            finite = isfinite(a[k]);
            big = finite && !(fabs(ql) < 1 << 30 && fabs(qh) < 1 << 30);
            l[k] = finite && !big ? (int32_t)ql : 0, h[k] = finite && !big ? (int32_t)qh : 0;
        }
        if (!finite || big) continue;
        for (int32_t z = l[2]; z <= h[2] && !near; ++z)
            for (int32_t y = l[1]; y <= h[1] && !near; ++y)
                for (int32_t x = l[0]; x <= h[0] && !near; ++x) {
                    int32_t at[3] = {x, y, z};
                    for (uint32_t i = g->head[stitch_slot(at, g->mask)]; i != UINT32_MAX && !near;
                         i = g->next[i]) {
                        if (i >= skip_from && i < skip_to) continue;
                        const float* b = g->points + 3 * (size_t)i;
                        float d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                   (a[2] - b[2]) * (a[2] - b[2]);
                        near = d2 < tolerance * tolerance;
                    }
                }
        *on += near;
    }
    return !big;
}

void hair_stitch_grid_free(hair_stitch_grid* g) {
    free(g->head), free(g->next);
    memset(g, 0, sizeof *g);
}

bool hair_stitched_count(const float* mine, uint32_t m, const float* points, uint32_t n,
                         float tolerance, uint32_t* on) {
    hair_stitch_grid g;
    if (!hair_stitch_grid_build(&g, points, n, tolerance)) return false;
    bool ok = hair_stitch_grid_count(&g, mine, m, 0, 0, on);
    hair_stitch_grid_free(&g);
    return ok;
}

/* The share of primitive p's vertices that lie on another primitive's (within `tolerance`):
 * skin cut into pieces by material (a snout, a face) is stitched to the body at its seams;
 * hair is a surface of its own. */
static float stitched_share(const tl_scene_skin* s, uint32_t p, float tolerance) {
    const tl_scene_primitive* prim = &s->primitives[p];
    uint32_t others = s->vertex_count - prim->vertex_count;
    if (others == 0 || prim->vertex_count == 0) return 0;
    float* points = malloc(3 * sizeof(float) * others);
    uint32_t* nearest = malloc(sizeof(uint32_t) * prim->vertex_count);
    float share = 1; /* out of memory: not hair, the safe side */
    if (points && nearest) {
        uint32_t n = 0;
        for (uint32_t v = 0; v < s->vertex_count; ++v)
            if (v < prim->first_vertex || v >= prim->first_vertex + prim->vertex_count)
                memcpy(points + 3 * n++, s->rest_positions + 3 * (size_t)v, 3 * sizeof(float));
        const float* mine = s->rest_positions + 3 * (size_t)prim->first_vertex;
        uint32_t on = 0;
        if (hair_stitched_count(mine, prim->vertex_count, points, n, tolerance, &on))
            share = (float)on / (float)prim->vertex_count;
        else if (tl_mesh_nearest_points(nearest, mine, prim->vertex_count, 12, points, n, 12) !=
                 TL_MESH_OUT_OF_MEMORY) {
            for (uint32_t v = 0; v < prim->vertex_count; ++v) {
                const float* a = mine + 3 * v;
                const float* b = points + 3 * (size_t)nearest[v];
                float d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                           (a[2] - b[2]) * (a[2] - b[2]);
                on += d2 < tolerance * tolerance;
            }
            share = (float)on / (float)prim->vertex_count;
        }
    }
    free(points);
    free(nearest);
    return share;
}

uint32_t tl_hair_find_primitives(const tl_scene* scene, uint32_t skin, uint8_t* flags) {
    assert(scene && flags && skin < scene->skin_count);
    const tl_scene_skin* s = &scene->skins[skin];
    memset(flags, 0, s->primitive_count);
    uint8_t* in_head = malloc(s->joint_count ? s->joint_count : 1);
    if (!in_head) return 0;
    uint32_t found = 0;
    /* one grid of the whole skin for every head primitive, each skipping its own vertices (0:
       not built yet, 1: built, 2: cannot be: each primitive's own copy then) */
    hair_stitch_grid grid;
    int state = 0;
    if (hair_head_joints(s, in_head)) {
        for (uint32_t p = 0; p < s->primitive_count; ++p) {
            const tl_scene_primitive* prim = &s->primitives[p];
            uint32_t head = 0;
            for (uint32_t v = 0; v < prim->vertex_count; ++v)
                head += in_head[tl_scene_skin_dominant_joint(s, prim->first_vertex + v)];
            /* nearly all on the head: hair, a hat, a helmet; the body has its head too, but
               most of its skin is elsewhere; and not a piece of the head's own skin */
            if (!(prim->vertex_count > 0 && prim->triangle_count > 0 &&
                  head >= 0.95 * prim->vertex_count))
                continue;
            float tolerance = 1e-4f * s->height, share = -1;
            if (state == 0)
                state = hair_stitch_grid_build(&grid, s->rest_positions, s->vertex_count, tolerance)
                            ? 1
                            : 2;
            uint32_t on = 0;
            if (state == 1 && s->vertex_count > prim->vertex_count &&
                hair_stitch_grid_count(&grid, s->rest_positions + 3 * (size_t)prim->first_vertex,
                                       prim->vertex_count, prim->first_vertex,
                                       prim->first_vertex + prim->vertex_count, &on))
                share = (float)on / (float)prim->vertex_count;
            if (share < 0) share = stitched_share(s, p, tolerance);
            if (share < 0.01f) flags[p] = 1, found++;
        }
    }
    if (state == 1) hair_stitch_grid_free(&grid);
    free(in_head);
    return found;
}

/* Appends `add` to `mesh` (its indices shifted past mesh's vertices). */
static tl_result mesh_append(tl_hair_mesh* mesh, const tl_hair_mesh* add, tl_error* err) {
    size_t v = (size_t)mesh->vertex_count + add->vertex_count;
    size_t t = (size_t)mesh->triangle_count + add->triangle_count;
    if (v >= UINT32_MAX / 2 || t >= UINT32_MAX / 4)
        return tl_error_set(err, TL_ERROR_LIMIT, "too many hair vertices");
    float* p = realloc(mesh->positions, 3 * sizeof(float) * (v ? v : 1));
    if (p) mesh->positions = p;
    uint32_t* tri = p ? realloc(mesh->triangles, 3 * sizeof(uint32_t) * (t ? t : 1)) : NULL;
    if (!p || !tri) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    mesh->triangles = tri;
    memcpy(p + 3 * (size_t)mesh->vertex_count, add->positions,
           3 * sizeof(float) * add->vertex_count);
    for (size_t i = 0; i < 3 * (size_t)add->triangle_count; ++i)
        tri[3 * (size_t)mesh->triangle_count + i] = add->triangles[i] + mesh->vertex_count;
    mesh->vertex_count = (uint32_t)v;
    mesh->triangle_count = (uint32_t)t;
    return TL_OK;
}

tl_result hair_mesh_of_primitives(const tl_scene* scene, uint32_t skin, const uint8_t* flags,
                                  tl_hair_mesh* out, tl_error* err) {
    memset(out, 0, sizeof *out);
    const tl_scene_skin* s = &scene->skins[skin];
    uint32_t found = 0;
    for (uint32_t p = 0; p < s->primitive_count; ++p)
        found += flags[p] != 0;
    tl_result r = TL_OK;
    if (found == 0)
        r = tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u has no mesh on the head (no hair)",
                         skin);
    for (uint32_t p = 0; r == TL_OK && p < s->primitive_count; ++p) {
        if (!flags[p]) continue;
        tl_hair_mesh one;
        r = tl_hair_mesh_from_scene(scene, skin, p, &one, err);
        if (r == TL_OK) r = mesh_append(out, &one, err);
        tl_hair_mesh_free(&one);
    }
    if (r != TL_OK) tl_hair_mesh_free(out);
    return r;
}

tl_result tl_hair_mesh_from_scene_hair(const tl_scene* scene, uint32_t skin, tl_hair_mesh* out,
                                       tl_error* err) {
    assert(scene && out && skin < scene->skin_count);
    const tl_scene_skin* s = &scene->skins[skin];
    uint8_t* flags = malloc(s->primitive_count ? s->primitive_count : 1);
    if (!flags) { /* hair_mesh_of_primitives zeroes out on every other path */
        memset(out, 0, sizeof *out);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    tl_hair_find_primitives(scene, skin, flags);
    tl_result r = hair_mesh_of_primitives(scene, skin, flags, out, err);
    free(flags);
    return r;
}

int32_t tl_hair_scene_skin(const tl_scene* scene) {
    int32_t best = TL_NONE;
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        if (scene->skins[s].body.head != TL_NONE &&
            (best == TL_NONE || scene->skins[s].vertex_count > scene->skins[best].vertex_count))
            best = (int32_t)s;
    return best;
}

static bool ends_with(const char* s, const char* tail) {
    size_t n = strlen(s), m = strlen(tail);
    if (n < m) return false;
    for (size_t i = 0; i < m; ++i) {
        char c = s[n - m + i];
        if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != tail[i]) return false;
    }
    return true;
}

tl_result tl_hair_mesh_read(const char* path, tl_hair_mesh* out, tl_error* err) {
    assert(path && out);
    memset(out, 0, sizeof *out);
    if (ends_with(path, ".obj")) return tl_hair_mesh_read_obj(path, out, err);
    tl_gltf* doc;
    TRY(tl_gltf_load(path, &doc, err));
    tl_scene* scene;
    tl_result r = tl_scene_create(doc, &scene, err);
    if (r == TL_OK) {
        int32_t skin = tl_hair_scene_skin(scene);
        r = skin == TL_NONE
                ? tl_error_set(err, TL_ERROR_NOT_FOUND,
                               "%s: no skin with a head joint: cannot tell the hair", path)
                : tl_hair_mesh_from_scene_hair(scene, (uint32_t)skin, out, err);
        if (r != TL_OK && skin != TL_NONE && err) {
            tl_error inner = *err;
            tl_error_set(err, r, "%s: %.400s", path, inner.message);
        }
        tl_scene_destroy(scene);
    }
    tl_gltf_destroy(doc);
    return r;
}
