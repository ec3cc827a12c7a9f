/* The software rasteriser: CPU time to skin and draw one contact-sheet cell, for every shared
 * case and for a synthetic 1.1M-vertex skinned tube (built in memory: 1050 rings of 1048
 * vertices on two joints, the upper one turning). CSV:
 * name,vertices,triangles,cell,samples,skin_ms,draw_ms,read_ms */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <math.h>
#include <string.h>

#include <tailor/tailor.h>

static void put(unsigned char** p, const void* src, size_t n) {
    memcpy(*p, src, n);
    *p += n;
}

/* A GLB of a skinned tube: rings × segments vertices, weights blending from joint 0 at the
 * bottom to joint 1 at the top; one clip turning joint 1 by 60° about X over a second. */
static tl_gltf* tube_document(uint32_t rings, uint32_t segments) {
    size_t v = (size_t)rings * segments, t = 2 * (size_t)(rings - 1) * segments;
    size_t o_pos = 0, o_jnt = o_pos + 12 * v, o_wgt = o_jnt + 4 * v, o_idx = o_wgt + 16 * v,
           o_ibm = o_idx + 12 * t, o_time = o_ibm + 128, o_rot = o_time + 8, bin = o_rot + 32;
    unsigned char* data = bench_malloc(bin);
    float* pos = (float*)(data + o_pos);
    unsigned char* jnt = data + o_jnt;
    float* wgt = (float*)(data + o_wgt);
    uint32_t* idx = (uint32_t*)(data + o_idx);
    for (uint32_t r = 0; r < rings; ++r)
        for (uint32_t s = 0; s < segments; ++s) {
            size_t i = (size_t)r * segments + s;
            float a = 6.2831853f * (float)s / (float)segments, h = (float)r / (float)(rings - 1);
            pos[3 * i] = 0.2f * cosf(a);
            pos[3 * i + 1] = 1.8f * h;
            pos[3 * i + 2] = 0.2f * sinf(a);
            unsigned char j[4] = {0, 1, 0, 0};
            memcpy(jnt + 4 * i, j, 4);
            float w = h < 0.4f ? 0 : h > 0.6f ? 1 : (h - 0.4f) / 0.2f;
            float ws[4] = {1 - w, w, 0, 0};
            memcpy(wgt + 4 * i, ws, sizeof ws);
        }
    size_t k = 0;
    for (uint32_t r = 0; r + 1 < rings; ++r)
        for (uint32_t s = 0; s < segments; ++s) {
            uint32_t a = r * segments + s, b = r * segments + (s + 1) % segments;
            uint32_t c = a + segments, d = b + segments;
            uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(idx + k, q, sizeof q);
            k += 6;
        }
    float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,     0, 1,
                     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.9f, 0, 1};
    memcpy(data + o_ibm, ibm, sizeof ibm);
    float times[2] = {0, 1}, rot[8] = {0, 0, 0, 1, 0.5f, 0, 0, 0.8660254f};
    memcpy(data + o_time, times, sizeof times);
    memcpy(data + o_rot, rot, sizeof rot);
    char json[4096];
    int n = snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
        "\"nodes\":[{\"name\":\"Root\",\"children\":[1]},{\"name\":\"Upper\",\"translation\":[0,"
        "0.9,0]},{\"name\":\"Tube\",\"mesh\":0,\"skin\":0}],"
        "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":4}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
        "\"WEIGHTS_0\":2},\"indices\":3}]}],"
        "\"animations\":[{\"name\":\"Bend\",\"samplers\":[{\"input\":5,\"output\":6}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}}]}],"
        "\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":["
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,"
        "\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
        "\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":"
        "128},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":%zu,"
        "\"byteLength\":32}],\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\",\"min\":[-0.2,0,"
        "-0.2],\"max\":[0.2,1.8,0.2]},{\"bufferView\":1,\"componentType\":5121,\"count\":%zu,"
        "\"type\":\"VEC4\"},{\"bufferView\":2,\"componentType\":5126,\"count\":%zu,\"type\":"
        "\"VEC4\"},{\"bufferView\":3,\"componentType\":5125,\"count\":%zu,\"type\":\"SCALAR\"},"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},{\"bufferView\":"
        "5,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":6,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}]}",
        bin, o_pos, 12 * v, o_jnt, 4 * v, o_wgt, 16 * v, o_idx, 12 * t, o_ibm, o_time, o_rot, v, v,
        v, 3 * t);
    size_t jlen = ((size_t)n + 3) & ~(size_t)3, total = 12 + 8 + jlen + 8 + bin;
    unsigned char* glb = bench_malloc(total);
    unsigned char* p = glb;
    uint32_t head[3] = {0x46546C67u, 2, (uint32_t)total}, jc[2] = {(uint32_t)jlen, 0x4E4F534Au},
             bc[2] = {(uint32_t)bin, 0x004E4942u};
    put(&p, head, 12);
    put(&p, jc, 8);
    put(&p, json, (size_t)n);
    memset(p, ' ', jlen - (size_t)n);
    p += jlen - (size_t)n;
    put(&p, bc, 8);
    put(&p, data, bin);
    free(data);
    tl_gltf* doc = NULL;
    tl_error err;
    if (tl_gltf_load_memory(glb, total, "tube.glb", NULL, &doc, &err)) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        exit(1);
    }
    free(glb);
    return doc;
}

