/* The one writer (tailor/output.h) and every command's use of it: outputs aimed at an input
 * (by name, symlink or hard link), at a device, a FIFO or a folder are refused with a
 * message and nothing is written; a failed part leaves no other part and no temporary file;
 * a .gltf's .bin follows the output; inputs that are FIFOs are refused without blocking;
 * concurrent writers to one output leave one complete file. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/tailor.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char* path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A fresh scratch folder `name` with a copy of the fixture skin.glb as in.glb; returns it. */
static const char* fresh_dir(const char* name, char* in, size_t cap) {
    static char dir[2048];
    snprintf(dir, sizeof dir, "%s", tl_test_scratch(name));
    char command[16384];
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s' && cp '%s' '%s/in.glb'", dir,
             dir, tl_test_source("tests/data/gltf/skin.glb"), dir);
    if (system(command) != 0) return NULL;
    snprintf(in, cap, "%s/in.glb", dir);
    return dir;
}

/* Temporary files the writer left in `dir` (names starting ".tl-"). */
static int temps_in(const char* dir) {
    DIR* d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent* e;
    while ((e = readdir(d)))
        n += !strncmp(e->d_name, ".tl-", 4);
    closedir(d);
    return n;
}

static bool same_bytes(const unsigned char* a, size_t na, const char* path) {
    size_t nb = 0;
    unsigned char* b = tl_test_read_file(path, &nb);
    bool same = b && na == nb && memcmp(a, b, na) == 0;
    free(b);
    return same;
}

static void library_refuses_inputs_and_specials(void) {
    char in[4096], path[4096], sym[4096];
    const char* dir = fresh_dir("lib", in, sizeof in);
    ENSURE(dir);
    size_t size = 0;
    unsigned char* before = tl_test_read_file(in, &size);
    ENSURE(before);
    tl_output* out = NULL;
    tl_error err = {0};
    ENSURE_OK(tl_output_create(&out, &err), err);
    ENSURE_OK(tl_output_protect(out, in, &err), err);
    /* the input by name, through a symlink, through a hard link */
    snprintf(sym, sizeof sym, "%s/sym.glb", dir);
    ENSURE(symlink("in.glb", sym) == 0);
    snprintf(path, sizeof path, "%s/hard.glb", dir);
    ENSURE(link(in, path) == 0);
    const char* targets[] = {in, sym, path, "/dev/null", dir};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; ++i) {
        err.message[0] = '\0';
        tl_result r = tl_output_add(out, targets[i], "x", 1, true, &err);
        ENSURE_MSG(r != TL_OK && strstr(err.message, targets[i]), "%s: %s", targets[i],
                   err.message);
    }
    snprintf(path, sizeof path, "%s/fifo", dir);
    ENSURE(mkfifo(path, 0644) == 0);
    ENSURE(tl_output_add(out, path, "x", 1, true, &err) == TL_ERROR_IO &&
           strstr(err.message, "FIFO"));
    /* two parts naming one file, spelt differently */
    snprintf(path, sizeof path, "%s/a.json", dir);
    ENSURE_OK(tl_output_add(out, path, "{}", 2, true, &err), err);
    snprintf(path, sizeof path, "%s/./a.json", dir);
    ENSURE(tl_output_add(out, path, "{}", 2, true, &err) == TL_ERROR_ARGUMENT);
    /* not committed: nothing written, no temporary file */
    tl_output_destroy(out);
    snprintf(path, sizeof path, "%s/a.json", dir);
    ENSURE(!exists(path) && temps_in(dir) == 0);
    struct stat st;
    ENSURE(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    ENSURE(same_bytes(before, size, in));
    free(before);
}

