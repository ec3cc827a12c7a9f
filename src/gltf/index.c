/* Validation and the typed index: every index, offset and length the rest of tailor trusts is
 * checked here once, against the real sizes of the loaded buffers. */
#include "internal.h"
#include "base/try.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ctx {
    tl_gltf* doc;
    tl_gltf_index* index;
    tl_error* err;
    const char* label;
} ctx;

static void* index_alloc(ctx* c, size_t count, size_t size) {
    tl_gltf_index* ix = c->index;
    if (count == 0) count = 1;
    if (ix->block_count == ix->block_capacity) {
        size_t cap = ix->block_capacity ? ix->block_capacity * 2 : 16;
        void** blocks = realloc(ix->blocks, cap * sizeof *blocks);
        if (!blocks) return NULL;
        ix->blocks = blocks;
        ix->block_capacity = cap;
    }
    void* p = calloc(count, size);
    if (p) ix->blocks[ix->block_count++] = p;
    return p;
}

#define ALLOC(c, ptr, n)                                                                           \
    do {                                                                                           \
        (ptr) = index_alloc((c), (n), sizeof *(ptr));                                              \
        if (!(ptr))                                                                                \
            return tl_error_set((c)->err, TL_ERROR_MEMORY, "%s: out of memory", (c)->label);       \
    } while (0)

/* The array at a top-level key; absent is empty, anything else must be an array. */
static tl_result top_array(ctx* c, const char* key, json_t** out, uint32_t* count) {
    json_t* a = json_object_get(c->doc->json, key);
    *out = NULL;
    *count = 0;
    if (!a) return TL_OK;
    if (!json_is_array(a))
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: /%s: not an array", c->label, key);
    if (json_array_size(a) > TL_GLTF_MAX_OBJECTS)
        return tl_error_set(c->err, TL_ERROR_LIMIT, "%s: /%s: %zu entries (limit %u)", c->label,
                            key, json_array_size(a), TL_GLTF_MAX_OBJECTS);
    *out = a;
    *count = (uint32_t)json_array_size(a);
    return TL_OK;
}

static tl_result element_object(ctx* c, json_t* array, const char* key, uint32_t i, json_t** out) {
    *out = json_array_get(array, i);
    if (!json_is_object(*out))
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: /%s/%u: not an object", c->label, key,
                            i);
    return TL_OK;
}

#define NO_LIMIT UINT64_MAX

/* An optional non-negative integer field below `limit` (exclusive; NO_LIMIT for none). A limit
 * of 0 accepts nothing: an index into an empty array is always wrong. */
static tl_result get_uint(ctx* c, json_t* obj, const char* key, uint64_t limit, bool required,
                          int64_t fallback, int64_t* out, const char* where) {
    json_t* v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: required", c->label, where,
                                key);
        *out = fallback;
        return TL_OK;
    }
    if (!json_is_integer(v))
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: not an integer", c->label, where,
                            key);
    json_int_t n = json_integer_value(v);
    if (n < 0)
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: %lld is negative", c->label,
                            where, key, (long long)n);
    if ((uint64_t)n >= limit)
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: %lld is not below %llu", c->label,
                            where, key, (long long)n, (unsigned long long)limit);
    *out = n;
    return TL_OK;
}

static const char* get_string(json_t* obj, const char* key) {
    return json_string_value(json_object_get(obj, key));
}

static tl_result get_floats(ctx* c, json_t* obj, const char* key, float* out, size_t n,
                            const char* where) {
    json_t* a = json_object_get(obj, key);
    if (!a) return TL_OK;
    if (!json_is_array(a) || json_array_size(a) != n)
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: expected an array of %zu numbers",
                            c->label, where, key, n);
    for (size_t i = 0; i < n; ++i) {
        json_t* v = json_array_get(a, i);
        if (!json_is_number(v))
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s/%zu: not a number", c->label,
                                where, key, i);
        double d = json_number_value(v);
        if (!isfinite(d) || fabs(d) > 3.4e38)
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s/%zu: not a finite float",
                                c->label, where, key, i);
        out[i] = (float)d;
    }
    return TL_OK;
}

