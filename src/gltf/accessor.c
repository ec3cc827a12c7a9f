/* Reading accessors in every form glTF allows, and appending new ones. */
#include "internal.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t tl_gltf_component_size(tl_gltf_component component) {
    switch (component) {
    case TL_GLTF_BYTE:
    case TL_GLTF_UNSIGNED_BYTE:
        return 1;
    case TL_GLTF_SHORT:
    case TL_GLTF_UNSIGNED_SHORT:
        return 2;
    case TL_GLTF_UNSIGNED_INT:
    case TL_GLTF_FLOAT:
        return 4;
    }
    return 0;
}

uint32_t tl_gltf_type_components(tl_gltf_type type) {
    static const uint32_t n[] = {1, 2, 3, 4, 4, 9, 16};
    return (unsigned)type < 7 ? n[type] : 0;
}

const char* tl_gltf_type_string(tl_gltf_type type) {
    static const char* names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    return (unsigned)type < 7 ? names[type] : "?";
}

int32_t tl_gltf_primitive_attribute(const tl_gltf_primitive* prim, const char* name) {
    for (uint32_t i = 0; i < prim->attribute_count; ++i)
        if (!strcmp(prim->attributes[i].name, name)) return (int32_t)prim->attributes[i].accessor;
    return TL_NONE;
}

size_t tl_gltf_primitive_vertex_count(const tl_gltf* doc, const tl_gltf_primitive* prim) {
    return prim->position == TL_NONE ? 0 : doc->accessors[prim->position].count;
}

size_t tl_gltf_accessor_value_count(const tl_gltf* doc, uint32_t accessor) {
    assert(accessor < doc->accessor_count);
    const tl_gltf_accessor* a = &doc->accessors[accessor];
    return a->count * a->components;
}

/* Rows per matrix column and the byte distance between columns (columns are 4-byte aligned). */
static void layout(const tl_gltf_accessor* a, uint32_t* rows, uint32_t* cols, size_t* col_stride) {
    uint32_t cs = tl_gltf_component_size(a->component_type);
    switch (a->type) {
    case TL_GLTF_MAT2:
        *rows = 2, *cols = 2;
        break;
    case TL_GLTF_MAT3:
        *rows = 3, *cols = 3;
        break;
    case TL_GLTF_MAT4:
        *rows = 4, *cols = 4;
        break;
    default:
        *rows = a->components, *cols = 1;
        break;
    }
    *col_stride = *cols > 1 ? ((*rows * cs + 3) & ~(size_t)3) : *rows * cs;
}

static size_t element_bytes(const tl_gltf_accessor* a) {
    uint32_t rows, cols;
    size_t col_stride;
    layout(a, &rows, &cols, &col_stride);
    return cols * col_stride;
}

static double component(const uint8_t* p, tl_gltf_component ct, bool normalized) {
    switch (ct) {
    case TL_GLTF_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case TL_GLTF_UNSIGNED_BYTE:
        return normalized ? p[0] / 255.0 : p[0];
    case TL_GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case TL_GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
    }
    case TL_GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return normalized ? v / 4294967295.0 : v;
    }
    case TL_GLTF_FLOAT: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
    return 0;
}

/* Unpacks one element at p into out[components], dropping column padding. */
static void unpack(const tl_gltf_accessor* a, const uint8_t* p, double* out) {
    uint32_t rows, cols, cs = tl_gltf_component_size(a->component_type);
    size_t col_stride;
    layout(a, &rows, &cols, &col_stride);
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t r = 0; r < rows; ++r)
            out[c * rows + r] =
                component(p + c * col_stride + r * cs, a->component_type, a->normalized);
}

/* Stores one value; false when it cannot be represented (a negative value read as uint). */
typedef bool store_fn(void* out, size_t index, double value);
static bool store_float(void* out, size_t i, double v) {
    ((float*)out)[i] = (float)v;
    return true;
}
static bool store_uint(void* out, size_t i, double v) {
    if (v < 0) return false;
    ((uint32_t*)out)[i] = (uint32_t)v;
    return true;
}

static tl_result negative(const tl_gltf* doc, uint32_t accessor, size_t element, tl_error* err) {
    return tl_error_set(err, TL_ERROR_INVALID, "%s: /accessors/%u: element %zu is negative",
                        tl_gltf_label(doc), accessor, element);
}

/* Reads the dense elements of the common layouts straight into out: floats as floats (a float
 * through double and back is itself), unsigned integers as they are (never negative): the
 * values unpack and store give, without a double and a call per value (the scenes of one
 * `tailor rig` read every skin's vertices three times). False: not such a layout. */
