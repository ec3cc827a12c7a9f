/* Hair guides (tailor/hair.h) on the MakeHuman cases: the body of mh-body.glb and the ten
 * fitted styles as OBJ files. Each mechanism of hair.md has its case: root attachment,
 * excluded vertices, bindings rebuilt from a saved file, fragment merging, rejection of
 * distant fragments; then the ten-style audit and the command. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test.h"

#include <tailor/gltf_json.h>
#include <tailor/hair.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hair/internal.h"
#include "play/chain_colliders.h"
#include "play/hair_sheet.h"
#include "sim/chain_parts.h"
#include "base/mat4.h"
#include "base/order.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* ENSURE for helpers that return a count. */
#define ENSURE_RET(c)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            tl_test_fail(__FILE__, __LINE__, #c);                                                  \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

static const char* STYLES[] = {"afro01",     "bob01",   "bob02",   "braid01", "long01",
                               "ponytail01", "short01", "short02", "short03", "short04"};

/* The body, its scene and its automatic scalp, loaded once. */
static tl_gltf* body_doc;
static tl_scene* body;
static tl_hair_scalp* scalp;

static bool body_load(void) {
    if (scalp) return true;
    tl_error err;
    tl_hair_def def = tl_default_hair_def();
    if (tl_gltf_load(tl_test_shared("cases/mh-body.glb"), &body_doc, &err) != TL_OK ||
        tl_scene_create(body_doc, &body, &err) != TL_OK ||
        tl_hair_scalp_find(body, 0, &def, NULL, &scalp, &err) != TL_OK) {
        fprintf(stderr, "mh-body.glb: %s\n", err.message);
        return false;
    }
    return true;
}

static bool style_load(const char* style, tl_hair_mesh* mesh) {
    char path[256];
    snprintf(path, sizeof path, "cases/mh-%s.hair.obj", style);
    tl_error err;
    if (tl_hair_mesh_read_obj(tl_test_shared(path), mesh, &err) == TL_OK) return true;
    fprintf(stderr, "%s\n", err.message);
    return false;
}

static float dist2(const float* a, const float* b) {
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

static float dist(const float* a, const float* b) {
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                 (a[2] - b[2]) * (a[2] - b[2]));
}

/* The scalp is the top and back of the head: above the eyes' level or behind the head's
 * centre, never the face (the nose tip, z = +0.168 m in this frame, is far from it). */
static void scalp_is_top_and_back(void) {
    ENSURE(body_load());
    ENSURE(scalp->triangle_count > 100);
    const tl_scene_skin* sk = &body->skins[0];
    float nose[3] = {0, 1.55f, 0.168f}; /* MAKEHUMAN.md: nose at z = +0.168 */
    float nearest = INFINITY, top = -INFINITY;
    for (uint32_t t = 0; t < scalp->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            const float* p = sk->rest_positions + 3 * (size_t)scalp->triangles[3 * t + k];
            nearest = fminf(nearest, dist(p, nose));
            top = fmaxf(top, p[1]);
        }
    ENSURE_MSG(nearest > 0.05f, "the scalp comes %.3f m from the nose", nearest);
    ENSURE_NEAR(top, 1.6673, 0.002); /* the top of the head (MAKEHUMAN.md) is scalp */
}

/* §3: every root-linked guide starts within root_distance of the scalp, its binding rebuilds
 * its root at rest, and its triangle is a scalp triangle. */
static void roots_attach_to_scalp(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    ENSURE(style_load("long01", &mesh));
    tl_hair_def def = tl_default_hair_def();
    tl_hair_guides* g;
    tl_error err;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    float scale = body->skins[0].height / TL_HAIR_HUMAN_MM;
    uint32_t roots = 0;
    bool ok = true;
    for (uint32_t i = 0; i < g->guide_count && ok; ++i) {
        const tl_hair_guide* guide = &g->guides[i];
        if (guide->link != TL_HAIR_LINK_ROOT) continue;
        roots++;
        float p[3];
        tl_hair_binding_position(&guide->binding, body->skins[0].rest_positions, p);
        const float* root = g->points + 3 * (size_t)guide->first_point;
        ok = dist(p, root) < 1e-6f * body->skins[0].height &&
             guide->root_distance <= def.root_distance_mm * scale;
        float b = guide->binding.barycentric[0] + guide->binding.barycentric[1] +
                  guide->binding.barycentric[2];
        ok = ok && fabsf(b - 1) < 1e-5f;
        bool in_scalp = false;
        for (uint32_t t = 0; t < scalp->triangle_count && !in_scalp; ++t)
            in_scalp = !memcmp(scalp->triangles + 3 * t, guide->binding.vertices, 12);
        ok = ok && in_scalp;
        /* the root is the end nearer the head: point 0 lies no higher than... the tip is
           farther from the scalp's binding point than the root */
        const float* tip = root + 3 * (guide->point_count - 1);
        ok = ok && dist(tip, p) >= dist(root, p);
    }
    ENSURE_MSG(ok, "a root binding does not rebuild its root on the scalp");
    ENSURE(roots > 100);
    ENSURE(g->audit.excluded_vertices == 0);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* §5: vertices in no triangle and pieces too small for a guide are reported as excluded,
 * exactly those. */
static void excluded_vertices_reported(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    ENSURE(style_load("short04", &mesh));
    tl_hair_def def = tl_default_hair_def();
    tl_hair_guides* g;
    tl_error err;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    uint32_t before = g->audit.excluded_vertices, candidates = g->audit.candidates;
    tl_hair_guides_destroy(g);
    /* 5 stray vertices and one triangle 0.5 mm across on the crown */
    uint32_t n = mesh.vertex_count;
    mesh.positions = realloc(mesh.positions, 3 * sizeof(float) * (n + 8));
    mesh.triangles = realloc(mesh.triangles, 3 * sizeof(uint32_t) * (mesh.triangle_count + 1));
    ENSURE(mesh.positions && mesh.triangles);
    for (uint32_t i = 0; i < 8; ++i) {
        float* p = mesh.positions + 3 * (size_t)(n + i);
        p[0] = i < 5 ? 0.3f + 0.01f * i : 0.0005f * (i == 6);
        p[1] = i < 5 ? 1.0f : 1.672f + 0.0005f * (i == 7);
        p[2] = 0;
    }
    uint32_t tri[3] = {n + 5, n + 6, n + 7};
    memcpy(mesh.triangles + 3 * (size_t)mesh.triangle_count, tri, sizeof tri);
    mesh.vertex_count += 8;
    mesh.triangle_count += 1;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    ENSURE_MSG(g->audit.excluded_vertices == before + 8, "excluded %u, expected %u + 8",
               g->audit.excluded_vertices, before);
    ENSURE(g->audit.candidates == candidates);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* §3, §5: the guides file keeps the bindings: read back, every binding and point is the same
 * and rebuilds the same root on the scalp. */
static void bindings_rebuild_from_file(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    ENSURE(style_load("braid01", &mesh));
    tl_hair_def def = tl_default_hair_def();
    tl_hair_guides *g, *back;
    tl_error err;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    char* text = tl_hair_guides_to_json(g, "braid01");
    ENSURE(text);
    FILE* f = fopen(tl_test_scratch("braid01.guides.json"), "wb");
    ENSURE(f && fputs(text, f) >= 0 && fclose(f) == 0);
    free(text);
    size_t size;
    char* saved = (char*)tl_test_read_file(tl_test_scratch("braid01.guides.json"), &size);
    ENSURE(saved);
    saved = realloc(saved, size + 1);
    saved[size] = 0;
    ENSURE_OK(tl_hair_guides_from_json(saved, "braid01.guides.json", body->skins[0].vertex_count,
                                       &back, &err),
              err);
    free(saved);
    ENSURE(back->guide_count == g->guide_count && back->point_count == g->point_count);
    ENSURE(!memcmp(back->points, g->points, 3 * sizeof(float) * g->point_count));
    uint32_t roots = 0;
    for (uint32_t i = 0; i < g->guide_count; ++i) {
        const tl_hair_guide *a = &g->guides[i], *b = &back->guides[i];
        ENSURE(a->link == b->link && a->reason == b->reason && a->parent == b->parent);
        if (a->link != TL_HAIR_LINK_ROOT) continue;
        ENSURE(!memcmp(&a->binding, &b->binding, sizeof a->binding));
        float pa[3], pb[3];
        tl_hair_binding_position(&a->binding, body->skins[0].rest_positions, pa);
        tl_hair_binding_position(&b->binding, body->skins[0].rest_positions, pb);
        ENSURE(!memcmp(pa, pb, sizeof pa));
        roots++;
    }
    ENSURE(roots > 0);
    ENSURE(back->audit.attached == g->audit.attached &&
           back->audit.merged_links == g->audit.merged_links);
    tl_hair_guides_destroy(back);
    /* a binding past the skin's vertices is refused with its JSON pointer */
    text = tl_hair_guides_to_json(g, "braid01");
    ENSURE(tl_hair_guides_from_json(text, "x.json", 10, &back, &err) == TL_ERROR_INVALID);
    ENSURE_MSG(strstr(err.message, "/guides/") && strstr(err.message, "root/triangle"), "%s",
               err.message);
    free(text);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* Splits a mesh at height y: triangles with a vertex below y get their own copies of every
 * vertex, so the part below comes loose as separate pieces whose tops touch the cut. */
static void split_below(tl_hair_mesh* mesh, float y) {
    uint32_t n = mesh->vertex_count;
    mesh->positions = realloc(mesh->positions, 3 * sizeof(float) * 2 * n);
    memcpy(mesh->positions + 3 * (size_t)n, mesh->positions, 3 * sizeof(float) * n);
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        uint32_t* tri = mesh->triangles + 3 * (size_t)t;
        bool below = false;
        for (int k = 0; k < 3; ++k)
            below |= mesh->positions[3 * (size_t)tri[k] + 1] < y;
        if (below)
            for (int k = 0; k < 3; ++k)
                tri[k] += n;
    }
    mesh->vertex_count = 2 * n;
}

/* Moves the copies (indices ≥ half) apart by `gap` along their offset from the cut, so the
 * loose pieces' ends lie `gap` from where they left. */
static void drop_copies(tl_hair_mesh* mesh, float gap) {
    for (uint32_t v = mesh->vertex_count / 2; v < mesh->vertex_count; ++v)
        mesh->positions[3 * (size_t)v + 1] -= gap;
}

/* §4: long01 cut at shoulder height: the lower pieces are far from the scalp and attach only
 * through links to the upper part; without merging they are rejected. */
static void fragments_merge(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    ENSURE(style_load("long01", &mesh));
    split_below(&mesh, 1.30f);
    drop_copies(&mesh, 0.004f); /* 4 mm: cut pieces, not touching */
    tl_hair_def def = tl_default_hair_def();
    tl_hair_guides *g, *unmerged;
    tl_error err;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    def.merge_passes = 0;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &unmerged, &err), err);
    ENSURE(g->audit.candidates == unmerged->audit.candidates);
    uint32_t rejected = unmerged->audit.candidates - unmerged->audit.attached;
    ENSURE_MSG(rejected > 20, "only %u guides of the lower pieces rejected unmerged", rejected);
    ENSURE(unmerged->audit.rejected[TL_HAIR_REJECT_TOO_FAR] == rejected);
    ENSURE_MSG(g->audit.merged_links >= rejected * 9 / 10, "%u links for %u loose guides",
               g->audit.merged_links, rejected);
    ENSURE(g->audit.attached > unmerged->audit.attached);
    /* a link's root lies within the merge distance of its parent's point */
    float scale = body->skins[0].height / TL_HAIR_HUMAN_MM;
    for (uint32_t i = 0; i < g->guide_count; ++i) {
        const tl_hair_guide* guide = &g->guides[i];
        if (guide->link != TL_HAIR_LINK_TIP && guide->link != TL_HAIR_LINK_MID) continue;
        const tl_hair_guide* parent = &g->guides[guide->parent];
        ENSURE(parent->link != TL_HAIR_LINK_NONE);
        const float* a = g->points + 3 * (size_t)guide->first_point;
        const float* b = g->points + 3 * (size_t)(parent->first_point + guide->parent_point);
        ENSURE(dist(a, b) <= def.merge_distance_mm * scale * 1.0001f);
    }
    ENSURE(g->audit.coverage > unmerged->audit.coverage);
    tl_hair_guides_destroy(g);
    tl_hair_guides_destroy(unmerged);
    tl_hair_mesh_free(&mesh);
}

/* ---- The generalisation set (§5: styles not in ../shared), made at test time ---------- */

/* Area-weighted vertex normals of a mesh, turned to point away from `centre`. */
static float* outward_normals(const tl_hair_mesh* m, const float centre[3]) {
    float* n = calloc(3 * (size_t)m->vertex_count + 1, sizeof(float));
    for (uint32_t t = 0; n && t < m->triangle_count; ++t) {
        const uint32_t* v = m->triangles + 3 * (size_t)t;
        const float *a = m->positions + 3 * (size_t)v[0], *b = m->positions + 3 * (size_t)v[1],
                    *c = m->positions + 3 * (size_t)v[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; ++k)
            for (int c3 = 0; c3 < 3; ++c3)
                n[3 * (size_t)v[k] + c3] += f[c3];
    }
    for (uint32_t v = 0; n && v < m->vertex_count; ++v) {
        float* q = n + 3 * (size_t)v;
        const float* p = m->positions + 3 * (size_t)v;
        float d[3] = {p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]};
        float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        float sign = q[0] * d[0] + q[1] * d[1] + q[2] * d[2] < 0 ? -1.0f : 1.0f;
        for (int k = 0; k < 3; ++k)
            q[k] = l > 0 ? sign * q[k] / l : 0;
    }
    return n;
}

/* Many loose pieces: every triangle gets its own copies of its vertices in each cell (of size
 * `cell`) its centroid falls in, each cell's piece moved by `gap` in its own direction (as cards
 * lie, apart), so the style comes apart into cards side by side and end to end. */
static void cut_into_cards(tl_hair_mesh* m, float cell, float gap) {
    uint32_t t_n = m->triangle_count;
    float* pos = malloc(9 * sizeof(float) * t_n + 1);
    uint64_t* key = malloc(sizeof(uint64_t) * 3 * t_n + 1);
    /* (cell, vertex) pairs, deduplicated by sorting */
    for (uint32_t t = 0; t < t_n; ++t) {
        const uint32_t* v = m->triangles + 3 * (size_t)t;
        int64_t c[3];
        for (int k = 0; k < 3; ++k)
            c[k] = (int64_t)floorf((m->positions[3 * (size_t)v[0] + k] +
                                    m->positions[3 * (size_t)v[1] + k] +
                                    m->positions[3 * (size_t)v[2] + k]) /
                                   (3 * cell));
        uint64_t cid = (uint64_t)((c[0] & 0x3ff) | (c[1] & 0x3ff) << 10 | (c[2] & 0x3ff) << 20);
        for (int k = 0; k < 3; ++k)
            key[3 * (size_t)t + k] = cid << 32 | v[k];
    }
    /* new vertex per distinct key: a simple open-addressing map */
    size_t cap = 1;
    while (cap < 6 * (size_t)t_n + 2)
        cap <<= 1;
    uint64_t* slots = malloc(sizeof(uint64_t) * cap);
    uint32_t* ids = malloc(sizeof(uint32_t) * cap);
    memset(slots, 0xff, sizeof(uint64_t) * cap);
    uint32_t n = 0;
    for (size_t i = 0; i < 3 * (size_t)t_n; ++i) {
        size_t h = (size_t)(key[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (slots[h] != UINT64_MAX && slots[h] != key[i])
            h = (h + 1) & (cap - 1);
        if (slots[h] == UINT64_MAX) {
            slots[h] = key[i], ids[h] = n;
            const float* p = m->positions + 3 * (size_t)(key[i] & 0xffffffffu);
            uint64_t r = (key[i] >> 32) * 0x9E3779B97F4A7C15ull; /* the cell's direction */
            float d[3] = {(float)(r & 0xff) - 127.5f, (float)(r >> 8 & 0xff) - 127.5f,
                          (float)(r >> 16 & 0xff) - 127.5f};
            float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int c = 0; c < 3; ++c)
                pos[3 * (size_t)n + c] = p[c] + gap * d[c] / l;
            n++;
        }
        m->triangles[i] = ids[h];
    }
    free(m->positions);
    m->positions = pos;
    m->vertex_count = n;
    free(key), free(slots), free(ids);
}

/* An outer shell: a copy of the style `offset` out along its normals, added as its own piece. */
static void add_shell(tl_hair_mesh* m, float offset, const float centre[3]) {
    float* n = outward_normals(m, centre);
    uint32_t v_n = m->vertex_count, t_n = m->triangle_count;
    m->positions = realloc(m->positions, 6 * sizeof(float) * v_n);
    m->triangles = realloc(m->triangles, 6 * sizeof(uint32_t) * t_n);
    for (size_t i = 0; i < 3 * (size_t)v_n; ++i)
        m->positions[3 * (size_t)v_n + i] = m->positions[i] + offset * n[i];
    for (size_t i = 0; i < 3 * (size_t)t_n; ++i)
        m->triangles[3 * (size_t)t_n + i] = m->triangles[i] + v_n;
    m->vertex_count *= 2, m->triangle_count *= 2;
    free(n);
}

/* Decimated by vertex clustering: every vertex moves to the first vertex of its cell (size
 * `cell`); triangles that collapse are dropped (the unused vertices are then excluded, counted
 * in the audit, as a remesher's leftovers would be). */
static void decimate(tl_hair_mesh* m, float cell) {
    size_t cap = 1;
    while (cap < 2 * (size_t)m->vertex_count + 2)
        cap <<= 1;
    uint64_t* slots = malloc(sizeof(uint64_t) * cap);
    uint32_t* first = malloc(sizeof(uint32_t) * cap);
    uint32_t* to = malloc(sizeof(uint32_t) * m->vertex_count + 1);
    memset(slots, 0xff, sizeof(uint64_t) * cap);
    for (uint32_t v = 0; v < m->vertex_count; ++v) {
        uint64_t key = 0;
        for (int k = 0; k < 3; ++k)
            key = key << 21 |
                  ((uint64_t)(int64_t)floorf(m->positions[3 * (size_t)v + k] / cell) & 0x1fffff);
        size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (slots[h] != UINT64_MAX && slots[h] != key)
            h = (h + 1) & (cap - 1);
        if (slots[h] == UINT64_MAX) slots[h] = key, first[h] = v;
        to[v] = first[h];
    }
    uint32_t kept = 0;
    for (uint32_t t = 0; t < m->triangle_count; ++t) {
        uint32_t a = to[m->triangles[3 * t]], b = to[m->triangles[3 * t + 1]],
                 c = to[m->triangles[3 * t + 2]];
        if (a == b || b == c || a == c) continue;
        m->triangles[3 * kept] = a, m->triangles[3 * kept + 1] = b, m->triangles[3 * kept + 2] = c;
        kept++;
    }
    m->triangle_count = kept;
    /* the vertices no triangle uses any more are dropped, as a remesher would */
    uint32_t n = 0;
    memset(to, 0xff, sizeof(uint32_t) * m->vertex_count);
    for (size_t i = 0; i < 3 * (size_t)kept; ++i) {
        uint32_t v = m->triangles[i];
        if (to[v] == UINT32_MAX) {
            to[v] = n;
            memmove(m->positions + 3 * (size_t)n++, m->positions + 3 * (size_t)v,
                    3 * sizeof(float));
        }
        m->triangles[i] = to[v];
    }
    m->vertex_count = n;
    free(slots), free(first), free(to);
}

/* A longer style: everything below the head's centre stretched down along up by `factor`
 * (the ends of long01 at the waist reach the thighs). */
static void lengthen(tl_hair_mesh* m, const float centre[3], float factor) {
    for (uint32_t v = 0; v < m->vertex_count; ++v) {
        float* y = m->positions + 3 * (size_t)v + 1;
        if (*y < centre[1]) *y = centre[1] + factor * (*y - centre[1]);
    }
}

/* mh-body.glb turned into a real file's frame: Z-up (a quarter turn about X) and centimetres,
 * by a new root node over the scene's roots. */
static bool body_z_up_cm(tl_gltf** doc, tl_scene** scene) {
    tl_error err;
    if (tl_gltf_load(tl_test_shared("cases/mh-body.glb"), doc, &err) != TL_OK) return false;
    json_t* root = tl_gltf_json(*doc);
    json_t* nodes = json_object_get(root, "nodes");
    json_t* sc = json_array_get(json_object_get(root, "scenes"), 0);
    json_t* roots = json_object_get(sc, "nodes");
    float h = sqrtf(0.5f);
    json_t* top = json_pack("{s:s,s:O,s:[f,f,f,f],s:[f,f,f]}", "name", "z_up_cm", "children", roots,
                            "rotation", h, 0.0, 0.0, h, "scale", 100.0, 100.0, 100.0);
    json_array_append_new(nodes, top);
    json_object_set_new(sc, "nodes", json_pack("[I]", (json_int_t)json_array_size(nodes) - 1));
    bool ok = tl_gltf_reindex(*doc, &err) == TL_OK && tl_scene_create(*doc, scene, &err) == TL_OK;
    if (!ok) fprintf(stderr, "z-up body: %s\n", err.message);
    return ok;
}

/* The same frame change on a style: (x, y, z) metres -> (x, -z, y) centimetres. */
static void style_z_up_cm(tl_hair_mesh* m) {
    for (uint32_t v = 0; v < m->vertex_count; ++v) {
        float* p = m->positions + 3 * (size_t)v;
        float y = p[1], z = p[2];
        p[0] *= 100, p[1] = -100 * z, p[2] = 100 * y;
    }
}

/* Hair off the cap on the head alone (no chain within bind_mm). */
static uint32_t unowned(const tl_hair_scalp* on, const tl_hair_mesh* mesh, const tl_hair_chains* c,
                        float cap) {
    uint32_t n = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        float d, b[3];
        n += c->influence[TL_HAIR_INFLUENCES * (size_t)v] == UINT32_MAX &&
             hair_scalp_nearest(on, mesh->positions + 3 * (size_t)v, cap, &d, b) == UINT32_MAX;
    }
    return n;
}

/* The hair off the cap left on the head alone by the chains chosen with and without
 * cover_unowned (adds to *before and *after). */
static bool unowned_both(const tl_hair_scalp* on, const tl_hair_mesh* mesh, const tl_hair_guides* g,
                         uint32_t* before, uint32_t* after) {
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    tl_hair_chains *c, *c0;
    tl_error err;
    float cap = cdef.cap_mm * on->height / TL_HAIR_HUMAN_MM;
    if (tl_hair_chains_create(mesh, on, g, &cdef, &c, &err) != TL_OK) return false;
    cdef.cover_unowned = false;
    if (tl_hair_chains_create(mesh, on, g, &cdef, &c0, &err) != TL_OK) {
        tl_hair_chains_destroy(c);
        return false;
    }
    *before += unowned(on, mesh, c0, cap), *after += unowned(on, mesh, c, cap);
    tl_hair_chains_destroy(c), tl_hair_chains_destroy(c0);
    return true;
}

/* §5 judged on styles not in ../shared: the ten MakeHuman styles cut into many loose cards
 * (4 cm cells, each moved 2 mm its own way), given an outer shell 15 mm off (the afro's and
 * bob's kind), decimated (8 mm clusters), on the body turned Z-up in centimetres, and longer
 * (stretched 1.6x down from the head's centre). Over the set: attachment >= 98.84% with
 * coverage >= 95% (the spec's bar), and coverage >= 95% for each style and variant. */
static void generalisation_set(void) {
    ENSURE(body_load());
    tl_gltf* zdoc;
    tl_scene* zbody;
    ENSURE(body_z_up_cm(&zdoc, &zbody));
    tl_hair_def def = tl_default_hair_def();
    tl_hair_scalp* zscalp;
    tl_error err;
    ENSURE_OK(tl_hair_scalp_find(zbody, 0, &def, NULL, &zscalp, &err), err);
    const tl_scene_skin* sk = &body->skins[0];
    const float* head = sk->joints[sk->body.head].rest_world + 12;
    float mm = sk->height / TL_HAIR_HUMAN_MM;
    static const char* variants[] = {"cards", "shell", "decimated", "z-up cm", "longer"};
    uint64_t candidates = 0, attached = 0;
    uint32_t spread_left = 0, cover_left = 0;    /* hair off the cap no chain takes */
    double covered = 0, vertices = 0, worst = 1; /* the lowest coverage of one style */
    for (size_t s = 0; s < COUNT(STYLES); ++s)
        for (size_t k = 0; k < COUNT(variants); ++k) {
            tl_hair_mesh mesh;
            ENSURE(style_load(STYLES[s], &mesh));
            const tl_hair_scalp* on = scalp;
            if (k == 0) cut_into_cards(&mesh, 40 * mm, 2 * mm);
            if (k == 1) add_shell(&mesh, 15 * mm, head);
            if (k == 2) decimate(&mesh, 8 * mm);
            if (k == 3) style_z_up_cm(&mesh), on = zscalp;
            if (k == 4) lengthen(&mesh, head, 1.6f);
            tl_hair_guides* g;
            ENSURE_OK(tl_hair_guides_create(&mesh, on, &def, &g, &err), err);
            const tl_hair_audit* a = &g->audit;
            printf("  %-10s %-9s %6u vertices %5u pieces: %5u of %5u attached (%.2f%%), %4u "
                   "links (%u mid), coverage %.2f%%, excluded %u\n",
                   STYLES[s], variants[k], a->vertices, a->components, a->attached, a->candidates,
                   a->candidates ? 100.0 * a->attached / a->candidates : 0, a->merged_links,
                   a->mid_guide_links, 100 * a->coverage, a->excluded_vertices);
            candidates += a->candidates, attached += a->attached;
            covered += a->coverage * a->vertices, vertices += a->vertices;
            worst = a->coverage < worst ? a->coverage : worst;
            uint32_t before = 0, after = 0;
            ENSURE(unowned_both(on, &mesh, g, &before, &after));
            printf("  %-10s %-9s hair off the cap on the head alone: %u (spread) -> %u (cover)\n",
                   STYLES[s], variants[k], before, after);
            spread_left += before, cover_left += after;
            tl_hair_guides_destroy(g);
            tl_hair_mesh_free(&mesh);
        }
    tl_hair_scalp_destroy(zscalp);
    tl_scene_destroy(zbody);
    tl_gltf_destroy(zdoc);
    double rate = (double)attached / (double)candidates, coverage = covered / vertices;
    printf("  generalisation set: %llu of %llu attached (%.2f%%), coverage %.2f%%\n",
           (unsigned long long)attached, (unsigned long long)candidates, 100 * rate,
           100 * coverage);
    printf("  generalisation set: hair off the cap on the head alone %u -> %u\n", spread_left,
           cover_left);
    printf("  generalisation set: lowest coverage of one style %.2f%%\n", 100 * worst);
    ENSURE(rate >= 0.9884 && coverage >= 0.95);
    ENSURE(worst >= 0.95); /* each style, not only the set (issue #12) */
    ENSURE(cover_left < spread_left);
}

/* Chains per style and variant (generalisation_set's variants, the style itself first): the
 * chains' count, the hair off the cap they bind (within bind_mm of a chain) and the hair off the
 * cap. Cutting a style into cards keeps its locks: the cards variant of every style with chains
 * gets at least as many chains (bob02: 3 against 6 before the links were chosen again after the
 * merge passes, docs/hair.md "Cards keep their locks"). */
static void variants_chains(void) {
    ENSURE(body_load());
    tl_gltf* zdoc;
    tl_scene* zbody;
    ENSURE(body_z_up_cm(&zdoc, &zbody));
    tl_hair_def def = tl_default_hair_def();
    tl_hair_scalp* zscalp;
    tl_error err;
    ENSURE_OK(tl_hair_scalp_find(zbody, 0, &def, NULL, &zscalp, &err), err);
    const tl_scene_skin* sk = &body->skins[0];
    const float* head = sk->joints[sk->body.head].rest_world + 12;
    float mm = sk->height / TL_HAIR_HUMAN_MM;
    static const char* variants[] = {"style", "cards", "shell", "decimated", "z-up cm", "longer"};
    uint32_t total[COUNT(variants)] = {0}, fewer = 0;
    for (size_t s = 0; s < COUNT(STYLES); ++s) {
        uint32_t style_chains = 0;
        for (size_t k = 0; k < COUNT(variants); ++k) {
            tl_hair_mesh mesh;
            ENSURE(style_load(STYLES[s], &mesh));
            const tl_hair_scalp* on = scalp;
            if (k == 1) cut_into_cards(&mesh, 40 * mm, 2 * mm);
            if (k == 2) add_shell(&mesh, 15 * mm, head);
            if (k == 3) decimate(&mesh, 8 * mm);
            if (k == 4) style_z_up_cm(&mesh), on = zscalp;
            if (k == 5) lengthen(&mesh, head, 1.6f);
            tl_hair_guides* g;
            tl_hair_chains* c;
            tl_hair_chain_def cdef = tl_default_hair_chain_def();
            ENSURE_OK(tl_hair_guides_create(&mesh, on, &def, &g, &err), err);
            ENSURE_OK(tl_hair_chains_create(&mesh, on, g, &cdef, &c, &err), err);
            float cap = cdef.cap_mm * on->height / TL_HAIR_HUMAN_MM;
            uint32_t off = 0, bound = 0;
            for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
                float d, b[3];
                if (hair_scalp_nearest(on, mesh.positions + 3 * (size_t)v, cap, &d, b) !=
                    UINT32_MAX)
                    continue;
                off++, bound += c->influence[TL_HAIR_INFLUENCES * (size_t)v] != UINT32_MAX;
            }
            printf("  %-10s %-9s %2u chains, hair off the cap bound %5u of %5u (%.1f%%), "
                   "longest free part %.0f mm\n",
                   STYLES[s], variants[k], c->chain_count, bound, off,
                   off ? 100.0 * bound / off : 0,
                   c->longest_free / (on->height / TL_HAIR_HUMAN_MM));
            total[k] += c->chain_count;
            if (k == 0) style_chains = c->chain_count;
            fewer += k == 1 && c->chain_count < style_chains;
            tl_hair_chains_destroy(c);
            tl_hair_guides_destroy(g);
            tl_hair_mesh_free(&mesh);
        }
    }
    for (size_t k = 0; k < COUNT(variants); ++k)
        printf("  %-9s %u chains over the ten styles\n", variants[k], total[k]);
    tl_hair_scalp_destroy(zscalp);
    tl_scene_destroy(zbody);
    tl_gltf_destroy(zdoc);
    ENSURE_MSG(fewer == 0, "%u styles cut into cards get fewer chains", fewer);
}

/* Godette (VRM 0.x): her hair pieces are the skin the VRM spring-bone groups hanging from the
 * head drive (the front locks and the hair balls: ground truth), cut out of her one body mesh;
 * her scalp the automatic one without them (a mask). Audited like a style not in ../shared:
 * attachment >= 98.84%, coverage >= 95%. */
static void godette_spring_hair(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(tl_test_shared("assets/vrm-godette/Godette_vrm_v4.vrm"), &doc, &err),
              err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    int32_t skin = tl_hair_scene_skin(scene);
    ENSURE(skin != TL_NONE);
    const tl_scene_skin* sk = &scene->skins[skin];
    /* the spring joints: every bone of a group and the joints below it, when it hangs from
       the head */
    uint8_t* spring = calloc(sk->joint_count, 1);
    json_t* groups = json_object_get(
        json_object_get(json_object_get(json_object_get(tl_gltf_json(doc), "extensions"), "VRM"),
                        "secondaryAnimation"),
        "boneGroups");
    size_t gi, bi;
    json_t *group, *bone;
    json_array_foreach(groups, gi, group) {
        json_array_foreach(json_object_get(group, "bones"), bi, bone) {
            for (uint32_t j = 0; j < sk->joint_count; ++j) {
                if (sk->joints[j].node != (uint32_t)json_integer_value(bone)) continue;
                bool under_head = false;
                for (int32_t a = sk->joints[j].parent; a != TL_NONE; a = sk->joints[a].parent)
                    under_head |= a == sk->body.head;
                spring[j] = under_head;
            }
        }
    }
    for (uint32_t pass = 0; pass < sk->joint_count; ++pass)
        for (uint32_t j = 0; j < sk->joint_count; ++j)
            if (sk->joints[j].parent != TL_NONE && spring[sk->joints[j].parent]) spring[j] = 1;
    /* the hair mesh: triangles whose three vertices the spring joints dominate */
    uint32_t* index = malloc(sizeof(uint32_t) * sk->vertex_count);
    memset(index, 0xff, sizeof(uint32_t) * sk->vertex_count);
    uint8_t* hair_tri = calloc(sk->triangle_count, 1);
    tl_hair_mesh mesh = {malloc(3 * sizeof(float) * sk->vertex_count), 0,
                         malloc(3 * sizeof(uint32_t) * sk->triangle_count), 0};
    for (uint32_t t = 0; t < sk->triangle_count; ++t) {
        const uint32_t* v = sk->triangles + 3 * (size_t)t;
        bool in = true;
        for (int k = 0; k < 3; ++k)
            in &= spring[tl_scene_skin_dominant_joint(sk, v[k])] != 0;
        if (!in) continue;
        hair_tri[t] = 1;
        for (int k = 0; k < 3; ++k) {
            if (index[v[k]] == UINT32_MAX) {
                index[v[k]] = mesh.vertex_count;
                memcpy(mesh.positions + 3 * (size_t)mesh.vertex_count++,
                       sk->rest_positions + 3 * (size_t)v[k], 3 * sizeof(float));
            }
            mesh.triangles[3 * (size_t)mesh.triangle_count + k] = index[v[k]];
        }
        mesh.triangle_count++;
    }
    /* her scalp: the automatic one without the hair pieces */
    tl_hair_def def = tl_default_hair_def();
    tl_hair_scalp* automatic;
    ENSURE_OK(tl_hair_scalp_find(scene, (uint32_t)skin, &def, NULL, &automatic, &err), err);
    uint8_t* mask = calloc(sk->triangle_count, 1);
    uint32_t a = 0;
    for (uint32_t t = 0; t < sk->triangle_count && a < automatic->triangle_count; ++t)
        if (!memcmp(sk->triangles + 3 * (size_t)t, automatic->triangles + 3 * (size_t)a,
                    3 * sizeof(uint32_t)))
            mask[t] = !hair_tri[t], a++;
    ENSURE(a == automatic->triangle_count); /* the scalp keeps the skin's order */
    tl_hair_scalp* own;
    ENSURE_OK(tl_hair_scalp_from_mask(scene, (uint32_t)skin, mask, &own, &err), err);
    tl_hair_guides* g;
    ENSURE_OK(tl_hair_guides_create(&mesh, own, &def, &g, &err), err);
    const tl_hair_audit* au = &g->audit;
    printf("  godette: %u hair vertices in %u pieces (spring joints), scalp %u triangles: %u of %u "
           "attached (%.2f%%), %u links (%u mid), coverage %.2f%%\n",
           au->vertices, au->components, own->triangle_count, au->attached, au->candidates,
           au->candidates ? 100.0 * au->attached / au->candidates : 0, au->merged_links,
           au->mid_guide_links, 100 * au->coverage);
    bool ok =
        mesh.vertex_count > 50 && au->attached >= 0.9884 * au->candidates && au->coverage >= 0.95;
    tl_hair_guides_destroy(g);
    tl_hair_scalp_destroy(own);
    tl_hair_scalp_destroy(automatic);
    tl_hair_mesh_free(&mesh);
    free(spring), free(index), free(hair_tri), free(mask);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(ok);
}

/* §3, §4: the same loose pieces moved 15 cm away are neither stretched to the head nor
 * linked: every one of their guides is rejected, too far. */