static tl_result index_views(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n;
    TRY(top_array(c, "buffers", &arr, &n));
    if (n != doc->buffer_count)
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: /buffers: %u entries but %u loaded",
                            c->label, n, doc->buffer_count);
    TRY(top_array(c, "bufferViews", &arr, &n));
    tl_gltf_buffer_view* views;
    ALLOC(c, views, n);
    char where[64];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "bufferViews", i, &o));
        snprintf(where, sizeof where, "/bufferViews/%u", i);
        int64_t buffer, offset, length, stride;
        TRY(get_uint(c, o, "buffer", doc->buffer_count, true, 0, &buffer, where));
        TRY(get_uint(c, o, "byteOffset", NO_LIMIT, false, 0, &offset, where));
        TRY(get_uint(c, o, "byteLength", NO_LIMIT, true, 0, &length, where));
        TRY(get_uint(c, o, "byteStride", NO_LIMIT, false, 0, &stride, where));
        size_t size = doc->buffers[buffer].size;
        if ((uint64_t)offset > size)
            return tl_error_set(
                c->err, TL_ERROR_INVALID,
                "%s: %s/byteOffset: %lld is past the end of buffer %lld (%zu bytes)", c->label,
                where, (long long)offset, (long long)buffer, size);
        if ((uint64_t)length > size - (size_t)offset)
            return tl_error_set(c->err, TL_ERROR_INVALID,
                                "%s: %s/byteLength: %lld bytes from byteOffset %lld run past the "
                                "end of buffer %lld (%zu bytes)",
                                c->label, where, (long long)length, (long long)offset,
                                (long long)buffer, size);
        if (stride && (stride < 4 || stride > 252 || stride % 4))
            return tl_error_set(c->err, TL_ERROR_INVALID,
                                "%s: %s/byteStride: %lld is not a multiple of 4 in 4..252",
                                c->label, where, (long long)stride);
        views[i] =
            (tl_gltf_buffer_view){(uint32_t)buffer, (size_t)offset, (size_t)length, (size_t)stride};
    }
    doc->views = views;
    doc->view_count = n;
    return TL_OK;
}

static bool parse_type(const char* s, tl_gltf_type* out) {
    static const char* names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    for (int i = 0; s && i < 7; ++i)
        if (!strcmp(s, names[i])) return *out = (tl_gltf_type)i, true;
    return false;
}

/* Bytes one element occupies in a buffer view: matrix columns start on 4-byte boundaries. */
static size_t element_size(tl_gltf_component ct, tl_gltf_type type) {
    size_t cs = tl_gltf_component_size(ct);
    switch (type) {
    case TL_GLTF_MAT2:
        return 2 * ((2 * cs + 3) & ~(size_t)3);
    case TL_GLTF_MAT3:
        return 3 * ((3 * cs + 3) & ~(size_t)3);
    case TL_GLTF_MAT4:
        return 4 * ((4 * cs + 3) & ~(size_t)3);
    default:
        return cs * tl_gltf_type_components(type);
    }
}

/* Checks that `count` items of `size` bytes, `stride` apart, starting at `offset`, fit in a view.
 */
static bool fits(size_t view_length, size_t offset, size_t size, size_t stride, size_t count) {
    if (count == 0) return offset <= view_length;
    if (offset > view_length || size > view_length - offset) return false;
    size_t room = view_length - offset - size;
    return stride == 0 || (count - 1) <= room / stride;
}

