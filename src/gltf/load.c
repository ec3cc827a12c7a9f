/* Reading .glb/.vrm and .gltf: the container, the JSON tree, and every buffer's bytes.
 * Header fields are read with memcpy and lengths checked by subtraction. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <tailor/file.h>

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GLB_MAGIC = 0x46546C67, GLB_JSON = 0x4E4F534A, GLB_BIN = 0x004E4942 };

const char* tl_gltf_label(const tl_gltf* doc) {
    if (!doc->path || !doc->path[0]) return "<memory>";
    return doc->path;
}

static uint32_t read_u32(const uint8_t* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v; /* glTF is little-endian, as is every target tailor builds for */
}

tl_result tl_gltf_buffer_reserve(tl_gltf_buffer* buffer, size_t size) {
    if (size <= buffer->capacity) return TL_OK;
    size_t cap = buffer->capacity ? buffer->capacity : 256;
    while (cap < size)
        cap = cap > SIZE_MAX / 2 ? size : cap * 2;
    /* not zeroed: every caller writes the bytes up to the size it sets (a view's gap too), and
     * nothing reads past the size; zeroing touched pages the rig's appends never use */
    uint8_t* data = realloc(buffer->data, cap);
    if (!data) return TL_ERROR_MEMORY;
    buffer->data = data;
    buffer->capacity = cap;
    return TL_OK;
}

static int hex_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static int base64_value(char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* The payload of a base64 data: URI, or NULL when `uri` is not one. */
static const char* data_uri_payload(const char* uri) {
    if (strncmp(uri, "data:", 5) != 0) return NULL;
    const char* comma = strchr(uri, ',');
    if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7) != 0) return NULL;
    return comma + 1;
}

size_t tl_gltf_data_uri_decode(const char* uri, uint8_t* out, size_t out_capacity) {
    const char* p = data_uri_payload(uri);
    if (!p) return (size_t)-1;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (; *p && *p != '='; ++p) {
        int v = base64_value(*p);
        if (v < 0) return (size_t)-1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n == out_capacity) return (size_t)-1;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    /* Up to two '=' of padding and nothing after them; a lone 6-bit group is no byte. */
    int pad = 0;
    while (*p == '=' && pad < 2)
        ++p, ++pad;
    if (*p || bits == 6) return (size_t)-1;
    return n;
}