static void distant_fragments_rejected(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    ENSURE(style_load("long01", &mesh));
    split_below(&mesh, 1.30f);
    drop_copies(&mesh, 0.15f);
    tl_hair_def def = tl_default_hair_def();
    tl_hair_guides* g;
    tl_error err;
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    uint32_t loose = 0, loose_attached = 0;
    for (uint32_t i = 0; i < g->guide_count; ++i) {
        const tl_hair_guide* guide = &g->guides[i];
        const float* p = g->points + 3 * (size_t)guide->first_point;
        const float* q = p + 3 * (guide->point_count - 1);
        if (fmaxf(p[1], q[1]) >= 1.30f - 1e-4f) continue; /* the upper part: all above the cut */
        loose++;
        loose_attached += guide->link != TL_HAIR_LINK_NONE;
        ENSURE(guide->link != TL_HAIR_LINK_NONE || guide->reason == TL_HAIR_REJECT_TOO_FAR);
    }
    ENSURE(loose > 20);
    ENSURE_MSG(loose_attached == 0, "%u of %u distant guides attached", loose_attached, loose);
    ENSURE(g->audit.rejected[TL_HAIR_REJECT_TOO_FAR] == loose);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* The issue's bar on the ten styles: ≥ 99.5% attached, coverage ≥ 97%, root threshold 20 mm
 * at human scale; every rejection has a reason. */
static void ten_style_audit(void) {
    ENSURE(body_load());
    tl_hair_def def = tl_default_hair_def();
    ENSURE(def.root_distance_mm <= 20);
    uint64_t candidates = 0, attached = 0, vertices = 0;
    double covered = 0;
    for (size_t s = 0; s < COUNT(STYLES); ++s) {
        tl_hair_mesh mesh;
        ENSURE(style_load(STYLES[s], &mesh));
        tl_hair_guides* g;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        const tl_hair_audit* a = &g->audit;
        uint32_t reasons = 0;
        for (int r = 1; r < TL_HAIR_REJECT_COUNT; ++r)
            reasons += a->rejected[r];
        ENSURE(reasons == a->candidates - a->attached);
        ENSURE(a->components_attached <= a->components && a->candidates > 0);
        printf("  %-10s %5u candidates, %5u attached, %4u links (%u mid), coverage %.4f\n",
               STYLES[s], a->candidates, a->attached, a->merged_links, a->mid_guide_links,
               a->coverage);
        candidates += a->candidates, attached += a->attached, vertices += a->vertices;
        covered += a->coverage * a->vertices;
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
    double rate = (double)attached / (double)candidates, coverage = covered / (double)vertices;
    printf("  total: %.4f attached, coverage %.4f\n", rate, coverage);
    ENSURE(rate >= 0.995);
    ENSURE(coverage >= 0.97);
}

/* The command: the table, the JSON of the issue, the guides file; a bad input fails with its
 * name and writes nothing. */
static void hair_audit_command(void) {
    char* out = NULL;
    const char* guides = tl_test_scratch("audit.guides.json");
    remove(guides);
    int rc =
        tl_test_cli(&out, "hair-audit '%s' '%s' '%s' --json --guides '%s'",
                    tl_test_shared("cases/mh-body.glb"), tl_test_shared("cases/mh-long01.hair.obj"),
                    tl_test_shared("cases/mh-ponytail01.glb"), guides);
    json_t* doc = rc == 0 && out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    ENSURE_MSG(rc == 0, "exit %d", rc);
    ENSURE(doc);
    json_t* styles = json_object_get(doc, "styles");
    ENSURE(json_array_size(styles) == 2);
    const char* keys[] = {"file",
                          "candidates",
                          "attached",
                          "rejected",
                          "merged_links",
                          "mid_guide_links",
                          "coverage",
                          "components",
                          "components_attached",
                          "excluded_vertices",
                          "error"};
    for (size_t k = 0; k < COUNT(keys); ++k)
        ENSURE_MSG(json_object_get(json_array_get(styles, 1), keys[k]), "no %s", keys[k]);
    json_t* total = json_object_get(doc, "total");
    ENSURE(json_integer_value(json_object_get(total, "styles")) == 2);
    ENSURE(json_object_get(total, "attachment_rate") && json_object_get(total, "errors"));
    json_decref(doc);
    size_t size;
    unsigned char* g = tl_test_read_file(guides, &size);
    ENSURE(g && size > 1000);
    free(g);
    /* a missing style: the others still audited, its error recorded, exit 1 */
    rc = tl_test_cli(&out, "hair-audit '%s' /nonexistent/x.obj '%s' --json",
                     tl_test_shared("cases/mh-body.glb"),
                     tl_test_shared("cases/mh-short04.hair.obj"));
    ENSURE(rc == 1 && out);
    doc = json_loads(out, 0, NULL);
    free(out);
    ENSURE(doc);
    const char* error = json_string_value(
        json_object_get(json_array_get(json_object_get(doc, "styles"), 0), "error"));
    ENSURE(error && strstr(error, "/nonexistent/x.obj"));
    json_decref(doc);
    /* a bad OBJ names its line */
    const char* bad = tl_test_scratch("bad.obj");
    FILE* f = fopen(bad, "w");
    ENSURE(f);
    fputs("v 0 0 0\nv 1 0 0\nf 1 2 3\n", f);
    fclose(f);
    tl_hair_mesh mesh;
    tl_error err;
    ENSURE(tl_hair_mesh_read_obj(bad, &mesh, &err) == TL_ERROR_INVALID);
    ENSURE_MSG(strstr(err.message, "line 3"), "%s", err.message);
}

/* A read mesh holds finite positions and triangles of its own vertices; a refusal names the
 * file. */
static bool obj_result_sound(tl_result r, const tl_hair_mesh* mesh, const tl_error* err,
                             const char* name, size_t cut) {
    if (r != TL_OK) {
        if (strstr(err->message, name)) return true;
        tl_test_failf(__FILE__, __LINE__, "cut at %zu: message without the file: %s", cut,
                      err->message);
        return false;
    }
    for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; ++i)
        if (!isfinite(mesh->positions[i])) return false;
    for (size_t i = 0; i < 3 * (size_t)mesh->triangle_count; ++i)
        if (mesh->triangles[i] >= mesh->vertex_count) {
            tl_test_failf(__FILE__, __LINE__, "cut at %zu: corner %u of %u vertices", cut,
                          mesh->triangles[i], mesh->vertex_count);
            return false;
        }
    return mesh->vertex_count > 0;
}

/* The OBJ reader on hostile input: a FIFO, a folder and a NUL byte are refused (the FIFO
 * without waiting for a writer), the command names the file and goes on with the other
 * styles; every truncation of a shared style reads or fails cleanly. */
static void obj_hostile(void) {
    tl_hair_mesh mesh;
    tl_error err;
    const char* fifo = tl_test_scratch("hostile-fifo.obj");
    remove(fifo);
    ENSURE(mkfifo(fifo, 0600) == 0);
    ENSURE(tl_hair_mesh_read_obj(fifo, &mesh, &err) == TL_ERROR_IO);
    ENSURE_MSG(strstr(err.message, fifo) && strstr(err.message, "a FIFO"), "%s", err.message);
    char* out = NULL;
    int rc =
        tl_test_cli(&out, "hair-audit '%s' '%s' '%s' --json", tl_test_shared("cases/mh-body.glb"),
                    fifo, tl_test_shared("cases/mh-short04.hair.obj"));
    ENSURE(rc == 1 && out && strstr(out, "a FIFO") && strstr(out, "\"attached\""));
    free(out);
    const char* folder = tl_test_scratch("hostile-folder.obj");
    rmdir(folder);
    ENSURE(mkdir(folder, 0700) == 0);
    ENSURE(tl_hair_mesh_read_obj(folder, &mesh, &err) == TL_ERROR_IO);
    ENSURE_MSG(strstr(err.message, "a folder"), "%s", err.message);
    static const char nul[] = "v 0 0 0\nv 1 0 0\0junk\nv 0 1 0\nf 1 2 3\n";
    ENSURE(tl_hair_mesh_read_obj_memory(nul, sizeof nul - 1, "nul.obj", &mesh, &err) ==
           TL_ERROR_FORMAT);
    ENSURE_MSG(strstr(err.message, "nul.obj: line 2") && strstr(err.message, "offset 15"), "%s",
               err.message);

    const char* path = tl_test_shared("cases/mh-short04.hair.obj");
    size_t size = 0;
    unsigned char* bytes = tl_test_read_file(path, &size);
    ENSURE(bytes && size > 4096);
    tl_hair_mesh whole;
    ENSURE_OK(tl_hair_mesh_read_obj(path, &whole, &err), err);
    ENSURE_OK(tl_hair_mesh_read_obj_memory(bytes, size, "short04", &mesh, &err), err);
    ENSURE(mesh.vertex_count == whole.vertex_count && mesh.triangle_count == whole.triangle_count);
    ENSURE(!memcmp(mesh.positions, whole.positions, 12 * (size_t)whole.vertex_count) &&
           !memcmp(mesh.triangles, whole.triangles, 12 * (size_t)whole.triangle_count));
    tl_hair_mesh_free(&mesh);
    tl_hair_mesh_free(&whole);
    /* every cut in the first 4096 bytes, every 997th after */
    bool ok = true;
    for (size_t cut = 0; ok && cut < size; cut += cut < 4096 ? 1 : 997) {
        tl_result r = tl_hair_mesh_read_obj_memory(bytes, cut, "short04", &mesh, &err);
        ok = obj_result_sound(r, &mesh, &err, "short04", cut);
        ENSURE_MSG(ok, "cut at %zu of %zu: %s", cut, size, tl_result_string(r));
        tl_hair_mesh_free(&mesh);
    }
    free(bytes);
}

static bool chains_smoothed(const char* style, uint32_t iterations, tl_hair_mesh* mesh,
                            tl_hair_guides** g, tl_hair_chains** c) {
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    cdef.smooth_steps = iterations;
    tl_error err;
    if (!style_load(style, mesh)) return false;
    if (tl_hair_guides_create(mesh, scalp, &def, g, &err) == TL_OK &&
        tl_hair_chains_create(mesh, scalp, *g, &cdef, c, &err) == TL_OK)
        return true;
    fprintf(stderr, "%s: %s\n", style, err.message);
    return false;
}

static bool chains_of(const char* style, tl_hair_mesh* mesh, tl_hair_guides** g,
                      tl_hair_chains** c) {
    return chains_smoothed(style, tl_default_hair_chain_def().smooth_steps, mesh, g, c);
}

/* The weights diffused over the surface (smooth_steps, off by default: hair.md "Seams"):
 * at most 4 influences largest first summing to 1, seam copies weighted alike, the weights
 * spread past one chain's bone pair, the cap left on the head. */
static void smoothed_weights(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    tl_hair_guides *g, *g0;
    tl_hair_chains *c, *c0;
    ENSURE(chains_smoothed("long01", 8, &mesh, &g, &c));
    tl_hair_mesh m0;
    ENSURE(chains_smoothed("long01", 0, &m0, &g0, &c0));
    ENSURE(c->chain_count == c0->chain_count && c->bound_vertices >= 0.4 * mesh.vertex_count);
    uint32_t spread = 0, cap = 0;
    for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
        const float* w = c->weight + TL_HAIR_INFLUENCES * (size_t)v;
        const uint32_t* inf = c->influence + TL_HAIR_INFLUENCES * (size_t)v;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5);
        for (int k = 1; k < TL_HAIR_INFLUENCES; ++k)
            ENSURE(w[k] <= w[k - 1] && w[k] >= 0);
        spread += w[2] > 0;
        bool was_cap = c0->influence[TL_HAIR_INFLUENCES * v] == UINT32_MAX;
        if (was_cap && inf[0] == UINT32_MAX && w[0] == 1) cap++;
        /* a seam copy: the same position, the same weights */
        for (uint32_t u = v + 1; u < mesh.vertex_count && u < v + 64; ++u)
            if (!memcmp(mesh.positions + 3 * (size_t)u, mesh.positions + 3 * (size_t)v,
                        3 * sizeof(float)))
                for (int k = 0; k < TL_HAIR_INFLUENCES; ++k)
                    ENSURE_NEAR(c->weight[TL_HAIR_INFLUENCES * (size_t)u + k], w[k], 1e-6);
    }
    printf("  long01 smoothed: %u of %u vertices with 3+ influences, %u held on the head\n", spread,
           mesh.vertex_count, cap);
    ENSURE(spread > mesh.vertex_count / 10 && cap > 0);
    tl_hair_chains_destroy(c), tl_hair_chains_destroy(c0);
    tl_hair_guides_destroy(g), tl_hair_guides_destroy(g0);
    tl_hair_mesh_free(&mesh), tl_hair_mesh_free(&m0);
}

/* long01's chains with seam_steps and smooth_steps as given, the seam blend guarded by the
 * colliders when given. */
static bool chains_guarded(uint32_t seam, uint32_t smooth, const tl_collider* colliders,
                           uint32_t collider_count, tl_hair_mesh* mesh, tl_hair_guides** g,
                           tl_hair_chains** c) {
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    cdef.seam_steps = seam, cdef.smooth_steps = smooth;
    cdef.colliders = colliders, cdef.collider_count = collider_count;
    tl_error err;
    if (!style_load("long01", mesh)) return false;
    if (tl_hair_guides_create(mesh, scalp, &def, g, &err) == TL_OK &&
        tl_hair_chains_create(mesh, scalp, *g, &cdef, c, &err) == TL_OK)
        return true;
    fprintf(stderr, "long01: %s\n", err.message);
    return false;
}

static bool chains_seamed(uint32_t seam, uint32_t smooth, tl_hair_mesh* mesh, tl_hair_guides** g,
                          tl_hair_chains** c) {
    return chains_guarded(seam, smooth, NULL, 0, mesh, g, c);
}

/* The seam blend leaves the chains as chosen (seam_steps, hair.md "The seam blend as an option"):
 * on every playable style the adapter with seam_steps 4 (unguarded) keeps the same chains (guide
 * and joints) as with none. Failed before min_vertices was counted ahead of the blend (bob02: 7
 * chains, 5 blended). Printed: the fewest vertices a chain dominates once blended. */
static void seam_blend_keeps_chains(void) {
    ENSURE(body_load());
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    tl_hair_def def = tl_default_hair_def();
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_hair_mesh mesh;
        tl_hair_guides* g;
        tl_hair_chains* c[2] = {NULL, NULL};
        tl_error err;
        ENSURE(style_load(styles[i], &mesh));
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        for (int k = 0; k < 2; ++k) {
            tl_hair_chain_def cdef = tl_default_hair_chain_def();
            cdef.seam_steps = 4 * (uint32_t)k;
            ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c[k], &err), err);
        }
        uint32_t same = 0, fewest = UINT32_MAX;
        for (uint32_t a = 0; a < c[0]->chain_count && a < c[1]->chain_count; ++a) {
            const tl_hair_chain *x = &c[0]->chains[a], *y = &c[1]->chains[a];
            same += x->guide == y->guide && x->bone_count == y->bone_count &&
                    !memcmp(x->joints, y->joints, 3 * sizeof(float) * (x->bone_count + 1));
            uint32_t held = 0;
            for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
                uint32_t inf = c[1]->influence[TL_HAIR_INFLUENCES * (size_t)v];
                held += inf != UINT32_MAX && inf / TL_CHAIN_MAX_BONES == a;
            }
            fewest = held < fewest ? held : fewest;
        }
        printf("  %s: %u chains, %u with seam_steps 4, %u the same; the fewest vertices a blended "
               "chain dominates %u\n",
               styles[i], c[0]->chain_count, c[1]->chain_count, same, fewest);
        ENSURE_MSG(c[0]->chain_count > 0 && c[0]->chain_count == c[1]->chain_count &&
                       same == c[0]->chain_count,
                   "%s: %u chains, %u blended, %u the same", styles[i], c[0]->chain_count,
                   c[1]->chain_count, same);
        tl_hair_chains_destroy(c[0]), tl_hair_chains_destroy(c[1]);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
}

/* Edges between two chains' hair that share no chain among their influences (a hard seam). */
static uint32_t hard_seams(const tl_hair_mesh* mesh, const tl_hair_chains* c) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            const uint32_t* iu =
                c->influence + TL_HAIR_INFLUENCES * (size_t)mesh->triangles[3 * t + e];
            const uint32_t* iv =
                c->influence + TL_HAIR_INFLUENCES * (size_t)mesh->triangles[3 * t + (e + 1) % 3];
            if (iu[0] == UINT32_MAX || iv[0] == UINT32_MAX ||
                iu[0] / TL_CHAIN_MAX_BONES == iv[0] / TL_CHAIN_MAX_BONES)
                continue;
            bool shared = false;
            for (int a = 0; a < TL_HAIR_INFLUENCES; ++a)
                for (int b = 0; b < TL_HAIR_INFLUENCES; ++b)
                    shared |= iu[a] != UINT32_MAX && iv[b] != UINT32_MAX &&
                              iu[a] / TL_CHAIN_MAX_BONES == iv[b] / TL_CHAIN_MAX_BONES;
            n += !shared;
        }
    return n;
}

/* The seams between chains blended (seam_steps, off by default: hair.md "Seams blended"): on
 * long01 fewer edges between two chains' hair share no chain, and only the band along the seams
 * moves (fewer vertices change than with the same steps over the whole surface), the cap kept. */
static void seam_weights_blend(void) {
    ENSURE(body_load());
    tl_hair_mesh m0, m1, m2;
    tl_hair_guides *g0, *g1, *g2;
    tl_hair_chains *c0, *c1, *c2;
    ENSURE(chains_seamed(0, 0, &m0, &g0, &c0));
    ENSURE(chains_seamed(4, 0, &m1, &g1, &c1));
    ENSURE(chains_seamed(0, 4, &m2, &g2, &c2));
    ENSURE(c0->chain_count == c1->chain_count);
    uint32_t changed = 0, changed_all = 0, cap_lost = 0;
    for (uint32_t v = 0; v < m0.vertex_count; ++v) {
        size_t at = TL_HAIR_INFLUENCES * (size_t)v;
        const float* w = c1->weight + at;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5);
        changed += memcmp(c0->weight + at, w, sizeof(float) * TL_HAIR_INFLUENCES) != 0 ||
                   memcmp(c0->influence + at, c1->influence + at,
                          sizeof(uint32_t) * TL_HAIR_INFLUENCES) != 0;
        changed_all +=
            memcmp(c0->weight + at, c2->weight + at, sizeof(float) * TL_HAIR_INFLUENCES) != 0;
        bool cap = c0->influence[at] == UINT32_MAX && c0->weight[at] == 1;
        cap_lost += cap && !(c1->influence[at] == UINT32_MAX && w[0] == 1);
    }
    uint32_t hard0 = hard_seams(&m0, c0), hard1 = hard_seams(&m1, c1);
    printf(
        "  long01: hard seam edges %u -> %u with seam_steps 4; vertices changed %u (smooth_steps "
        "4: %u) of %u\n",
        hard0, hard1, changed, changed_all, m0.vertex_count);
    ENSURE(hard0 > 0 && hard1 < hard0 / 2);
    ENSURE(changed > 0 && changed < changed_all && cap_lost == 0);
    tl_hair_chains_destroy(c0), tl_hair_chains_destroy(c1), tl_hair_chains_destroy(c2);
    tl_hair_guides_destroy(g0), tl_hair_guides_destroy(g1), tl_hair_guides_destroy(g2);
    tl_hair_mesh_free(&m0), tl_hair_mesh_free(&m1), tl_hair_mesh_free(&m2);
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1], out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* How much deeper than its unblended weights put it the blend puts a vertex into the colliders,
 * the deepest over the vertices, with every chain swung rigidly about its first joint by `deg`
 * towards each of eight directions across its lock at once (the test's own poses, not the
 * guard's samples). */
static float seam_sink(const tl_hair_mesh* m, const tl_hair_chains* c0, const tl_hair_chains* c1,
                       const tl_collider* col, uint32_t n, float deg) {
    float worst = 0;
    for (int dir = 0; dir < 8; ++dir) {
        float turned[24][9];
        for (uint32_t k = 0; k < c0->chain_count && k < 24; ++k) {
            const float* j = c0->chains[k].joints;
            const float* t = j + 3 * c0->chains[k].bone_count;
            float d[3] = {t[0] - j[0], t[1] - j[1], t[2] - j[2]}, a[3] = {0, 0, 0}, e1[3], e2[3];
            a[fabsf(d[0]) < 0.9f * sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) ? 0 : 1] = 1;
            cross3(d, a, e1), cross3(d, e1, e2);
            float l1 = sqrtf(dot3(e1, e1)), l2 = sqrtf(dot3(e2, e2)), ang = 0.7853982f * dir;
            float ax[3], s = sinf(deg * 0.017453293f), co = cosf(deg * 0.017453293f);
            for (int q = 0; q < 3; ++q)
                ax[q] = cosf(ang) * e1[q] / l1 + sinf(ang) * e2[q] / l2;
            /* Rodrigues' rotation, row-major */
            float x = ax[0], y = ax[1], z = ax[2], u = 1 - co;
            float r[9] = {u * x * x + co,    u * x * y - s * z, u * x * z + s * y,
                          u * x * y + s * z, u * y * y + co,    u * y * z - s * x,
                          u * x * z - s * y, u * y * z + s * x, u * z * z + co};
            memcpy(turned[k], r, sizeof r);
        }
        for (uint32_t v = 0; v < m->vertex_count; ++v) {
            const float* p = m->positions + 3 * (size_t)v;
            float q[2][3];
            const tl_hair_chains* cc[2] = {c0, c1};
            for (int w = 0; w < 2; ++w) {
                q[w][0] = q[w][1] = q[w][2] = 0;
                for (int i = 0; i < TL_HAIR_INFLUENCES; ++i) {
                    uint32_t id = cc[w]->influence[TL_HAIR_INFLUENCES * (size_t)v + i];
                    float wt = cc[w]->weight[TL_HAIR_INFLUENCES * (size_t)v + i], o[3];
                    memcpy(o, p, sizeof o);
                    if (id != UINT32_MAX && id / TL_CHAIN_MAX_BONES < 24) {
                        const float* j = cc[w]->chains[id / TL_CHAIN_MAX_BONES].joints;
                        const float* r = turned[id / TL_CHAIN_MAX_BONES];
                        float d[3] = {p[0] - j[0], p[1] - j[1], p[2] - j[2]};
                        for (int k = 0; k < 3; ++k)
                            o[k] =
                                j[k] + r[3 * k] * d[0] + r[3 * k + 1] * d[1] + r[3 * k + 2] * d[2];
                    }
                    for (int k = 0; k < 3; ++k)
                        q[w][k] += wt * o[k];
                }
            }
            for (uint32_t k = 0; k < n; ++k) {
                float bound = fmaxf(fmaxf(tl_collider_depth(&col[k], p), 0),
                                    tl_collider_depth(&col[k], q[0]));
                worst = fmaxf(worst, tl_collider_depth(&col[k], q[1]) - bound);
            }
        }
    }
    return worst;
}

/* The seam blend guarded by the body's colliders (tl_hair_chain_def.colliders; hair.md "Seams
 * blended outside the body"): on long01 and mh-body's rest colliders the guard gives back part
 * of the blend (fewer vertices change, every one between its unblended and blended weights, the
 * cap kept), some of it stays (fewer hard seams than unblended), and with the locks swung 30
 * degrees the blended hair sinks less past the unblended hair's depth than unguarded. */
static void seam_guard_gives_back(void) {
    ENSURE(body_load());
    tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
    tl_collider col[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    tl_error err;
    ENSURE_OK(tl_body_colliders_fit(body, 0, fitted, TL_BODY_COLLIDERS_MAX, &n, &err), err);
    tl_pose* pose = tl_pose_create(body);
    ENSURE(pose && n > 0);
    tl_pose_set_rest(pose, body, 0);
    tl_body_colliders_pose(body, 0, fitted, n, pose, col);
    tl_pose_destroy(pose);
    tl_hair_mesh m0, m1, m2;
    tl_hair_guides *g0, *g1, *g2;
    tl_hair_chains *c0, *c1, *c2;
    ENSURE(chains_guarded(0, 0, NULL, 0, &m0, &g0, &c0));
    ENSURE(chains_guarded(4, 0, NULL, 0, &m1, &g1, &c1));
    ENSURE(chains_guarded(4, 0, col, n, &m2, &g2, &c2));
    ENSURE(c0->chain_count == c2->chain_count && c1->chain_count == c2->chain_count);
    uint32_t changed1 = 0, changed2 = 0, cap_lost = 0;
    for (uint32_t v = 0; v < m0.vertex_count; ++v) {
        size_t at = TL_HAIR_INFLUENCES * (size_t)v;
        const float* w = c2->weight + at;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5);
        changed1 += memcmp(c0->weight + at, c1->weight + at, sizeof(float) * 4) != 0;
        changed2 += memcmp(c0->weight + at, w, sizeof(float) * 4) != 0;
        bool cap = c0->influence[at] == UINT32_MAX && c0->weight[at] == 1;
        cap_lost += cap && !(c2->influence[at] == UINT32_MAX && w[0] == 1);
    }
    uint32_t hard0 = hard_seams(&m0, c0), hard1 = hard_seams(&m1, c1), hard2 = hard_seams(&m2, c2);
    float sink1 = seam_sink(&m0, c0, c1, col, n, 30), sink2 = seam_sink(&m0, c0, c2, col, n, 30);
    printf("  long01: vertices changed by the blend %u unguarded, %u guarded of %u; hard seam "
           "edges %u -> %u unguarded, %u guarded; sink past the unblended hair, locks swung 30 "
           "deg: %.4f H unguarded, %.4f H guarded\n",
           changed1, changed2, m0.vertex_count, hard0, hard1, hard2, sink1 / body->skins[0].height,
           sink2 / body->skins[0].height);
    ENSURE(changed2 > 0 && changed2 < changed1 && cap_lost == 0);
    ENSURE(hard2 < hard0 && hard2 > hard1);
    ENSURE(sink2 < sink1);
    tl_hair_chains_destroy(c0), tl_hair_chains_destroy(c1), tl_hair_chains_destroy(c2);
    tl_hair_guides_destroy(g0), tl_hair_guides_destroy(g1), tl_hair_guides_destroy(g2);
    tl_hair_mesh_free(&m0), tl_hair_mesh_free(&m1), tl_hair_mesh_free(&m2);
}

/* A vertex's weight on the head (the UINT32_MAX influence). */
static float head_share(const tl_hair_chains* c, uint32_t v) {
    float h = 0;
    for (int k = 0; k < TL_HAIR_INFLUENCES; ++k)
        if (c->influence[TL_HAIR_INFLUENCES * (size_t)v + k] == UINT32_MAX)
            h += c->weight[TL_HAIR_INFLUENCES * (size_t)v + k];
    return h;
}

/* Edges from hair on the head alone to hair with no head weight at all: a hard step from the
 * head to a bone (hair.md "Hair left on the head": 97% of bob01's torn chain-head samples). */
static uint32_t hard_head_steps(const tl_hair_mesh* mesh, const tl_hair_chains* c) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            float a = head_share(c, mesh->triangles[3 * t + e]),
                  b = head_share(c, mesh->triangles[3 * t + (e + 1) % 3]);
            n += (a > 1 - 1e-6f && b == 0) || (b > 1 - 1e-6f && a == 0);
        }
    return n;
}

/* head_ramp_mm (off by default: hair.md "Hair left on the head"): on bob01 the chain-bound hair
 * near the cap's edge shares its weight with the head, so fewer edges step from the head alone
 * to a bone alone; the cap stays on the head, the chains are the same, weights sum to 1. */
static void head_ramp_spreads(void) {
    ENSURE(body_load());
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    tl_hair_mesh mesh;
    tl_hair_guides* g;
    tl_hair_chains *c, *c0;
    tl_error err;
    ENSURE(style_load("bob01", &mesh));
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    cdef.head_ramp_mm = 0;
    ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c0, &err), err);
    cdef.head_ramp_mm = 30;
    ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c, &err), err);
    float cap = cdef.cap_mm * scalp->height / TL_HAIR_HUMAN_MM;
    uint32_t before = hard_head_steps(&mesh, c0), after = hard_head_steps(&mesh, c);
    uint32_t cap_kept = 0, cap_count = 0, shared = 0;
    ENSURE(c->chain_count == c0->chain_count);
    for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
        const float* w = c->weight + TL_HAIR_INFLUENCES * (size_t)v;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5);
        float h = head_share(c, v);
        shared += h > 0 && h < 1;
        float d, b[3];
        if (hair_scalp_nearest(scalp, mesh.positions + 3 * (size_t)v, cap, &d, b) == UINT32_MAX)
            continue;
        cap_count++;
        cap_kept += h > 1 - 1e-6f;
    }
    printf("  bob01: edges from the head alone to a bone alone %u -> %u with head_ramp_mm 30; %u "
           "vertices share head and bone; cap %u of %u on the head\n",
           before, after, shared, cap_kept, cap_count);
    tl_hair_chains_destroy(c), tl_hair_chains_destroy(c0);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
    ENSURE(before > 0 && after < before / 2 && cap_kept == cap_count);
}

/* Vertices off the cap, on the head alone, that share an edge with hair a chain moves: the
 * seam between a lock and the hair left beside it (long01: the lock ends past bind_mm). */
static uint32_t head_beside_chain(const tl_hair_mesh* mesh, const tl_hair_chains* c,
                                  const tl_hair_chains* bound, float cap) {
    uint8_t* off_cap = calloc(mesh->vertex_count + 1, 1);
    uint32_t n = 0;
    for (uint32_t v = 0; off_cap && v < mesh->vertex_count; ++v) {
        float d, b[3];
        off_cap[v] =
            hair_scalp_nearest(scalp, mesh->positions + 3 * (size_t)v, cap, &d, b) == UINT32_MAX;
    }
    for (uint32_t t = 0; off_cap && t < mesh->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t p = mesh->triangles[3 * t + k], q = mesh->triangles[3 * t + (k + 1) % 3];
            for (int side = 0; side < 2; ++side, p ^= q, q ^= p, p ^= q)
                n += off_cap[q] && c->influence[TL_HAIR_INFLUENCES * (size_t)q] == UINT32_MAX &&
                     c->weight[TL_HAIR_INFLUENCES * (size_t)q] == 1 &&
                     bound->influence[TL_HAIR_INFLUENCES * (size_t)p] != UINT32_MAX;
        }
    free(off_cap);
    return n;
}

/* fill_unowned (off by default, docs/hair.md "Hair no chain takes"): long01's hair off the cap
 * that no chain takes gets weights filled over the surface from the locks and the cap around
 * it, so no vertex left on the head alone borders a chain-bound one (without the fill: 208
 * such edge ends); the cap stays on the head, the chains are the same, weights sum to 1. */
static void unowned_hair_filled(void) {
    ENSURE(body_load());
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    tl_hair_mesh mesh;
    tl_hair_guides* g;
    tl_hair_chains *c, *c0;
    tl_error err;
    ENSURE(style_load("long01", &mesh));
    ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
    cdef.fill_unowned = false, cdef.cover_unowned = false; /* the chains that leave hair unowned */
    ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c0, &err), err);
    cdef.fill_unowned = true;
    ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c, &err), err);
    float cap = cdef.cap_mm * scalp->height / TL_HAIR_HUMAN_MM;
    uint32_t before = head_beside_chain(&mesh, c0, c0, cap),
             after = head_beside_chain(&mesh, c, c0, cap), cap_kept = 0, cap_count = 0;
    ENSURE(c->chain_count == c0->chain_count && c->bound_vertices > c0->bound_vertices);
    for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
        const float* w = c->weight + TL_HAIR_INFLUENCES * (size_t)v;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5);
        float d, b[3];
        if (hair_scalp_nearest(scalp, mesh.positions + 3 * (size_t)v, cap, &d, b) == UINT32_MAX)
            continue;
        cap_count++;
        cap_kept += c->influence[TL_HAIR_INFLUENCES * (size_t)v] == UINT32_MAX && w[0] == 1;
    }
    printf("  long01: %u -> %u chain-bound vertices; head-only vertices off the cap beside a "
           "lock: %u edge ends without the fill, %u with; cap %u of %u on the head\n",
           c0->bound_vertices, c->bound_vertices, before, after, cap_kept, cap_count);
    tl_hair_chains_destroy(c), tl_hair_chains_destroy(c0);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
    ENSURE(before > 0 && cap_kept == cap_count);
    ENSURE_MSG(after == 0, "%u head-only vertices off the cap beside a lock", after);
}

/* cover_unowned (docs/hair.md "Hair no chain takes"): chosen by the hair they take that no
 * chain takes yet (weighed by free length) before free length × spread, the chains leave less
 * hair off the cap on the head alone on every chained style and at most half of long01's
 * (whose 24 chains chosen by spread alone leave gaps between locks: 201 vertices of the rigged
 * file, its lock ends 0.027 H deep in the back in HeadTurn); as many chains as before. */
static void chains_cover_hair(void) {
    ENSURE(body_load());
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_hair_def def = tl_default_hair_def();
        tl_hair_chain_def cdef = tl_default_hair_chain_def();
        tl_hair_mesh mesh;
        tl_hair_guides* g;
        tl_hair_chains *c, *c0;
        tl_error err;
        ENSURE(style_load(styles[i], &mesh));
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c, &err), err);
        cdef.cover_unowned = false;
        ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c0, &err), err);
        float cap = cdef.cap_mm * scalp->height / TL_HAIR_HUMAN_MM;
        uint32_t before = unowned(scalp, &mesh, c0, cap), after = unowned(scalp, &mesh, c, cap);
        printf("  %s: %u -> %u chains, hair off the cap on the head alone %u -> %u of %u\n",
               styles[i], c0->chain_count, c->chain_count, before, after, mesh.vertex_count);
        bool long01 = !strcmp(styles[i], "long01");
        uint32_t chains = c->chain_count, chains0 = c0->chain_count;
        tl_hair_chains_destroy(c), tl_hair_chains_destroy(c0);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
        ENSURE(chains == chains0 && after <= before);
        ENSURE_MSG(!long01 || 2 * after <= before, "long01: %u -> %u", before, after);
    }
}

/* §6: long01 gets the most chains (24), binding at least 40% of its vertices (the article:
 * 18,204 of 39,804); weights sum to 1 and chain joints lie below the cap. */
static void long_style_chains(void) {
    ENSURE(body_load());
    tl_hair_mesh mesh;
    tl_hair_guides* g;
    tl_hair_chains* c;
    ENSURE(chains_of("long01", &mesh, &g, &c));
    printf("  long01: %u chains, %u of %u vertices on them\n", c->chain_count, c->bound_vertices,
           mesh.vertex_count);
    ENSURE(!c->rigid && c->chain_count == 24);
    ENSURE(c->bound_vertices >= 0.4 * mesh.vertex_count);
    for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
        const float* w = c->weight + TL_HAIR_INFLUENCES * (size_t)v;
        ENSURE_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-6);
    }
    for (uint32_t k = 0; k < c->chain_count; ++k) {
        const tl_hair_chain* ch = &c->chains[k];
        ENSURE(ch->bone_count >= 1 && ch->free_length >= 120 * body->skins[0].height / 1750);
        /* a chain hangs: its tip is below its first joint */
        ENSURE(ch->joints[3 * ch->bone_count + 1] < ch->joints[1]);
    }
    tl_hair_chains_destroy(c);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* §6: the short styles and the afro stay rigid on the head, and say so. */
