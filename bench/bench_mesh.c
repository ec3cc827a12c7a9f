/* Mesh algorithm timings: weld, edges, adjacency, components and geodesics on every file in
 * shared/cases (all triangle primitives of all meshes, concatenated in bind space) and on a
 * synthetic 200k-vertex tube with a UV seam. Prints CSV `stage,vertices,ms`, the stage named
 * `step:case`; each time is the fastest of several runs, in thread CPU time (the machine
 * running it may be shared, and wall time would measure the neighbours too). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/tailor.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 5 };

typedef struct bench_mesh {
    float* positions; /* xyz packed */
    size_t vertex_count;
    uint32_t* indices; /* offset by each primitive's vertex base */
    size_t index_count;
} bench_mesh;

/* Every triangle primitive of every mesh, concatenated. Returns false on a load error. */
static bool load_mesh(const char* path, bench_mesh* out) {
    tl_gltf* doc;
    tl_error err;
    if (tl_gltf_load(path, &doc, &err) != TL_OK) {
        fprintf(stderr, "bench_mesh: %s\n", err.message);
        return false;
    }
    size_t vertices = 0, indices = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            out->positions = bench_malloc(3 * vertices * sizeof(float));
            out->indices = bench_malloc(indices * sizeof(uint32_t));
            out->vertex_count = out->index_count = 0;
        }
        for (uint32_t m = 0; m < doc->mesh_count; ++m) {
            for (uint32_t p = 0; p < doc->meshes[m].primitive_count; ++p) {
                const tl_gltf_primitive* prim = &doc->meshes[m].primitives[p];
                if (prim->mode != 4 || prim->position == TL_NONE) continue;
                size_t nv = doc->accessors[prim->position].count;
                size_t ni = prim->indices == TL_NONE ? nv : doc->accessors[prim->indices].count;
                ni -= ni % 3;
                if (pass == 0) {
                    vertices += nv, indices += ni;
                    continue;
                }
                float* pos = out->positions + 3 * out->vertex_count;
                uint32_t* idx = out->indices + out->index_count;
                bool ok = tl_gltf_accessor_read_float(doc, (uint32_t)prim->position, pos, 3 * nv,
                                                      &err) == TL_OK;
                if (ok && prim->indices != TL_NONE) {
                    uint32_t* all = bench_malloc(doc->accessors[prim->indices].count * sizeof *all);
                    ok = tl_gltf_accessor_read_uint(doc, (uint32_t)prim->indices, all,
                                                    doc->accessors[prim->indices].count,
                                                    &err) == TL_OK;
                    memcpy(idx, all, ni * sizeof *idx);
                    free(all);
                } else {
                    for (size_t i = 0; i < ni; ++i)
                        idx[i] = (uint32_t)i;
                }
                if (!ok) {
                    fprintf(stderr, "bench_mesh: %s\n", err.message);
                    tl_gltf_destroy(doc);
                    return false;
                }
                for (size_t i = 0; i < ni; ++i)
                    idx[i] += (uint32_t)out->vertex_count;
                out->vertex_count += nv, out->index_count += ni;
            }
        }
    }
    tl_gltf_destroy(doc);
    return true;
}

/* A tube of `rings` × `sides` quads, radius 1 and length 10, whose seam column is duplicated
 * as exporters do for UVs: rings+1 rows of sides+1 vertices. */
static bench_mesh make_tube(uint32_t rings, uint32_t sides) {
    bench_mesh m;
    m.vertex_count = (size_t)(rings + 1) * (sides + 1);
    m.index_count = (size_t)rings * sides * 6;
    m.positions = bench_malloc(3 * m.vertex_count * sizeof(float));
    m.indices = bench_malloc(m.index_count * sizeof(uint32_t));
    const double two_pi = 6.283185307179586;
    for (uint32_t r = 0; r <= rings; ++r)
        for (uint32_t s = 0; s <= sides; ++s) {
            float* p = m.positions + 3 * ((size_t)r * (sides + 1) + s);
            double a = two_pi * (s == sides ? 0 : s) / sides; /* the seam copy is exact */
            p[0] = (float)cos(a), p[1] = (float)sin(a), p[2] = 10.0f * (float)r / (float)rings;
        }
    size_t k = 0;
    for (uint32_t r = 0; r < rings; ++r)
        for (uint32_t s = 0; s < sides; ++s) {
            uint32_t a = r * (sides + 1) + s, b = a + 1, c = a + sides + 1, d = c + 1;
            const uint32_t tri[6] = {a, b, d, a, d, c};
            for (int i = 0; i < 6; ++i)
                m.indices[k++] = tri[i];
        }
    return m;
}

