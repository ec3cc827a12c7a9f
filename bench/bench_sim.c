/* Spring-chain solver cost (CSV on stdout): 1, 100 and 1000 characters, each with one 8-link
 * tail on walking hips (phases staggered), 60 fps frames of two 1/120 s internal steps,
 * all chains stepped by tl_chain_batch_step on one core (one batch). The same scene runs in
 * @pixiv/three-vrm-springbone through bench/peer_springbone.mjs.
 *   solver,characters,links,steps,ns_per_link_step,us_per_character_step */
#define _POSIX_C_SOURCE 200112L
#include "bench.h"
#include <tailor/sim.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LINKS = 8 };

/* The walk of tests/test_sim.c: forward 1.2 m/s, 1 Hz sway, 2 Hz bob, 10 degrees of yaw. */
static tl_chain_pose walk(double t) {
    double yaw = 10 * 3.14159265358979 / 180 * sin(2 * 3.14159265358979 * t);
    tl_chain_pose p = {{(float)(0.05 * sin(2 * 3.14159265358979 * t)),
                        (float)(1 + 0.03 * sin(4 * 3.14159265358979 * t)), (float)(1.2 * t)},
                       {0, (float)sin(yaw / 2), 0, (float)cos(yaw / 2)},
                       1};
    return p;
}

/* FNV-1a over the bits of count floats. */
static uint64_t hash_floats(uint64_t hash, const float* x, int count) {
    for (int i = 0; i < count; ++i) {
        uint32_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        hash = (hash ^ bits) * 1099511628211u;
    }
    return hash;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* `bench_sim core`: the rates of this core that bound the lane kernels (docs/sim.md, session
 * 14), each as eight independent instructions a loop iteration (a dependent chain for the
 * clock and the latencies). Cycles are the clock's: a chain of dependent integer adds, one a
 * cycle. */
#define CORE_X8(op, ...)                                                                           \
    __asm__ volatile(op " " __VA_ARGS__ "\n\t" op " " __VA_ARGS__ "\n\t" op " " __VA_ARGS__        \
                        "\n\t" op " " __VA_ARGS__ "\n\t" op " " __VA_ARGS__ "\n\t" op              \
                        " " __VA_ARGS__ "\n\t" op " " __VA_ARGS__ "\n\t" op                        \
                        " " __VA_ARGS__ ::"r"(buffer)                                              \
                     : "xmm2", "xmm3", "memory")
static float core_buffer[1024] __attribute__((aligned(64)));

/* ns per instruction of kind k over n loop iterations of eight */
__attribute__((target("avx512f"), noinline)) static double core_rate(int k, long n) {
    float* buffer = core_buffer;
    long x = 0;
    double begin = bench_cpu_ms();
    for (long i = 0; i < n; ++i) {
        switch (k) {
        case 0:
            __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
                             "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0"
                             : "+r"(x));
            break;
        case 1:
            CORE_X8("vmulps", "%%zmm0,%%zmm1,%%zmm2");
            break;
        case 2:
            CORE_X8("vaddps", "%%zmm0,%%zmm1,%%zmm2");
            break;
        case 3:
            CORE_X8("vsqrtps", "%%zmm1,%%zmm2");
            break;
        case 4:
            CORE_X8("vdivps", "%%zmm0,%%zmm1,%%zmm2");
            break;
        case 5:
            CORE_X8("vmovaps", "(%0),%%zmm2");
            break;
        case 6:
            CORE_X8("vmovaps", "%%zmm1,64(%0)");
            break;
        case 7:
            CORE_X8("vsqrtps", "%%zmm2,%%zmm2");
            break;
        case 8:
            CORE_X8("vmovaps %%zmm2,128(%0)\n\tvmovaps", "128(%0),%%zmm2");
            break;
        case 9:
            CORE_X8("vmulps %%zmm0,%%zmm1,%%zmm3\n\tvaddps", "%%zmm0,%%zmm1,%%zmm2");
            break;
        case 10: /* (as the kernels: other addresses than the stores') */
            __asm__ volatile("vmovaps (%0),%%zmm2\n\tvmovaps %%zmm1,1024(%0)\n\t"
                             "vmovaps 64(%0),%%zmm3\n\tvmovaps %%zmm1,1088(%0)\n\t"
                             "vmovaps 128(%0),%%zmm2\n\tvmovaps %%zmm1,1152(%0)\n\t"
                             "vmovaps 192(%0),%%zmm3\n\tvmovaps %%zmm1,1216(%0)\n\t"
                             "vmovaps 256(%0),%%zmm2\n\tvmovaps %%zmm1,1280(%0)\n\t"
                             "vmovaps 320(%0),%%zmm3\n\tvmovaps %%zmm1,1344(%0)\n\t"
                             "vmovaps 384(%0),%%zmm2\n\tvmovaps %%zmm1,1408(%0)\n\t"
                             "vmovaps 448(%0),%%zmm3\n\tvmovaps %%zmm1,1472(%0)" ::"r"(buffer)
                             : "xmm2", "xmm3", "memory");
            break;
        default: /* (eight accumulators: each FMA reads its destination) */
            __asm__ volatile("vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm3\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm4\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm5\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm6\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm7\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm8\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm9\n\t"
                             "vmulps %%zmm0,%%zmm1,%%zmm2\n\tvfmadd231ps %%zmm0,%%zmm1,%%zmm10" ::
                                 : "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                                   "xmm10");
            break;
        }
    }
    return (bench_cpu_ms() - begin) * 1e6 / (8.0 * (double)n);
}

static int core_main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) {
        fprintf(stderr, "bench_sim core: no AVX-512\n");
        return 1;
    }
    __asm__ volatile("vxorps %%xmm0,%%xmm0,%%xmm0\n\tvxorps %%xmm1,%%xmm1,%%xmm1" ::
                         : "xmm0", "xmm1");
    static const char* const names[] = {"dependent integer add (the clock)",
                                        "zmm vmulps",
                                        "zmm vaddps",
                                        "zmm vsqrtps",
                                        "zmm vdivps",
                                        "zmm load",
                                        "zmm store",
                                        "zmm vsqrtps latency",
                                        "zmm store then load (latency)",
                                        "a zmm vmulps and a vaddps (a pair)",
                                        "a zmm load and a store (a pair)",
                                        "a zmm vmulps and a vfmadd231ps (a pair)"};
    const double cycle = core_rate(0, 100000000);
    printf("kind,ns,cycles\n%s,%.4f,1 (%.2f GHz)\n", names[0], cycle, 1 / cycle);
    for (int k = 1; k < 12; ++k) {
        double ns = core_rate(k, k == 3 || k == 4 || k == 7 ? 2000000 : 20000000);
        printf("%s,%.4f,%.2f\n", names[k], ns, ns / cycle);
    }
    return 0;
}
#else
static int core_main(void) {
    fprintf(stderr, "bench_sim core: x86-64 gcc builds only\n");
    return 1;
}
#endif

