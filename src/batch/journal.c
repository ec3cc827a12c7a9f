/* batch.jsonl: one JSON line per file, appended with one write(2) each; read back to resume. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <tailor/file.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/try.h"

static json_t* part_json(const tl_batch_part* p) {
    json_t* o = json_object();
    json_object_set_new(o, "id", json_integer(p->id));
    json_object_set_new(o, "class", json_string(tl_rig_class_string(p->cls)));
    json_object_set_new(o, "action", json_string(tl_rig_action_string(p->action)));
    json_object_set_new(o, "bones", json_integer(p->bones));
    json_object_set_new(o, "bone_distance", json_real(p->bone_distance));
    json_object_set_new(o, "bone_distance_after", json_real(p->bone_distance_after));
    json_object_set_new(o, "stretch_p99",
                        p->stretch_measured ? json_real(p->stretch_p99) : json_null());
    json_object_set_new(o, "stretch_p99_after",
                        p->stretch_measured ? json_real(p->stretch_p99_after) : json_null());
    json_object_set_new(o, "new_torn_pct",
                        p->stretch_measured && p->new_torn_pct >= 0 ? json_real(p->new_torn_pct)
                                                                    : json_null());
    return o;
}

static json_t* record_json(const tl_batch_record* r) {
    json_t* o = json_object();
    json_object_set_new(o, "input", json_string(r->input));
    json_object_set_new(o, "output", r->ok ? json_string(r->output) : json_null());
    json_object_set_new(o, "sha256", json_string(r->sha256));
    json_object_set_new(o, "ok", json_boolean(r->ok));
    if (r->ok) {
        json_t* by = json_object();
        for (int c = 0; c < TL_RIG_CLASS_COUNT; ++c)
            json_object_set_new(by, tl_rig_class_string((tl_rig_class)c),
                                json_integer(r->parts_by_class[c]));
        json_object_set_new(o, "part_count", json_integer(r->part_count));
        json_object_set_new(o, "parts_by_class", by);
        json_object_set_new(o, "chains", json_integer(r->chains));
        json_object_set_new(o, "bones_added", json_integer(r->bones_added));
        json_object_set_new(o, "changed_vertices", json_integer(r->changed_vertices));
        json_t* parts = json_array();
        uint32_t n = r->part_count < TL_BATCH_MAX_PARTS ? r->part_count : TL_BATCH_MAX_PARTS;
        for (uint32_t i = 0; i < n; ++i)
            json_array_append_new(parts, part_json(&r->parts[i]));
        json_object_set_new(o, "parts", parts);
        json_object_set_new(o, "error", json_null());
    } else {
        json_object_set_new(o, "error",
                            json_pack("{s:s, s:s, s:s, s:s}", "result", tl_result_string(r->result),
                                      "file", r->error_file, "pointer", r->error_pointer, "message",
                                      r->error_message));
    }
    /* last, so a comparison can cut it: the one field that differs between equal runs */
    json_object_set_new(o, "seconds", json_real(r->seconds));
    return o;
}

size_t tl_batch_record_json(const tl_batch_record* record, char* buffer, size_t size) {
    json_t* o = record_json(record);
    size_t n = o ? json_dumpb(o, buffer, size ? size - 1 : 0,
                              JSON_COMPACT | JSON_REAL_PRECISION(9) | JSON_ENSURE_ASCII)
                 : 0;
    json_decref(o);
    if (size) buffer[n < size ? n : size - 1] = 0;
    return n;
}

/* What resume needs of a successful record. */
typedef struct done_entry {
    const char* input; /* into the inputs */
    char sha256[65];
    size_t offset, length; /* the line in the old journal */
} done_entry;

struct tl_batch_journal {
    int fd;
    pthread_mutex_t lock;
    done_entry* done; /* sorted by input */
    uint32_t done_count;
    char* line; /* one record's line, reused under the lock */
    size_t line_size;
};

