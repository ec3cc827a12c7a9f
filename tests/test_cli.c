/* Every command on bad input: exit 1 with a message naming the input and no output file, or
 * (when the damage is in data the command does not need) a normal exit; never a crash (a
 * signal) and never a usage exit. The inputs are the reader's corpus of hand-broken files and
 * truncations of a real character, which every command must refuse. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/tailor.h>

#include <dirent.h>
#include <stdarg.h>
#include <sys/wait.h>
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

/* Runs a shell command line with $TAILOR set to the command; output (stdout) to *out. */
static int sh(char** out, const char* format, ...) {
    char command[8192];
    va_list ap;
    va_start(ap, format);
    vsnprintf(command, sizeof command, format, ap);
    va_end(ap);
    setenv("TAILOR", TL_CLI_PATH, 1);
    FILE* p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 4096, len = 0, n;
    char* buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if (cap - (len += n) < 2) buf = realloc(buf, cap *= 2);
    buf[len] = 0;
    int status = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool same_bytes(const char* a, const char* b) {
    size_t na, nb;
    unsigned char *x = tl_test_read_file(a, &na), *y = tl_test_read_file(b, &nb);
    bool same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* `-o -` puts the GLB (copy, rig, bake, sample), the PNG (render) or the page (report) on
 * stdout, byte for byte what `-o FILE` writes, and nothing else there (rig's and bake's
 * summaries go to stderr); `--report -` and `rig --json` put the report there. */
static void stdout_outputs(void) {
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* rigged = tl_test_scratch("knight-rigged.glb");
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' >/dev/null", knight, rigged) == 0);
    const char* walk = "'HumanArmature|Walking'";
    char forms[][512] = {"copy '%s' -o %s",
                         "rig '%s' -o %s",
                         "bake '%s' -o %s --clips %s",
                         "sample tailed-quadruped%.0s -o %s",
                         "render '%s' -o %s --clip %s --size 32x32 --times 0.5",
                         "report '%s' -o %s"};
    const char* inputs[] = {knight, knight, rigged, "", rigged, rigged};
    const char* by_stdout = tl_test_scratch("by-stdout");
    const char* by_file = tl_test_scratch("by-file");
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
        char args[2048];
        snprintf(args, sizeof args, forms[f], inputs[f], "-", walk);
        ENSURE_MSG(tl_test_cli(NULL, "%s > '%s' 2>/dev/null", args, by_stdout) == 0, "%s", args);
        snprintf(args, sizeof args, forms[f], inputs[f], by_file, walk);
        ENSURE_MSG(tl_test_cli(NULL, "%s >/dev/null 2>&1", args) == 0, "%s", args);
        ENSURE_MSG(same_bytes(by_stdout, by_file), "%s: -o - is not what -o FILE wrote", args);
        size_t n;
        unsigned char* head = tl_test_read_file(by_stdout, &n);
        bool glb = n > 4 && !memcmp(head, "glTF", 4), png = n > 4 && !memcmp(head + 1, "PNG", 3);
        free(head);
        ENSURE_MSG(f == 4 ? png : f == 5 || glb, "%s: stdout is not the file", forms[f]);
        remove(by_stdout);
        remove(by_file);
    }
    /* The GLB that rig puts on stdout is valid glTF. */
    ENSURE(tl_test_cli(NULL, "rig '%s' -o - > '%s' 2>/dev/null", knight, by_stdout) == 0);
    json_t* v = tl_test_validate(by_stdout);
    ENSURE(v);
    ENSURE_MSG(json_integer_value(json_object_get(v, "errors")) == 0, "validator errors");
    json_decref(v);
    /* The report on stdout: --report - and --json, the same JSON as --report FILE. */
    const char* report = tl_test_scratch("report.json");
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --report '%s' >/dev/null", knight, by_file,
                       report) == 0);
    char *a = NULL, *b = NULL;
    ENSURE(tl_test_cli(&a, "rig '%s' -o '%s' --json", knight, by_file) == 0);
    ENSURE(tl_test_cli(&b, "rig '%s' -o '%s' --report -", knight, by_file) == 0);
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    json_t* jc = json_load_file(report, 0, NULL);
    free(a), free(b);
    ENSURE_MSG(ja && jb && jc, "rig --json %d, --report - %d, --report FILE %d", ja != NULL,
               jb != NULL, jc != NULL);
    const char* keys[] = {"file", "output", "parts", "chains", "changed_vertices", "skins"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        json_t *x = json_object_get(ja, keys[k]), *y = json_object_get(jc, keys[k]);
        if (!strcmp(keys[k], "parts")) { /* the fit's timing differs from run to run */
            size_t i;
            json_t* p;
            json_array_foreach(x, i, p) json_object_del(json_object_get(p, "fit"), "seconds");
            json_array_foreach(y, i, p) json_object_del(json_object_get(p, "fit"), "seconds");
            json_array_foreach(json_object_get(jb, "parts"), i, p)
                json_object_del(json_object_get(p, "fit"), "seconds");
            size_t chains = 0; /* --json runs what --report does: the new tears too */
            json_array_foreach(x, i, p) {
                const char* action = json_string_value(json_object_get(p, "action"));
                if (!strcmp(action, "chain")) chains += json_object_get(p, "new_torn_pct") != 0;
            }
            ENSURE(chains > 0);
        }
        ENSURE_MSG(json_equal(x, y) && json_equal(json_object_get(jb, keys[k]), y),
                   "rig --json and --report differ in \"%s\"", keys[k]);
    }
    json_decref(ja), json_decref(jb), json_decref(jc);
}

