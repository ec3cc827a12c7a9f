/* `tailor rig` timings per stage (weld, field, parts, geodesics, weights, write) on every file
 * in shared/cases and on the built-in quadruped sample subdivided (each triangle into four)
 * to at least 20k, 50k and 200k vertices (21k, 80k, 317k). Prints CSV
 * `case,vertices,weld_ms,field_ms,parts_ms,geodesics_ms,weights_ms,fit_ms,other_ms,write_ms,
 * rest_ms,total_ms,fit_share,command_ms,chains`; each row is the fastest of several runs (by
 * command). Times are processor time of the whole process, every thread's (bench_process_ms:
 * the analysis times its stages with clock(), which counts the junction fit's OpenMP threads,
 * so the columns are timed the same way and add up; this thread's time alone made other_ms
 * negative on the junction cases) (stages from the analysis; other = the analysis outside
 * the stages, the hair plan on a hair style; write = apply + serialise to GLB in memory; rest =
 * the rest settle, tl_bake_rest_document, which `tailor rig` runs between the two; total =
 * analyse + write, as before the rest was timed; command = total + rest), so a shared
 * machine's neighbours do not count. `--cases` leaves out the dense samples; `--case TEXT`
 * benches only the cases whose name holds TEXT; `--iterations N` sets the junction fit's passes
 * at most (`junction_iterations`), to measure what more passes cost. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <tailor/gltf_json.h>
#include <tailor/sample.h>
#include <tailor/tailor.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 3 };

static uint32_t fit_iterations; /* 0: the default rig definition's */
static const char* case_filter; /* NULL: every case */

enum { COL_OTHER = TL_RIG_STAGE_COUNT, COL_WRITE, COL_REST, COL_COUNT };

/* One full rig of a document copy (the document is edited, so each run reloads it). */
static bool bench_once(const uint8_t* glb, size_t size, const char* name, double stage[COL_COUNT],
                       double* total, uint32_t* vertices, uint32_t* chains) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_rig_analysis* rig;
    tl_error err;
    if (tl_gltf_load_memory(glb, size, name, NULL, &doc, &err) != TL_OK) {
        fprintf(stderr, "bench_rig: %s\n", err.message);
        return false;
    }
    if (tl_scene_create(doc, &scene, &err) != TL_OK) {
        fprintf(stderr, "bench_rig: %s\n", err.message);
        tl_gltf_destroy(doc);
        return false;
    }
    tl_rig_def def = tl_default_rig_def();
    if (fit_iterations) def.junction_iterations = fit_iterations;
    double t0 = bench_process_ms();
    if (tl_rig_analyze(scene, &def, &rig, &err) != TL_OK) {
        fprintf(stderr, "bench_rig: %s\n", err.message);
        return false;
    }
    double t1 = bench_process_ms();
    *vertices = 0;
    for (uint32_t s = 0; s < rig->skin_count; ++s)
        *vertices += rig->skins[s].vertex_count;
    *chains = rig->chain_count;
    tl_scene_destroy(scene); /* not part of the timing: apply invalidates it */
    double t2 = bench_process_ms();
    uint8_t* bytes = NULL;
    size_t out_size = 0;
    tl_gltf_save_def save = tl_default_gltf_save_def();
    bool ok = tl_rig_apply(doc, rig, &err) == TL_OK;
    double t3 = bench_process_ms();
    ok = ok && tl_bake_rest_document(doc, &err) == TL_OK; /* as `tailor rig` does */
    double t4 = bench_process_ms();
    ok = ok && tl_gltf_save_glb_memory(doc, &save, &bytes, &out_size, &err) == TL_OK;
    double t5 = bench_process_ms();
    if (!ok) fprintf(stderr, "bench_rig: %s\n", err.message);
    double staged = 0;
    for (int k = 0; k < TL_RIG_STAGE_COUNT; ++k)
        stage[k] = 1e3 * rig->seconds[k], staged += stage[k];
    stage[COL_OTHER] = (t1 - t0) - staged;
    stage[COL_WRITE] = (t3 - t2) + (t5 - t4); /* apply and serialise */
    stage[COL_REST] = t4 - t3;
    *total = (t1 - t0) + stage[COL_WRITE];
    free(bytes);
    tl_rig_analysis_destroy(rig);
    tl_gltf_destroy(doc);
    return ok;
}