static void short_styles_rigid(void) {
    ENSURE(body_load());
    const char* rigid[] = {"short01", "short02", "short03", "short04", "afro01"};
    for (size_t s = 0; s < COUNT(rigid); ++s) {
        tl_hair_mesh mesh;
        tl_hair_guides* g;
        tl_hair_chains* c;
        ENSURE(chains_of(rigid[s], &mesh, &g, &c));
        ENSURE_MSG(c->rigid && c->chain_count == 0 && c->bound_vertices == 0,
                   "%s: %u chains (longest free %.3f m)", rigid[s], c->chain_count,
                   c->longest_free);
        for (uint32_t v = 0; v < mesh.vertex_count; ++v)
            ENSURE(c->influence[TL_HAIR_INFLUENCES * v] == UINT32_MAX &&
                   c->weight[TL_HAIR_INFLUENCES * v] == 1);
        tl_hair_chains_destroy(c);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
}

/* Distance from p to the polyline of n points. */
static float polyline_distance(const float* p, const float* line, size_t n) {
    float best = INFINITY;
    for (size_t i = 0; i + 1 < n; ++i)
        best = fminf(best, tl_mesh_segment_distance(p, line + 3 * i, line + 3 * i + 3, NULL));
    return best;
}

/* The ponytail's chain follows MakeHuman's own ponytail bones (mh-ponytail01.truth.json):
 * every joint of the best chain within 10% of the ponytail's length of them, and its tip
 * within 10% of theirs. */
static void ponytail_follows_truth(void) {
    ENSURE(body_load());
    json_t* truth = json_load_file(tl_test_shared("cases/mh-ponytail01.truth.json"), 0, NULL);
    ENSURE(truth);
    json_t* names = json_object_get(truth, "chain");
    float line[3 * 8];
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(names) && n < 7; ++i) {
        size_t k;
        json_t* j;
        json_array_foreach(json_object_get(truth, "joints"), k, j) {
            if (strcmp(json_string_value(json_object_get(j, "name")),
                       json_string_value(json_array_get(names, i))))
                continue;
            json_t* at = json_object_get(j, i == 0 ? "head" : "tail");
            if (i == 0) {
                for (int c = 0; c < 3; ++c)
                    line[3 * n + c] = (float)json_number_value(json_array_get(at, c));
                n++;
                at = json_object_get(j, "tail");
            }
            for (int c = 0; c < 3; ++c)
                line[3 * n + c] = (float)json_number_value(json_array_get(at, c));
            n++;
        }
    }
    json_decref(truth);
    ENSURE(n == 6);
    float length = 0;
    for (size_t i = 1; i < n; ++i)
        length += dist(line + 3 * i, line + 3 * i - 3);
    tl_hair_mesh mesh;
    tl_hair_guides* g;
    tl_hair_chains* c;
    ENSURE(chains_of("ponytail01", &mesh, &g, &c));
    float best = INFINITY, best_tip = INFINITY;
    for (uint32_t k = 0; k < c->chain_count; ++k) {
        const tl_hair_chain* ch = &c->chains[k];
        float worst = 0;
        for (uint32_t j = 0; j <= ch->bone_count; ++j)
            worst = fmaxf(worst, polyline_distance(ch->joints + 3 * j, line, n));
        float tip = dist(ch->joints + 3 * ch->bone_count, line + 3 * (n - 1));
        if (fmaxf(worst, tip) < fmaxf(best, best_tip)) best = worst, best_tip = tip;
    }
    printf("  ponytail01: best chain within %.1f mm of the bones, tip %.1f mm (length %.1f mm)\n",
           1000 * best, 1000 * best_tip, 1000 * length);
    ENSURE(best <= 0.1f * length && best_tip <= 0.1f * length);
    tl_hair_chains_destroy(c);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
}

/* A loaded character (*doc, *scene; a mesh attached to it when `mesh` is not NULL) through
 * tl_rig_analyze and tl_rig_apply, saved to the scratch folder as NAME and read back (the one
 * writer and the one reader); false, with both freed, on failure. */
/* styles_play's rig with the seam fit (TL_HAIR_FIT=1: Walk, HeadTurn, Jump; or the clips named;
 * TL_HAIR_FIT_NO_COLLIDERS=1 without its half-spaces): docs/hair.md "Session 26 (hairfit26)" */
static const char* styles_fit;

static bool rig_and_reload_with(tl_gltf** doc, tl_scene** scene, const tl_hair_mesh* mesh,
                                const char* name, const tl_hair_chain_def* hair, tl_error* err) {
    tl_rig_analysis* rig = NULL;
    tl_rig_def def = tl_default_rig_def();
    def.hair = hair;
    def.hair_fit = styles_fit != NULL;
    def.hair_fit_clips = styles_fit && strcmp(styles_fit, "1") ? styles_fit : NULL;
    def.hair_fit_no_colliders = styles_fit && getenv("TL_HAIR_FIT_NO_COLLIDERS");
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    const char* out = tl_test_scratch(name);
    bool ok = (!mesh || (tl_hair_attach(*doc, *scene, 0, mesh, err) == TL_OK &&
                         tl_scene_refresh(*scene, err) == TL_OK)) &&
              tl_rig_analyze(*scene, &def, &rig, err) == TL_OK &&
              tl_rig_apply(*doc, rig, err) == TL_OK && tl_gltf_save(*doc, out, &save, err) == TL_OK;
    tl_rig_analysis_destroy(rig);
    tl_scene_destroy(*scene);
    tl_gltf_destroy(*doc);
    *scene = NULL, *doc = NULL;
    return ok && tl_gltf_load(out, doc, err) == TL_OK && tl_scene_create(*doc, scene, err) == TL_OK;
}

static bool rig_and_reload(tl_gltf** doc, tl_scene** scene, const tl_hair_mesh* mesh,
                           const char* name, tl_error* err) {
    return rig_and_reload_with(doc, scene, mesh, name, NULL, err);
}

/* mh-STYLE.glb rigged with the hair def given (NULL: the default), saved as NAME and read back. */
static bool rig_style_with(const char* style, const char* name, const tl_hair_chain_def* hair,
                           tl_gltf** doc, tl_scene** scene) {
    char path[256];
    snprintf(path, sizeof path, "cases/mh-%s.glb", style);
    tl_error err;
    *doc = NULL, *scene = NULL;
    bool ok = tl_gltf_load(tl_test_shared(path), doc, &err) == TL_OK &&
              tl_scene_create(*doc, scene, &err) == TL_OK &&
              rig_and_reload_with(doc, scene, NULL, name, hair, &err);
    if (!ok) fprintf(stderr, "%s: %s\n", style, err.message);
    return ok;
}

/* A rigged character in memory: mh-STYLE.glb rigged, saved and read back (rig_and_reload). */
static bool rig_style(const char* style, tl_gltf** doc, tl_scene** scene) {
    return rig_style_with(style, style, NULL, doc, scene);
}

/* A style rigged and its chains as the player finds them (at most `capacity`); false on any
 * failure (the scene and document then destroyed). */
static bool rig_style_chains(const char* style, tl_gltf** doc, tl_scene** scene,
                             tl_play_chain* chains, uint32_t capacity, uint32_t* count) {
    if (!rig_style(style, doc, scene)) return false;
    tl_error err;
    if (tl_play_chains_find(*scene, chains, capacity, count, &err) == TL_OK) return true;
    fprintf(stderr, "  %s: %s\n", style, err.message);
    tl_scene_destroy(*scene), tl_gltf_destroy(*doc);
    return false;
}

/* The stress report of every chain of a rigged style (at most 64), with the default clip
 * (with_clip) or none; how many. */
static uint32_t style_stress(const char* style, const tl_stress_def* def, bool with_clip,
                             tl_stress_report* reports) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[64];
    uint32_t n;
    if (!rig_style_chains(style, &doc, &scene, chains, 64, &n)) return 0;
    int32_t clip = with_clip ? tl_stress_default_clip(scene) : -1;
    uint32_t done = 0;
    tl_error err;
    for (; done < n && done < 64 && (!with_clip || clip >= 0); ++done)
        if (tl_measure_stress(scene, &chains[done], clip, def, &reports[done], &err) != TL_OK) {
            fprintf(stderr, "  %s chain %u: %s\n", style, done, err.message);
            done = 0;
            break;
        }
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return done;
}

/* The stress's collider_penetration judges each link against its colliders as the solver runs
 * them (grown by the hit radius, or shrunk to where the link's tip rests): a style held still
 * reads no penetration. Before, the measure read the colliders at their base size, and a braid
 * or lock modelled deep in the chest capsule read as deep as it rests (braid01 0.0376 H). */
static void stress_rest_no_penetration(void) {
    const char* styles[] = {"braid01", "long01"};
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_stress_def def = tl_default_stress_def();
        def.shake_amplitude = def.shake_yaw_deg = 0; /* held still at rest */
        def.shake_seconds = 0, def.hold_seconds = 1;
        tl_stress_report r[64];
        uint32_t n = style_stress(styles[i], &def, false, r), over = 0;
        float worst = 0;
        for (uint32_t c = 0; c < n; ++c) {
            worst = fmaxf(worst, r[c].collider_penetration);
            over += r[c].collider_penetration > 0.002f;
        }
        printf("  %-8s %u chains held still: deepest %.5f H, %u over 0.002 H\n", styles[i], n,
               worst, over);
        ENSURE(n > 0 && over == 0);
    }
}

/* Issue #11's collider_penetration on a long style with the clip: every chain at most 0.002 H.
 * Before, the measure held the last step's particles against colliders posed up to a step
 * later (a render frame off the 1/120 s clip grid runs no step: 0.0034 H, 10 of 24 chains
 * over), and the crease sweeps that did not settle left tips inside (0.0005 H). */
static void stress_hair_penetration(void) {
    tl_stress_def def = tl_default_stress_def();
    tl_stress_report r[64];
    uint32_t n = style_stress("long01", &def, true, r), over = 0;
    float worst = 0;
    for (uint32_t c = 0; c < n; ++c) {
        worst = fmaxf(worst, r[c].collider_penetration);
        over += r[c].collider_penetration > 0.002f;
    }
    printf("  long01 %u chains with the clip: deepest %.5f H, %u over 0.002 H\n", n, worst, over);
    ENSURE(n > 0 && over == 0);
}

/* The stress's link-length error on hair chains with the clip (the cut and the teleport put the
 * character 100 m out): each link read relative to the attachment from the pose's locals, the
 * last one from the solver's tips. Before, from world matrices 100 m out, whose rounding
 * (3.8e-6 m) is 1e-4 of a 4 cm hair link: bob02 read 1.25e-4 on 3 of its 7 chains. */
static void stress_hair_link_length(void) {
    tl_stress_def def = tl_default_stress_def();
    tl_stress_report r[64];
    uint32_t n = style_stress("bob02", &def, true, r);
    float worst = 0;
    for (uint32_t c = 0; c < n; ++c)
        worst = fmaxf(worst, r[c].max_length_error);
    printf("  bob02 %u chains: largest link-length error %.3g\n", n, worst);
    ENSURE(n > 0 && worst <= 1e-4f);
}

/* A cut 100 m away answers as the run without it (issue #11: cut_error <= 1e-5 of the chain)
 * for every chain of bob01 and bob02. The player read the attachment and posed the colliders
 * from float world matrices there, new rounding every frame: main had bob01 6.2e-5 and bob02
 * 4.6e-5, every chain over (docs/stress.md "Session 20"). */
static void stress_hair_cut(void) {
    const char* styles[] = {"bob01", "bob02"};
    for (int s = 0; s < 2; ++s) {
        tl_stress_def def = tl_default_stress_def();
        tl_stress_report r[64];
        uint32_t n = style_stress(styles[s], &def, true, r), over = 0;
        float worst = 0;
        for (uint32_t c = 0; c < n; ++c) {
            worst = fmaxf(worst, r[c].cut_error);
            over += !(r[c].cut_error <= 1e-5f);
        }
        printf("  %s %u chains: largest cut_error %.3g, %u over 1e-5\n", styles[s], n, worst, over);
        ENSURE(n > 0 && over == 0);
    }
}

/* Every hair link keeps every body collider, shrunk as far as its rest tip needs however deep
 * that lies (play_chain_colliders): braid01, whose braids lie deep in the chest's collider at
 * rest. Before, a shrink past half the collider's size freed the link of it (growth
 * -INFINITY), and in Jump those links went into the chest (the output 0.0429 H deep). */
static void links_keep_colliders(void) {
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE(rig_style("braid01", &doc, &scene));
    const tl_scene_skin* sk = &scene->skins[0];
    tl_play_chain chains[64];
    uint32_t count, freed = 0, dropped = 0, shrunk = 0;
    tl_error err;
    ENSURE_OK(tl_play_chains_find(scene, chains, 64, &count, &err), err);
    for (uint32_t c = 0; c < count; ++c) {
        tl_body_collider kept[TL_BODY_COLLIDERS_MAX];
        float growth[TL_BODY_COLLIDERS_MAX * TL_CHAIN_MAX_BONES];
        uint32_t n = chains[c].bone_count,
                 m = play_chain_colliders(scene, &chains[c], sk->colliders, sk->collider_count,
                                          kept, growth);
        dropped += sk->collider_count - m;
        for (uint32_t j = 0; j < m * n; ++j)
            freed += growth[j] == -INFINITY, shrunk += growth[j] < 0;
    }
    printf("  braid01: %u chains, %u link-collider pairs shrunk, %u freed, %u colliders left "
           "out\n",
           count, shrunk, freed, dropped);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(count > 0 && shrunk > 0);
    ENSURE_MSG(freed == 0 && dropped == 0, "%u freed, %u left out", freed, dropped);
}

/* The hair's union vertices of skin 0 and, per vertex, whether a hair bone moves it. */
static uint32_t hair_vertices(const tl_scene* scene, uint32_t* out, uint32_t* on_chain) {
    const tl_scene_skin* sk = &scene->skins[0];
    uint32_t n = 0;
    *on_chain = 0;
    for (uint32_t p = 0; p < sk->primitive_count; ++p) {
        const tl_scene_primitive* prim = &sk->primitives[p];
        bool hair = false;
        for (uint32_t v = 0; v < prim->vertex_count && !hair; ++v)
            hair = strstr(sk->joints[tl_scene_skin_dominant_joint(sk, prim->first_vertex + v)].name,
                          "Hair") != NULL;
        for (uint32_t v = 0; hair && v < prim->vertex_count; ++v) {
            uint32_t u = prim->first_vertex + v;
            out[n++] = u;
            bool moved = false;
            for (uint32_t k = 0; k < sk->influence_count; ++k)
                moved |= sk->influence_weights[u * sk->influence_count + k] > 0 &&
                         strstr(sk->joints[sk->influence_joints[u * sk->influence_count + k]].name,
                                "Hair");
            *on_chain += moved;
        }
    }
    return n;
}

/* §6: long01 rigged: 24 parts of kind hair, valid glTF, at least 40% of the hair on chains;
 * settled at rest it keeps its modelled shape (rest sag ≤ 5 mm, the issue's bar); in HeadTurn
 * its free hair moves relative to the head (reported; the article: 13.6 mm). */
static void long01_rigged_plays(void) {
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE(rig_style("long01", &doc, &scene));
    uint32_t hair_parts = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        hair_parts += scene->parts[i].kind == TL_PART_HAIR;
    ENSURE_MSG(hair_parts == 24, "%u hair parts", hair_parts);
    json_t* report = tl_test_validate(tl_test_scratch("long01"));
    ENSURE(report && json_integer_value(json_object_get(report, "errors")) == 0);
    json_decref(report);
    const tl_scene_skin* sk = &scene->skins[0];
    uint32_t* hair = malloc(sizeof(uint32_t) * sk->vertex_count);
    uint32_t on_chain = 0, n = hair_vertices(scene, hair, &on_chain);
    printf("  long01: %u of %u hair vertices on chains\n", on_chain, n);
    ENSURE(n == 3314 && on_chain >= 0.4 * n);

    free(hair);
    tl_play_chain chains[32];
    uint32_t count;
    tl_error err;
    ENSURE_OK(tl_play_chains_find(scene, chains, 32, &count, &err), err);
    ENSURE(count == 24);
    /* the hair chains keep their locks' thickness off the body colliders, the head's too (a
       chain's root lies in it: before, it was left out for every chain, so no chain ran with
       all of them); a collider a rest lock lies in however deep is shrunk for its links, not
       left out (before, a shrink past half its size freed the link: long01 ran 22 of 24
       chains with all, braid01 Jump's locks went into the chest's collider, 0.0429 H) */
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    ENSURE_OK(tl_player_create(scene, chains, count, &pdef, &player, &err), err);
    uint32_t with_all = 0;
    float thinnest = INFINITY;
    for (uint32_t i = 0; i < count; ++i) {
        const tl_collider* world;
        with_all += tl_player_colliders(player, i, &world) == sk->collider_count;
        thinnest = fminf(thinnest, chains[i].hit_radius);
    }
    tl_player_destroy(player);
    printf("  long01: %u of %u hair chains run with all %u body colliders, thinnest lock %.1f mm\n",
           with_all, count, sk->collider_count, 1000 * thinnest);
    ENSURE(sk->collider_count > 0 && with_all == count && thinnest > 0);
    /* the measure's hair block (tl_hair_measure_clip) in HeadTurn, 24 samples */
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(scene, "HeadTurn", &clip, &err), err);
    tl_hair_measure h;
    ENSURE_OK(tl_hair_measure_clip(scene, 0, clip, 24, &h, &err), err);
    printf("  long01 HeadTurn: %u roots, root drift %.2g m (head bone alone %.2g m), free motion "
           "%.1f mm, rest sag %.4f mm, collider penetration %.4f H\n",
           h.roots, h.root_drift_max, h.head_bone_drift_max, 1000 * h.free_motion_max,
           1000 * h.rest_sag_max, h.collider_penetration);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(h.roots > 100 && h.root_drift_max <= 1e-5f);
    ENSURE(h.free_motion_max > 0.005f);
    ENSURE_MSG(h.rest_sag_max <= 0.005f, "rest sag %.2f mm", 1000 * h.rest_sag_max);
}

/* The sheet (tl_play_chain.sheet_rate, docs/hair.md): long01 rigged, in HeadTurn, each chain's
 * nearest neighbour at rest (by the tips' distance, chosen here, not by the player's pairs)
 * keeps its distance from it better with the hair's rate than with none: the mean over the
 * chains of the largest change of that distance, particle by particle, over the clip. */
static float sheet_spread(tl_scene* scene, tl_play_chain* chains, uint32_t count, uint32_t clip) {
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    tl_error err;
    if (tl_player_create(scene, chains, count, &pdef, &player, &err) != TL_OK) return NAN;
    tl_pose* pose = tl_pose_create(scene);
    tl_player_start(player, clip, 0);
    uint32_t near[32];
    float rest[32][TL_CHAIN_MAX_BONES], worst[32] = {0};
    for (uint32_t i = 0; i < count; ++i) {
        const tl_chain* a = tl_player_chain(player, i);
        int n = tl_chain_bone_count(a);
        float best = INFINITY;
        for (uint32_t j = 0; j < count; ++j) {
            const tl_chain* b = tl_player_chain(player, j);
            const float* pa = tl_chain_particle_positions(a) + 3 * (n - 1);
            const float* pb = tl_chain_particle_positions(b) + 3 * (tl_chain_bone_count(b) - 1);
            float d = sqrtf(dist2(pa, pb));
            if (j != i && d < best) best = d, near[i] = j;
        }
        for (int k = 0; k < n && k < tl_chain_bone_count(tl_player_chain(player, near[i])); ++k)
            rest[i][k] =
                sqrtf(dist2(tl_chain_particle_positions(a) + 3 * k,
                            tl_chain_particle_positions(tl_player_chain(player, near[i])) + 3 * k));
    }
    float duration = scene->clips[clip].duration;
    for (int f = 1; f <= 48; ++f) {
        tl_player_advance(player, pose, clip, duration * (float)f / 48);
        for (uint32_t i = 0; i < count; ++i) {
            const tl_chain *a = tl_player_chain(player, i), *b = tl_player_chain(player, near[i]);
            for (int k = 0; k < tl_chain_bone_count(a) && k < tl_chain_bone_count(b); ++k) {
                float d = sqrtf(dist2(tl_chain_particle_positions(a) + 3 * k,
                                      tl_chain_particle_positions(b) + 3 * k));
                worst[i] = fmaxf(worst[i], fabsf(d - rest[i][k]));
            }
        }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    float mean = 0;
    for (uint32_t i = 0; i < count; ++i)
        mean += worst[i] / (float)count;
    return mean;
}

/* A style rigged, its hair chains (2 to 32) and one of its clips; false on any failure. */
static bool style_chains(const char* style, const char* clip_name, tl_gltf** doc, tl_scene** scene,
                         tl_play_chain chains[32], uint32_t* count, uint32_t* clip) {
    tl_error err;
    if (!rig_style_chains(style, doc, scene, chains, 32, count)) return false;
    return *count >= 2 && *count <= 32 &&
           tl_scene_find_clip(*scene, clip_name, clip, &err) == TL_OK;
}

static void sheet_holds_neighbours(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32];
    uint32_t count, clip;
    ENSURE(style_chains("long01", "HeadTurn", &doc, &scene, chains, &count, &clip));
    for (uint32_t i = 0; i < count; ++i)
        ENSURE(chains[i].sheet_rate > 0); /* hair chains get the rate */
    float with = sheet_spread(scene, chains, count, clip);
    for (uint32_t i = 0; i < count; ++i)
        chains[i].sheet_rate = 0;
    float without = sheet_spread(scene, chains, count, clip);
    printf("  long01 HeadTurn: nearest neighbour's distance changes by %.1f mm (mean of the "
           "chains' largest) with the sheet, %.1f mm without\n",
           1000 * with, 1000 * without);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(with < without);
}

/* The sheet's limit (src/play/hair_sheet.c, docs/hair.md): braid01 rigged, in Jump (its locks
 * tear the most), every skin edge from a link of one chain to a link of another ties the two
 * links' tips (found here from the skin, not by the player); over the clip, how much longer each
 * tie gets than at rest, over the mean rest length of the skin edges between the two chains
 * (the seam's edge): its 99th percentile and largest over the ties and frames. */
static void seam_excess(tl_scene* scene, tl_play_chain* chains, uint32_t count, uint32_t clip,
                        float* p99, float* worst) {
    const tl_scene_skin* sk = &scene->skins[0];
    int32_t* owner = malloc(sizeof(int32_t) * 2 * sk->joint_count);
    uint32_t* ties = malloc(sizeof(uint32_t) * 4 * 3 * sk->triangle_count);
    float* seam = calloc(3 * sk->triangle_count, sizeof(float));
    uint32_t n = 0;
    for (uint32_t j = 0; j < 2 * sk->joint_count; ++j)
        owner[j] = -1;
    for (uint32_t i = 0; i < count; ++i)
        for (uint32_t b = 0; b < chains[i].bone_count; ++b)
            owner[chains[i].bone_joints[b]] = (int32_t)i,
            owner[sk->joint_count + chains[i].bone_joints[b]] = (int32_t)b;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t u = sk->triangles[3 * t + e], v = sk->triangles[3 * t + (e + 1) % 3];
            uint32_t ju = tl_scene_skin_dominant_joint(sk, u);
            uint32_t jv = tl_scene_skin_dominant_joint(sk, v);
            if (owner[ju] < 0 || owner[jv] < 0 || owner[ju] == owner[jv]) continue;
            uint32_t tie[4] = {(uint32_t)owner[ju], (uint32_t)owner[sk->joint_count + ju],
                               (uint32_t)owner[jv], (uint32_t)owner[sk->joint_count + jv]};
            memcpy(ties + 4 * n, tie, sizeof tie);
            seam[n++] = sqrtf(
                dist2(sk->rest_positions + 3 * (size_t)u, sk->rest_positions + 3 * (size_t)v));
        }
    /* the seam's edge: the mean over the edges between the same two chains */
    float* mean = calloc(count * count, sizeof(float));
    uint32_t* edges = calloc(count * count, sizeof(uint32_t));
    for (uint32_t k = 0; k < n; ++k)
        mean[ties[4 * k] * count + ties[4 * k + 2]] += seam[k],
            edges[ties[4 * k] * count + ties[4 * k + 2]]++;
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    tl_error err;
    tl_player_create(scene, chains, count, &pdef, &player, &err);
    tl_pose* pose = tl_pose_create(scene);
    tl_player_start(player, clip, 0);
    float* rest = malloc(sizeof(float) * (n + 1));
    float* excess = malloc(sizeof(float) * (48 * (size_t)n + 1));
    for (int f = 0; f <= 48; ++f) {
        if (f > 0)
            tl_player_advance(player, pose, clip, scene->clips[clip].duration * (float)f / 48);
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t* t = ties + 4 * k;
            float d =
                sqrtf(dist2(tl_chain_particle_positions(tl_player_chain(player, t[0])) + 3 * t[1],
                            tl_chain_particle_positions(tl_player_chain(player, t[2])) + 3 * t[3]));
            float e = mean[t[0] * count + t[2]] / (float)edges[t[0] * count + t[2]];
            if (f == 0)
                rest[k] = d;
            else
                excess[(size_t)(f - 1) * n + k] = (d - rest[k]) / e;
        }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    *worst = 0;
    for (size_t k = 0; k < 48 * (size_t)n; ++k)
        *worst = fmaxf(*worst, excess[k]);
    size_t at = 0, samples = 48 * (size_t)n; /* the 99th percentile by counting */
    float lo = -1, hi = *worst;
    for (int it = 0; it < 40 && samples > 0; ++it) {
        float mid = 0.5f * (lo + hi);
        at = 0;
        for (size_t k = 0; k < samples; ++k)
            at += excess[k] <= mid;
        if ((double)at >= 0.99 * (double)samples)
            hi = mid;
        else
            lo = mid;
    }
    *p99 = hi;
    free(owner), free(ties), free(seam), free(mean), free(edges), free(rest), free(excess);
}

static void sheet_limit_holds_seams(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32];
    uint32_t count, clip;
    ENSURE(style_chains("braid01", "Jump", &doc, &scene, chains, &count, &clip));
    float p99, worst, p99_off, worst_off;
    seam_excess(scene, chains, count, clip, &p99, &worst);
    for (uint32_t i = 0; i < count; ++i)
        chains[i].sheet_rate = 0;
    seam_excess(scene, chains, count, clip, &p99_off, &worst_off);
    printf("  braid01 Jump: seam ties longer than at rest by p99 %.2f, max %.2f seam edges "
           "(uncoupled: %.2f, %.2f)\n",
           p99, worst, p99_off, worst_off);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    /* the limit holds each tie within 0.3 seam edges of its rest length (the allowance of
       hair_sheet.c, over each tie's own edges there, the chains' mean here); the ties whose two
       sides would both go deeper into the body are left (the max). Before the limit (the sheet's
       pull alone): p99 9.64, max 33.49 (docs/hair.md, "The sheet's limit") */
    ENSURE_MSG(p99 <= 1.0f, "p99 %.2f max %.2f seam edges", p99, worst);
}

/* Head ties (tl_play_chain.sheet_head_ties, src/play/hair_sheet.c): bob01 rigged, in HeadTurn,
 * played 48 frames with the chains' ties to the hair left on the head, then without. Over the
 * skin edges from a vertex a chain's bone dominates to one its attachment (the head) dominates,
 * the 99th percentile and largest of their length over their rest length, and the deepest hair
 * vertex inside a body collider it was not in at rest, over H. */
static void cap_edges_play(tl_scene* scene, tl_play_chain* chains, uint32_t count, uint32_t clip,
                           float* p99, float* worst, float* deepest) {
    const tl_scene_skin* sk = &scene->skins[0];
    int32_t* owner = malloc(sizeof(int32_t) * sk->joint_count);
    uint32_t* edges = malloc(sizeof(uint32_t) * 2 * 3 * sk->triangle_count);
    uint32_t n = 0;
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        owner[j] = -1;
    for (uint32_t i = 0; i < count; ++i)
        for (uint32_t b = 0; b < chains[i].bone_count; ++b)
            owner[chains[i].bone_joints[b]] = (int32_t)i;
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t u = sk->triangles[3 * t + e], v = sk->triangles[3 * t + (e + 1) % 3];
            int32_t cu = owner[tl_scene_skin_dominant_joint(sk, u)];
            uint32_t jv = tl_scene_skin_dominant_joint(sk, v);
            if (cu >= 0 && owner[jv] < 0 && jv == chains[cu].attach_joint)
                edges[2 * n] = u, edges[2 * n + 1] = v, n++;
        }
    uint8_t* flags = calloc(sk->primitive_count + 1, 1);
    uint8_t* hair = calloc(sk->vertex_count + 1, 1);
    tl_hair_find_primitives(scene, 0, flags);
    for (uint32_t p = 0; p < sk->primitive_count; ++p)
        for (uint32_t v = 0; flags[p] && v < sk->primitives[p].vertex_count; ++v)
            hair[sk->primitives[p].first_vertex + v] = 1;
    tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    uint32_t nc = 0;
    tl_error err;
    ENSURE_OK(tl_body_colliders_fit(scene, 0, fitted, TL_BODY_COLLIDERS_MAX, &nc, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose_set_rest(pose, scene, 0);
    tl_body_colliders_pose(scene, 0, fitted, nc, pose, world);
    uint8_t* inside = calloc((size_t)sk->vertex_count * nc + 1, 1);
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        for (uint32_t c = 0; hair[v] && c < nc; ++c)
            inside[(size_t)v * nc + c] =
                tl_collider_depth(&world[c], sk->rest_positions + 3 * (size_t)v) > 0;
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    ENSURE_OK(tl_player_create(scene, chains, count, &pdef, &player, &err), err);
    float* joints = malloc(16 * sizeof(float) * sk->joint_count);
    float* skinned = malloc(3 * sizeof(float) * sk->vertex_count);
    float* ratio = malloc(sizeof(float) * (48 * (size_t)n + 1));
    *deepest = 0;
    tl_player_start(player, clip, 0);
    for (int f = 1; f <= 48; ++f) {
        tl_player_advance(player, pose, clip, scene->clips[clip].duration * (float)f / 48);
        tl_pose_joint_matrices(pose, scene, 0, joints);
        tl_scene_skin_positions(scene, 0, joints, skinned);
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t* e = edges + 2 * k;
            float rest = sqrtf(dist2(sk->rest_positions + 3 * (size_t)e[0],
                                     sk->rest_positions + 3 * (size_t)e[1]));
            float now = sqrtf(dist2(skinned + 3 * (size_t)e[0], skinned + 3 * (size_t)e[1]));
            ratio[(size_t)(f - 1) * n + k] = rest > 0 ? now / rest : 1;
        }
        tl_body_colliders_pose(scene, 0, fitted, nc, pose, world);
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            for (uint32_t c = 0; hair[v] && c < nc; ++c)
                if (!inside[(size_t)v * nc + c])
                    *deepest =
                        fmaxf(*deepest, tl_collider_depth(&world[c], skinned + 3 * (size_t)v));
    }
    *deepest /= sk->height;
    size_t samples = 48 * (size_t)n;
    *worst = 0;
    for (size_t k = 0; k < samples; ++k)
        *worst = fmaxf(*worst, ratio[k]);
    float lo = 0, hi = *worst; /* the 99th percentile by counting */
    for (int it = 0; it < 40 && samples > 0; ++it) {
        float mid = 0.5f * (lo + hi);
        size_t at = 0;
        for (size_t k = 0; k < samples; ++k)
            at += ratio[k] <= mid;
        if ((double)at >= 0.99 * (double)samples)
            hi = mid;
        else
            lo = mid;
    }
    *p99 = hi;
    ENSURE(n > 0);
    tl_player_destroy(player);
    tl_pose_destroy(pose);
    free(owner), free(edges), free(flags), free(hair), free(inside), free(joints), free(skinned),
        free(ratio);
}

static void head_ties_hold_cap_edges(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32];
    uint32_t count, clip;
    ENSURE(style_chains("bob01", "HeadTurn", &doc, &scene, chains, &count, &clip));
    float p99[2], worst[2], deepest[2];
    for (int on = 0; on < 2; ++on) {
        for (uint32_t i = 0; i < count; ++i)
            chains[i].sheet_head_ties = on == 1;
        cap_edges_play(scene, chains, count, clip, &p99[on], &worst[on], &deepest[on]);
    }
    printf("  bob01 HeadTurn: edges from chain hair to hair on the head p99 %.3f max %.3f, deepest "
           "hair %.4f H with head ties; %.3f / %.3f, %.4f H without\n",
           p99[1], worst[1], deepest[1], p99[0], worst[0], deepest[0]);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    /* the ties hold the locks' points beside the head's hair near it, and refuse moves that take
       a particle deeper into the body: the hair beside the cap tears less, and sinks no deeper */
    ENSURE_MSG(p99[1] < p99[0] && worst[1] < worst[0], "p99 %.3f / %.3f, max %.3f / %.3f", p99[1],
               p99[0], worst[1], worst[0]);
    ENSURE_MSG(deepest[1] <= deepest[0], "deepest %.4f / %.4f H", deepest[1], deepest[0]);
}

/* The chains' joints over the clip's first 48 frames at 30 fps, played from rest: 3 floats per
 * chain bone per frame into out (48 x 3 x the bones). */
