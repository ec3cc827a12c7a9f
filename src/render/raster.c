/* The software rasteriser: cameras, triangle setup, z-buffer, Lambert shading, resolve. */
#include <tailor/render.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

struct tl_renderer {
    const tl_scene* scene;
    tl_render_def def;
    uint32_t sw, sh;      /* sample grid: width × samples, height × samples */
    float* color;         /* sw × sh × 3, linear RGB */
    float* depth;         /* sw × sh, dot(p, back); -INFINITY where nothing is drawn */
    float light[3];       /* unit, camera axes */
    float** positions;    /* per skin, vertex_count × 3 */
    float** normals;      /* per skin, vertex_count × 3, area-weighted, not unit */
    float* joints;        /* the largest skin's joint_count × 16 */
    float* flat;          /* the largest mesh's vertex_count × 3: positions on the floor */
    struct rigid* rigids; /* meshes without a skin (props on a bone), posed by their node */
    uint32_t rigid_count;
    bool unlit;          /* draw in the plain colour (the shadow) */
    float (**colors)[3]; /* per skin, per primitive base colour (linear RGB) */
    uint8_t srgb[4096];  /* linear 0..1 in 4096 steps to sRGB 8-bit */
};

/* One triangle primitive of a node's mesh without a skin. */
typedef struct rigid {
    uint32_t node;
    uint32_t vertex_count, triangle_count;
    float* local;        /* vertex_count × 3, the mesh's own frame */
    float* world;        /* vertex_count × 3, posed */
    float* normals;      /* vertex_count × 3 */
    uint32_t* triangles; /* triangle_count × 3 */
    float color[3];
} rigid;

#define TL_TRY_RENDER(call)                                                                        \
    do {                                                                                           \
        tl_result try_r_ = (call);                                                                 \
        if (try_r_ != TL_OK) return try_r_;                                                        \
    } while (0)

static const char* const VIEW_NAMES[TL_VIEW_COUNT] = {"front", "side", "back",
                                                      "left",  "top",  "quarter"};

const char* tl_render_view_string(tl_render_view view) {
    return view < TL_VIEW_COUNT ? VIEW_NAMES[view] : "unknown";
}

tl_render_view tl_render_view_from_string(const char* name) {
    for (int v = 0; v < TL_VIEW_COUNT; ++v)
        if (!strcmp(name, VIEW_NAMES[v])) return (tl_render_view)v;
    return TL_VIEW_COUNT;
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, r, sizeof r);
}

static void normalize3(float v[3]) {
    float n = sqrtf(dot3(v, v));
    if (n > 0)
        for (int i = 0; i < 3; ++i)
            v[i] /= n;
}

tl_render_camera tl_render_camera_view(const tl_scene_skin* skin, tl_render_view view,
                                       float elevation) {
    assert(skin && view < TL_VIEW_COUNT);
    tl_render_camera c;
    memset(&c, 0, sizeof c);
    c.half_height = 1;
    memcpy(c.up, skin->up, sizeof c.up);
    for (int i = 0; i < 3; ++i) {
        float f = skin->forward[i], l = skin->lateral[i];
        switch (view) {
        case TL_VIEW_FRONT:
            c.back[i] = f;
            break;
        case TL_VIEW_SIDE:
            c.back[i] = -l;
            break; /* lateral points to the character's left */
        case TL_VIEW_BACK:
            c.back[i] = -f;
            break;
        case TL_VIEW_LEFT:
            c.back[i] = l;
            break;
        case TL_VIEW_TOP:
            c.back[i] = skin->up[i];
            c.up[i] = f;
            break;
        case TL_VIEW_QUARTER:
            c.back[i] = f - l;
            break;
        default:
            break;
        }
    }
    normalize3(c.back);
    if (view != TL_VIEW_TOP) {
        /* tilt down: the camera rises by `elevation` and looks back at the centre */
        float e = elevation * 3.14159265f / 180.0f, ce = cosf(e), se = sinf(e);
        float b[3], u[3];
        for (int i = 0; i < 3; ++i) {
            b[i] = ce * c.back[i] + se * c.up[i];
            u[i] = ce * c.up[i] - se * c.back[i];
        }
        memcpy(c.back, b, sizeof b);
        memcpy(c.up, u, sizeof u);
    }
    cross3(c.up, c.back, c.right);
    normalize3(c.right);
    return c;
}

