/* libFuzzer target for the glTF reader: load from memory (no base folder, so external URIs
 * are refused), read every accessor as float and uint, write GLB to memory, destroy.
 * Accessors without a bufferView can ask for up to 2 GiB of zeros; those beyond a few MB are
 * skipped so a 64 KB input cannot make the harness allocate gigabytes. */
#include <tailor/gltf.h>

#include <stdint.h>
#include <stdlib.h>

enum { MAX_VALUES_WITHOUT_VIEW = 1 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tl_gltf* doc = NULL;
    tl_error err;
    if (tl_gltf_load_memory(data, size, "fuzz.glb", NULL, &doc, &err) != TL_OK) return 0;
    for (uint32_t i = 0; i < doc->accessor_count; ++i) {
        size_t n = tl_gltf_accessor_value_count(doc, i);
        if (doc->accessors[i].buffer_view == TL_NONE && n > MAX_VALUES_WITHOUT_VIEW) continue;
        float* f = malloc((n ? n : 1) * sizeof *f);
        uint32_t* u = malloc((n ? n : 1) * sizeof *u);
        if (f && u) {
            tl_gltf_accessor_read_float(doc, i, f, n, &err);
            tl_gltf_accessor_read_uint(doc, i, u, n, &err);
        }
        free(f);
        free(u);
    }
    for (int compact = 0; compact < 2; ++compact) {
        tl_gltf_save_def def = tl_default_gltf_save_def();
        def.compact = compact;
        uint8_t* bytes = NULL;
        size_t out_size = 0;
        if (tl_gltf_save_glb_memory(doc, &def, &bytes, &out_size, &err) == TL_OK) {
            /* what was written must load again */
            tl_gltf* again = NULL;
            if (tl_gltf_load_memory(bytes, out_size, "fuzz-out.glb", NULL, &again, &err) != TL_OK)
                abort();
            tl_gltf_destroy(again);
        }
        free(bytes);
    }
    tl_gltf_destroy(doc);
    return 0;
}
