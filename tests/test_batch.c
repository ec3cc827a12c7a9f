/* tailor batch and src/batch: shards, hashes, listing, the journal; the command over the shared
 * cases serial, with threads and by shards (same bytes, same records, the numbers of `tailor
 * rig --report`), killed at random moments and resumed, with broken files among good ones, and
 * its memory over 50 and 500 inputs. */
#define _DEFAULT_SOURCE /* wait4 */
#include "test.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tailor/batch.h>

#if defined(__SANITIZE_ADDRESS__)
#define TL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_ASAN 1
#endif
#endif

static void write_text(const char* path, const char* text) {
    FILE* f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static bool same_bytes(const char* a, const char* b) {
    size_t na, nb;
    unsigned char* x = tl_test_read_file(a, &na);
    unsigned char* y = tl_test_read_file(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static int shell(const char* format, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, format);
    vsnprintf(cmd, sizeof cmd, format, ap);
    va_end(ap);
    int s = system(cmd);
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

/* The journal's records sorted, each without its "seconds" field (the one that differs between
 * equal runs): a JSON array of objects, or NULL when a line is not JSON. */
static json_t* records(const char* journal) {
    size_t n;
    char* text = (char*)tl_test_read_file(journal, &n);
    if (!text) return NULL;
    text = realloc(text, n + 1);
    text[n] = 0;
    json_t* all = json_array();
    bool bad = n > 0 && text[n - 1] != '\n';
    for (char *line = text, *nl; !bad && *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        json_t* o = json_loads(line, 0, NULL);
        if (!o) {
            bad = true;
            break;
        }
        json_object_del(o, "seconds");
        json_array_append_new(all, o);
    }
    free(text);
    if (bad) {
        json_decref(all);
        return NULL;
    }
    /* sort by input */
    size_t count = json_array_size(all);
    for (size_t i = 1; i < count; ++i)
        for (size_t k = i; k > 0; --k) {
            const char* a = json_string_value(json_object_get(json_array_get(all, k - 1), "input"));
            const char* b = json_string_value(json_object_get(json_array_get(all, k), "input"));
            if (strcmp(a, b) <= 0) break;
            json_t* t = json_incref(json_array_get(all, k - 1));
            json_array_set(all, k - 1, json_array_get(all, k));
            json_array_set_new(all, k, t);
        }
    return all;
}

/* tl_test_shared and tl_test_scratch share a ring of 16 buffers: keep copies. */
static const char* cases_dir(void) {
    static char dir[4096];
    if (!dir[0]) snprintf(dir, sizeof dir, "%s", tl_test_shared("cases"));
    return dir;
}

#define SCRATCH(var, name)                                                                         \
    char var[4096];                                                                                \
    snprintf(var, sizeof var, "%s", tl_test_scratch(name))

/* The .glb files of the shared cases (names only), sorted; returns the count. */
static size_t case_names(char names[][256], size_t max) {
    tl_batch_inputs* in;
    tl_error err;
    if (tl_batch_inputs_list(cases_dir(), NULL, &in, &err) != TL_OK) return 0;
    size_t n = 0;
    for (uint32_t i = 0; i < in->count && n < max; ++i)
        snprintf(names[n++], 256, "%s", in->relative[i]);
    tl_batch_inputs_destroy(in);
    return n;
}

static void shard_split_is_stable_and_even(void) {
    enum { N = 2000, SHARDS = 4 };
    static char paths[N][32];
    uint32_t before[N / 2], count[SHARDS] = {0};
    for (int i = 0; i < N; ++i)
        snprintf(paths[i], sizeof paths[i], "set%d/char_%05d.glb", i % 7, i);
    for (int i = 0; i < N / 2; ++i)
        before[i] = tl_batch_shard_of(paths[i], SHARDS);
    /* the shard of a path is its own: the same whatever else is listed */
    for (int i = 0; i < N; ++i) {
        uint32_t s = tl_batch_shard_of(paths[i], SHARDS);
        ENSURE(s < SHARDS);
        if (i < N / 2) ENSURE(s == before[i]);
        count[s]++;
        ENSURE(tl_batch_shard_of(paths[i], 1) == 0);
    }
    for (int s = 0; s < SHARDS; ++s)
        ENSURE_MSG(count[s] > N / SHARDS * 8 / 10 && count[s] < N / SHARDS * 12 / 10,
                   "shard %d holds %u of %d paths", s, count[s], N);
    /* the known FNV-1a 64 value of "a" (0xaf63dc4c8601ec8c) mod 1000 */
    ENSURE(tl_batch_shard_of("a", 1000) == (uint32_t)(0xaf63dc4c8601ec8cull % 1000));
}

static void sha256_of_known_bytes(void) {
    const char* p = tl_test_scratch("abc.txt");
    write_text(p, "abc");
    char hex[65];
    tl_error err;
    ENSURE_OK(tl_batch_sha256_file(p, hex, &err), err);
    ENSURE(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    ENSURE(tl_batch_sha256_file(tl_test_scratch("no such file"), hex, &err) == TL_ERROR_IO);
    ENSURE(strstr(err.message, "no such file"));
}

static void inputs_from_folder_and_list(void) {
    SCRATCH(root, "inputs");
    shell("rm -rf '%s' && mkdir -p '%s/b/c' '%s/skip' && touch '%s/z.glb' '%s/b/A.GLB' "
          "'%s/b/c/x.gltf' '%s/b/c/y.vrm' '%s/notes.txt' '%s/skip/s.glb' '%s/b/c/y.vrm.bak'",
          root, root, root, root, root, root, root, root, root, root, root);
    char exclude[8192];
    snprintf(exclude, sizeof exclude, "%s/skip", root);
    tl_batch_inputs* in;
    tl_error err;
    ENSURE_OK(tl_batch_inputs_list(root, exclude, &in, &err), err);
    const char* want[] = {"b/A.GLB", "b/c/x.gltf", "b/c/y.vrm", "z.glb"};
    ENSURE_MSG(in->count == 4, "%u inputs", in->count);
    for (int i = 0; i < 4; ++i)
        ENSURE_MSG(!strcmp(in->relative[i], want[i]), "%d: %s", i, in->relative[i]);
    tl_batch_inputs_shard(in, 1, 2);
    for (uint32_t i = 0; i < in->count; ++i)
        ENSURE(tl_batch_shard_of(in->relative[i], 2) == 1);
    tl_batch_inputs_destroy(in);

    char list[8192];
    snprintf(list, sizeof list, "%s/list.txt", root);
    write_text(list, "# a comment\n./z.glb\n\nb/c/x.gltf\r\nz.glb\n");
    ENSURE_OK(tl_batch_inputs_list(list, NULL, &in, &err), err);
    ENSURE(in->count == 2 && !strcmp(in->relative[0], "b/c/x.gltf") &&
           !strcmp(in->relative[1], "z.glb") && !strcmp(in->root, root));
    tl_batch_inputs_destroy(in);
    write_text(list, "z.glb\nb/../../etc/passwd.glb\n");
    ENSURE(tl_batch_inputs_list(list, NULL, &in, &err) == TL_ERROR_ARGUMENT);
    ENSURE(strstr(err.message, "line 2"));
}

/* DIR/in, DIR/out and DIR/out/batch.jsonl (each 8192 bytes), and the inputs listed in DIR/in. */
static tl_batch_inputs* journal_folders(const char* dir, char* in_dir, char* out_dir, char* path) {
    snprintf(in_dir, 8192, "%s/in", dir);
    snprintf(out_dir, 8192, "%s/out", dir);
    snprintf(path, 8192, "%s/out/batch.jsonl", dir);
    tl_batch_inputs* in = NULL;
    tl_error err;
    if (tl_batch_inputs_list(in_dir, NULL, &in, &err) != TL_OK)
        tl_test_failf(__FILE__, __LINE__, "%s: %s", in_dir, err.message);
    return in;
}

/* A journal killed mid-line resumes with the partial line gone and one line per done file. */
static void journal_drops_a_partial_line(void) {
    SCRATCH(dir, "journal");
    shell("rm -rf '%s' && mkdir -p '%s/in' '%s/out' && cp '%s/fox-khronos-tailless.glb' "
          "'%s/rat-tailless.glb' '%s/in/'",
          dir, dir, dir, cases_dir(), cases_dir(), dir);
    char in_dir[8192], out_dir[8192], path[8192];
    tl_batch_inputs* in = journal_folders(dir, in_dir, out_dir, path);
    ENSURE(in);
    tl_error err;
    tl_batch_def def = tl_default_batch_def();
    def.out_dir = out_dir;
    def.stretch = false;
    tl_batch_record rec;
    ENSURE_OK(tl_batch_rig_file(in->root, in->relative[0], &def, &rec), err);
    ENSURE(rec.ok && rec.chains == 1 && rec.bones_added > 0 && strlen(rec.sha256) == 64);
    tl_batch_journal* j;
    ENSURE_OK(tl_batch_journal_open(path, out_dir, NULL, &j, &err), err);
    ENSURE_OK(tl_batch_journal_append(j, &rec, &err), err);
    ENSURE_OK(tl_batch_journal_append(j, &rec, &err), err); /* twice: the first wins */
    tl_batch_journal_close(j);
    char line[1 << 16];
    size_t n = tl_batch_record_json(&rec, line, sizeof line);
    ENSURE(n < sizeof line && strlen(line) == n);
    /* a killed write: the second file's line cut in the middle */
    tl_batch_record rec2;
    ENSURE_OK(tl_batch_rig_file(in->root, in->relative[1], &def, &rec2), err);
    n = tl_batch_record_json(&rec2, line, sizeof line);
    FILE* f = fopen(path, "ab");
    fwrite(line, 1, n / 2, f);
    fclose(f);
    ENSURE_OK(tl_batch_journal_open(path, out_dir, in, &j, &err), err);
    ENSURE(tl_batch_journal_done(j, in->relative[0]));
    ENSURE(!tl_batch_journal_done(j, in->relative[1]));
    tl_batch_journal_close(j);
    json_t* r = records(path);
    ENSURE_MSG(r && json_array_size(r) == 1, "the resumed journal is not one complete line");
    json_decref(r);
    /* the input changed: its record no longer counts */
    shell("printf x >> '%s/in/%s'", dir, in->relative[0]);
    ENSURE_OK(tl_batch_journal_open(path, out_dir, in, &j, &err), err);
    ENSURE(!tl_batch_journal_done(j, in->relative[0]));
    tl_batch_journal_close(j);
    r = records(path);
    ENSURE(r && json_array_size(r) == 0);
    json_decref(r);
    tl_batch_inputs_destroy(in);
}

/* A hostile journal: a FIFO in its place is refused at once (it was waited on forever), a line
 * with a NUL byte drops only that line (it cut off every record after it), and a record whose
 * output lies outside the output folder does not count as done. */
static void journal_hostile(void) {
    SCRATCH(dir, "journal_hostile");
    shell("rm -rf '%s' && mkdir -p '%s/in' '%s/out' && printf a > '%s/in/a.glb' && "
          "printf b > '%s/in/b.glb' && printf x > '%s/out/a.glb' && printf x > '%s/out/b.glb'",
          dir, dir, dir, dir, dir, dir, dir);
    char in_dir[8192], out_dir[8192], path[8192];
    tl_batch_inputs* in = journal_folders(dir, in_dir, out_dir, path);
    ENSURE(in);
    tl_error err;
    ENSURE(in->count == 2);
    tl_batch_journal* j;
    /* no journal yet: resuming starts empty (UBSan: the reader once offset a NULL text) */
    shell("rm -f '%s'", path);
    ENSURE_OK(tl_batch_journal_open(path, out_dir, in, &j, &err), err);
    ENSURE(!tl_batch_journal_done(j, in->relative[0]));
    tl_batch_journal_close(j);
    shell("rm '%s' && mkfifo '%s'", path, path);
    ENSURE(tl_batch_journal_open(path, out_dir, in, &j, &err) == TL_ERROR_IO);
    ENSURE_MSG(strstr(err.message, "batch.jsonl") && strstr(err.message, "FIFO"), "%s",
               err.message);
    shell("rm '%s'", path);
    tl_batch_record rec[2];
    char line[2][4096];
    for (int i = 0; i < 2; ++i) {
        memset(&rec[i], 0, sizeof rec[i]);
        rec[i].ok = true;
        snprintf(rec[i].input, sizeof rec[i].input, "%s", in->relative[i]);
        snprintf(rec[i].output, sizeof rec[i].output, "%s", in->relative[i]);
        char file[8300];
        snprintf(file, sizeof file, "%s/%s", in_dir, in->relative[i]);
        ENSURE_OK(tl_batch_sha256_file(file, rec[i].sha256, &err), err);
        ENSURE(tl_batch_record_json(&rec[i], line[i], sizeof line[i]) < sizeof line[i]);
    }
    /* a NUL byte inside a's line, then b's line: in a string, and after a whole member (where
       jansson read the object as it was so far, a record with every field it needs: fuzz_batch_
       journal found it kept, NUL and all) */
    const char* ok = strstr(line[0], "\"ok\":true");
    ENSURE(ok);
    size_t cuts[2] = {10, (size_t)(ok - line[0]) + strlen("\"ok\":true")};
    FILE* f;
    for (int c = 0; c < 2; ++c) {
        f = fopen(path, "wb");
        fwrite(line[0], 1, cuts[c], f);
        fputc(0, f);
        fprintf(f, "%s\n%s\n", line[0] + cuts[c], line[1]);
        fclose(f);
        ENSURE_OK(tl_batch_journal_open(path, out_dir, in, &j, &err), err);
        ENSURE_MSG(!tl_batch_journal_done(j, in->relative[0]), "a line with a NUL at %zu kept",
                   cuts[c]);
        ENSURE_MSG(tl_batch_journal_done(j, in->relative[1]), "the line after a NUL byte was lost");
        tl_batch_journal_close(j);
        json_t* r = records(path);
        ENSURE(r && json_array_size(r) == 1);
        json_decref(r);
    }
    /* a's output named outside the output folder, at a file that exists there */
    snprintf(rec[0].output, sizeof rec[0].output, "../in/%s", in->relative[0]);
    tl_batch_record_json(&rec[0], line[0], sizeof line[0]);
    f = fopen(path, "wb");
    fprintf(f, "%s\n", line[0]);
    fclose(f);
    ENSURE_OK(tl_batch_journal_open(path, out_dir, in, &j, &err), err);
    ENSURE_MSG(!tl_batch_journal_done(j, in->relative[0]), "an output outside out_dir counted");
    tl_batch_journal_close(j);
    tl_batch_inputs_destroy(in);
    /* an input list with a NUL byte: refused with its line and offset, not read as a path */
    char list[8300];
    snprintf(list, sizeof list, "%s/in/list.txt", dir);
    f = fopen(list, "wb");
    fputs("a.glb\nb", f);
    fputc(0, f);
    fputs(".glb\n", f);
    fclose(f);
    ENSURE(tl_batch_inputs_list(list, NULL, &in, &err) == TL_ERROR_ARGUMENT);
    ENSURE_MSG(strstr(err.message, "line 2: binary data at byte offset 7"), "%s", err.message);
    /* an empty list: no inputs (the sort was handed NULL, which UBSan reports; fuzz_batch_journal)
     */
    f = fopen(list, "wb");
    fclose(f);
    ENSURE_OK(tl_batch_inputs_list(list, NULL, &in, &err), err);
    ENSURE(in->count == 0);
    tl_batch_inputs_destroy(in);
}

/* Runs `tailor batch` into scratch/NAME; returns its exit status. */
static int batch(const char* out, const char* options) {
    return tl_test_cli(NULL, "batch '%s' -o '%s' -q %s 2>/dev/null", cases_dir(), out, options);
}

static void cases_serial_threads_and_shards_agree(void) {
    char names[64][256];
    size_t n = case_names(names, 64);
    ENSURE(n >= 10);
    SCRATCH(serial, "serial");
    SCRATCH(threads, "threads");
    SCRATCH(shards, "shards");
    shell("rm -rf '%s' '%s' '%s'", serial, threads, shards);
    ENSURE(batch(serial, "-j 1") == 0);
    ENSURE(batch(threads, "-j 2") == 0);
    ENSURE(batch(shards, "-j 2 --shard 0/2") == 0);
    ENSURE(batch(shards, "-j 1 --shard 1/2") == 0);
    char a[8192], b[8192];
    for (size_t i = 0; i < n; ++i) {
        snprintf(a, sizeof a, "%s/%s", serial, names[i]);
        snprintf(b, sizeof b, "%s/%s", threads, names[i]);
        ENSURE_MSG(same_bytes(a, b), "%s: -j 2 differs from -j 1", names[i]);
        snprintf(b, sizeof b, "%s/%s", shards, names[i]);
        ENSURE_MSG(same_bytes(a, b), "%s: the shards differ from -j 1", names[i]);
    }
    snprintf(a, sizeof a, "%s/batch.jsonl", serial);
    json_t* rs = records(a);
    snprintf(a, sizeof a, "%s/batch.jsonl", threads);
    json_t* rt = records(a);
    snprintf(a, sizeof a, "%s/batch-0-of-2.jsonl", shards);
    json_t* r0 = records(a);
    snprintf(a, sizeof a, "%s/batch-1-of-2.jsonl", shards);
    json_t* r1 = records(a);
    ENSURE(rs && rt && r0 && r1);
    ENSURE_MSG(json_array_size(rs) == n, "%zu records for %zu files", json_array_size(rs), n);
    ENSURE(json_array_size(r0) > 0 && json_array_size(r1) > 0);
    ENSURE(json_equal(rs, rt));
    json_array_extend(r0, r1);
    json_t* union_ = json_array();
    {
        /* records() sorts; write the union and read it back sorted */
        snprintf(a, sizeof a, "%s/union.jsonl", shards);
        FILE* f = fopen(a, "wb");
        size_t k;
        json_t* o;
        json_array_foreach(r0, k, o) {
            char* s = json_dumps(o, JSON_COMPACT);
            fprintf(f, "%s\n", s);
            free(s);
        }
        fclose(f);
        json_decref(union_);
        union_ = records(a);
    }
    ENSURE_MSG(json_equal(rs, union_), "the two shards' records are not the serial run's");

    /* each record carries what `tailor rig --report` says of the file */
    int new_tears_compared = 0;
    for (size_t i = 0; i < n; ++i) {
        json_t* rec = json_array_get(rs, i);
        ENSURE(!strcmp(json_string_value(json_object_get(rec, "input")), names[i]));
        ENSURE(json_is_true(json_object_get(rec, "ok")));
        ENSURE(strlen(json_string_value(json_object_get(rec, "sha256"))) == 64);
        SCRATCH(report, "report.json");
        SCRATCH(out, "rig.glb");
        ENSURE(tl_test_cli(NULL, "rig '%s/%s' -o '%s' --report '%s' >/dev/null", cases_dir(),
                           names[i], out, report) == 0);
        snprintf(a, sizeof a, "%s/%s", serial, names[i]);
        ENSURE_MSG(same_bytes(a, out), "%s: batch and rig write different bytes", names[i]);
        json_t* rep = json_load_file(report, 0, NULL);
        ENSURE(rep);
        json_t* parts = json_object_get(rep, "parts");
        json_t* rparts = json_object_get(rec, "parts");
        ENSURE(json_integer_value(json_object_get(rec, "part_count")) ==
               (json_int_t)json_array_size(parts));
        ENSURE(json_integer_value(json_object_get(rec, "chains")) ==
               json_integer_value(json_object_get(rep, "chains")));
        size_t k;
        json_t* p;
        json_array_foreach(rparts, k, p) {
            json_t* q = json_array_get(parts, k);
            ENSURE(json_equal(json_object_get(p, "class"), json_object_get(q, "class")));
            ENSURE(json_equal(json_object_get(p, "action"), json_object_get(q, "action")));
            ENSURE(json_integer_value(json_object_get(p, "bones")) ==
                   (json_int_t)json_array_size(json_object_get(q, "bones")));
            ENSURE_NEAR(json_number_value(json_object_get(p, "bone_distance")),
                        json_number_value(json_object_get(q, "bone_distance")),
                        1e-6 * json_number_value(json_object_get(q, "bone_distance")));
            ENSURE_NEAR(json_number_value(json_object_get(p, "bone_distance_after")),
                        json_number_value(json_object_get(q, "bone_distance_after")),
                        1e-6 * json_number_value(json_object_get(q, "bone_distance_after")));
            /* a chain's new tears over the first clip, as the report gives them */
            json_t* by_clip = json_object_get(q, "new_torn_pct");
            void* first = by_clip ? json_object_iter(by_clip) : NULL;
            if (first) {
                ENSURE_MSG(json_is_number(json_object_get(p, "new_torn_pct")),
                           "%s part %zu: no new_torn_pct", names[i], k);
                ENSURE_NEAR(json_number_value(json_object_get(p, "new_torn_pct")),
                            json_number_value(json_object_iter_value(first)), 1e-6);
                ++new_tears_compared;
            }
        }
        json_decref(rep);
    }
    ENSURE(new_tears_compared > 0);
    json_decref(rs);
    json_decref(rt);
    json_decref(r0);
    json_decref(r1);
    json_decref(union_);
}

/* `tailor batch` as a child with its output discarded; argv ends with NULL. */
static pid_t spawn(const char* const* argv) {
    fflush(stdout); /* the child must not flush a copy of what is buffered */
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
        execv(TL_CLI_PATH, (char* const*)argv);
        _exit(127);
    }
    return pid;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* SIGKILL at random moments, then --resume: the outputs and the records of a serial run, one
 * line per file, no temporary file left. */
static void killed_and_resumed_is_the_serial_run(void) {
    char names[64][256];
    size_t n = case_names(names, 64);
    SCRATCH(serial, "serial-k");
    SCRATCH(out, "killed");
    shell("rm -rf '%s' '%s'", serial, out);
    /* without the stretch measurement (the journal does not depend on it): 5x faster */
    ENSURE(batch(serial, "-j 1 --no-stretch") == 0);
    const char* argv[] = {TL_CLI_PATH, "batch", cases_dir(), "-o",           out, "-j",
                          "2",         "-q",    "--resume",  "--no-stretch", NULL};
    /* how long a whole run takes, to kill inside it */
    double t0 = now();
    pid_t pid = spawn(argv);
    int status;
    waitpid(pid, &status, 0);
    double full = now() - t0;
    ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    shell("rm -rf '%s'", out);
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    int kills = 0;
    for (int round = 0; round < 6; ++round) {
        /* each resumed run has less left to do: kill early enough to land inside it */
        double delay = full * (0.03 + 0.3 * rand() / (double)RAND_MAX);
        pid = spawn(argv);
        struct timespec d = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
        nanosleep(&d, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        kills += WIFSIGNALED(status);
        printf("  round %d: SIGKILL after %.0f ms of a %.0f ms run (%s; seed %u)\n", round,
               1e3 * delay, 1e3 * full, WIFSIGNALED(status) ? "killed" : "had finished", seed);
    }
    ENSURE_MSG(kills >= 3, "only %d of 6 runs were killed mid-run", kills);
    pid = spawn(argv);
    waitpid(pid, &status, 0);
    ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char a[8192], b[8192];
    for (size_t i = 0; i < n; ++i) {
        snprintf(a, sizeof a, "%s/%s", serial, names[i]);
        snprintf(b, sizeof b, "%s/%s", out, names[i]);
        ENSURE_MSG(same_bytes(a, b), "%s: the resumed output differs from the serial run",
                   names[i]);
    }
    /* nothing but the outputs and the journal: no temporary file left behind */
    snprintf(a, sizeof a, "cd '%s' && find . -type f | wc -l", out);
    FILE* p = popen(a, "r");
    int files = -1;
    if (p) {
        if (fscanf(p, "%d", &files) != 1) files = -1;
        pclose(p);
    }
    ENSURE_MSG(files == (int)n + 1, "%d files in the output folder, want %zu", files, n + 1);
    snprintf(a, sizeof a, "%s/batch.jsonl", serial);
    snprintf(b, sizeof b, "%s/batch.jsonl", out);
    json_t* rs = records(a);
    json_t* rk = records(b);
    ENSURE_MSG(rk, "the resumed journal has a line that is not JSON");
    ENSURE_MSG(json_array_size(rk) == n, "%zu records for %zu files", json_array_size(rk), n);
    ENSURE_MSG(json_equal(rs, rk), "the resumed records differ from the serial run's");
    json_decref(rs);
    json_decref(rk);
}

/* Broken files among good ones: the good are rigged, each broken one has an error record
 * naming it, nothing crashes, exit 1. */
static void broken_files_among_good_ones(void) {
    SCRATCH(dir, "broken");
    shell("rm -rf '%s' && mkdir -p '%s/in/sub' && cp '%s/fox-khronos-tailless.glb' '%s/in/' && "
          "cp '%s/rat-tailless.glb' '%s/in/sub/' && head -c 3000 '%s/trex-tailless.glb' > "
          "'%s/in/truncated.glb' && echo 'not a model' > '%s/in/text.gltf' && "
          "ln -s '%s/in/gone' '%s/in/dangling.vrm' && printf '{\"asset\":{}}' > '%s/in/bad.gltf'",
          dir, dir, cases_dir(), dir, cases_dir(), dir, cases_dir(), dir, dir, dir, dir, dir);
    bool root = geteuid() == 0;
    if (!root)
        shell("cp '%s/knight-tailed.glb' '%s/in/locked.glb' && chmod 000 '%s/in/locked.glb'",
              cases_dir(), dir, dir);
    char* err_out = NULL;
    int code = tl_test_cli(&err_out, "batch '%s/in' -o '%s/out' -j 2 2>&1", dir, dir);
    ENSURE_MSG(code == 1, "exit %d: %s", code, err_out ? err_out : "");
    char a[8192];
    const char* bad[] = {"truncated.glb", "text.gltf", "dangling.vrm", "bad.gltf", "locked.glb"};
    size_t bad_count = root ? 4 : 5;
    for (size_t i = 0; i < bad_count; ++i) {
        ENSURE_MSG(strstr(err_out, bad[i]), "the failures do not name %s:\n%s", bad[i], err_out);
        snprintf(a, sizeof a, "%s/out/%s", dir, bad[i]);
        struct stat st;
        ENSURE_MSG(stat(a, &st) != 0, "%s has an output", bad[i]);
    }
    free(err_out);
    snprintf(a, sizeof a, "%s/out/fox-khronos-tailless.glb", dir);
    struct stat st;
    ENSURE(stat(a, &st) == 0 && st.st_size > 0);
    snprintf(a, sizeof a, "%s/out/sub/rat-tailless.glb", dir);
    ENSURE(stat(a, &st) == 0 && st.st_size > 0);
    snprintf(a, sizeof a, "%s/out/batch.jsonl", dir);
    json_t* r = records(a);
    ENSURE(r && json_array_size(r) == bad_count + 2);
    size_t i;
    json_t* o;
    size_t failed = 0;
    json_array_foreach(r, i, o) {
        const char* input = json_string_value(json_object_get(o, "input"));
        json_t* e = json_object_get(o, "error");
        if (json_is_true(json_object_get(o, "ok"))) {
            ENSURE(json_is_null(e));
            continue;
        }
        failed++;
        const char* file = json_string_value(json_object_get(e, "file"));
        const char* message = json_string_value(json_object_get(e, "message"));
        ENSURE_MSG(file && strstr(file, input), "%s: error file %s", input, file);
        ENSURE(message && *message && json_is_string(json_object_get(e, "pointer")));
        if (!strcmp(input, "bad.gltf"))
            ENSURE_MSG(!strncmp(json_string_value(json_object_get(e, "pointer")), "/asset", 6),
                       "bad.gltf: pointer %s", json_string_value(json_object_get(e, "pointer")));
    }
    ENSURE(failed == bad_count);
    json_decref(r);
}

/* Peak memory of `tailor batch -j 2` over `count` copies of the smallest case. */
static long peak_kb(const char* dir, int count) {
    shell("rm -rf '%s' && mkdir -p '%s/in'", dir, dir);
    for (int i = 0; i < count; ++i)
        shell("ln -s '%s/fox-khronos-tailless.glb' '%s/in/fox_%04d.glb'", cases_dir(), dir, i);
    char in[8192], out[8192];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    const char* argv[] = {TL_CLI_PATH, "batch", in,   "-o",           out,
                          "-j",        "2",     "-q", "--no-stretch", NULL};
    pid_t pid = spawn(argv);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return ru.ru_maxrss;
}

static void memory_stays_flat(void) {
#ifdef TL_ASAN
    printf("  skipped under AddressSanitizer (its quarantine keeps freed memory)\n");
    return;
#endif
    SCRATCH(d50, "mem50");
    SCRATCH(d500, "mem500");
    long small = peak_kb(d50, 50);
    long large = peak_kb(d500, 500);
    printf("  peak RSS: 50 inputs %ld KB, 500 inputs %ld KB\n", small, large);
    ENSURE(small > 0 && large > 0);
    ENSURE_MSG(large < small + small / 5, "500 inputs take %ld KB, 50 take %ld KB", large, small);
    shell("rm -rf '%s' '%s'", d50, d500);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"shard_split_is_stable_and_even", shard_split_is_stable_and_even},
        {"sha256_of_known_bytes", sha256_of_known_bytes},
        {"inputs_from_folder_and_list", inputs_from_folder_and_list},
        {"journal_drops_a_partial_line", journal_drops_a_partial_line},
        {"journal_hostile", journal_hostile},
        {"cases_serial_threads_and_shards_agree", cases_serial_threads_and_shards_agree},
        {"killed_and_resumed_is_the_serial_run", killed_and_resumed_is_the_serial_run},
        {"broken_files_among_good_ones", broken_files_among_good_ones},
        {"memory_stays_flat", memory_stays_flat},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
