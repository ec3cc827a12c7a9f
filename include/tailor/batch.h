/* tailor/batch.h — rig many files: the input list, shards, one file's record, the journal
 * (batch.jsonl) and a pool of worker threads (docs/batch.md).
 *
 * A batch rigs every input into an output folder under the same relative path. Each worker
 * loads, rigs and writes one file at a time (so a run holds at most `threads` documents), and
 * each file ends as one record appended to the journal with a single write(2) on an O_APPEND
 * descriptor: a killed run leaves at most a partial last line, which tl_batch_journal_open
 * drops when resuming. A file is done when its output exists and the journal holds a
 * successful record with the input's current sha256.
 *
 * Shards: the file with relative path P belongs to shard fnv1a64(P) mod n (tl_batch_shard_of),
 * shards numbered 0..n-1. A file's shard depends on its own path and n alone, so adding files
 * moves none of the others.
 *
 * Ownership: tl_batch_inputs_list and tl_batch_journal_open allocate what they return; the
 * matching destroy/close frees it. A record is a plain struct the caller owns (no pointers).
 *
 * Example:
 *     tl_batch_inputs* in; tl_error err;
 *     if (tl_batch_inputs_list("chars/", NULL, &in, &err) != TL_OK) { puts(err.message); ... }
 *     tl_batch_def def = tl_default_batch_def();
 *     def.out_dir = "rigged";
 *     tl_batch_journal* j;
 *     tl_batch_journal_open("rigged/batch.jsonl", "rigged", NULL, &j, &err);
 *     tl_batch_stats stats;
 *     tl_batch_run(in, j, &def, NULL, NULL, &stats, &err);
 *     tl_batch_journal_close(j);
 *     tl_batch_inputs_destroy(in);
 */
#ifndef TAILOR_BATCH_H
#define TAILOR_BATCH_H

#include <tailor/base.h>
#include <tailor/rig.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Paths in a record are cut to this many bytes (a longer input is refused by the listing). */
#define TL_BATCH_PATH_MAX 1024
/* Parts a record describes one by one; a file with more counts them all in part_count. */
#define TL_BATCH_MAX_PARTS 32
/* The largest journal resume reads (about four million records). */
#define TL_BATCH_JOURNAL_MAX_BYTES (4ull << 30)
/* The largest input list read (a million paths of a kilobyte). */
#define TL_BATCH_LIST_MAX_BYTES (1ull << 30)

/* The inputs of a batch, sorted by relative path (strcmp), each once. */
typedef struct tl_batch_inputs {
    char* root;      /* the folder relative paths start from (the IN_DIR, or the list's
                        folder) */
    char** relative; /* count paths relative to root ("a/b/fox.glb") */
    uint32_t count;
} tl_batch_inputs;

/* Lists the inputs: every .glb/.gltf/.vrm (any case) under a folder, recursively, symbolic
 * links to folders not followed, the folder `exclude` (the output folder, by device and inode;
 * NULL: none) skipped; or, when `source` is a file, the paths it lists one a line (relative
 * to the list's folder; blank lines and lines starting with '#' skipped). A path with a ".."
 * component or an absolute path in a list is TL_ERROR_ARGUMENT (outputs must stay inside the
 * output folder). Errors: TL_ERROR_IO (an unreadable folder or list), TL_ERROR_LIMIT (a path
 * longer than TL_BATCH_PATH_MAX), memory. */
tl_result tl_batch_inputs_list(const char* source, const char* exclude, tl_batch_inputs** out,
                               tl_error* err);
void tl_batch_inputs_destroy(tl_batch_inputs* inputs);

/* The shard (0..n-1) of a relative path: 64-bit FNV-1a of its bytes, mod n. n ≥ 1. */
uint32_t tl_batch_shard_of(const char* relative, uint32_t n);

/* Keeps the inputs of shard `index` of `count` (index < count), in order. */
void tl_batch_inputs_shard(tl_batch_inputs* inputs, uint32_t index, uint32_t count);

/* The sha256 of a file's bytes as 64 lower-case hex digits and a NUL. TL_ERROR_IO when it
 * cannot be read. */
tl_result tl_batch_sha256_file(const char* path, char hex[65], tl_error* err);

/* One part of a rigged file, as tl_rig_analyze found it. */
typedef struct tl_batch_part {
    uint32_t id;
    tl_rig_class cls;
    tl_rig_action action;
    uint32_t bones;            /* bones added for it (a chain's K + Tail_End, a cloth's
                                  lattice bones), 0 otherwise */
    float bone_distance;       /* mean weighted bone distance as the file was, rest-world */
    float bone_distance_after; /* … as written */
    bool stretch_measured;     /* def.stretch and the file has a clip */
    float stretch_p99;         /* edge-stretch p99 over the first clip as the file was */
    float stretch_p99_after;   /* … with the chain simulated (tl_measure_run) */
    float new_torn_pct;        /* a chain's new tears over the first clip, % of the edge samples
                                  of the skin it re-weighted (measure.md "New tears", as
                                  `tailor rig --report`); < 0 when not measured */
} tl_batch_part;

