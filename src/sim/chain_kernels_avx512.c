/* The full batch kernels once more, 16 floats a vector, for CPUs with AVX-512 (chosen at run
 * time): one instruction where AVX2 takes two. The same IEEE operations in the same order, so
 * the same bits as the AVX2 and SSE builds: gcc contracts nothing in C11 mode, and clang (whose
 * avx512f brings FMA) is told not to. */
#if defined(__clang__) /* (before every header: their inline functions are contracted where        \
                          they are written) */
#pragma STDC FP_CONTRACT OFF
#endif
#include "chain_parts.h"

#if TL_LANES_AVX2 && TL_LANES_AVX512
#include <stdatomic.h>

#define LANE_COUNT LANES
#define LANE_ISA _avx512
#if defined(__clang__)
#define LANE_TARGET __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#else
#define LANE_TARGET                                                                                \
    __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,prefer-vector-width=512")))
#endif
#define LANE_AVX512 1
#define LANE_FULL 1
#include "spring_chain_lanes.h"
#undef LANE_FULL
#undef LANE_AVX512
#undef LANE_COUNT

bool chain_has_avx512(void) {
    static atomic_int known; /* 0 not asked yet, 1 no, 2 yes */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v == 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")
                ? 2
                : 1;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v == 2;
}

void chain_lanes_steps_avx512(lane_link* links, int n, lane_frame* f) {
    lanes_pose_16_avx512(f);
    lanes_links_16_avx512(links, n, f);
}

void chain_lanes_steps2_avx512(lane_link* la, lane_frame* fa, lane_link* lb, lane_frame* fb,
                               int n) {
    lanes_pose_16_avx512(fa);
    lanes_pose_16_avx512(fb);
    lanes_links2_16_avx512(la, fa, lb, fb, n);
}

void chain_lanes_finite_avx512(const lane_link* links, int n, bool* finite) {
    lanes_finite_16_avx512(links, n, finite);
}

void chain_lanes_outputs_avx512(const lane_link* links, lane_output* out, int n, float* t,
                                float* gx, float* gy, float* gz, float* gw, float* hx, float* hy,
                                float* hz, float* s, const lane_frame* f) {
    lanes_output_16_avx512(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
}
#elif TL_LANES_AVX2
bool chain_has_avx512(void) {
    return false;
}
void chain_lanes_steps_avx512(lane_link* links, int n, lane_frame* f) {
    (void)links, (void)n, (void)f;
}
void chain_lanes_steps2_avx512(lane_link* la, lane_frame* fa, lane_link* lb, lane_frame* fb,
                               int n) {
    (void)la, (void)fa, (void)lb, (void)fb, (void)n;
}
void chain_lanes_finite_avx512(const lane_link* links, int n, bool* finite) {
    (void)links, (void)n, (void)finite;
}
void chain_lanes_outputs_avx512(const lane_link* links, lane_output* out, int n, float* t,
                                float* gx, float* gy, float* gz, float* gw, float* hx, float* hy,
                                float* hz, float* s, const lane_frame* f) {
    (void)links, (void)out, (void)n, (void)t, (void)gx, (void)gy, (void)gz, (void)gw, (void)hx,
        (void)hy;
    (void)hz, (void)s, (void)f;
}
#else
typedef int chain_kernels_avx512_unused; /* (ISO C: no empty translation unit) */
#endif
