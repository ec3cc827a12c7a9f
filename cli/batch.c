/* tailor batch: rig a folder (or a list) of characters with worker threads, resumably and by
 * shards; the work is src/batch (tailor/batch.h), this file parses and prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* usage_text =
    "usage: tailor batch IN_DIR|LIST.txt -o OUT_DIR [-j N] [--shard I/N] [--resume] [-q]\n"
    "                    [--no-stretch] [--journal FILE] [rig options]\n"
    "  Rigs every .glb/.gltf/.vrm under IN_DIR (or listed one a line in LIST.txt, relative to\n"
    "  its folder) into OUT_DIR under the same relative path, as `tailor rig` does, and writes\n"
    "  one JSON line per file to OUT_DIR/batch.jsonl (docs/batch.md).\n"
    "  -j N            worker threads (default: the cores)\n"
    "  --shard I/N     only the files of shard I of N, I = 0..N-1 (a hash of the relative\n"
    "                  path); the journal is then OUT_DIR/batch-I-of-N.jsonl\n"
    "  --resume        skip files whose output exists and whose record in the journal has the\n"
    "                  input's sha256; rig the rest\n"
    "  --no-stretch    do not measure each part's edge-stretch p99 on the first clip (as the\n"
    "                  file was and with its chain simulated): about 2-3x faster\n"
    "  --journal FILE  the journal's path instead\n"
    "  -q              no progress, no summary (failures are still listed)\n"
    "  rig options     --mode, --far, --segment, --part, … as `tailor rig --help`\n"
    "  Exit code: 0 every file rigged, 1 a file failed, 2 a usage or journal error.\n";

typedef struct progress {
    bool quiet, tty;
    uint32_t total;
    uint32_t by_class[TL_RIG_CLASS_COUNT];
    uint64_t chains, bones;
    char** failures; /* "input: pointer: message" */
    uint32_t failure_count;
    double last_draw;
} progress;

static void draw_bar(progress* p, const tl_batch_stats* s, bool final) {
    uint32_t done = s->skipped + s->rigged + s->failed;
    if (!final && s->seconds - p->last_draw < 0.1 && done < p->total) return;
    p->last_draw = s->seconds;
    double rate = s->seconds > 0 ? (s->rigged + s->failed) / s->seconds : 0;
    double eta = rate > 0 ? (p->total - done) / rate : 0;
    char bar[31];
    int fill = p->total ? (int)(30.0 * done / p->total) : 30;
    for (int i = 0; i < 30; ++i)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r[%s] %u/%u  %.1f/s  ETA %d:%02d  %u failed ", bar, done, p->total, rate,
            (int)eta / 60, (int)eta % 60, s->failed);
    if (final) fputc('\n', stderr);
    fflush(stderr);
}

static void on_done(void* user, const tl_batch_record* r, bool skipped, const tl_batch_stats* s) {
    progress* p = user;
    if (!skipped && r->ok) {
        for (int c = 0; c < TL_RIG_CLASS_COUNT; ++c)
            p->by_class[c] += r->parts_by_class[c];
        p->chains += r->chains;
        p->bones += r->bones_added;
    }
    if (!r->ok) {
        char line[TL_BATCH_PATH_MAX + 1024];
        snprintf(line, sizeof line, "%s: %s%s%s", r->error_file, r->error_pointer,
                 r->error_pointer[0] ? ": " : "", r->error_message);
        char** f = realloc(p->failures, (p->failure_count + 1) * sizeof *f);
        if (f) {
            p->failures = f;
            p->failures[p->failure_count] = strdup(line);
            if (p->failures[p->failure_count]) p->failure_count++;
        }
    }
    if (p->quiet) return;
    if (p->tty) {
        draw_bar(p, s, false);
        return;
    }
    uint32_t done = s->skipped + s->rigged + s->failed;
    if (skipped)
        fprintf(stderr, "[%u/%u] done before %s\n", done, p->total, r->input);
    else if (r->ok)
        fprintf(stderr, "[%u/%u] rigged %s: %u part(s), %u chain(s), %.3f s\n", done, p->total,
                r->input, r->part_count, r->chains, r->seconds);
    else
        fprintf(stderr, "[%u/%u] FAILED %s: %s\n", done, p->total, r->input,
                p->failure_count ? p->failures[p->failure_count - 1] : r->error_message);
}

static void print_summary(const progress* p, const tl_batch_stats* s, uint32_t threads,
                          const char* journal) {
    double rate = s->seconds > 0 ? (s->rigged + s->failed) / s->seconds : 0;
    printf("%-10s %u\n", "files", s->total);
    printf("%-10s %u\n", "rigged", s->rigged);
    printf("%-10s %u\n", "skipped", s->skipped);
    printf("%-10s %u\n", "failed", s->failed);
    printf("%-10s", "parts");
    for (int c = 0; c < TL_RIG_CLASS_COUNT; ++c)
        printf("%s %s %u", c ? "," : "", tl_rig_class_string((tl_rig_class)c), p->by_class[c]);
    printf("\n%-10s %llu (%llu bones)\n", "chains", (unsigned long long)p->chains,
           (unsigned long long)p->bones);
    printf("%-10s %.2f (%.1f files/s, %u thread(s))\n", "seconds", s->seconds, rate, threads);
    printf("%-10s %s\n", "journal", journal);
}