static void library_all_or_nothing(void) {
    char in[4096], a[4096], b[4096];
    const char* dir = fresh_dir("all", in, sizeof in);
    ENSURE(dir);
    tl_output* out = NULL;
    tl_error err = {0};
    ENSURE_OK(tl_output_create(&out, &err), err);
    snprintf(a, sizeof a, "%s/first.json", dir);
    ENSURE_OK(tl_output_add(out, a, "{}", 2, true, &err), err);
    snprintf(b, sizeof b, "%s/no/such/second.json", dir);
    ENSURE(tl_output_add(out, b, "{}", 2, true, &err) == TL_ERROR_IO &&
           strstr(err.message, "second.json"));
    tl_output_destroy(out); /* the caller gives up after a failed part */
    ENSURE(!exists(a) && temps_in(dir) == 0);
    /* a 250-character file name: the temporary name is short, so it works */
    char name[300];
    memset(name, 'n', 245);
    memcpy(name + 245, ".glb", 5);
    snprintf(a, sizeof a, "%s/%s", dir, name);
    tl_gltf* doc = NULL;
    ENSURE_OK(tl_gltf_load(in, &doc, &err), err);
    tl_gltf_save_def def = tl_default_gltf_save_def();
    tl_result r = tl_gltf_save(doc, a, &def, &err);
    tl_gltf_destroy(doc);
    ENSURE_OK(r, err);
    ENSURE(exists(a) && temps_in(dir) == 0);
}

/* Every command aimed at its input, a link to it, a device, a FIFO: exit 1 naming the
 * target, the input unchanged, nothing written. */
static void commands_refuse_bad_targets(void) {
    char in[4096];
    const char* dir = fresh_dir("cli", in, sizeof in);
    ENSURE(dir);
    char command[8400];
    snprintf(command, sizeof command,
             "cd '%s' && ln -s in.glb sym.glb && ln in.glb hard.glb && mkfifo fifo && mkdir folder",
             dir);
    ENSURE(system(command) == 0);
    size_t size = 0;
    unsigned char* before = tl_test_read_file(in, &size);
    ENSURE(before);
    static const char* forms[] = {
        "rig '%s/in.glb' -o '%s/out.glb' --report '%s' 2>&1",
        "rig '%s/in.glb' -o '%s' --report '%s/out.json' 2>&1",
        "rig '%s/in.glb' --dry-run --report '%s' 2>&1%.0s",
        "copy '%s/in.glb' -o '%s' 2>&1%.0s",
        "sample tailed-biped -o '%s/out.glb' --truth '%s' 2>&1%.0s",
    };
    static const char* targets[] = {"in.glb", "sym.glb", "hard.glb", "fifo", "folder", "/dev/null"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f)
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; ++t) {
            if (f == 4 && t < 3) continue; /* sample has no input */
            char target[4096], args[8400];
            if (targets[t][0] == '/')
                snprintf(target, sizeof target, "%s", targets[t]);
            else
                snprintf(target, sizeof target, "%s/%s", dir, targets[t]);
            if (f == 1)
                snprintf(args, sizeof args, forms[f], dir, target, dir);
            else if (f == 2 || f == 3)
                snprintf(args, sizeof args, forms[f], dir, target, "");
            else if (f == 4)
                snprintf(args, sizeof args, forms[f], dir, target, "");
            else
                snprintf(args, sizeof args, forms[f], dir, dir, target);
            char* text = NULL;
            int code = tl_test_cli(&text, "%s", args);
            char out_glb[4200], out_json[4200];
            snprintf(out_glb, sizeof out_glb, "%s/out.glb", dir);
            snprintf(out_json, sizeof out_json, "%s/out.json", dir);
            bool ok = code == 1 && text && strstr(text, targets[t]) && !exists(out_glb) &&
                      !exists(out_json) && temps_in(dir) == 0 && same_bytes(before, size, in);
            struct stat st;
            ok = ok && stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode);
            ok = ok && stat(target, &st) == 0 &&
                 (t < 3 ? S_ISREG(st.st_mode) : !S_ISREG(st.st_mode));
            ENSURE_MSG(ok, "`tailor %s`: exit %d: %s", args, code, text ? text : "");
            free(text);
        }
    /* a FIFO as the input, and as a .gltf's buffer: refused at once, no blocking */
    char* text = NULL;
    int code = tl_test_cli(&text, "inspect '%s/fifo' 2>&1", dir);
    ENSURE_MSG(code == 1 && text && strstr(text, "FIFO"), "%s", text ? text : "");
    free(text);
    snprintf(command, sizeof command,
             "cd '%s' && printf '{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"fifo\","
             "\"byteLength\":4}]}' > piped.gltf",
             dir);
    ENSURE(system(command) == 0);
    code = tl_test_cli(&text, "inspect '%s/piped.gltf' 2>&1", dir);
    ENSURE_MSG(code == 1 && text && strstr(text, "/buffers/0/uri") && strstr(text, "FIFO"), "%s",
               text ? text : "");
    free(text);
    free(before);
}