void tl_render_extent_reset(float lo[3], float hi[3]) {
    for (int i = 0; i < 3; ++i) {
        lo[i] = INFINITY;
        hi[i] = -INFINITY;
    }
}

void tl_render_camera_fit(tl_render_camera* c, const float lo[3], const float hi[3], float aspect,
                          float margin) {
    assert(c && lo && hi && aspect > 0 && margin >= 0 && margin < 0.5f);
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])) return;
    for (int i = 0; i < 3; ++i)
        c->center[i] = c->right[i] * 0.5f * (lo[0] + hi[0]) + c->up[i] * 0.5f * (lo[1] + hi[1]) +
                       c->back[i] * 0.5f * (lo[2] + hi[2]);
    float half = fmaxf(0.5f * (hi[1] - lo[1]), 0.5f * (hi[0] - lo[0]) / aspect);
    if (half > 0) c->half_height = half / (1 - 2 * margin);
}

/* Sample-grid coordinates for an image of w × h. */
static void project(const tl_render_camera* c, float w, float h, const float p[3], float out[3]) {
    float d[3] = {p[0] - c->center[0], p[1] - c->center[1], p[2] - c->center[2]};
    float scale = 0.5f * h / c->half_height;
    out[0] = 0.5f * w + dot3(d, c->right) * scale;
    out[1] = 0.5f * h - dot3(d, c->up) * scale;
    out[2] = dot3(d, c->back);
}

void tl_render_camera_project(const tl_render_camera* c, uint32_t width, uint32_t height,
                              const float point[3], float out[3]) {
    assert(c && point && out);
    project(c, (float)width, (float)height, point, out);
}

tl_render_def tl_default_render_def(void) {
    tl_render_def def;
    def.width = 256;
    def.height = 256;
    def.samples = 2;
    def.background[0] = 0.93f;
    def.background[1] = 0.94f;
    def.background[2] = 0.96f;
    def.light[0] = -0.45f;
    def.light[1] = 0.65f;
    def.light[2] = 0.6f;
    def.key = 0.75f;
    def.ambient = 0.3f;
    def.shadow = 0.25f;
    return def;
}

/* baseColorFactor of a primitive's material (linear RGB), else clay. */
static void material_color(const tl_gltf* doc, uint32_t mesh, uint32_t primitive, float out[3]) {
    out[0] = 0.72f;
    out[1] = 0.68f;
    out[2] = 0.64f;
    int32_t m = doc->meshes[mesh].primitives[primitive].material;
    if (m == TL_NONE) return;
    json_t* factor = json_object_get(
        json_object_get(json_array_get(json_object_get(doc->json, "materials"), (size_t)m),
                        "pbrMetallicRoughness"),
        "baseColorFactor");
    if (!json_is_array(factor) || json_array_size(factor) < 3) return;
    for (size_t i = 0; i < 3; ++i) {
        json_t* v = json_array_get(factor, i);
        if (!json_is_number(v)) return;
    }
    for (size_t i = 0; i < 3; ++i) {
        double v = json_number_value(json_array_get(factor, i));
        out[i] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
    }
}

/* Whether a node is in the default scene (else the first), as a viewer shows it. */
static bool node_shown(const tl_gltf* doc, uint32_t node) {
    uint32_t root = node;
    for (uint32_t guard = 0; doc->nodes[root].parent != TL_NONE && guard < doc->node_count; ++guard)
        root = (uint32_t)doc->nodes[root].parent;
    if (doc->scene_count == 0) return true;
    const tl_gltf_scene* sc = &doc->scenes[doc->scene == TL_NONE ? 0 : (uint32_t)doc->scene];
    for (uint32_t i = 0; i < sc->node_count; ++i)
        if (sc->nodes[i] == root) return true;
    return false;
}

/* Reads every triangle-list primitive of the shown nodes that have a mesh and no skin;
 * grows *largest to the most vertices of one. */