static void bench_bytes(const char* label, const uint8_t* glb, size_t size) {
    double best_stage[COL_COUNT] = {0}, best = INFINITY, best_total = 0;
    uint32_t vertices = 0, chains = 0;
    for (int r = 0; r < RUNS; ++r) {
        double stage[COL_COUNT], total;
        if (!bench_once(glb, size, label, stage, &total, &vertices, &chains)) return;
        if (total + stage[COL_REST] < best)
            best = total + stage[COL_REST], best_total = total,
            memcpy(best_stage, stage, sizeof stage);
    }
    printf("%s,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f%%,%.2f,%u\n", label,
           vertices, best_stage[0], best_stage[1], best_stage[2], best_stage[3], best_stage[4],
           best_stage[TL_RIG_STAGE_FIT], best_stage[COL_OTHER], best_stage[COL_WRITE],
           best_stage[COL_REST], best_total,
           best_total > 0 ? 100 * best_stage[TL_RIG_STAGE_FIT] / best_total : 0, best, chains);
    fflush(stdout);
}

static void bench_file(const char* path, const char* label) {
    FILE* f = fopen(path, "rb");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t* bytes = bench_malloc((size_t)n);
    size_t got = fread(bytes, 1, (size_t)n, f);
    fclose(f);
    if (got == (size_t)n) bench_bytes(label, bytes, got);
    free(bytes);
}

/* ---- a dense sample: every skinned triangle split into four, until enough vertices ---------- */

typedef struct dense_prim {
    float* pos;       /* xyz */
    uint32_t* joints; /* 4 per vertex */
    float* weights;   /* 4 per vertex */
    uint32_t* tris;
    size_t vertex_count, tri_count;
} dense_prim;

typedef struct edge_key {
    uint32_t a, b, tri, slot;
} edge_key;

static int compare_edge(const void* x, const void* y) {
    const edge_key* p = x;
    const edge_key* q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* The midpoint's influences: both ends' weights averaged, the four largest kept. */
static void mix_weights(const uint32_t* ja, const float* wa, const uint32_t* jb, const float* wb,
                        uint32_t* jo, float* wo) {
    uint32_t j[8];
    float w[8];
    int n = 0;
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 4; ++k) {
            uint32_t joint = s ? jb[k] : ja[k];
            float weight = 0.5f * (s ? wb[k] : wa[k]);
            if (weight <= 0) continue;
            int m = 0;
            while (m < n && j[m] != joint)
                ++m;
            if (m == n) j[n] = joint, w[n++] = 0;
            w[m] += weight;
        }
    for (int k = 0; k < 4; ++k) {
        int best = -1;
        for (int m = 0; m < n; ++m)
            if (w[m] > 0 && (best < 0 || w[m] > w[best])) best = m;
        jo[k] = best >= 0 ? j[best] : 0;
        wo[k] = best >= 0 ? w[best] : 0;
        if (best >= 0) w[best] = 0;
    }
    float sum = wo[0] + wo[1] + wo[2] + wo[3];
    for (int k = 0; k < 4; ++k)
        wo[k] = sum > 0 ? wo[k] / sum : (k == 0);
}