/* copy in.gltf -o c.gltf --compact writes c.bin and never touches in.bin. */
static void gltf_sidecar_follows_output(void) {
    char in[4096];
    const char* dir = fresh_dir("sidecar", in, sizeof in);
    ENSURE(dir);
    ENSURE(tl_test_cli(NULL, "copy '%s' -o '%s/in.gltf' 2>&1", in, dir) == 0);
    char bin[4200], cbin[4200], cgltf[4200];
    snprintf(bin, sizeof bin, "%s/in.bin", dir);
    snprintf(cbin, sizeof cbin, "%s/c.bin", dir);
    snprintf(cgltf, sizeof cgltf, "%s/c.gltf", dir);
    size_t size = 0;
    unsigned char* before = tl_test_read_file(bin, &size);
    ENSURE(before);
    ENSURE(tl_test_cli(NULL, "copy '%s/in.gltf' -o '%s' --compact 2>&1", dir, cgltf) == 0);
    ENSURE(same_bytes(before, size, bin) && exists(cbin));
    free(before);
    tl_gltf *a = NULL, *b = NULL;
    tl_error err;
    char path[4200];
    snprintf(path, sizeof path, "%s/in.gltf", dir);
    ENSURE_OK(tl_gltf_load(path, &a, &err), err);
    tl_result r = tl_gltf_load(cgltf, &b, &err);
    tl_gltf_destroy(a);
    tl_gltf_destroy(b);
    ENSURE_OK(r, err);
    /* the .gltf aimed at its own name with --force rewrites both, consistently */
    ENSURE(tl_test_cli(NULL, "copy '%s' -o '%s' 2>&1", cgltf, cgltf) == 1);
    ENSURE(tl_test_cli(NULL, "copy '%s' -o '%s' --force 2>&1", cgltf, cgltf) == 0);
    ENSURE_OK(tl_gltf_load(cgltf, &b, &err), err);
    tl_gltf_destroy(b);
}

/* A failed rig writes neither the glTF nor the report. */
static void failed_rig_leaves_no_report(void) {
    char in[4096];
    const char* dir = fresh_dir("norep", in, sizeof in);
    ENSURE(dir);
    char* text = NULL;
    int code = tl_test_cli(&text, "rig '%s' -o '%s/no/such/out.glb' --report '%s/r.json' 2>&1", in,
                           dir, dir);
    char report[4200];
    snprintf(report, sizeof report, "%s/r.json", dir);
    ENSURE_MSG(code == 1 && !exists(report) && temps_in(dir) == 0, "exit %d: %s", code,
               text ? text : "");
    free(text);
}

/* 8 concurrent `tailor rig` to one -o and one --report, 25 rounds: after each, both are one
 * complete, valid file, and no temporary file is left. */