static tl_result read_rigids(tl_renderer* r, const tl_scene* scene, uint32_t* largest,
                             tl_error* err) {
    const tl_gltf* doc = scene->doc;
    uint32_t count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            if (count == 0) return TL_OK;
            r->rigids = calloc(count, sizeof *r->rigids);
            if (!r->rigids) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            count = 0;
        }
        for (uint32_t n = 0; n < doc->node_count; ++n) {
            const tl_gltf_node* node = &doc->nodes[n];
            if (node->mesh == TL_NONE || node->skin != TL_NONE || !node_shown(doc, n)) continue;
            const tl_gltf_mesh* mesh = &doc->meshes[node->mesh];
            for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
                const tl_gltf_primitive* prim = &mesh->primitives[p];
                size_t vn = tl_gltf_primitive_vertex_count(doc, prim);
                size_t in = prim->indices == TL_NONE ? vn : doc->accessors[prim->indices].count;
                if (prim->mode != 4 || prim->position == TL_NONE || vn == 0 || in < 3 ||
                    vn > UINT32_MAX / 3 || in / 3 > UINT32_MAX / 3)
                    continue;
                if (pass == 0) {
                    ++count;
                    continue;
                }
                rigid* g = &r->rigids[count++];
                r->rigid_count = count;
                g->node = n;
                g->vertex_count = (uint32_t)vn;
                g->triangle_count = (uint32_t)(in / 3);
                g->local = malloc(sizeof(float) * 3 * vn);
                g->world = malloc(sizeof(float) * 3 * vn);
                g->normals = malloc(sizeof(float) * 3 * vn);
                g->triangles = malloc(sizeof(uint32_t) * 3 * (size_t)g->triangle_count);
                if (!g->local || !g->world || !g->normals || !g->triangles)
                    return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
                TL_TRY_RENDER(tl_gltf_accessor_read_float(doc, (uint32_t)prim->position, g->local,
                                                          3 * vn, err));
                if (prim->indices == TL_NONE) {
                    for (uint32_t i = 0; i < 3 * g->triangle_count; ++i)
                        g->triangles[i] = i;
                } else {
                    uint32_t* idx = malloc(sizeof(uint32_t) * in);
                    if (!idx) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
                    tl_result res =
                        tl_gltf_accessor_read_uint(doc, (uint32_t)prim->indices, idx, in, err);
                    for (size_t i = 0; res == TL_OK && i < 3 * (size_t)g->triangle_count; ++i) {
                        if (idx[i] >= vn)
                            res = tl_error_set(err, TL_ERROR_INVALID,
                                               "%s: /accessors/%d: index %u at element %zu is "
                                               "past the %zu vertices",
                                               doc->path, prim->indices, idx[i], i, vn);
                        g->triangles[i] = idx[i];
                    }
                    free(idx);
                    if (res != TL_OK) return res;
                }
                material_color(doc, (uint32_t)node->mesh, p, g->color);
                if (g->vertex_count > *largest) *largest = g->vertex_count;
            }
        }
    }
    return TL_OK;
}