/* Two outputs on stdout, two outputs in one file, an output that is the input, or a
 * folder for -o -: refused before any work (nothing on stdout, no file named "-"). */
static void stdout_and_same_path_refused(void) {
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* dir = tl_test_scratch("");
    const char* copy_in = tl_test_scratch("in-copy.glb");
    const char* kept = tl_test_scratch("in-copy-kept.glb");
    ENSURE(tl_test_cli(NULL, "copy '%s' -o '%s'", knight, copy_in) == 0);
    ENSURE(tl_test_cli(NULL, "copy '%s' -o '%s'", knight, kept) == 0);
    const char* refused[] = {
        "rig '%s' -o - --report -",
        "rig '%s' -o - --json",
        "rig '%s' -o x.glb --json --report r.json",
        "bake '%s' -o - --report -",
        "sample tailed-biped%.0s -o - --truth -",
        "batch '%s' -o -",
        "rig '%s' -o a.glb --report ./a.glb",
        "bake '%s' -o a.glb --report a.glb",
        "sample tailed-biped%.0s -o a.glb --truth ../test_cli/a.glb",
        "rig in-copy.glb%.0s -o ./in-copy.glb",
        "copy in-copy.glb%.0s -o in-copy.glb",
        "render in-copy.glb%.0s --clip Run -o in-copy.glb",
        "render '%s' --compare in-copy.glb --clip Run -o in-copy.glb",
        "report '%s' --input in-copy.glb -o in-copy.glb",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        char args[2048], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, refused[i], knight);
        int code = sh(&out, "cd '%s' && rm -f -- - a.glb && \"$TAILOR\" %s 2>/dev/null", dir, args);
        sh(&err, "cd '%s' && \"$TAILOR\" %s 2>&1 >/dev/null", dir, args);
        ENSURE_MSG((code == 1 || code == 2) && out && !out[0] && err && strstr(err, "tailor "),
                   "%s: exit %d, stdout %.80s, stderr %.200s", args, code, out, err);
        struct stat st;
        ENSURE_MSG(sh(NULL, "cd '%s' && test ! -e - && test ! -e a.glb", dir) == 0,
                   "%s: wrote a file", args);
        ENSURE(stat(copy_in, &st) == 0);
        ENSURE_MSG(strstr(err, "standard output") || strstr(err, "another output") ||
                       strstr(err, "is the input") || strstr(err, "--json"),
                   "%s: %s", args, err);
        free(out);
        free(err);
    }
    /* standard output appending to the input */
    char* text = NULL;
    int code = sh(&text, "cd '%s' && \"$TAILOR\" copy in-copy.glb -o - 2>&1 >>in-copy.glb", dir);
    ENSURE_MSG(code == 1 && strstr(text, "standard output is the input"), "exit %d: %.200s", code,
               text);
    free(text);
    ENSURE(same_bytes(copy_in, kept));
    /* binary data is not sent to a terminal (util-linux script gives the command one) */
    if (sh(NULL, "command -v script >/dev/null") == 0) {
        code = sh(&text, "script -qec \"'%s' copy '%s' -o -\" /dev/null", TL_CLI_PATH, knight);
        ENSURE_MSG(code == 2 && strstr(text, "standard output is a terminal"), "exit %d: %.200s",
                   code, text);
        free(text);
    }
}

