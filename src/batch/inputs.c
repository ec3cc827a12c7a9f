/* The inputs of a batch: a folder walked or a list read, sorted; shards; the input's sha256. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <tailor/file.h>
#include "base/try.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <unistd.h>

typedef struct walk {
    tl_batch_inputs* in;
    uint32_t capacity;
    bool has_exclude;
    dev_t ex_dev;
    ino_t ex_ino;
} walk;

static bool is_model(const char* name) {
    size_t n = strlen(name);
    static const char* ext[] = {".glb", ".gltf", ".vrm"};
    for (size_t i = 0; i < 3; ++i) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcasecmp(name + n - e, ext[i])) return true;
    }
    return false;
}

static tl_result add(walk* w, const char* relative, tl_error* err) {
    if (strlen(relative) >= TL_BATCH_PATH_MAX)
        return tl_error_set(err, TL_ERROR_LIMIT, "%s: path longer than %d bytes", relative,
                            TL_BATCH_PATH_MAX - 1);
    tl_batch_inputs* in = w->in;
    if (in->count == w->capacity) {
        uint32_t cap = w->capacity ? 2 * w->capacity : 64;
        char** p = realloc(in->relative, cap * sizeof *p);
        if (!p) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        in->relative = p;
        w->capacity = cap;
    }
    char* s = strdup(relative);
    if (!s) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    in->relative[in->count++] = s;
    return TL_OK;
}

/* `relative` is "" at the root; the path on disk is root/relative. */
static tl_result walk_dir(walk* w, const char* relative, tl_error* err) {
    char path[2 * TL_BATCH_PATH_MAX];
    snprintf(path, sizeof path, "%s%s%s", w->in->root, *relative ? "/" : "", relative);
    DIR* d = opendir(path);
    if (!d) return tl_error_set(err, TL_ERROR_IO, "%s: %s", path, strerror(errno));
    tl_result r = TL_OK;
    struct dirent* e;
    while (r == TL_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char rel[TL_BATCH_PATH_MAX + 256], full[2 * TL_BATCH_PATH_MAX + 256];
        snprintf(rel, sizeof rel, "%s%s%s", relative, *relative ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", w->in->root, rel);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (w->has_exclude && st.st_dev == w->ex_dev && st.st_ino == w->ex_ino) continue;
            if (strlen(rel) >= TL_BATCH_PATH_MAX)
                r = tl_error_set(err, TL_ERROR_LIMIT, "%s: path longer than %d bytes", full,
                                 TL_BATCH_PATH_MAX - 1);
            else
                r = walk_dir(w, rel, err);
        } else if (is_model(e->d_name)) {
            /* a file, a link (dangling or not) or anything else named like a model: an input,
               which fails on load if it is not one */
            r = add(w, rel, err);
        }
    }
    closedir(d);
    return r;
}

static bool bad_relative(const char* p) {
    if (p[0] == '/') return true;
    for (const char* s = p; *s;) {
        const char* slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') return true;
        s += n + (slash != NULL);
    }
    return false;
}

