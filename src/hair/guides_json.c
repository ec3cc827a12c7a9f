/* The guides file (docs/hair.md): guide points, root bindings, links and the audit, written and
 * read back, so a binding rebuilds exactly from what was saved. */
#include "internal.h"

#include <tailor/gltf_json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY_R(x)                                                                                   \
    do {                                                                                           \
        tl_result try_r_ = (x);                                                                    \
        if (try_r_ != TL_OK) return try_r_;                                                        \
    } while (0)

/* Floats as the shortest decimal that reads back to the same float. */
static json_t* real(float v) {
    char text[32];
    snprintf(text, sizeof text, "%.9g", (double)v);
    return json_real(strtod(text, NULL));
}

static json_t* vec(const float* v, int n) {
    json_t* a = json_array();
    for (int k = 0; k < n; ++k)
        json_array_append_new(a, real(v[k]));
    return a;
}

static json_t* audit_object(const tl_hair_audit* au) {
    json_t* rejected = json_object();
    for (int r = 1; r < TL_HAIR_REJECT_COUNT; ++r)
        json_object_set_new(rejected, tl_hair_reject_string((tl_hair_reject)r),
                            json_integer(au->rejected[r]));
    return json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:f, s:I, s:I, s:I, s:f}", "vertices",
                     (json_int_t)au->vertices, "candidates", (json_int_t)au->candidates, "attached",
                     (json_int_t)au->attached, "rejected", rejected, "merged_links",
                     (json_int_t)au->merged_links, "mid_guide_links",
                     (json_int_t)au->mid_guide_links, "coverage", au->coverage, "components",
                     (json_int_t)au->components, "components_attached",
                     (json_int_t)au->components_attached, "excluded_vertices",
                     (json_int_t)au->excluded_vertices, "scale", (double)au->scale);
}