static void chain_joints_play(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                              uint32_t clip, float* out) {
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    tl_error err;
    ENSURE_OK(tl_player_create(scene, chains, count, &pdef, &player, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    tl_player_start(player, clip, 0);
    size_t k = 0;
    for (int f = 1; f <= 48; ++f) {
        tl_player_advance(player, pose, clip, (float)f / 30);
        for (uint32_t c = 0; c < count; ++c)
            for (uint32_t b = 0; b < chains[c].bone_count; ++b) {
                uint32_t node = scene->skins[0].joints[chains[c].bone_joints[b]].node;
                memcpy(out + 3 * k++, pose->world + 16 * (size_t)node + 12, 3 * sizeof(float));
            }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
}

/* The hair def given to tailor rig (tl_rig_def.hair) is the one stored with every hair chain:
 * bob01 rigged with a damping ratio and a gravity that are not the hair default's reads them back
 * from the file on each hair part. Before, the writer stored the hair default whatever the def. */
static void rig_hair_def_stored(void) {
    tl_hair_chain_def hair = tl_default_hair_chain_def();
    hair.chain.damping_ratio = 0.8f * hair.chain.damping_ratio;
    hair.chain.gravity = 0.5f * hair.chain.gravity + 0.25f;
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE(rig_style_with("bob01", "bob01-hairdef.glb", &hair, &doc, &scene));
    uint32_t parts = 0;
    for (uint32_t p = 0; p < scene->part_count; ++p) {
        const tl_scene_part* part = &scene->parts[p];
        if (part->kind != TL_PART_HAIR) continue;
        ++parts;
        ENSURE(part->chain.damping_ratio == hair.chain.damping_ratio);
        ENSURE(part->chain.gravity == hair.chain.gravity);
    }
    printf("  bob01: %u hair parts store damping %.3f, gravity %.3f\n", parts,
           (double)hair.chain.damping_ratio, (double)hair.chain.gravity);
    ENSURE(parts > 0);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* What tailor rig stores of the C player's hair for the web runtime (docs/web.md "Session 24"):
 * each hair part's lock thickness (extras.tailor.hit_radius) the one tl_play_chains_find finds on
 * the rigged file, and the skin's sheet ties (skins[s].extras.tailor.sheet) those
 * play_sheet_ties_find finds, in its order, every number the same float; and the reader refuses
 * a bad one with its JSON path. Failed before rig stored them (no key). */
static void rig_hair_play_stored(void) {
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE(rig_style_with("bob01", "bob01-hairplay.glb", NULL, &doc, &scene));
    tl_play_chain chains[64];
    uint32_t n = 0, node[64], hair = 0, c = 0;
    tl_error err;
    ENSURE(tl_play_chains_find(scene, chains, 64, &n, &err) == TL_OK && n <= 64);
    /* (the player takes the stored thickness since session 26: the one the skin gives is
       found here as it would without it) */
    uint32_t nv = scene->skins[0].vertex_count;
    int32_t* lock = malloc(sizeof *lock * nv);
    uint32_t* joint = malloc(sizeof *joint * nv);
    float* near = malloc(sizeof *near * nv);
    ENSURE(lock && joint && near && play_skin_locks(scene, 0, chains, n, lock, joint, near));
    for (uint32_t p = 0; p < scene->part_count; ++p) {
        const tl_scene_part* part = &scene->parts[p];
        if (part->kind != TL_PART_TAIL && part->kind != TL_PART_HAIR) continue;
        node[c] = part->node;
        if (part->kind == TL_PART_HAIR) {
            ++hair;
            ENSURE(chains[c].skin == 0);
            float found = play_chain_skin_thickness(scene, &chains[c], c, lock, near);
            ENSURE(part->hit_radius == found && found > 0);
            ENSURE(chains[c].hit_radius == part->hit_radius);
        }
        ++c;
    }
    free(lock), free(joint), free(near);
    play_sheet_tie* ties = NULL;
    uint32_t count = 0;
    ENSURE(play_sheet_ties_find(scene, chains, n, NULL, NULL, &ties, &count));
    json_t* skin0 = json_array_get(json_object_get(tl_gltf_json(doc), "skins"), 0);
    json_t* list =
        json_object_get(json_object_get(json_object_get(skin0, "extras"), "tailor"), "sheet");
    ENSURE(json_is_array(list) && json_array_size(list) == count && count > 0);
    for (uint32_t k = 0; k < count; ++k) {
        json_t* o = json_array_get(list, k);
        const play_sheet_tie* t = &ties[k];
        json_t *parts = json_object_get(o, "parts"), *links = json_object_get(o, "links");
        json_t* at = json_object_get(o, "at");
        ENSURE(json_integer_value(json_array_get(parts, 0)) == node[t->a] &&
               json_integer_value(json_array_get(parts, 1)) == node[t->b]);
        ENSURE(json_integer_value(json_array_get(links, 0)) == t->ia &&
               json_integer_value(json_array_get(links, 1)) == t->ib);
        ENSURE((float)json_number_value(json_array_get(at, 0)) == t->ta &&
               (float)json_number_value(json_array_get(at, 1)) == t->tb);
        ENSURE((float)json_number_value(json_object_get(o, "seam")) == t->seam);
    }
    printf("  bob01: %u hair parts store the player's thickness, the skin its %u ties\n", hair,
           count);
    free(ties);
    /* a bad value refused with its path */
    json_t* first = json_object_get(
        json_object_get(json_array_get(json_object_get(tl_gltf_json(doc), "nodes"), node[0]),
                        "extras"),
        "tailor");
    json_object_set_new(first, "hit_radius", json_real(-1));
    tl_scene* bad = NULL;
    char want[128];
    snprintf(want, sizeof want, "/nodes/%u/extras/tailor/hit_radius: must be >= 0", node[0]);
    ENSURE(tl_scene_create(doc, &bad, &err) == TL_ERROR_INVALID && strstr(err.message, want));
    json_object_set_new(first, "hit_radius", json_real(chains[0].hit_radius));
    json_array_set_new(json_object_get(json_array_get(list, 0), "parts"), 0,
                       json_integer(chains[0].attach_joint == 0 ? 1 : 0));
    ENSURE(tl_scene_create(doc, &bad, &err) == TL_ERROR_INVALID &&
           strstr(err.message, "/skins/0/extras/tailor/sheet/0/parts: node"));
    printf("  refused: %s\n", err.message);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* The seam blend does not choose the chains (docs/hair.md "The seam blend as an option"): each
 * shared style rigged as is and with seam_steps 4 through the rig's hair def (the blend guarded
 * by the body colliders the rig fits), the same chains at rest (every chain's bones within
 * 1e-5 m of one of the other rig's, both ways). Failed before the adapter counted its
 * min_vertices before the blend (bob02 7 chains, 5 blended). Measured beside it: the player's
 * hit radii and the chains' joints played 48 frames in Walk, HeadTurn and Jump, blended rig
 * against unblended (the blend moves the lock hair the player reads, hair.md). */
static void locks_seam_motion(void) {
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const char* clips[] = {"Walk", "HeadTurn", "Jump"};
    tl_hair_chain_def blend = tl_default_hair_chain_def();
    blend.seam_steps = 4;
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_gltf *d0, *d4;
        tl_scene *s0, *s4;
        tl_play_chain c0[32], c4[32], same[32];
        uint32_t n0, n4, clip, matched = 0, bones = 0;
        tl_error err;
        char name[64];
        snprintf(name, sizeof name, "%s-seam4.glb", styles[i]);
        ENSURE(rig_style(styles[i], &d0, &s0));
        ENSURE(rig_style_with(styles[i], name, &blend, &d4, &s4));
        ENSURE_OK(tl_play_chains_find(s0, c0, 32, &n0, &err), err);
        ENSURE_OK(tl_play_chains_find(s4, c4, 32, &n4, &err), err);
        const tl_scene_skin *k0 = &s0->skins[0], *k4 = &s4->skins[0];
        float rel_max = 0, rel_sum = 0;
        for (uint32_t c = 0; c < n0; ++c) /* c4's chain with c0[c]'s bones at rest */
            for (uint32_t d = 0; d < n4; ++d) {
                float far = c4[d].bone_count == c0[c].bone_count ? 0 : INFINITY;
                for (uint32_t q = 0; q < c0[c].bone_count && far < 1e-5f; ++q)
                    far =
                        fmaxf(far, sqrtf(dist2(k0->joints[c0[c].bone_joints[q]].rest_world + 12,
                                               k4->joints[c4[d].bone_joints[q]].rest_world + 12)));
                if (!(far < 1e-5f)) continue;
                float rel = c0[c].hit_radius > 0
                                ? fabsf(c4[d].hit_radius - c0[c].hit_radius) / c0[c].hit_radius
                                : 0;
                rel_max = fmaxf(rel_max, rel), rel_sum += rel;
                c0[matched] = c0[c], same[matched++] = c4[d], bones += c0[c].bone_count;
                break;
            }
        printf("  %s: %u / %u chains, %u the same at rest; their hit radii move by %.1f%% at most, "
               "%.1f%% on average\n",
               styles[i], n0, n4, matched, 100 * rel_max,
               100 * rel_sum / (float)(matched + !matched));
        ENSURE_MSG(n0 > 0 && matched == n0 && n0 == n4, "%s: %u chains, %u blended, %u the same",
                   styles[i], n0, n4, matched);
        float* a = malloc(48 * 3 * sizeof(float) * bones + 1);
        float* b = malloc(48 * 3 * sizeof(float) * bones + 1);
        for (size_t c = 0; c < COUNT(clips); ++c) {
            ENSURE_OK(tl_scene_find_clip(s0, clips[c], &clip, &err), err);
            chain_joints_play(s0, c0, matched, clip, a);
            ENSURE_OK(tl_scene_find_clip(s4, clips[c], &clip, &err), err);
            chain_joints_play(s4, same, matched, clip, b);
            double apart = 0, sum = 0;
            for (size_t k = 0; k < 48 * (size_t)bones; ++k) {
                float d = sqrtf(dist2(a + 3 * k, b + 3 * k));
                apart = fmax(apart, d), sum += d;
            }
            printf("    %s %s: the chains' joints apart max %.4f H, mean %.5f H\n", styles[i],
                   clips[c], apart / k0->height, sum / (48.0 * bones) / k0->height);
        }
        free(a), free(b);
        tl_scene_destroy(s0), tl_scene_destroy(s4);
        tl_gltf_destroy(d0), tl_gltf_destroy(d4);
    }
}

/* The chain of joint j among chains (by bone), or -1. */
static int32_t joint_chain(const tl_play_chain* chains, uint32_t count, uint32_t j) {
    for (uint32_t c = 0; c < count; ++c)
        for (uint32_t b = 0; b < chains[c].bone_count; ++b)
            if (chains[c].bone_joints[b] == j) return (int32_t)c;
    return -1;
}

/* The player's inputs from the locks, not the skin's dominant joints (docs/hair.md "The
 * player's inputs from the locks"): bob01 rigged, every lock vertex beside another lock (all
 * its weight on its own lock's bones) given 40% to the other lock's joint across the edge, as
 * a seam blend does (its four largest kept). Each vertex keeps its lock, so the player's hit
 * radii, sheet ties and floor, and with them the chains' motion in HeadTurn, stay bit for bit.
 * Failed before: read from each vertex's dominant joint, a vertex split between two bones of
 * its lock went to the other lock's. */
static void player_inputs_from_locks(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32], blended[32];
    uint32_t count, count2, clip, bones = 0;
    ENSURE(style_chains("bob01", "HeadTurn", &doc, &scene, chains, &count, &clip));
    for (uint32_t c = 0; c < count; ++c)
        bones += chains[c].bone_count;
    float* before = malloc(48 * 3 * sizeof(float) * bones);
    float* after = malloc(48 * 3 * sizeof(float) * bones);
    chain_joints_play(scene, chains, count, clip, before);
    const tl_scene_skin* sk = &scene->skins[0];
    const uint32_t IC = sk->influence_count;
    float* w = (float*)sk->influence_weights; /* (the test's own copy of the file) */
    uint32_t* jt = (uint32_t*)sk->influence_joints;
    int32_t* lock = malloc(sizeof(int32_t) * sk->vertex_count);
    uint32_t* other = malloc(sizeof(uint32_t) * sk->vertex_count);
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        lock[v] = joint_chain(chains, count, tl_scene_skin_dominant_joint(sk, v));
        for (uint32_t k = 0; k < IC && lock[v] >= 0; ++k)
            if (w[v * IC + k] > 0 && joint_chain(chains, count, jt[v * IC + k]) != lock[v])
                lock[v] = -1; /* not all on one lock */
        other[v] = UINT32_MAX;
    }
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 6; ++e) { /* each edge both ways */
            uint32_t u = sk->triangles[3 * t + e % 3], v = sk->triangles[3 * t + (e % 3 + 1) % 3];
            if (e >= 3) {
                uint32_t x = u;
                u = v, v = x;
            }
            if (lock[u] >= 0 && lock[v] >= 0 && lock[u] != lock[v] && other[u] == UINT32_MAX)
                other[u] = tl_scene_skin_dominant_joint(sk, v);
        }
    uint32_t moved = 0, flipped = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (other[v] == UINT32_MAX) continue;
        float* wv = w + (size_t)v * IC;
        uint32_t low = 0;
        for (uint32_t k = 1; k < IC; ++k)
            low = wv[k] < wv[low] ? k : low;
        float kept = 0;
        for (uint32_t k = 0; k < IC; ++k)
            kept += k == low ? 0 : wv[k];
        for (uint32_t k = 0; k < IC; ++k)
            wv[k] = k == low ? 0.4f : 0.6f * wv[k] / kept;
        jt[(size_t)v * IC + low] = other[v];
        ++moved;
        flipped += tl_scene_skin_dominant_joint(sk, v) == other[v];
    }
    tl_error err;
    ENSURE_OK(tl_play_chains_find(scene, blended, 32, &count2, &err), err);
    ENSURE(count2 == count);
    float radius = 0;
    for (uint32_t c = 0; c < count; ++c)
        radius = fmaxf(radius, fabsf(blended[c].hit_radius - chains[c].hit_radius));
    chain_joints_play(scene, blended, count, clip, after);
    float apart = 0;
    for (size_t k = 0; k < 48 * 3 * (size_t)bones; ++k)
        apart = fmaxf(apart, fabsf(after[k] - before[k]));
    printf("  bob01 HeadTurn: %u vertices beside another lock blended 40%% (%u of them dominated "
           "by its joint): hit radii move by %.3g m at most, the chains' joints by %.3g m\n",
           moved, flipped, radius, apart);
    free(before), free(after), free(lock), free(other);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(moved > 0 && flipped > 0); /* (the blend moves dominant joints) */
    ENSURE_MSG(radius == 0 && apart == 0, "hit radii %g m, joints %g m", radius, apart);
}

/* The hair bound to no chain bone (the cap, and hair no chain took) against
 * the posed body skin (tl_body_skin_mask's), in `samples` poses of the clip's skeleton: each such
 * vertex outside the skin at rest and within 0.03 H of it, its signed distance to the nearest
 * body triangle (by that face's normal) among those within 0.03 H at rest. */
typedef struct skin_pen {
    float deepest;     /* the deepest into the skin, file units (0: none) */
    uint32_t over;     /* vertex-samples more than 1 mm (human scale) inside */
    uint32_t vertices; /* the vertices measured */
    uint32_t worst;    /* the deepest's union vertex */
} skin_pen;

/* The body skin's vertex normals at `pos` (area-weighted face normals, not normalised). */
static void skin_normals(const tl_scene_skin* sk, const uint8_t* on_body, const float* pos,
                         float* normals) {
    memset(normals, 0, 3 * sizeof(float) * sk->vertex_count);
    for (uint32_t t = 0; t < sk->triangle_count; ++t) {
        const uint32_t* i = sk->triangles + 3 * (size_t)t;
        if (!on_body[i[0]] || !on_body[i[1]] || !on_body[i[2]]) continue;
        const float *a = pos + 3 * (size_t)i[0], *b = pos + 3 * (size_t)i[1],
                    *c = pos + 3 * (size_t)i[2];
        float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                      ab[0] * ac[1] - ab[1] * ac[0]};
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j)
                normals[3 * (size_t)i[k] + j] += n[j];
    }
}

/* The signed distance of p to a triangle: negative when p lies behind the skin's normal
 * interpolated at the nearest point (smooth, so a point off an edge or a corner is not taken
 * inside by the one face it happens to be nearest). */
static float skin_signed(const float* pos, const float* normals, const uint32_t* tri,
                         const float* p) {
    const float *a = pos + 3 * (size_t)tri[0], *b = pos + 3 * (size_t)tri[1],
                *c = pos + 3 * (size_t)tri[2];
    float bary[3], side = 0;
    float d = sqrtf(tl_mesh_triangle_nearest(p, a, b, c, bary));
    for (int k = 0; k < 3; ++k) {
        float q = bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k];
        float n = bary[0] * normals[3 * (size_t)tri[0] + k] +
                  bary[1] * normals[3 * (size_t)tri[1] + k] +
                  bary[2] * normals[3 * (size_t)tri[2] + k];
        side += (p[k] - q) * n;
    }
    return side < 0 ? -d : d;
}

/* The nearest of a vertex's listed triangles at `pos`: its signed distance. */
static float skin_nearest(const tl_scene_skin* sk, const float* pos, const float* normals,
                          const uint32_t* list, uint32_t from, uint32_t to, const float* p) {
    float best = INFINITY, sd = INFINITY;
    for (uint32_t i = from; i < to; ++i) {
        float d = skin_signed(pos, normals, sk->triangles + 3 * (size_t)list[i], p);
        if (fabsf(d) < best) best = fabsf(d), sd = d;
    }
    return sd;
}

static skin_pen hair_skin_penetration(const tl_scene* scene, uint32_t clip, uint32_t samples) {
    const tl_scene_skin* sk = &scene->skins[0];
    skin_pen out = {-1, 0, 0, UINT32_MAX}; /* -1: failed (asserted by the caller) */
    float reach = 0.03f * sk->height, mm = sk->height / TL_HAIR_HUMAN_MM;
    uint8_t* on_body = malloc(sk->vertex_count);
    uint8_t* chain_bone = calloc(sk->joint_count, 1); /* the hair chains' bones */
    uint32_t *off = calloc(sk->vertex_count + 1, sizeof(uint32_t)), *list = NULL;
    float* skinned = malloc(3 * sizeof(float) * sk->vertex_count);
    float* normals = malloc(3 * sizeof(float) * sk->vertex_count);
    float* joints = malloc(16 * sizeof(float) * sk->joint_count);
    tl_pose* pose = tl_pose_create(scene);
    size_t n = 0, cap = 0;
    if (!on_body || !chain_bone || !off || !skinned || !normals || !joints || !pose ||
        sk->body.head == TL_NONE || tl_body_skin_mask(scene, 0, on_body, NULL) != TL_OK)
        goto done;
    skin_normals(sk, on_body, sk->rest_positions, normals);
    out.deepest = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        for (uint32_t b = 0; scene->parts[i].kind == TL_PART_HAIR && b < scene->parts[i].bone_count;
             ++b)
            chain_bone[scene->parts[i].bone_joints[b]] = 1;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        off[v] = (uint32_t)n;
        bool on_chain = on_body[v];
        for (uint32_t k = 0; k < sk->influence_count; ++k) {
            size_t at = (size_t)v * sk->influence_count + k;
            on_chain |= sk->influence_weights[at] > 0 && chain_bone[sk->influence_joints[at]];
        }
        if (on_chain) continue;
        const float* p = sk->rest_positions + 3 * (size_t)v;
        size_t first = n;
        for (uint32_t t = 0; t < sk->triangle_count; ++t) {
            const uint32_t* i = sk->triangles + 3 * (size_t)t;
            if (!on_body[i[0]] || !on_body[i[1]] || !on_body[i[2]]) continue;
            bool near = true; /* the box test before the exact one */
            for (int k = 0; k < 3 && near; ++k) {
                float lo =
                    fminf(fminf(sk->rest_positions[3 * i[0] + k], sk->rest_positions[3 * i[1] + k]),
                          sk->rest_positions[3 * i[2] + k]);
                float hi =
                    fmaxf(fmaxf(sk->rest_positions[3 * i[0] + k], sk->rest_positions[3 * i[1] + k]),
                          sk->rest_positions[3 * i[2] + k]);
                near = p[k] >= lo - reach && p[k] <= hi + reach;
            }
            if (!near || fabsf(skin_signed(sk->rest_positions, normals, i, p)) > reach) continue;
            if (n == cap) {
                uint32_t* grown = realloc(list, (cap = cap ? 2 * cap : 4096) * sizeof *list);
                if (!grown) {
                    out.deepest = -1;
                    goto done;
                }
                list = grown;
            }
            list[n++] = t;
        }
        /* inside the skin at rest: not new penetration */
        if (n > first && skin_nearest(sk, sk->rest_positions, normals, list, (uint32_t)first,
                                      (uint32_t)n, p) < 0)
            n = first;
        out.vertices += n > first;
    }
    off[sk->vertex_count] = (uint32_t)n;
    for (uint32_t s = 0; s < samples; ++s) {
        float t = samples > 1 ? scene->clips[clip].duration * (float)s / (float)(samples - 1) : 0;
        tl_pose_sample(pose, scene, clip, t);
        tl_pose_joint_matrices(pose, scene, 0, joints);
        tl_scene_skin_positions(scene, 0, joints, skinned);
        skin_normals(sk, on_body, skinned, normals);
        for (uint32_t v = 0; v < sk->vertex_count; ++v) {
            if (off[v] == off[v + 1]) continue;
            float d = -skin_nearest(sk, skinned, normals, list, off[v], off[v + 1],
                                    skinned + 3 * (size_t)v);
            if (d > out.deepest) out.deepest = d, out.worst = v;
            out.over += d > mm;
        }
    }
done:
    tl_pose_destroy(pose);
    free(on_body), free(chain_bone), free(off), free(list), free(skinned), free(normals),
        free(joints);
    return out;
}

/* §6 on every style with chains, in Walk, HeadTurn and Jump (24 samples): settled 3 s in the
 * bind pose the hair keeps its modelled shape (rest sag <= 5 mm; failed before the hair chains'
 * carry was turned off for every lock: a carry of 0° from straight down still lifted locks
 * modelled hanging forward, bob01 30 mm, bob02 38 mm, braid01 26 mm), roots stay on their
 * triangles (<= 1e-5 m). With TL_HAIR_STRICT also no hair vertex deeper than 0.002 H in a body
 * collider it was not in at rest (ctest known_failing_hair_colliders: today 0.0034-0.0545 H,
 * docs/hair.md), and the whole hair mesh's stretch (every edge with both ends hair, the seams
 * between chains included) within the rest of the skin's p99 and max, torn <= 0.1%. */
static void styles_play(void) {
    bool strict = getenv("TL_HAIR_STRICT") != NULL;
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const char* clips[] = {"Walk", "HeadTurn", "Jump"};
    styles_fit = getenv("TL_HAIR_FIT");
    for (size_t i = 0; i < sizeof styles / sizeof *styles; ++i) {
        tl_gltf* doc;
        tl_scene* scene;
        ENSURE(rig_style(styles[i], &doc, &scene));
        tl_hair_measure h[3];
        float skin[3];
        for (int c = 0; c < 3; ++c) {
            uint32_t clip;
            tl_error err;
            ENSURE_OK(tl_scene_find_clip(scene, clips[c], &clip, &err), err);
            ENSURE_OK(tl_hair_measure_clip(scene, 0, clip, 24, &h[c], &err), err);
            skin_pen sp = hair_skin_penetration(scene, clip, 24);
            ENSURE(sp.deepest >= 0);
            printf("  %s %s: skin penetration %.4f H (%.1f mm, vertex %u), %u vertex-samples over "
                   "1 mm of %u vertices\n",
                   styles[i], clips[c], sp.deepest / scene->skins[0].height, 1000 * sp.deepest,
                   sp.worst, sp.over, sp.vertices);
            skin[c] = sp.deepest / scene->skins[0].height;
            printf("  %s %s: rest sag %.4f mm, root drift %.2g m, collider penetration %.4f H, "
                   "free motion %.1f mm, all hair p99 %.3f max %.3f torn %.3f%% (body %.3f / "
                   "%.3f)\n",
                   styles[i], clips[c], 1000 * h[c].rest_sag_max, h[c].root_drift_max,
                   h[c].collider_penetration, 1000 * h[c].free_motion_max, h[c].stretch.p99,
                   h[c].stretch.max, h[c].stretch.torn_pct, h[c].stretch_body.p99,
                   h[c].stretch_body.max);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        for (int c = 0; c < 3; ++c) {
            ENSURE_MSG(h[c].rest_sag_max <= 0.005f, "%s: rest sag %.2f mm", styles[i],
                       1000 * h[c].rest_sag_max);
            ENSURE_MSG(h[c].roots > 0 && h[c].root_drift_max <= 1e-5f, "%s %s: root drift %g m",
                       styles[i], clips[c], h[c].root_drift_max);
            if (!strict) continue;
            ENSURE_MSG(h[c].collider_penetration <= 0.002f, "%s %s: penetration %.4f H", styles[i],
                       clips[c], h[c].collider_penetration);
            ENSURE_MSG(skin[c] <= 0.002f, "%s %s: skin penetration %.4f H", styles[i], clips[c],
                       skin[c]);
            const tl_stretch_stats *a = &h[c].stretch, *b = &h[c].stretch_body;
            ENSURE_MSG(a->count > 0 && a->p99 <= b->p99 && a->max <= b->max && a->torn_pct <= 0.1f,
                       "%s %s: all hair p99 %.3f max %.3f torn %.3f%% (body %.3f / %.3f)",
                       styles[i], clips[c], a->p99, a->max, a->torn_pct, b->p99, b->max);
        }
    }
    styles_fit = NULL;
}

/* Issues #11/#12 (docs/hair.md "Session 16 (hairrest16)"): does the hair come to rest on a still
 * body? A rigged style played in the bind pose for REST_SECONDS at 60 fps; per second, the
 * largest joint rotation change in one frame (degrees) and the largest tip speed (H/s) over every
 * hair chain, the chain holding the speed in the last second, and the last frame any joint's
 * rotation changed at all. Ablations (what keeps the motion alive): the sheet's ties off, the
 * body colliders off, the bend limits opened to 179°. */
enum { REST_SECONDS = 10, REST_FPS = 60 };

typedef struct rest_trace {
    float deg[REST_SECONDS], speed[REST_SECONDS];
    int last_changed;     /* the last frame any joint rotation changed, -1 none */
    uint32_t worst_chain; /* the fastest tip's chain in the last second */
    uint32_t worst_contacts;
    uint32_t chains;
    float drift; /* the largest tip displacement from 2 s to the end, H (creep, not tremor) */
} rest_trace;

/* The angle between two rotations (x, y, z, w), degrees: from the vector part of a^-1 b, which
 * keeps its precision at small angles where acos of the dot product rounds to 0.04° steps. */
static float quat_turn_deg(const float* a, const float* b) {
    float v[3] = {a[3] * b[0] - b[3] * a[0] - (a[1] * b[2] - a[2] * b[1]),
                  a[3] * b[1] - b[3] * a[1] - (a[2] * b[0] - a[0] * b[2]),
                  a[3] * b[2] - b[3] * a[2] - (a[0] * b[1] - a[1] * b[0])};
    float w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    return 2 * atan2f(sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), fabsf(w)) * 57.29578f;
}

typedef enum rest_variant {
    REST_DEFAULT,
    REST_NO_SHEET,
    REST_NO_COLLIDERS,
    REST_NO_LIMITS
} rest_variant;

static bool rest_trace_run(const tl_scene* scene, rest_variant variant, rest_trace* out) {
    tl_play_chain chains[64];
    uint32_t n;
    tl_error err;
    memset(out, 0, sizeof *out);
    out->last_changed = -1;
    if (tl_play_chains_find(scene, chains, 64, &n, &err) != TL_OK || n == 0 || n > 64) return false;
    for (uint32_t i = 0; i < n; ++i) {
        if (variant == REST_NO_SHEET) chains[i].sheet_rate = 0;
        if (variant == REST_NO_LIMITS) {
            chains[i].settings.settings.bend_limit_deg = 179;
            memset(chains[i].joint_radii, 0, sizeof chains[i].joint_radii);
        }
    }
    tl_player_def def = tl_default_player_def();
    def.colliders = variant != REST_NO_COLLIDERS;
    tl_player* player = NULL;
    tl_pose* pose = tl_pose_create(scene);
    float* prev = calloc(64 * TL_CHAIN_MAX_BONES * 10, sizeof(float)); /* rotation, tip, at 2 s */
    bool ok = pose && prev && tl_player_create(scene, chains, n, &def, &player, &err) == TL_OK;
    const float H = scene->skins[0].height, dt = 1.0f / REST_FPS;
    out->chains = n;
    float worst = 0;
    tl_pose_set_rest(pose, scene, 0);
    for (int f = 0; ok && f <= REST_SECONDS * REST_FPS; ++f) {
        tl_pose_set_rest(pose, scene, 0);
        tl_player_step_pose(player, pose, f ? dt : 0);
        int second = f ? (f - 1) / REST_FPS : 0;
        for (uint32_t c = 0; c < n; ++c) {
            const tl_chain* ch = tl_player_chain(player, c);
            int bones = tl_chain_bone_count(ch);
            const float* q = tl_chain_local_rotations(ch);
            const float* tip = tl_chain_tip_positions(ch);
            float* pq = prev + (size_t)c * TL_CHAIN_MAX_BONES * 10;
            float *pt = pq + TL_CHAIN_MAX_BONES * 4, *p2 = pt + TL_CHAIN_MAX_BONES * 3;
            if (f == 2 * REST_FPS) memcpy(p2, tip, 3 * sizeof(float) * (size_t)bones);
            for (int b = 0; f == REST_SECONDS * REST_FPS && b < bones; ++b)
                out->drift = fmaxf(out->drift, sqrtf(tl__dist2(tip + 3 * b, p2 + 3 * b)) / H);
            for (int b = 0; f > 0 && b < bones; ++b) {
                if (memcmp(q + 4 * b, pq + 4 * b, 4 * sizeof(float)) != 0) out->last_changed = f;
                float deg = quat_turn_deg(pq + 4 * b, q + 4 * b);
                float v = sqrtf(tl__dist2(tip + 3 * b, pt + 3 * b)) / dt / H;
                out->deg[second] = fmaxf(out->deg[second], deg);
                out->speed[second] = fmaxf(out->speed[second], v);
                if (second == REST_SECONDS - 1 && v > worst) {
                    worst = v, out->worst_chain = c;
                    out->worst_contacts = tl_chain_get_stats(ch).contacts;
                }
            }
            memcpy(pq, q, 4 * sizeof(float) * (size_t)bones);
            memcpy(pt, tip, 3 * sizeof(float) * (size_t)bones);
        }
    }
    tl_player_destroy(player);
    tl_pose_destroy(pose);
    free(prev);
    return ok;
}

/* Hair held still in the bind pose comes to rest (issue #12 "settled in the bind pose", measure.md
 * "Coming to rest"): every hair tip slower than 1 cm/s at human scale (0.01 / 1.8 H/s) from 2 s
 * on, to 10 s (session 16: at most 5.2e-5 H/s, long01). With `trace` (styles_rest_trace) also
 * the ablations of docs/hair.md "Session 16 (hairrest16)". */
static void styles_rest_run(bool trace) {
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const char* variants[] = {"default", "no sheet", "no colliders", "no limits"};
    const float bar = 0.01f / 1.8f;
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_gltf* doc;
        tl_scene* scene;
        ENSURE(rig_style(styles[i], &doc, &scene));
        rest_trace base = {0};
        for (int v = 0; v < (trace ? (int)COUNT(variants) : 1); ++v) {
            rest_trace t;
            ENSURE(rest_trace_run(scene, (rest_variant)v, &t));
            if (v == 0) base = t;
            printf("  %-10s %-12s last change frame %4d; deg/frame per s:", styles[i], variants[v],
                   t.last_changed);
            for (int s = 0; s < REST_SECONDS; ++s)
                printf(" %.2g", t.deg[s]);
            printf("\n  %-10s %-12s tip H/s per s:", styles[i], variants[v]);
            for (int s = 0; s < REST_SECONDS; ++s)
                printf(" %.2g", t.speed[s]);
            printf("; last-second worst chain %u of %u (contacts %u); drift 2-10 s %.2g H\n",
                   t.worst_chain, t.chains, t.worst_contacts, t.drift);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        for (int s = 2; s < REST_SECONDS; ++s)
            ENSURE_MSG(base.speed[s] < bar, "%s: tip %.4f H/s in second %d (bar %.4f)", styles[i],
                       base.speed[s], s, bar);
    }
}

static void styles_rest(void) {
    styles_rest_run(false);
}

/* The same with the sheet ties, the colliders and the bend limits off in turn (on demand). */
static void styles_rest_trace(void) {
    styles_rest_run(true);
}

/* One hair chain alone through the stress's hip shake (tl_default_stress_def's amplitude, yaw,
 * frequency, 4 s at 60 fps), then held still 10 s: per second of the hold, the largest tip speed
 * (H/s) and the frames with a tip on a collider; and the largest tip displacement over the last
 * 5 s (H), to tell a creep from a tremor. */
static void shake_trace(const tl_scene* scene, const tl_play_chain* chain, bool colliders,
                        const char* label) {
    const tl_scene_skin* sk = &scene->skins[chain->skin];
    tl_stress_def sd = tl_default_stress_def();
    tl_player_def def = tl_default_player_def();
    def.frame_step = 1.0f / sd.shake_fps;
    def.colliders = colliders;
    tl_player* player = NULL;
    tl_error err;
    tl_pose* pose = tl_pose_create(scene);
    ENSURE(pose && tl_player_create(scene, chain, 1, &def, &player, &err) == TL_OK);
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]}, prev[3 * TL_CHAIN_MAX_BONES];
    float at5[3 * TL_CHAIN_MAX_BONES], at0[3 * TL_CHAIN_MAX_BONES], speed[10] = {0}, drift = 0,
                                                                    home = 0, H = sk->height;
    uint32_t contacts[10] = {0};
    const float* w =
        sk->joints[sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top].rest_world;
    pivot[0] = w[12], pivot[1] = w[13], pivot[2] = w[14];
    const int shake = (int)lroundf(sd.shake_seconds * sd.shake_fps), hold = 10 * 60;
    const double omega = 2.0 * 3.14159265358979323846 * sd.shake_frequency;
    const float scale = H / 1.8f, dt = 1.0f / sd.shake_fps;
    for (int f = 0; f <= shake + hold; ++f) {
        double s = f < shake ? sin(omega * f / sd.shake_fps) : 0.0;
        float move[16];
        tl_mat4_rotation_about(move, pivot, (float)(sd.shake_yaw_deg * s * 0.017453292), up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)(sd.shake_amplitude * scale * s) * sk->lateral[c];
        tl_pose_set_rest(pose, scene, chain->skin);
        tl_pose_move_skin(pose, scene, chain->skin, move);
        tl_player_step_pose(player, pose, f ? dt : 0);
        const tl_chain* ch = tl_player_chain(player, 0);
        const float* tip = tl_chain_tip_positions(ch);
        int bones = tl_chain_bone_count(ch), second = (f - shake - 1) / 60;
        for (int b = 0; f > shake && b < bones; ++b) {
            speed[second] =
                fmaxf(speed[second], sqrtf(tl__dist2(tip + 3 * b, prev + 3 * b)) / dt / H);
            if (f == shake + hold)
                drift = fmaxf(drift, sqrtf(tl__dist2(tip + 3 * b, at5 + 3 * b)) / H);
        }
        if (f > shake) contacts[second] += tl_chain_get_stats(ch).contacts > 0;
        if (f == shake + 5 * 60) memcpy(at5, tip, 3 * sizeof(float) * (size_t)bones);
        if (f == 0) memcpy(at0, tip, 3 * sizeof(float) * (size_t)bones);
        for (int b = 0; f == shake + hold && b < bones; ++b)
            home = fmaxf(home, sqrtf(tl__dist2(tip + 3 * b, at0 + 3 * b)) / H);
        memcpy(prev, tip, 3 * sizeof(float) * (size_t)bones);
    }
    printf("  %s colliders %d hold tip H/s per s:", label, colliders);
    for (int s = 0; s < 10; ++s)
        printf(" %.2g", speed[s]);
    printf("; contact frames per s:");
    for (int s = 0; s < 10; ++s)
        printf(" %u", contacts[s]);
    printf("; displacement 5-10 s %.2g H; off the start at the end %.2g H\n", drift, home);
    /* at the end: each particle's speed and the colliders it lies in or within 0.01 H of */
    const tl_chain* ch = tl_player_chain(player, 0);
    const float *pos = tl_chain_particle_positions(ch), *vel = tl_chain_particle_velocities(ch);
    const tl_collider* world;
    uint32_t nc = tl_player_colliders(player, 0, &world);
    float origin[3];
    tl_player_origin(player, origin);
    for (int b = 0; colliders && b < tl_chain_bone_count(ch); ++b) {
        float q[3] = {pos[3 * b] + origin[0], pos[3 * b + 1] + origin[1],
                      pos[3 * b + 2] + origin[2]};
        printf("    link %d speed %.3g H/s near:", b,
               sqrtf(vel[3 * b] * vel[3 * b] + vel[3 * b + 1] * vel[3 * b + 1] +
                     vel[3 * b + 2] * vel[3 * b + 2]) /
                   H);
        for (uint32_t k = 0; k < nc; ++k) {
            float d = tl_collider_depth(&world[k], q) / H;
            if (d > -0.01f)
                printf(" c%u(%s, shape %d) %.4f", k,
                       nc == sk->collider_count ? sk->joints[sk->colliders[k].joint].name : "?",
                       (int)world[k].shape, d);
        }
        printf("\n");
    }
    tl_player_destroy(player);
    tl_pose_destroy(pose);
}

/* The stress's hip shake (tailor measure --stress, measure.md "Coming to rest") on every hair
 * chain alone, the hold 10 s instead of 4: settle_seconds per chain (-1: still moving at the
 * end). With `trace` also without the body colliders, and a trace of each chain over
 * 2 s; with TL_HAIR_REST_STRICT (ctest known_failing_hair_rest) asserted: every chain settles in
 * 0-2 s (session 16: 6 of 103 chains miss, long01's chain 11 trembles on the chest to the end,
 * docs/hair.md "Session 16 (hairrest16)"). */