tl_result tl_renderer_create(const tl_scene* scene, const tl_render_def* def, tl_renderer** out,
                             tl_error* err) {
    assert(def && out);
    *out = NULL;
    if (def->width == 0 || def->height == 0 || def->samples < 1 || def->samples > 4)
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "render: size %ux%u or samples %u out of range (1..4)", def->width,
                            def->height, def->samples);
    uint64_t sw = (uint64_t)def->width * def->samples, sh = (uint64_t)def->height * def->samples;
    if (sw > 16384 || sh > 16384)
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "render: %ux%u at %u samples is beyond 16384² samples", def->width,
                            def->height, def->samples);
    tl_renderer* r = calloc(1, sizeof *r);
    if (!r) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    r->scene = scene;
    r->def = *def;
    r->sw = (uint32_t)sw;
    r->sh = (uint32_t)sh;
    memcpy(r->light, def->light, sizeof r->light);
    normalize3(r->light);
    for (int i = 0; i < 4096; ++i) {
        float l = (float)i / 4095.0f;
        float s = l <= 0.0031308f ? 12.92f * l : 1.055f * powf(l, 1 / 2.4f) - 0.055f;
        r->srgb[i] = (uint8_t)lrintf(s * 255.0f);
    }
    r->color = malloc(sizeof(float) * 3 * sw * sh);
    r->depth = malloc(sizeof(float) * sw * sh);
    bool ok = r->color && r->depth;
    uint32_t skins = scene ? scene->skin_count : 0, joints = 1, vertices = 1;
    if (ok && skins) {
        r->positions = calloc(skins, sizeof *r->positions);
        r->normals = calloc(skins, sizeof *r->normals);
        r->colors = calloc(skins, sizeof *r->colors);
        ok = r->positions && r->normals && r->colors;
    }
    for (uint32_t s = 0; ok && s < skins; ++s) {
        const tl_scene_skin* sk = &scene->skins[s];
        size_t n = (size_t)sk->vertex_count * 3 + 3; /* +3: never a zero-size malloc */
        r->positions[s] = calloc(n, sizeof(float));
        r->normals[s] = calloc(n, sizeof(float));
        r->colors[s] = malloc(sizeof(float[3]) * (sk->primitive_count + 1));
        ok = r->positions[s] && r->normals[s] && r->colors[s];
        if (sk->joint_count > joints) joints = sk->joint_count;
        if (sk->vertex_count > vertices) vertices = sk->vertex_count;
        for (uint32_t p = 0; ok && p < sk->primitive_count; ++p)
            material_color(scene->doc, sk->primitives[p].mesh, sk->primitives[p].primitive,
                           r->colors[s][p]);
    }
    if (ok && skins) {
        tl_result res = read_rigids(r, scene, &vertices, err);
        if (res != TL_OK) {
            tl_renderer_destroy(r);
            return res;
        }
    }
    if (ok) ok = (r->joints = malloc(sizeof(float) * 16 * joints)) != NULL;
    if (ok && skins) ok = (r->flat = malloc(sizeof(float) * 3 * vertices)) != NULL;
    if (!ok) {
        tl_renderer_destroy(r);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory for %ux%u samples", (unsigned)sw,
                            (unsigned)sh);
    }
    tl_renderer_clear(r);
    *out = r;
    return TL_OK;
}

void tl_renderer_destroy(tl_renderer* r) {
    if (!r) return;
    uint32_t skins = r->scene ? r->scene->skin_count : 0;
    for (uint32_t s = 0; s < skins; ++s) {
        if (r->positions) free(r->positions[s]);
        if (r->normals) free(r->normals[s]);
        if (r->colors) free(r->colors[s]);
    }
    free(r->positions);
    free(r->normals);
    free(r->colors);
    for (uint32_t i = 0; r->rigids && i < r->rigid_count; ++i) {
        free(r->rigids[i].local);
        free(r->rigids[i].world);
        free(r->rigids[i].normals);
        free(r->rigids[i].triangles);
    }
    free(r->rigids);
    free(r->joints);
    free(r->flat);
    free(r->color);
    free(r->depth);
    free(r);
}

/* Area-weighted vertex normals (not unit) of posed triangles. */
static void vertex_normals(float* n, const float* p, uint32_t vertex_count,
                           const uint32_t* triangles, uint32_t triangle_count) {
    memset(n, 0, sizeof(float) * 3 * vertex_count);
    for (uint32_t t = 0; t < triangle_count; ++t) {
        const uint32_t* tri = triangles + 3 * (size_t)t;
        const float *a = p + 3 * (size_t)tri[0], *b = p + 3 * (size_t)tri[1],
                    *c = p + 3 * (size_t)tri[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float f[3];
        cross3(e1, e2, f); /* length = twice the area: larger faces weigh more */
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i)
                n[3 * (size_t)tri[k] + i] += f[i];
    }
}

void tl_renderer_pose(tl_renderer* r, const tl_pose* pose) {
    assert(r && r->scene && pose);
    for (uint32_t s = 0; s < r->scene->skin_count; ++s) {
        const tl_scene_skin* sk = &r->scene->skins[s];
        tl_pose_joint_matrices(pose, r->scene, s, r->joints);
        tl_scene_skin_positions(r->scene, s, r->joints, r->positions[s]);
        vertex_normals(r->normals[s], r->positions[s], sk->vertex_count, sk->triangles,
                       sk->triangle_count);
    }
    for (uint32_t i = 0; i < r->rigid_count; ++i) {
        rigid* g = &r->rigids[i];
        const float* m = pose->world + 16 * (size_t)g->node;
        for (uint32_t v = 0; v < g->vertex_count; ++v) {
            const float* q = g->local + 3 * (size_t)v;
            for (int k = 0; k < 3; ++k)
                g->world[3 * (size_t)v + k] =
                    m[k] * q[0] + m[4 + k] * q[1] + m[8 + k] * q[2] + m[12 + k];
        }
        vertex_normals(g->normals, g->world, g->vertex_count, g->triangles, g->triangle_count);
    }
}