/* A target that cannot be written is refused before the analysis runs, with why: a missing
 * folder, a path through a file, a folder as the target, a read-only file system. */
static void output_checked_first(void) {
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* folder = tl_test_scratch("a-folder");
    mkdir(folder, 0777);
    struct {
        const char *target, *why;
    } targets[] = {
        {"/no/such/folder/x.glb", "No such file or directory"},
        {"/etc/passwd/x.glb", "not a folder"},
        {folder, "not a regular file (a folder)"},
        {"/proc/x.glb", "/proc"},
    };
    const char* forms[] = {"rig '%s' -o '%s'",
                           "rig '%s' --dry-run --report '%s'",
                           "copy '%s' -o '%s'",
                           "render '%s' --clip Run -o '%s'",
                           "bake '%s' -o '%s'",
                           "report '%s' -o '%s'",
                           "sample tailed-biped%.0s -o '%s'"};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; ++t)
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
            char args[2048], *out = NULL, *err = NULL;
            snprintf(args, sizeof args, forms[f], knight, targets[t].target);
            int code = tl_test_cli(&out, "%s 2>/dev/null", args);
            tl_test_cli(&err, "%s 2>&1 >/dev/null", args);
            /* nothing on stdout: rig's summary (the analysis) never ran; bake would say "no
               chains" for the unrigged knight if it had read it */
            ENSURE_MSG(code == 1 && out && !out[0] && err && strstr(err, targets[t].target) &&
                           strstr(err, targets[t].why) && !strstr(err, "no chains"),
                       "%s: exit %d, stdout %.80s, stderr %.200s", args, code, out, err);
            free(out);
            free(err);
        }
}

/* A failed write says which file and why (the failing call's strerror), and leaves nothing:
 * a file-size limit (EFBIG) on a file target, a full device on stdout (the data, or the
 * text of any command). */
static void write_failure_says_why(void) {
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* dir = tl_test_scratch("limited");
    mkdir(dir, 0777);
    const char* forms[] = {"copy '%s' -o %s", "rig '%s' -o %s", "render '%s' --clip Run -o %s",
                           "sample tailed-biped%.0s -o %s"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
        char args[2048], *err = NULL;
        snprintf(args, sizeof args, forms[f], knight, "out.file");
        int code =
            sh(&err, "cd '%s' && rm -f out.file && (ulimit -f 8; \"$TAILOR\" %s 2>&1)", dir, args);
        ENSURE_MSG(code == 1 && err && strstr(err, "out.file: cannot write: File too large"),
                   "%s under ulimit -f 8: exit %d: %.300s", args, code, err);
        free(err);
        ENSURE_MSG(sh(NULL, "cd '%s' && test -z \"$(ls -A)\"", dir) == 0, "%s left a file", args);
        snprintf(args, sizeof args, forms[f], knight, "-");
        code = sh(&err, "\"$TAILOR\" %s 2>&1 >/dev/full", args);
        ENSURE_MSG(code == 1 && err &&
                       strstr(err, "standard output: cannot write: No space left on device"),
                   "%s > /dev/full: exit %d: %.300s", args, code, err);
        free(err);
    }
    /* text on a full stdout: an error, never exit 0 with the output lost */
    const char* fox = tl_test_shared("assets/khronos-fox/Fox.glb");
    const char* texts[] = {"inspect '%s'",
                           "inspect '%s' --json",
                           "rig '%s' --dry-run",
                           "rig '%s' --dry-run --json",
                           "measure '%s' --samples 2",
                           "play '%s' --clip Run --chain b_Tail01_012",
                           "sample --list%.0s"};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; ++t) {
        char args[2048], *err = NULL;
        snprintf(args, sizeof args, texts[t], fox);
        int code = sh(&err, "\"$TAILOR\" %s 2>&1 >/dev/full", args);
        ENSURE_MSG(code == 1 && err &&
                       strstr(err, "standard output: cannot write: No space left on device"),
                   "%s > /dev/full: exit %d: %.300s", args, code, err);
        free(err);
    }
}