static void styles_shake_rest_run(bool trace) {
    bool strict = getenv("TL_HAIR_REST_STRICT") != NULL;
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    uint32_t missed = 0;
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_play_chain chains[64];
        uint32_t n;
        ENSURE(rig_style_chains(styles[i], &doc, &scene, chains, 64, &n));
        tl_error err;
        uint32_t slow[64], slow_count = 0;
        for (int colliders = 1; colliders >= (trace ? 0 : 1); --colliders) {
            tl_stress_def def = tl_default_stress_def();
            def.hold_seconds = 10;
            def.colliders = colliders;
            uint32_t over = 0, never = 0;
            float worst = 0;
            printf("  %-10s colliders %d settle s:", styles[i], colliders);
            for (uint32_t c = 0; c < n && c < 64; ++c) {
                tl_stress_report r;
                ENSURE_OK(tl_measure_stress(scene, &chains[c], -1, &def, &r, &err), err);
                printf(" %.2f", r.settle_seconds);
                if (colliders && (r.settle_seconds < 0 || r.settle_seconds > 2))
                    slow[slow_count++] = c;
                missed += colliders && (r.settle_seconds < 0 || r.settle_seconds > 2);
                never += r.settle_seconds < 0;
                over += r.settle_seconds > 2;
                worst = fmaxf(worst, r.settle_seconds);
            }
            printf("\n  %-10s colliders %d: %u over 2 s, %u never in 10 s, slowest %.2f s\n",
                   styles[i], colliders, over, never, worst);
        }
        for (uint32_t k = 0; trace && k < slow_count; ++k)
            for (int colliders = 1; colliders >= 0; --colliders) {
                char label[64];
                snprintf(label, sizeof label, "%s chain %u", styles[i], slow[k]);
                shake_trace(scene, &chains[slow[k]], colliders, label);
            }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    if (strict) ENSURE_MSG(missed == 0, "%u hair chains do not settle in 0-2 s", missed);
}

/* One hair chain through the stress's hip shake and a 10 s hold (as shake_trace), the player's
 * sleep on or off: the tips at the end (`end`), each tip's mean and extent (bounding-box
 * diagonal) over the last second (`mean`, `spread`), and with sleep on the frame it first fell
 * asleep (-1: never) and each tip's extent over the sleep window before it (`window`). */
static int shake_hold(const tl_scene* scene, tl_play_chain chain, bool sleep, float* end,
                      float* mean, float* spread, float* window) {
    int slept = -1;
    const tl_scene_skin* sk = &scene->skins[chain.skin];
    if (!sleep) chain.settings.sleep_seconds = 0;
    tl_stress_def sd = tl_default_stress_def();
    tl_player_def def = tl_default_player_def();
    def.frame_step = 1.0f / sd.shake_fps;
    tl_player* player = NULL;
    tl_error err;
    tl_pose* pose = tl_pose_create(scene);
    if (!pose || tl_player_create(scene, &chain, 1, &def, &player, &err) != TL_OK) {
        tl_pose_destroy(pose);
        return -2; /* (the caller fails on it) */
    }
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]}, box[2][3 * TL_CHAIN_MAX_BONES];
    static float past[600][3 * TL_CHAIN_MAX_BONES]; /* (the last 10 s of tips, a ring) */
    const float* w =
        sk->joints[sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top].rest_world;
    pivot[0] = w[12], pivot[1] = w[13], pivot[2] = w[14];
    const int shake = (int)lroundf(sd.shake_seconds * sd.shake_fps), hold = 10 * 60;
    const int win = (int)lroundf(chain.settings.sleep_seconds * sd.shake_fps);
    const double omega = 2.0 * 3.14159265358979323846 * sd.shake_frequency;
    const float scale = sk->height / 1.8f, dt = 1.0f / sd.shake_fps;
    const int n = (int)chain.bone_count;
    for (int f = 0; f <= shake + hold; ++f) {
        double s = f < shake ? sin(omega * f / sd.shake_fps) : 0.0;
        float move[16];
        tl_mat4_rotation_about(move, pivot, (float)(sd.shake_yaw_deg * s * 0.017453292), up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)(sd.shake_amplitude * scale * s) * sk->lateral[c];
        tl_pose_set_rest(pose, scene, chain.skin);
        tl_pose_move_skin(pose, scene, chain.skin, move);
        tl_player_step_pose(player, pose, f ? dt : 0);
        const tl_chain* ch = tl_player_chain(player, 0);
        memcpy(past[f % 600], tl_chain_tip_positions(ch), 3 * sizeof(float) * (size_t)n);
        if (sleep && slept < 0 && f > win && tl_chain_get_stats(ch).asleep) {
            slept = f; /* the window: the frames before this one */
            for (int k = 0; k < 3 * n; ++k)
                box[0][k] = box[1][k] = past[(f - 1) % 600][k];
            for (int j = f - win; j < f; ++j)
                for (int k = 0; k < 3 * n; ++k)
                    box[0][k] = fminf(box[0][k], past[j % 600][k]),
                    box[1][k] = fmaxf(box[1][k], past[j % 600][k]);
            for (int b = 0; b < n; ++b)
                window[b] = sqrtf(tl__dist2(box[0] + 3 * b, box[1] + 3 * b));
        }
    }
    const int last = shake + hold;
    memcpy(end, past[last % 600], 3 * sizeof(float) * (size_t)n);
    for (int k = 0; k < 3 * n; ++k) {
        double sum = 0;
        box[0][k] = box[1][k] = past[last % 600][k];
        for (int j = last - 59; j <= last; ++j) {
            sum += past[j % 600][k];
            box[0][k] = fminf(box[0][k], past[j % 600][k]);
            box[1][k] = fmaxf(box[1][k], past[j % 600][k]);
        }
        mean[k] = (float)(sum / 60);
    }
    for (int b = 0; b < n; ++b)
        spread[b] = sqrtf(tl__dist2(box[0] + 3 * b, box[1] + 3 * b));
    tl_player_destroy(player);
    tl_pose_destroy(pose);
    return slept;
}

/* Issue #11 with the player's sleep (docs/sim.md "Session 19 (sleep19)"): after the stress's
 * hip shake every hair chain of the five chained styles comes to rest on the still body (the
 * stress's settle_seconds >= 0 in a 10 s hold; long01's chain 11, buzzing in the crease of
 * spine01, spine02 and upperarm01.L, never did), and (3) the pose each chain sleeps in lies
 * within the motion of its window before of where it would have kept moving without sleep: per
 * tip, the distance from its final place to the sleep-off run's mean over the last second is
 * at most its extent over the sleep window plus that run's extent over its last second. */
static void styles_shake_sleep(void) {
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    uint32_t never = 0, far = 0, asleep = 0, total = 0;
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_play_chain chains[64];
        uint32_t n;
        ENSURE(rig_style_chains(styles[i], &doc, &scene, chains, 64, &n));
        tl_error err;
        float worst = 0, worst_ratio = 0, slowest = 0;
        for (uint32_t c = 0; c < n && c < 64; ++c, ++total) {
            tl_stress_def def = tl_default_stress_def();
            def.hold_seconds = 10;
            tl_stress_report r;
            ENSURE_OK(tl_measure_stress(scene, &chains[c], -1, &def, &r, &err), err);
            never += r.settle_seconds < 0;
            slowest = r.settle_seconds < 0 ? INFINITY : fmaxf(slowest, r.settle_seconds);
            float end[3 * TL_CHAIN_MAX_BONES], mean[3 * TL_CHAIN_MAX_BONES],
                spread[TL_CHAIN_MAX_BONES], window[TL_CHAIN_MAX_BONES] = {0},
                                            off_end[3 * TL_CHAIN_MAX_BONES],
                                            off_spread[TL_CHAIN_MAX_BONES], unused[1];
            int slept = shake_hold(scene, chains[c], true, end, mean, spread, window);
            ENSURE(slept > -2 &&
                   shake_hold(scene, chains[c], false, off_end, mean, off_spread, unused) > -2);
            asleep += slept >= 0;
            const float H = scene->skins[chains[c].skin].height;
            for (uint32_t b = 0; b < chains[c].bone_count; ++b) {
                float d = sqrtf(tl__dist2(end + 3 * b, mean + 3 * b)),
                      allowed = window[b] + off_spread[b];
                far += d > allowed;
                worst = fmaxf(worst, d / H);
                if (d > 1e-6f * H) worst_ratio = fmaxf(worst_ratio, d / allowed);
            }
        }
        printf("  %-10s %u chains: slowest settle %.2f s; sleep pose from the awake run's last "
               "second up to %.2g H (%.2f of the window's motion and that second's)\n",
               styles[i], n, slowest, worst, worst_ratio);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    printf("  %u chains: %u never settle, %u asleep at the end, %u tips beyond the window's "
           "motion\n",
           total, never, asleep, far);
    ENSURE(never == 0 && far == 0);
}

/* The stress's hip shake and a 10 s hold for one style's chains in one player (one chain, or
 * every chain with the sheet), the player's sleep on or off, the hold still or breathing (the
 * pelvis swaying `breath` metres at human scale at 0.3 Hz): per second of the hold the largest
 * tip speed (H/s) and the chains asleep at its end. */
static void style_hold(const char* style, int only, bool sleep, float breath) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[64];
    uint32_t n;
    ENSURE(rig_style_chains(style, &doc, &scene, chains, 64, &n));
    tl_error err;
    for (uint32_t c = 0; c < n && !sleep; ++c)
        chains[c].settings.sleep_seconds = 0;
    const uint32_t first = only >= 0 ? (uint32_t)only : 0, count = only >= 0 ? 1 : n;
    const tl_scene_skin* sk = &scene->skins[chains[first].skin];
    tl_stress_def sd = tl_default_stress_def();
    tl_player_def def = tl_default_player_def();
    def.frame_step = 1.0f / sd.shake_fps;
    tl_player* player = NULL;
    tl_pose* pose = tl_pose_create(scene);
    ENSURE(pose && tl_player_create(scene, chains + first, count, &def, &player, &err) == TL_OK);
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]}, speed[10] = {0};
    static float prev[64][3 * TL_CHAIN_MAX_BONES];
    int asleep[10] = {0};
    const float* w =
        sk->joints[sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top].rest_world;
    pivot[0] = w[12], pivot[1] = w[13], pivot[2] = w[14];
    const int shake = (int)lroundf(sd.shake_seconds * sd.shake_fps), hold = 10 * 60;
    const double omega = 2.0 * 3.14159265358979323846 * sd.shake_frequency;
    const float scale = sk->height / 1.8f, dt = 1.0f / sd.shake_fps;
    for (int f = 0; f <= shake + hold; ++f) {
        double s = f < shake ? sin(omega * f / sd.shake_fps) : 0.0;
        double sway =
            f < shake ? 0.0 : breath * sin(2 * 3.14159265358979 * 0.3 * (f - shake) / 60.0);
        float move[16];
        tl_mat4_rotation_about(move, pivot, (float)(sd.shake_yaw_deg * s * 0.017453292), up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)((sd.shake_amplitude * s + sway) * scale) * sk->lateral[c];
        tl_pose_set_rest(pose, scene, chains[first].skin);
        tl_pose_move_skin(pose, scene, chains[first].skin, move);
        tl_player_step_pose(player, pose, f ? dt : 0);
        const int second = (f - shake - 1) / 60;
        for (uint32_t c = 0; c < count; ++c) {
            const tl_chain* ch = tl_player_chain(player, c);
            const float* tip = tl_chain_tip_positions(ch);
            for (int b = 0; f > shake && b < tl_chain_bone_count(ch); ++b)
                speed[second] =
                    fmaxf(speed[second],
                          sqrtf(tl__dist2(tip + 3 * b, prev[c] + 3 * b)) / dt / sk->height);
            if (f > shake && (f - shake) % 60 == 0) asleep[second] += tl_chain_get_stats(ch).asleep;
            memcpy(prev[c], tip, 3 * sizeof(float) * (size_t)tl_chain_bone_count(ch));
        }
    }
    printf("  %-10s %s sleep %d breath %.3g m: hold tip H/s per s:", style,
           only >= 0 ? "one chain" : "all chains", sleep, (double)breath);
    for (int s = 0; s < 10; ++s)
        printf(" %.2g", speed[s]);
    printf("; asleep at each second's end:");
    for (int s = 0; s < 10; ++s)
        printf(" %d", asleep[s]);
    printf(" of %u\n", count);
    tl_player_destroy(player);
    tl_pose_destroy(pose);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* On demand, printed (docs/sim.md "Session 19 (sleep19)"): every style's chains in one player
 * (the sheet on) after the shake, sleep on and off; and the idle case: long01's chain 11 alone
 * with the pelvis breathing 1 mm at 0.3 Hz through the hold, where the input moves and sleep
 * cannot engage. */
static void styles_sleep_hold(void) {
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    for (size_t i = 0; i < COUNT(styles); ++i)
        for (int sleep = 1; sleep >= 0; --sleep)
            style_hold(styles[i], -1, sleep, 0);
    for (int sleep = 1; sleep >= 0; --sleep) {
        style_hold("long01", 11, sleep, 0);
        style_hold("long01", 11, sleep, 0.001f);
    }
}

/* On demand: known_failing_hair_rest runs it with TL_HAIR_REST_STRICT (3 of 103 chains over
 * 2 s since session 17); printed otherwise. */
static void styles_shake_rest(void) {
    styles_shake_rest_run(false);
}

/* The same with the colliders off beside, and a trace of each slow chain (on demand). */
static void styles_shake_rest_trace(void) {
    styles_shake_rest_run(true);
}

/* Cap hair lying on the nape and the sides of the neck follows the neck's skin (hair_nape_bind):
 * in HeadTurn the hair bound to no chain goes no deeper into the posed body skin than the spec's
 * penetration bar (0.002 H). Failed on the head-alone binding: bob02 0.0029 H, ponytail01
 * 0.0050 H (nape hair 1.4 mm off the neck's skin at rest, 8.4 mm into it). bob01, braid01 and
 * long01 still miss it (docs/hair.md "Hair lying on the neck"), so they are printed by
 * styles_play and asserted there only with TL_HAIR_STRICT. */
static void nape_hair_follows_neck(void) {
    const char* styles[] = {"bob02", "ponytail01"};
    for (size_t i = 0; i < COUNT(styles); ++i) {
        tl_gltf* doc;
        tl_scene* scene;
        ENSURE(rig_style(styles[i], &doc, &scene));
        uint32_t clip;
        tl_error err;
        ENSURE_OK(tl_scene_find_clip(scene, "HeadTurn", &clip, &err), err);
        skin_pen sp = hair_skin_penetration(scene, clip, 24);
        float h = scene->skins[0].height;
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        printf("  %s HeadTurn: skin penetration %.4f H, %u vertex-samples over 1 mm of %u\n",
               styles[i], sp.deepest / h, sp.over, sp.vertices);
        ENSURE(sp.deepest >= 0 && sp.vertices > 0);
        ENSURE_MSG(sp.deepest <= 0.002f * h, "%s HeadTurn: hair %.4f H into the skin", styles[i],
                   sp.deepest / h);
    }
}

/* nape15's re-weighting measured against the same rig without it (measure.md "New tears"):
 * the same character rigged with tl_hair_chain_def.nape off and on, both played with their
 * chains from rest at tl_stretch_run's sample times. Edges of class 0 have both ends among the
 * re-weighted vertices, class 1 one end; each edge sample torn (tl_default_measure_def's bounds)
 * with nape on and not with it off is a new tear. */
typedef struct nape_tears {
    uint32_t changed;  /* skin vertices whose joints or weights differ between the two rigs */
    size_t edges[2];   /* edges with both ends changed, with one end changed */
    uint64_t count[2]; /* edge samples */
    uint64_t torn_off[2], torn_on[2], new_torn[2];
} nape_tears;

/* Marks the vertices whose influences differ between two rigs of one skin (w: joint_count
 * floats of zeros, left zero); returns how many. */
static uint32_t weights_changed(const tl_scene_skin* off, const tl_scene_skin* on, uint8_t* changed,
                                float* w) {
    uint32_t n = 0;
    for (uint32_t v = 0; v < off->vertex_count; ++v) {
        const uint32_t *jo = off->influence_joints + (size_t)v * off->influence_count,
                       *jn = on->influence_joints + (size_t)v * on->influence_count;
        const float *wo = off->influence_weights + (size_t)v * off->influence_count,
                    *wn = on->influence_weights + (size_t)v * on->influence_count;
        for (uint32_t k = 0; k < off->influence_count; ++k)
            w[jo[k]] += wo[k];
        for (uint32_t k = 0; k < on->influence_count; ++k)
            w[jn[k]] -= wn[k];
        bool differ = false;
        for (uint32_t k = 0; k < off->influence_count; ++k)
            differ |= w[jo[k]] != 0, w[jo[k]] = 0;
        for (uint32_t k = 0; k < on->influence_count; ++k)
            differ |= w[jn[k]] != 0, w[jn[k]] = 0;
        changed[v] = differ;
        n += differ;
    }
    return n;
}

/* One rig's playback: its chains from the file, simulated from rest, and its skinned vertices. */
typedef struct nape_play {
    const tl_scene* scene;
    tl_player* player;
    tl_pose* pose;
    float *joints, *skinned;
} nape_play;

static bool nape_play_open(nape_play* p, const tl_scene* scene) {
    const tl_scene_skin* sk = &scene->skins[0];
    tl_play_chain chains[64];
    uint32_t n;
    tl_error err;
    tl_player_def def = tl_default_player_def();
    *p = (nape_play){scene, NULL, tl_pose_create(scene),
                     malloc(16 * sizeof(float) * (sk->joint_count + 1)),
                     malloc(3 * sizeof(float) * (sk->vertex_count + 1))};
    return p->pose && p->joints && p->skinned &&
           tl_play_chains_find(scene, chains, 64, &n, &err) == TL_OK &&
           tl_player_create(scene, chains, n < 64 ? n : 64, &def, &p->player, &err) == TL_OK;
}

static void nape_play_close(nape_play* p) {
    tl_player_destroy(p->player);
    tl_pose_destroy(p->pose);
    free(p->joints), free(p->skinned);
}

static void nape_play_sample(nape_play* p, uint32_t clip, float t) {
    tl_pose_sample(p->pose, p->scene, clip, t);
    tl_player_advance(p->player, p->pose, clip, t);
    tl_pose_joint_matrices(p->pose, p->scene, 0, p->joints);
    tl_scene_skin_positions(p->scene, 0, p->joints, p->skinned);
}

static bool nape_torn(const float* x, const uint32_t* e, float rest, const tl_measure_def* def) {
    float r = dist(x + 3 * (size_t)e[0], x + 3 * (size_t)e[1]) / rest;
    return r > def->torn_above || r < def->torn_below;
}

/* The new tears of `on` (nape on) against `off` (nape off) in a clip; false when the two rigs
 * differ in more than the weights or memory runs out. */
static bool nape_tears_measure(const tl_scene* off, const tl_scene* on, uint32_t clip,
                               uint32_t samples, nape_tears* out) {
    const tl_scene_skin *so = &off->skins[0], *sn = &on->skins[0];
    *out = (nape_tears){0};
    if (so->vertex_count != sn->vertex_count || so->joint_count != sn->joint_count ||
        off->part_count != on->part_count)
        return false;
    uint32_t V = so->vertex_count;
    uint8_t* changed = calloc(2 * (size_t)V + 1, 1);
    float* w = calloc(so->joint_count + 1, sizeof(float));
    if (!changed || !w) return free(changed), free(w), false;
    uint8_t* ring = changed + V; /* the changed vertices and their neighbours */
    out->changed = weights_changed(so, sn, changed, w);
    for (uint32_t t = 0; t < so->triangle_count; ++t) {
        const uint32_t* i = so->triangles + 3 * (size_t)t;
        bool any = changed[i[0]] || changed[i[1]] || changed[i[2]];
        for (int k = 0; k < 3 && any; ++k)
            ring[i[k]] = 1;
    }
    tl_measure_def def = tl_default_measure_def();
    def.samples = samples;
    tl_stretch* st = NULL;
    tl_error err;
    const uint8_t* masks[1] = {ring};
    nape_play a = {0}, b = {0};
    bool ok = tl_stretch_create(off, 0, masks, 1, &def, &st, &err) == TL_OK &&
              nape_play_open(&a, off) && nape_play_open(&b, on);
    size_t n = ok ? tl_stretch_edge_count(st, 0) : 0;
    const uint32_t* edges = ok ? tl_stretch_edges(st, 0) : NULL;
    for (size_t e = 0; e < n; ++e)
        if (changed[edges[2 * e]] || changed[edges[2 * e + 1]])
            out->edges[!(changed[edges[2 * e]] && changed[edges[2 * e + 1]])]++;
    float duration = off->clips[clip].duration;
    if (ok) tl_player_start(a.player, clip, 0), tl_player_start(b.player, clip, 0);
    for (uint32_t j = 0; ok && j < samples; ++j) {
        float t = (float)j * duration / (float)samples;
        nape_play_sample(&a, clip, t);
        nape_play_sample(&b, clip, t);
        for (size_t e = 0; e < n; ++e) {
            const uint32_t* ends = edges + 2 * e;
            if (!changed[ends[0]] && !changed[ends[1]]) continue;
            int c = !(changed[ends[0]] && changed[ends[1]]);
            float rest = dist(so->rest_positions + 3 * (size_t)ends[0],
                              so->rest_positions + 3 * (size_t)ends[1]);
            bool tb = nape_torn(a.skinned, ends, rest, &def),
                 ta = nape_torn(b.skinned, ends, rest, &def);
            out->count[c]++, out->torn_off[c] += tb, out->torn_on[c] += ta,
                out->new_torn[c] += ta && !tb;
        }
    }
    nape_play_close(&a), nape_play_close(&b);
    tl_stretch_destroy(st);
    free(changed), free(w);
    return ok;
}

static double share(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* One cell of the nape table: the two rigs in a clip, printed; the figures the tests assert. */
typedef struct nape_cell {
    nape_tears tears;
    skin_pen pen_off, pen_on;
    tl_hair_measure h_off, h_on;
} nape_cell;

static bool nape_cell_measure(const char* label, const tl_scene* off, const tl_scene* on,
                              const char* clip_name, nape_cell* out) {
    uint32_t clip;
    tl_error err;
    float H = off->skins[0].height;
    if (tl_scene_find_clip(on, clip_name, &clip, &err) != TL_OK ||
        !nape_tears_measure(off, on, clip, 24, &out->tears) ||
        tl_hair_measure_clip(off, 0, clip, 24, &out->h_off, &err) != TL_OK ||
        tl_hair_measure_clip(on, 0, clip, 24, &out->h_on, &err) != TL_OK)
        return false;
    out->pen_off = hair_skin_penetration(off, clip, 24);
    out->pen_on = hair_skin_penetration(on, clip, 24);
    const nape_tears* t = &out->tears;
    printf("  nape %-22s %-8s re-weighted %5u | both ends %5zu edges: torn %.3f -> %.3f%%, new "
           "%.3f%% | one end %5zu: torn %.3f -> %.3f%%, new %.3f%% | all hair p99 %.3f -> %.3f "
           "max %.1f -> %.1f torn %.3f -> %.3f%% | skin pen %.4f -> %.4f H (%u -> %u over 1 mm) | "
           "edge samples new %llu healed %llu\n",
           label, clip_name, t->changed, t->edges[0], share(t->torn_off[0], t->count[0]),
           share(t->torn_on[0], t->count[0]), share(t->new_torn[0], t->count[0]), t->edges[1],
           share(t->torn_off[1], t->count[1]), share(t->torn_on[1], t->count[1]),
           share(t->new_torn[1], t->count[1]), out->h_off.stretch.p99, out->h_on.stretch.p99,
           out->h_off.stretch.max, out->h_on.stretch.max, out->h_off.stretch.torn_pct,
           out->h_on.stretch.torn_pct, out->pen_off.deepest / H, out->pen_on.deepest / H,
           out->pen_off.over, out->pen_on.over,
           (unsigned long long)(t->new_torn[0] + t->new_torn[1]),
           (unsigned long long)(t->new_torn[0] + t->new_torn[1] + t->torn_off[0] + t->torn_off[1] -
                                t->torn_on[0] - t->torn_on[1]));
    return out->pen_off.deepest >= 0 && out->pen_on.deepest >= 0;
}

/* CHARACTER (a ../shared path) rigged twice, nape off ([0]) and with the default def ([1]), saved
 * as NAME-off/on and read back; with `mesh`, that hair attached first (fitted to the head with
 * `fit`). */
static bool nape_rig_pair(const char* character, const tl_hair_mesh* mesh, bool fit,
                          const char* name, tl_gltf* docs[2], tl_scene* scenes[2]) {
    tl_hair_mesh fitted = {0};
    tl_error err = {0};
    bool ok = true;
    for (int k = 0; k < 2 && ok; ++k) {
        tl_hair_chain_def def = tl_default_hair_chain_def();
        if (k == 0) def.nape = false; /* [1]: the default, as tailor rig rigs */
        char file[96];
        snprintf(file, sizeof file, "%s-nape-%s.glb", name, k ? "on" : "off");
        docs[k] = NULL, scenes[k] = NULL;
        ok = tl_gltf_load(tl_test_shared(character), &docs[k], &err) == TL_OK &&
             tl_scene_create(docs[k], &scenes[k], &err) == TL_OK;
        if (ok && mesh && k == 0) {
            fitted = *mesh;
            fitted.positions = malloc(3 * sizeof(float) * (mesh->vertex_count + 1));
            fitted.triangles = malloc(3 * sizeof(uint32_t) * (mesh->triangle_count + 1));
            ok = fitted.positions && fitted.triangles;
            if (ok) {
                memcpy(fitted.positions, mesh->positions, 3 * sizeof(float) * mesh->vertex_count);
                memcpy(fitted.triangles, mesh->triangles,
                       3 * sizeof(uint32_t) * mesh->triangle_count);
            }
            ok = ok && (!fit || tl_hair_fit(scenes[k], 0, NULL, 8.0f, &fitted, &err) == TL_OK);
        }
        ok = ok &&
             rig_and_reload_with(&docs[k], &scenes[k], mesh ? &fitted : NULL, file, &def, &err);
    }
    if (!ok) fprintf(stderr, "%s: %s\n", name, err.message);
    free(fitted.positions), free(fitted.triangles);
    return ok;
}

static void nape_pair_free(tl_gltf* docs[2], tl_scene* scenes[2]) {
    for (int k = 0; k < 2; ++k)
        tl_scene_destroy(scenes[k]), tl_gltf_destroy(docs[k]);
}

/* The shared case mh-STYLE.glb rigged nape off and on (nape_rig_pair). */
static bool nape_rig_case(const char* style, tl_gltf* docs[2], tl_scene* scenes[2]) {
    char path[64];
    snprintf(path, sizeof path, "cases/mh-%s.glb", style);
    return nape_rig_pair(path, NULL, false, style, docs, scenes);
}

/* The nape table (docs/hair.md "nape15 measured"): per style and clip the vertices nape
 * re-weights, the new tears of the edges touching them, the whole hair's stretch and the skin
 * penetration, nape off -> on. Printed; asserted: the measurement ran and nape re-weights. */
static void nape_measured(void) {
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const char* clips[] = {"Walk", "HeadTurn", "Jump"};
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_gltf* docs[2];
        tl_scene* scenes[2];
        ENSURE(nape_rig_case(styles[s], docs, scenes));
        for (size_t c = 0; c < COUNT(clips); ++c) {
            nape_cell cell;
            ENSURE(nape_cell_measure(styles[s], scenes[0], scenes[1], clips[c], &cell));
            ENSURE(cell.tears.changed > 0);
        }
        nape_pair_free(docs, scenes);
    }
}

/* The same on hair not in ../shared: the playable styles cut into cards and made longer
 * (variants_play's variants) on mh-body, and fitted onto the Quaternius knight (tailor hair
 * --fit). Printed. */
static void nape_off_shared(void) {
    ENSURE(body_load());
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const tl_scene_skin* sk = &body->skins[0];
    const float* head = sk->joints[sk->body.head].rest_world + 12;
    float mm = sk->height / TL_HAIR_HUMAN_MM;
    for (size_t s = 0; s < COUNT(styles); ++s)
        for (int k = 0; k < 3; ++k) {
            tl_hair_mesh mesh;
            ENSURE(style_load(styles[s], &mesh));
            if (k == 0) cut_into_cards(&mesh, 40 * mm, 2 * mm);
            if (k == 1) lengthen(&mesh, head, 1.6f);
            const char* what[] = {"cards", "longer", "knight"};
            char name[64];
            snprintf(name, sizeof name, "%s %s", styles[s], what[k]);
            tl_gltf* docs[2];
            tl_scene* scenes[2];
            bool rigged = nape_rig_pair(k < 2 ? "cases/mh-body.glb"
                                              : "assets/quaternius-knight/KnightCharacter.glb",
                                        &mesh, k == 2, name, docs, scenes);
            tl_hair_mesh_free(&mesh);
            ENSURE(rigged);
            const char* clips[2][2] = {{"HeadTurn", "Jump"},
                                       {"HumanArmature|Jump", "HumanArmature|Roll"}};
            for (int c = 0; c < 2; ++c) {
                nape_cell cell;
                ENSURE(nape_cell_measure(name, scenes[0], scenes[1], clips[k == 2][c], &cell));
            }
            nape_pair_free(docs, scenes);
        }
}

/* nape15's re-weighting pays (hair_nape_bind; docs/hair.md "nape15 measured"): bob02 and
 * ponytail01 rigged with nape off and on, in HeadTurn: nape re-weights hair, takes the hair bound
 * to no chain less deep into the posed skin, and its new tears (measure.md) are at most 0.25% of
 * the edge samples touching the hair it re-weights (today 0.022% and 0.205%). Fails with nape
 * off (nothing re-weighted, the same penetration). bob01 (1.38%) and braid01 (2.79%) miss the
 * 0.25%: printed by nape_measured (on demand), not asserted. */
static void nape_tears_bounded(void) {
    const char* styles[] = {"bob02", "ponytail01"};
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_gltf* docs[2];
        tl_scene* scenes[2];
        ENSURE(nape_rig_case(styles[s], docs, scenes));
        uint32_t clip;
        tl_error err;
        ENSURE_OK(tl_scene_find_clip(scenes[1], "HeadTurn", &clip, &err), err);
        nape_tears t;
        bool measured = nape_tears_measure(scenes[0], scenes[1], clip, 24, &t);
        skin_pen off = hair_skin_penetration(scenes[0], clip, 24),
                 on = hair_skin_penetration(scenes[1], clip, 24);
        float H = scenes[0]->skins[0].height;
        nape_pair_free(docs, scenes);
        double added = share(t.new_torn[0] + t.new_torn[1], t.count[0] + t.count[1]);
        printf("  %s HeadTurn: %u re-weighted, new tears %.3f%% of %llu edge samples touching "
               "them, skin penetration %.4f -> %.4f H\n",
               styles[s], t.changed, added, (unsigned long long)(t.count[0] + t.count[1]),
               off.deepest / H, on.deepest / H);
        ENSURE(measured && off.deepest >= 0 && on.deepest >= 0);
        ENSURE_MSG(t.changed > 0, "%s: nape re-weights nothing", styles[s]);
        ENSURE_MSG(on.deepest < off.deepest, "%s: skin penetration %.4f -> %.4f H", styles[s],
                   off.deepest / H, on.deepest / H);
        ENSURE_MSG(added <= 0.25, "%s: new tears on %.3f%% of the edge samples", styles[s], added);
    }
}

/* A hair mesh attached to mh-body.glb as it lies and rigged (tailor hair's steps), saved to the
 * scratch folder as NAME and read back. */
static bool rig_hair_mesh(const tl_hair_mesh* mesh, const char* name, tl_gltf** doc,
                          tl_scene** scene) {
    tl_error err;
    *doc = NULL, *scene = NULL;
    bool ok = tl_gltf_load(tl_test_shared("cases/mh-body.glb"), doc, &err) == TL_OK &&
              tl_scene_create(*doc, scene, &err) == TL_OK &&
              rig_and_reload(doc, scene, mesh, name, &err);
    if (!ok) fprintf(stderr, "%s: %s\n", name, err.message);
    return ok;
}

/* The player on hair not in ../shared: the playable styles cut into loose cards and made longer
 * (generalisation_set's variants) attached to the body, rigged, and played in HeadTurn and Jump;
 * the same figures as styles_play, and their sums. Asserted: what must hold of any style (finite
 * figures, roots kept on the scalp, rest sag within the spec's 5 mm), not the figures. */
static void variants_play(void) {
    ENSURE(body_load());
    styles_fit = getenv("TL_HAIR_FIT"); /* (measured with the seam fit: styles_play's knob) */
    const char* styles[] = {"bob01", "bob02", "braid01", "long01", "ponytail01"};
    const char* variants[] = {"cards", "longer"};
    const char* clips[] = {"HeadTurn", "Jump"};
    const tl_scene_skin* sk = &body->skins[0];
    const float* head = sk->joints[sk->body.head].rest_world + 12;
    float mm = sk->height / TL_HAIR_HUMAN_MM;
    double sum_p99 = 0, sum_max = 0, sum_torn = 0, sum_pen = 0, sum_skin = 0;
    uint32_t cells = 0, over = 0, skin_over = 0;
    for (size_t s = 0; s < COUNT(styles); ++s)
        for (size_t k = 0; k < COUNT(variants); ++k) {
            tl_hair_mesh mesh;
            ENSURE(style_load(styles[s], &mesh));
            if (k == 0) cut_into_cards(&mesh, 40 * mm, 2 * mm);
            if (k == 1) lengthen(&mesh, head, 1.6f);
            char name[64];
            snprintf(name, sizeof name, "variant-%s-%s.glb", styles[s], variants[k]);
            tl_gltf* doc;
            tl_scene* scene;
            bool rigged = rig_hair_mesh(&mesh, name, &doc, &scene);
            tl_hair_mesh_free(&mesh);
            ENSURE(rigged);
            uint32_t chains = 0;
            for (uint32_t i = 0; i < scene->part_count; ++i)
                chains += scene->parts[i].kind == TL_PART_HAIR;
            for (size_t c = 0; c < COUNT(clips); ++c) {
                uint32_t clip;
                tl_error err;
                tl_hair_measure h;
                ENSURE_OK(tl_scene_find_clip(scene, clips[c], &clip, &err), err);
                ENSURE_OK(tl_hair_measure_clip(scene, 0, clip, 24, &h, &err), err);
                skin_pen sp = hair_skin_penetration(scene, clip, 24);
                ENSURE(sp.deepest >= 0);
                printf("  %-10s %-6s %-8s skin penetration %.4f H (%.1f mm), %u vertex-samples "
                       "over 1 mm of %u vertices\n",
                       styles[s], variants[k], clips[c], sp.deepest / scene->skins[0].height,
                       1000 * sp.deepest, sp.over, sp.vertices);
                sum_skin += sp.deepest / scene->skins[0].height, skin_over += sp.over;
                printf("  %-10s %-6s %-8s %2u chains: rest sag %.4f mm, root drift %.2g m, "
                       "collider penetration %.4f H, free motion %.1f mm, all hair p99 %.3f max "
                       "%.3f torn %.3f%% (body %.3f / %.3f)\n",
                       styles[s], variants[k], clips[c], chains, 1000 * h.rest_sag_max,
                       h.root_drift_max, h.collider_penetration, 1000 * h.free_motion_max,
                       h.stretch.p99, h.stretch.max, h.stretch.torn_pct, h.stretch_body.p99,
                       h.stretch_body.max);
                ENSURE_MSG(isfinite(h.stretch.p99) && isfinite(h.stretch.max) &&
                               isfinite(h.collider_penetration) && isfinite(h.free_motion_max) &&
                               h.stretch.count > 0,
                           "%s %s %s: not finite", styles[s], variants[k], clips[c]);
                ENSURE_MSG(h.roots > 0 && h.root_drift_max <= 1e-5f, "%s %s %s: root drift %g m",
                           styles[s], variants[k], clips[c], h.root_drift_max);
                ENSURE_MSG(h.rest_sag_max <= 0.005f, "%s %s: rest sag %.2f mm", styles[s],
                           variants[k], 1000 * h.rest_sag_max);
                sum_p99 += h.stretch.p99, sum_max += h.stretch.max, sum_torn += h.stretch.torn_pct;
                sum_pen += h.collider_penetration, cells++;
                over += h.collider_penetration > 0.002f;
            }
            tl_scene_destroy(scene);
            tl_gltf_destroy(doc);
        }
    printf("  variants: %u cells, summed p99 %.3f max %.3f torn %.3f%%, penetration %.4f H, %u "
           "over 0.002 H\n",
           cells, sum_p99, sum_max, sum_torn, sum_pen, over);
    printf("  variants: skin penetration summed %.4f H, %u vertex-samples over 1 mm\n", sum_skin,
           skin_over);
    styles_fit = NULL;
}

