/* Every command on bad input: exit 1 with a message naming the input and no output file, or
 * (when the damage is in data the command does not need) a normal exit; never a crash (a
 * signal) and never a usage exit. The inputs are the reader's corpus of hand-broken files and
 * truncations of a real character, which every command must refuse. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs each command on `input`: each exits 1 with a message naming the input and writes
 * nothing, or (unless `must_refuse`) exits 0. Counts the refusals. */
static bool commands_survive(const char* input, bool must_refuse, size_t* refusals) {
    const char* out = tl_test_scratch("out.glb");
    const char* report = tl_test_scratch("report.json");
    remove(out);
    remove(report);
    const char* commands[] = {
        "inspect '%s' 2>&1",          "inspect '%s' --json 2>&1",   "measure '%s' --samples 2 2>&1",
        "measure '%s' --stress 2>&1", "play '%s' --clip Walk 2>&1", "copy '%s' -o '%s' 2>&1",
        "rig '%s' -o '%s' 2>&1",
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        char* text = NULL;
        int code = tl_test_cli(&text, commands[c], input, out);
        const char* slash = strrchr(input, '/');
        bool named = text && strstr(text, slash ? slash + 1 : input);
        bool refused = code == 1 && named && !exists(out);
        if (refused) ++*refusals;
        if (!refused && (must_refuse || code != 0)) {
            fprintf(stderr, "  %s: `%s` exit %d%s%s: %.300s\n", input, commands[c], code,
                    named ? "" : ", input not named", exists(out) ? ", wrote an output" : "",
                    text ? text : "");
            free(text);
            return false;
        }
        free(text);
        remove(out);
    }
    return true;
}

static void broken_files(void) {
    const char* dir = tl_test_source("tests/data/gltf/broken");
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    DIR* d = opendir(path);
    ENSURE(d);
    struct dirent* e;
    size_t count = 0, refusals = 0;
    bool ok = true;
    while ((e = readdir(d)) && ok) {
        if (e->d_name[0] == '.') continue;
        char file[8192];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        ok = commands_survive(file, false, &refusals);
        ++count;
    }
    closedir(d);
    ENSURE(ok);
    fprintf(stderr, "  %zu broken files x 7 commands: %zu refused with a message, the rest ran\n",
            count, refusals);
    ENSURE(count > 50);
    ENSURE(refusals >
           7 * count * 9 / 10); /* nearly all: the damage is mostly in what every command reads */
}

/* Truncations of a real rigged character at a spread of lengths. */
static void truncated_character(void) {
    size_t size;
    unsigned char* bytes = tl_test_read_file(tl_test_shared("cases/knight-tailed.glb"), &size);
    ENSURE(bytes && size > 1000);
    const char* cut = tl_test_scratch("knight-cut.glb");
    size_t lengths[] = {0, 11, 12, 19, 20, 100, 1000, size / 3, size / 2, size - 4, size - 1};
    bool ok = true;
    size_t refusals = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0] && ok; ++i) {
        FILE* f = fopen(cut, "wb");
        ENSURE(f);
        fwrite(bytes, 1, lengths[i], f);
        fclose(f);
        ok = commands_survive(cut, true, &refusals);
    }
    free(bytes);
    ENSURE(ok);
}

/* The input is never replaced unless asked, and a failed write leaves nothing behind. */
static void input_kept_and_no_partial_output(void) {
    size_t size;
    unsigned char* bytes =
        tl_test_read_file(tl_test_shared("cases/fox-khronos-tailless.glb"), &size);
    ENSURE(bytes);
    const char* input = tl_test_scratch("fox-in.glb");
    FILE* f = fopen(input, "wb");
    ENSURE(f);
    fwrite(bytes, 1, size, f);
    fclose(f);
    char* text = NULL;
    ENSURE(tl_test_cli(&text, "rig '%s' -o '%s' 2>&1", input, input) == 1);
    ENSURE(strstr(text, "--force"));
    free(text);
    size_t after;
    unsigned char* again = tl_test_read_file(input, &after);
    ENSURE(again && after == size && memcmp(again, bytes, size) == 0);
    free(again);
    ENSURE(tl_test_cli(&text, "rig '%s' -o '%s' 2>&1", input,
                       tl_test_scratch("no/such/dir/out.glb")) == 1);
    free(text);
    ENSURE(!exists(tl_test_scratch("no/such/dir/out.glb")));
    free(bytes);
}

/* A message line "tailor CMD: ..." says its prefix once: the rest does not begin with CMD or
 * "tailor" or "usage", no ": "-separated field repeats the one before it, and the input's
 * name appears once at most. */