/* The list's lines, read through tl_file_read (a FIFO is refused, not waited on). */
static tl_result read_list(walk* w, const char* list, tl_error* err) {
    uint8_t* data;
    size_t size;
    TRY(tl_file_read(list, TL_BATCH_LIST_MAX_BYTES, &data, &size, NULL, NULL, err));
    char* text = (char*)data;
    tl_result r = TL_OK;
    unsigned n = 1;
    for (char* line = text; r == TL_OK && line < text + size; ++n) {
        char* nl = memchr(line, '\n', (size_t)(text + size - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(text + size - line);
        char* next = line + len + 1;
        if (memchr(line, 0, len)) {
            r = tl_error_set(err, TL_ERROR_ARGUMENT, "%s: line %u: binary data at byte offset %zu",
                             list, n, (size_t)((char*)memchr(line, 0, len) - text));
            break;
        }
        line[len] = 0;
        if (len && line[len - 1] == '\r') line[--len] = 0;
        if (len > TL_BATCH_PATH_MAX - 1) {
            r = tl_error_set(err, TL_ERROR_LIMIT, "%s: line %u: path longer than %d bytes", list, n,
                             TL_BATCH_PATH_MAX - 1);
            break;
        }
        const char* p = line;
        line = next;
        while (p[0] == '.' && p[1] == '/')
            p += 2;
        if (!*p || *p == '#') continue;
        if (bad_relative(p))
            r = tl_error_set(err, TL_ERROR_ARGUMENT,
                             "%s: line %u: \"%s\": a list holds paths relative to its folder, "
                             "without \"..\"",
                             list, n, p);
        else
            r = add(w, p, err);
    }
    free(text);
    return r;
}

static int compare(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

tl_result tl_batch_inputs_list(const char* source, const char* exclude, tl_batch_inputs** out,
                               tl_error* err) {
    *out = NULL;
    struct stat st;
    if (stat(source, &st) != 0)
        return tl_error_set(err, TL_ERROR_IO, "%s: %s", source, strerror(errno));
    tl_batch_inputs* in = calloc(1, sizeof *in);
    if (!in) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    walk w = {.in = in};
    struct stat ex;
    if (exclude && stat(exclude, &ex) == 0) {
        w.has_exclude = true;
        w.ex_dev = ex.st_dev;
        w.ex_ino = ex.st_ino;
    }
    tl_result r;
    if (S_ISDIR(st.st_mode)) {
        in->root = strdup(source);
        r = in->root ? walk_dir(&w, "", err) : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    } else {
        const char* slash = strrchr(source, '/');
        in->root =
            slash ? strndup(source, (size_t)(slash - source + (slash == source))) : strdup(".");
        r = in->root ? read_list(&w, source, err)
                     : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    if (r != TL_OK) {
        tl_batch_inputs_destroy(in);
        return r;
    }
    if (in->count)
        qsort(in->relative, in->count, sizeof *in->relative, compare); /* NULL when empty */
    uint32_t kept = 0; /* a list may name a file twice */
    for (uint32_t i = 0; i < in->count; ++i) {
        if (kept && !strcmp(in->relative[kept - 1], in->relative[i]))
            free(in->relative[i]);
        else
            in->relative[kept++] = in->relative[i];
    }
    in->count = kept;
    *out = in;
    return TL_OK;
}

void tl_batch_inputs_destroy(tl_batch_inputs* in) {
    if (!in) return;
    for (uint32_t i = 0; i < in->count; ++i)
        free(in->relative[i]);
    free(in->relative);
    free(in->root);
    free(in);
}

uint32_t tl_batch_shard_of(const char* relative, uint32_t n) {
    assert(n >= 1);
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char* p = (const unsigned char*)relative; *p; ++p) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return (uint32_t)(h % n);
}

void tl_batch_inputs_shard(tl_batch_inputs* in, uint32_t index, uint32_t count) {
    assert(index < count);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < in->count; ++i) {
        if (tl_batch_shard_of(in->relative[i], count) == index)
            in->relative[kept++] = in->relative[i];
        else
            free(in->relative[i]);
    }
    in->count = kept;
}

tl_result tl_batch_sha256_file(const char* path, char hex[65], tl_error* err) {
    hex[0] = 0;
    int fd;
    TRY(tl_file_open(path, &fd, err));
    FILE* f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", path);
    }
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        fclose(f);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: sha256: out of memory", path);
    }
    unsigned char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(ctx, buf, n) == 1;
    ok = ok && !ferror(f);
    int saved = errno;
    fclose(f);
    unsigned char md[32];
    unsigned int len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &len) == 1 && len == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok) return tl_error_set(err, TL_ERROR_IO, "%s: cannot read: %s", path, strerror(saved));
    for (int i = 0; i < 32; ++i)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return TL_OK;
}