static void run(const char* name, const bench_mesh* m) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < m->vertex_count; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fminf(lo[k], m->positions[3 * i + k]);
            hi[k] = fmaxf(hi[k], m->positions[3 * i + k]);
        }
    float extent = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    float tolerance = 1e-5f * (extent > 0 ? extent : 1);

    uint32_t* remap = bench_malloc(m->vertex_count * sizeof(uint32_t));
    uint32_t* edges = bench_malloc(2 * tl_mesh_edges_bound(m->index_count) * sizeof(uint32_t));
    double best[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
    size_t welded = 0, edge_count = 0;
    float* welded_positions = NULL;
    uint32_t *component = NULL, *offsets = NULL, *neighbors = NULL;
    float *lengths = NULL, *distance = NULL;
    void* scratch = NULL;
    for (int r = 0; r < RUNS; ++r) {
        double t0 = bench_cpu_ms();
        welded = tl_mesh_weld(remap, m->positions, m->vertex_count, 12, tolerance);
        double t1 = bench_cpu_ms();
        edge_count = tl_mesh_edges(edges, m->indices, m->index_count, remap);
        double t2 = bench_cpu_ms();
        if (welded == TL_MESH_OUT_OF_MEMORY || edge_count == TL_MESH_OUT_OF_MEMORY) {
            fprintf(stderr, "bench_mesh: out of memory\n");
            exit(1);
        }
        if (r == 0) {
            welded_positions = bench_malloc(3 * welded * sizeof(float));
            component = bench_malloc(welded * sizeof(uint32_t));
            offsets = bench_malloc((welded + 1) * sizeof(uint32_t));
            neighbors = bench_malloc(2 * edge_count * sizeof(uint32_t));
            lengths = bench_malloc(2 * edge_count * sizeof(float));
            distance = bench_malloc(welded * sizeof(float));
            scratch = bench_malloc(tl_mesh_geodesic_scratch_size(welded));
        }
        tl_mesh_weld_positions(welded_positions, remap, m->positions, m->vertex_count, 12);
        double t3 = bench_cpu_ms();
        tl_mesh_components(component, edges, edge_count, NULL, welded);
        double t4 = bench_cpu_ms();
        tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, welded, welded_positions,
                          12);
        double t5 = bench_cpu_ms();
        const uint32_t source = 0;
        tl_mesh_geodesic(distance, offsets, neighbors, lengths, welded, NULL, &source, 1, scratch);
        double t6 = bench_cpu_ms();
        const double took[5] = {t1 - t0, t2 - t1, t4 - t3, t5 - t4, t6 - t5};
        for (int k = 0; k < 5; ++k)
            best[k] = fmin(best[k], took[k]);
    }
    static const char* steps[5] = {
        "weld", "edges", "components", "adjacency",
        "geodesic"}; /* vertices: input for weld and edges, welded after */
    for (int k = 0; k < 5; ++k)
        printf("%s:%s,%zu,%.3f\n", steps[k], name, k < 2 ? m->vertex_count : welded, best[k]);
    fflush(stdout);
    free(remap), free(edges), free(welded_positions), free(component), free(offsets);
    free(neighbors), free(lengths), free(distance), free(scratch);
}

static int compare_names(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

int main(void) {
    printf("stage,vertices,ms\n");
    const char* dir_path = getenv("TL_SHARED_DIR") ? getenv("TL_SHARED_DIR") : TL_SHARED_DIR;
    char cases[4096];
    snprintf(cases, sizeof cases, "%s/cases", dir_path);
    DIR* dir = opendir(cases);
    char* names[256];
    size_t count = 0;
    for (struct dirent* e; dir && (e = readdir(dir)) && count < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".glb")) names[count++] = strdup(e->d_name);
    }
    if (dir) closedir(dir);
    if (count == 0) fprintf(stderr, "bench_mesh: no .glb in %s\n", cases);
    qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; ++i) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", cases, names[i]);
        bench_mesh m;
        if (load_mesh(path, &m)) {
            names[i][strlen(names[i]) - 4] = '\0';
            run(names[i], &m);
            free(m.positions), free(m.indices);
        }
        free(names[i]);
    }
    bench_mesh tube = make_tube(399, 500); /* 400 × 501 = 200,400 vertices */
    run("tube-200k", &tube);
    free(tube.positions), free(tube.indices);
    return 0;
}