static tl_result index_accessors(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n;
    TRY(top_array(c, "accessors", &arr, &n));
    tl_gltf_accessor* acc;
    ALLOC(c, acc, n);
    char where[64], swhere[96];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "accessors", i, &o));
        snprintf(where, sizeof where, "/accessors/%u", i);
        tl_gltf_accessor* a = &acc[i];
        int64_t view, offset, ct, count;
        TRY(get_uint(c, o, "bufferView", doc->view_count, false, TL_NONE, &view, where));
        TRY(get_uint(c, o, "byteOffset", NO_LIMIT, false, 0, &offset, where));
        TRY(get_uint(c, o, "componentType", NO_LIMIT, true, 0, &ct, where));
        TRY(get_uint(c, o, "count", TL_GLTF_MAX_FILE_BYTES, true, 0, &count, where));
        if (!tl_gltf_component_size((tl_gltf_component)ct))
            return tl_error_set(c->err, TL_ERROR_INVALID,
                                "%s: %s/componentType: %lld is not a glTF component type", c->label,
                                where, (long long)ct);
        if (!parse_type(get_string(o, "type"), &a->type))
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/type: missing or unknown",
                                c->label, where);
        a->buffer_view = (int32_t)view;
        a->byte_offset = (size_t)offset;
        a->component_type = (tl_gltf_component)ct;
        a->components = tl_gltf_type_components(a->type);
        a->normalized = json_is_true(json_object_get(o, "normalized"));
        a->count = (size_t)count;
        a->name = get_string(o, "name");
        size_t esize = element_size(a->component_type, a->type);
        /* With a bufferView the view bounds the count; without one (zeros, sparse) this does. */
        if (a->count > TL_GLTF_MAX_FILE_BYTES / esize)
            return tl_error_set(
                c->err, TL_ERROR_LIMIT, "%s: %s/count: %zu elements of %zu bytes exceed %llu bytes",
                c->label, where, a->count, esize, (unsigned long long)TL_GLTF_MAX_FILE_BYTES);
        if (view != TL_NONE) {
            const tl_gltf_buffer_view* v = &doc->views[view];
            size_t stride = v->byte_stride ? v->byte_stride : esize;
            if (stride < esize)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s: byteStride %zu of bufferView %lld is smaller than an "
                                    "element (%zu bytes)",
                                    c->label, where, stride, (long long)view, esize);
            if (a->byte_offset > v->byte_length)
                return tl_error_set(
                    c->err, TL_ERROR_INVALID,
                    "%s: %s/byteOffset: %zu is past the end of bufferView %lld (%zu bytes)",
                    c->label, where, a->byte_offset, (long long)view, v->byte_length);
            if (!fits(v->byte_length, a->byte_offset, esize, stride, a->count))
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/count: %zu elements of %zu bytes, %zu apart, from "
                                    "byteOffset %zu do not fit in bufferView %lld (%zu bytes)",
                                    c->label, where, a->count, esize, stride, a->byte_offset,
                                    (long long)view, v->byte_length);
        }
        json_t* sparse = json_object_get(o, "sparse");
        if (sparse) {
            snprintf(swhere, sizeof swhere, "%s/sparse", where);
            if (!json_is_object(sparse))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s: not an object", c->label,
                                    swhere);
            int64_t scount, iview, ioff, ict, vview, voff;
            TRY(get_uint(c, sparse, "count", (uint64_t)a->count + 1, true, 0, &scount, swhere));
            json_t* ind = json_object_get(sparse, "indices");
            json_t* val = json_object_get(sparse, "values");
            if (!json_is_object(ind) || !json_is_object(val))
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s: indices and values are required", c->label, swhere);
            snprintf(swhere, sizeof swhere, "%s/sparse/indices", where);
            TRY(get_uint(c, ind, "bufferView", doc->view_count, true, 0, &iview, swhere));
            TRY(get_uint(c, ind, "byteOffset", NO_LIMIT, false, 0, &ioff, swhere));
            TRY(get_uint(c, ind, "componentType", NO_LIMIT, true, 0, &ict, swhere));
            if (ict != TL_GLTF_UNSIGNED_BYTE && ict != TL_GLTF_UNSIGNED_SHORT &&
                ict != TL_GLTF_UNSIGNED_INT)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/componentType: must be unsigned", c->label, swhere);
            size_t isize = tl_gltf_component_size((tl_gltf_component)ict);
            if (!fits(doc->views[iview].byte_length, (size_t)ioff, isize, isize, (size_t)scount))
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s: %lld indices do not fit in bufferView %lld", c->label,
                                    swhere, (long long)scount, (long long)iview);
            snprintf(swhere, sizeof swhere, "%s/sparse/values", where);
            TRY(get_uint(c, val, "bufferView", doc->view_count, true, 0, &vview, swhere));
            TRY(get_uint(c, val, "byteOffset", NO_LIMIT, false, 0, &voff, swhere));
            if (!fits(doc->views[vview].byte_length, (size_t)voff, esize, esize, (size_t)scount))
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s: %lld values do not fit in bufferView %lld", c->label,
                                    swhere, (long long)scount, (long long)vview);
            a->has_sparse = true;
            a->sparse = (tl_gltf_sparse){(size_t)scount,         (uint32_t)iview, (size_t)ioff,
                                         (tl_gltf_component)ict, (uint32_t)vview, (size_t)voff};
        }
    }
    doc->accessors = acc;
    doc->accessor_count = n;
    return TL_OK;
}

