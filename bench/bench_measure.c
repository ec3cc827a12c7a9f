/* Measurement throughput: skinning plus edge stretch over every sample of every clip.
 * Prints CSV: file,vertices,edges,clips,samples,seconds,vertex_samples_per_second */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/tailor.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char** argv) {
    static const char* defaults[] = {
        "cases/fox-quaternius-tailless.glb", "cases/rat-tailless.glb",
        "cases/knight-tailed.glb",           "cases/mh-body.glb",
        "assets/kaykit-knight/Knight.glb",
    };
    int count = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof defaults[0]);
    printf("file,vertices,edges,clips,samples,seconds,vertex_samples_per_second\n");
    for (int i = 0; i < count; ++i) {
        char path[4096];
        if (argc > 1)
            snprintf(path, sizeof path, "%s", argv[i + 1]);
        else
            snprintf(path, sizeof path, "%s/%s", TL_SHARED_DIR, defaults[i]);
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        if (tl_gltf_load(path, &doc, &err) != TL_OK ||
            tl_scene_create(doc, &scene, &err) != TL_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        const tl_scene_skin* sk = &scene->skins[0];
        uint8_t* all = malloc(sk->vertex_count + 1);
        memset(all, 1, sk->vertex_count + 1);
        const uint8_t* masks[1] = {all};
        tl_measure_def def = tl_default_measure_def();
        tl_stretch* st;
        if (tl_stretch_create(scene, 0, masks, 1, &def, &st, &err) != TL_OK) return 1;
        double best = 1e30;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = 1e-3 * bench_cpu_ms();
            for (uint32_t c = 0; c < scene->clip_count; ++c) {
                tl_stretch_stats s;
                tl_stretch_run(st, c, NULL, NULL, &s);
            }
            double dt = 1e-3 * bench_cpu_ms() - t0;
            if (dt < best) best = dt;
        }
        double vs = (double)sk->vertex_count * scene->clip_count * def.samples;
        const char* name = strrchr(path, '/');
        printf("%s,%u,%zu,%u,%u,%.4f,%.3g\n", name ? name + 1 : path, sk->vertex_count,
               tl_stretch_edge_count(st, 0), scene->clip_count, def.samples, best,
               best > 0 ? vs / best : 0);
        tl_stretch_destroy(st);
        free(all);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    return 0;
}