/* rig's summary adds up: each re-weighted part's "P part + B root band = T vertices" with P
 * the part line's count, and the total line's count (the report's changed_vertices) the sum,
 * split the same way. On every shared tailless or tailed case. */
static void rig_summary_adds_up(void) {
    const char* names[] = {"knight-tailed", "fox-khronos-tailless", "fox-quaternius-tailless",
                           "horse-tailless", "husky-tailless"};
    for (size_t c = 0; c < sizeof names / sizeof names[0]; ++c) {
        char file[512], *text = NULL, *json = NULL;
        snprintf(file, sizeof file, "cases/%s.glb", names[c]);
        ENSURE(tl_test_cli(&text, "rig '%s' --dry-run", tl_test_shared(file)) == 0);
        ENSURE(tl_test_cli(&json, "rig '%s' --dry-run --json", tl_test_shared(file)) == 0);
        json_t* report = json_loads(json, 0, NULL);
        free(json);
        ENSURE(report);
        int part_vertices = -1, parts = 0, bands = 0, totals = 0, shown = 0;
        for (char* line = text; line && *line;
             line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            int id, n, p, b, t;
            if (sscanf(line, "part %d: %d vertices", &id, &n) == 2) part_vertices = n;
            if (sscanf(line, "  re-weighted: %d part + %d root band = %d vertices", &p, &b, &t) ==
                3) {
                ENSURE_MSG(p + b == t && p == part_vertices, "%s: %.80s (part line: %d)", names[c],
                           line, part_vertices);
                parts += p, bands += b, totals += t, ++shown;
            }
        }
        int chains, total, tp, tb;
        char* summary = strstr(text, " chain(s), ");
        while (summary && summary > text && summary[-1] != '\n')
            --summary;
        ENSURE(summary && sscanf(summary,
                                 "%d chain(s), %d vertices re-weighted (%d in parts + %d in root "
                                 "bands)",
                                 &chains, &total, &tp, &tb) == 4);
        fprintf(stderr, "  %s: %d part(s) re-weighted, %d + %d = %d vertices\n", names[c], shown,
                tp, tb, total);
        ENSURE(shown > 0 && tp == parts && tb == bands && total == totals && total == tp + tb);
        ENSURE(total == json_integer_value(json_object_get(report, "changed_vertices")));
        json_decref(report);
        free(text);
    }
}

/* A dry run reports what the run would write: the same report but for "output", "dry_run",
 * the timings ("seconds", also in a part's "fit"), the measured "new_torn_pct" and the sheet
 * ties written ("play_data"'s "sheet_ties") (not on a dry run: docs/rig.md). On the knight its cape
 * is a mesh apart, rebound to the torso before the analysis; a dry run that skipped the rebinding
 * listed it as unskinned instead. */
static void drop_run_only(json_t* v) {
    if (json_is_array(v))
        for (size_t i = 0; i < json_array_size(v); ++i)
            drop_run_only(json_array_get(v, i));
    if (!json_is_object(v)) return;
    json_object_del(v, "seconds");
    json_object_del(v, "new_torn_pct");
    json_object_del(v, "sheet_ties");
    const char* key;
    json_t* child;
    json_object_foreach(v, key, child) drop_run_only(child);
}