static void subdivide(dense_prim* p) {
    size_t T = p->tri_count;
    edge_key* keys = bench_malloc(3 * T * sizeof *keys);
    for (size_t t = 0; t < T; ++t)
        for (uint32_t s = 0; s < 3; ++s) {
            uint32_t a = p->tris[3 * t + s], b = p->tris[3 * t + (s + 1) % 3];
            keys[3 * t + s] = (edge_key){a < b ? a : b, a < b ? b : a, (uint32_t)t, s};
        }
    qsort(keys, 3 * T, sizeof *keys, compare_edge);
    uint32_t* mid = bench_malloc(3 * T * sizeof *mid);
    size_t V = p->vertex_count, extra = 0;
    for (size_t i = 0; i < 3 * T; ++i)
        if (i == 0 || compare_edge(&keys[i], &keys[i - 1])) ++extra;
    size_t NV = V + extra;
    float* pos = bench_malloc(3 * NV * sizeof *pos);
    uint32_t* joints = bench_malloc(4 * NV * sizeof *joints);
    float* weights = bench_malloc(4 * NV * sizeof *weights);
    memcpy(pos, p->pos, 3 * V * sizeof *pos);
    memcpy(joints, p->joints, 4 * V * sizeof *joints);
    memcpy(weights, p->weights, 4 * V * sizeof *weights);
    size_t next = V;
    for (size_t i = 0; i < 3 * T; ++i) {
        if (i == 0 || compare_edge(&keys[i], &keys[i - 1])) {
            uint32_t a = keys[i].a, b = keys[i].b;
            for (int k = 0; k < 3; ++k)
                pos[3 * next + k] = 0.5f * (p->pos[3 * a + k] + p->pos[3 * b + k]);
            mix_weights(p->joints + 4 * a, p->weights + 4 * a, p->joints + 4 * b,
                        p->weights + 4 * b, joints + 4 * next, weights + 4 * next);
            ++next;
        }
        mid[3 * keys[i].tri + keys[i].slot] = (uint32_t)(next - 1);
    }
    uint32_t* tris = bench_malloc(12 * T * sizeof *tris);
    for (size_t t = 0; t < T; ++t) {
        uint32_t a = p->tris[3 * t], b = p->tris[3 * t + 1], c = p->tris[3 * t + 2];
        uint32_t ab = mid[3 * t], bc = mid[3 * t + 1], ca = mid[3 * t + 2];
        uint32_t quad[12] = {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca};
        memcpy(tris + 12 * t, quad, sizeof quad);
    }
    free(keys);
    free(mid);
    free(p->pos);
    free(p->joints);
    free(p->weights);
    free(p->tris);
    *p = (dense_prim){pos, joints, weights, tris, NV, 4 * T};
}

/* The quadruped sample with every primitive subdivided until the skin has at least
 * `min_vertices`; only POSITION, JOINTS_0 and WEIGHTS_0 are kept. */