static void trs_matrix(const float t[3], const float q[4], const float s[3], float m[16]) {
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1 - 2 * (yy + zz)) * s[0];
    m[1] = (2 * (xy + wz)) * s[0];
    m[2] = (2 * (xz - wy)) * s[0];
    m[3] = 0;
    m[4] = (2 * (xy - wz)) * s[1];
    m[5] = (1 - 2 * (xx + zz)) * s[1];
    m[6] = (2 * (yz + wx)) * s[1];
    m[7] = 0;
    m[8] = (2 * (xz + wy)) * s[2];
    m[9] = (2 * (yz - wx)) * s[2];
    m[10] = (1 - 2 * (xx + yy)) * s[2];
    m[11] = 0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

static tl_result index_list(ctx* c, json_t* o, const char* key, uint32_t limit, bool required,
                            const char* where, const uint32_t** out, uint32_t* out_count) {
    json_t* a = json_object_get(o, key);
    *out = NULL;
    *out_count = 0;
    if (!a) {
        if (required)
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: required", c->label, where,
                                key);
        return TL_OK;
    }
    if (!json_is_array(a))
        return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s: not an array", c->label, where,
                            key);
    size_t n = json_array_size(a);
    uint32_t* list;
    ALLOC(c, list, n);
    for (size_t i = 0; i < n; ++i) {
        json_t* v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= (json_int_t)limit)
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/%s/%zu: not an index below %u",
                                c->label, where, key, i, limit);
        list[i] = (uint32_t)json_integer_value(v);
    }
    *out = list;
    *out_count = (uint32_t)n;
    return TL_OK;
}

static tl_result index_nodes(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n, mesh_n, skin_n, camera_n;
    json_t* tmp;
    TRY(top_array(c, "meshes", &tmp, &mesh_n));
    TRY(top_array(c, "skins", &tmp, &skin_n));
    TRY(top_array(c, "cameras", &tmp, &camera_n));
    TRY(top_array(c, "nodes", &arr, &n));
    tl_gltf_node* nodes;
    ALLOC(c, nodes, n);
    char where[64];
    for (uint32_t i = 0; i < n; ++i)
        nodes[i].parent = TL_NONE;
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "nodes", i, &o));
        snprintf(where, sizeof where, "/nodes/%u", i);
        tl_gltf_node* nd = &nodes[i];
        nd->name = get_string(o, "name");
        int64_t mesh, skin, camera;
        TRY(get_uint(c, o, "mesh", mesh_n, false, TL_NONE, &mesh, where));
        TRY(get_uint(c, o, "skin", skin_n, false, TL_NONE, &skin, where));
        TRY(get_uint(c, o, "camera", camera_n, false, TL_NONE, &camera, where));
        nd->mesh = (int32_t)mesh;
        nd->skin = (int32_t)skin;
        nd->camera = (int32_t)camera;
        TRY(index_list(c, o, "children", n, false, where, &nd->children, &nd->child_count));
        for (uint32_t k = 0; k < nd->child_count; ++k) {
            uint32_t ch = nd->children[k];
            if (ch == i)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/children/%u: node is its own child", c->label, where,
                                    k);
            if (nodes[ch].parent != TL_NONE)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/children/%u: node %u already has parent %d", c->label,
                                    where, k, ch, nodes[ch].parent);
            nodes[ch].parent = (int32_t)i;
        }
        float t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
        TRY(get_floats(c, o, "translation", t, 3, where));
        TRY(get_floats(c, o, "rotation", q, 4, where));
        TRY(get_floats(c, o, "scale", s, 3, where));
        memcpy(nd->translation, t, sizeof t);
        memcpy(nd->rotation, q, sizeof q);
        memcpy(nd->scale, s, sizeof s);
        if (json_object_get(o, "matrix")) {
            nd->has_matrix = true;
            TRY(get_floats(c, o, "matrix", nd->matrix, 16, where));
        } else {
            trs_matrix(t, q, s, nd->matrix);
        }
    }
    /* Cycles and depth: with at most one parent each, a cycle is a parent chain that never
     * ends. Each node's depth is found once: walk up to a node already done (or a root), then
     * number the walked chain downwards. 0 = not seen, 1 = on the current walk, 2 = done. */
    uint8_t* state;
    uint32_t* depth;
    ALLOC(c, state, n);
    ALLOC(c, depth, n);
    for (uint32_t i = 0; i < n; ++i) {
        if (state[i] == 2) continue;
        uint64_t steps = 0;
        int32_t k = (int32_t)i;
        while (k != TL_NONE && state[k] == 0) {
            state[k] = 1;
            k = nodes[k].parent;
            ++steps;
        }
        if (k != TL_NONE && state[k] == 1)
            return tl_error_set(c->err, TL_ERROR_INVALID,
                                "%s: /nodes/%d: node hierarchy has a cycle", c->label, k);
        uint64_t d = (k == TL_NONE ? 0 : (uint64_t)depth[k] + 1) + steps - 1;
        if (d >= TL_GLTF_MAX_DEPTH)
            return tl_error_set(c->err, TL_ERROR_LIMIT, "%s: /nodes/%u: hierarchy deeper than %u",
                                c->label, i, TL_GLTF_MAX_DEPTH);
        for (k = (int32_t)i; k != TL_NONE && state[k] == 1; k = nodes[k].parent, --d) {
            depth[k] = (uint32_t)d;
            state[k] = 2;
        }
    }
    doc->nodes = nodes;
    doc->node_count = n;
    return TL_OK;
}