static bool one_prefix(const char* cmd, const char* input, const char* text) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "tailor %s: ", cmd);
    const char* line = strstr(text, prefix);
    if (!line) return fprintf(stderr, "  no \"%s\" line in: %.200s\n", prefix, text), false;
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s", (int)strcspn(line, "\n"), line);
    const char* rest = buf + strlen(prefix);
    size_t n = strlen(cmd);
    bool ok = !(!strncmp(rest, cmd, n) && (rest[n] == ':' || rest[n] == ' ')) &&
              strncmp(rest, "tailor", 6) && strncmp(rest, "usage", 5);
    const char* base = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
    const char* first = *base ? strstr(rest, base) : NULL;
    if (first && strstr(first + 1, base)) ok = false;
    char* fields[32];
    size_t count = 0;
    for (char *p = buf, *q; count < 32 && (q = strstr(p, ": ")); p = q + 2) {
        *q = 0;
        fields[count++] = p;
    }
    for (size_t i = 1; i < count; ++i)
        if (!strcmp(fields[i], fields[i - 1])) ok = false;
    if (!ok) fprintf(stderr, "  a doubled prefix: %.300s\n", line);
    return ok;
}

/* Errors from every layer (option checks in the library, the reader, clip and sample look-up,
 * the writer) carry one "tailor CMD:" prefix, the file once, and what is wrong. */
static void errors_have_one_prefix(void) {
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* out = tl_test_scratch("prefix.glb");
    const char* missing = tl_test_scratch("no-such-input.glb");
    struct {
        const char *cmd, *input, *args;
    } cases[] = {
        {"rig", knight, "rig '%s' -o '%s' --far 5"},
        {"rig", knight, "rig '%s' -o '%s' --part 99=chain"},
        {"rig", knight, "rig '%s' -o '%s' --fit-skip NoSuchClip"},
        {"rig", missing, "rig '%s' -o '%s'"},
        {"rig", "", "rig"},
        {"play", knight, "play '%s' --clip NoSuchClip"},
        {"measure", knight, "measure '%s' --clip NoSuchClip"},
        {"measure", knight, "measure '%s' --stress --clip NoSuchClip"},
        {"render", knight, "render '%s' --clip NoSuchClip -o '%s.png'"},
        {"bake", knight, "bake '%s' -o '%s'"},
        {"bake", knight, "bake '%s' -o '%s' --rate 0"},
        {"sample", "", "sample no-such-sample -o '%.0s%s'"},
        {"sample", "", "sample tailed-biped --scale -1 -o '%.0s%s'"},
        {"copy", knight, "copy '%s' -o /no/such/folder/x.glb"},
        {"inspect", missing, "inspect '%s'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char* text = NULL;
        char args[4096];
        snprintf(args, sizeof args, cases[i].args, cases[i].input, out);
        int code = tl_test_cli(&text, "%s 2>&1", args);
        ENSURE_MSG(code == 1 || code == 2, "tailor %s: exit %d", args, code);
        ENSURE_MSG(text && one_prefix(cases[i].cmd, cases[i].input, text), "tailor %s", args);
        free(text);
    }
}

/* The subcommands `tailor --help` lists ("  tailor NAME ..."), so a new one is covered. */
static size_t command_names(char names[][32], size_t max) {
    char* text = NULL;
    size_t n = 0;
    if (tl_test_cli(&text, "--help") != 0 || !text) return free(text), 0;
    for (char* line = strstr(text, "\n  tailor "); line && n < max;
         line = strstr(line + 1, "\n  tailor ")) {
        if (sscanf(line + 10, "%31[a-z_-]", names[n]) == 1) ++n;
    }
    free(text);
    return n;
}

/* `-h` and `--help` on every subcommand, alone or after other arguments: that command's usage
 * on stdout, nothing on stderr, exit 0; `tailor help NAME` says the same. */
static void help_on_every_command(void) {
    char names[64][32];
    size_t n = command_names(names, 64);
    fprintf(stderr, "  %zu commands\n", n);
    ENSURE(n >= 11);
    const char* forms[] = {"%s -h", "%s --help", "%s in.glb -h", "help %s"};
    for (size_t c = 0; c < n; ++c) {
        char* first = NULL;
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
            char args[256], expect[256];
            snprintf(args, sizeof args, forms[f], names[c]);
            snprintf(expect, sizeof expect, "usage: tailor %.31s ", names[c]);
            char *out = NULL, *err = NULL;
            int code = tl_test_cli(&out, "%s 2>/dev/null", args);
            int code2 = tl_test_cli(&err, "%s 2>&1 >/dev/null", args);
            ENSURE_MSG(code == 0 && code2 == 0 && out && !strncmp(out, expect, strlen(expect)) &&
                           (!err || !err[0]),
                       "tailor %s: exit %d, stdout \"%.80s\", stderr \"%.80s\"", args, code,
                       out ? out : "", err ? err : "");
            if (!first)
                first = out;
            else {
                ENSURE_MSG(!strcmp(first, out), "tailor %s: not the usage of -h", args);
                free(out);
            }
            free(err);
        }
        free(first);
    }
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"broken_files", broken_files},
        {"truncated_character", truncated_character},
        {"input_kept_and_no_partial_output", input_kept_and_no_partial_output},
        {"help_on_every_command", help_on_every_command},
        {"errors_have_one_prefix", errors_have_one_prefix},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
