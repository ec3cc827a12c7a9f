/* libFuzzer target for the batch module's two text readers. The input is read as an input list
 * (every path kept is relative, without "..", shorter than TL_BATCH_PATH_MAX), then as a journal
 * (batch.jsonl)
 * opened with --resume over three inputs in a scratch folder ("a.glb" and "b/c.glb" with their
 * outputs, "d.glb" without). After a successful open the rewritten journal holds only complete
 * JSON lines, each a successful record of a known input with its output, at most one per input,
 * and tl_batch_journal_done names exactly those inputs. */
#define _POSIX_C_SOURCE 200809L
#include <tailor/batch.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char dir[64], journal[128], out_dir[96];
static char* relative[] = {"a.glb", "b/c.glb", "d.glb"};
static char root[96];
static tl_batch_inputs inputs = {root, relative, 3};

static void write_file(const char* folder, const char* name, const char* text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE* f = fopen(path, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) abort();
}

static void remove_folder(void) {
    const char* names[] = {"in/a.glb",
                           "in/b/c.glb",
                           "in/d.glb",
                           "in/list.txt",
                           "out/a.glb",
                           "out/b/c.glb",
                           "out/batch.jsonl",
                           "out/batch.jsonl.resume",
                           "in/b",
                           "out/b",
                           "in",
                           "out"};
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    remove(dir);
}

static void make_folder(void) {
    strcpy(dir, "/tmp/tl-fuzz-journal-XXXXXX");
    if (!mkdtemp(dir)) abort();
    snprintf(root, sizeof root, "%s/in", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    snprintf(journal, sizeof journal, "%s/batch.jsonl", out_dir);
    char sub[128];
    const char* folders[] = {root, out_dir};
    for (int i = 0; i < 2; ++i) {
        snprintf(sub, sizeof sub, "%s/b", folders[i]);
        if (mkdir(folders[i], 0755) != 0 || mkdir(sub, 0755) != 0) abort();
    }
    /* sha256 "a" = ca9781..., "b" = 3e23e8... (the seeds' records) */
    write_file(root, "a.glb", "a");
    write_file(root, "b/c.glb", "b");
    write_file(root, "d.glb", "d");
    write_file(out_dir, "a.glb", "rigged a");
    write_file(out_dir, "b/c.glb", "rigged b");
    atexit(remove_folder);
}

static int known_input(const char* s) {
    for (int i = 0; i < 3; ++i)
        if (s && !strcmp(s, relative[i])) return i;
    return -1;
}

static void read_as_list(const uint8_t* data, size_t size) {
    char list[128];
    snprintf(list, sizeof list, "%s/list.txt", root);
    FILE* f = fopen(list, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    tl_batch_inputs* in;
    tl_error err;
    if (tl_batch_inputs_list(list, NULL, &in, &err) != TL_OK) return;
    for (uint32_t i = 0; i < in->count; ++i) {
        const char* p = in->relative[i];
        if (!*p || *p == '/' || strlen(p) >= TL_BATCH_PATH_MAX || !strncmp(p, "../", 3) ||
            strstr(p, "/../") || (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/..")) ||
            !strcmp(p, ".."))
            abort();
    }
    tl_batch_inputs_destroy(in);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!dir[0]) make_folder();
    read_as_list(data, size);
    FILE* f = fopen(journal, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    tl_batch_journal* j;
    tl_error err;
    if (tl_batch_journal_open(journal, out_dir, &inputs, &j, &err) != TL_OK) return 0;
    json_error_t jerr;
    f = fopen(journal, "rb");
    if (!f) abort();
    int seen[3] = {0, 0, 0};
    char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') abort(); /* only complete lines */
        json_t* o = json_loadb(line, n - 1, 0, &jerr);
        if (!o) abort();
        int k = known_input(json_string_value(json_object_get(o, "input")));
        if (k < 0 || k == 2 || seen[k]++ || !json_is_true(json_object_get(o, "ok"))) abort();
        json_decref(o);
    }
    fclose(f);
    for (int i = 0; i < 3; ++i)
        if (tl_batch_journal_done(j, relative[i]) != (seen[i] == 1)) abort();
    tl_batch_journal_close(j);
    return 0;
}