const float* tl_renderer_positions(const tl_renderer* r, uint32_t skin) {
    assert(r && r->scene && skin < r->scene->skin_count);
    return r->positions[skin];
}

static void grow(const tl_render_camera* c, const float* p, uint32_t n, float lo[3], float hi[3]) {
    for (uint32_t v = 0; v < n; ++v) {
        const float* q = p + 3 * (size_t)v;
        float d[3] = {dot3(q, c->right), dot3(q, c->up), dot3(q, c->back)};
        for (int i = 0; i < 3; ++i) {
            if (d[i] < lo[i]) lo[i] = d[i];
            if (d[i] > hi[i]) hi[i] = d[i];
        }
    }
}

void tl_renderer_extent(const tl_renderer* r, const tl_render_camera* c, float lo[3], float hi[3]) {
    assert(r && c && lo && hi);
    for (uint32_t s = 0; r->scene && s < r->scene->skin_count; ++s)
        grow(c, r->positions[s], r->scene->skins[s].vertex_count, lo, hi);
    for (uint32_t i = 0; i < r->rigid_count; ++i)
        grow(c, r->rigids[i].world, r->rigids[i].vertex_count, lo, hi);
}

void tl_renderer_clear(tl_renderer* r) {
    assert(r);
    size_t n = (size_t)r->sw * r->sh;
    for (size_t i = 0; i < n; ++i) {
        memcpy(r->color + 3 * i, r->def.background, sizeof(float) * 3);
        r->depth[i] = -INFINITY;
    }
}

/* Lambert intensity of a normal (camera-facing side lit: winding is not trusted). */
static float shade(const tl_renderer* r, const tl_render_camera* c, const float n[3]) {
    float m[3] = {dot3(n, c->right), dot3(n, c->up), dot3(n, c->back)};
    normalize3(m);
    if (m[2] < 0)
        for (int i = 0; i < 3; ++i)
            m[i] = -m[i];
    float l = dot3(m, r->light);
    return r->def.ambient + r->def.key * (l > 0 ? l : 0);
}

/* Vertices snap to 1/256 pixel and edge functions are exact 64-bit integers: a pixel centre
 * on an edge shared by two triangles is drawn by exactly one of them (the top-left rule),
 * with no cracks and no double cover however many triangles meet. */
#define SUBPIXEL 256
#define MAX_COORD 1048576.0f /* pixels; triangles reaching farther are skipped */

typedef struct fixed_vertex {
    int64_t x, y; /* sample-grid coordinates × SUBPIXEL */
    float z;
} fixed_vertex;

/* Twice the signed area of (a, b, p) in SUBPIXEL² units; positive inside a positive triangle. */
static int64_t edge(fixed_vertex a, fixed_vertex b, int64_t px, int64_t py) {
    return (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x);
}

/* Of the two triangles sharing an edge (traversed in opposite directions), one owns it. */
static bool top_left(fixed_vertex a, fixed_vertex b) {
    return b.y > a.y || (b.y == a.y && b.x < a.x);
}