static tl_result index_meshes(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    json_t* tmp;
    uint32_t n, material_n;
    TRY(top_array(c, "materials", &tmp, &material_n));
    TRY(top_array(c, "meshes", &arr, &n));
    tl_gltf_mesh* meshes;
    ALLOC(c, meshes, n);
    char where[96];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "meshes", i, &o));
        meshes[i].name = get_string(o, "name");
        json_t* prims = json_object_get(o, "primitives");
        if (!json_is_array(prims))
            return tl_error_set(c->err, TL_ERROR_INVALID, "%s: /meshes/%u/primitives: not an array",
                                c->label, i);
        uint32_t pn = (uint32_t)json_array_size(prims);
        tl_gltf_primitive* pr;
        ALLOC(c, pr, pn);
        for (uint32_t p = 0; p < pn; ++p) {
            snprintf(where, sizeof where, "/meshes/%u/primitives/%u", i, p);
            json_t* po = json_array_get(prims, p);
            if (!json_is_object(po))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s: not an object", c->label,
                                    where);
            int64_t mode, indices, material;
            TRY(get_uint(c, po, "mode", 7, false, 4, &mode, where));
            TRY(get_uint(c, po, "indices", doc->accessor_count, false, TL_NONE, &indices, where));
            TRY(get_uint(c, po, "material", material_n, false, TL_NONE, &material, where));
            pr[p].mode = (uint32_t)mode;
            pr[p].indices = (int32_t)indices;
            pr[p].material = (int32_t)material;
            if (indices != TL_NONE) {
                const tl_gltf_accessor* ia = &doc->accessors[indices];
                if (ia->type != TL_GLTF_SCALAR || ia->component_type == TL_GLTF_FLOAT ||
                    ia->component_type == TL_GLTF_BYTE || ia->component_type == TL_GLTF_SHORT)
                    return tl_error_set(c->err, TL_ERROR_INVALID,
                                        "%s: %s/indices: accessor %lld is not unsigned SCALAR",
                                        c->label, where, (long long)indices);
            }
            json_t* attrs = json_object_get(po, "attributes");
            if (!json_is_object(attrs))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/attributes: not an object",
                                    c->label, where);
            uint32_t an = (uint32_t)json_object_size(attrs);
            tl_gltf_attribute* at;
            ALLOC(c, at, an);
            const char* key;
            json_t* value;
            uint32_t k = 0;
            size_t vertex_count = 0;
            pr[p].position = TL_NONE;
            json_object_foreach(attrs, key, value) {
                if (!json_is_integer(value) || json_integer_value(value) < 0 ||
                    json_integer_value(value) >= (json_int_t)doc->accessor_count)
                    return tl_error_set(c->err, TL_ERROR_INVALID,
                                        "%s: %s/attributes/%s: not an accessor index", c->label,
                                        where, key);
                at[k].name = key;
                at[k].accessor = (uint32_t)json_integer_value(value);
                size_t cnt = doc->accessors[at[k].accessor].count;
                if (k > 0 && cnt != vertex_count)
                    return tl_error_set(
                        c->err, TL_ERROR_INVALID,
                        "%s: %s/attributes/%s: %zu elements, other attributes have %zu", c->label,
                        where, key, cnt, vertex_count);
                vertex_count = cnt;
                if (!strcmp(key, "POSITION")) {
                    const tl_gltf_accessor* pa = &doc->accessors[at[k].accessor];
                    if (pa->type != TL_GLTF_VEC3)
                        return tl_error_set(c->err, TL_ERROR_INVALID,
                                            "%s: %s/attributes/POSITION: not VEC3", c->label,
                                            where);
                    pr[p].position = (int32_t)at[k].accessor;
                }
                ++k;
            }
            pr[p].attributes = at;
            pr[p].attribute_count = an;
            /* Skinning sets come in JOINTS_n/WEIGHTS_n pairs numbered from 0. */
            uint32_t sets = 0;
            char jn[32], wn[32];
            for (;; ++sets) {
                snprintf(jn, sizeof jn, "JOINTS_%u", sets);
                snprintf(wn, sizeof wn, "WEIGHTS_%u", sets);
                if (!json_object_get(attrs, jn) || !json_object_get(attrs, wn)) break;
            }
            int32_t *js, *ws;
            ALLOC(c, js, sets);
            ALLOC(c, ws, sets);
            for (uint32_t s = 0; s < sets; ++s) {
                snprintf(jn, sizeof jn, "JOINTS_%u", s);
                snprintf(wn, sizeof wn, "WEIGHTS_%u", s);
                js[s] = (int32_t)json_integer_value(json_object_get(attrs, jn));
                ws[s] = (int32_t)json_integer_value(json_object_get(attrs, wn));
                const tl_gltf_accessor* ja = &doc->accessors[js[s]];
                const tl_gltf_accessor* wa = &doc->accessors[ws[s]];
                if (ja->type != TL_GLTF_VEC4 || ja->component_type == TL_GLTF_FLOAT ||
                    wa->type != TL_GLTF_VEC4)
                    return tl_error_set(
                        c->err, TL_ERROR_INVALID,
                        "%s: %s/attributes: JOINTS_%u/WEIGHTS_%u must be VEC4 (integer joints)",
                        c->label, where, s, s);
            }
            pr[p].joint_set_count = sets;
            pr[p].joints = js;
            pr[p].weights = ws;
            json_t* targets = json_object_get(po, "targets");
            pr[p].target_count = json_is_array(targets) ? (uint32_t)json_array_size(targets) : 0;
        }
        meshes[i].primitives = pr;
        meshes[i].primitive_count = pn;
    }
    doc->meshes = meshes;
    doc->mesh_count = n;
    return TL_OK;
}