static bool dense_sample(size_t min_vertices, uint8_t** glb, size_t* size) {
    tl_gltf* doc;
    tl_error err;
    tl_sample_def sd = tl_default_sample_def();
    if (tl_sample_build("tailed-quadruped", &sd, &doc, NULL, &err) != TL_OK) {
        fprintf(stderr, "bench_rig: %s\n", err.message);
        return false;
    }
    const tl_gltf_mesh* mesh = &doc->meshes[0];
    uint32_t prim_count = mesh->primitive_count;
    dense_prim* prims = calloc(prim_count, sizeof *prims);
    size_t total = 0;
    for (uint32_t q = 0; q < prim_count; ++q) {
        const tl_gltf_primitive* gp = &mesh->primitives[q];
        dense_prim* p = &prims[q];
        p->vertex_count = doc->accessors[gp->position].count;
        p->tri_count = doc->accessors[gp->indices].count / 3;
        p->pos = bench_malloc(3 * p->vertex_count * sizeof *p->pos);
        p->joints = bench_malloc(4 * p->vertex_count * sizeof *p->joints);
        p->weights = bench_malloc(4 * p->vertex_count * sizeof *p->weights);
        p->tris = bench_malloc(3 * p->tri_count * sizeof *p->tris);
        tl_gltf_accessor_read_float(doc, (uint32_t)gp->position, p->pos, 3 * p->vertex_count, &err);
        tl_gltf_accessor_read_uint(doc, (uint32_t)gp->joints[0], p->joints, 4 * p->vertex_count,
                                   &err);
        tl_gltf_accessor_read_float(doc, (uint32_t)gp->weights[0], p->weights, 4 * p->vertex_count,
                                    &err);
        tl_gltf_accessor_read_uint(doc, (uint32_t)gp->indices, p->tris, 3 * p->tri_count, &err);
        total += p->vertex_count;
    }
    while (total < min_vertices) {
        total = 0;
        for (uint32_t q = 0; q < prim_count; ++q)
            subdivide(&prims[q]), total += prims[q].vertex_count;
    }
    json_t* jprims =
        json_object_get(json_array_get(json_object_get(doc->json, "meshes"), 0), "primitives");
    bool ok = true;
    for (uint32_t q = 0; q < prim_count && ok; ++q) {
        dense_prim* p = &prims[q];
        uint16_t* j16 = bench_malloc(4 * p->vertex_count * sizeof *j16);
        for (size_t k = 0; k < 4 * p->vertex_count; ++k)
            j16[k] = (uint16_t)p->joints[k];
        tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
        uint32_t a_pos = 0, a_j = 0, a_w = 0, a_i = 0;
        def.data = p->pos, def.count = p->vertex_count, def.type = TL_GLTF_VEC3, def.min_max = true,
        def.target = 34962;
        ok = tl_gltf_accessor_add(doc, &def, &a_pos, &err) == TL_OK;
        def.min_max = false, def.data = j16, def.type = TL_GLTF_VEC4,
        def.component_type = TL_GLTF_UNSIGNED_SHORT;
        ok = ok && tl_gltf_accessor_add(doc, &def, &a_j, &err) == TL_OK;
        def.data = p->weights, def.component_type = TL_GLTF_FLOAT;
        ok = ok && tl_gltf_accessor_add(doc, &def, &a_w, &err) == TL_OK;
        def.data = p->tris, def.count = 3 * p->tri_count, def.type = TL_GLTF_SCALAR;
        def.component_type = TL_GLTF_UNSIGNED_INT, def.target = 34963;
        ok = ok && tl_gltf_accessor_add(doc, &def, &a_i, &err) == TL_OK;
        free(j16);
        json_t* prim = json_array_get(jprims, q);
        json_object_set_new(
            prim, "attributes",
            json_pack("{s:i, s:i, s:i}", "POSITION", a_pos, "JOINTS_0", a_j, "WEIGHTS_0", a_w));
        json_object_set_new(prim, "indices", json_integer(a_i));
        free(p->pos);
        free(p->joints);
        free(p->weights);
        free(p->tris);
    }
    free(prims);
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.compact = true;
    ok = ok && tl_gltf_reindex(doc, &err) == TL_OK &&
         tl_gltf_save_glb_memory(doc, &save, glb, size, &err) == TL_OK;
    if (!ok) fprintf(stderr, "bench_rig: %s\n", err.message);
    tl_gltf_destroy(doc);
    return ok;
}

static int compare_names(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int main(int argc, char** argv) {
    if (argc > 2 && !strcmp(argv[1], "--write-dense")) {
        uint8_t* glb;
        size_t size;
        if (!dense_sample(200000, &glb, &size)) return 1;
        FILE* f = fopen(argv[2], "wb");
        if (!f || fwrite(glb, 1, size, f) != size) return 1;
        fclose(f);
        free(glb);
        return 0;
    }
    bool cases_only = false;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--cases")) cases_only = true;
        if (!strcmp(argv[a], "--case") && a + 1 < argc) case_filter = argv[++a];
        if (!strcmp(argv[a], "--iterations") && a + 1 < argc)
            fit_iterations = (uint32_t)strtoul(argv[++a], NULL, 10);
    }
    printf("case,vertices,weld_ms,field_ms,parts_ms,geodesics_ms,weights_ms,fit_ms,other_ms,"
           "write_ms,rest_ms,total_ms,fit_share,command_ms,chains\n");
    const char* dir = TL_SHARED_DIR "/cases";
    DIR* d = opendir(dir);
    char* names[256];
    int count = 0;
    for (struct dirent* e; d && (e = readdir(d)) && count < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".glb") &&
            (!case_filter || strstr(e->d_name, case_filter)))
            names[count++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)count, sizeof *names, compare_names);
    for (int i = 0; i < count; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        bench_file(path, names[i]);
        free(names[i]);
    }
    const size_t targets[] = {20000, 50000, 200000};
    for (int k = 0; k < (cases_only || case_filter ? 0 : 3); ++k) {
        uint8_t* glb;
        size_t size;
        if (!dense_sample(targets[k], &glb, &size)) return 1;
        char label[64];
        snprintf(label, sizeof label, "sample-quadruped-%zuk+", targets[k] / 1000);
        bench_bytes(label, glb, size);
        free(glb);
    }
    return 0;
}
