/* The batch kernels again, 8 floats a vector, for CPUs with AVX2 (chosen at run time). The
 * same IEEE operations in the same order (no FMA: none is enabled, and C11 mode contracts
 * nothing), so the same bits as the SSE build. */
#include "chain_parts.h"

#if TL_LANES_AVX2
#include <stdatomic.h>

#define LANE_COUNT LANES
#define LANE_ISA _avx2
#define LANE_TARGET __attribute__((target("avx2")))
#define LANE_AVX2 1
#define LANE_FULL 1
#include "spring_chain_lanes.h"
#undef LANE_FULL
#undef LANE_COUNT
#define LANE_COUNT HALF_LANES
#define LANE_ISA _avx2
#define LANE_TARGET __attribute__((target("avx2")))
#include "spring_chain_lanes.h"
#undef LANE_AVX2
#undef LANE_COUNT

#define BATCH_AVX2(x) BATCH_(x, LANES, _avx2)
#define HALF_AVX2(x) BATCH_(x, HALF_LANES, _avx2)
#define BATCH_(x, n, isa) BATCH__(x, n, isa)
#define BATCH__(x, n, isa) x##_##n##isa

bool chain_has_avx2(void) {
    static atomic_int known; /* 0 not asked yet, 1 no, 2 yes */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v == 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v == 2;
}

/* (Not inlined into the dispatch: gcc 12 then warns of the neighbours' bend that an uncoupled
 * chain never reads.) */
void chain_lanes_steps_avx2(lane_link* links, int n, lane_frame* f, int lanes) {
    if (lanes == LANES && chain_has_avx512()) {
        chain_lanes_steps_avx512(links, n, f);
    } else if (lanes == LANES) {
        BATCH_AVX2(lanes_pose)(f);
        BATCH_AVX2(lanes_links)(links, n, f);
    } else {
        HALF_AVX2(lanes_pose)(f);
        HALF_AVX2(lanes_links)(links, n, f);
    }
}

void chain_lanes_steps2_avx2(lane_link* la, lane_frame* fa, lane_link* lb, lane_frame* fb, int n) {
    if (chain_has_avx512()) {
        chain_lanes_steps2_avx512(la, fa, lb, fb, n);
        return;
    }
    BATCH_AVX2(lanes_pose)(fa);
    BATCH_AVX2(lanes_pose)(fb);
    BATCH_AVX2(lanes_links2)(la, fa, lb, fb, n);
}

void chain_lanes_finite_avx2(const lane_link* links, int n, bool* finite) {
    if (chain_has_avx512())
        chain_lanes_finite_avx512(links, n, finite);
    else
        BATCH_AVX2(lanes_finite)(links, n, finite);
}

void chain_lanes_outputs_avx2(const lane_link* links, lane_output* out, int n, float* t, float* gx,
                              float* gy, float* gz, float* gw, float* hx, float* hy, float* hz,
                              float* s, const lane_frame* f, int lanes) {
    if (lanes == LANES && chain_has_avx512())
        chain_lanes_outputs_avx512(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
    else if (lanes == LANES)
        BATCH_AVX2(lanes_output)(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
    else
        HALF_AVX2(lanes_output)(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
}
#else
typedef int chain_kernels_avx2_unused; /* (ISO C: no empty translation unit) */
#endif