static int by_input(const void* a, const void* b) {
    const done_entry *x = a, *y = b;
    int c = strcmp(x->input, y->input);
    return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

static int by_offset(const void* a, const void* b) {
    const done_entry *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static int find_input(const void* key, const void* elem) {
    return strcmp((const char*)key, *(char* const*)elem);
}

static bool output_exists(const char* out_dir, const char* output) {
    char path[2 * TL_BATCH_PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/%s", out_dir, output);
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the whole journal through the one reader of user files (regular files only, never
 * blocking on a FIFO, bounded); *out is NULL with *size 0 when it does not exist. */
static tl_result read_all(const char* path, char** out, size_t* size, tl_error* err) {
    *out = NULL;
    *size = 0;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) return TL_OK;
    uint8_t* data;
    TRY(tl_file_read(path, TL_BATCH_JOURNAL_MAX_BYTES, &data, size, NULL, NULL, err));
    *out = (char*)data;
    return TL_OK;
}

/* The successful records of the journal whose input is one of `inputs` with the same sha256
 * now and whose output, the input's own path, exists; complete lines only (a partial last line
 * is a killed write). A line with a NUL byte is not JSON and is dropped, not the end of the
 * text, so the lines after it still count. */
static tl_result collect(tl_batch_journal* j, const char* text, size_t size,
                         const tl_batch_inputs* inputs, const char* out_dir, tl_error* err) {
    uint32_t cap = 0;
    if (!text) return TL_OK; /* no journal yet (NULL + 0 is undefined) */
    for (const char* line = text; line < text + size;) {
        const char* nl = memchr(line, '\n', (size_t)(text + size - line));
        if (!nl) break;
        json_t* o = tl_file_check_json_text(line, (size_t)(nl - line), 0, "", NULL) != TL_OK
                        ? NULL
                        : json_loadb(line, (size_t)(nl - line), 0, NULL);
        const char* input = json_string_value(json_object_get(o, "input"));
        const char* sha = json_string_value(json_object_get(o, "sha256"));
        const char* output = json_string_value(json_object_get(o, "output"));
        char* const* known = input ? bsearch(input, inputs->relative, inputs->count,
                                             sizeof *inputs->relative, find_input)
                                   : NULL;
        /* the output must be the input's path: a journal cannot point outside out_dir */
        bool keep = known && sha && output && strlen(sha) == 64 && !strcmp(output, input) &&
                    json_is_true(json_object_get(o, "ok")) && output_exists(out_dir, output);
        char now[65];
        if (keep) {
            char path[2 * TL_BATCH_PATH_MAX + 8];
            snprintf(path, sizeof path, "%s/%s", inputs->root, input);
            keep = tl_batch_sha256_file(path, now, NULL) == TL_OK && !strcmp(now, sha);
        }
        if (keep && j->done_count == cap) {
            cap = cap ? 2 * cap : 256;
            done_entry* d = realloc(j->done, cap * sizeof *d);
            if (!d) {
                json_decref(o);
                return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
            }
            j->done = d;
        }
        if (keep) {
            done_entry* d = &j->done[j->done_count++];
            d->input = *known;
            memcpy(d->sha256, sha, 65);
            d->offset = (size_t)(line - text);
            d->length = (size_t)(nl - line);
        }
        json_decref(o);
        line = nl + 1;
    }
    /* the first record of an input wins */
    if (j->done_count) qsort(j->done, j->done_count, sizeof *j->done, by_input);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < j->done_count; ++i)
        if (!kept || strcmp(j->done[kept - 1].input, j->done[i].input))
            j->done[kept++] = j->done[i];
    j->done_count = kept;
    return TL_OK;
}

/* Rewrites the journal with the collected lines, in their order, through a temporary file
 * renamed into place (a kill during resume leaves the old journal or the new one). */
static tl_result resume_from(tl_batch_journal* j, const char* path, const tl_batch_inputs* inputs,
                             const char* out_dir, tl_error* err) {
    char* text;
    size_t size;
    TRY(read_all(path, &text, &size, err));
    tl_result r = collect(j, text, size, inputs, out_dir, err);
    char tmp[2 * TL_BATCH_PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.resume", path);
    FILE* f = r == TL_OK ? fopen(tmp, "wb") : NULL;
    if (r == TL_OK && !f) r = tl_error_set(err, TL_ERROR_IO, "%s: %s", tmp, strerror(errno));
    if (j->done_count) qsort(j->done, j->done_count, sizeof *j->done, by_offset);
    for (uint32_t i = 0; r == TL_OK && i < j->done_count; ++i)
        if (fwrite(text + j->done[i].offset, 1, j->done[i].length, f) != j->done[i].length ||
            fputc('\n', f) == EOF)
            r = tl_error_set(err, TL_ERROR_IO, "%s: %s", tmp, strerror(errno));
    if (f && (fflush(f) != 0 || fsync(fileno(f)) != 0) && r == TL_OK)
        r = tl_error_set(err, TL_ERROR_IO, "%s: %s", tmp, strerror(errno));
    if (f) fclose(f);
    if (r == TL_OK && rename(tmp, path) != 0)
        r = tl_error_set(err, TL_ERROR_IO, "%s: %s", path, strerror(errno));
    if (f && r != TL_OK) remove(tmp);
    free(text);
    if (j->done_count) qsort(j->done, j->done_count, sizeof *j->done, by_input);
    return r;
}

tl_result tl_batch_journal_open(const char* path, const char* out_dir,
                                const tl_batch_inputs* resume, tl_batch_journal** out,
                                tl_error* err) {
    *out = NULL;
    tl_batch_journal* j = calloc(1, sizeof *j);
    if (!j) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    j->fd = -1;
    pthread_mutex_init(&j->lock, NULL);
    tl_result r = resume ? resume_from(j, path, resume, out_dir, err) : TL_OK;
    if (r == TL_OK) {
        j->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | (resume ? 0 : O_TRUNC), 0644);
        if (j->fd < 0) r = tl_error_set(err, TL_ERROR_IO, "%s: %s", path, strerror(errno));
    }
    if (r != TL_OK) {
        tl_batch_journal_close(j);
        return r;
    }
    *out = j;
    return TL_OK;
}

static int find_done(const void* a, const void* b) {
    return strcmp(((const done_entry*)a)->input, ((const done_entry*)b)->input);
}

bool tl_batch_journal_done(const tl_batch_journal* j, const char* relative) {
    done_entry key = {.input = relative, .offset = 0};
    const done_entry* d =
        j->done_count ? bsearch(&key, j->done, j->done_count, sizeof *j->done, find_done) : NULL;
    return d != NULL;
}

tl_result tl_batch_journal_append(tl_batch_journal* j, const tl_batch_record* record,
                                  tl_error* err) {
    pthread_mutex_lock(&j->lock);
    tl_result r = TL_OK;
    size_t n = tl_batch_record_json(record, j->line, j->line_size);
    if (n + 2 > j->line_size) {
        char* b = realloc(j->line, n + 2);
        if (b) {
            j->line = b;
            j->line_size = n + 2;
            n = tl_batch_record_json(record, j->line, j->line_size);
        } else
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    if (r == TL_OK) {
        j->line[n] = '\n';
        /* one write of the whole line: O_APPEND places it at the end atomically, so a killed
           process leaves either the line or a prefix of the last one, never a mix */
        ssize_t w = write(j->fd, j->line, n + 1);
        if (w != (ssize_t)(n + 1))
            r = tl_error_set(err, TL_ERROR_IO, "batch journal: %s",
                             w < 0 ? strerror(errno) : "short write");
    }
    pthread_mutex_unlock(&j->lock);
    return r;
}

void tl_batch_journal_close(tl_batch_journal* j) {
    if (!j) return;
    if (j->fd >= 0) close(j->fd);
    free(j->done);
    free(j->line);
    pthread_mutex_destroy(&j->lock);
    free(j);
}