static tl_result index_skins(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n;
    TRY(top_array(c, "skins", &arr, &n));
    tl_gltf_skin* skins;
    ALLOC(c, skins, n);
    char where[64];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "skins", i, &o));
        snprintf(where, sizeof where, "/skins/%u", i);
        tl_gltf_skin* s = &skins[i];
        s->name = get_string(o, "name");
        TRY(index_list(c, o, "joints", doc->node_count, true, where, &s->joints, &s->joint_count));
        int64_t ibm, skel;
        TRY(get_uint(c, o, "inverseBindMatrices", doc->accessor_count, false, TL_NONE, &ibm,
                     where));
        TRY(get_uint(c, o, "skeleton", doc->node_count, false, TL_NONE, &skel, where));
        if (ibm != TL_NONE) {
            const tl_gltf_accessor* a = &doc->accessors[ibm];
            if (a->type != TL_GLTF_MAT4 || a->count < s->joint_count)
                return tl_error_set(
                    c->err, TL_ERROR_INVALID,
                    "%s: %s/inverseBindMatrices: accessor %lld needs %u MAT4 elements", c->label,
                    where, (long long)ibm, s->joint_count);
        }
        s->inverse_bind_matrices = (int32_t)ibm;
        s->skeleton = (int32_t)skel;
    }
    doc->skins = skins;
    doc->skin_count = n;
    return TL_OK;
}