static void run(const char* name, tl_gltf* doc, const char* clip_name, uint32_t size,
                uint32_t samples) {
    tl_scene* scene;
    tl_error err;
    uint32_t clip;
    if (tl_scene_create(doc, &scene, &err) || tl_scene_find_clip(scene, clip_name, &clip, &err)) {
        fprintf(stderr, "bench_render: %s: %s\n", name, err.message);
        exit(1);
    }
    tl_render_def def = tl_default_render_def();
    def.width = def.height = size;
    def.samples = samples;
    tl_renderer* r;
    if (tl_renderer_create(scene, &def, &r, &err)) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        exit(1);
    }
    tl_pose* pose = tl_pose_create(scene);
    uint8_t* rgba = bench_malloc((size_t)size * size * 4);
    const int reps = 3;
    double skin = 0, draw = 0, read = 0;
    for (int i = 0; i < reps; ++i) {
        double t0 = bench_cpu_ms();
        tl_pose_sample(pose, scene, clip, 0.5f * scene->clips[clip].duration);
        tl_renderer_pose(r, pose);
        double t1 = bench_cpu_ms();
        tl_render_camera cam = tl_render_camera_view(&scene->skins[0], TL_VIEW_SIDE, 10);
        float lo[3], hi[3];
        tl_render_extent_reset(lo, hi);
        tl_renderer_extent(r, &cam, lo, hi);
        tl_render_camera_fit(&cam, lo, hi, 1, 0.04f);
        tl_renderer_draw(r, &cam);
        double t2 = bench_cpu_ms();
        tl_renderer_read(r, rgba, (size_t)size * 4);
        double t3 = bench_cpu_ms();
        skin += t1 - t0;
        draw += t2 - t1;
        read += t3 - t2;
    }
    printf("%s,%u,%u,%u,%u,%.2f,%.2f,%.2f\n", name, scene->skins[0].vertex_count,
           scene->skins[0].triangle_count, size, samples, skin / reps, draw / reps, read / reps);
    free(rgba);
    tl_pose_destroy(pose);
    tl_renderer_destroy(r);
    tl_scene_destroy(scene);
}

int main(void) {
    printf("name,vertices,triangles,cell,samples,skin_ms,draw_ms,read_ms\n");
    static const char* cases[][2] = {
        {"fox-khronos-tailless", "Walk"}, {"fox-quaternius-tailless", "Walk"},
        {"husky-tailless", "Walk"},       {"horse-tailless", "Walk"},
        {"rat-tailless", "Rat_Walk"},     {"trex-tailless", "TRex_Walk"},
        {"knight-tailed", "Walking"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cases/%s.glb", TL_SHARED_DIR, cases[c][0]);
        tl_gltf* doc;
        tl_error err;
        if (tl_gltf_load(path, &doc, &err)) {
            fprintf(stderr, "bench_render: %s\n", err.message);
            return 1;
        }
        run(cases[c][0], doc, cases[c][1], 512, 2);
        tl_gltf_destroy(doc);
    }
    tl_gltf* tube = tube_document(1050, 1048);
    run("tube-1.1M", tube, "Bend", 512, 2);
    tl_gltf_destroy(tube);
    return 0;
}