static bool read_direct(const tl_gltf_accessor* a, const uint8_t* base, size_t stride, void* out,
                        store_fn* store) {
    uint32_t rows, cols;
    size_t col_stride, n = a->components;
    layout(a, &rows, &cols, &col_stride);
    if (cols != 1 || a->normalized) return false;
    if (store == store_float && a->component_type == TL_GLTF_FLOAT) {
        for (size_t i = 0; i < a->count; ++i)
            memcpy((float*)out + i * n, base + i * stride, sizeof(float) * n);
        return true;
    }
    if (store != store_uint) return false;
    uint32_t* u = out;
    switch (a->component_type) {
    case TL_GLTF_UNSIGNED_BYTE:
        for (size_t i = 0; i < a->count; ++i)
            for (size_t k = 0; k < n; ++k)
                u[i * n + k] = base[i * stride + k];
        return true;
    case TL_GLTF_UNSIGNED_SHORT:
        for (size_t i = 0; i < a->count; ++i)
            for (size_t k = 0; k < n; ++k) {
                uint16_t v;
                memcpy(&v, base + i * stride + 2 * k, 2);
                u[i * n + k] = v;
            }
        return true;
    case TL_GLTF_UNSIGNED_INT:
        for (size_t i = 0; i < a->count; ++i)
            memcpy(u + i * n, base + i * stride, sizeof(uint32_t) * n);
        return true;
    default:
        return false;
    }
}

static tl_result read_values(const tl_gltf* doc, uint32_t accessor, void* out, size_t out_count,
                             store_fn* store, tl_error* err) {
    assert(accessor < doc->accessor_count);
    const tl_gltf_accessor* a = &doc->accessors[accessor];
    const char* label = tl_gltf_label(doc);
    size_t n = a->components;
    assert(out_count >= a->count * n);
    (void)out_count;
    double v[16];
    if (a->buffer_view == TL_NONE) {
        for (size_t i = 0; i < a->count * n; ++i)
            store(out, i, 0.0);
    } else if (a->count > 0) {
        const tl_gltf_buffer_view* view = &doc->views[a->buffer_view];
        size_t stride = view->byte_stride ? view->byte_stride : element_bytes(a);
        /* index checked every element fits in the view, and the view in the buffer */
        const uint8_t* base = doc->buffers[view->buffer].data + view->byte_offset + a->byte_offset;
        bool direct = read_direct(a, base, stride, out, store);
        for (size_t i = 0; !direct && i < a->count; ++i) {
            unpack(a, base + i * stride, v);
            for (size_t k = 0; k < n; ++k)
                if (!store(out, i * n + k, v[k])) return negative(doc, accessor, i, err);
        }
    }
    if (a->has_sparse) {
        const tl_gltf_sparse* s = &a->sparse;
        const tl_gltf_buffer_view* iv = &doc->views[s->indices_view];
        const tl_gltf_buffer_view* vv = &doc->views[s->values_view];
        uint32_t isize = tl_gltf_component_size(s->indices_component);
        size_t esize = element_bytes(a);
        for (size_t i = 0; i < s->count; ++i) {
            const uint8_t* ip = doc->buffers[iv->buffer].data + iv->byte_offset + s->indices_offset;
            const uint8_t* vp = doc->buffers[vv->buffer].data + vv->byte_offset + s->values_offset;
            size_t target = (size_t)component(ip + i * isize, s->indices_component, false);
            if (target >= a->count)
                return tl_error_set(
                    err, TL_ERROR_INVALID,
                    "%s: /accessors/%u/sparse/indices: index %zu at entry %zu is past count %zu",
                    label, accessor, target, i, a->count);
            unpack(a, vp + i * esize, v);
            for (size_t k = 0; k < n; ++k)
                if (!store(out, target * n + k, v[k])) return negative(doc, accessor, target, err);
        }
    }
    return TL_OK;
}

tl_result tl_gltf_accessor_read_float(const tl_gltf* doc, uint32_t accessor, float* out,
                                      size_t out_count, tl_error* err) {
    tl_result r = read_values(doc, accessor, out, out_count, store_float, err);
    if (r != TL_OK) return r;
    const tl_gltf_accessor* a = &doc->accessors[accessor];
    for (size_t i = 0; i < a->count * a->components; ++i)
        if (!isfinite(out[i]))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "%s: /accessors/%u: element %zu is not finite", tl_gltf_label(doc),
                                accessor, i / a->components);
    return TL_OK;
}

tl_result tl_gltf_accessor_read_uint(const tl_gltf* doc, uint32_t accessor, uint32_t* out,
                                     size_t out_count, tl_error* err) {
    const tl_gltf_accessor* a = &doc->accessors[accessor];
    if (a->component_type == TL_GLTF_FLOAT || a->normalized)
        return tl_error_set(err, TL_ERROR_INVALID, "%s: /accessors/%u: expected integer components",
                            tl_gltf_label(doc), accessor);
    return read_values(doc, accessor, out, out_count, store_uint, err);
}

tl_gltf_accessor_def tl_default_gltf_accessor_def(void) {
    tl_gltf_accessor_def def = {0};
    def.component_type = TL_GLTF_FLOAT;
    def.type = TL_GLTF_VEC3;
    return def;
}

