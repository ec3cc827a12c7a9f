/* libFuzzer target for the hair OBJ reader: read from memory; a mesh that is read must hold
 * only finite positions and triangles whose corners are vertices. */
#include <tailor/hair.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tl_hair_mesh mesh;
    tl_error err;
    if (tl_hair_mesh_read_obj_memory(data, size, "fuzz.obj", &mesh, &err) != TL_OK) return 0;
    if (mesh.vertex_count == 0) abort();
    for (size_t i = 0; i < 3 * (size_t)mesh.vertex_count; ++i)
        if (!isfinite(mesh.positions[i])) abort();
    for (size_t i = 0; i < 3 * (size_t)mesh.triangle_count; ++i)
        if (mesh.triangles[i] >= mesh.vertex_count) abort();
    tl_hair_mesh_free(&mesh);
    return 0;
}
