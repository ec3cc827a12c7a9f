/* Writing: the JSON tree as it is (plus what was edited), buffers as GLB chunk, files or data:
 * URIs, optionally compacted; always through a temporary file renamed into place. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "base/output.h"
#include "base/try.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tl_gltf_save_def tl_default_gltf_save_def(void) {
    tl_gltf_save_def def = {0};
    return def;
}

/* What is written: a JSON tree (the document's, or a compacted copy) and each buffer's bytes. */
typedef struct output {
    json_t* json;         /* owned reference */
    const uint8_t** data; /* per buffer */
    size_t* size;
    uint8_t** owned; /* compacted copies to free */
    uint32_t buffer_count;
} output;

static void output_free(output* o) {
    json_decref(o->json);
    for (uint32_t i = 0; o->owned && i < o->buffer_count; ++i)
        free(o->owned[i]);
    free(o->owned);
    free(o->data);
    free(o->size);
}

/* Calls fn on every integer under a key named "bufferView" anywhere in the tree: core
 * accessors and images, and extensions that store binary data the same way. */
static void foreach_view_ref(json_t* node, void (*fn)(json_t* ref, void* user), void* user) {
    if (json_is_object(node)) {
        const char* key;
        json_t* value;
        json_object_foreach(node, key, value) {
            if (!strcmp(key, "bufferView") && json_is_integer(value))
                fn(value, user);
            else
                foreach_view_ref(value, fn, user);
        }
    } else if (json_is_array(node)) {
        size_t i;
        json_t* value;
        json_array_foreach(node, i, value) foreach_view_ref(value, fn, user);
    }
}

typedef struct view_marks {
    uint8_t* used;
    int64_t* remap;
    size_t count;
} view_marks;

static void mark_view(json_t* ref, void* user) {
    view_marks* m = user;
    json_int_t v = json_integer_value(ref);
    if (v >= 0 && (size_t)v < m->count) m->used[v] = 1;
}

static void remap_view(json_t* ref, void* user) {
    view_marks* m = user;
    json_int_t v = json_integer_value(ref);
    if (v >= 0 && (size_t)v < m->count) json_integer_set(ref, m->remap[v]);
}

/* Drops bufferViews nothing references and buffer bytes no kept view covers. Kept views keep
 * their offset modulo 16, so every accessor stays as aligned as it was. */
static tl_result compact(const tl_gltf* doc, output* o, tl_error* err) {
    json_t* views = json_object_get(o->json, "bufferViews");
    size_t n = json_array_size(views);
    view_marks m = {calloc(n + 1, 1), calloc(n + 1, sizeof(int64_t)), n};
    o->owned = calloc(o->buffer_count + 1, sizeof *o->owned);
    if (!m.used || !m.remap || !o->owned) {
        free(m.used), free(m.remap);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory compacting");
    }
    json_t* copy_views = json_array();
    foreach_view_ref(o->json, mark_view, &m);
    for (uint32_t b = 0; b < o->buffer_count; ++b) {
        /* Kept views are copied one after another, so views that overlap in the input take
         * their bytes twice: size the copy by the views, not by the buffer. */
        size_t room = 16;
        for (size_t v = 0; v < n; ++v)
            if (m.used[v] && doc->views[v].buffer == b) room += doc->views[v].byte_length + 15;
        uint8_t* packed = calloc(room, 1);
        size_t cursor = 0;
        for (size_t v = 0; v < n && packed; ++v) {
            if (!m.used[v] || doc->views[v].buffer != b) continue;
            const tl_gltf_buffer_view* view = &doc->views[v];
            size_t pos = cursor + ((view->byte_offset % 16 + 16 - cursor % 16) % 16);
            memcpy(packed + pos, doc->buffers[b].data + view->byte_offset, view->byte_length);
            json_object_set_new(json_array_get(views, v), "byteOffset",
                                json_integer((json_int_t)pos));
            cursor = pos + view->byte_length;
        }
        if (!packed) {
            free(m.used), free(m.remap), json_decref(copy_views);
            return tl_error_set(err, TL_ERROR_MEMORY, "out of memory compacting");
        }
        o->owned[b] = packed;
        o->data[b] = packed;
        o->size[b] = cursor;
        json_t* jb = json_array_get(json_object_get(o->json, "buffers"), b);
        json_object_set_new(jb, "byteLength", json_integer((json_int_t)cursor));
        /* A data: URI holds the old bytes: the packed ones are written wherever the output
         * puts uri-less buffers (GLB chunk, data: URI or a .bin beside a .gltf). */
        const char* uri = json_string_value(json_object_get(jb, "uri"));
        if (uri && !strncmp(uri, "data:", 5)) json_object_del(jb, "uri");
    }
    size_t next = 0;
    for (size_t v = 0; v < n; ++v) {
        m.remap[v] = m.used[v] ? (int64_t)next++ : -1;
        if (m.used[v]) json_array_append(copy_views, json_array_get(views, v));
    }
    foreach_view_ref(o->json, remap_view, &m);
    json_object_set_new(o->json, "bufferViews", copy_views);
    free(m.used);
    free(m.remap);
    return TL_OK;
}

