/* What every benchmark program shares: a CPU-time clock (the machine may be shared, so
 * wall time would measure other processes) and an allocation that exits on failure. */
#ifndef TL_BENCH_H
#define TL_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* This thread's CPU time, milliseconds. */
static inline double bench_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The process's CPU time, milliseconds: every thread's, as clock() counts it (the library's
 * stage timings use clock(), and CHOLMOD's OpenMP threads work inside them). */
static inline double bench_process_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static inline void* bench_malloc(size_t size) {
    void* p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "bench: out of memory for %zu bytes\n", size);
        exit(1);
    }
    return p;
}

#endif