/* Reads accessor `name` of a primitive's attributes (or "indices") as floats. */
static float* read_attribute(const tl_gltf* doc, json_t* prim, const char* name, size_t per,
                             size_t* count) {
    json_t* at = strcmp(name, "indices")
                     ? json_object_get(json_object_get(prim, "attributes"), name)
                     : json_object_get(prim, "indices");
    if (!json_is_integer(at)) return NULL;
    uint32_t a = (uint32_t)json_integer_value(at);
    *count = doc->accessors[a].count;
    float* out = malloc(sizeof(float) * per * (*count + 1));
    tl_error err;
    if (out && tl_gltf_accessor_read_float(doc, a, out, per * *count, &err) != TL_OK)
        free(out), out = NULL;
    return out;
}

/* Rest-world positions of `count` bind-space points skinned (4 influences) with joint matrices. */
static void skin_points(const float* bind, const float* joints, const float* weights, size_t count,
                        const float* matrices, float* out) {
    for (size_t i = 0; i < count; ++i) {
        float p[3] = {0, 0, 0};
        for (int k = 0; k < 4; ++k) {
            const float* m = matrices + 16 * (size_t)joints[4 * i + k];
            const float* b = bind + 3 * i;
            for (int c = 0; c < 3; ++c)
                p[c] += weights[4 * i + k] *
                        (m[c] * b[0] + m[4 + c] * b[1] + m[8 + c] * b[2] + m[12 + c]);
        }
        memcpy(out + 3 * i, p, sizeof p);
    }
}

/* The distance from p to triangle a, b, c (the closest point: Voronoi regions of the vertices,
 * the edges, the face). */
static float triangle_distance(const float* p, const float* a, const float* b, const float* c) {
    float ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; ++k)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
#define DOT3(x, y) ((x)[0] * (y)[0] + (x)[1] * (y)[1] + (x)[2] * (y)[2])
    float d1 = DOT3(ab, ap), d2 = DOT3(ac, ap);
    float bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    float cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    float d3 = DOT3(ab, bp), d4 = DOT3(ac, bp), d5 = DOT3(ab, cp), d6 = DOT3(ac, cp);
#undef DOT3
    float va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d1 <= 0 && d2 <= 0) return sqrtf(dist2(p, a));
    if (d3 >= 0 && d4 <= d3) return sqrtf(dist2(p, b));
    if (d6 >= 0 && d5 <= d6) return sqrtf(dist2(p, c));
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return tl_mesh_segment_distance(p, a, b, NULL);
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return tl_mesh_segment_distance(p, a, c, NULL);
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return tl_mesh_segment_distance(p, b, c, NULL);
    float den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
    for (int k = 0; k < 3; ++k)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
    return sqrtf(dist2(p, q));
}

/* The distance from p to the hair surface: the triangles of the primitives holding `hair`'s
 * vertices (skin 0), at `positions`. */
static float hair_surface_distance(const tl_scene_skin* sk, const float* p, const float* positions,
                                   uint32_t first_hair) {
    float best = INFINITY;
    for (uint32_t t = 0; t < sk->triangle_count; ++t) {
        const uint32_t* v = sk->triangles + 3 * (size_t)t;
        if (v[0] < first_hair) continue;
        best = fminf(best,
                     triangle_distance(p, positions + 3 * (size_t)v[0],
                                       positions + 3 * (size_t)v[1], positions + 3 * (size_t)v[2]));
    }
    return best;
}

/* §6: the guide layer written by tailor rig on long01: one skinned LINES primitive (valid glTF,
 * checked in long01_rigged_plays) over the attached guides, weighted as the hair where each guide
 * runs. In HeadTurn with the chains simulated (8 times) the guide points stay on the moving
 * hair: the worst point gets no farther from the hair surface than coverage_mm (10 mm at human
 * scale) past its rest distance, while the motion carries them decimetres (weights on the head
 * alone would leave the free guides behind). */