static void concurrent_writers(void) {
    char in[4096];
    const char* dir = fresh_dir("race", in, sizeof in);
    ENSURE(dir);
    char command[20000], out[4200], report[4200];
    snprintf(out, sizeof out, "%s/out.glb", dir);
    snprintf(report, sizeof report, "%s/out.json", dir);
    snprintf(command, sizeof command,
             "for i in 1 2 3 4 5 6 7 8; do '%s' rig '%s' -o '%s' --report '%s' >/dev/null 2>&1 & "
             "done; wait",
             TL_CLI_PATH, in, out, report);
    for (int round = 0; round < 25; ++round) {
        ENSURE(system(command) == 0);
        tl_gltf* doc = NULL;
        tl_error err;
        tl_result r = tl_gltf_load(out, &doc, &err);
        tl_gltf_destroy(doc);
        ENSURE_MSG(r == TL_OK, "round %d: %s", round, err.message);
        json_error_t jerr;
        json_t* j = json_load_file(report, 0, &jerr);
        ENSURE_MSG(j && json_object_get(j, "parts"), "round %d: the report: %s", round, jerr.text);
        json_decref(j);
        ENSURE(temps_in(dir) == 0);
    }
}

/* Every file a command reads, a FIFO in its place: exit 1 or 2 at once with a message naming
 * it as a FIFO (before session 11, `batch LIST`, `measure --region-json` and a FIFO among a
 * batch's inputs waited forever for a writer). */
static void commands_refuse_fifo_inputs(void) {
    char in[4096];
    const char* dir = fresh_dir("fifo_in", in, sizeof in);
    ENSURE(dir);
    char command[8400];
    snprintf(command, sizeof command, "cd '%s' && mkfifo fifo && mkdir batch && mkfifo batch/x.glb",
             dir);
    ENSURE(system(command) == 0);
    static const char* forms[] = {
        "measure '%s/in.glb' --region-json '%s/fifo' 2>&1",
        "batch '%s/fifo' -o '%s/out' -q 2>&1",
        "batch '%s/batch' -o '%s/out' -q 2>&1",
        "rig '%s/fifo' -o '%s/out.glb' 2>&1",
        "inspect '%s/fifo' 2>&1%.0s",
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
        char args[8400];
        snprintf(args, sizeof args, forms[f], dir, dir);
        char* text = NULL;
        int code = tl_test_cli(&text, "%s", args);
        ENSURE_MSG((code == 1 || code == 2) && text && strstr(text, "not a regular file (a FIFO)"),
                   "`tailor %s`: exit %d: %s", args, code, text ? text : "");
        free(text);
    }
}

/* A region file with a NUL byte after a number: jansson alone reads `[1,2<NUL>,3]` as [1,2,3];
 * `measure --region-json` refuses it, naming the file and the byte. */
static void measure_refuses_nul_region(void) {
    char dir_buf[4096];
    const char* dir = fresh_dir("nul_region", dir_buf, sizeof dir_buf);
    ENSURE(dir);
    char region[4200];
    snprintf(region, sizeof region, "%s/region.json", dir);
    static const char text[] = "{\"vertices\": [1, 2\0, 3]}";
    FILE* f = fopen(region, "wb");
    ENSURE(f && fwrite(text, 1, sizeof text - 1, f) == sizeof text - 1 && fclose(f) == 0);
    char* out = NULL;
    int code = tl_test_cli(&out, "measure '%s' --region-json '%s' --json 2>&1",
                           tl_test_shared("cases/rat-tailless.glb"), region);
    ENSURE_MSG(code == 1 && out && strstr(out, "region.json: byte 18: a NUL byte"), "exit %d: %s",
               code, out ? out : "");
    free(out);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"library_refuses_inputs_and_specials", library_refuses_inputs_and_specials},
        {"library_all_or_nothing", library_all_or_nothing},
        {"commands_refuse_bad_targets", commands_refuse_bad_targets},
        {"commands_refuse_fifo_inputs", commands_refuse_fifo_inputs},
        {"gltf_sidecar_follows_output", gltf_sidecar_follows_output},
        {"failed_rig_leaves_no_report", failed_rig_leaves_no_report},
        {"concurrent_writers", concurrent_writers},
        {"measure_refuses_nul_region", measure_refuses_nul_region},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