static tl_result output_make(const tl_gltf* doc, const tl_gltf_save_def* def, output* o,
                             tl_error* err) {
    memset(o, 0, sizeof *o);
    o->buffer_count = doc->buffer_count;
    o->data = calloc(doc->buffer_count + 1, sizeof *o->data);
    o->size = calloc(doc->buffer_count + 1, sizeof *o->size);
    o->json = def->compact ? json_deep_copy(doc->json) : json_incref(doc->json);
    if (!o->data || !o->size || !o->json)
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t b = 0; b < doc->buffer_count; ++b) {
        o->data[b] = doc->buffers[b].data;
        o->size[b] = doc->buffers[b].size;
    }
    if (def->compact &&
        doc->view_count == json_array_size(json_object_get(doc->json, "bufferViews")))
        return compact(doc, o, err);
    if (def->compact)
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "%s: compacting needs an up-to-date index (call tl_gltf_reindex)",
                            tl_gltf_label(doc));
    return TL_OK;
}

static char* dump_json(json_t* json) {
    return json_dumps(json, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

static void put_u32(uint8_t* p, uint32_t v) {
    memcpy(p, &v, 4);
}

/* A GLB image of the output, self-contained: data: URIs stay as they are; buffer 0, when it
 * has no uri or names a file, goes in the BIN chunk; other buffers without a data: URI become
 * data: URIs (a GLB has one BIN chunk, and a file reference would break once the GLB moves). */
static tl_result build_glb(const tl_gltf* doc, output* o, uint8_t** out, size_t* out_size,
                           tl_error* err) {
    json_t* buffers = json_object_get(o->json, "buffers");
    bool bin = false;
    json_t* patched = NULL;
    for (uint32_t b = 0; b < o->buffer_count; ++b) {
        json_t* jb = json_array_get(buffers, b);
        const char* old_uri = json_string_value(json_object_get(jb, "uri"));
        if (old_uri && !strncmp(old_uri, "data:", 5)) continue;
        if (!patched && (old_uri || b > 0)) {
            patched = json_deep_copy(o->json);
            if (!patched) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            buffers = json_object_get(patched, "buffers");
            jb = json_array_get(buffers, b);
        }
        if (b == 0) {
            bin = true;
            if (old_uri) json_object_del(jb, "uri");
            continue;
        }
        char* b64 = tl_gltf_base64_encode(o->data[b], o->size[b]);
        if (!b64) return json_decref(patched), tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        size_t len = strlen(b64) + 64;
        char* uri = malloc(len);
        if (uri) snprintf(uri, len, "data:application/octet-stream;base64,%s", b64);
        free(b64);
        if (!uri) return json_decref(patched), tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        json_object_set_new(json_array_get(buffers, b), "uri", json_string(uri));
        free(uri);
    }
    char* text = dump_json(patched ? patched : o->json);
    json_decref(patched);
    if (!text)
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: cannot serialise the JSON",
                            tl_gltf_label(doc));
    size_t json_len = strlen(text), json_pad = (4 - json_len % 4) % 4;
    size_t bin_len = bin ? o->size[0] : 0, bin_pad = (4 - bin_len % 4) % 4;
    size_t total = 12 + 8 + json_len + json_pad + (bin ? 8 + bin_len + bin_pad : 0);
    if (total > UINT32_MAX) {
        free(text);
        return tl_error_set(err, TL_ERROR_LIMIT, "%s: %zu bytes do not fit in a GLB",
                            tl_gltf_label(doc), total);
    }
    uint8_t* g = malloc(total);
    if (!g) {
        free(text);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory for %zu bytes", total);
    }
    put_u32(g, 0x46546C67);
    put_u32(g + 4, 2);
    put_u32(g + 8, (uint32_t)total);
    put_u32(g + 12, (uint32_t)(json_len + json_pad));
    put_u32(g + 16, 0x4E4F534A);
    memcpy(g + 20, text, json_len);
    memset(g + 20 + json_len, ' ', json_pad);
    free(text);
    if (bin) {
        uint8_t* p = g + 20 + json_len + json_pad;
        put_u32(p, (uint32_t)(bin_len + bin_pad));
        put_u32(p + 4, 0x004E4942);
        if (bin_len) memcpy(p + 8, o->data[0], bin_len);
        memset(p + 8 + bin_len, 0, bin_pad);
    }
    *out = g;
    *out_size = total;
    return TL_OK;
}

static bool ends_with(const char* s, const char* suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* A file name as a URI: bytes other than unreserved characters become %XX. `out` holds at
 * least 3 * strlen(name) + 1 bytes. */
static void uri_escape(const char* name, char* out) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char* p = (const unsigned char*)name; *p; ++p) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~", *p)) {
            *out++ = (char)*p;
        } else {
            *out++ = '%';
            *out++ = hex[*p >> 4];
            *out++ = hex[*p & 15];
        }
    }
    *out = '\0';
}