char* tl_hair_guides_to_json(const tl_hair_guides* guides, const char* name) {
    assert(guides);
    json_t* list = json_array();
    for (uint32_t g = 0; g < guides->guide_count; ++g) {
        const tl_hair_guide* guide = &guides->guides[g];
        json_t* points = json_array();
        for (uint32_t k = 0; k < guide->point_count; ++k)
            json_array_append_new(points,
                                  vec(guides->points + 3 * (size_t)(guide->first_point + k), 3));
        json_t* o =
            json_pack("{s:o, s:I, s:s, s:s}", "points", points, "component",
                      (json_int_t)guide->component, "link", tl_hair_link_string(guide->link),
                      "reason", tl_hair_reject_string(guide->reason));
        if (guide->link == TL_HAIR_LINK_ROOT) {
            json_t* tri = json_array();
            for (int k = 0; k < 3; ++k)
                json_array_append_new(tri, json_integer(guide->binding.vertices[k]));
            json_object_set_new(o, "root",
                                json_pack("{s:o, s:o, s:o, s:o}", "triangle", tri, "barycentric",
                                          vec(guide->binding.barycentric, 3), "offset",
                                          vec(guide->binding.offset, 3), "distance",
                                          real(guide->root_distance)));
        } else if (guide->parent != TL_NONE) {
            json_object_set_new(o, "parent", json_integer(guide->parent));
            json_object_set_new(o, "parent_point", json_integer(guide->parent_point));
        }
        json_array_append_new(list, o);
    }
    json_t* doc = json_pack("{s:s, s:o, s:o}", "file", name ? name : "", "guides", list, "audit",
                            audit_object(&guides->audit));
    char* text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct reader {
    const char* name;
    tl_error* err;
    char where[96];
} reader;

static tl_result bad(reader* rd, const char* what) {
    return tl_error_set(rd->err, TL_ERROR_INVALID, "%s: %s: %s", rd->name, rd->where, what);
}

static tl_result floats(reader* rd, json_t* a, float* out, size_t n, const char* key) {
    size_t len = strlen(rd->where);
    snprintf(rd->where + len, sizeof rd->where - len, "/%s", key);
    if (!json_is_array(a) || json_array_size(a) != n)
        return bad(rd, "expected an array of numbers");
    for (size_t k = 0; k < n; ++k) {
        json_t* v = json_array_get(a, k);
        double d = json_number_value(v);
        if (!json_is_number(v) || !isfinite(d) || fabs(d) > TL_SCENE_MAX_MAGNITUDE)
            return bad(rd, "expected finite numbers");
        out[k] = (float)d;
    }
    rd->where[len] = 0;
    return TL_OK;
}

static tl_result link_of(reader* rd, json_t* o, tl_hair_guide* g) {
    const char* link = json_string_value(json_object_get(o, "link"));
    const char* reason = json_string_value(json_object_get(o, "reason"));
    g->link = TL_HAIR_LINK_NONE, g->reason = TL_HAIR_REJECT_COUNT;
    for (int k = 0; link && k <= TL_HAIR_LINK_MID; ++k)
        if (!strcmp(link, tl_hair_link_string((tl_hair_link)k))) g->link = (tl_hair_link)k;
    for (int k = 0; reason && k < TL_HAIR_REJECT_COUNT; ++k)
        if (!strcmp(reason, tl_hair_reject_string((tl_hair_reject)k)))
            g->reason = (tl_hair_reject)k;
    if (!link || (g->link == TL_HAIR_LINK_NONE && strcmp(link, "none")))
        return bad(rd, "link must be \"none\", \"root\", \"tip\" or \"mid\"");
    if (g->reason == TL_HAIR_REJECT_COUNT ||
        (g->reason == TL_HAIR_REJECT_NONE) != (g->link != TL_HAIR_LINK_NONE))
        return bad(rd, "reason must be \"none\" for attached guides, a reason otherwise");
    return TL_OK;
}

static tl_result guide_of(reader* rd, json_t* o, hair_store* s, uint32_t index,
                          uint32_t skin_vertex_count) {
    json_t* points = json_object_get(o, "points");
    size_t n = json_array_size(points);
    if (!json_is_array(points) || n < 2 || n > 65536) return bad(rd, "points: expected 2 or more");
    float* p = malloc(3 * sizeof(float) * n);
    if (!p) return tl_error_set(rd->err, TL_ERROR_MEMORY, "out of memory");
    tl_result r = TL_OK;
    for (size_t k = 0; r == TL_OK && k < n; ++k) {
        char key[32];
        snprintf(key, sizeof key, "points/%zu", k);
        r = floats(rd, json_array_get(points, k), p + 3 * k, 3, key);
    }
    json_int_t component = json_integer_value(json_object_get(o, "component"));
    if (r == TL_OK && (component < 0 || component > UINT32_MAX - 1)) r = bad(rd, "component");
    if (r == TL_OK && !hair_store_guide(s, p, (uint32_t)n, (uint32_t)component))
        r = tl_error_set(rd->err, TL_ERROR_MEMORY, "out of memory");
    free(p);
    if (r != TL_OK) return r;
    tl_hair_guide* g = &s->guides[s->guide_count - 1];
    TRY_R(link_of(rd, o, g));
    if (g->link == TL_HAIR_LINK_ROOT) {
        json_t* root = json_object_get(o, "root");
        json_t* tri = json_object_get(root, "triangle");
        if (!json_is_array(tri) || json_array_size(tri) != 3) return bad(rd, "root/triangle");
        for (int k = 0; k < 3; ++k) {
            json_t* v = json_array_get(tri, k);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= (json_int_t)skin_vertex_count)
                return bad(rd, "root/triangle: expected vertex indices of the skin");
            g->binding.vertices[k] = (uint32_t)json_integer_value(v);
        }
        TRY_R(floats(rd, json_object_get(root, "barycentric"), g->binding.barycentric, 3,
                     "root/barycentric"));
        TRY_R(floats(rd, json_object_get(root, "offset"), g->binding.offset, 3, "root/offset"));
        json_t* d = json_object_get(root, "distance");
        if (!json_is_number(d) || !(json_number_value(d) >= 0)) return bad(rd, "root/distance");
        g->root_distance = (float)json_number_value(d);
    } else if (g->link != TL_HAIR_LINK_NONE) {
        json_t* parent = json_object_get(o, "parent");
        json_t* point = json_object_get(o, "parent_point");
        if (!json_is_integer(parent) || !json_is_integer(point) || json_integer_value(parent) < 0 ||
            json_integer_value(parent) == (json_int_t)index ||
            json_integer_value(parent) > INT32_MAX || json_integer_value(point) < 0 ||
            json_integer_value(point) > UINT32_MAX - 1)
            return bad(rd, "parent, parent_point: expected another guide and its point");
        g->parent = (int32_t)json_integer_value(parent);
        g->parent_point = (uint32_t)json_integer_value(point);
    }
    return TL_OK;
}

