/* The test harness (see test.h). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

bool tl_test_failed;
static const char* program_name = "test";

void tl_test_fail(const char* file, int line, const char* what) {
    tl_test_failf(file, line, "ENSURE(%s)", what);
}

void tl_test_failf(const char* file, int line, const char* format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "  %s:%d: ", file, line);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    tl_test_failed = true;
}

int tl_test_main(int argc, char** argv, const tl_test_case* cases, size_t count) {
    const char* slash = strrchr(argv[0], '/');
    program_name = slash ? slash + 1 : argv[0];
    const char* filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        if (cases[i].on_demand && !(filter && strcmp(cases[i].name, filter) == 0)) continue;
        tl_test_failed = false;
        fprintf(stderr, "[ RUN  ] %s\n", cases[i].name);
        cases[i].fn();
        fprintf(stderr, "[ %s ] %s\n", tl_test_failed ? "FAIL" : " OK ", cases[i].name);
        if (tl_test_failed)
            ++failed;
        else
            ++passed;
    }
    printf("%s: %d passed, %d failed\n", program_name, passed, failed);
    if (passed + failed == 0) {
        fprintf(stderr, "no test matched\n");
        return 1;
    }
    return failed ? 1 : 0;
}

static const char* path_join(const char* a, const char* b) {
    static char ring[16][4096];
    static int next;
    char* out = ring[next++ % 16];
    if (snprintf(out, sizeof ring[0], "%s/%s", a, b) >= (int)sizeof ring[0]) out[0] = '\0';
    return out;
}

const char* tl_test_shared(const char* relative) {
    const char* env = getenv("TL_SHARED_DIR");
    return path_join(env && *env ? env : TL_SHARED_DIR, relative);
}

const char* tl_test_source(const char* relative) {
    return path_join(TL_SOURCE_DIR, relative);
}

static void make_dirs(const char* path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char* p = buf + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
    mkdir(buf, 0755);
}

const char* tl_test_scratch(const char* name) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/scratch/%s", TL_BINARY_DIR, program_name);
    make_dirs(dir);
    return path_join(dir, name);
}

const char* tl_test_rigged_case(const char* name) {
    static char done[32][64], paths[32][512];
    for (int k = 0; k < 32; ++k) {
        if (!strcmp(done[k], name)) return paths[k];
        if (done[k][0]) continue;
        char input[128], output[128];
        snprintf(input, sizeof input, "cases/%s.glb", name);
        snprintf(output, sizeof output, "%s.rigged.glb", name);
        snprintf(paths[k], sizeof paths[k], "%s", tl_test_scratch(output));
        if (tl_test_cli(NULL, "rig '%s' -o '%s' >/dev/null", tl_test_shared(input), paths[k]) != 0)
            return NULL;
        snprintf(done[k], sizeof done[k], "%s", name);
        return paths[k];
    }
    return NULL;
}

static int compare_strings(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static bool is_gltf_name(const char* name) {
    size_t n = strlen(name);
    return (n > 4 && (!strcmp(name + n - 4, ".glb") || !strcmp(name + n - 4, ".vrm"))) ||
           (n > 5 && !strcmp(name + n - 5, ".gltf"));
}

static void collect(const char* dir, const char*** list, size_t* count, size_t* cap) {
    DIR* d = opendir(dir);
    if (!d) return;
    struct dirent* e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            collect(path, list, count, cap);
        } else if (is_gltf_name(e->d_name)) {
            if (*count == *cap) {
                *cap = *cap ? *cap * 2 : 32;
                *list = realloc(*list, *cap * sizeof **list);
            }
            (*list)[(*count)++] = strdup(path);
        }
    }
    closedir(d);
}

size_t tl_test_shared_files(const char*** out_paths) {
    static const char** list;
    static size_t count;
    if (!list) {
        size_t cap = 0;
        char assets[4096], cases[4096];
        snprintf(assets, sizeof assets, "%s", tl_test_shared("assets"));
        snprintf(cases, sizeof cases, "%s", tl_test_shared("cases"));
        collect(assets, &list, &count, &cap);
        collect(cases, &list, &count, &cap);
        if (count)
            qsort(list, count, sizeof *list, compare_strings);
        else
            fprintf(stderr, "  no glTF files under %s and %s\n", assets, cases);
    }
    *out_paths = list;
    return count;
}

static int run_capture(const char* command, char** out) {
    FILE* p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 4096, len = 0;
    char* buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    int status = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tl_test_cli(char** out, const char* format, ...) {
    char args[8192], command[8400];
    va_list ap;
    va_start(ap, format);
    vsnprintf(args, sizeof args, format, ap);
    va_end(ap);
    snprintf(command, sizeof command, "'%s' %s", TL_CLI_PATH, args);
    return run_capture(command, out);
}

json_t* tl_test_play_json(const char* text) {
    json_error_t e;
    json_t* doc = text ? json_loadb(text, strcspn(text, "\n"), 0, &e) : NULL;
    json_int_t count = json_integer_value(json_object_get(doc, "frames"));
    json_t* frames = json_array();
    for (const char* line = strchr(text ? text : "", '\n'); doc && line && line[1];
         line = strchr(line + 1, '\n')) {
        json_t* frame = json_loadb(line + 1, strcspn(line + 1, "\n"), 0, &e);
        if (!frame) json_decref(doc), doc = NULL;
        json_array_append_new(frames, frame);
    }
    if (doc && (json_int_t)json_array_size(frames) != count) json_decref(doc), doc = NULL;
    if (doc) json_object_set(doc, "frames", frames);
    json_decref(frames);
    return doc;
}

json_t* tl_test_validate(const char* path) {
    char command[8400];
    snprintf(command, sizeof command, "cd '%s' && node tests/validate.mjs '%s'", TL_SOURCE_DIR,
             path);
    char* out = NULL;
    int status = run_capture(command, &out);
    json_t* report = status == 0 && out ? json_loads(out, 0, NULL) : NULL;
    if (!report) fprintf(stderr, "  validator failed on %s: %s\n", path, out ? out : "");
    free(out);
    return report;
}

unsigned char* tl_test_read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char* buf = malloc(n > 0 ? (size_t)n : 1);
    *size = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}
