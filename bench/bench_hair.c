/* The hair audit of the ten MakeHuman styles on mh-body.glb (hair.md §5): guides traced,
 * roots bound, pieces linked and coverage counted, per style and in total. The meshes are read
 * once; each time is the fastest of several runs in thread CPU time (one core). Prints CSV
 * `style,vertices,candidates,ms`, then `total`. The target: under 1 s in total. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/hair.h>
#include <tailor/tailor.h>

#include <stdio.h>

enum { RUNS = 5 };

static const char* STYLES[] = {"afro01",     "bob01",   "bob02",   "braid01", "long01",
                               "ponytail01", "short01", "short02", "short03", "short04"};
#define STYLE_COUNT (sizeof STYLES / sizeof STYLES[0])

int main(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_hair_scalp* scalp;
    tl_error err;
    tl_hair_def def = tl_default_hair_def();
    if (tl_gltf_load(TL_SHARED_DIR "/cases/mh-body.glb", &doc, &err) != TL_OK ||
        tl_scene_create(doc, &scene, &err) != TL_OK ||
        tl_hair_scalp_find(scene, 0, &def, NULL, &scalp, &err) != TL_OK) {
        fprintf(stderr, "bench_hair: %s\n", err.message);
        return 1;
    }
    tl_hair_mesh meshes[STYLE_COUNT];
    for (size_t s = 0; s < STYLE_COUNT; ++s) {
        char path[512];
        snprintf(path, sizeof path, "%s/cases/mh-%s.hair.obj", TL_SHARED_DIR, STYLES[s]);
        if (tl_hair_mesh_read_obj(path, &meshes[s], &err) != TL_OK) {
            fprintf(stderr, "bench_hair: %s\n", err.message);
            return 1;
        }
    }
    printf("style,vertices,candidates,ms\n");
    double total = 0;
    for (size_t s = 0; s < STYLE_COUNT; ++s) {
        double best = 1e30;
        uint32_t candidates = 0;
        for (int run = 0; run < RUNS; ++run) {
            double t0 = bench_cpu_ms();
            tl_hair_guides* g;
            if (tl_hair_guides_create(&meshes[s], scalp, &def, &g, &err) != TL_OK) {
                fprintf(stderr, "bench_hair: %s: %s\n", STYLES[s], err.message);
                return 1;
            }
            double ms = bench_cpu_ms() - t0;
            candidates = g->audit.candidates;
            tl_hair_guides_destroy(g);
            best = ms < best ? ms : best;
        }
        printf("%s,%u,%u,%.2f\n", STYLES[s], meshes[s].vertex_count, candidates, best);
        total += best;
    }
    /* the scalp once, as the command finds it per character */
    double best = 1e30;
    for (int run = 0; run < RUNS; ++run) {
        double t0 = bench_cpu_ms();
        tl_hair_scalp* again;
        if (tl_hair_scalp_find(scene, 0, &def, NULL, &again, &err) != TL_OK) return 1;
        double ms = bench_cpu_ms() - t0;
        tl_hair_scalp_destroy(again);
        best = ms < best ? ms : best;
    }
    printf("scalp,%u,0,%.2f\n", scene->skins[0].vertex_count, best);
    printf("total,,,%.2f\n", total + best);
    for (size_t s = 0; s < STYLE_COUNT; ++s)
        tl_hair_mesh_free(&meshes[s]);
    tl_hair_scalp_destroy(scalp);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return 0;
}