/* Six capsules of a 1.8 m body at walk time t about hips pose h: thighs, shins, pelvis and
 * spine (scene 2: a bar behind the legs in the spine's place; scene 3: a thick bar under the
 * tail as the walk trails it back, which two of its links lie on: resting contact). */
static void body_capsules(int scene, double t, const tl_chain_pose* h, tl_collider* b) {
    /* In the hips' frame; the legs swing 30 degrees either way with the stride, so that the
     * capsules reach the tail behind (a scene whose capsules never touch it measures their cull
     * alone, docs/sim.md session 14) */
    double stride = sin(2 * 3.14159265358979 * t);
    float local[6][7] = {{0}};
    for (int leg = 0; leg < 2; ++leg) {
        float side = leg ? -0.08f : 0.08f;
        double a = (leg ? -1 : 1) * 30 * 3.14159265358979 / 180 * stride;
        double s = a - 15 * 3.14159265358979 / 180; /* the shin trails the thigh */
        float knee[3] = {side, (float)(-0.05 - 0.42 * cos(a)), (float)(0.02 + 0.42 * sin(a))};
        float* th = local[leg];
        float* sh = local[2 + leg];
        th[0] = side, th[1] = -0.05f, th[2] = 0.02f;
        memcpy(th + 3, knee, sizeof knee), th[6] = 0.1f;
        memcpy(sh, knee, sizeof knee);
        sh[3] = side, sh[4] = knee[1] - (float)(0.42 * cos(s));
        sh[5] = knee[2] + (float)(0.42 * sin(s)), sh[6] = 0.055f;
    }
    static const float trunk[2][7] = {{-0.1f, 0.0f, 0.04f, 0.1f, 0.0f, 0.04f, 0.12f},
                                      {0.0f, 0.1f, 0.02f, 0.0f, 0.5f, 0.0f, 0.13f}};
    static const float bar[7] = {-0.3f, -0.45f, -0.22f, 0.3f, -0.45f, -0.22f, 0.1f};
    static const float rest_bar[7] = {-0.3f, -0.3f, -0.3f, 0.3f, -0.3f, -0.3f, 0.15f};
    memcpy(local[4], trunk, sizeof trunk);
    if (scene == 2) memcpy(local[5], bar, sizeof bar);
    if (scene == 3) memcpy(local[5], rest_bar, sizeof rest_bar);
    float yaw_s = h->rotation[1], yaw_c = h->rotation[3];
    float cs = yaw_c * yaw_c - yaw_s * yaw_s, sn = 2 * yaw_s * yaw_c; /* about y */
    for (int m = 0; m < 6; ++m) {
        const float* l = local[m];
        b[m].shape = TL_COLLIDER_CAPSULE;
        for (int e = 0; e < 2; ++e) {
            float* out = e ? b[m].b : b[m].a;
            const float* p = l + 3 * e;
            out[0] = h->position[0] + cs * p[0] + sn * p[2];
            out[1] = h->position[1] + p[1];
            out[2] = h->position[2] - sn * p[0] + cs * p[2];
        }
        b[m].radius = l[6];
    }
}