static void guide_layer_follows_hair(void) {
    tl_gltf* doc;
    tl_scene* scene;
    ENSURE(rig_style("long01", &doc, &scene));
    json_t* meshes = json_object_get(tl_gltf_json(doc), "meshes");
    json_t *prim = NULL, *mesh;
    size_t i;
    json_array_foreach(meshes, i, mesh) {
        const char* name = json_string_value(json_object_get(mesh, "name"));
        if (name && !strcmp(name, "hair_guides"))
            prim = json_array_get(json_object_get(mesh, "primitives"), 0);
    }
    ENSURE(prim && json_integer_value(json_object_get(prim, "mode")) == 1);
    size_t n = 0, nj = 0, nw = 0, ni = 0;
    float* bind = read_attribute(doc, prim, "POSITION", 3, &n);
    float* joints = read_attribute(doc, prim, "JOINTS_0", 4, &nj);
    float* weights = read_attribute(doc, prim, "WEIGHTS_0", 4, &nw);
    float* lines = read_attribute(doc, prim, "indices", 1, &ni);
    ENSURE(bind && joints && weights && lines && n == nj && n == nw && ni % 2 == 0 && ni > 0);
    const tl_scene_skin* sk = &scene->skins[0];
    uint32_t on_hair_bone = 0;
    bool sane = true;
    for (size_t v = 0; v < n; ++v) {
        float sum = 0;
        bool hair = false;
        for (int k = 0; k < 4; ++k) {
            sum += weights[4 * v + k];
            sane &= joints[4 * v + k] < sk->joint_count;
            hair |= weights[4 * v + k] > 0 && sane &&
                    strstr(sk->joints[(uint32_t)joints[4 * v + k]].name, "Hair");
        }
        sane &= fabsf(sum - 1) < 1e-5f;
        on_hair_bone += hair;
    }
    for (size_t k = 0; k < ni; ++k)
        sane &= lines[k] < n;
    ENSURE(sane);
    /* HeadTurn played with the hair chains simulated (the player, as tailor play shows it) */
    tl_play_chain chains[32];
    uint32_t chain_count;
    tl_error err;
    tl_player_def pdef = tl_default_player_def();
    tl_player* player;
    uint32_t clip;
    ENSURE_OK(tl_play_chains_find(scene, chains, 32, &chain_count, &err), err);
    ENSURE_OK(tl_player_create(scene, chains, chain_count, &pdef, &player, &err), err);
    ENSURE_OK(tl_scene_find_clip(scene, "HeadTurn", &clip, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose_set_rest(pose, scene, 0);
    float* rest_m = malloc(16 * sizeof(float) * sk->joint_count);
    float* bent_m = malloc(16 * sizeof(float) * sk->joint_count);
    tl_pose_joint_matrices(pose, scene, 0, rest_m);
    float* rest_p = malloc(3 * sizeof(float) * n);
    float* rest_d = malloc(sizeof(float) * n);
    float* bent_p = malloc(3 * sizeof(float) * n);
    float* mesh_p = malloc(3 * sizeof(float) * sk->vertex_count);
    uint32_t* hair = malloc(sizeof(uint32_t) * sk->vertex_count);
    uint32_t on_chain = 0, hair_n = hair_vertices(scene, hair, &on_chain);
    skin_points(bind, joints, weights, n, rest_m, rest_p);
    /* every 8th point (the surface distance is brute force) at 8 times */
    const size_t every = 8;
    for (size_t v = 0; v < n; v += every)
        rest_d[v] = hair_surface_distance(sk, rest_p + 3 * v, sk->rest_positions, hair[0]);
    float worst = 0, moved = 0, duration = scene->clips[clip].duration;
    tl_player_start(player, clip, 0);
    for (int k = 1; k <= 8; ++k) {
        tl_player_advance(player, pose, clip, duration * (float)k / 8);
        tl_pose_joint_matrices(pose, scene, 0, bent_m);
        skin_points(bind, joints, weights, n, bent_m, bent_p);
        tl_scene_skin_positions(scene, 0, bent_m, mesh_p);
        for (size_t v = 0; v < n; v += every) {
            float d1 = hair_surface_distance(sk, bent_p + 3 * v, mesh_p, hair[0]);
            moved = fmaxf(moved, sqrtf(dist2(rest_p + 3 * v, bent_p + 3 * v)));
            worst = fmaxf(worst, d1 - rest_d[v]);
        }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    float bar = 10.0f * sk->height / TL_HAIR_HUMAN_MM;
    printf("  long01 guide layer: %zu points, %zu segments, %u on hair bones; HeadTurn simulated: "
           "moved up to %.0f mm, at most %.2f mm farther from the hair surface than at rest (bar "
           "%.1f mm)\n",
           n, ni / 2, on_hair_bone, 1000 * moved, 1000 * worst, 1000 * bar);
    free(rest_d);
    free(rest_p), free(bent_p), free(mesh_p), free(hair), free(rest_m), free(bent_m);
    free(bind), free(joints), free(weights), free(lines);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(on_hair_bone > n / 4 && hair_n == 3314 && on_chain > 0);
    ENSURE(moved > 0.1f);
    ENSURE_MSG(worst <= bar, "a guide point leaves the bent hair by %.1f mm", 1000 * worst);
}

/* §3: roots follow their triangles through Walk and HeadTurn (24 samples each) to numerical
 * precision (≤ 1e-5 m), beside the head-bone-only binding's drift (the article: 0.657 mm). The
 * character is mh-long01.glb itself: its body is the scalp, its hair (bound to the head) the
 * style. */
static void roots_follow_scalp(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(tl_test_shared("cases/mh-long01.glb"), &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    const tl_scene_skin* sk = &scene->skins[0];
    uint8_t exclude[8] = {0};
    ENSURE(sk->primitive_count <= 8 && tl_hair_find_primitives(scene, 0, exclude) == 1);
    tl_hair_def def = tl_default_hair_def();
    tl_hair_scalp* own;
    tl_hair_mesh mesh;
    tl_hair_guides* g;
    ENSURE_OK(tl_hair_scalp_find(scene, 0, &def, exclude, &own, &err), err);
    ENSURE_OK(tl_hair_mesh_from_scene_hair(scene, 0, &mesh, &err), err);
    ENSURE_OK(tl_hair_guides_create(&mesh, own, &def, &g, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    float* joints = malloc(16 * sizeof(float) * sk->joint_count);
    float* positions = malloc(3 * sizeof(float) * sk->vertex_count);
    const char* clips[] = {"Walk", "HeadTurn"};
    bool ok = true;
    for (size_t c = 0; c < COUNT(clips) && ok; ++c) {
        uint32_t clip;
        ok = tl_scene_find_clip(scene, clips[c], &clip, &err) == TL_OK;
        if (!ok) break;
        tl_hair_drift d = tl_hair_root_drift(scene, 0, g, clip, 24, pose, joints, positions);
        printf("  long01 %-8s %u roots: triangle drift %.2g m, head-bone drift %.3g mm\n", clips[c],
               d.roots, d.triangle_drift, 1000 * d.head_drift);
        ok = d.roots > 100 && d.triangle_drift <= 1e-5f; /* head drift: reported */
    }
    free(joints), free(positions);
    tl_pose_destroy(pose);
    tl_hair_guides_destroy(g);
    tl_hair_mesh_free(&mesh);
    tl_hair_scalp_destroy(own);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(ok);
}

/* The shared case mh-STYLE.glb loaded and analysed by tailor rig with `def`; on failure what
 * was made is destroyed. */
static tl_result case_analyze(const char* style, const tl_rig_def* def, tl_gltf** doc,
                              tl_scene** scene, tl_rig_analysis** rig, tl_error* err) {
    char path[128];
    snprintf(path, sizeof path, "cases/mh-%s.glb", style);
    tl_result r = tl_gltf_load(tl_test_shared(path), doc, err);
    if (r != TL_OK) return r;
    if ((r = tl_scene_create(*doc, scene, err)) != TL_OK) return tl_gltf_destroy(*doc), r;
    if ((r = tl_rig_analyze(*scene, def, rig, err)) != TL_OK)
        tl_scene_destroy(*scene), tl_gltf_destroy(*doc);
    return r;
}

/* §6 in tailor rig: a short style is reported as hair, rigid on the head, and nothing is
 * written; long01's shards that the tail pipeline sees are relabelled hair. */
static void rig_reports_hair(void) {
    const char* styles[] = {"short01", "long01"};
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_rig_analysis* rig;
        tl_error err;
        tl_rig_def def = tl_default_rig_def();
        ENSURE_OK(case_analyze(styles[s], &def, &doc, &scene, &rig, &err), err);
        uint32_t hair_chains = 0, hair_reported = 0, other_in_hair = 0;
        for (uint32_t i = 0; i < rig->part_count; ++i) {
            const tl_rig_part* p = &rig->parts[i];
            if (p->cls == TL_RIG_CLASS_HAIR) {
                hair_chains += p->action == TL_RIG_ACTION_CHAIN;
                hair_reported += p->action == TL_RIG_ACTION_REPORTED;
            } else if (p->vertex_count &&
                       p->vertices[0] >= scene->skins[0].primitives[1].first_vertex) {
                other_in_hair++; /* primitive 1 is the hair (MAKEHUMAN.md) */
            }
        }
        uint32_t changed = rig->changed_vertices;
        tl_rig_analysis_destroy(rig);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        printf("  %s: %u hair chains, %u hair parts reported, %u other parts in the hair\n",
               styles[s], hair_chains, hair_reported, other_in_hair);
        if (s == 0) ENSURE(hair_chains == 0 && hair_reported == 1 && changed == 0);
        if (s == 1) ENSURE(hair_chains == 24 && hair_reported > 0);
        ENSURE(other_in_hair == 0);
    }
}

/* tailor rig on its own output: the hair it rigged is left as it is (one part of class hair,
 * already rigged, nothing re-weighted), not given a second set of chains beside the first (main
 * did: bob02 rigged twice had 14 hair parts, Hair01.001_1 .. beside Hair01_1 ..). */
static void rig_twice_keeps_hair(void) {
    char twice[600];
    const char* once = tl_test_rigged_case("mh-bob02");
    ENSURE(once);
    snprintf(twice, sizeof twice, "%s", tl_test_scratch("bob02-twice.glb"));
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --force > /dev/null", once, twice) == 0);
    uint32_t hair[2] = {0, 0};
    const char* paths[2] = {once, twice};
    for (int k = 0; k < 2; ++k) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(paths[k], &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        for (uint32_t i = 0; i < scene->part_count; ++i)
            hair[k] += scene->parts[i].kind == TL_PART_HAIR;
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    tl_gltf* doc;
    tl_scene* scene;
    tl_rig_analysis* rig;
    tl_error err;
    tl_rig_def def = tl_default_rig_def();
    ENSURE_OK(tl_gltf_load(once, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE_OK(tl_rig_analyze(scene, &def, &rig, &err), err);
    uint32_t chains = 0, left = 0;
    for (uint32_t i = 0; i < rig->part_count; ++i) {
        chains += rig->parts[i].action == TL_RIG_ACTION_CHAIN;
        left += rig->parts[i].cls == TL_RIG_CLASS_HAIR &&
                rig->parts[i].action == TL_RIG_ACTION_ALREADY_RIGGED;
    }
    uint32_t changed = rig->changed_vertices;
    tl_rig_analysis_destroy(rig);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    printf("  bob02 rigged once: %u hair parts; twice: %u; the second rig: %u chains, %u hair "
           "part(s) left as rigged, %u vertices changed\n",
           hair[0], hair[1], chains, left, changed);
    ENSURE(hair[0] > 0);
    ENSURE_MSG(hair[1] == hair[0], "rigged twice: %u hair parts, once %u", hair[1], hair[0]);
    ENSURE(chains == 0 && left == 1 && changed == 0);
}

/* §1, --fit: MakeHuman's long01 as shipped (decimetres, modelled for another head) fitted onto
 * the Quaternius knight and the Khronos fox: roots on their scalps (attachment >= 98.84%,
 * coverage >= 95%), and no hair vertex inside the head collider (colliders.h). */
static void fit_onto_other_heads(void) {
    const char* characters[] = {"assets/quaternius-knight/KnightCharacter.glb",
                                "assets/khronos-fox/Fox.glb"};
    for (size_t c = 0; c < COUNT(characters); ++c) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(tl_test_shared(characters[c]), &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        int32_t skin = tl_hair_scene_skin(scene);
        ENSURE(skin != TL_NONE);
        tl_hair_mesh mesh;
        ENSURE_OK(tl_hair_mesh_read_obj(tl_test_shared("assets/makehuman-hair/long01/long01.obj"),
                                        &mesh, &err),
                  err);
        ENSURE_OK(tl_hair_fit(scene, (uint32_t)skin, NULL, 8.0f, &mesh, &err), err);
        tl_hair_def def = tl_default_hair_def();
        tl_hair_scalp* own;
        tl_hair_guides* g;
        ENSURE_OK(tl_hair_scalp_find(scene, (uint32_t)skin, &def, NULL, &own, &err), err);
        ENSURE_OK(tl_hair_guides_create(&mesh, own, &def, &g, &err), err);
        tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
        uint32_t n;
        ENSURE_OK(
            tl_body_colliders_fit(scene, (uint32_t)skin, fitted, TL_BODY_COLLIDERS_MAX, &n, &err),
            err);
        tl_pose* pose = tl_pose_create(scene);
        tl_pose_set_rest(pose, scene, (uint32_t)skin);
        tl_collider world[TL_BODY_COLLIDERS_MAX];
        tl_body_colliders_pose(scene, (uint32_t)skin, fitted, n, pose, world);
        tl_pose_destroy(pose);
        float deepest = 0;
        uint32_t heads = 0;
        for (uint32_t k = 0; k < n; ++k) {
            if (fitted[k].role != TL_ROLE_HEAD) continue;
            heads++;
            for (uint32_t v = 0; v < mesh.vertex_count; ++v)
                deepest = fmaxf(deepest, tl_collider_depth(&world[k], mesh.positions + 3 * v));
        }
        printf("  long01 fitted on %s: %u of %u guides attached (%.1f%%), coverage %.1f%%, deepest "
               "in the head collider %.3g H\n",
               characters[c], g->audit.attached, g->audit.candidates,
               100.0 * g->audit.attached / g->audit.candidates, 100 * g->audit.coverage,
               deepest / scene->skins[skin].height);
        ENSURE(heads >= 1);
        /* the spec's bars (§5): the hair is at the head's scale, not the body's (before: the
           knight's 2x and the fox's 3x human head made its locks pass max_chain_mm: 65.7% and
           42.8% attached) */
        ENSURE(g->audit.attached >= 0.9884 * g->audit.candidates && g->audit.coverage >= 0.95);
        ENSURE_MSG(deepest <= 0, "a hair vertex lies %.3g H inside the head collider",
                   deepest / scene->skins[skin].height);
        tl_hair_guides_destroy(g);
        tl_hair_scalp_destroy(own);
        tl_hair_mesh_free(&mesh);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
}

/* tailor hair: the style attached to the bare body and rigged, valid, 24 hair chains. */
static void hair_command(void) {
    const char* out = tl_test_scratch("body-long01.glb");
    remove(out);
    char* text = NULL;
    int rc =
        tl_test_cli(&text, "hair '%s' --hair '%s' -o '%s'", tl_test_shared("cases/mh-body.glb"),
                    tl_test_shared("cases/mh-long01.hair.obj"), out);
    ENSURE_MSG(rc == 0, "exit %d", rc);
    ENSURE(text && strstr(text, "540 of 540 guides attached") && strstr(text, "24 hair chain"));
    free(text);
    json_t* report = tl_test_validate(out);
    ENSURE(report && json_integer_value(json_object_get(report, "errors")) == 0);
    json_decref(report);
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(out, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    uint32_t hair = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        hair += scene->parts[i].kind == TL_PART_HAIR;
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(hair == 24);
    /* a missing asset: an error naming it, no output */
    remove(out);
    rc = tl_test_cli(NULL, "hair '%s' --hair /nonexistent.obj -o '%s'",
                     tl_test_shared("cases/mh-body.glb"), out);
    FILE* f = fopen(out, "rb");
    if (f) fclose(f);
    ENSURE(rc != 0 && !f);
}

/* hair_grid_build_boxes: a query's 27 cells hold every box that comes within one cell of it
 * (the nape binding's guarantee: every triangle within the lying-on distance is visited), on
 * random boxes of every size from a point to several cells, against a scan of all boxes. */
typedef struct grid_seen {
    uint8_t* seen;
} grid_seen;

static bool grid_seen_visit(void* user, uint32_t id) {
    ((grid_seen*)user)->seen[id] = 1;
    return true;
}

static float lcg_unit(uint32_t* r) {
    *r = *r * 1664525u + 1013904223u;
    return (float)(*r >> 8) / (float)(1u << 24);
}

static void grid_boxes_cover_near_items(void) {
    enum { N = 3000, Q = 2000 };
    float* box = malloc(6 * sizeof(float) * N);
    uint32_t* ids = malloc(sizeof(uint32_t) * N);
    uint8_t* seen = malloc(N);
    ENSURE(box && ids && seen);
    uint32_t r = 12345;
#define NEXT() lcg_unit(&r)
    for (uint32_t i = 0; i < N; ++i) {
        float size = NEXT() < 0.3f ? 0 : 0.2f * NEXT();
        size *= NEXT();
        for (int k = 0; k < 3; ++k) {
            box[6 * i + k] = NEXT() - 0.5f;
            box[6 * i + 3 + k] = box[6 * i + k] + size * NEXT();
        }
        ids[i] = i;
    }
    float cell = 0.05f; /* 20^3 cells: under the budget, so the grid keeps it */
    hair_grid g;
    ENSURE(hair_grid_build_boxes(&g, box, ids + 1, N - 1, cell, 4 * (size_t)N + 64));
    uint32_t missed = 0, near = 0;
    for (uint32_t q = 0; q < Q; ++q) {
        float p[3] = {1.2f * (NEXT() - 0.5f), 1.2f * (NEXT() - 0.5f), 1.2f * (NEXT() - 0.5f)};
        memset(seen, 0, N);
        grid_seen gs = {seen};
        hair_grid_visit(&g, p, grid_seen_visit, &gs);
        missed += seen[0]; /* left out of the build: never visited */
        for (uint32_t i = 1; i < N; ++i) {
            float d2 = 0;
            for (int k = 0; k < 3; ++k) {
                float d = fmaxf(fmaxf(box[6 * i + k] - p[k], p[k] - box[6 * i + 3 + k]), 0);
                d2 += d * d;
            }
            if (d2 < 0.999f * cell * cell) near++, missed += !seen[i];
        }
    }
#undef NEXT
    printf("  %u box-query pairs within a cell, %u missed (grid cell %.4f, %u x %u x %u)\n", near,
           missed, g.cell, g.dims[0], g.dims[1], g.dims[2]);
    ENSURE(near > 1000 && missed == 0);
    hair_grid_free(&g);
    free(box), free(ids), free(seen);
}

/* The scalp's nearest triangle through its grid is the plain scan's: every triangle ascending,
 * skipped when its sphere lies beyond the best so far, taken when no farther (the last of
 * equals). Queried at the hair vertices of three styles and at random points around the head,
 * at the adapter's cap depth and at smaller ones; triangle, distance and barycentrics equal. */
static uint32_t scalp_scan(const tl_hair_scalp* sc, const float* sphere, const float p[3],
                           float max_distance, float* distance, float bary[3]) {
    uint32_t best = UINT32_MAX;
    float best2 = max_distance * max_distance, root = sqrtf(best2);
    for (uint32_t t = 0; t < sc->triangle_count; ++t) {
        const float* c = sphere + 4 * (size_t)t;
        float reach = root + c[3], b[3];
        if (tl__dist2(p, c) > reach * reach) continue;
        const uint32_t* tri = sc->triangles + 3 * (size_t)t;
        float d2 = tl_mesh_triangle_nearest(p, sc->positions + 3 * (size_t)tri[0],
                                            sc->positions + 3 * (size_t)tri[1],
                                            sc->positions + 3 * (size_t)tri[2], b);
        if (!(d2 <= best2)) continue;
        if (d2 != best2) best2 = d2, root = sqrtf(d2);
        memcpy(bary, b, sizeof b), best = t;
    }
    if (best != UINT32_MAX) *distance = sqrtf(best2);
    return best;
}

/* The chains' scalp distances with the memo of repeated positions and the points grouped by
 * cells sharing their triangles (hair_scalp_distances) against each point asked: bob01's and
 * braid01's hair (982 of bob01's 5961 vertices repeat a position) and points around the scalp
 * where one in three repeats an earlier point exactly, one in three differs from one in a single
 * bit of one coordinate (or 0 against -0), to the bit. */
static void scalp_distances_memo_matches_plain(void) {
    ENSURE(body_load());
    const float scale = scalp->height / TL_HAIR_HUMAN_MM, reach = 30.0f * scale;
    const char* styles[] = {"bob01", "braid01"};
    uint32_t points = 0, repeats = 0, differ = 0, near = 0, r = 977;
    for (size_t s = 0; s <= COUNT(styles); ++s) {
        tl_hair_mesh mesh = {0};
        float* made = NULL;
        uint32_t n = 6000;
        if (s < COUNT(styles)) {
            ENSURE(style_load(styles[s], &mesh));
            n = mesh.vertex_count;
        } else {
            made = malloc(3 * sizeof(float) * n);
            ENSURE(made);
            for (uint32_t i = 0; i < n; ++i) {
                float* p = made + 3 * (size_t)i;
                uint32_t from = i > 0 ? (uint32_t)(lcg_unit(&r) * (float)i) % i : 0;
                int kind = i > 0 ? (int)(i % 3) : 0;
                if (kind > 0) memcpy(p, made + 3 * (size_t)from, 3 * sizeof(float));
                if (kind == 2) { /* one bit of one coordinate (0: its sign) */
                    int k = (int)(i / 3 % 3);
                    uint32_t bits;
                    memcpy(&bits, &p[k], sizeof bits);
                    bits ^= p[k] == 0 ? 0x80000000u : 1u;
                    memcpy(&p[k], &bits, sizeof bits);
                }
                if (kind == 0) {
                    const float* v = scalp->positions +
                                     3 * (size_t)scalp->triangles[(uint32_t)(lcg_unit(&r) * 1e6f) %
                                                                  (3 * scalp->triangle_count)];
                    for (int k = 0; k < 3; ++k)
                        p[k] = (i % 7 == 0 ? 0.0f : v[k]) + (lcg_unit(&r) - 0.5f) * 0.04f;
                }
            }
        }
        const float* pts = made ? made : mesh.positions;
        float* memo = malloc(sizeof(float) * n);
        float* plain = malloc(sizeof(float) * n);
        ENSURE(memo && plain);
        hair_scalp_distances(scalp, pts, n, reach, true, memo);
        hair_scalp_distances(scalp, pts, n, reach, false, plain);
        for (uint32_t i = 0; i < n; ++i) {
            bool seen = false;
            for (uint32_t j = 0; j < i && !seen && (made || i < 8000); ++j)
                seen = !memcmp(pts + 3 * (size_t)j, pts + 3 * (size_t)i, 3 * sizeof(float));
            repeats += seen, near += plain[i] < INFINITY;
            differ += memcmp(&memo[i], &plain[i], sizeof(float)) != 0;
        }
        points += n;
        free(memo), free(plain), free(made);
        tl_hair_mesh_free(&mesh);
    }
    printf("    %u points, %u repeat an earlier one, %u within reach, %u differ\n", points, repeats,
           near, differ);
    ENSURE(repeats > 2000 && near > 5000);
    ENSURE(differ == 0);
}

/* A list of the scalp triangles near a centre (hair_scalp_near_list) read by points within
 * its spread (hair_scalp_nearest_listed) against hair_scalp_nearest of each point: the triangle,
 * distance and barycentrics as bits. 3000 centres around the scalp (one in ten far off it), a
 * spread from 0 to twice the reach, 8 points each in random directions, a third of them on the
 * spread's sphere (rounded inward) and one at the centre; reaches of 10 and 30 mm and one so
 * large the list holds every triangle. */
static void scalp_near_list_matches_nearest(void) {
    ENSURE(body_load());
    const float scale = scalp->height / TL_HAIR_HUMAN_MM;
    const float reaches[] = {10.0f * scale, 30.0f * scale, 1e4f * scale};
    uint32_t* tris = malloc(sizeof(uint32_t) * ((size_t)scalp->triangle_count + 1));
    ENSURE(tris);
    uint32_t r = 4242, queries = 0, found = 0, differ = 0;
    uint64_t listed = 0;
    for (uint32_t c = 0; c < 3000; ++c) {
        float reach = reaches[c % COUNT(reaches)], centre[3];
        const float* v =
            scalp->positions +
            3 * (size_t)
                    scalp->triangles[(uint32_t)(lcg_unit(&r) * 1e6f) % (3 * scalp->triangle_count)];
        float off = c % 10 == 0 ? 0.3f : 0.04f;
        for (int k = 0; k < 3; ++k)
            centre[k] = v[k] + (lcg_unit(&r) - 0.5f) * off;
        float spread = lcg_unit(&r) * 2 * reach;
        uint32_t n = hair_scalp_near_list(scalp, centre, reach, spread, tris);
        listed += n;
        for (int i = 0; i < 8; ++i) {
            float dir[3], len = 0, p[3];
            for (int k = 0; k < 3; ++k)
                dir[k] = lcg_unit(&r) - 0.5f, len += dir[k] * dir[k];
            len = sqrtf(len);
            float at = i == 0 ? 0 : i % 3 == 0 ? spread * (1 - 1e-6f) : lcg_unit(&r) * spread;
            for (int k = 0; k < 3; ++k)
                p[k] = centre[k] + (len > 0 ? dir[k] / len : 0) * at;
            double d2 = 0; /* within the spread as the caller checks it */
            for (int k = 0; k < 3; ++k)
                d2 += ((double)p[k] - centre[k]) * ((double)p[k] - centre[k]);
            if (!(d2 <= (double)spread * spread)) continue;
            float da = -1, db = -1, ba[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
            uint32_t ta = hair_scalp_nearest(scalp, p, reach, &da, ba);
            uint32_t tb = hair_scalp_nearest_listed(scalp, tris, n, p, reach, &db, bb);
            queries++, found += ta != UINT32_MAX;
            differ +=
                ta != tb || memcmp(&da, &db, sizeof da) != 0 || memcmp(ba, bb, sizeof ba) != 0;
        }
    }
    printf("    %u queries (%u found), %.1f triangles a list of %u, %u differ\n", queries, found,
           (double)listed / 3000, scalp->triangle_count, differ);
    free(tris);
    ENSURE(queries > 20000 && found > 5000);
    ENSURE(differ == 0);
}

static void scalp_nearest_matches_scan(void) {
    ENSURE(body_load());
    const tl_hair_scalp* sc = scalp;
    float* sphere = malloc(4 * sizeof(float) * (sc->triangle_count + 1));
    ENSURE(sphere);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t t = 0; t < sc->triangle_count; ++t) { /* as the scalp makes them */
        const uint32_t* tri = sc->triangles + 3 * (size_t)t;
        float* c = sphere + 4 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            c[k] = (sc->positions[3 * (size_t)tri[0] + k] + sc->positions[3 * (size_t)tri[1] + k] +
                    sc->positions[3 * (size_t)tri[2] + k]) /
                   3;
            lo[k] = fminf(lo[k], c[k]), hi[k] = fmaxf(hi[k], c[k]);
        }
        float r2 = 0;
        for (int k = 0; k < 3; ++k) {
            float d2 = tl__dist2(c, sc->positions + 3 * (size_t)tri[k]);
            r2 = d2 > r2 ? d2 : r2;
        }
        c[3] = sqrtf(r2);
    }
    float scale = sc->height / TL_HAIR_HUMAN_MM;
    const float depth_mm[] = {30.0f, 10.0f, 2.0f};
    const char* styles[] = {"bob01", "braid01", "short02"};
    uint32_t queries = 0, differ = 0, found = 0, r = 4242;
    for (size_t s = 0; s <= COUNT(styles); ++s) {
        tl_hair_mesh mesh = {0};
        float* random = NULL;
        uint32_t n = 4000;
        if (s < COUNT(styles)) {
            ENSURE(style_load(styles[s], &mesh));
            n = mesh.vertex_count;
        } else { /* around the scalp's box, widened by 40 mm */
            random = malloc(3 * sizeof(float) * n);
            ENSURE(random);
            for (uint32_t i = 0; i < 3 * n; ++i) {
                int k = (int)(i % 3);
                float pad = 40.0f * scale;
                random[i] = lo[k] - pad + (hi[k] - lo[k] + 2 * pad) * lcg_unit(&r);
            }
        }
        const float* pts = random ? random : mesh.positions;
        for (uint32_t i = 0; i < n; ++i)
            for (size_t d = 0; d < COUNT(depth_mm); ++d) {
                float max = depth_mm[d] * scale, da = -1, db = -1, ba[3] = {0}, bb[3] = {0};
                uint32_t a = hair_scalp_nearest(sc, pts + 3 * (size_t)i, max, &da, ba);
                uint32_t b = scalp_scan(sc, sphere, pts + 3 * (size_t)i, max, &db, bb);
                queries++, found += a != UINT32_MAX;
                differ += a != b || memcmp(&da, &db, sizeof da) || memcmp(ba, bb, sizeof ba);
            }
        if (s < COUNT(styles)) tl_hair_mesh_free(&mesh);
        free(random);
    }
    printf("  %u queries (%u within their depth), %u differ from the scan\n", queries, found,
           differ);
    ENSURE(differ == 0 && found > 1000); /* many queries reach a triangle */
    free(sphere);
}

/* The audit's coverage through the guide points' grid and their reach equals the plain count:
 * every vertex against every attached guide's segment, the same float test; at the default
 * radius and at smaller ones (many vertices near the bound). */
static void coverage_matches_segments(void) {
    ENSURE(body_load());
    tl_hair_def def = tl_default_hair_def();
    const char* styles[] = {"bob01", "braid01", "short02"};
    const float radii_mm[] = {10.0f, 2.0f, 0.5f};
    for (size_t s = 0; s < COUNT(styles) * COUNT(radii_mm); ++s) {
        def.coverage_mm = radii_mm[s % COUNT(radii_mm)];
        tl_hair_mesh mesh;
        ENSURE(style_load(styles[s / COUNT(radii_mm)], &mesh));
        tl_hair_guides* g;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        float radius = def.coverage_mm * g->audit.scale;
        uint32_t covered = 0;
        for (uint32_t v = 0; v < mesh.vertex_count; ++v) {
            const float* q = mesh.positions + 3 * (size_t)v;
            bool hit = false;
            for (uint32_t i = 0; i < g->guide_count && !hit; ++i) {
                const tl_hair_guide* guide = &g->guides[i];
                if (guide->link == TL_HAIR_LINK_NONE) continue;
                for (uint32_t k = 1; k < guide->point_count && !hit; ++k) {
                    const float* p = g->points + 3 * ((size_t)guide->first_point + k);
                    hit = tl_mesh_segment_distance(q, p - 3, p, NULL) <= radius;
                }
            }
            covered += hit;
        }
        uint32_t audit = (uint32_t)llround(g->audit.coverage * mesh.vertex_count);
        printf("  %-8s %4.1f mm: %u of %u vertices covered (audit %u)\n",
               styles[s / COUNT(radii_mm)], (double)def.coverage_mm, covered, mesh.vertex_count,
               audit);
        ENSURE(covered == audit);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
}

/* The guide layer's closest triangle through the triangle grid is the visit's, ties included:
 * card-like strips (rows of quads sharing vertices and edges, long thin triangles, layers lying
 * over each other, one row in a random order of its triangles) queried at random points, at
 * vertices and at edge midpoints (equal distances to several triangles: the visit takes the one
 * it meets first), and off the mesh. */
static void layer_closest_matches_visit(void) {
    enum { STRIPS = 40, ALONG = 12, Q = 6000 };
    uint32_t V = STRIPS * (ALONG + 1) * 2, T = STRIPS * ALONG * 2;
    tl_hair_mesh m = {malloc(3 * sizeof(float) * V), V, malloc(3 * sizeof(uint32_t) * T), T};
    float* pts = malloc(3 * sizeof(float) * Q);
    uint32_t *a = malloc(sizeof(uint32_t) * Q), *b = malloc(sizeof(uint32_t) * Q);
    ENSURE(m.positions && m.triangles && pts && a && b);
    uint32_t r = 777, t = 0;
#define NEXT() lcg_unit(&r)
    for (uint32_t s = 0; s < STRIPS; ++s) {
        float x = 0.3f * (NEXT() - 0.5f), z = 0.3f * (NEXT() - 0.5f), w = 0.002f + 0.01f * NEXT();
        float dx = 0.02f * (NEXT() - 0.5f), dz = 0.02f * (NEXT() - 0.5f);
        for (uint32_t k = 0; k <= ALONG; ++k)
            for (uint32_t side = 0; side < 2; ++side) {
                float* p = m.positions + 3 * (size_t)(s * (ALONG + 1) * 2 + 2 * k + side);
                p[0] = x + dx * (float)k + (side ? w : 0), p[1] = -0.03f * (float)k;
                p[2] = z + dz * (float)k + (s % 3 == 0 ? 0.0005f * NEXT() : 0);
            }
        for (uint32_t k = 0; k < ALONG; ++k) {
            uint32_t v0 = s * (ALONG + 1) * 2 + 2 * k,
                     tri[6] = {v0, v0 + 1, v0 + 3, v0, v0 + 3, v0 + 2};
            memcpy(m.triangles + 3 * (size_t)t, tri, sizeof tri);
            t += 2;
        }
    }
    for (uint32_t i = 0; i + 1 < 2 * ALONG; ++i) { /* strip 0's triangles shuffled */
        uint32_t j = i + (uint32_t)(NEXT() * (float)(2 * ALONG - i)) % (2 * ALONG - i), tmp[3];
        memcpy(tmp, m.triangles + 3 * i, sizeof tmp);
        memcpy(m.triangles + 3 * i, m.triangles + 3 * j, sizeof tmp);
        memcpy(m.triangles + 3 * j, tmp, sizeof tmp);
    }
    for (uint32_t q = 0; q < Q; ++q) {
        float* p = pts + 3 * (size_t)q;
        uint32_t kind = q % 4, v = (uint32_t)(NEXT() * (float)V) % V;
        const float* a0 = m.positions + 3 * (size_t)v;
        const float* b0 = m.positions + 3 * (size_t)(v ^ 1);
        for (int k = 0; k < 3; ++k)
            p[k] = kind == 0   ? a0[k]
                   : kind == 1 ? 0.5f * (a0[k] + b0[k]) + (k == 2 ? 0.004f : 0)
                   : kind == 2 ? 0.4f * (NEXT() - 0.5f) + (k == 1 ? -0.18f : 0)
                               : a0[k] + 0.01f * (NEXT() - 0.5f);
        if (q % 16 == 2)
            p[0] += 1; /* no vertex in the cells around: the nearest vertex's triangles */
    }
#undef NEXT
    ENSURE(hair_layer_closest(&m, 0.01f, pts, Q, false, a));
    ENSURE(hair_layer_closest(&m, 0.01f, pts, Q, true, b));
    uint32_t differ = 0, found = 0;
    for (uint32_t q = 0; q < Q; ++q)
        differ += a[q] != b[q], found += (int32_t)a[q] >= 0;
    printf("  %u queries, %u on a triangle, %u differ from the visit\n", Q, found, differ);
    ENSURE(found > Q / 2 && differ == 0);
    free(m.positions), free(m.triangles), free(pts), free(a), free(b);
}

/* The guide layer's closest triangle on real styles is the visit's, ties included, and lies at
 * the least distance a plain scan of every triangle finds: queried at every guide point (the
 * layer's own queries), at vertices and at edge midpoints (distances tied between the triangles
 * around them). The triangle grid's path tests a triangle's visit key only at or below the best
 * distance: a tie skipped or a non-candidate taken differs from the visit. */
static void layer_closest_styles_match_scan(void) {
    ENSURE(body_load());
    const char* styles[] = {"bob01", "braid01", "long01"};
    tl_hair_def def = tl_default_hair_def();
    float cell = def.coverage_mm * body->skins[0].height / TL_HAIR_HUMAN_MM;
    uint32_t queries = 0, differ = 0, scanned = 0, farther = 0, ties = 0;
    for (size_t s = 0; s < COUNT(styles) && !tl_test_failed; ++s) {
        tl_hair_mesh m;
        ENSURE(style_load(styles[s], &m));
        tl_hair_guides* g;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&m, scalp, &def, &g, &err), err);
        uint32_t Q = g->point_count + 2 * m.triangle_count / 7 + 2;
        float* pts = malloc(3 * sizeof(float) * Q);
        uint32_t *a = malloc(sizeof(uint32_t) * Q), *b = malloc(sizeof(uint32_t) * Q), n = 0;
        ENSURE(pts && a && b);
        memcpy(pts, g->points, 3 * sizeof(float) * g->point_count);
        n = g->point_count;
        for (uint32_t t = 0; t < m.triangle_count; t += 7) { /* a vertex, an edge's midpoint */
            const float* p0 = m.positions + 3 * (size_t)m.triangles[3 * (size_t)t];
            const float* p1 = m.positions + 3 * (size_t)m.triangles[3 * (size_t)t + 1];
            for (int k = 0; k < 3; ++k)
                pts[3 * (size_t)n + k] = p0[k], pts[3 * (size_t)n + 3 + k] = 0.5f * (p0[k] + p1[k]);
            n += 2;
        }
        ENSURE(hair_layer_closest(&m, cell, pts, n, false, a));
        ENSURE(hair_layer_closest(&m, cell, pts, n, true, b));
        for (uint32_t q = 0; q < n; ++q) {
            differ += a[q] != b[q];
            if (q % 61 != 0 || (int32_t)b[q] < 0) continue;
            /* the plain scan: every triangle's distance */
            const float* p = pts + 3 * (size_t)q;
            float least = INFINITY, got = 0, bary[3];
            uint32_t at_least = 0;
            for (uint32_t t = 0; t < m.triangle_count; ++t) {
                const uint32_t* tri = m.triangles + 3 * (size_t)t;
                float d2 = tl_mesh_triangle_nearest(p, m.positions + 3 * (size_t)tri[0],
                                                    m.positions + 3 * (size_t)tri[1],
                                                    m.positions + 3 * (size_t)tri[2], bary);
                if (t == b[q]) got = d2;
                at_least += d2 == least;
                if (d2 < least) least = d2, at_least = 1;
            }
            scanned++, farther += got != least, ties += at_least > 1;
        }
        queries += n;
        free(pts), free(a), free(b);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&m);
    }
    printf("  %u queries, %u differ from the visit; %u scanned (%u tied), %u farther than the "
           "scan's least\n",
           queries, differ, scanned, ties, farther);
    ENSURE(queries > 50000 && scanned > 500 && ties > 50 && differ == 0 && farther == 0);
}

/* The closest triangle found with the previous query's triangle as a bound (the layer's walk
 * along a guide) is the visit's: a floor of small triangles under one large triangle whose
 * vertices lie far off, walked from beside the large one's corner (where it is a candidate and
 * the closest) in over the floor (where it is nearer than the floor but no candidate: its bound
 * must not be taken there), then walked over the floor just above and below it (the previous
 * triangle mostly the answer, ties on edges and vertices). */
static void layer_closest_hint_matches_visit(void) {
    enum { N = 40, WALK = 900 };
    uint32_t V = (N + 1) * (N + 1) + 3, T = 2 * N * N + 1;
    tl_hair_mesh m = {malloc(3 * sizeof(float) * V), V, malloc(3 * sizeof(uint32_t) * T), T};
    float* pts = malloc(3 * sizeof(float) * WALK);
    uint32_t *a = malloc(sizeof(uint32_t) * WALK), *b = malloc(sizeof(uint32_t) * WALK);
    ENSURE(m.positions && m.triangles && pts && a && b);
    const float side = 0.005f;
    for (uint32_t i = 0; i <= N; ++i)
        for (uint32_t j = 0; j <= N; ++j) {
            float* p = m.positions + 3 * (size_t)(i * (N + 1) + j);
            p[0] = side * (float)i, p[1] = 0, p[2] = side * (float)j;
        }
    uint32_t t = 0;
    for (uint32_t i = 0; i < N; ++i)
        for (uint32_t j = 0; j < N; ++j, t += 2) {
            uint32_t v0 = i * (N + 1) + j,
                     tri[6] = {v0, v0 + N + 1, v0 + N + 2, v0, v0 + N + 2, v0 + 1};
            memcpy(m.triangles + 3 * (size_t)t, tri, sizeof tri);
        }
    /* the large one's corner 1.2 cm off the floor's: a candidate near that corner only */
    const float big[9] = {-0.012f, 0.006f, -0.012f, 0.45f, 0.006f, -0.012f, -0.012f, 0.006f, 0.45f};
    memcpy(m.positions + 3 * (size_t)(V - 3), big, sizeof big);
    uint32_t tri[3] = {V - 3, V - 2, V - 1};
    memcpy(m.triangles + 3 * (size_t)t, tri, sizeof tri);
    uint32_t r = 9191, n = 0;
    for (; n < WALK / 3; ++n) { /* walks from beside the corner in over the floor, 4 mm up */
        uint32_t step = n % 15;
        float* p = pts + 3 * (size_t)n;
        if (step == 0)
            p[0] = -0.01f + 0.004f * lcg_unit(&r), p[2] = -0.01f + 0.004f * lcg_unit(&r);
        else
            p[0] = p[-3] + 0.004f, p[2] = p[-1] + 0.003f + 0.002f * lcg_unit(&r);
        p[1] = 0.004f;
    }
    for (float at[3] = {0.1f, 0, 0.1f}; n < WALK; ++n) { /* over the floor, small steps */
        for (int k = 0; k < 3; k += 2)
            at[k] = fminf(fmaxf(at[k] + 0.004f * (lcg_unit(&r) - 0.5f), 0.01f), 0.19f);
        float* p = pts + 3 * (size_t)n;
        p[0] = n % 5 == 0 ? side * roundf(at[0] / side) : at[0], p[2] = at[2];
        p[1] = n % 7 == 0 ? 0 : 0.003f * (lcg_unit(&r) - 0.5f);
    }
    ENSURE(hair_layer_closest(&m, 0.01f, pts, WALK, false, a));
    ENSURE(hair_layer_closest(&m, 0.01f, pts, WALK, true, b));
    uint32_t differ = 0, on_big = 0, floor_after_big = 0;
    for (uint32_t q = 0; q < WALK; ++q) {
        differ += a[q] != b[q], on_big += a[q] == T - 1;
        floor_after_big += q > 0 && a[q - 1] == T - 1 && (int32_t)a[q] >= 0 && a[q] < T - 1;
    }
    printf("  %u queries, %u on the large triangle, %u onto the floor from it, %u differ from the "
           "visit\n",
           WALK, on_big, floor_after_big, differ);
    ENSURE(on_big > 10 && floor_after_big > 10 && differ == 0);
    free(m.positions), free(m.triangles), free(pts), free(a), free(b);
}

/* hair_stitched_count (the hair primitives' stitched share) gives the count measuring to the
 * nearest point gives, with points placed around the tolerance in every direction. */
static void stitched_count_matches_nearest(void) {
    enum { N = 4000, M = 3000 };
    float *pts = malloc(3 * sizeof(float) * N), *mine = malloc(3 * sizeof(float) * M);
    uint32_t* nearest = malloc(sizeof(uint32_t) * M);
    ENSURE(pts && mine && nearest);
    uint32_t r = 4242;
    float tol = 1e-3f;
    for (uint32_t i = 0; i < N; ++i)
        for (int k = 0; k < 3; ++k)
            pts[3 * i + k] = (k == 1 ? 1.5f : 0) + 0.05f * (lcg_unit(&r) - 0.5f);
    for (uint32_t i = 0; i < M; ++i) {
        const float* o = pts + 3 * (size_t)((uint32_t)(lcg_unit(&r) * N) % N);
        float d[3], len = 0;
        for (int k = 0; k < 3; ++k)
            d[k] = lcg_unit(&r) - 0.5f, len += d[k] * d[k];
        float at = i % 5 == 0 ? 0 : tol * (0.98f + 0.04f * lcg_unit(&r)) / sqrtf(len);
        if (i % 7 == 0) at = tol * (0.5f + 1.5f * lcg_unit(&r)) / sqrtf(len);
        for (int k = 0; k < 3; ++k)
            mine[3 * i + k] = o[k] + at * d[k];
    }
    mine[0] = NAN; /* never within */
    uint32_t on = 0, expected = 0;
    ENSURE(hair_stitched_count(mine, M, pts, N, tol, &on));
    ENSURE(tl_mesh_nearest_points(nearest, mine, M, 12, pts, N, 12) != TL_MESH_OUT_OF_MEMORY);
    for (uint32_t i = 0; i < M; ++i) {
        const float *a = mine + 3 * (size_t)i, *b = pts + 3 * (size_t)nearest[i];
        float d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]);
        expected += d2 < tol * tol;
    }
    printf("  %u of %u within the tolerance, the grid counts %u\n", expected, M, on);
    ENSURE(on == expected && expected > M / 4 && expected < M - M / 4);
    free(pts), free(mine), free(nearest);
}

/* tl_hair_find_primitives' one grid of a whole skin, each primitive skipping its own vertices,
 * counts what hair_stitched_count of that primitive against a copy of the other vertices (the
 * plain path, as each primitive was counted before) counts: every primitive of every skin of
 * the shared files, at the stitch tolerance (1e-4 of the height) and at 3e-3 (many stitched). */
static void stitch_grid_skip_matches_copy(void) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    ENSURE(n >= 10);
    uint32_t prims = 0, differ = 0, stitched = 0;
    for (size_t f = 0; f < n && !tl_test_failed; ++f) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        if (tl_gltf_load(paths[f], &doc, &err) != TL_OK) continue;
        if (tl_scene_create(doc, &scene, &err) != TL_OK) {
            tl_gltf_destroy(doc);
            continue;
        }
        for (uint32_t k = 0; k < scene->skin_count; ++k) {
            const tl_scene_skin* s = &scene->skins[k];
            float* others = malloc(3 * sizeof(float) * (s->vertex_count + 1));
            ENSURE(others);
            for (int t = 0; t < 2; ++t) {
                float tol = (t == 0 ? 1e-4f : 3e-3f) * s->height;
                hair_stitch_grid grid;
                if (!(tol > 0)) continue; /* (no height: neither path can tell) */
                ENSURE_MSG(hair_stitch_grid_build(&grid, s->rest_positions, s->vertex_count, tol),
                           "%s skin %u", paths[f], k);
                for (uint32_t p = 0; p < s->primitive_count; ++p) {
                    const tl_scene_primitive* pr = &s->primitives[p];
                    uint32_t m = 0, plain = 0, fast = 0;
                    for (uint32_t v = 0; v < s->vertex_count; ++v)
                        if (v < pr->first_vertex || v >= pr->first_vertex + pr->vertex_count)
                            memcpy(others + 3 * m++, s->rest_positions + 3 * (size_t)v,
                                   3 * sizeof(float));
                    const float* mine = s->rest_positions + 3 * (size_t)pr->first_vertex;
                    ENSURE(hair_stitched_count(mine, pr->vertex_count, others, m, tol, &plain));
                    ENSURE(hair_stitch_grid_count(&grid, mine, pr->vertex_count, pr->first_vertex,
                                                  pr->first_vertex + pr->vertex_count, &fast));
                    differ += plain != fast, stitched += plain > 0, ++prims;
                }
                hair_stitch_grid_free(&grid);
            }
            free(others);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    printf("  %u primitive counts (%u with stitched vertices), %u differ\n", prims, stitched,
           differ);
    ENSURE(differ == 0 && prims > 100 && stitched > 20);
}

/* The weights' nearest bone through the chains' boxes is the plain scan's (chain, bone and
 * the parameter along it, ties to the last): on two styles' chains at three reaches, queried at
 * every hair vertex and around every bone at the reach's edge (just within and beyond it,
 * beside the middle and past both ends, and from each joint along each axis), where a box grown
 * too little would skip a bone the scan takes. */
static void chain_nearest_boxes_match_scan(void) {
    ENSURE(body_load());
    const char* styles[] = {"braid01", "bob01"};
    const float bind_mm[] = {0, 4.0f, 25.0f}; /* 0: the chains' own */
    uint32_t queries = 0, within = 0, edge_within = 0, differ = 0, r = 4711;
    for (size_t s = 0; s < COUNT(styles) && !tl_test_failed; ++s) {
        tl_hair_mesh mesh;
        ENSURE(style_load(styles[s], &mesh));
        tl_hair_def def = tl_default_hair_def();
        tl_hair_chain_def cdef = tl_default_hair_chain_def();
        tl_hair_guides* g;
        tl_hair_chains* c;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &c, &err), err);
        ENSURE(c->chain_count > 5);
        float scale = scalp->height / TL_HAIR_HUMAN_MM;
        float* boxes = malloc(sizeof(float) * (hair_chain_boxes_size(c) + 1));
        ENSURE(boxes);
        for (size_t b = 0; b < COUNT(bind_mm); ++b) {
            float bind = (bind_mm[b] > 0 ? bind_mm[b] : cdef.bind_mm) * scale;
            hair_chain_boxes(c, bind, boxes);
            uint32_t n = mesh.vertex_count;
            for (uint32_t ch = 0; ch < c->chain_count; ++ch)
                n += 18 * c->chains[ch].bone_count;
            float* pts = malloc(3 * sizeof(float) * n);
            ENSURE(pts);
            memcpy(pts, mesh.positions, 3 * sizeof(float) * mesh.vertex_count);
            float* q = pts + 3 * (size_t)mesh.vertex_count;
            for (uint32_t ch = 0; ch < c->chain_count; ++ch)
                for (uint32_t k = 0; k < c->chains[ch].bone_count; ++k) {
                    const float *a = c->chains[ch].joints + 3 * k, *e = a + 3;
                    float ab[3], side[3], len = 0, sl = 0;
                    for (int i = 0; i < 3; ++i)
                        ab[i] = e[i] - a[i], len += ab[i] * ab[i];
                    len = sqrtf(len);
                    if (!(len > 0)) len = 1;    /* a zero-length bone: its joint's points only */
                    for (int i = 0; i < 3; ++i) /* a direction across the bone */
                        side[i] = lcg_unit(&r) - 0.5f;
                    float along = 0;
                    for (int i = 0; i < 3; ++i)
                        along += side[i] * ab[i] / (len * len);
                    for (int i = 0; i < 3; ++i)
                        side[i] -= along * ab[i], sl += side[i] * side[i];
                    sl = sqrtf(sl);
                    if (!(sl > 0)) sl = 1;
                    for (int m = 0; m < 6; ++m, q += 3) {
                        float f = m % 2 ? 1.0005f : 0.9995f; /* within, beyond */
                        float at = m < 2 ? 0.5f : m < 4 ? -f * bind / len : 1 + f * bind / len;
                        float off = m < 2 ? f * bind / sl : 0;
                        for (int i = 0; i < 3; ++i)
                            q[i] = a[i] + at * ab[i] + off * side[i];
                    }
                    for (int m = 0; m < 12; ++m, q += 3) { /* just within, along each axis */
                        const float* j = m < 6 ? a : e;
                        memcpy(q, j, 3 * sizeof(float));
                        q[m % 3] += (m % 6 < 3 ? 0.9995f : -0.9995f) * bind;
                    }
                }
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t b0, b1;
                float t0, t1;
                uint32_t c0 = hair_chain_nearest(c, NULL, pts + 3 * (size_t)i, bind, &b0, &t0);
                uint32_t c1 = hair_chain_nearest(c, boxes, pts + 3 * (size_t)i, bind, &b1, &t1);
                differ += c0 != c1 || (c0 != UINT32_MAX && (b0 != b1 || t0 != t1));
                within += c0 != UINT32_MAX,
                    edge_within += c0 != UINT32_MAX && i >= mesh.vertex_count;
            }
            queries += n;
            free(pts);
        }
        free(boxes);
        tl_hair_chains_destroy(c);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
    printf("  %u queries, %u within reach (%u of them at a bone's edge), %u differ from the "
           "scan\n",
           queries, within, edge_within, differ);
    ENSURE(within > 10000 && edge_within > 1000 && differ == 0);
}

/* The guides' fast paths give the plain paths' guides: the same links, reasons and points. The
 * merge's lengths along an attached guide kept per pass (against summed on each visit): braid01,
 * bob01, long01 whole and long01 cut at the shoulders (pieces that attach only through links,
 * several passes), at the default max_chain_mm and shorter ones, where the lengths decide which
 * links are capped. The second trace's check through a grid over the guides' points (against
 * every guide): those and bob02, ponytail01, short04 (hair the first trace's curves leave), at
 * the default coverage radius and a smaller one (more hair left unheld). */
static void guides_fast_match_plain(void) {
    ENSURE(body_load());
    const char* styles[] = {"braid01", "bob01",      "long01", "long01",
                            "bob02",   "ponytail01", "short04"};
    const float max_chain_mm[] = {1200.0f, 600.0f, 350.0f, 200.0f};
    const float coverage_mm[] = {0, 0.5f}; /* 0: the default */
    uint32_t runs = 0, links = 0, capped = 0, differ = 0;
    for (size_t s = 0; s < COUNT(styles) && !tl_test_failed; ++s) {
        tl_hair_mesh mesh;
        ENSURE(style_load(styles[s], &mesh));
        if (s == 3) split_below(&mesh, 1.30f), drop_copies(&mesh, 0.004f);
        for (size_t c = 0; c < COUNT(max_chain_mm) * COUNT(coverage_mm); ++c) {
            if (s >= 4 && c % COUNT(max_chain_mm)) continue; /* the trace's styles: the default */
            tl_hair_def def = tl_default_hair_def();
            def.max_chain_mm = max_chain_mm[c % COUNT(max_chain_mm)];
            if (coverage_mm[c / COUNT(max_chain_mm)] > 0)
                def.coverage_mm = coverage_mm[c / COUNT(max_chain_mm)];
            tl_hair_guides *kept, *summed;
            tl_error err;
            ENSURE_OK(hair_guides_build(&mesh, scalp, &def, true, &kept, &err), err);
            ENSURE_OK(hair_guides_build(&mesh, scalp, &def, false, &summed, &err), err);
            bool sized = kept->guide_count == summed->guide_count &&
                         kept->point_count == summed->point_count;
            differ += !sized || memcmp(kept->points, summed->points,
                                       3 * sizeof(float) * kept->point_count) != 0;
            for (uint32_t i = 0; sized && i < kept->guide_count; ++i) {
                const tl_hair_guide *a = &kept->guides[i], *b = &summed->guides[i];
                differ += a->link != b->link || a->parent != b->parent ||
                          a->parent_point != b->parent_point || a->reason != b->reason ||
                          a->first_point != b->first_point || a->point_count != b->point_count;
            }
            links += summed->audit.merged_links;
            capped += summed->audit.rejected[TL_HAIR_REJECT_CAPPED];
            runs++;
            tl_hair_guides_destroy(kept);
            tl_hair_guides_destroy(summed);
        }
        tl_hair_mesh_free(&mesh);
    }
    printf("  %u runs, %u links made, %u guides capped, %u differ from the plain paths\n", runs,
           links, capped, differ);
    ENSURE(links > 100 && capped > 10 && differ == 0);
}

/* The adapter's cover through the grid's cells is the plain scan's: for each bone set, every
 * vertex off the cap against every bone, the same float test. Bone sets along the guides of
 * three styles and random ones through the hair, at the default reach and smaller ones (many
 * vertices near the bound), a random half of the vertices off the cap, some sets skipped. */
static int cover_cmp(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

static void cover_matches_scan(void) {
    ENSURE(body_load());
    enum { BONES = 6, J = BONES + 1, RANDOM = 200 };
    const char* styles[] = {"bob01", "braid01", "short02"};
    const float bind_mm[] = {40.0f, 10.0f, 2.0f};
    tl_hair_def def = tl_default_hair_def();
    uint32_t r = 99, sets = 0, taken = 0, differ = 0;
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_hair_mesh mesh;
        ENSURE(style_load(styles[s], &mesh));
        tl_hair_guides* g;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        uint32_t V = mesh.vertex_count, count = g->guide_count + RANDOM;
        float scale = g->audit.scale, *joints = malloc(3 * sizeof(float) * J * count);
        uint8_t *skip = malloc(count), *off_cap = malloc(V);
        uint32_t *off = malloc(sizeof(uint32_t) * (count + 1)), *items = NULL;
        ENSURE(joints && skip && off_cap && off);
        for (uint32_t v = 0; v < V; ++v)
            off_cap[v] = lcg_unit(&r) < 0.5f;
        for (uint32_t i = 0; i < count; ++i) {
            float* j = joints + 3 * J * (size_t)i;
            skip[i] = lcg_unit(&r) < 0.1f;
            if (i < g->guide_count) { /* along the guide's points */
                const tl_hair_guide* gd = &g->guides[i];
                for (uint32_t k = 0; k < J; ++k) {
                    uint32_t at = gd->point_count ? k * (gd->point_count - 1) / BONES : 0;
                    memcpy(j + 3 * k, g->points + 3 * ((size_t)gd->first_point + at),
                           3 * sizeof(float));
                }
                continue;
            }
            memcpy(j, mesh.positions + 3 * (size_t)(lcg_unit(&r) * (float)(V - 1)),
                   3 * sizeof(float));
            for (uint32_t k = 1; k < J; ++k)
                for (int c = 0; c < 3; ++c)
                    j[3 * k + c] = j[3 * (k - 1) + c] + 80.0f * scale * (lcg_unit(&r) - 0.5f);
        }
        for (size_t b = 0; b < COUNT(bind_mm); ++b) {
            float bind = bind_mm[b] * scale;
            ENSURE(hair_cover_build(mesh.positions, V, off_cap, joints, skip, count, BONES, bind,
                                    off, &items));
            for (uint32_t i = 0; i < count; ++i) {
                uint32_t n = off[i + 1] - off[i], want = 0;
                qsort(items + off[i], n, sizeof(uint32_t), cover_cmp);
                for (uint32_t v = 0, at = off[i]; v < V; ++v) {
                    bool hit = false;
                    for (uint32_t k = 0; k < BONES && off_cap[v] && !skip[i] && !hit; ++k) {
                        const float* j = joints + 3 * (J * (size_t)i + k);
                        hit = tl_mesh_segment_distance(mesh.positions + 3 * (size_t)v, j, j + 3,
                                                       NULL) <= bind;
                    }
                    want += hit;
                    differ += hit != (at < off[i + 1] && items[at] == v); /* missed or extra */
                    at += at < off[i + 1] && items[at] == v;
                }
                differ += want != n; /* a vertex listed twice */
                sets++, taken += n;
            }
            free(items);
        }
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
        free(joints), free(skip), free(off_cap), free(off);
    }
    printf("  %u bone sets, %u vertices taken, %u differ from the scan\n", sets, taken, differ);
    ENSURE(differ == 0 && taken > 10000);
}

/* The nape's lying-on distance read from the chains' scalp distances is the one it asks for:
 * each hair vertex's distance kept by the chains equals hair_scalp_nearest's at the cap as the
 * nape reads it (bit for bit, INFINITY beyond), and the median over every vertex and over a
 * random third of them is the same with those distances as without. */
static void nape_known_matches_query(void) {
    ENSURE(body_load());
    const char* styles[] = {"bob01", "braid01", "short02", "long01"};
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    uint32_t r = 7, vertices = 0, within = 0, differ = 0;
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_hair_mesh mesh;
        ENSURE(style_load(styles[s], &mesh));
        tl_hair_guides* g;
        tl_hair_chains* cs;
        tl_error err;
        ENSURE_OK(tl_hair_guides_create(&mesh, scalp, &def, &g, &err), err);
        ENSURE_OK(tl_hair_chains_create(&mesh, scalp, g, &cdef, &cs, &err), err);
        float reach, cap = cdef.cap_mm * (scalp->height / TL_HAIR_HUMAN_MM);
        const float* known = hair_chains_scalp(cs, &reach);
        ENSURE(reach == cap);
        uint32_t V = mesh.vertex_count, *ids = malloc(sizeof(uint32_t) * V), some = 0;
        ENSURE(ids);
        for (uint32_t v = 0; v < V; ++v) {
            float d = INFINITY, b[3];
            if (hair_scalp_nearest(scalp, mesh.positions + 3 * (size_t)v, cap, &d, b) == UINT32_MAX)
                d = INFINITY;
            differ += memcmp(&d, known + v, sizeof d) != 0;
            within += d < INFINITY, vertices++;
        }
        for (int pass = 0; pass < 2; ++pass) {
            uint32_t n = 0;
            for (uint32_t v = 0; v < V; ++v)
                if (pass == 0 || lcg_unit(&r) < 0.33f) ids[n++] = v;
            float a = hair_lying_on(scalp, mesh.positions, ids, n, cap, known);
            float b = hair_lying_on(scalp, mesh.positions, ids, n, cap, NULL);
            printf("  %-8s %u vertices: lying on %.6f (known) %.6f (asked)\n", styles[s], n,
                   (double)a, (double)b);
            differ += memcmp(&a, &b, sizeof a) != 0;
            some += a > 0;
        }
        ENSURE(some == 2);
        free(ids);
        tl_hair_chains_destroy(cs);
        tl_hair_guides_destroy(g);
        tl_hair_mesh_free(&mesh);
    }
    printf("  %u vertices (%u within the cap), %u differ\n", vertices, within, differ);
    ENSURE(differ == 0 && within > 1000);
}

/* The new weights of parts [first, first + parts) of rig, copied out into joints/weights (4 per
 * vertex, the parts one after another), or back in (in). */
static void parts_weights(tl_rig_analysis* rig, uint32_t first, uint32_t parts, uint32_t* joints,
                          float* weights, bool in) {
    for (uint32_t i = 0, at = 0; i < parts; at += rig->parts[first + i].vertex_count, ++i) {
        tl_rig_part* p = &rig->parts[first + i];
        size_t n = 4 * (size_t)p->vertex_count;
        if (in)
            memcpy(p->new_joints, joints + 4 * (size_t)at, n * sizeof *joints),
                memcpy(p->new_weights, weights + 4 * (size_t)at, n * sizeof *weights);
        else
            memcpy(joints + 4 * (size_t)at, p->new_joints, n * sizeof *joints),
                memcpy(weights + 4 * (size_t)at, p->new_weights, n * sizeof *weights);
    }
}

/* The nape's narrowed search (hair_nape_bind's hint: the triangles near the hair filed, each
 * query from the previous one's triangle within its distance) gives the plain visit's weights:
 * the chain parts of four styles' analyses (planned without it), set back before each bind, at
 * the default cap and a narrower and a wider one (other lying-on distances). */
static void nape_narrow_matches_plain(void) {
    const char* styles[] = {"bob01", "braid01", "long01", "bob02"};
    const float cap_of[] = {1.0f, 0.6f, 1.6f};
    uint32_t rows = 0, moved = 0, differ = 0;
    for (size_t s = 0; s < COUNT(styles) && !tl_test_failed; ++s) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_rig_analysis* rig;
        tl_error err;
        tl_rig_def def = tl_default_rig_def();
        tl_hair_chain_def unbound = tl_default_hair_chain_def();
        unbound.nape = false; /* the planned weights before the nape's bind */
        def.hair = &unbound;
        ENSURE_OK(case_analyze(styles[s], &def, &doc, &scene, &rig, &err), err);
        uint32_t first = UINT32_MAX, parts = 0, n = 0;
        for (uint32_t i = 0; i < rig->part_count; ++i)
            if (rig->parts[i].cls == TL_RIG_CLASS_HAIR &&
                rig->parts[i].action == TL_RIG_ACTION_CHAIN) {
                first = first == UINT32_MAX ? i : first, parts++;
                n += rig->parts[i].vertex_count;
            }
        ENSURE(parts > 0 && first + parts == rig->part_count);
        uint32_t skin = rig->parts[first].skin;
        uint8_t* flags = malloc(scene->skins[skin].primitive_count + 1);
        uint32_t* joints[3];
        float* weights[3];
        for (int k = 0; k < 3; ++k)
            joints[k] = malloc(4 * sizeof(uint32_t) * n),
            weights[k] = malloc(4 * sizeof(float) * n);
        ENSURE(flags && joints[2] && weights[2]);
        tl_hair_find_primitives(scene, skin, flags);
        tl_hair_def hdef = tl_default_hair_def();
        tl_hair_chain_def cdef = tl_default_hair_chain_def();
        tl_hair_scalp* sc;
        ENSURE_OK(tl_hair_scalp_find(scene, skin, &hdef, flags, &sc, &err), err);
        parts_weights(rig, first, parts, joints[0], weights[0], false);
        for (size_t c = 0; c < COUNT(cap_of); ++c)
            for (int narrow = 0; narrow < 2; ++narrow) {
                parts_weights(rig, first, parts, joints[0], weights[0], true);
                float cap = cap_of[c] * cdef.cap_mm * (sc->height / TL_HAIR_HUMAN_MM);
                ENSURE(hair_nape_bind(rig, scene, skin, sc, first, parts, cap, NULL, narrow));
                parts_weights(rig, first, parts, joints[1 + narrow], weights[1 + narrow], false);
                if (!narrow) continue;
                for (uint32_t v = 0; v < n; ++v) {
                    rows++;
                    moved += memcmp(weights[1] + 4 * v, weights[0] + 4 * v, 4 * sizeof(float)) != 0;
                    differ += memcmp(joints[1] + 4 * v, joints[2] + 4 * v, 4 * sizeof(uint32_t)) ||
                              memcmp(weights[1] + 4 * v, weights[2] + 4 * v, 4 * sizeof(float));
                }
            }
        for (int k = 0; k < 3; ++k)
            free(joints[k]), free(weights[k]);
        free(flags);
        tl_hair_scalp_destroy(sc);
        tl_rig_analysis_destroy(rig);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    printf("  %u rows, %u moved by the nape, %u differ from the plain visit\n", rows, moved,
           differ);
    ENSURE(moved > 1000 && differ == 0);
}

/* Each chain's body floor as the player sets it (found once per skin) is the one written out
 * here for that chain: the lowest rest vertex along up among the skin's vertices in no chain's
 * lock (play_skin_locks over every chain), the skin's floor when there is none. */
static void player_floor_matches_locks(void) {
    const char* styles[] = {"bob01", "braid01"};
    for (size_t s = 0; s < COUNT(styles); ++s) {
        tl_gltf* doc;
        tl_scene* scene;
        ENSURE(rig_style(styles[s], &doc, &scene));
        tl_play_chain chains[64];
        uint32_t count, differ = 0;
        tl_error err;
        ENSURE_OK(tl_play_chains_find(scene, chains, 64, &count, &err), err);
        ENSURE(count > 1);
        tl_player_def pdef = tl_default_player_def();
        tl_player* player;
        ENSURE_OK(tl_player_create(scene, chains, count, &pdef, &player, &err), err);
        for (uint32_t i = 0; i < count; ++i) {
            const tl_scene_skin* sk = &scene->skins[chains[i].skin];
            int32_t* lock = malloc(sizeof(int32_t) * (sk->vertex_count + 1));
            uint32_t* joint = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
            ENSURE(lock && joint &&
                   play_skin_locks(scene, chains[i].skin, chains, count, lock, joint, NULL));
            float floor = INFINITY;
            for (uint32_t v = 0; v < sk->vertex_count; ++v)
                if (lock[v] < 0)
                    floor = fminf(floor, tl__dot(sk->rest_positions + 3 * (size_t)v, sk->up));
            floor = isfinite(floor) ? floor : sk->floor;
            float set = tl_player_chain(player, i)->floor_height;
            differ += memcmp(&floor, &set, sizeof floor) != 0;
            if (i == 0) printf("  %-8s %u chains, floor %.6f\n", styles[s], count, (double)floor);
            free(lock), free(joint);
        }
        printf("  %-8s %u of %u chains' floors differ\n", styles[s], differ, count);
        ENSURE(differ == 0);
        tl_player_destroy(player);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
}

/* What the sheet tests share: braid01 rigged, and `n` players whose chains the test moves as the
 * player would, each with a sheet of its own put at rest. */
typedef struct sheet_rig {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain descs[64];
    uint32_t count, n;
    tl_player* players[3];
    play_sheet* sheets[3];
    tl_chain* chains[3][64];
} sheet_rig;

static void sheet_rig_create(sheet_rig* r, uint32_t n) {
    tl_error err;
    memset(r, 0, sizeof *r);
    r->n = n;
    ENSURE(n <= 3 && rig_style("braid01", &r->doc, &r->scene));
    ENSURE_OK(tl_play_chains_find(r->scene, r->descs, 64, &r->count, &err), err);
    tl_player_def pdef = tl_default_player_def();
    tl_chain_input rest[64];
    for (uint32_t i = 0; i < r->count; ++i)
        rest[i] = tl_default_chain_input();
    for (uint32_t k = 0; k < n; ++k) {
        ENSURE_OK(tl_player_create(r->scene, r->descs, r->count, &pdef, &r->players[k], &err), err);
        for (uint32_t i = 0; i < r->count; ++i)
            r->chains[k][i] = (tl_chain*)tl_player_chain(r->players[k], i);
        ENSURE(play_sheet_create(r->scene, r->descs, r->count, NULL, NULL, &r->sheets[k]) &&
               r->sheets[k]);
    }
    for (uint32_t k = 0; k < n; ++k)
        play_sheet_rest(r->sheets[k], r->chains[k], rest);
}

static void sheet_rig_destroy(sheet_rig* r) {
    for (uint32_t k = 0; k < r->n; ++k)
        play_sheet_destroy(r->sheets[k]), tl_player_destroy(r->players[k]);
    tl_scene_destroy(r->scene);
    tl_gltf_destroy(r->doc);
}

/* The particle coordinates of player a's chains that differ from player b's: in their bits
 * (`bits`, a fast path against the plain one) or in value (what a hold moved). */
static uint32_t sheet_rig_differ(const sheet_rig* r, int a, int b, bool bits) {
    uint32_t differ = 0;
    for (uint32_t i = 0; i < r->count; ++i) {
        const float *x = tl_chain_particle_positions(r->chains[a][i]),
                    *y = tl_chain_particle_positions(r->chains[b][i]);
        for (uint32_t k = 0; k < 3 * r->descs[i].bone_count; ++k)
            differ += bits ? memcmp(x + k, y + k, sizeof *x) != 0 : x[k] != y[k];
    }
    return differ;
}

/* The sheet's hold reads the attachment of the frame it holds: a sheet that held a frame under
 * one attachment rotation holds the next, under another, as a sheet that never held does (its
 * ties' rest vectors carried by that frame's rotation, not an earlier one's). Three players'
 * chains of braid01 (24 chains, 2739 ties); chains' particles compared bit for bit. */
static void sheet_hold_reads_its_frame(void) {
    sheet_rig r;
    sheet_rig_create(&r, 3);
    tl_chain_input a[64], b[64];
    play_sheet_body bodies[64] = {{0}};
    const float qa[4] = {0, 0.2588190f, 0, 0.9659258f}, qb[4] = {0.1305262f, 0, 0, 0.9914449f};
    for (uint32_t i = 0; i < r.count; ++i) {
        a[i] = b[i] = tl_default_chain_input();
        memcpy(a[i].start.rotation, qa, sizeof qa), memcpy(b[i].start.rotation, qb, sizeof qb);
    }
    play_sheet_hold(r.sheets[0], r.chains[0], a, bodies); /* held under a, then under b */
    play_sheet_hold(r.sheets[0], r.chains[0], b, bodies);
    play_sheet_hold(r.sheets[1], r.chains[1], a, bodies); /* the same under a; b by a fresh sheet */
    play_sheet_hold(r.sheets[2], r.chains[1], b, bodies);
    uint32_t particles = 0, differ = sheet_rig_differ(&r, 0, 1, true),
             moved = sheet_rig_differ(&r, 0, 2, false);
    for (uint32_t i = 0; i < r.count; ++i)
        particles += r.descs[i].bone_count;
    printf("  %u chains, %u particles: %u coordinates moved by the holds, %u differ\n", r.count,
           particles, moved, differ);
    ENSURE(moved > 100 && differ == 0);
    sheet_rig_destroy(&r);
}

/* The chain choice's fresh counts kept as sets are taken equal the plain recount: for every set,
 * its entries whose vertex a set taken so far lists. Random sets over a few vertices (entries
 * repeated within a set, empty sets, sets taken twice), after each take and after a reset. */
static void cover_tally_matches_count(void) {
    enum { V = 900, SETS = 300, TAKES = 60 };
    uint32_t r = 31, *off = malloc(sizeof(uint32_t) * (SETS + 1)), *items = NULL, n = 0, cap = 0;
    uint8_t* taken = calloc(V, 1);
    ENSURE(off && taken);
    for (uint32_t i = 0; i < SETS; ++i) {
        off[i] = n;
        uint32_t len = lcg_unit(&r) < 0.1f ? 0 : (uint32_t)(lcg_unit(&r) * 200), at = 0;
        for (uint32_t k = 0; k < len; ++k) {
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                items = realloc(items, sizeof(uint32_t) * cap);
                ENSURE(items);
            }
            /* mostly a run of neighbours (as a lock's hair), sometimes one listed again */
            at = k > 0 && lcg_unit(&r) < 0.05f ? at : (uint32_t)(lcg_unit(&r) * V);
            items[n++] = at;
        }
    }
    off[SETS] = n;
    hair_cover_tally t;
    ENSURE(hair_cover_tally_init(&t, off, items, SETS, V));
    uint32_t checks = 0, differ = 0, fresh_sum = 0;
    for (int round = 0; round < 2; ++round) {
        memset(taken, 0, V);
        if (round) hair_cover_tally_reset(&t);
        for (uint32_t step = 0; step <= TAKES; ++step) {
            for (uint32_t i = 0; i < SETS; ++i) {
                uint32_t fresh = 0;
                for (uint32_t k = off[i]; k < off[i + 1]; ++k)
                    fresh += !taken[items[k]];
                differ += fresh != t.fresh[i], checks++, fresh_sum += fresh;
            }
            if (step == TAKES) break;
            uint32_t set = (uint32_t)(lcg_unit(&r) * SETS) % SETS;
            hair_cover_tally_take(&t, set);
            for (uint32_t k = off[set]; k < off[set + 1]; ++k)
                taken[items[k]] = 1;
        }
    }
    printf("  %u entries in %u sets, %u counts checked (sum %u), %u differ\n", n, SETS, checks,
           fresh_sum, differ);
    ENSURE(differ == 0 && n > 10000);
    hair_cover_tally_free(&t);
    free(off), free(items), free(taken);
}

/* The cover's squared bound is the largest float whose sqrtf is at most bind: binds at random
 * scales (and 0, the smallest, the largest, infinity, NaN, negatives), the bound's root within
 * bind and the next float's beyond it. */
static void cover_bind2_is_root_bound(void) {
    uint32_t r = 7, checked = 0, differ = 0, stepped = 0;
    float fixed[] = {0, 1e-45f, 1e-38f, 1, 3.4e38f, INFINITY, NAN, -1, -0.0f};
    for (uint32_t i = 0; i < 200000 + COUNT(fixed); ++i) {
        float bind =
            i < COUNT(fixed) ? fixed[i] : (lcg_unit(&r) + 0.5f) * powf(10, 40 * lcg_unit(&r) - 25);
        float x = hair_cover_bind2(bind), up = nextafterf(x, INFINITY);
        bool none = !(bind >= 0);
        differ +=
            none ? x != -INFINITY : !(sqrtf(x) <= bind) || (x < INFINITY && sqrtf(up) <= bind);
        stepped += !none && x != bind * bind;
        checked++;
    }
    printf("  %u binds, %u not their float square, %u differ\n", checked, stepped, differ);
    ENSURE(differ == 0 && stepped > 1000);
}

/* The sheet's ties sort (base/order.h, a radix sort of key rows) gives the order a plain stable
 * insertion sort by the same comparison gives (unsigned keys by `<`, float keys by the floats'
 * own `<`): rows like the ties' (small indices with repeats, UINT32_MAX, high bytes set; floats
 * with -0 and +0, negatives, ties; keys whose bytes differ in one bit) at several widths and
 * counts, odd and even. */
static bool order_row_less(const uint32_t* a, const uint32_t* b, const float* fa, const float* fb,
                           uint32_t width, uint32_t floats) {
    for (uint32_t k = 0; k < width; ++k) {
        bool fl = k >= width - floats;
        if (fl ? fa[k] < fb[k] : a[k] < b[k]) return true;
        if (fl ? fb[k] < fa[k] : b[k] < a[k]) return false;
    }
    return false;
}

static void order_rows_matches_stable_sort(void) {
    enum { MAX = 3000, W = 8 };
    static uint32_t keys[MAX * W], plain[MAX], order[MAX], scratch[MAX];
    static float vals[MAX * W];
    const float pick[] = {-0.0f, 0.0f, 1.0f, 0.5f, -0.25f, 1e-30f, -3e7f, 0.75f, 2.5f};
    /* keys whose bytes differ in one bit alone (the sort skips a byte no two rows differ in) */
    const uint32_t bit[] = {0, 1, 0x80, 0x8000, 0x800000, 0x80000000u, 0x80808080u};
    const uint32_t widths[] = {1, 3, 8, 8, 2}, counts[] = {0, 1, 2, 3000, 2999};
    uint32_t r = 11, differ = 0, checked = 0;
    for (int c = 0; c < 5; ++c) {
        uint32_t width = widths[c], n = counts[c], floats = width > 2 ? 3 : 0;
        for (uint32_t i = 0; i < n * width; ++i) {
            uint32_t k = i % width;
            if (k >= width - floats) {
                vals[i] = pick[(uint32_t)(lcg_unit(&r) * 9) % 9];
                keys[i] = tl_order_float_key(vals[i]);
            } else {
                float u = lcg_unit(&r);
                keys[i] = c == 4     ? bit[(uint32_t)(lcg_unit(&r) * 7) % 7]
                          : u < 0.1f ? UINT32_MAX
                          : u < 0.2f ? (uint32_t)(lcg_unit(&r) * 4) << 20
                                     : (uint32_t)(lcg_unit(&r) * (k == 0 ? 5 : 3));
                vals[i] = 0;
            }
        }
        for (uint32_t i = 0; i < n; ++i) { /* the plain path: stable insertion */
            uint32_t j = i;
            for (; j > 0 &&
                   order_row_less(keys + (size_t)i * width, keys + (size_t)plain[j - 1] * width,
                                  vals + (size_t)i * width, vals + (size_t)plain[j - 1] * width,
                                  width, floats);
                 --j)
                plain[j] = plain[j - 1];
            plain[j] = i;
        }
        tl_order_rows(keys, width, n, order, scratch);
        for (uint32_t i = 0; i < n; ++i)
            differ += order[i] != plain[i], ++checked;
    }
    printf("  %u positions checked, %u differ\n", checked, differ);
    ENSURE(differ == 0 && checked == 6002);
}

/* The sheet's hold that keeps each link's direction until its chain moves gives what finding
 * every direction anew gives, bit for bit: two players' chains of braid01 held by two sheets,
 * one keeping directions, one not, through five frames under five attachment rotations. */
static void sheet_memo_matches_fresh(void) {
    sheet_rig r;
    sheet_rig_create(&r, 3); /* the third player's chains are never held */
    play_sheet_memo(r.sheets[1], false);
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}};
    for (uint32_t i = 0; i < r.count; ++i)
        in[i] = tl_default_chain_input();
    uint32_t differ = 0, moved = 0, seed = 5;
    for (int frame = 0; frame < 5; ++frame) {
        float q[4] = {0.3f * (lcg_unit(&seed) - 0.5f), 0.3f * (lcg_unit(&seed) - 0.5f),
                      0.3f * (lcg_unit(&seed) - 0.5f), 1};
        for (uint32_t i = 0; i < r.count; ++i)
            memcpy(in[i].start.rotation, q, sizeof q);
        for (int k = 0; k < 2; ++k)
            play_sheet_hold(r.sheets[k], r.chains[k], in, bodies);
        differ += sheet_rig_differ(&r, 0, 1, true);
    }
    moved = sheet_rig_differ(&r, 0, 2, false);
    printf("  %u chains, 5 frames: %u coordinates moved by the holds, %u differ\n", r.count, moved,
           differ);
    ENSURE(moved > 100 && differ == 0);
    sheet_rig_destroy(&r);
}