static bool parse_count(const char* s, uint32_t* out, uint32_t min) {
    char* end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > 100000ul) return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_shard(const char* s, uint32_t* index, uint32_t* count) {
    const char* slash = strchr(s, '/');
    char buf[32];
    if (!slash || slash == s || (size_t)(slash - s) >= sizeof buf) return false;
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = 0;
    return parse_count(buf, index, 0) && parse_count(slash + 1, count, 1) && *index < *count;
}

static int make_dirs(const char* path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (char* p = buf + 1;; ++p) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    }
    return 0;
}

typedef struct batch_args {
    const char *in, *out, *journal;
    bool resume, quiet, stretch, sharded;
    uint32_t threads, shard, shards;
    tl_rig_def rig;
} batch_args;

/* 0, or the exit code after the message. */
static int parse_args(int argc, char** argv, batch_args* a) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->threads = cores > 0 ? (uint32_t)cores : 1;
    a->rig = tl_default_rig_def();
    a->stretch = true;
    for (int i = 1; i < argc; ++i) {
        const char* s = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int known = tl_cli_rig_option("batch", argc, argv, &i, &a->rig);
        if (known < 0) return 2;
        if (known) continue;
        if (tl_cli_is_help(s)) {
            fputs(usage_text, stdout);
            return -1;
        } else if (!strcmp(s, "-o") && v)
            a->out = argv[++i];
        else if (!strcmp(s, "--journal") && v)
            a->journal = argv[++i];
        else if (!strcmp(s, "-j") && v) {
            if (!parse_count(argv[++i], &a->threads, 1))
                return tl_cli_fail("batch", "-j wants a thread count, not \"%s\"", v), 2;
        } else if (!strcmp(s, "--shard") && v) {
            if (!parse_shard(argv[++i], &a->shard, &a->shards))
                return tl_cli_fail("batch", "--shard wants I/N with 0 <= I < N, not \"%s\"", v), 2;
            a->sharded = true;
        } else if (!strcmp(s, "--resume"))
            a->resume = true;
        else if (!strcmp(s, "--no-stretch"))
            a->stretch = false;
        else if (!strcmp(s, "-q"))
            a->quiet = true;
        else if (s[0] != '-' && !a->in)
            a->in = s;
        else
            return tl_cli_fail("batch", "unknown argument \"%s\" (see --help)", s), 2;
    }
    if (!a->in || !a->out)
        return tl_cli_fail("batch", "expected IN_DIR -o OUT_DIR (see --help)"), 2;
    if (tl_cli_is_stdout(a->out))
        return tl_cli_fail("batch", "-o is a folder for many files; - (standard output) cannot be "
                                    "one"),
               2;
    tl_error err;
    if (tl_rig_def_check(&a->rig, &err) != TL_OK) return tl_cli_fail("batch", "%s", err.message), 2;
    return 0;
}

int tl_cli_batch(int argc, char** argv) {
    batch_args a = {0};
    int code = parse_args(argc, argv, &a);
    if (code) return code < 0 ? 0 : code;
    if (make_dirs(a.out) != 0)
        return tl_cli_fail("batch", "%s: cannot make the folder: %s", a.out, strerror(errno)), 2;
    char journal[4096];
    if (a.journal)
        snprintf(journal, sizeof journal, "%s", a.journal);
    else if (a.sharded)
        snprintf(journal, sizeof journal, "%s/batch-%u-of-%u.jsonl", a.out, a.shard, a.shards);
    else
        snprintf(journal, sizeof journal, "%s/batch.jsonl", a.out);

    tl_error err;
    tl_batch_inputs* inputs = NULL;
    tl_batch_journal* j = NULL;
    if (tl_batch_inputs_list(a.in, a.out, &inputs, &err) != TL_OK)
        return tl_cli_fail("batch", "%s", err.message), 2;
    if (a.sharded) tl_batch_inputs_shard(inputs, a.shard, a.shards);
    if (tl_batch_journal_open(journal, a.out, a.resume ? inputs : NULL, &j, &err) != TL_OK) {
        tl_batch_inputs_destroy(inputs);
        return tl_cli_fail("batch", "%s", err.message), 2;
    }
    tl_batch_def def = tl_default_batch_def();
    def.out_dir = a.out;
    def.rig = a.rig;
    def.stretch = a.stretch;
    def.resume = a.resume;
    def.threads = a.threads;
    progress p = {.quiet = a.quiet, .tty = isatty(2) != 0, .total = inputs->count};
    tl_batch_stats stats;
    tl_result r = tl_batch_run(inputs, j, &def, on_done, &p, &stats, &err);
    if (p.tty && !p.quiet) draw_bar(&p, &stats, true);
    tl_batch_journal_close(j);
    tl_batch_inputs_destroy(inputs);
    if (!a.quiet) print_summary(&p, &stats, a.threads, journal);
    if (p.failure_count) fprintf(stderr, "tailor batch: %u file(s) failed:\n", p.failure_count);
    for (uint32_t i = 0; i < p.failure_count; ++i) {
        fprintf(stderr, "  %s\n", p.failures[i]);
        free(p.failures[i]);
    }
    free(p.failures);
    if (r != TL_OK) return tl_cli_fail("batch", "%s", err.message), 2;
    return stats.failed ? 1 : 0;
}