static void dry_run_reports_the_run(void) {
    const char* files[] = {"assets/kaykit-knight/Knight.glb", "cases/husky-tailless.glb"};
    const char* out = tl_test_scratch("dry-run-twin.glb");
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char *dry = NULL, *run = NULL;
        ENSURE(tl_test_cli(&dry, "rig '%s' --dry-run --json", tl_test_shared(files[f])) == 0);
        ENSURE(tl_test_cli(&run, "rig '%s' -o '%s' --force --json", tl_test_shared(files[f]),
                           out) == 0);
        json_t *a = json_loads(dry, 0, NULL), *b = json_loads(run, 0, NULL);
        free(dry);
        free(run);
        ENSURE(a && b && json_is_true(json_object_get(a, "dry_run")) &&
               json_is_false(json_object_get(b, "dry_run")));
        const char* differ[] = {"output", "dry_run"};
        for (size_t k = 0; k < sizeof differ / sizeof differ[0]; ++k) {
            ENSURE(json_object_get(a, differ[k]) && json_object_get(b, differ[k]));
            json_object_del(a, differ[k]);
            json_object_del(b, differ[k]);
        }
        drop_run_only(a);
        drop_run_only(b);
        char* sa = json_dumps(a, JSON_SORT_KEYS | JSON_COMPACT);
        char* sb = json_dumps(b, JSON_SORT_KEYS | JSON_COMPACT);
        size_t at = 0;
        while (sa[at] && sa[at] == sb[at])
            ++at;
        fprintf(stderr, "  %s: dry-run report %zu bytes, as the run's\n", files[f], strlen(sa));
        ENSURE_MSG(json_equal(a, b), "%s: the dry run's report differs at byte %zu: %.60s | %.60s",
                   files[f], at, sa + at, sb + at);
        free(sa);
        free(sb);
        json_decref(a);
        json_decref(b);
    }
}

/* The knight's cape is rebound before the analysis: the report still lists it among the
 * unskinned meshes, marked rebound, and its cloth part says where it came from and has a
 * measured reach (from its own collar, as every part's). */
static void rebound_cape_reported(void) {
    char* text = NULL;
    ENSURE(tl_test_cli(&text, "rig '%s' --dry-run --json",
                       tl_test_shared("assets/kaykit-knight/Knight.glb")) == 0);
    json_t* r = json_loads(text, 0, NULL);
    free(text);
    ENSURE(r);
    json_t* un = json_object_get(r, "unskinned");
    ENSURE_MSG(json_array_size(un) == 1, "%zu unskinned meshes listed", json_array_size(un));
    json_t* cape = json_array_get(un, 0);
    ENSURE(!strcmp(json_string_value(json_object_get(cape, "name")), "Knight_Cape"));
    ENSURE(json_is_true(json_object_get(cape, "rebound")));
    size_t i, cloth = 0;
    json_t* p;
    json_array_foreach(json_object_get(r, "parts"), i, p) {
        if (strcmp(json_string_value(json_object_get(p, "action")), "cloth")) continue;
        ++cloth;
        double reach = json_number_value(json_object_get(p, "reach"));
        double ratio = json_number_value(json_object_get(p, "centroid_ratio"));
        fprintf(stderr, "  cape part: reach %.3f, centroid ratio %.3f, %s\n", reach, ratio,
                json_string_value(json_object_get(p, "reason")));
        ENSURE(reach > 0 && ratio > 0);
        ENSURE(strstr(json_string_value(json_object_get(p, "reason")), "modelled apart"));
    }
    ENSURE(cloth == 1);
    json_decref(r);
}

/* `play --json` is JSON Lines: a header line with the frame count, then that many lines,
 * one JSON frame each, so `head -n 2` gives the header and the first frame. */
static void play_json_lines(void) {
    const char* fox = tl_test_shared("assets/khronos-fox/Fox.glb");
    const char* chain = "--chain b_Tail01_012,b_Tail02_013,b_Tail03_014";
    char* text = NULL;
    ENSURE(tl_test_cli(&text, "play '%s' --clip Run --seconds 2 %s --json", fox, chain) == 0);
    size_t lines = 0;
    json_int_t frames = -1;
    for (char* line = text; *line; line += strcspn(line, "\n") + 1, ++lines) {
        json_t* j = json_loadb(line, strcspn(line, "\n"), 0, NULL);
        ENSURE_MSG(json_is_object(j), "line %zu is not a JSON object: %.80s", lines + 1, line);
        if (lines == 0)
            frames = json_integer_value(json_object_get(j, "frames"));
        else
            ENSURE(json_array_size(json_array_get(json_object_get(j, "chains"), 0)) == 4);
        json_decref(j);
        if (!line[strcspn(line, "\n")]) break;
    }
    free(text);
    fprintf(stderr, "  %zu lines, header says %lld frames\n", lines, (long long)frames);
    ENSURE(frames == 121 && lines == (size_t)frames + 1);
    ENSURE(tl_test_cli(&text, "play '%s' --clip Run %s --json | head -n 2", fox, chain) == 0);
    json_t* doc = tl_test_play_json(text);
    free(text);
    ENSURE(!doc); /* two lines: the header and one frame, not the count it announces */
    ENSURE(tl_test_cli(&text, "play '%s' --clip Run %s --json | head -n 2 | tail -n 1", fox,
                       chain) == 0);
    doc = json_loads(text, 0, NULL);
    free(text);
    ENSURE(doc && json_real_value(json_object_get(doc, "t")) == 0.0);
    json_decref(doc);
}