/* What became of one input: the journal line (tl_batch_record_json). */
typedef struct tl_batch_record {
    char input[TL_BATCH_PATH_MAX];  /* relative to the inputs' root */
    char output[TL_BATCH_PATH_MAX]; /* relative to the output folder ("" when failed) */
    char sha256[65];                /* of the input's bytes ("" when it could not be read) */
    bool ok;
    uint32_t part_count;                         /* every part found */
    uint32_t parts_by_class[TL_RIG_CLASS_COUNT]; /* counted by class */
    uint32_t chains;                             /* parts given a chain */
    uint32_t bones_added;                        /* joints the file gained */
    uint32_t changed_vertices;                   /* vertices whose weights changed */
    tl_batch_part parts[TL_BATCH_MAX_PARTS];     /* the first min(part_count, MAX) parts */
    double seconds; /* load to rename, wall clock (not deterministic; the one such field) */
    /* a failed file: where and what, split from the tl_error message */
    tl_result result; /* TL_OK, or the failing call's */
    char error_file[TL_BATCH_PATH_MAX];
    char error_pointer[256]; /* "/accessors/3/count", "byte 12", or "" */
    char error_message[512];
} tl_batch_record;

typedef struct tl_batch_def {
    const char* out_dir; /* outputs go to out_dir/RELATIVE (folders made as needed); required */
    tl_rig_def rig;      /* tl_default_rig_def */
    bool stretch;        /* also measure each part's edge stretch on the first clip, as the
                            file was and with its chain simulated (about 5-15x a rig's time);
                            false */
    bool resume;         /* skip inputs the journal has done (tl_batch_journal_done) and
                            clear what a killed run left beside outputs; false */
    uint32_t threads;    /* worker threads, ≥ 1; typical: the cores */
} tl_batch_def;

tl_batch_def tl_default_batch_def(void);

/* Rigs one file: load, analyse, apply, write through tl_batch_write_output. Fills every field
 * of `record` (input/output set from the arguments); returns the record's result. The input
 * is never replaced: an output that is the input (same device and inode) fails. */
tl_result tl_batch_rig_file(const char* root, const char* relative, const tl_batch_def* def,
                            tl_batch_record* record);

/* The one place a batch writes an output: a temporary file beside it, renamed into place
 * once complete (tl_gltf_save); refuses a path that is the input. */
tl_result tl_batch_write_output(const tl_gltf* doc, const char* input, const char* output,
                                tl_error* err);

/* The journal line of a record, JSON without a newline, keys in a fixed order, floats with 9
 * significant digits (docs/batch.md). Writes at most `size` bytes with a NUL; returns the
 * length it needs (as snprintf). */
size_t tl_batch_record_json(const tl_batch_record* record, char* buffer, size_t size);

typedef struct tl_batch_journal tl_batch_journal;

/* Opens the journal for appending. Without `resume` (NULL) it starts empty. With the run's
 * inputs, it keeps the successful records of those inputs whose output (under out_dir) exists
 * and whose sha256 is the input's now, the first of each input, drops everything else (a
 * partial last line from a killed run, failures, stale records) and rewrites the file with
 * them (temporary file, fsync, rename); tl_batch_journal_done then names those inputs, and a
 * resumed run ends with one line per file. A record counts only with its output at the input's
 * own relative path; a line that is not JSON (a NUL byte, a cut) is dropped. The inputs must
 * outlive the journal. Errors: TL_ERROR_IO (also a journal that is not a regular file: a FIFO is
 * refused, never waited on), TL_ERROR_LIMIT (over TL_BATCH_JOURNAL_MAX_BYTES), memory. */
tl_result tl_batch_journal_open(const char* path, const char* out_dir,
                                const tl_batch_inputs* resume, tl_batch_journal** out,
                                tl_error* err);

/* True when the journal, as opened, holds a successful record of `relative` (an input). */
bool tl_batch_journal_done(const tl_batch_journal* journal, const char* relative);

/* Appends one record as one line with one write(2) (thread-safe). Not fsync'd: a line the
 * kernel has is kept across the process's death; a machine crash may lose the last lines,
 * whose files are then rigged again. */
tl_result tl_batch_journal_append(tl_batch_journal* journal, const tl_batch_record* record,
                                  tl_error* err);
void tl_batch_journal_close(tl_batch_journal* journal);

/* Counts of a run. */
typedef struct tl_batch_stats {
    uint32_t total;   /* inputs given */
    uint32_t skipped; /* done before (resume) */
    uint32_t rigged;  /* rigged now */
    uint32_t failed;
    double seconds; /* wall clock of the run */
} tl_batch_stats;

/* Called once per input from the worker that finished it, under the run's lock (so calls do
 * not overlap); `skipped` when resume found it done (the record then holds input and sha256
 * only). */
typedef void tl_batch_done_fn(void* user, const tl_batch_record* record, bool skipped,
                              const tl_batch_stats* so_far);

/* Rigs every input with def->threads workers, appending each record to the journal. Returns
 * TL_OK when the run went through (files may have failed: stats->failed), or the journal's
 * error when a line could not be written (the run stops), or TL_ERROR_MEMORY. */
tl_result tl_batch_run(const tl_batch_inputs* inputs, tl_batch_journal* journal,
                       const tl_batch_def* def, tl_batch_done_fn* done, void* user,
                       tl_batch_stats* stats, tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