/* The hold reads only the colliders near a point (each collider's sphere, each particle's near
 * list) and gives what reading every collider gives, bit for bit: braid01's chains held by two
 * sheets against the same colliders (spheres, capsules and turned ellipsoids of 1-5 cm around
 * the locks, grown per link or left out for some), one with the early outs, one without,
 * through eight frames under eight attachment rotations. A third set held with no colliders
 * ends elsewhere: the colliders held sides back. */
static void sheet_near_matches_all(void) {
    enum { COLS = 20 };
    sheet_rig r;
    sheet_rig_create(&r, 3);
    play_sheet_memo(r.sheets[1], false);
    static tl_collider cols[COLS];
    static float growth[64][COLS * TL_CHAIN_MAX_BONES];
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}}, none[64] = {{0}};
    uint32_t seed = 17;
    for (int k = 0; k < COLS; ++k) { /* around a particle of a lock, 1-5 cm */
        uint32_t i = (uint32_t)(lcg_unit(&seed) * r.count) % r.count;
        uint32_t j = (uint32_t)(lcg_unit(&seed) * r.descs[i].bone_count) % r.descs[i].bone_count;
        const float* x = tl_chain_particle_positions(r.chains[0][i]) + 3 * j;
        tl_collider* c = &cols[k];
        memset(c, 0, sizeof *c);
        for (int a = 0; a < 3; ++a)
            c->a[a] = x[a] + 0.04f * (lcg_unit(&seed) - 0.5f);
        float size = 0.01f + 0.04f * lcg_unit(&seed);
        c->shape = k % 3 == 0   ? TL_COLLIDER_SPHERE
                   : k % 3 == 1 ? TL_COLLIDER_CAPSULE
                                : TL_COLLIDER_ELLIPSOID;
        c->radius = size;
        float u[3] = {lcg_unit(&seed) - 0.5f, lcg_unit(&seed) - 0.5f, lcg_unit(&seed) - 0.5f};
        float n = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        float v[3] = {-u[1], u[0], 0}, nv = sqrtf(u[0] * u[0] + u[1] * u[1]);
        float w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                      u[0] * v[1] - u[1] * v[0]};
        float nw = sqrtf(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        for (int a = 0; a < 3; ++a) {
            c->b[a] = c->a[a] + 2 * size * u[a] / n;
            c->axes[0][a] = 1.8f * size * u[a] / n, c->axes[1][a] = size * v[a] / nv;
            c->axes[2][a] = 0.6f * size * w[a] / nw;
        }
    }
    for (uint32_t i = 0; i < r.count; ++i) {
        for (uint32_t k = 0; k < COLS * r.descs[i].bone_count; ++k) {
            float g = lcg_unit(&seed);
            growth[i][k] = g < 0.1f ? -INFINITY : 0.01f * (g - 0.4f);
        }
        bodies[i] = (play_sheet_body){cols, COLS, i % 4 == 3 ? NULL : growth[i]};
        in[i] = tl_default_chain_input();
    }
    uint32_t differ = 0, kept = 0;
    for (int frame = 0; frame < 8; ++frame) {
        float q[4] = {0.4f * (lcg_unit(&seed) - 0.5f), 0.4f * (lcg_unit(&seed) - 0.5f),
                      0.4f * (lcg_unit(&seed) - 0.5f), 1};
        for (uint32_t i = 0; i < r.count; ++i)
            memcpy(in[i].start.rotation, q, sizeof q);
        for (int k = 0; k < 3; ++k)
            play_sheet_hold(r.sheets[k], r.chains[k], in, k < 2 ? bodies : none);
        differ += sheet_rig_differ(&r, 0, 1, true);
    }
    kept = sheet_rig_differ(&r, 0, 2, false);
    printf("  %u chains, %d colliders, 8 frames: %u coordinates held back by them, %u differ\n",
           r.count, COLS, kept, differ);
    ENSURE(kept > 10 && differ == 0);
    sheet_rig_destroy(&r);
}

/* The hold stops after a sweep that moved nothing (its next sweeps would read the same state)
 * and passes over a tie that lay within its allowance while its chains and attachment are as
 * they were, and gives what running every sweep over every tie gives, bit for bit: two
 * players' chains of braid01, one sheet with both, one without, through still frames (the rest
 * pose twice, a rotation held again) and frames that move ties (a new rotation each, the first
 * on chains the frame before left as they were). */
static void sheet_sweeps_stop_when_still(void) {
    sheet_rig r;
    sheet_rig_create(&r, 3); /* the third player's chains are never held */
    play_sheet_memo(r.sheets[1], false);
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}};
    for (uint32_t i = 0; i < r.count; ++i)
        in[i] = tl_default_chain_input();
    uint32_t differ = 0, moved = 0, stopped = 0, full = 0, skipped = 0, seed = 9;
    float q[4] = {0, 0, 0, 1};
    for (int frame = 0; frame < 12; ++frame) {
        if (frame % 3 == 2) /* else the last rotation again, or the rest at frames 0 and 1 */
            for (int c = 0; c < 3; ++c)
                q[c] = 0.3f * (lcg_unit(&seed) - 0.5f);
        for (uint32_t i = 0; i < r.count; ++i)
            memcpy(in[i].start.rotation, q, sizeof q);
        for (int k = 0; k < 2; ++k)
            play_sheet_hold(r.sheets[k], r.chains[k], in, bodies);
        uint32_t sweeps = play_sheet_sweeps(r.sheets[0]);
        stopped += sweeps < play_sheet_sweeps(r.sheets[1]), full += sweeps == 4;
        skipped += play_sheet_skipped(r.sheets[0]);
        differ += sheet_rig_differ(&r, 0, 1, true);
    }
    moved = sheet_rig_differ(&r, 0, 2, false);
    printf("  12 frames: %u stopped early, %u ran every sweep, %u ties passed over; %u coordinates "
           "moved, %u differ\n",
           stopped, full, skipped, moved, differ);
    ENSURE(stopped > 0 && full > 0 && skipped > 0 && moved > 100 && differ == 0);
    sheet_rig_destroy(&r);
}

/* The same through a settle: both chain sets stepped from the rest under a still attachment and
 * held each frame, one sheet passing over ties, one not; as locks come to rest some chains stay
 * the same from frame to frame while their neighbours still move. Twice one lock in the middle
 * is pushed 3 cm aside, so that its ties pull its still neighbours. */
static void sheet_skips_match_in_settle(void) {
    sheet_rig r;
    sheet_rig_create(&r, 2);
    play_sheet_memo(r.sheets[1], false);
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}};
    tl_pose* pose = tl_pose_create(r.scene); /* the stored pose: the attachments at rest */
    ENSURE(pose);
    tl_pose_set_stored(pose, r.scene);
    for (uint32_t i = 0; i < r.count; ++i) {
        uint32_t node = r.scene->skins[r.descs[i].skin].joints[r.descs[i].attach_joint].node;
        in[i] = tl_default_chain_input();
        in[i].start = in[i].target = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)node);
        for (int k = 0; k < 2; ++k)
            tl_chain_reset(r.chains[k][i], &in[i].start);
    }
    for (int k = 0; k < 2; ++k)
        play_sheet_rest(r.sheets[k], r.chains[k], in);
    tl_pose_destroy(pose);
    uint32_t differ = 0, partly = 0, skipped = 0, ties = 0, mid = r.count / 2;
    float push[3 * TL_CHAIN_MAX_BONES] = {0};
    for (uint32_t b = 0; b < r.descs[mid].bone_count; ++b)
        push[3 * b] = 0.03f;
    for (int frame = 0; frame < 120; ++frame) {
        for (int k = 0; k < 2; ++k) {
            for (uint32_t i = 0; i < r.count; ++i)
                tl_chain_step(r.chains[k][i], &in[i], 1.0f / 60);
            if (frame == 50 || frame == 80) tl_chain_particles_move(r.chains[k][mid], push);
            play_sheet_hold(r.sheets[k], r.chains[k], in, bodies);
        }
        uint32_t n = play_sheet_skipped(r.sheets[0]);
        skipped += n;
        ties = n > ties ? n : ties;
        partly += n > 0 && play_sheet_sweeps(r.sheets[0]) == 1 && n < ties;
        differ += sheet_rig_differ(&r, 0, 1, true);
    }
    printf("  120 frames: %u ties passed over (%u frames some but not all), %u differ\n", skipped,
           partly, differ);
    ENSURE(skipped > 0 && partly > 0 && differ == 0);
    sheet_rig_destroy(&r);
}

/* The hold passes over a tie while the particles it reads are where they were (not while its
 * whole chains are): braid01's chains at rest held by two sheets, one passing over ties, one
 * not; a still frame; then one lock's tip moved 0.1 mm (the ties reading the tip held again),
 * a still frame, then the whole lock moved 0.1 mm (every tie of the lock held again): fewer
 * ties held for the tip than for the lock, and the same particles to the bit. */
static void sheet_skips_per_particle(void) {
    sheet_rig r;
    sheet_rig_create(&r, 2);
    play_sheet_memo(r.sheets[1], false);
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}};
    for (uint32_t i = 0; i < r.count; ++i)
        in[i] = tl_default_chain_input();
    uint32_t mid = r.count / 2, bones = r.descs[mid].bone_count, ties = 0, held[5] = {0};
    uint32_t differ = 0;
    ENSURE(bones > 2);
    ties = play_sheet_tie_count(r.sheets[0]);
    for (int frame = 0; frame < 5; ++frame) {
        float push[3 * TL_CHAIN_MAX_BONES] = {0};
        for (uint32_t b = frame == 2 ? bones - 1 : 0; b < bones && (frame == 2 || frame == 4); ++b)
            push[3 * b] = 1e-4f;
        for (int k = 0; k < 2; ++k) {
            if (frame == 2 || frame == 4) tl_chain_particles_move(r.chains[k][mid], push);
            play_sheet_hold(r.sheets[k], r.chains[k], in, bodies);
        }
        held[frame] = ties - play_sheet_skipped(r.sheets[0]);
        differ += sheet_rig_differ(&r, 0, 1, true);
    }
    printf("  %u ties; held at rest %u, still %u, tip moved %u, still %u, lock moved %u; %u "
           "differ\n",
           ties, held[0], held[1], held[2], held[3], held[4], differ);
    ENSURE(held[1] == 0 && held[3] == 0 && held[2] > 0 && held[2] < held[4] && differ == 0);
    sheet_rig_destroy(&r);
}

/* The plan's shared composition (play_node_plan_compose) gives each collider joint the doubles
 * play_node_world gives it alone: braid01's chains through HeadTurn, its pose moved 100 m out
 * at every other frame, every entry of every collider's matrix compared bit for bit. */
static void node_plan_matches_world(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32];
    uint32_t count, clip, compared = 0, differ = 0;
    ENSURE(style_chains("braid01", "HeadTurn", &doc, &scene, chains, &count, &clip));
    tl_pose* pose = tl_pose_create(scene);
    ENSURE(pose);
    const tl_scene_skin* sk = &scene->skins[chains[0].skin];
    const float zero[3] = {0, 0, 0}, far[3] = {0, 0, 96};
    float jump[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 1};
    double world[PLAY_PLAN_NODES][16], alone[16];
    for (int frame = 0; frame < 12; ++frame) {
        tl_pose_sample(pose, scene, clip, frame / 12.0f * scene->clips[clip].duration);
        if (frame % 2) tl_pose_move_skin(pose, scene, chains[0].skin, jump);
        for (uint32_t i = 0; i < count; ++i) {
            tl_body_collider kept[TL_BODY_COLLIDERS_MAX];
            float growth[TL_BODY_COLLIDERS_MAX * TL_CHAIN_MAX_BONES];
            uint32_t n = play_chain_colliders(scene, &chains[i], sk->colliders, sk->collider_count,
                                              kept, growth);
            play_node_plan plan;
            ENSURE(play_node_plan_build(scene, chains[i].skin, kept, n, &plan) && plan.count > 0);
            play_node_plan_compose(pose, &plan, world);
            for (uint32_t k = 0; k < n; ++k) {
                ENSURE(play_node_world(scene, pose, sk->joints[kept[k].joint].node,
                                       frame % 2 ? far : zero, alone));
                for (int e = 0; e < 16; ++e) {
                    double w =
                        world[plan.slot[k]][e] - (e >= 12 && e < 15 && frame % 2 ? far[e - 12] : 0);
                    differ += memcmp(&w, &alone[e], sizeof w) != 0, compared++;
                }
            }
        }
    }
    printf("  %u chains, 12 frames: %u matrix entries, %u differ\n", count, compared, differ);
    tl_pose_destroy(pose);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(compared > 10000 && differ == 0);
}

/* A player poses a chain's body colliders again only when one of their joints moved: braid01's
 * chains played by two players, one posing every frame, through the stored pose (still),
 * HeadTurn (the neck and head move, the torso's colliders stay) and HeadTurn held at one time
 * (still again); every chain's rotations equal bit for bit. */
static void player_pose_memo_matches_every(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_play_chain chains[32];
    uint32_t count, clip;
    ENSURE(style_chains("braid01", "HeadTurn", &doc, &scene, chains, &count, &clip));
    tl_player_def def = tl_default_player_def();
    tl_player* players[2];
    tl_pose* pose = tl_pose_create(scene);
    tl_error err;
    ENSURE(pose);
    for (int k = 0; k < 2; ++k)
        ENSURE_OK(tl_player_create(scene, chains, count, &def, &players[k], &err), err);
    play_player_pose_memo(players[1], false);
    uint32_t differ = 0, checked = 0;
    float duration = scene->clips[clip].duration;
    for (int frame = 0; frame < 90; ++frame) {
        for (int k = 0; k < 2; ++k) {
            if (frame < 20)
                tl_pose_set_stored(pose, scene);
            else
                tl_pose_sample(pose, scene, clip, fminf(frame - 20, 40) / 60.0f * duration);
            tl_player_step_pose(players[k], pose, 1.0f / 60);
        }
        for (uint32_t i = 0; i < count; ++i) {
            const float* x = tl_chain_local_rotations(tl_player_chain(players[0], i));
            const float* y = tl_chain_local_rotations(tl_player_chain(players[1], i));
            for (uint32_t b = 0; b < 4 * chains[i].bone_count; ++b)
                differ += memcmp(x + b, y + b, sizeof *x) != 0, ++checked;
        }
    }
    printf("  %u chains, 90 frames: %u rotation components, %u differ\n", count, checked, differ);
    for (int k = 0; k < 2; ++k)
        tl_player_destroy(players[k]);
    tl_pose_destroy(pose);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(differ == 0 && checked > 10000);
}

/* The sheet built on the skin's locks its player found for the floor ties what a sheet finding
 * them itself ties: braid01's chains held under one rotation by both, bit for bit. */
static void sheet_known_locks_match(void) {
    sheet_rig r;
    sheet_rig_create(&r, 3); /* the third player's chains are never held */
    const tl_scene_skin* sk = &r.scene->skins[r.descs[0].skin];
    int32_t* lock = malloc(sizeof(int32_t) * (sk->vertex_count + 1));
    uint32_t* joint = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    ENSURE(lock && joint && r.scene->skin_count == 1);
    ENSURE(play_skin_locks(r.scene, 0, r.descs, r.count, lock, joint, NULL));
    const int32_t* locks[1] = {lock};
    const uint32_t* joints[1] = {joint};
    play_sheet* known = NULL;
    ENSURE(play_sheet_create(r.scene, r.descs, r.count, locks, joints, &known) && known);
    tl_chain_input in[64];
    play_sheet_body bodies[64] = {{0}};
    for (uint32_t i = 0; i < r.count; ++i)
        in[i] = tl_default_chain_input();
    play_sheet_rest(known, r.chains[0], in);
    const float q[4] = {0.1305262f, 0.2588190f, 0, 0.9571155f};
    for (uint32_t i = 0; i < r.count; ++i)
        memcpy(in[i].start.rotation, q, sizeof q);
    play_sheet_hold(known, r.chains[0], in, bodies);
    play_sheet_hold(r.sheets[1], r.chains[1], in, bodies);
    uint32_t differ = sheet_rig_differ(&r, 0, 1, true), moved = sheet_rig_differ(&r, 0, 2, false);
    printf("  %u chains: %u coordinates moved by the holds, %u differ\n", r.count, moved, differ);
    play_sheet_destroy(known);
    free(lock), free(joint);
    sheet_rig_destroy(&r);
    ENSURE(differ == 0 && moved > 100);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"scalp_is_top_and_back", scalp_is_top_and_back},
        {"roots_attach_to_scalp", roots_attach_to_scalp},
        {"excluded_vertices_reported", excluded_vertices_reported},
        {"bindings_rebuild_from_file", bindings_rebuild_from_file},
        {"fragments_merge", fragments_merge},
        {"distant_fragments_rejected", distant_fragments_rejected},
        {"ten_style_audit", ten_style_audit},
        {"generalisation_set", generalisation_set},
        {"variants_chains", variants_chains},
        {"godette_spring_hair", godette_spring_hair},
        {"hair_audit_command", hair_audit_command},
        {"long_style_chains", long_style_chains},
        {"smoothed_weights", smoothed_weights},
        {"seam_weights_blend", seam_weights_blend},
        {"seam_guard_gives_back", seam_guard_gives_back},
        {"seam_blend_keeps_chains", seam_blend_keeps_chains},
        {"head_ramp_spreads", head_ramp_spreads},
        {"unowned_hair_filled", unowned_hair_filled},
        {"chains_cover_hair", chains_cover_hair},
        {"short_styles_rigid", short_styles_rigid},
        {"ponytail_follows_truth", ponytail_follows_truth},
        {"long01_rigged_plays", long01_rigged_plays},
        {"sheet_holds_neighbours", sheet_holds_neighbours},
        {"sheet_limit_holds_seams", sheet_limit_holds_seams},
        {"head_ties_hold_cap_edges", head_ties_hold_cap_edges},
        {"player_inputs_from_locks", player_inputs_from_locks},
        {"locks_seam_motion", locks_seam_motion},
        {"rig_hair_def_stored", rig_hair_def_stored},
        {"rig_hair_play_stored", rig_hair_play_stored},
        {"styles_play", styles_play},
        {"styles_rest", styles_rest},
        {"styles_shake_rest", styles_shake_rest, true},
        {"styles_shake_rest_trace", styles_shake_rest_trace, true},
        {"styles_shake_sleep", styles_shake_sleep, true},
        {"styles_sleep_hold", styles_sleep_hold, true},
        {"styles_rest_trace", styles_rest_trace, true},
        {"nape_hair_follows_neck", nape_hair_follows_neck},
        {"nape_tears_bounded", nape_tears_bounded},
        {"nape_measured", nape_measured, true},
        {"nape_off_shared", nape_off_shared, true},
        {"variants_play", variants_play},
        {"links_keep_colliders", links_keep_colliders},
        {"stress_rest_no_penetration", stress_rest_no_penetration},
        {"stress_hair_penetration", stress_hair_penetration},
        {"stress_hair_link_length", stress_hair_link_length},
        {"stress_hair_cut", stress_hair_cut},
        {"guide_layer_follows_hair", guide_layer_follows_hair},
        {"roots_follow_scalp", roots_follow_scalp},
        {"rig_reports_hair", rig_reports_hair},
        {"rig_twice_keeps_hair", rig_twice_keeps_hair},
        {"fit_onto_other_heads", fit_onto_other_heads},
        {"hair_command", hair_command},
        {"obj_hostile", obj_hostile},
        {"grid_boxes_cover_near_items", grid_boxes_cover_near_items},
        {"layer_closest_matches_visit", layer_closest_matches_visit},
        {"layer_closest_styles_match_scan", layer_closest_styles_match_scan},
        {"layer_closest_hint_matches_visit", layer_closest_hint_matches_visit},
        {"chain_nearest_boxes_match_scan", chain_nearest_boxes_match_scan},
        {"guides_fast_match_plain", guides_fast_match_plain},
        {"coverage_matches_segments", coverage_matches_segments},
        {"scalp_nearest_matches_scan", scalp_nearest_matches_scan},
        {"scalp_distances_memo_matches_plain", scalp_distances_memo_matches_plain},
        {"scalp_near_list_matches_nearest", scalp_near_list_matches_nearest},
        {"stitched_count_matches_nearest", stitched_count_matches_nearest},
        {"stitch_grid_skip_matches_copy", stitch_grid_skip_matches_copy},
        {"cover_matches_scan", cover_matches_scan},
        {"cover_bind2_is_root_bound", cover_bind2_is_root_bound},
        {"nape_known_matches_query", nape_known_matches_query},
        {"nape_narrow_matches_plain", nape_narrow_matches_plain},
        {"player_floor_matches_locks", player_floor_matches_locks},
        {"sheet_hold_reads_its_frame", sheet_hold_reads_its_frame},
        {"cover_tally_matches_count", cover_tally_matches_count},
        {"sheet_memo_matches_fresh", sheet_memo_matches_fresh},
        {"sheet_near_matches_all", sheet_near_matches_all},
        {"sheet_sweeps_stop_when_still", sheet_sweeps_stop_when_still},
        {"sheet_skips_match_in_settle", sheet_skips_match_in_settle},
        {"sheet_skips_per_particle", sheet_skips_per_particle},
        {"player_pose_memo_matches_every", player_pose_memo_matches_every},
        {"node_plan_matches_world", node_plan_matches_world},
        {"sheet_known_locks_match", sheet_known_locks_match},
        {"order_rows_matches_stable_sort", order_rows_matches_stable_sort},
    };
    int rc = tl_test_main(argc, argv, cases, COUNT(cases));
    tl_hair_scalp_destroy(scalp);
    tl_scene_destroy(body);
    tl_gltf_destroy(body_doc);
    return rc;
}