/* Clip names: any case, in every command that takes one (play, measure, render, bake, rig
 * --fit-skip); an unknown name gets "did you mean" the closest clip and the list; a name two
 * clips answer ignoring case is refused, naming both. */
static void clip_names(void) {
    const char* fox = tl_test_shared("assets/khronos-fox/Fox.glb");
    const char* knight = tl_test_shared("cases/knight-tailed.glb");
    const char* chain = "--chain b_Tail01_012,b_Tail02_013,b_Tail03_014";
    char *exact = NULL, *any = NULL;
    ENSURE(tl_test_cli(&exact, "play '%s' --clip Run %s --seconds 0.2", fox, chain) == 0);
    ENSURE(tl_test_cli(&any, "play '%s' --clip rUN %s --seconds 0.2", fox, chain) == 0);
    ENSURE(exact && any && !strcmp(exact, any));
    free(exact), free(any);
    const char* rigged = tl_test_scratch("knight-clips.glb");
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --fit-skip humanarmature\\|run >/dev/null", knight,
                       rigged) == 0);
    ENSURE(tl_test_cli(NULL, "measure '%s' --clip walking --samples 2 >/dev/null", rigged) == 0);
    ENSURE(tl_test_cli(NULL, "render '%s' --clip WALKING --size 16x16 --times 0 -o '%s.png'",
                       rigged, rigged) == 0);
    ENSURE(tl_test_cli(NULL,
                       "bake '%s' --clips humanarmature\\|walking -o '%s.baked.glb' "
                       ">/dev/null",
                       rigged, rigged) == 0);
    struct {
        const char *file, *typed, *meant;
    } unknown[] = {
        {fox, "Wlak", "Walk"},
        {fox, "surve", "Survey"},
        {knight, "walk", "HumanArmature|Walking"},
        {knight, "idle_sword", "HumanArmature|Idle_swordLeft"},
        {fox, "Jump", NULL},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
        char* text = NULL;
        ENSURE(tl_test_cli(&text, "play '%s' --clip '%s' --chain Tail_1 2>&1", unknown[i].file,
                           unknown[i].typed) == 1);
        char hint[256];
        snprintf(hint, sizeof hint, "did you mean \"%s\"?",
                 unknown[i].meant ? unknown[i].meant : "");
        bool listed = strstr(text, "(clips: \"") != NULL;
        bool hinted = strstr(text, unknown[i].meant ? hint : "did you mean") != NULL;
        ENSURE_MSG(listed && hinted == (unknown[i].meant != NULL), "%s: %s", unknown[i].typed,
                   text);
        fprintf(stderr, "  --clip %s: %.*s\n", unknown[i].typed,
                (int)strcspn(strstr(text, "no clip"), "("), strstr(text, "no clip"));
        free(text);
    }
    /* Two clips equal but for case: either exact name finds its own, any other spelling is
       refused and both are named. */
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(fox, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE(scene->clip_count == 3);
    tl_scene_clip clips[3];
    memcpy(clips, scene->clips, sizeof clips);
    clips[0].name = "Walk";
    clips[1].name = "walk";
    tl_scene renamed = *scene; /* the same scene with the clips renamed */
    renamed.clips = clips;
    uint32_t clip = 99;
    ENSURE_OK(tl_scene_find_clip(&renamed, "walk", &clip, &err), err);
    ENSURE(clip == 1);
    ENSURE_OK(tl_scene_find_clip(&renamed, "Walk", &clip, &err), err);
    ENSURE(clip == 0);
    ENSURE(tl_scene_find_clip(&renamed, "WALK", &clip, &err) == TL_ERROR_NOT_FOUND);
    ENSURE_MSG(strstr(err.message, "ambiguous") && strstr(err.message, "\"Walk\", \"walk\""), "%s",
               err.message);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* The set-up: `make demo` installs the build set only, `make test` everything, a dry run
 * lists them and installs nothing, a failing apt-get or npm shows its command and output
 * (tests/setup_check.sh, with stand-ins for apt-get, npm and dpkg-query). */
static void setup_split(void) {
    char* text = NULL;
    int code = sh(&text, "bash '%s' 2>&1", tl_test_source("tests/setup_check.sh"));
    if (code != 0 || !strstr(text, "setup_check: ok")) fprintf(stderr, "%s", text);
    ENSURE_MSG(code == 0 && strstr(text, "setup_check: ok"), "setup_check.sh: exit %d", code);
    for (const char* line = text; *line;
         line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
        if (!strncmp(line, "build set:", 10) || !strncmp(line, "all set:", 8))
            fprintf(stderr, "  %.*s\n", (int)strcspn(line, "\n"), line);
    free(text);
}

/* The README says where the test characters come from (every ../shared/assets folder has the
 * SOURCE.md it points to, with a licence) and how a C program links the library; its program
 * and both recipes build against the installed library and rig a case
 * (scripts/install_check.sh extracts and runs them). */
static void readme_sources_and_linking(void) {
    size_t n;
    char* readme = (char*)tl_test_read_file(tl_test_source("README.md"), &n);
    ENSURE(readme);
    readme = realloc(readme, n + 1);
    readme[n] = 0;
    bool says = strstr(readme, "../shared/assets/") && strstr(readme, "SOURCE.md") &&
                strstr(readme, "pkg-config --cflags --libs tailor") &&
                strstr(readme, "find_package(tailor REQUIRED)") &&
                strstr(readme, "<!-- install_check: rig.c -->");
    free(readme);
    ENSURE(says);
    DIR* d = opendir(tl_test_shared("assets"));
    ENSURE(d);
    struct dirent* e;
    size_t folders = 0;
    bool all = true;
    while ((e = readdir(d))) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", tl_test_shared("assets"), e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        ++folders;
        snprintf(path, sizeof path, "%s/%s/SOURCE.md", tl_test_shared("assets"), e->d_name);
        char* text = (char*)tl_test_read_file(path, &n);
        text = text ? realloc(text, n + 1) : NULL;
        if (text) text[n] = 0;
        bool licensed = text && (strstr(text, "icense") || strstr(text, "icence"));
        if (!licensed) fprintf(stderr, "  %s: no SOURCE.md with a licence\n", e->d_name);
        all = all && licensed;
        free(text);
    }
    closedir(d);
    fprintf(stderr, "  %zu asset folders, each with its SOURCE.md and licence: %s\n", folders,
            all ? "yes" : "no");
    ENSURE(folders > 5 && all);
    /* A sanitizer build's library needs the sanitizer runtime in every program linking it:
       the install check is for the plain build (make install-check runs it there too). */
    if (sh(NULL, "grep -q '^TL_SANITIZE:BOOL=ON' '%s/CMakeCache.txt'", TL_BINARY_DIR) == 0) {
        fprintf(stderr, "  sanitizer build: the README program is built by the plain build's "
                        "test_cli and make install-check\n");
        return;
    }
    char* out = NULL;
    int code =
        sh(&out, "bash '%s' '%s' 2>&1", tl_test_source("scripts/install_check.sh"), TL_BINARY_DIR);
    ENSURE_MSG(code == 0 && strstr(out, "the README's program and recipes too"), "exit %d: %s",
               code, out);
    free(out);
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
        {"stdout_outputs", stdout_outputs},
        {"stdout_and_same_path_refused", stdout_and_same_path_refused},
        {"output_checked_first", output_checked_first},
        {"write_failure_says_why", write_failure_says_why},
        {"rig_summary_adds_up", rig_summary_adds_up},
        {"dry_run_reports_the_run", dry_run_reports_the_run},
        {"rebound_cape_reported", rebound_cape_reported},
        {"play_json_lines", play_json_lines},
        {"clip_names", clip_names},
        {"setup_split", setup_split},
        {"readme_sources_and_linking", readme_sources_and_linking},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