/* Makes sure buffer `index` exists, in the JSON and in memory. */
static tl_result ensure_buffer(tl_gltf* doc, uint32_t index, tl_error* err) {
    json_t* buffers = json_object_get(doc->json, "buffers");
    if (!buffers) {
        buffers = json_array();
        json_object_set_new(doc->json, "buffers", buffers);
    }
    if (index < doc->buffer_count) return TL_OK;
    if (index != doc->buffer_count || json_array_size(buffers) != doc->buffer_count)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: buffer %u cannot be created",
                            tl_gltf_label(doc), index);
    tl_gltf_buffer* grown = realloc(doc->buffers, (doc->buffer_count + 1) * sizeof *grown);
    if (!grown) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    doc->buffers = grown;
    doc->buffers[index] = (tl_gltf_buffer){0};
    doc->buffer_count++;
    json_array_append_new(buffers, json_pack("{s:i}", "byteLength", 0));
    return TL_OK;
}

tl_result tl_gltf_view_add(tl_gltf* doc, uint32_t buffer, const void* data, size_t size,
                           size_t byte_stride, int target, uint32_t* out_index, tl_error* err) {
    tl_result r = ensure_buffer(doc, buffer, err);
    if (r != TL_OK) return r;
    tl_gltf_buffer* b = &doc->buffers[buffer];
    size_t offset = (b->size + 15) & ~(size_t)15; /* 16: safe for every component and matrix */
    if (tl_gltf_buffer_reserve(b, offset + size) != TL_OK)
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory appending %zu bytes", size);
    if (size) { /* an empty new buffer has no storage yet */
        memset(b->data + b->size, 0, offset - b->size);
        memcpy(b->data + offset, data, size);
    }
    b->size = offset + size;
    json_t* jb = json_array_get(json_object_get(doc->json, "buffers"), buffer);
    json_object_set_new(jb, "byteLength", json_integer((json_int_t)b->size));
    /* The old uri no longer describes these bytes: save writes them anew (GLB chunk or file). */
    json_object_del(jb, "uri");
    b->external = false;
    json_t* views = json_object_get(doc->json, "bufferViews");
    if (!views) {
        views = json_array();
        json_object_set_new(doc->json, "bufferViews", views);
    }
    json_t* v = json_pack("{s:i,s:I,s:I}", "buffer", (int)buffer, "byteOffset", (json_int_t)offset,
                          "byteLength", (json_int_t)size);
    if (byte_stride) json_object_set_new(v, "byteStride", json_integer((json_int_t)byte_stride));
    if (target) json_object_set_new(v, "target", json_integer(target));
    json_array_append_new(views, v);
    *out_index = (uint32_t)json_array_size(views) - 1;
    return TL_OK;
}

tl_result tl_gltf_accessor_add(tl_gltf* doc, const tl_gltf_accessor_def* def, uint32_t* out_index,
                               tl_error* err) {
    assert(def->data || def->count == 0);
    uint32_t cs = tl_gltf_component_size(def->component_type);
    uint32_t n = tl_gltf_type_components(def->type);
    assert(cs && n);
    assert(
        !(cs < 4 && (def->type == TL_GLTF_MAT2 || def->type == TL_GLTF_MAT3))); /* padded forms */
    size_t size = def->count * n * cs;
    uint32_t view;
    tl_result r = tl_gltf_view_add(doc, def->buffer, def->data, size, 0, def->target, &view, err);
    if (r != TL_OK) return r;
    json_t* a = json_pack("{s:i,s:i,s:I,s:s}", "bufferView", (int)view, "componentType",
                          (int)def->component_type, "count", (json_int_t)def->count, "type",
                          tl_gltf_type_string(def->type));
    if (def->normalized) json_object_set_new(a, "normalized", json_true());
    if (def->name) json_object_set_new(a, "name", json_string(def->name));
    if (def->min_max && def->count > 0) {
        json_t* mn = json_array();
        json_t* mx = json_array();
        const tl_gltf_accessor probe = {.component_type = def->component_type,
                                        .type = def->type,
                                        .components = n,
                                        .normalized = false};
        for (uint32_t k = 0; k < n; ++k) {
            double lo = DBL_MAX, hi = -DBL_MAX;
            for (size_t i = 0; i < def->count; ++i) {
                double v = component((const uint8_t*)def->data + (i * n + k) * cs,
                                     def->component_type, false);
                lo = fmin(lo, v), hi = fmax(hi, v);
            }
            bool is_float = probe.component_type == TL_GLTF_FLOAT;
            /* floats are written as the exact float value so the validator's bounds check holds */
            json_array_append_new(mn,
                                  is_float ? json_real((float)lo) : json_integer((json_int_t)lo));
            json_array_append_new(mx,
                                  is_float ? json_real((float)hi) : json_integer((json_int_t)hi));
        }
        json_object_set_new(a, "min", mn);
        json_object_set_new(a, "max", mx);
    }
    json_t* accessors = json_object_get(doc->json, "accessors");
    if (!accessors) {
        accessors = json_array();
        json_object_set_new(doc->json, "accessors", accessors);
    }
    json_array_append_new(accessors, a);
    *out_index = (uint32_t)json_array_size(accessors) - 1;
    return TL_OK;
}
