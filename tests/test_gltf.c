/* Tests of the glTF document (src/gltf): lossless round trips of every shared file, every
 * accessor form against values written by hand from the glTF 2.0 spec, the writer's
 * promises, and clean failures on truncated and broken files.
 *
 * Fixtures: tests/data/gltf (written by tests/data/gltf/make_fixtures.py, bytes listed by
 * hand there; the expected values below are written by hand again from the spec). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/gltf_json.h>

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------------ */

static const char* fixture(const char* name) {
    static char ring[8][4096];
    static int next;
    char* out = ring[next++ % 8];
    snprintf(out, sizeof ring[0], "%s", tl_test_source("tests/data/gltf"));
    snprintf(out + strlen(out), sizeof ring[0] - strlen(out), "/%s", name);
    return out;
}

static const char* base_name(const char* path) {
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static size_t file_size(const char* path) {
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static bool is_integer_component(tl_gltf_component ct) {
    return ct != TL_GLTF_FLOAT;
}

/* Reads accessor i of both documents (float, and uint when the components are integers) and
 * checks the results and the values agree bit for bit. */
static bool accessor_same(const tl_gltf* a, uint32_t ia, const tl_gltf* b, uint32_t ib,
                          const char* what) {
    size_t n = tl_gltf_accessor_value_count(a, ia);
    if (n != tl_gltf_accessor_value_count(b, ib)) {
        tl_test_failf(__FILE__, __LINE__, "%s: accessor %u/%u: %zu vs %zu values", what, ia, ib, n,
                      tl_gltf_accessor_value_count(b, ib));
        return false;
    }
    float* fa = malloc((n ? n : 1) * sizeof *fa);
    float* fb = malloc((n ? n : 1) * sizeof *fb);
    tl_error ea = {0}, eb = {0};
    tl_result ra = tl_gltf_accessor_read_float(a, ia, fa, n, &ea);
    tl_result rb = tl_gltf_accessor_read_float(b, ib, fb, n, &eb);
    bool ok = ra == rb && (ra != TL_OK || memcmp(fa, fb, n * sizeof *fa) == 0);
    if (!ok)
        tl_test_failf(__FILE__, __LINE__, "%s: accessor %u/%u reads differ as float (%s / %s)",
                      what, ia, ib, tl_result_string(ra), tl_result_string(rb));
    free(fa);
    free(fb);
    if (ok && is_integer_component(a->accessors[ia].component_type)) {
        uint32_t* ua = malloc((n ? n : 1) * sizeof *ua);
        uint32_t* ub = malloc((n ? n : 1) * sizeof *ub);
        ra = tl_gltf_accessor_read_uint(a, ia, ua, n, &ea);
        rb = tl_gltf_accessor_read_uint(b, ib, ub, n, &eb);
        ok = ra == rb && (ra != TL_OK || memcmp(ua, ub, n * sizeof *ua) == 0);
        if (!ok)
            tl_test_failf(__FILE__, __LINE__, "%s: accessor %u/%u reads differ as uint (%s / %s)",
                          what, ia, ib, tl_result_string(ra), tl_result_string(rb));
        free(ua);
        free(ub);
    }
    return ok;
}

static bool accessors_same(const tl_gltf* a, const tl_gltf* b, const char* what) {
    if (a->accessor_count != b->accessor_count) {
        tl_test_failf(__FILE__, __LINE__, "%s: %u vs %u accessors", what, a->accessor_count,
                      b->accessor_count);
        return false;
    }
    for (uint32_t i = 0; i < a->accessor_count; ++i)
        if (!accessor_same(a, i, b, i, what)) return false;
    return true;
}

/* Runs the validator (tests/validate.mjs, as tl_test_validate does) once on many files:
 * node's start-up costs more than validating a small file. reports[i] is NULL on failure. */
static void validate_batch(const char* const* paths, size_t n, json_t** reports) {
    size_t cap = 256, len = 0;
    for (size_t i = 0; i < n; ++i)
        cap += strlen(paths[i]) + 3;
    char* command = malloc(cap);
    len += (size_t)snprintf(command, cap, "cd '%s' && node tests/validate.mjs", tl_test_source(""));
    for (size_t i = 0; i < n; ++i)
        len += (size_t)snprintf(command + len, cap - len, " '%s'", paths[i]);
    for (size_t i = 0; i < n; ++i)
        reports[i] = NULL;
    FILE* p = popen(command, "r");
    free(command);
    if (!p) return;
    char line[65536];
    while (fgets(line, sizeof line, p)) {
        json_t* report = json_loads(line, 0, NULL);
        const char* file = json_string_value(json_object_get(report, "file"));
        for (size_t i = 0; file && i < n; ++i)
            if (!reports[i] && !strcmp(paths[i], file) && json_object_get(report, "codes")) {
                reports[i] = json_incref(report);
                break;
            }
        json_decref(report);
    }
    pclose(p);
}

/* The validator's report `out_report` on `out_path` has no code `in_report` lacks, and no code
 * more often. */
static bool reports_no_new_codes(json_t* in_report, json_t* out_report, const char* out_path) {
    if (!in_report || !out_report) {
        tl_test_failf(__FILE__, __LINE__, "validator did not run on %s or its input", out_path);
        return false;
    }
    json_t* in_codes = json_object_get(in_report, "codes");
    json_t* out_codes = json_object_get(out_report, "codes");
    const char* code;
    json_t* count;
    bool ok = json_is_object(out_codes);
    json_object_foreach(out_codes, code, count) {
        json_int_t before = json_integer_value(json_object_get(in_codes, code));
        if (json_integer_value(count) > before) {
            tl_test_failf(__FILE__, __LINE__, "%s: validator code %s %lld times (input: %lld)",
                          out_path, code, (long long)json_integer_value(count), (long long)before);
            ok = false;
        }
    }
    return ok;
}

static bool validator_no_new_codes(const char* in_path, const char* out_path) {
    const char* paths[2] = {in_path, out_path};
    json_t* reports[2];
    validate_batch(paths, 2, reports);
    bool ok = reports_no_new_codes(reports[0], reports[1], out_path);
    json_decref(reports[0]);
    json_decref(reports[1]);
    return ok;
}

/* Reads accessor `i` as floats into a static array and compares with `want` exactly. */
static bool floats_are(const tl_gltf* doc, uint32_t i, const float* want, size_t n, int line) {
    float got[64];
    tl_error err = {0};
    if (tl_gltf_accessor_value_count(doc, i) != n) {
        tl_test_failf(__FILE__, line, "accessor %u: %zu values, want %zu", i,
                      tl_gltf_accessor_value_count(doc, i), n);
        return false;
    }
    tl_result r = tl_gltf_accessor_read_float(doc, i, got, 64, &err);
    if (r != TL_OK) {
        tl_test_failf(__FILE__, line, "accessor %u: %s", i, err.message);
        return false;
    }
    for (size_t k = 0; k < n; ++k)
        if (memcmp(&got[k], &want[k], sizeof(float)) != 0) {
            tl_test_failf(__FILE__, line, "accessor %u value %zu: got %.9g want %.9g", i, k, got[k],
                          want[k]);
            return false;
        }
    return true;
}

static bool uints_are(const tl_gltf* doc, uint32_t i, const uint32_t* want, size_t n, int line) {
    uint32_t got[64];
    tl_error err = {0};
    tl_result r = tl_gltf_accessor_read_uint(doc, i, got, 64, &err);
    if (r != TL_OK || tl_gltf_accessor_value_count(doc, i) != n) {
        tl_test_failf(__FILE__, line, "accessor %u: %s (%zu values)", i, err.message,
                      tl_gltf_accessor_value_count(doc, i));
        return false;
    }
    for (size_t k = 0; k < n; ++k)
        if (got[k] != want[k]) {
            tl_test_failf(__FILE__, line, "accessor %u value %zu: got %u want %u", i, k, got[k],
                          want[k]);
            return false;
        }
    return true;
}

#define FLOATS_ARE(doc, i, ...)                                                                    \
    do {                                                                                           \
        const float want_[] = {__VA_ARGS__};                                                       \
        if (!floats_are((doc), (i), want_, sizeof want_ / sizeof want_[0], __LINE__)) goto done;   \
    } while (0)
#define UINTS_ARE(doc, i, ...)                                                                     \
    do {                                                                                           \
        const uint32_t want_[] = {__VA_ARGS__};                                                    \
        if (!uints_are((doc), (i), want_, sizeof want_ / sizeof want_[0], __LINE__)) goto done;    \
    } while (0)
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            tl_test_fail(__FILE__, __LINE__, #c);                                                  \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* The spec's normalisation (glTF 2.0, "Animations" / accessor normalization):
 * signed: max(c / (2^(b-1) - 1), -1); unsigned: c / (2^b - 1). */
#define SNORM8(c) ((float)fmax((c) / 127.0, -1.0))
#define UNORM8(c) ((float)((c) / 255.0))
#define SNORM16(c) ((float)fmax((c) / 32767.0, -1.0))
#define UNORM16(c) ((float)((c) / 65535.0))

/* ---- 1. round trips of the shared files ---------------------------------------------------- */

static void roundtrip_shared_glb(void) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    ENSURE_MSG(n >= 10, "only %zu shared files found under %s", n, tl_test_shared(""));
    /* inputs at [0, n), outputs at [n, 2n): one validator run for all */
    char** all = calloc(2 * n, sizeof *all);
    json_t** reports = calloc(2 * n, sizeof *reports);
    for (size_t i = 0; i < n && !tl_test_failed; ++i) {
        tl_error err = {0};
        tl_gltf *doc = NULL, *copy = NULL;
        char name[512];
        snprintf(name, sizeof name, "rt_%02zu_%s.glb", i, base_name(paths[i]));
        all[i] = strdup(paths[i]);
        all[n + i] = strdup(tl_test_scratch(name));
        tl_gltf_save_def def = tl_default_gltf_save_def();
        def.overwrite = true;
        tl_result r = tl_gltf_load(paths[i], &doc, &err);
        if (r == TL_OK) r = tl_gltf_save(doc, all[n + i], &def, &err);
        if (r == TL_OK) r = tl_gltf_load(all[n + i], &copy, &err);
        if (r != TL_OK)
            tl_test_failf(__FILE__, __LINE__, "%s: %s", paths[i], err.message);
        else if (!json_equal(doc->json, copy->json))
            tl_test_failf(__FILE__, __LINE__, "%s: JSON differs after the round trip", paths[i]);
        else
            accessors_same(doc, copy, paths[i]);
        tl_gltf_destroy(doc);
        tl_gltf_destroy(copy);
    }
    if (!tl_test_failed) validate_batch((const char* const*)all, 2 * n, reports);
    for (size_t i = 0; i < n && !tl_test_failed; ++i)
        reports_no_new_codes(reports[i], reports[n + i], all[n + i]);
    for (size_t i = 0; i < 2 * n; ++i) {
        free(all[i]);
        json_decref(reports[i]);
    }
    free(all);
    free(reports);
}

/* GLB -> .gltf + .bin -> reload (same JSON but buffers/0/uri, same data) -> .glb again (the
 * original JSON exactly). The validator runs on the text output of the smallest files. */
static void roundtrip_shared_gltf_text(void) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    ENSURE(n > 0);
    int validated = 0;
    for (size_t i = 0; i < n; ++i) {
        tl_error err = {0};
        tl_gltf *doc = NULL, *text = NULL, *back = NULL;
        json_t* stripped = NULL;
        ENSURE_OK(tl_gltf_load(paths[i], &doc, &err), err);
        char stem[400], name[512], bin[512];
        snprintf(stem, sizeof stem, "txt_%02zu_%s", i, base_name(paths[i]));
        for (char* p = stem; *p; ++p)
            if (*p == '.') *p = '_';
        snprintf(name, sizeof name, "%s.gltf", stem);
        snprintf(bin, sizeof bin, "%s.bin", stem);
        char out[4096], out_bin[4096], out_glb[4096];
        snprintf(out, sizeof out, "%s", tl_test_scratch(name));
        snprintf(out_bin, sizeof out_bin, "%s", tl_test_scratch(bin));
        snprintf(name, sizeof name, "%s_back.glb", stem);
        snprintf(out_glb, sizeof out_glb, "%s", tl_test_scratch(name));
        remove(out);
        remove(out_bin);
        tl_gltf_save_def def = tl_default_gltf_save_def();
        def.overwrite = true;
        CHECK(tl_gltf_save(doc, out, &def, &err) == TL_OK);
        CHECK(file_size(out_bin) >= doc->buffers[0].size);
        CHECK(tl_gltf_load(out, &text, &err) == TL_OK);
        CHECK(!text->glb && text->buffers[0].external);
        const char* uri = json_string_value(
            json_object_get(json_array_get(json_object_get(text->json, "buffers"), 0), "uri"));
        CHECK(uri && !strcmp(uri, bin));
        stripped = json_deep_copy(text->json);
        json_object_del(json_array_get(json_object_get(stripped, "buffers"), 0), "uri");
        CHECK(json_equal(stripped, doc->json));
        if (!accessors_same(doc, text, out)) goto done;
        CHECK(tl_gltf_save(text, out_glb, &def, &err) == TL_OK);
        CHECK(tl_gltf_load(out_glb, &back, &err) == TL_OK);
        CHECK(json_equal(back->json, doc->json));
        if (!accessors_same(doc, back, out_glb)) goto done;
        if (validated < 3 && file_size(paths[i]) < 600000) {
            ++validated;
            CHECK(validator_no_new_codes(paths[i], out));
        }
    done:
        if (tl_test_failed) fprintf(stderr, "  (%s: %s)\n", paths[i], err.message);
        json_decref(stripped);
        tl_gltf_destroy(doc);
        tl_gltf_destroy(text);
        tl_gltf_destroy(back);
        if (tl_test_failed) return;
    }
    ENSURE(validated == 3);
}

/* ---- 2. accessor forms, expected values by hand ------------------------------------------- */

static tl_gltf* load_fixture(const char* name) {
    tl_gltf* doc = NULL;
    tl_error err = {0};
    if (tl_gltf_load(fixture(name), &doc, &err) != TL_OK)
        tl_test_failf(__FILE__, __LINE__, "%s: %s", name, err.message);
    return doc;
}

static void accessor_component_types(void) {
    tl_gltf* doc = load_fixture("components.gltf");
    ENSURE(doc);
    tl_error err = {0};
    uint32_t u[8];
    CHECK(doc->accessor_count == 10);
    FLOATS_ARE(doc, 0, -128, -1, 0, 127);           /* BYTE */
    FLOATS_ARE(doc, 1, 0, 1, 128, 255);             /* UNSIGNED_BYTE */
    FLOATS_ARE(doc, 2, -32768, -1, 0, 32767);       /* SHORT */
    FLOATS_ARE(doc, 3, 0, 1, 32768, 65535);         /* UNSIGNED_SHORT */
    FLOATS_ARE(doc, 4, 0, 1, 65536, 4294967296.0f); /* UNSIGNED_INT, nearest float */
    FLOATS_ARE(doc, 5, -1.5f, 0, 0.25f, 3.0e38f);   /* FLOAT */
    UINTS_ARE(doc, 1, 0, 1, 128, 255);
    UINTS_ARE(doc, 3, 0, 1, 32768, 65535);
    UINTS_ARE(doc, 4, 0, 1, 65536, 4294967295u);
    /* reading as uint: negative values, floats and normalized accessors are errors */
    CHECK(tl_gltf_accessor_read_uint(doc, 0, u, 8, &err) == TL_ERROR_INVALID);
    CHECK(strstr(err.message, "/accessors/0") && strstr(err.message, "negative"));
    CHECK(tl_gltf_accessor_read_uint(doc, 2, u, 8, &err) == TL_ERROR_INVALID);
    CHECK(strstr(err.message, "/accessors/2"));
    CHECK(tl_gltf_accessor_read_uint(doc, 5, u, 8, &err) == TL_ERROR_INVALID);
    CHECK(strstr(err.message, "/accessors/5"));
    CHECK(tl_gltf_accessor_read_uint(doc, 7, u, 8, &err) == TL_ERROR_INVALID);
    CHECK(strstr(err.message, "/accessors/7"));
    CHECK(tl_gltf_component_size(TL_GLTF_SHORT) == 2 &&
          tl_gltf_component_size((tl_gltf_component)5124) == 0);
done:
    tl_gltf_destroy(doc);
}

static void accessor_normalized(void) {
    tl_gltf* doc = load_fixture("components.gltf");
    ENSURE(doc);
    CHECK(doc->accessors[6].normalized && !doc->accessors[0].normalized);
    /* signed byte: -128 and -127 both read -1.0, 127 reads 1.0 */
    FLOATS_ARE(doc, 6, -1.0f, -1.0f, 0.0f, 1.0f, SNORM8(64), SNORM8(-64));
    FLOATS_ARE(doc, 7, 0.0f, 1.0f, UNORM8(51), UNORM8(102));
    FLOATS_ARE(doc, 8, -1.0f, -1.0f, 0.0f, 1.0f, SNORM16(16384));
    FLOATS_ARE(doc, 9, 0.0f, 1.0f, UNORM16(13107));
done:
    tl_gltf_destroy(doc);
}

static void accessor_stride(void) {
    tl_gltf* doc = load_fixture("stride.gltf");
    ENSURE(doc);
    CHECK(doc->views[0].byte_stride == 20 && doc->views[1].byte_stride == 8);
    FLOATS_ARE(doc, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    UINTS_ARE(doc, 1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120);
    UINTS_ARE(doc, 2, 1, 2, 3, 4);
    FLOATS_ARE(doc, 3, 1.0f, -1.0f, 0.0f, SNORM16(16384));
done:
    tl_gltf_destroy(doc);
}

/* One component decoded by hand, as the glTF spec says (the plain path for the next test). */
static double plain_component(const uint8_t* p, tl_gltf_component type, bool normalized) {
    switch (type) {
    case TL_GLTF_BYTE:
        return normalized ? fmax(*(const int8_t*)p / 127.0, -1.0) : *(const int8_t*)p;
    case TL_GLTF_UNSIGNED_BYTE:
        return normalized ? *p / 255.0 : *p;
    case TL_GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case TL_GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
    }
    case TL_GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return normalized ? v / 4294967295.0 : v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

/* Every dense accessor of the shared files and the fixtures read through the API (floats, and
 * integers where the type has them) equals a by-hand decode of its bytes: the element at
 * offset + i × stride, column c at c × its 4-aligned size, bit for bit. */
static void accessor_read_matches_plain(void) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    ENSURE_MSG(n >= 10, "only %zu shared files found", n);
    /* matrix.gltf twice: the second time not normalized, so unsigned byte and short matrices
       with padded columns are read as integers too */
    const char* fixtures[] = {"components.gltf", "stride.gltf", "matrix.gltf", "matrix.gltf"};
    size_t values = 0, differ = 0, accessors = 0;
    for (size_t f = 0; f < n + 4 && !tl_test_failed; ++f) {
        tl_gltf* doc = f < n ? NULL : load_fixture(fixtures[f - n]);
        tl_error err = {0};
        if (f < n) ENSURE_OK(tl_gltf_load(paths[f], &doc, &err), err);
        ENSURE(doc);
        for (uint32_t i = 0; f == n + 3 && i < doc->accessor_count; ++i)
            ((tl_gltf_accessor*)doc->accessors)[i].normalized = false; /* the loader's own array */
        for (uint32_t i = 0; i < doc->accessor_count; ++i) {
            const tl_gltf_accessor* a = &doc->accessors[i];
            if (a->has_sparse || a->buffer_view == TL_NONE) continue;
            const tl_gltf_buffer_view* v = &doc->views[a->buffer_view];
            uint32_t cs = tl_gltf_component_size(a->component_type);
            uint32_t rows = a->type == TL_GLTF_MAT2   ? 2
                            : a->type == TL_GLTF_MAT3 ? 3
                            : a->type == TL_GLTF_MAT4 ? 4
                                                      : a->components;
            uint32_t cols = a->components / rows;
            size_t col = cols > 1 ? (rows * cs + 3) / 4 * 4 : rows * cs;
            size_t stride = v->byte_stride ? v->byte_stride : cols * col;
            size_t m = a->count * a->components;
            float* got = malloc(sizeof(float) * m + 1);
            uint32_t* ugot = malloc(sizeof(uint32_t) * m + 1);
            bool ints = a->component_type != TL_GLTF_FLOAT && !a->normalized;
            bool fl = tl_gltf_accessor_read_float(doc, i, got, m, &err) == TL_OK;
            bool in = ints && tl_gltf_accessor_read_uint(doc, i, ugot, m, &err) == TL_OK;
            const uint8_t* base = doc->buffers[v->buffer].data + v->byte_offset + a->byte_offset;
            for (size_t e = 0; e < a->count; ++e)
                for (uint32_t c = 0; c < cols; ++c)
                    for (uint32_t r = 0; r < rows; ++r) {
                        double want = plain_component(base + e * stride + c * col + r * cs,
                                                      a->component_type, a->normalized);
                        size_t k = e * a->components + c * rows + r;
                        float wf = (float)want;
                        if (fl) differ += memcmp(&got[k], &wf, sizeof wf) != 0, ++values;
                        if (in && want >= 0) differ += ugot[k] != (uint32_t)want, ++values;
                    }
            accessors += fl;
            free(got), free(ugot);
        }
        tl_gltf_destroy(doc);
    }
    printf("  %zu accessors, %zu values checked, %zu differ\n", accessors, values, differ);
    ENSURE(differ == 0 && accessors > 100);
}

static void accessor_sparse(void) {
    tl_gltf* doc = load_fixture("sparse.gltf");
    ENSURE(doc);
    CHECK(doc->accessors[0].has_sparse && doc->accessors[0].sparse.count == 2);
    CHECK(doc->accessors[1].buffer_view == TL_NONE && doc->accessors[1].has_sparse);
    CHECK(doc->accessors[2].sparse.indices_component == TL_GLTF_UNSIGNED_INT);
    FLOATS_ARE(doc, 0, 1, 20, 3, 40, 5);                    /* over a bufferView */
    FLOATS_ARE(doc, 1, 1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6); /* without one: zeros, then values */
    UINTS_ARE(doc, 2, 7, 8, 99);
done:
    tl_gltf_destroy(doc);
}

static void accessor_matrix_padding(void) {
    tl_gltf* doc = load_fixture("matrix.gltf");
    ENSURE(doc);
    /* Column-major; with 1- and 2-byte components each column starts on a 4-byte boundary
     * and the padding bytes (0x55) are skipped. */
    FLOATS_ARE(doc, 0, 1, 2, 3, 4, -1, -2, -3, -4);          /* MAT2 BYTE */
    FLOATS_ARE(doc, 1, 0.0f, 1.0f, UNORM8(51), UNORM8(102)); /* MAT2 UBYTE normalized */
    FLOATS_ARE(doc, 2, 100, -200, 300, -400);                /* MAT2 SHORT, no padding */
    FLOATS_ARE(doc, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8,
               -9);                                                           /* MAT3 BYTE */
    FLOATS_ARE(doc, 4, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000); /* MAT3 SHORT */
    FLOATS_ARE(doc, 5, 0.0f, 1.0f, UNORM16(13107), UNORM16(1), UNORM16(2), UNORM16(3), 1.0f, 0.0f,
               1.0f);
    FLOATS_ARE(doc, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16); /* MAT4 UBYTE */
    FLOATS_ARE(doc, 7, 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f, 8.5f, 9.5f, 10.5f, 11.5f,
               12.5f, 13.5f, 14.5f, 15.5f);
    UINTS_ARE(doc, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
done:
    tl_gltf_destroy(doc);
}

/* skin.gltf: root -> hip -> spine -> head joints 1 unit apart on +Y, a triangle skinned with
 * two JOINTS/WEIGHTS sets, a rotation clip on hip. */
static void check_skin_doc(const tl_gltf* doc) {
    CHECK(doc->node_count == 5 && doc->mesh_count == 1 && doc->skin_count == 1);
    CHECK(doc->nodes[0].parent == TL_NONE && doc->nodes[1].parent == 0 &&
          doc->nodes[3].parent == 2);
    CHECK(doc->nodes[4].parent == TL_NONE && doc->nodes[4].mesh == 0 && doc->nodes[4].skin == 0);
    CHECK(!strcmp(doc->nodes[2].name, "spine") && doc->nodes[1].matrix[13] == 1.0f &&
          !doc->nodes[1].has_matrix);
    const tl_gltf_primitive* p = &doc->meshes[0].primitives[0];
    CHECK(p->joint_set_count == 2 && p->joints[0] == 1 && p->weights[0] == 2);
    CHECK(p->joints[1] == 3 && p->weights[1] == 4 && p->indices == 5 && p->position == 0);
    CHECK(tl_gltf_primitive_attribute(p, "WEIGHTS_1") == 4 &&
          tl_gltf_primitive_attribute(p, "COLOR_0") == TL_NONE);
    CHECK(tl_gltf_primitive_vertex_count(doc, p) == 3);
    const tl_gltf_skin* s = &doc->skins[0];
    CHECK(s->joint_count == 4 && s->joints[3] == 3 && s->inverse_bind_matrices == 6 &&
          s->skeleton == 0);
    CHECK(doc->animation_count == 1 &&
          doc->animations[0].channels[0].path == TL_GLTF_PATH_ROTATION);
    CHECK(doc->animations[0].channels[0].node == 1 &&
          doc->animations[0].samplers[0].interpolation == TL_GLTF_LINEAR);
    CHECK(doc->scene == 0 && doc->scenes[0].node_count == 2 && doc->scenes[0].nodes[1] == 4);
    FLOATS_ARE(doc, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0);
    UINTS_ARE(doc, 1, 0, 1, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0);              /* JOINTS_0 ubyte */
    FLOATS_ARE(doc, 2, 0.6f, 0.2f, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0); /* WEIGHTS_0 float */
    UINTS_ARE(doc, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);              /* JOINTS_1 ushort */
    FLOATS_ARE(doc, 4, UNORM8(51), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);    /* WEIGHTS_1 ubyte norm */
    UINTS_ARE(doc, 5, 0, 1, 2);
    FLOATS_ARE(doc, 6, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, /* inverse bind: -y */
               1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0,
               0, -2, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -3, 0, 1);
    FLOATS_ARE(doc, 7, 0, 1);
    FLOATS_ARE(doc, 8, 0, 0, 0, 1, 0, 0, (float)sqrt(0.5), (float)sqrt(0.5));
done:;
}

static void accessor_joint_sets(void) {
    tl_gltf* doc = load_fixture("skin.gltf");
    tl_gltf* bin = load_fixture("skin.glb");
    ENSURE(doc && bin);
    check_skin_doc(doc);
    if (tl_test_failed) goto done;
    check_skin_doc(bin);
    if (tl_test_failed) goto done;
    CHECK(bin->glb && !doc->glb && !doc->buffers[0].external);
    if (!accessors_same(doc, bin, "skin.gltf vs skin.glb")) goto done;
done:
    tl_gltf_destroy(doc);
    tl_gltf_destroy(bin);
}

static void accessor_external_bin(void) {
    tl_gltf* doc = load_fixture("external.gltf");
    tl_gltf *text = NULL, *glb = NULL, *mem = NULL;
    unsigned char* bytes = NULL;
    ENSURE(doc);
    tl_error err = {0};
    CHECK(doc->buffer_count == 2 && doc->buffers[0].external && !doc->buffers[1].external);
    FLOATS_ARE(doc, 0, 1.0f, -2.0f, 0.5f, 8.0f); /* from "external data.bin" (uri with %20) */
    UINTS_ARE(doc, 1, 7, 65535);                 /* from a data: URI */
    /* From memory without a base folder an external uri is an error naming the buffer. */
    size_t size = 0;
    bytes = tl_test_read_file(fixture("external.gltf"), &size);
    CHECK(bytes);
    CHECK(tl_gltf_load_memory(bytes, size, "external.gltf", NULL, &mem, &err) == TL_ERROR_INVALID &&
          !mem);
    CHECK(strstr(err.message, "external.gltf: /buffers/0/uri"));
    /* .gltf output writes the external buffer beside it under the output's name (never the
     * input's uri, which could name the input's own .bin); nothing else in the JSON changes. */
    mkdir(tl_test_scratch("ext"), 0755);
    const char* out = tl_test_scratch("ext/copy 1.gltf");
    char out_bin[4096], old_bin[4096];
    snprintf(out_bin, sizeof out_bin, "%s", tl_test_scratch("ext/copy 1.bin"));
    snprintf(old_bin, sizeof old_bin, "%s", tl_test_scratch("ext/external data.bin"));
    remove(out_bin);
    remove(old_bin);
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    CHECK(tl_gltf_save(doc, out, &def, &err) == TL_OK);
    CHECK(file_size(out_bin) == 16 && access(old_bin, F_OK) != 0);
    CHECK(tl_gltf_load(out, &text, &err) == TL_OK);
    json_t* expected = json_deep_copy(doc->json);
    json_object_set_new(json_array_get(json_object_get(expected, "buffers"), 0), "uri",
                        json_string("copy%201.bin"));
    bool same_json = json_equal(text->json, expected);
    json_decref(expected);
    CHECK(same_json);
    if (!accessors_same(doc, text, "external.gltf copy")) goto done;
    /* GLB output is self-contained: buffer 0 moves into the BIN chunk, the data: URI stays. */
    const char* out_glb = tl_test_scratch("external.glb");
    CHECK(tl_gltf_save(doc, out_glb, &def, &err) == TL_OK);
    CHECK(tl_gltf_load(out_glb, &glb, &err) == TL_OK);
    json_t* b0 = json_array_get(json_object_get(glb->json, "buffers"), 0);
    json_t* b1 = json_array_get(json_object_get(glb->json, "buffers"), 1);
    CHECK(!json_object_get(b0, "uri") &&
          !strncmp(json_string_value(json_object_get(b1, "uri")), "data:", 5));
    if (!accessors_same(doc, glb, "external.glb")) goto done;
done:
    free(bytes);
    tl_gltf_destroy(doc);
    tl_gltf_destroy(text);
    tl_gltf_destroy(glb);
    tl_gltf_destroy(mem);
}

static void accessor_data_uri(void) {
    uint8_t out[8];
    const char* p = "data:application/octet-stream;base64,";
    char uri[128];
#define DECODE(payload, cap)                                                                       \
    (snprintf(uri, sizeof uri, "%s%s", p, payload), tl_gltf_data_uri_decode(uri, out, cap))
    ENSURE(DECODE("AQID", 8) == 3 && out[0] == 1 && out[1] == 2 && out[2] == 3);
    ENSURE(DECODE("AQI=", 8) == 2 && out[0] == 1 && out[1] == 2);
    ENSURE(DECODE("AQ==", 8) == 1 && out[0] == 1);
    ENSURE(DECODE("//79", 8) == 3 && out[0] == 0xFF && out[1] == 0xFE && out[2] == 0xFD);
    ENSURE(DECODE("", 8) == 0);
    ENSURE(DECODE("A", 8) == (size_t)-1);      /* 6 bits are no byte */
    ENSURE(DECODE("AQ==AQ", 8) == (size_t)-1); /* data after padding */
    ENSURE(DECODE("AQ===", 8) == (size_t)-1);  /* three '=' */
    ENSURE(DECODE("AQ!D", 8) == (size_t)-1);
    ENSURE(DECODE("AQID", 2) == (size_t)-1); /* does not fit */
    ENSURE(tl_gltf_data_uri_decode("data:application/octet-stream,AQID", out, 8) == (size_t)-1);
    ENSURE(tl_gltf_data_uri_decode("data:;base64,AQID", out, 8) == 3);
    ENSURE(tl_gltf_data_uri_decode("buffer.bin", out, 8) == (size_t)-1);
#undef DECODE
}

/* ---- 3. the writer ------------------------------------------------------------------------ */

static const char* smallest_shared(int rank) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    const char* best[2] = {NULL, NULL};
    for (size_t i = 0; i < n; ++i) {
        size_t s = file_size(paths[i]);
        if (!best[0] || s < file_size(best[0]))
            best[1] = best[0], best[0] = paths[i];
        else if (!best[1] || s < file_size(best[1]))
            best[1] = paths[i];
    }
    return best[rank];
}

static void writer_accessor_add(void) {
    const char* in = smallest_shared(0);
    ENSURE(in);
    tl_gltf *orig = NULL, *doc = NULL, *copy = NULL;
    tl_error err = {0};
    ENSURE_OK(tl_gltf_load(in, &orig, &err), err);
    CHECK(tl_gltf_load(in, &doc, &err) == TL_OK);
    uint32_t old_count = doc->accessor_count;
    const float pos[] = {0, 0, 0, 1, 2, 3, -4, 5, 0.5f};
    const uint8_t weights[] = {255, 0, 0, 0, 128, 127, 0, 0, 1, 2, 3, 249};
    tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
    def.data = pos;
    def.count = 3;
    def.min_max = true;
    def.target = 34962;
    def.name = "added positions";
    uint32_t a_pos, a_w;
    CHECK(tl_gltf_accessor_add(doc, &def, &a_pos, &err) == TL_OK);
    def = tl_default_gltf_accessor_def();
    def.data = weights;
    def.count = 3;
    def.component_type = TL_GLTF_UNSIGNED_BYTE;
    def.type = TL_GLTF_VEC4;
    def.normalized = true;
    CHECK(tl_gltf_accessor_add(doc, &def, &a_w, &err) == TL_OK);
    CHECK(a_pos == old_count && a_w == old_count + 1);
    CHECK(tl_gltf_reindex(doc, &err) == TL_OK);
    CHECK(doc->accessor_count == old_count + 2 &&
          !strcmp(doc->accessors[a_pos].name, "added positions"));
    const char* out = tl_test_scratch("accessor_add.glb");
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    CHECK(tl_gltf_save(doc, out, &save, &err) == TL_OK);
    CHECK(tl_gltf_load(out, &copy, &err) == TL_OK);
    CHECK(copy->accessor_count == old_count + 2);
    for (uint32_t i = 0; i < old_count; ++i)
        if (!accessor_same(orig, i, copy, i, "old accessor after accessor_add")) goto done;
    FLOATS_ARE(copy, a_pos, 0, 0, 0, 1, 2, 3, -4, 5, 0.5f);
    FLOATS_ARE(copy, a_w, 1.0f, 0, 0, 0, UNORM8(128), UNORM8(127), 0, 0, UNORM8(1), UNORM8(2),
               UNORM8(3), UNORM8(249));
    json_t* mn =
        json_object_get(json_array_get(json_object_get(copy->json, "accessors"), a_pos), "min");
    json_t* mx =
        json_object_get(json_array_get(json_object_get(copy->json, "accessors"), a_pos), "max");
    CHECK(json_real_value(json_array_get(mn, 0)) == -4 &&
          json_real_value(json_array_get(mx, 2)) == 3);
    CHECK(validator_no_new_codes(in, out));
done:
    tl_gltf_destroy(orig);
    tl_gltf_destroy(doc);
    tl_gltf_destroy(copy);
}

/* A 4 KiB bufferView nothing references is dropped by `compact`: the file gets smaller and
 * every accessor still reads the same. */
static void writer_compact(void) {
    const char* in = smallest_shared(0);
    ENSURE(in);
    tl_gltf *orig = NULL, *doc = NULL, *loose = NULL, *tight = NULL;
    tl_error err = {0};
    uint8_t junk[4096];
    for (int i = 0; i < 4096; ++i)
        junk[i] = (uint8_t)(i * 7 + 1);
    ENSURE_OK(tl_gltf_load(in, &orig, &err), err);
    CHECK(tl_gltf_load(in, &doc, &err) == TL_OK);
    uint32_t view;
    CHECK(tl_gltf_view_add(doc, 0, junk, sizeof junk, 0, 0, &view, &err) == TL_OK);
    CHECK(view == orig->view_count);
    CHECK(tl_gltf_reindex(doc, &err) == TL_OK);
    const char* loose_path = tl_test_scratch("compact_no.glb");
    const char* tight_path = tl_test_scratch("compact_yes.glb");
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    CHECK(tl_gltf_save(doc, loose_path, &def, &err) == TL_OK);
    def.compact = true;
    CHECK(tl_gltf_save(doc, tight_path, &def, &err) == TL_OK);
    size_t loose_size = file_size(loose_path), tight_size = file_size(tight_path);
    ENSURE_MSG(tight_size + 4096 <= loose_size, "compact: %zu bytes, without: %zu", tight_size,
               loose_size);
    CHECK(tl_gltf_load(loose_path, &loose, &err) == TL_OK);
    CHECK(tl_gltf_load(tight_path, &tight, &err) == TL_OK);
    CHECK(loose->view_count == orig->view_count + 1 && tight->view_count == orig->view_count);
    if (!accessors_same(orig, loose, "without compact") || !accessors_same(orig, tight, "compact"))
        goto done;
    CHECK(validator_no_new_codes(in, tight_path));
done:
    if (tl_test_failed) fprintf(stderr, "  (%s)\n", err.message);
    tl_gltf_destroy(orig);
    tl_gltf_destroy(doc);
    tl_gltf_destroy(loose);
    tl_gltf_destroy(tight);
}

/* Compaction of a data: URI buffer (the URI must not keep the old bytes) and of views that
 * overlap (each kept view gets its own copy). */
static void writer_compact_data_uri_and_overlap(void) {
    tl_gltf *orig = load_fixture("components.gltf"), *doc = load_fixture("components.gltf");
    tl_gltf *copy = NULL, *text = NULL;
    uint8_t* bytes = NULL;
    size_t size;
    tl_error err = {0};
    ENSURE(orig && doc);
    /* Drop accessors 0..5 (56 bytes of views at the start) so the rest must move. */
    json_t* accessors = json_object_get(doc->json, "accessors");
    for (int i = 0; i < 6; ++i)
        json_array_remove(accessors, 0);
    /* And a second view over the bytes of view 9, read by a new accessor 4. */
    json_t* views = json_object_get(doc->json, "bufferViews");
    json_array_append_new(views, json_deep_copy(json_array_get(views, 9)));
    json_t* a = json_deep_copy(json_array_get(accessors, 3));
    json_object_set_new(a, "bufferView", json_integer(10));
    json_array_append_new(accessors, a);
    CHECK(tl_gltf_reindex(doc, &err) == TL_OK);
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.compact = true;
    CHECK(tl_gltf_save_glb_memory(doc, &def, &bytes, &size, &err) == TL_OK);
    CHECK(tl_gltf_load_memory(bytes, size, "compacted.glb", NULL, &copy, &err) == TL_OK);
    CHECK(copy->accessor_count == 5 && copy->view_count == 5 && copy->views[0].byte_offset < 56);
    for (uint32_t i = 0; i < 4; ++i)
        if (!accessor_same(orig, 6 + i, copy, i, "compacted components")) goto done;
    if (!accessor_same(orig, 9, copy, 4, "compacted overlapping view")) goto done;
    /* The same through .gltf output: the buffer gets a .bin file instead of its old URI. */
    def.overwrite = true;
    const char* out = tl_test_scratch("compact_components.gltf");
    CHECK(tl_gltf_save(doc, out, &def, &err) == TL_OK);
    CHECK(tl_gltf_load(out, &text, &err) == TL_OK);
    CHECK(text->buffers[0].external);
    for (uint32_t i = 0; i < 4; ++i)
        if (!accessor_same(orig, 6 + i, text, i, "compacted components (.gltf)")) goto done;
done:
    if (tl_test_failed) fprintf(stderr, "  (%s)\n", err.message);
    free(bytes);
    tl_gltf_destroy(orig);
    tl_gltf_destroy(doc);
    tl_gltf_destroy(copy);
    tl_gltf_destroy(text);
}

static bool write_bytes(const char* path, const void* data, size_t size) {
    FILE* f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static bool file_is(const char* path, const void* data, size_t size) {
    size_t got = 0;
    unsigned char* bytes = tl_test_read_file(path, &got);
    bool same = bytes && got == size && memcmp(bytes, data, size) == 0;
    free(bytes);
    return same;
}

static void writer_refuses_existing(void) {
    tl_gltf* doc = load_fixture("skin.gltf");
    ENSURE(doc);
    tl_error err = {0};
    static const char marker[] = "not a glTF: must survive";
    const char* names[] = {"exists.glb", "exists.gltf"};
    for (int i = 0; i < 2; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s", tl_test_scratch(names[i]));
        CHECK(write_bytes(path, marker, sizeof marker));
        tl_gltf_save_def def = tl_default_gltf_save_def();
        err.message[0] = '\0';
        CHECK(tl_gltf_save(doc, path, &def, &err) == TL_ERROR_EXISTS);
        CHECK(err.result == TL_ERROR_EXISTS && strstr(err.message, names[i]));
        CHECK(file_is(path, marker, sizeof marker));
        def.overwrite = true;
        CHECK(tl_gltf_save(doc, path, &def, &err) == TL_OK);
        CHECK(!file_is(path, marker, sizeof marker) && file_size(path) > 100);
    }
done:
    tl_gltf_destroy(doc);
}

/* Counts entries of `dir` whose name starts with `prefix`. */
static int count_entries(const char* dir, const char* prefix) {
    DIR* d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent* e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) ++n;
    closedir(d);
    return n;
}

static void writer_failure_leaves_nothing(void) {
    tl_gltf* doc = load_fixture("skin.gltf");
    ENSURE(doc);
    tl_error err = {0};
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    char dir[2048], missing[4096], target[4096];
    snprintf(dir, sizeof dir, "%s", tl_test_scratch("failing"));
    mkdir(dir, 0755);
    /* into a folder that does not exist */
    snprintf(missing, sizeof missing, "%s/no/such/folder/out.glb", dir);
    CHECK(tl_gltf_save(doc, missing, &def, &err) == TL_ERROR_IO && strstr(err.message, "out.glb"));
    snprintf(missing, sizeof missing, "%s/no", dir);
    CHECK(file_size(missing) == 0 && access(missing, F_OK) != 0);
    /* over a folder: the temporary file is written, the rename fails, the file must go */
    snprintf(target, sizeof target, "%s/target.glb", dir);
    mkdir(target, 0755);
    CHECK(tl_gltf_save(doc, target, &def, &err) == TL_ERROR_IO);
    CHECK(count_entries(dir, "target.glb") == 1); /* the folder only, no target.glb.XXXXXX */
    snprintf(target, sizeof target, "%s/target.gltf", dir);
    mkdir(target, 0755);
    CHECK(tl_gltf_save(doc, target, &def, &err) == TL_ERROR_IO);
    CHECK(count_entries(dir, "target.gltf") == 1);
done:
    tl_gltf_destroy(doc);
}

static void cli_copy_refuses_input(void) {
    size_t size = 0;
    unsigned char* bytes = tl_test_read_file(fixture("skin.glb"), &size);
    tl_gltf* doc = NULL;
    tl_error err = {0};
    ENSURE(bytes && size > 0);
    const char* path = tl_test_scratch("copy_self.glb");
    CHECK(write_bytes(path, bytes, size));
    CHECK(tl_test_cli(NULL, "copy '%s' -o '%s' 2>/dev/null", path, path) != 0);
    CHECK(file_is(path, bytes, size));
    CHECK(tl_test_cli(NULL, "copy '%s' -o '%s' --force", path, path) == 0);
    CHECK(tl_gltf_load(path, &doc, &err) == TL_OK);
    check_skin_doc(doc);
done:
    free(bytes);
    tl_gltf_destroy(doc);
}

/* ---- 4. robustness ------------------------------------------------------------------------ */

/* A failed load: not OK, no document, a message that starts with the file's label. */
static bool clean_failure(tl_result r, const tl_gltf* doc, const tl_error* err, const char* label,
                          size_t cut) {
    if (r != TL_OK && !doc && err->result == r && !strncmp(err->message, label, strlen(label)) &&
        strlen(err->message) > strlen(label) + 4)
        return true;
    tl_test_failf(__FILE__, __LINE__, "%s cut at %zu: %s, message \"%s\"", label, cut,
                  tl_result_string(r), err->message);
    return false;
}

static bool load_fails(const uint8_t* bytes, size_t size, const char* label) {
    tl_gltf* doc = NULL;
    tl_error err = {0};
    tl_result r = tl_gltf_load_memory(bytes, size, label, NULL, &doc, &err);
    bool ok = clean_failure(r, doc, &err, label, size);
    tl_gltf_destroy(doc);
    return ok;
}

/* Every prefix 0..size-1 fails. */
static bool every_prefix_fails(const uint8_t* bytes, size_t size, const char* label) {
    for (size_t cut = 0; cut < size; ++cut)
        if (!load_fails(bytes, cut, label)) return false;
    return true;
}

static uint32_t get_u32(const uint8_t* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void put_u32(uint8_t* p, uint32_t v) {
    memcpy(p, &v, 4);
}

/* GLB cut at `cut` with the header and the cut chunk's length patched to match, so parsing
 * gets past the container into the JSON or the buffers. Every cut before the end of
 * buffer 0's bytes must fail; a cut inside the BIN chunk's padding is a valid file. */
static bool consistent_cut_fails(uint8_t* work, size_t size, size_t cut, const char* label) {
    size_t json_len = get_u32(work + 12), bin_at = 20 + json_len;
    uint8_t saved[28];
    memcpy(saved, work, 20);
    if (bin_at + 8 <= size) memcpy(saved + 20, work + bin_at, 8);
    if (cut >= 12) put_u32(work + 8, (uint32_t)cut);
    if (cut >= 20 && cut < bin_at) put_u32(work + 12, (uint32_t)(cut - 20));
    bool in_bin = cut >= bin_at + 8 && bin_at + 8 <= size;
    if (in_bin) put_u32(work + bin_at, (uint32_t)(cut - bin_at - 8));
    tl_gltf* doc = NULL;
    tl_error err = {0};
    tl_result r = tl_gltf_load_memory(work, cut, label, NULL, &doc, &err);
    bool ok;
    if (r == TL_OK && in_bin) {
        /* only padding was cut: buffer 0 must still be whole */
        ok = doc->buffer_count > 0 && cut - bin_at - 8 >= doc->buffers[0].size;
        if (!ok) tl_test_failf(__FILE__, __LINE__, "%s cut at %zu loaded", label, cut);
    } else {
        ok = clean_failure(r, doc, &err, label, cut);
    }
    tl_gltf_destroy(doc);
    memcpy(work, saved, 20);
    if (bin_at + 8 <= size) memcpy(work + bin_at, saved + 20, 8);
    return ok;
}

/* The two smallest shared files: every raw prefix (these stop at the GLB header), then cuts
 * with consistent lengths: every one in the first 2048 bytes and every 1999th after. */
static void truncation_shared(void) {
    for (int rank = 0; rank < 2; ++rank) {
        const char* path = smallest_shared(rank);
        ENSURE(path);
        size_t size = 0;
        uint8_t* bytes = tl_test_read_file(path, &size);
        ENSURE(bytes && size > 20 && get_u32(bytes) == 0x46546C67);
        bool ok = every_prefix_fails(bytes, size, base_name(path));
        for (size_t cut = 0; ok && cut < size; cut += cut < 2048 ? 1 : 1999)
            ok = consistent_cut_fails(bytes, size, cut, base_name(path));
        free(bytes);
        if (!ok) return;
    }
}

static const char* const good_fixtures[] = {"components.gltf", "stride.gltf", "sparse.gltf",
                                            "matrix.gltf",     "skin.gltf",   "skin.glb"};

static void truncation_fixtures(void) {
    for (size_t i = 0; i < sizeof good_fixtures / sizeof *good_fixtures; ++i) {
        size_t size = 0;
        uint8_t* bytes = tl_test_read_file(fixture(good_fixtures[i]), &size);
        ENSURE(bytes && size > 0);
        tl_gltf* doc = NULL;
        tl_error err = {0};
        tl_result whole = tl_gltf_load_memory(bytes, size, good_fixtures[i], NULL, &doc, &err);
        tl_gltf_destroy(doc);
        bool ok = whole == TL_OK && every_prefix_fails(bytes, size, good_fixtures[i]);
        if (ok && get_u32(bytes) == 0x46546C67)
            for (size_t cut = 0; ok && cut < size; ++cut)
                ok = consistent_cut_fails(bytes, size, cut, good_fixtures[i]);
        free(bytes);
        ENSURE_MSG(ok, "%s (whole file: %s)", good_fixtures[i], tl_result_string(whole));
    }
}

/* tests/data/gltf/broken: each file, the result it must give and what the message must name.
 * `read` >= 0: the file loads, and reading that accessor fails instead. */
typedef struct broken_case {
    const char* file;
    tl_result result;
    const char* names;
    int read;
} broken_case;

static const broken_case broken_cases[] = {
    {"accessor_offset.gltf", TL_ERROR_INVALID, "/accessors/0/byteOffset", -1},
    {"accessor_count.gltf", TL_ERROR_INVALID, "/accessors/0/count", -1},
    {"accessor_huge_count.gltf", TL_ERROR_INVALID, "/accessors/0/count", -1},
    {"accessor_limit_count.gltf", TL_ERROR_LIMIT, "/accessors/0/count", -1},
    {"accessor_view_index.gltf", TL_ERROR_INVALID, "/accessors/0/bufferView", -1},
    {"accessor_component.gltf", TL_ERROR_INVALID, "/accessors/0/componentType", -1},
    {"accessor_type.gltf", TL_ERROR_INVALID, "/accessors/0/type", -1},
    {"accessors_object.gltf", TL_ERROR_INVALID, "/accessors: not an array", -1},
    {"view_offset.gltf", TL_ERROR_INVALID, "/bufferViews/0/byteOffset", -1},
    {"view_length.gltf", TL_ERROR_INVALID, "/bufferViews/0/byteLength", -1},
    {"view_stride.gltf", TL_ERROR_INVALID, "/bufferViews/0/byteStride", -1},
    {"view_buffer.gltf", TL_ERROR_INVALID, "/bufferViews/0/buffer", -1},
    {"view_no_buffers.gltf", TL_ERROR_INVALID, "/bufferViews/0/buffer", -1},
    {"buffer_huge.gltf", TL_ERROR_LIMIT, "/buffers/0/byteLength", -1},
    {"buffer_short_uri.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"base64_char.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"base64_padding.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"base64_not.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"uri_external.gltf", TL_ERROR_IO, "/buffers/0/uri", -1},
    {"uri_parent.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"uri_absolute.gltf", TL_ERROR_INVALID, "/buffers/0/uri", -1},
    {"asset_version.gltf", TL_ERROR_UNSUPPORTED, "/asset/version", -1},
    {"asset_missing.gltf", TL_ERROR_INVALID, "/asset/version", -1},
    {"required_extension.gltf", TL_ERROR_UNSUPPORTED, "/extensionsRequired/0", -1},
    {"sparse_index_view.gltf", TL_ERROR_INVALID, "/accessors/0/sparse/indices/bufferView", -1},
    {"sparse_values_fit.gltf", TL_ERROR_INVALID, "/accessors/0/sparse/values", -1},
    {"sparse_count.gltf", TL_ERROR_INVALID, "/accessors/0/sparse/count", -1},
    {"sparse_index_value.gltf", TL_ERROR_INVALID, "/accessors/0/sparse/indices", 0},
    {"node_cycle.gltf", TL_ERROR_INVALID, "/nodes/0: node hierarchy has a cycle", -1},
    {"node_self.gltf", TL_ERROR_INVALID, "/nodes/0/children/0", -1},
    {"node_two_parents.gltf", TL_ERROR_INVALID, "/nodes/1/children/0", -1},
    {"node_child_index.gltf", TL_ERROR_INVALID, "/nodes/1/children/0", -1},
    {"node_mesh_index.gltf", TL_ERROR_INVALID, "/nodes/0/mesh", -1},
    {"node_negative.gltf", TL_ERROR_INVALID, "/nodes/0/camera", -1},
    {"node_translation.gltf", TL_ERROR_INVALID, "/nodes/0/translation/1", -1},
    {"node_matrix.gltf", TL_ERROR_INVALID, "/nodes/0/matrix", -1},
    {"node_deep.gltf", TL_ERROR_LIMIT, "/nodes/", -1},
    {"scene_index.gltf", TL_ERROR_INVALID, "/scene", -1},
    {"scene_node.gltf", TL_ERROR_INVALID, "/scenes/0/nodes/0", -1},
    {"mesh_attribute.gltf", TL_ERROR_INVALID, "/meshes/0/primitives/0/attributes/POSITION", -1},
    {"mesh_position.gltf", TL_ERROR_INVALID, "/meshes/0/primitives/0/attributes/POSITION", -1},
    {"mesh_joints.gltf", TL_ERROR_INVALID, "/meshes/0/primitives/0/attributes", -1},
    {"skin_joint.gltf", TL_ERROR_INVALID, "/skins/0/joints/1", -1},
    {"skin_ibm.gltf", TL_ERROR_INVALID, "/skins/0/inverseBindMatrices", -1},
    {"anim_sampler.gltf", TL_ERROR_INVALID, "/animations/0/channels/0/sampler", -1},
    {"anim_input.gltf", TL_ERROR_INVALID, "/animations/0/samplers/0/input", -1},
    {"not_object.gltf", TL_ERROR_FORMAT, "not an object", -1},
    {"syntax.gltf", TL_ERROR_FORMAT, "JSON line 2", -1},
    {"duplicate_key.gltf", TL_ERROR_FORMAT, "duplicate", -1},
    {"empty.gltf", TL_ERROR_FORMAT, "byte 0", -1},
    {"ibm_nan.glb", TL_ERROR_INVALID, "/accessors/0: element 0 is not finite", 0},
    {"glb_version.glb", TL_ERROR_UNSUPPORTED, "byte 4", -1},
    {"glb_length_long.glb", TL_ERROR_FORMAT, "byte 8", -1},
    {"glb_length_short.glb", TL_ERROR_FORMAT, "chunk length 64 runs past the end", -1},
    {"glb_stray.glb", TL_ERROR_FORMAT, "4 stray bytes", -1},
    {"glb_json_length.glb", TL_ERROR_FORMAT, "byte 12", -1},
    {"glb_json_type.glb", TL_ERROR_FORMAT, "byte 16", -1},
    {"glb_bin_length.glb", TL_ERROR_FORMAT, "chunk length 68", -1},
    {"glb_bin_short.glb", TL_ERROR_INVALID, "/buffers/0/byteLength", -1},
    {"glb_header.glb", TL_ERROR_FORMAT, "byte 16", -1},
    {"glb_json_number.glb", TL_ERROR_FORMAT, "JSON line 1", -1},
    {"json_nul.gltf", TL_ERROR_FORMAT, "byte 36: a NUL byte", -1},
    {"glb_json_nul.glb", TL_ERROR_FORMAT, "byte 52: a NUL byte", -1},
};

static void broken_files(void) {
    for (size_t i = 0; i < sizeof broken_cases / sizeof *broken_cases; ++i) {
        const broken_case* c = &broken_cases[i];
        char path[4096];
        snprintf(path, sizeof path, "broken/%s", c->file);
        const char* full = fixture(path);
        tl_gltf* doc = NULL;
        tl_error err = {0};
        tl_result r = tl_gltf_load(full, &doc, &err);
        if (c->read >= 0) {
            ENSURE_MSG(r == TL_OK, "%s: %s", c->file, err.message);
            size_t n = tl_gltf_accessor_value_count(doc, (uint32_t)c->read);
            float* values = malloc(n * sizeof *values);
            r = tl_gltf_accessor_read_float(doc, (uint32_t)c->read, values, n, &err);
            free(values);
            tl_gltf_destroy(doc);
            doc = NULL;
        }
        ENSURE_MSG(r == c->result && !doc && err.result == r && strstr(err.message, c->names) &&
                       strstr(err.message, c->file),
                   "%s: want %s naming \"%s\", got %s: \"%s\"", c->file,
                   tl_result_string(c->result), c->names, tl_result_string(r), err.message);
    }
}

/* Every file in broken/ has a row above, so none is there untested. */
static void broken_files_all_listed(void) {
    DIR* d = opendir(fixture("broken"));
    ENSURE(d);
    struct dirent* e;
    int files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        ++files;
        bool listed = false;
        for (size_t i = 0; i < sizeof broken_cases / sizeof *broken_cases; ++i)
            listed = listed || !strcmp(broken_cases[i].file, e->d_name);
        if (!listed) {
            closedir(d);
            ENSURE_MSG(false, "broken/%s has no expected result", e->d_name);
        }
    }
    closedir(d);
    ENSURE(files == (int)(sizeof broken_cases / sizeof *broken_cases));
}

/* The hand-made fixtures are valid glTF by the Khronos validator (so the values above are
 * the values of real, valid files). */
static void fixtures_are_valid(void) {
    const char* names[] = {"components.gltf", "stride.gltf", "sparse.gltf",  "matrix.gltf",
                           "skin.gltf",       "skin.glb",    "external.gltf"};
    enum { N = sizeof names / sizeof *names };
    char paths[N][4096];
    const char* list[N];
    json_t* reports[N];
    for (size_t i = 0; i < N; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s", fixture(names[i]));
        list[i] = paths[i];
    }
    validate_batch(list, N, reports);
    for (size_t i = 0; i < N && !tl_test_failed; ++i) {
        json_int_t errors = json_integer_value(json_object_get(reports[i], "errors"));
        json_int_t warnings = json_integer_value(json_object_get(reports[i], "warnings"));
        if (!reports[i] || errors || warnings)
            tl_test_failf(__FILE__, __LINE__, "%s: %s, %lld errors, %lld warnings", names[i],
                          reports[i] ? "validated" : "validator failed", (long long)errors,
                          (long long)warnings);
    }
    for (size_t i = 0; i < N; ++i)
        json_decref(reports[i]);
}

/* A clone writes the same bytes as its original, and an edit of the clone leaves the original
 * as it was. */
static void clone_is_independent(void) {
    const char** paths;
    size_t n = tl_test_shared_files(&paths);
    ENSURE(n >= 10);
    for (size_t i = 0; i < n && !tl_test_failed; ++i) {
        tl_error err = {0};
        tl_gltf *doc = NULL, *copy = NULL;
        uint8_t *a = NULL, *b = NULL, *c = NULL;
        size_t na = 0, nb = 0, nc = 0;
        tl_gltf_save_def def = tl_default_gltf_save_def();
        tl_result r = tl_gltf_load(paths[i], &doc, &err);
        if (r == TL_OK) r = tl_gltf_clone(doc, &copy, &err);
        if (r == TL_OK) r = tl_gltf_save_glb_memory(doc, &def, &a, &na, &err);
        if (r == TL_OK) r = tl_gltf_save_glb_memory(copy, &def, &b, &nb, &err);
        bool same = r == TL_OK && na == nb && !memcmp(a, b, na) &&
                    copy->node_count == doc->node_count &&
                    copy->buffer_count == doc->buffer_count &&
                    (doc->buffer_count == 0 || copy->buffers[0].data != doc->buffers[0].data);
        /* an edit of the copy */
        if (r == TL_OK) json_object_set_new(tl_gltf_json(copy), "extras", json_string("clone"));
        if (r == TL_OK) r = tl_gltf_save_glb_memory(doc, &def, &c, &nc, &err);
        bool kept = r == TL_OK && nc == na && !memcmp(a, c, na);
        free(a);
        free(b);
        free(c);
        tl_gltf_destroy(doc);
        tl_gltf_destroy(copy);
        ENSURE_MSG(r == TL_OK, "%s: %s", paths[i], err.message);
        ENSURE_MSG(same, "%s: the clone differs", paths[i]);
        ENSURE_MSG(kept, "%s: editing the clone changed the original", paths[i]);
    }
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"roundtrip_shared_glb", roundtrip_shared_glb},
        {"roundtrip_shared_gltf_text", roundtrip_shared_gltf_text},
        {"clone_is_independent", clone_is_independent},
        {"accessor_component_types", accessor_component_types},
        {"accessor_normalized", accessor_normalized},
        {"accessor_stride", accessor_stride},
        {"accessor_sparse", accessor_sparse},
        {"accessor_read_matches_plain", accessor_read_matches_plain},
        {"accessor_matrix_padding", accessor_matrix_padding},
        {"accessor_joint_sets", accessor_joint_sets},
        {"accessor_external_bin", accessor_external_bin},
        {"accessor_data_uri", accessor_data_uri},
        {"fixtures_are_valid", fixtures_are_valid},
        {"writer_accessor_add", writer_accessor_add},
        {"writer_compact", writer_compact},
        {"writer_compact_data_uri_and_overlap", writer_compact_data_uri_and_overlap},
        {"writer_refuses_existing", writer_refuses_existing},
        {"writer_failure_leaves_nothing", writer_failure_leaves_nothing},
        {"cli_copy_refuses_input", cli_copy_refuses_input},
        {"truncation_shared", truncation_shared},
        {"truncation_fixtures", truncation_fixtures},
        {"broken_files", broken_files},
        {"broken_files_all_listed", broken_files_all_listed},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