static tl_result index_animations(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n;
    TRY(top_array(c, "animations", &arr, &n));
    tl_gltf_animation* anims;
    ALLOC(c, anims, n);
    char where[96];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "animations", i, &o));
        tl_gltf_animation* an = &anims[i];
        an->name = get_string(o, "name");
        json_t* samplers = json_object_get(o, "samplers");
        json_t* channels = json_object_get(o, "channels");
        if (!json_is_array(samplers) || !json_is_array(channels))
            return tl_error_set(c->err, TL_ERROR_INVALID,
                                "%s: /animations/%u: samplers and channels must be arrays",
                                c->label, i);
        uint32_t sn = (uint32_t)json_array_size(samplers), cn = (uint32_t)json_array_size(channels);
        tl_gltf_anim_sampler* sm;
        tl_gltf_channel* ch;
        ALLOC(c, sm, sn);
        ALLOC(c, ch, cn);
        for (uint32_t k = 0; k < sn; ++k) {
            snprintf(where, sizeof where, "/animations/%u/samplers/%u", i, k);
            json_t* so = json_array_get(samplers, k);
            if (!json_is_object(so))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s: not an object", c->label,
                                    where);
            int64_t in, out;
            TRY(get_uint(c, so, "input", doc->accessor_count, true, 0, &in, where));
            TRY(get_uint(c, so, "output", doc->accessor_count, true, 0, &out, where));
            const char* interp = get_string(so, "interpolation");
            tl_gltf_interpolation ip = TL_GLTF_LINEAR;
            if (interp && !strcmp(interp, "STEP"))
                ip = TL_GLTF_STEP;
            else if (interp && !strcmp(interp, "CUBICSPLINE"))
                ip = TL_GLTF_CUBICSPLINE;
            else if (interp && strcmp(interp, "LINEAR"))
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/interpolation: unknown \"%s\"", c->label, where,
                                    interp);
            const tl_gltf_accessor* ia = &doc->accessors[in];
            if (ia->type != TL_GLTF_SCALAR || ia->component_type != TL_GLTF_FLOAT)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/input: key times must be float SCALAR", c->label,
                                    where);
            size_t need = ia->count * (ip == TL_GLTF_CUBICSPLINE ? 3 : 1);
            const tl_gltf_accessor* oa = &doc->accessors[out];
            if (oa->count < need && oa->type != TL_GLTF_SCALAR)
                return tl_error_set(c->err, TL_ERROR_INVALID,
                                    "%s: %s/output: %zu values for %zu keys", c->label, where,
                                    oa->count, ia->count);
            sm[k] = (tl_gltf_anim_sampler){(uint32_t)in, (uint32_t)out, ip};
        }
        for (uint32_t k = 0; k < cn; ++k) {
            snprintf(where, sizeof where, "/animations/%u/channels/%u", i, k);
            json_t* co = json_array_get(channels, k);
            if (!json_is_object(co))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s: not an object", c->label,
                                    where);
            int64_t sampler, node;
            TRY(get_uint(c, co, "sampler", sn, true, 0, &sampler, where));
            json_t* target = json_object_get(co, "target");
            if (!json_is_object(target))
                return tl_error_set(c->err, TL_ERROR_INVALID, "%s: %s/target: required", c->label,
                                    where);
            char twhere[128];
            snprintf(twhere, sizeof twhere, "%s/target", where);
            TRY(get_uint(c, target, "node", doc->node_count, false, TL_NONE, &node, twhere));
            const char* path = get_string(target, "path");
            tl_gltf_path pt = TL_GLTF_PATH_OTHER;
            if (path && !strcmp(path, "translation"))
                pt = TL_GLTF_PATH_TRANSLATION;
            else if (path && !strcmp(path, "rotation"))
                pt = TL_GLTF_PATH_ROTATION;
            else if (path && !strcmp(path, "scale"))
                pt = TL_GLTF_PATH_SCALE;
            else if (path && !strcmp(path, "weights"))
                pt = TL_GLTF_PATH_WEIGHTS;
            if (pt == TL_GLTF_PATH_TRANSLATION || pt == TL_GLTF_PATH_ROTATION ||
                pt == TL_GLTF_PATH_SCALE) {
                const tl_gltf_accessor* oa = &doc->accessors[sm[sampler].output];
                tl_gltf_type want = pt == TL_GLTF_PATH_ROTATION ? TL_GLTF_VEC4 : TL_GLTF_VEC3;
                if (oa->type != want)
                    return tl_error_set(c->err, TL_ERROR_INVALID,
                                        "%s: %s: output accessor %u must be %s for %s", c->label,
                                        where, sm[sampler].output, tl_gltf_type_string(want), path);
                if (oa->count < doc->accessors[sm[sampler].input].count *
                                    (sm[sampler].interpolation == TL_GLTF_CUBICSPLINE ? 3 : 1))
                    return tl_error_set(c->err, TL_ERROR_INVALID,
                                        "%s: %s: output has fewer values than keys", c->label,
                                        where);
            }
            ch[k] = (tl_gltf_channel){(uint32_t)sampler, (int32_t)node, pt};
        }
        an->samplers = sm;
        an->sampler_count = sn;
        an->channels = ch;
        an->channel_count = cn;
    }
    doc->animations = anims;
    doc->animation_count = n;
    return TL_OK;
}