/* .gltf output: every buffer that is not a data: URI is written beside it as NAME.bin
 * (buffer 0) or NAME_N.bin, its uri set to that name; the sidecar follows the output, so
 * writing elsewhere never touches the input's own .bin. The .bin parts come first, so the
 * renames put them in place before the .gltf that names them. */
static tl_result save_gltf_text(const tl_gltf* doc, output* o, const char* path,
                                const tl_gltf_save_def* def, tl_output* out, tl_error* err) {
    const char* slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    const char* base = path + dir_len;
    size_t stem_len = strlen(base) - 5; /* without ".gltf" */
    json_t* buffers = json_object_get(o->json, "buffers");
    json_t* patched = NULL;
    for (uint32_t b = 0; b < o->buffer_count; ++b) {
        json_t* jb = json_array_get(buffers, b);
        const char* uri = json_string_value(json_object_get(jb, "uri"));
        if (uri && !strncmp(uri, "data:", 5)) continue;
        size_t name_len = stem_len + 16;
        char* file = malloc(dir_len + name_len);
        char* uri_text = malloc(3 * name_len + 1);
        if (!patched) patched = json_deep_copy(o->json);
        if (!file || !uri_text || !patched) {
            free(file), free(uri_text), json_decref(patched);
            return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        }
        buffers = json_object_get(patched, "buffers");
        char* name = file + dir_len;
        memcpy(file, path, dir_len);
        if (b == 0)
            snprintf(name, name_len, "%.*s.bin", (int)stem_len, base);
        else
            snprintf(name, name_len, "%.*s_%u.bin", (int)stem_len, base, b);
        uri_escape(name, uri_text);
        json_object_set_new(json_array_get(buffers, b), "uri", json_string(uri_text));
        tl_result r = tl_output_add(out, file, o->data[b], o->size[b], def->overwrite, err);
        free(file);
        free(uri_text);
        if (r != TL_OK) {
            json_decref(patched);
            return r;
        }
    }
    char* text = dump_json(patched ? patched : o->json);
    json_decref(patched);
    if (!text)
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: cannot serialise the JSON",
                            tl_gltf_label(doc));
    tl_result r = tl_output_add(out, path, text, strlen(text), def->overwrite, err);
    free(text);
    return r;
}

tl_result tl_gltf_save_glb_memory(const tl_gltf* doc, const tl_gltf_save_def* def,
                                  uint8_t** out_bytes, size_t* out_size, tl_error* err) {
    tl_gltf_save_def defaults = tl_default_gltf_save_def();
    if (!def) def = &defaults;
    output o;
    tl_result r = output_make(doc, def, &o, err);
    if (r == TL_OK) r = build_glb(doc, &o, out_bytes, out_size, err);
    output_free(&o);
    return r;
}

tl_result tl_gltf_save_add(const tl_gltf* doc, const char* path, const tl_gltf_save_def* def,
                           tl_output* out, tl_error* err) {
    tl_gltf_save_def defaults = tl_default_gltf_save_def();
    if (!def) def = &defaults;
    const tl_gltf_index* ix = doc->internal;
    for (uint32_t i = 0; !def->replace_input && i < ix->source_count; ++i)
        TRY(tl_output_protect_id(out, ix->sources[i].dev, ix->sources[i].ino, tl_gltf_label(doc),
                                 err));
    output o;
    tl_result r = output_make(doc, def, &o, err);
    if (r != TL_OK) {
        output_free(&o);
        return r;
    }
    if (def->force_glb || !ends_with(path, ".gltf")) {
        uint8_t* bytes;
        size_t size;
        r = build_glb(doc, &o, &bytes, &size, err);
        if (r == TL_OK) {
            r = tl_output_add(out, path, bytes, size, def->overwrite, err);
            free(bytes);
        }
    } else {
        r = save_gltf_text(doc, &o, path, def, out, err);
    }
    output_free(&o);
    return r;
}

tl_result tl_gltf_save(const tl_gltf* doc, const char* path, const tl_gltf_save_def* def,
                       tl_error* err) {
    tl_output* out;
    TRY(tl_output_create(&out, err));
    tl_result r = tl_gltf_save_add(doc, path, def, out, err);
    if (r == TL_OK) r = tl_output_commit(out, err);
    tl_output_destroy(out);
    return r;
}