int main(int argc, char** argv) {
    /* bench_sim [CHARACTERS [plain|colliders|contact|rest]]: only the runs with that many
     * characters, and only that scene (for a profiler; `rest` runs only when named, so the
     * output hash of the other scenes is as it was); bench_sim core: the core's rates */
    if (argc > 1 && strcmp(argv[1], "core") == 0) return core_main();
    const int only = argc > 1 ? atoi(argv[1]) : 0;
    const char* scenes[4] = {"plain", "colliders", "contact", "rest"};
    int kind = -1; /* every scene but rest */
    for (int k = 0; argc > 2 && k < 4; ++k)
        if (strcmp(argv[2], scenes[k]) == 0) kind = k;
    /* a straight 0.8 m tail hanging from behind the hips, bones unrotated */
    float t[3 * LINKS], q[4 * LINKS], tip[3] = {0, -0.1f, 0};
    for (int i = 0; i < LINKS; ++i) {
        t[3 * i] = 0, t[3 * i + 1] = i ? -0.1f : -0.05f, t[3 * i + 2] = i ? 0 : -0.12f;
        q[4 * i] = q[4 * i + 1] = q[4 * i + 2] = 0, q[4 * i + 3] = 1;
    }
    tl_chain_def def = tl_default_chain_def();
    def.bone_count = LINKS;
    def.rest_translations = t;
    def.rest_rotations = q;
    def.tip_translation = tip;
    def.sleep_seconds = 1; /* as tailor's player: the walk never holds still, so each frame pays
                              only the still test (docs/sim.md "Session 19 (sleep19)") */
    tl_chain_batch* batch; /* (one for every scene: the largest) */
    tl_error batch_err;
    if (tl_chain_batch_create(LINKS, 1000, NULL, &batch, &batch_err) != TL_OK) return 1;
    printf("solver,characters,links,steps,ns_per_link_step,us_per_character_step\n");
    const int counts[] = {1, 100, 1000};
    uint64_t hash = 1469598103934665603u; /* FNV-1a of every run's output: the same bits? */
    for (int run = 0; run < 12; ++run) {
        int n = counts[run % 3], scene = run / 3;
        if (only > 0 && n != only) continue;
        if (scene == 3 && kind != 3) continue;
        /* colliders: six body capsules per character, the legs swinging past the tail (it
         * touches them rarely); contact: the spine's capsule replaced by a bar behind the legs
         * that the tail hangs against (as hair on a back); rest: a thick bar the tail lies on */
        bool colliders = scene > 0;
        if (argc > 2 && scene != kind) continue;
        tl_chain** chains = malloc(sizeof(tl_chain*) * (size_t)n);
        tl_chain_input* in = malloc(sizeof(tl_chain_input) * (size_t)n);
        for (int k = 0; k < n; ++k) {
            tl_error err;
            /* with the capsules the tail hangs straight down between the legs (no carry), so
             * they touch it; carry changes the rest arc only, not the cost of a step */
            tl_chain_def d = def;
            if (colliders) d.settings.carry_deg = 0;
            if (tl_chain_create(&d, NULL, &chains[k], &err) != TL_OK) {
                fprintf(stderr, "bench_sim: %s\n", err.message);
                return 1;
            }
            in[k] = tl_default_chain_input();
        }
        /* The poses are computed before timing; repeat the 2 s clip until the solver has
         * spent at least 0.3 s of CPU time. */
        const double dt = 1.0 / 60;
        const int frames = 120;
        tl_chain_input* clip = malloc(sizeof(tl_chain_input) * (size_t)n * frames);
        tl_collider* bodies =
            colliders ? malloc(sizeof(tl_collider) * 6 * (size_t)n * frames) : NULL;
        for (int f = 0; f < frames; ++f)
            for (int k = 0; k < n; ++k) {
                tl_chain_input* x = &clip[(size_t)f * (size_t)n + (size_t)k];
                *x = in[k];
                x->start = walk(f * dt + 0.37 * k);
                x->target = walk((f + 1) * dt + 0.37 * k);
                if (!colliders) continue;
                tl_collider* b = bodies + 6 * ((size_t)f * (size_t)n + (size_t)k);
                body_capsules(scene, f * dt + dt + 0.37 * k, &x->target, b);
                x->colliders = b, x->collider_count = 6;
            }
        double spent = 0, sink = 0;
        while (spent < 0.3) {
            double begin = 1e-3 * bench_cpu_ms();
            for (int f = 0; f < frames; ++f)
                tl_chain_batch_step(batch, chains, clip + (size_t)f * (size_t)n, n, (float)dt);
            spent += 1e-3 * bench_cpu_ms() - begin;
            for (int k = 0; k < n; ++k)
                tl_chain_reset(chains[k], &clip[k].start); /* same start */
        }
        long steps = (long)tl_chain_get_stats(chains[0]).steps;
        /* The clip once more, untimed, every frame's output of every chain hashed: the bits of
         * the simulation (the chains are at rest here, so their tips alone say nothing of it) */
        double touching = 0; /* tips in contact at a frame's end, summed */
        for (int f = 0; f < frames; ++f) {
            tl_chain_batch_step(batch, chains, clip + (size_t)f * (size_t)n, n, (float)dt);
            for (int k = 0; k < n; ++k) {
                hash = hash_floats(hash, tl_chain_tip_positions(chains[k]), 3 * LINKS);
                hash = hash_floats(hash, tl_chain_local_rotations(chains[k]), 4 * LINKS);
                touching += tl_chain_get_stats(chains[k]).contacts;
            }
        }
        if (colliders)
            fprintf(stderr, "bench_sim: %s, %d characters: %.2f%% of link-frames touch\n",
                    scenes[scene], n, 100 * touching / ((double)n * LINKS * frames));
        free(clip);
        free(bodies);
        for (int k = 0; k < n; ++k) {
            sink += tl_chain_tip_positions(chains[k])[3 * LINKS - 1];
            tl_chain_destroy(chains[k]);
        }
        double link_steps = (double)n * LINKS * (double)steps;
        const char* solver[4] = {"tailor", "tailor_6_colliders", "tailor_6_colliders_contact",
                                 "tailor_6_colliders_rest"};
        printf("%s,%d,%d,%ld,%.2f,%.3f\n", solver[scene], n, LINKS, steps, 1e9 * spent / link_steps,
               1e6 * spent / ((double)n * (double)steps));
        if (!isfinite(sink)) return 1;
        free(chains);
        free(in);
    }
    fprintf(stderr,
            "bench_sim: memory per %d-bone chain %zu B, and its share of a batch for 1000 "
            "chains %zu B; output hash %016llx\n",
            LINKS, tl_chain_memory_size(LINKS), tl_chain_batch_memory_size(LINKS, 1000) / 1000,
            (unsigned long long)hash);
    tl_chain_batch_destroy(batch);
    return 0;
}
