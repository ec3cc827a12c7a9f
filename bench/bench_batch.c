/* `tailor batch` throughput: 200 sample characters (both samples, seeds 1..100, with the up
 * axis, scale and facing varied) written to a scratch folder, then rigged by tl_batch_run with
 * 1 and 2 worker threads, each the fastest of RUNS runs. Prints CSV
 * `threads,files,stretch,seconds,chars_per_s,scaling` (scaling: chars_per_s over 1 thread's),
 * with and without the per-part stretch measurement. Wall-clock time: threads are the point,
 * so a busy machine lowers the figures (run it alone). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/sample.h>
#include <tailor/tailor.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FILES = 200, RUNS = 3 };

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void make_inputs(const char* dir) {
    const char* names[2] = {"tailed-biped", "tailed-quadruped"};
    mkdir(dir, 0755);
    for (int i = 0; i < FILES; ++i) {
        tl_sample_def def = tl_default_sample_def();
        def.seed = (uint32_t)(i / 2 + 1);
        def.up = i % 3 == 0 ? TL_SAMPLE_Z_UP : TL_SAMPLE_Y_UP;
        def.scale = i % 4 == 1 ? 0.01f : 1.0f;
        def.facing = i % 5 == 2 ? TL_SAMPLE_FACING_NEG_Z : TL_SAMPLE_FACING_POS_Z;
        tl_gltf* doc;
        tl_error err;
        if (tl_sample_build(names[i % 2], &def, &doc, NULL, &err) != TL_OK) {
            fprintf(stderr, "bench_batch: %s\n", err.message);
            exit(1);
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/%s_%03d.glb", dir, names[i % 2], i);
        tl_gltf_save_def save = tl_default_gltf_save_def();
        save.overwrite = true;
        if (tl_gltf_save(doc, path, &save, &err) != TL_OK) {
            fprintf(stderr, "bench_batch: %s\n", err.message);
            exit(1);
        }
        tl_gltf_destroy(doc);
    }
}

static double run(const tl_batch_inputs* in, const char* out, uint32_t threads, bool stretch) {
    double best = 1e30;
    for (int r = 0; r < RUNS; ++r) {
        tl_batch_def def = tl_default_batch_def();
        def.out_dir = out;
        def.threads = threads;
        def.stretch = stretch;
        tl_batch_stats stats;
        tl_error err;
        double t0 = wall_s();
        if (tl_batch_run(in, NULL, &def, NULL, NULL, &stats, &err) != TL_OK || stats.failed) {
            fprintf(stderr, "bench_batch: the run failed (%u files)\n", stats.failed);
            exit(1);
        }
        double t = wall_s() - t0;
        if (t < best) best = t;
    }
    return best;
}

int main(void) {
    char dir[] = "/tmp/tailor-bench-batch.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char in_dir[64], out_dir[64];
    snprintf(in_dir, sizeof in_dir, "%s/in", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    make_inputs(in_dir);
    tl_batch_inputs* in;
    tl_error err;
    if (tl_batch_inputs_list(in_dir, NULL, &in, &err) != TL_OK || in->count != FILES) return 1;
    printf("threads,files,stretch,seconds,chars_per_s,scaling\n");
    for (int s = 0; s < 2; ++s) {
        double one = 0;
        for (uint32_t threads = 1; threads <= 2; ++threads) {
            double t = run(in, out_dir, threads, s == 1);
            double rate = FILES / t;
            if (threads == 1) one = rate;
            printf("%u,%d,%s,%.3f,%.1f,%.2f\n", threads, FILES, s ? "yes" : "no", t, rate,
                   rate / one);
            fflush(stdout);
        }
    }
    tl_batch_inputs_destroy(in);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
