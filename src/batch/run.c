/* The worker pool: each thread takes the next input, rigs it, appends its record. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct pool {
    const tl_batch_inputs* inputs;
    tl_batch_journal* journal;
    const tl_batch_def* def;
    tl_batch_done_fn* done;
    void* user;
    pthread_mutex_t lock; /* next, stats, the callback, stop, error */
    uint32_t next;
    tl_batch_stats stats;
    bool stop;
    tl_result result;
    tl_error err;
    double t0;
} pool;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void* worker(void* arg) {
    pool* p = arg;
    tl_batch_record* rec = malloc(sizeof *rec); /* one record per worker, reused */
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (!rec && p->result == TL_OK) {
            p->result = tl_error_set(&p->err, TL_ERROR_MEMORY, "out of memory");
            p->stop = true;
        }
        uint32_t i = p->stop || p->next == p->inputs->count ? UINT32_MAX : p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i == UINT32_MAX) break;
        const char* rel = p->inputs->relative[i];
        bool skipped = p->def->resume && p->journal && tl_batch_journal_done(p->journal, rel);
        tl_error jerr;
        tl_result jr = TL_OK;
        if (skipped) {
            memset(rec, 0, sizeof *rec);
            strncpy(rec->input, rel, sizeof rec->input - 1);
            rec->ok = true;
        } else {
            tl_batch_rig_file(p->inputs->root, rel, p->def, rec);
            if (p->journal) jr = tl_batch_journal_append(p->journal, rec, &jerr);
        }
        pthread_mutex_lock(&p->lock);
        if (jr != TL_OK && p->result == TL_OK) {
            p->result = jr;
            p->err = jerr;
            p->stop = true;
        }
        if (jr == TL_OK) {
            if (skipped)
                p->stats.skipped++;
            else if (rec->ok)
                p->stats.rigged++;
            else
                p->stats.failed++;
            p->stats.seconds = now() - p->t0;
            if (p->done) p->done(p->user, rec, skipped, &p->stats);
        }
        pthread_mutex_unlock(&p->lock);
    }
    free(rec);
    return NULL;
}

tl_result tl_batch_run(const tl_batch_inputs* inputs, tl_batch_journal* journal,
                       const tl_batch_def* def, tl_batch_done_fn* done, void* user,
                       tl_batch_stats* stats, tl_error* err) {
    assert(inputs && def && def->out_dir && def->threads >= 1);
    pool p = {.inputs = inputs, .journal = journal, .def = def, .done = done, .user = user};
    p.stats.total = inputs->count;
    p.t0 = now();
    pthread_mutex_init(&p.lock, NULL);
    uint32_t n = def->threads < inputs->count ? def->threads : inputs->count;
    pthread_t* threads = n ? calloc(n, sizeof *threads) : NULL;
    tl_result r = TL_OK;
    if (n && !threads) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint32_t started = 0;
    for (; r == TL_OK && started < n; ++started)
        if (pthread_create(&threads[started], NULL, worker, &p) != 0) break;
    if (r == TL_OK && started == 0 && n) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "cannot start a worker thread");
    }
    for (uint32_t t = 0; t < started; ++t)
        pthread_join(threads[t], NULL);
    free(threads);
    pthread_mutex_destroy(&p.lock);
    p.stats.seconds = now() - p.t0;
    if (stats) *stats = p.stats;
    if (r == TL_OK && p.result != TL_OK) {
        if (err) *err = p.err;
        r = p.result;
    }
    return r;
}