void tl_renderer_draw_triangles(tl_renderer* r, const tl_render_camera* c, const float* positions,
                                const float* normals, const uint32_t* triangles,
                                uint32_t triangle_count, const float color[3]) {
    assert(r && c && positions && (triangles || triangle_count == 0) && color);
    assert(c->half_height > 0);
    const float w = (float)r->sw, h = (float)r->sh;
    for (uint32_t t = 0; t < triangle_count; ++t) {
        const uint32_t* tri = triangles + 3 * (size_t)t;
        fixed_vertex v[3];
        bool inside = true;
        for (int k = 0; k < 3; ++k) {
            float q[3];
            project(c, w, h, positions + 3 * (size_t)tri[k], q);
            /* NaN fails both comparisons and is skipped with the far ones */
            inside = inside && fabsf(q[0]) < MAX_COORD && fabsf(q[1]) < MAX_COORD && isfinite(q[2]);
            if (!inside) break;
            v[k].x = llrintf(q[0] * SUBPIXEL);
            v[k].y = llrintf(q[1] * SUBPIXEL);
            v[k].z = q[2];
        }
        if (!inside) continue;
        int64_t area = edge(v[0], v[1], v[2].x, v[2].y);
        if (area == 0) continue; /* degenerate or edge-on */
        int order[3] = {0, 1, 2};
        if (area < 0) { /* make it positive; both faces are drawn */
            order[1] = 2;
            order[2] = 1;
            area = -area;
        }
        fixed_vertex a = v[order[0]], b = v[order[1]], d = v[order[2]];
        int64_t x0 = a.x < b.x ? a.x : b.x, x1 = a.x > b.x ? a.x : b.x;
        int64_t y0 = a.y < b.y ? a.y : b.y, y1 = a.y > b.y ? a.y : b.y;
        x0 = d.x < x0 ? d.x : x0;
        x1 = d.x > x1 ? d.x : x1;
        y0 = d.y < y0 ? d.y : y0;
        y1 = d.y > y1 ? d.y : y1;
        /* pixels whose centre (i + 1/2) · SUBPIXEL lies in [x0, x1] */
        const int64_t half = SUBPIXEL / 2;
        int64_t ix0 = (x0 - half + SUBPIXEL - 1) / SUBPIXEL, ix1 = (x1 - half) / SUBPIXEL;
        int64_t iy0 = (y0 - half + SUBPIXEL - 1) / SUBPIXEL, iy1 = (y1 - half) / SUBPIXEL;
        if (x0 - half < 0) ix0 = 0; /* integer division rounds towards zero */
        if (y0 - half < 0) iy0 = 0;
        if (x1 - half < 0 || y1 - half < 0) continue;
        if (ix1 > (int64_t)r->sw - 1) ix1 = (int64_t)r->sw - 1;
        if (iy1 > (int64_t)r->sh - 1) iy1 = (int64_t)r->sh - 1;
        if (ix0 > ix1 || iy0 > iy1) continue;
        float light[3];
        if (r->unlit) {
            light[0] = light[1] = light[2] = 1;
        } else if (normals) {
            for (int k = 0; k < 3; ++k)
                light[k] = shade(r, c, normals + 3 * (size_t)tri[order[k]]);
        } else {
            const float *p0 = positions + 3 * (size_t)tri[0], *p1 = positions + 3 * (size_t)tri[1],
                        *p2 = positions + 3 * (size_t)tri[2];
            float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
            float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}, f[3];
            cross3(e1, e2, f);
            light[0] = light[1] = light[2] = shade(r, c, f);
        }
        /* edge k is opposite vertex k; its value / area is vertex k's barycentric weight */
        const fixed_vertex ev[3][2] = {{b, d}, {d, a}, {a, b}};
        int64_t step_x[3], step_y[3], row[3];
        int64_t px = ix0 * SUBPIXEL + half, py = iy0 * SUBPIXEL + half;
        for (int k = 0; k < 3; ++k) {
            fixed_vertex ea = ev[k][0], eb = ev[k][1];
            step_x[k] = -(eb.y - ea.y) * SUBPIXEL;
            step_y[k] = (eb.x - ea.x) * SUBPIXEL;
            /* the owned edge's zeros count as inside: test e > bias with bias -1 or 0 */
            row[k] = edge(ea, eb, px, py) + (top_left(ea, eb) ? 1 : 0);
        }
        float inv = 1.0f / (float)area;
        float z[3] = {a.z, b.z, d.z};
        for (int64_t y = iy0; y <= iy1; ++y) {
            int64_t e[3] = {row[0], row[1], row[2]};
            float* depth = r->depth + (size_t)y * r->sw;
            float* col = r->color + 3 * (size_t)y * r->sw;
            for (int64_t x = ix0; x <= ix1; ++x) {
                if (e[0] > 0 && e[1] > 0 && e[2] > 0) {
                    float l0 = (float)e[0] * inv, l1 = (float)e[1] * inv, l2 = 1 - l0 - l1;
                    float zz = l0 * z[0] + l1 * z[1] + l2 * z[2];
                    if (zz > depth[x]) {
                        depth[x] = zz;
                        float s = l0 * light[0] + l1 * light[1] + l2 * light[2];
                        for (int i = 0; i < 3; ++i)
                            col[3 * x + i] = color[i] * s;
                    }
                }
                e[0] += step_x[0];
                e[1] += step_x[1];
                e[2] += step_x[2];
            }
            row[0] += step_y[0];
            row[1] += step_y[1];
            row[2] += step_y[2];
        }
    }
}