static uint32_t count_of(json_t* audit, const char* key) {
    json_int_t v = json_integer_value(json_object_get(audit, key));
    return v < 0 || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static void audit_read(json_t* a, const hair_store* s, tl_hair_audit* au) {
    au->vertices = count_of(a, "vertices");
    au->components = count_of(a, "components");
    au->components_attached = count_of(a, "components_attached");
    au->excluded_vertices = count_of(a, "excluded_vertices");
    au->coverage = json_number_value(json_object_get(a, "coverage"));
    au->scale = (float)json_number_value(json_object_get(a, "scale"));
    au->candidates = s->guide_count; /* the counts of the guides themselves */
    for (uint32_t g = 0; g < s->guide_count; ++g) {
        const tl_hair_guide* guide = &s->guides[g];
        if (guide->reason != TL_HAIR_REJECT_NONE) au->rejected[guide->reason]++;
        if (guide->link == TL_HAIR_LINK_NONE) continue;
        au->attached++;
        au->merged_links += guide->link != TL_HAIR_LINK_ROOT;
        au->mid_guide_links += guide->link == TL_HAIR_LINK_MID;
    }
}

tl_result tl_hair_guides_from_json(const char* text, const char* name, uint32_t skin_vertex_count,
                                   tl_hair_guides** out, tl_error* err) {
    assert(text && out);
    *out = NULL;
    json_error_t jerr;
    json_t* doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        return tl_error_set(err, TL_ERROR_FORMAT, "%s: byte %d: %s", name, jerr.position,
                            jerr.text);
    reader rd = {name, err, ""};
    json_t* list = json_object_get(doc, "guides");
    tl_result r = TL_OK;
    tl_hair_guides* guides = calloc(1, sizeof *guides);
    hair_store* s = calloc(1, sizeof *s);
    if (!guides || !s) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK && !json_is_array(list)) {
        snprintf(rd.where, sizeof rd.where, "/guides");
        r = bad(&rd, "expected an array");
    }
    for (size_t g = 0; r == TL_OK && g < json_array_size(list); ++g) {
        snprintf(rd.where, sizeof rd.where, "/guides/%zu", g);
        json_t* o = json_array_get(list, g);
        r = json_is_object(o) ? guide_of(&rd, o, s, (uint32_t)g, skin_vertex_count)
                              : bad(&rd, "expected an object");
    }
    for (uint32_t g = 0; r == TL_OK && g < s->guide_count; ++g) {
        const tl_hair_guide* guide = &s->guides[g];
        if (guide->parent == TL_NONE) continue;
        snprintf(rd.where, sizeof rd.where, "/guides/%u/parent", g);
        if ((uint32_t)guide->parent >= s->guide_count ||
            guide->parent_point >= s->guides[guide->parent].point_count)
            r = bad(&rd, "no such guide, or past its points");
    }
    if (r == TL_OK) {
        audit_read(json_object_get(doc, "audit"), s, &guides->audit);
        guides->internal = s;
        guides->guides = s->guides, guides->guide_count = s->guide_count;
        guides->points = s->points, guides->point_count = s->point_count;
        *out = guides;
    } else {
        if (s) free(s->guides), free(s->points);
        free(s);
        free(guides);
    }
    json_decref(doc);
    return r;
}