char* tl_gltf_base64_encode(const uint8_t* data, size_t size) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = (size + 2) / 3 * 4;
    char* out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < size) v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < size) v |= data[i + 2];
        out[o++] = table[(v >> 18) & 63];
        out[o++] = table[(v >> 12) & 63];
        out[o++] = i + 1 < size ? table[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < size ? table[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* Reads a whole file (base/file.c: regular files only, never blocking, at most the size
 * limit); `source` (optional) gets the file's device and inode. */
static tl_result read_file(const char* path, uint8_t** out, size_t* size, tl_gltf_source* source,
                           tl_error* err) {
    uint64_t dev = 0, ino = 0;
    tl_result r = tl_file_read(path, TL_GLTF_MAX_FILE_BYTES, out, size, &dev, &ino, err);
    if (r == TL_OK && source) *source = (tl_gltf_source){dev, ino};
    return r;
}

/* Remembers a file the document was read from, so that saving never replaces it. */
static void add_source(tl_gltf* doc, tl_gltf_source source) {
    tl_gltf_index* ix = doc->internal;
    tl_gltf_source* grown = realloc(ix->sources, (ix->source_count + 1) * sizeof *grown);
    if (!grown) return; /* a failed realloc keeps the old list; the input check still runs */
    ix->sources = grown;
    ix->sources[ix->source_count++] = source;
}

bool tl_gltf_uri_decode(const char* uri, char* out, size_t cap) {
    if (cap == 0 || uri[0] == '/' || strstr(uri, "://") || strncmp(uri, "file:", 5) == 0)
        return false;
    size_t n = 0;
    for (const char* p = uri; *p; ++p) {
        if (n + 1 >= cap) return false;
        if (*p == '%') {
            int hi = hex_value(p[1]), lo = hi < 0 ? -1 : hex_value(p[2]);
            if (lo < 0 || (hi == 0 && lo == 0)) return false;
            out[n++] = (char)(hi * 16 + lo);
            p += 2;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    if (out[0] == '/') return false;
    for (const char* p = out; (p = strstr(p, "..")); p += 2)
        if ((p == out || p[-1] == '/') && (p[2] == '/' || p[2] == '\0')) return false;
    return true;
}

static bool resolve_uri(const char* base_dir, const char* uri, char* out, size_t cap) {
    char decoded[4096];
    if (!tl_gltf_uri_decode(uri, decoded, sizeof decoded)) return false;
    return snprintf(out, cap, "%s/%s", base_dir, decoded) < (int)cap;
}

static tl_result load_buffers(tl_gltf* doc, const uint8_t* bin, size_t bin_size, bool has_bin,
                              const char* base_dir, tl_error* err) {
    const char* label = tl_gltf_label(doc);
    json_t* buffers = json_object_get(doc->json, "buffers");
    if (!buffers) return TL_OK;
    if (!json_is_array(buffers))
        return tl_error_set(err, TL_ERROR_INVALID, "%s: /buffers: not an array", label);
    size_t n = json_array_size(buffers);
    if (n > 4096) return tl_error_set(err, TL_ERROR_LIMIT, "%s: /buffers: %zu buffers", label, n);
    doc->buffers = calloc(n ? n : 1, sizeof *doc->buffers);
    if (!doc->buffers) return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", label);
    doc->buffer_count = (uint32_t)n;
    for (size_t i = 0; i < n; ++i) {
        json_t* b = json_array_get(buffers, i);
        json_t* len = json_object_get(b, "byteLength");
        if (!json_is_object(b) || !json_is_integer(len) || json_integer_value(len) < 0)
            return tl_error_set(err, TL_ERROR_INVALID,
                                "%s: /buffers/%zu/byteLength: required integer", label, i);
        uint64_t length = (uint64_t)json_integer_value(len);
        if (length > TL_GLTF_MAX_FILE_BYTES)
            return tl_error_set(err, TL_ERROR_LIMIT, "%s: /buffers/%zu/byteLength: %llu too large",
                                label, i, (unsigned long long)length);
        tl_gltf_buffer* buf = &doc->buffers[i];
        json_t* uri_value = json_object_get(b, "uri");
        const char* uri = json_string_value(uri_value);
        if (uri_value && !uri)
            return tl_error_set(err, TL_ERROR_INVALID, "%s: /buffers/%zu/uri: not a string", label,
                                i);
        /* Every source is checked to hold byteLength bytes before anything that size is
         * allocated, so a tiny file cannot ask for gigabytes. */
        const uint8_t* src = NULL;
        uint8_t* file_data = NULL;
        size_t src_size = 0;
        if (!uri) {
            if (i != 0 || !has_bin)
                return tl_error_set(err, TL_ERROR_INVALID,
                                    "%s: /buffers/%zu: no uri and no GLB BIN chunk", label, i);
            if (bin_size < length)
                return tl_error_set(
                    err, TL_ERROR_INVALID,
                    "%s: /buffers/0/byteLength: %llu but the BIN chunk has %zu bytes", label,
                    (unsigned long long)length, bin_size);
            src = bin;
            src_size = bin_size;
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char* payload = data_uri_payload(uri);
            if (!payload || strlen(payload) / 4 * 3 + 3 < length)
                return tl_error_set(err, TL_ERROR_INVALID,
                                    "%s: /buffers/%zu/uri: not a base64 data URI of %llu bytes",
                                    label, i, (unsigned long long)length);
        } else {
            char path[4096];
            if (!base_dir || !resolve_uri(base_dir, uri, path, sizeof path))
                return tl_error_set(
                    err, TL_ERROR_INVALID,
                    "%s: /buffers/%zu/uri: \"%.200s\" is not a relative file reference", label, i,
                    uri);
            tl_error file_err;
            tl_gltf_source source;
            tl_result r = read_file(path, &file_data, &src_size, &source, &file_err);
            if (r != TL_OK)
                return tl_error_set(err, r, "%s: /buffers/%zu/uri: %s", label, i, file_err.message);
            add_source(doc, source);
            if (src_size < length) {
                free(file_data);
                return tl_error_set(err, TL_ERROR_INVALID,
                                    "%s: /buffers/%zu: %s has %zu bytes, byteLength says %llu",
                                    label, i, path, src_size, (unsigned long long)length);
            }
            src = file_data;
            buf->external = true;
        }
        size_t reserve = uri && !src ? strlen(uri) / 4 * 3 + 3 : (size_t)length;
        if (tl_gltf_buffer_reserve(buf, reserve ? reserve : 1) != TL_OK) {
            free(file_data);
            return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory for buffer %zu", label, i);
        }
        buf->size = (size_t)length;
        if (src) {
            if (length) memcpy(buf->data, src, (size_t)length);
            free(file_data);
        } else {
            size_t got = tl_gltf_data_uri_decode(uri, buf->data, buf->capacity);
            if (got == (size_t)-1 || got < length)
                return tl_error_set(err, TL_ERROR_INVALID,
                                    "%s: /buffers/%zu/uri: not a base64 data URI of %llu bytes",
                                    label, i, (unsigned long long)length);
        }
    }
    return TL_OK;
}

static tl_result parse(tl_gltf* doc, const uint8_t* bytes, size_t size, const char* base_dir,
                       tl_error* err) {
    const char* label = tl_gltf_label(doc);
    if (size == 0)
        return tl_error_set(err, TL_ERROR_FORMAT, "%s: byte 0: the file is empty", label);
    const uint8_t* json_bytes = bytes;
    size_t json_size = size;
    const uint8_t* bin = NULL;
    size_t bin_size = 0;
    bool has_bin = false;
    if (size >= 4 && read_u32(bytes) == GLB_MAGIC) {
        doc->glb = true;
        if (size < 20)
            return tl_error_set(err, TL_ERROR_FORMAT, "%s: byte %zu: GLB shorter than its header",
                                label, size);
        uint32_t version = read_u32(bytes + 4), length = read_u32(bytes + 8);
        if (version != 2)
            return tl_error_set(err, TL_ERROR_UNSUPPORTED, "%s: byte 4: GLB version %u (need 2)",
                                label, version);
        if (length > size || length < 20)
            return tl_error_set(err, TL_ERROR_FORMAT,
                                "%s: byte 8: GLB length %u but the file has %zu bytes", label,
                                length, size);
        size_t offset = 12;
        uint32_t chunk_len = read_u32(bytes + offset), chunk_type = read_u32(bytes + offset + 4);
        if (chunk_type != GLB_JSON)
            return tl_error_set(err, TL_ERROR_FORMAT, "%s: byte 16: first chunk is not JSON",
                                label);
        if (chunk_len > length - offset - 8)
            return tl_error_set(err, TL_ERROR_FORMAT,
                                "%s: byte 12: JSON chunk length %u runs past the end (%u)", label,
                                chunk_len, length);
        json_bytes = bytes + offset + 8;
        json_size = chunk_len;
        offset += 8 + (size_t)chunk_len;
        while (length - offset >= 8) {
            chunk_len = read_u32(bytes + offset);
            chunk_type = read_u32(bytes + offset + 4);
            if (chunk_len > length - offset - 8)
                return tl_error_set(err, TL_ERROR_FORMAT,
                                    "%s: byte %zu: chunk length %u runs past the end (%u)", label,
                                    offset, chunk_len, length);
            if (chunk_type == GLB_BIN && !has_bin) {
                bin = bytes + offset + 8;
                bin_size = chunk_len;
                has_bin = true;
            }
            offset += 8 + (size_t)chunk_len;
        }
        if (offset != length)
            return tl_error_set(err, TL_ERROR_FORMAT,
                                "%s: byte %zu: %zu stray bytes after the last chunk", label, offset,
                                (size_t)length - offset);
    }
    tl_result nul =
        tl_file_check_json_text(json_bytes, json_size, (size_t)(json_bytes - bytes), label, err);
    if (nul != TL_OK) return nul;
    json_error_t jerr;
    doc->json = json_loadb((const char*)json_bytes, json_size, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc->json)
        return tl_error_set(err, TL_ERROR_FORMAT, "%s: JSON line %d column %d (byte %d): %s", label,
                            jerr.line, jerr.column, jerr.position, jerr.text);
    if (!json_is_object(tl_gltf_json(doc)))
        return tl_error_set(err, TL_ERROR_FORMAT, "%s: the JSON is not an object", label);
    tl_result r = load_buffers(doc, bin, bin_size, has_bin, base_dir, err);
    if (r != TL_OK) return r;
    return tl_gltf_index_build(doc, err);
}

static tl_gltf* doc_new(const char* path) {
    tl_gltf* doc = calloc(1, sizeof *doc);
    if (!doc) return NULL;
    doc->internal = calloc(1, sizeof(tl_gltf_index));
    doc->path = strdup(path ? path : "");
    doc->scene = TL_NONE;
    if (!doc->internal || !doc->path) {
        tl_gltf_destroy(doc);
        return NULL;
    }
    return doc;
}

tl_result tl_gltf_load_memory(const void* bytes, size_t size, const char* name,
                              const char* base_dir, tl_gltf** out, tl_error* err) {
    *out = NULL;
    tl_gltf* doc = doc_new(name);
    if (!doc)
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", name ? name : "<memory>");
    tl_result r = parse(doc, bytes, size, base_dir, err);
    if (r != TL_OK) {
        tl_gltf_destroy(doc);
        return r;
    }
    *out = doc;
    return TL_OK;
}

tl_result tl_gltf_load(const char* path, tl_gltf** out, tl_error* err) {
    *out = NULL;
    uint8_t* bytes;
    size_t size;
    tl_gltf_source source;
    tl_result r = read_file(path, &bytes, &size, &source, err);
    if (r != TL_OK) return r;
    char dir[4096];
    const char* slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    tl_gltf* doc = doc_new(path);
    if (!doc) {
        free(bytes);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", path);
    }
    add_source(doc, source);
    r = parse(doc, bytes, size, dir, err);
    free(bytes);
    if (r != TL_OK) {
        tl_gltf_destroy(doc);
        return r;
    }
    *out = doc;
    return TL_OK;
}

tl_result tl_gltf_create(tl_gltf** out, tl_error* err) {
    *out = NULL;
    tl_gltf* doc = doc_new("");
    if (!doc) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    doc->json = json_pack("{s:{s:s,s:s}}", "asset", "version", "2.0", "generator", "tailor");
    if (!doc->json) {
        tl_gltf_destroy(doc);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    *out = doc;
    return TL_OK;
}

tl_result tl_gltf_clone(const tl_gltf* doc, tl_gltf** out, tl_error* err) {
    assert(doc && out);
    *out = NULL;
    tl_gltf* copy = doc_new(doc->path);
    if (!copy || !(copy->json = json_deep_copy(tl_gltf_json(doc))) ||
        !(copy->buffers = calloc(doc->buffer_count + 1, sizeof *copy->buffers))) {
        tl_gltf_destroy(copy);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", tl_gltf_label(doc));
    }
    copy->glb = doc->glb;
    for (uint32_t i = 0; i < doc->buffer_count; ++i) {
        const tl_gltf_buffer* b = &doc->buffers[i];
        copy->buffers[i].external = b->external;
        if (tl_gltf_buffer_reserve(&copy->buffers[i], b->size) != TL_OK) {
            copy->buffer_count = i + 1;
            tl_gltf_destroy(copy);
            return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", tl_gltf_label(doc));
        }
        if (b->size) memcpy(copy->buffers[i].data, b->data, b->size);
        copy->buffers[i].size = b->size;
    }
    copy->buffer_count = doc->buffer_count;
    tl_result r = tl_gltf_index_build(copy, err);
    if (r != TL_OK) {
        tl_gltf_destroy(copy);
        return r;
    }
    *out = copy;
    return TL_OK;
}

void tl_gltf_destroy(tl_gltf* doc) {
    if (!doc) return;
    if (doc->internal) {
        tl_gltf_index_free(doc);
        free(((tl_gltf_index*)doc->internal)->blocks);
        free(((tl_gltf_index*)doc->internal)->sources);
        free(doc->internal);
    }
    for (uint32_t i = 0; i < doc->buffer_count; ++i)
        free(doc->buffers[i].data);
    free(doc->buffers);
    json_decref(doc->json);
    free(doc->path);
    free(doc);
}

tl_result tl_gltf_reindex(tl_gltf* doc, tl_error* err) {
    return tl_gltf_index_build(doc, err);
}