/* The silhouette dropped along up onto the rest floor: a real plane in the z-buffer, so the
 * character hides it where it stands in front of it. */
static void draw_shadow(tl_renderer* r, const tl_render_camera* c, const tl_scene_skin* frame,
                        const float* p, uint32_t vertex_count, const uint32_t* triangles,
                        uint32_t triangle_count) {
    for (uint32_t v = 0; v < vertex_count; ++v) {
        const float* q = p + 3 * (size_t)v;
        float h = dot3(q, frame->up) - frame->floor;
        for (int i = 0; i < 3; ++i)
            r->flat[3 * (size_t)v + i] = q[i] - h * frame->up[i];
    }
    float dark[3];
    for (int i = 0; i < 3; ++i)
        dark[i] = r->def.background[i] * (1 - r->def.shadow);
    r->unlit = true;
    tl_renderer_draw_triangles(r, c, r->flat, NULL, triangles, triangle_count, dark);
    r->unlit = false;
}

void tl_renderer_draw(tl_renderer* r, const tl_render_camera* c) {
    assert(r && c);
    tl_renderer_clear(r);
    uint32_t skins = r->scene ? r->scene->skin_count : 0;
    if (r->def.shadow > 0 && skins) {
        for (uint32_t s = 0; s < skins; ++s) {
            const tl_scene_skin* sk = &r->scene->skins[s];
            draw_shadow(r, c, sk, r->positions[s], sk->vertex_count, sk->triangles,
                        sk->triangle_count);
        }
        /* props fall on the first skin's floor */
        for (uint32_t i = 0; i < r->rigid_count; ++i)
            draw_shadow(r, c, &r->scene->skins[0], r->rigids[i].world, r->rigids[i].vertex_count,
                        r->rigids[i].triangles, r->rigids[i].triangle_count);
    }
    for (uint32_t s = 0; s < skins; ++s) {
        const tl_scene_skin* sk = &r->scene->skins[s];
        for (uint32_t p = 0; p < sk->primitive_count; ++p)
            tl_renderer_draw_triangles(r, c, r->positions[s], r->normals[s],
                                       sk->triangles + 3 * (size_t)sk->primitives[p].first_triangle,
                                       sk->primitives[p].triangle_count, r->colors[s][p]);
    }
    for (uint32_t i = 0; i < r->rigid_count; ++i)
        tl_renderer_draw_triangles(r, c, r->rigids[i].world, r->rigids[i].normals,
                                   r->rigids[i].triangles, r->rigids[i].triangle_count,
                                   r->rigids[i].color);
}

void tl_renderer_read(const tl_renderer* r, uint8_t* rgba, size_t stride) {
    assert(r && rgba && stride >= 4 * (size_t)r->def.width);
    uint32_t s = r->def.samples;
    float norm = 1.0f / (float)(s * s);
    for (uint32_t y = 0; y < r->def.height; ++y) {
        uint8_t* out = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < r->def.width; ++x) {
            float acc[3] = {0, 0, 0};
            for (uint32_t j = 0; j < s; ++j) {
                const float* c = r->color + 3 * ((size_t)(y * s + j) * r->sw + (size_t)x * s);
                for (uint32_t i = 0; i < s; ++i)
                    for (int k = 0; k < 3; ++k)
                        acc[k] += c[3 * i + k];
            }
            for (int k = 0; k < 3; ++k) {
                float v = acc[k] * norm;
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                out[4 * x + k] = r->srgb[(int)(v * 4095.0f + 0.5f)];
            }
            out[4 * x + 3] = 255;
        }
    }
}

float tl_renderer_coverage(const tl_renderer* r) {
    assert(r);
    size_t n = (size_t)r->sw * r->sh, covered = 0;
    for (size_t i = 0; i < n; ++i)
        covered += r->depth[i] > -INFINITY;
    return (float)covered / (float)n;
}