static tl_result index_scenes(ctx* c) {
    tl_gltf* doc = c->doc;
    json_t* arr;
    uint32_t n;
    TRY(top_array(c, "scenes", &arr, &n));
    tl_gltf_scene* scenes;
    ALLOC(c, scenes, n);
    char where[64];
    for (uint32_t i = 0; i < n; ++i) {
        json_t* o;
        TRY(element_object(c, arr, "scenes", i, &o));
        snprintf(where, sizeof where, "/scenes/%u", i);
        scenes[i].name = get_string(o, "name");
        TRY(index_list(c, o, "nodes", doc->node_count, false, where, &scenes[i].nodes,
                       &scenes[i].node_count));
    }
    int64_t scene;
    TRY(get_uint(c, doc->json, "scene", n, false, TL_NONE, &scene, ""));
    doc->scenes = scenes;
    doc->scene_count = n;
    doc->scene = (int32_t)scene;
    return TL_OK;
}

void tl_gltf_index_free(tl_gltf* doc) {
    tl_gltf_index* ix = doc->internal;
    if (!ix) return;
    for (size_t i = 0; i < ix->block_count; ++i)
        free(ix->blocks[i]);
    ix->block_count = 0;
    doc->views = NULL;
    doc->accessors = NULL;
    doc->nodes = NULL;
    doc->meshes = NULL;
    doc->skins = NULL;
    doc->animations = NULL;
    doc->scenes = NULL;
    doc->view_count = doc->accessor_count = doc->node_count = doc->mesh_count = 0;
    doc->skin_count = doc->animation_count = doc->scene_count = 0;
    doc->scene = TL_NONE;
}

tl_result tl_gltf_index_build(tl_gltf* doc, tl_error* err) {
    tl_gltf_index_free(doc);
    ctx c = {doc, doc->internal, err, tl_gltf_label(doc)};
    if (!json_is_object(tl_gltf_json(doc)))
        return tl_error_set(err, TL_ERROR_FORMAT, "%s: the JSON is not an object", c.label);
    json_t* asset = json_object_get(doc->json, "asset");
    if (!json_is_object(asset) || !json_is_string(json_object_get(asset, "version")))
        return tl_error_set(err, TL_ERROR_INVALID, "%s: /asset/version: required", c.label);
    const char* version = json_string_value(json_object_get(asset, "version"));
    if (version[0] != '2' || version[1] != '.')
        return tl_error_set(err, TL_ERROR_UNSUPPORTED, "%s: /asset/version: \"%s\" is not glTF 2.x",
                            c.label, version);
    json_t* required = json_object_get(doc->json, "extensionsRequired");
    if (json_is_array(required) && json_array_size(required) > 0) {
        /* Required extensions change how data must be read; refusing beats misreading. */
        size_t i;
        json_t* v;
        json_array_foreach(required, i, v) {
            const char* name = json_string_value(v);
            if (name && strcmp(name, "KHR_materials_unlit") &&
                strcmp(name, "KHR_texture_transform") && strcmp(name, "KHR_mesh_quantization"))
                return tl_error_set(err, TL_ERROR_UNSUPPORTED,
                                    "%s: /extensionsRequired/%zu: \"%s\" is not supported", c.label,
                                    i, name);
        }
    }
    tl_result r;
    if ((r = index_views(&c)) || (r = index_accessors(&c)) || (r = index_nodes(&c)) ||
        (r = index_meshes(&c)) || (r = index_skins(&c)) || (r = index_animations(&c)) ||
        (r = index_scenes(&c))) {
        tl_gltf_index_free(doc);
        return r;
    }
    return TL_OK;
}
