/* tailor/gltf.h — the lossless glTF 2.0 document.
 *
 * A tl_gltf is the file's JSON tree plus its binary buffers, and a typed, validated
 * index of the parts tailor reads (buffer views, accessors, nodes, meshes, skins, animations,
 * scenes). Writing serialises the same JSON tree, so everything tailor did not change —
 * unknown extensions (VRM), extras, materials, textures, cameras, key order — comes out as it
 * went in. Edits add JSON and append binary data; they never overwrite bytes another
 * accessor may share.
 *
 * Ownership: tl_gltf_load/tl_gltf_create allocate the document; tl_gltf_destroy frees it with
 * everything it points to. Strings and arrays in the index point into the document and stay
 * valid until the next tl_gltf_reindex or tl_gltf_destroy. Buffer bytes stay valid until the
 * next append to that buffer.
 *
 * Example:
 *     tl_gltf* doc; tl_error err;
 *     if (tl_gltf_load("Fox.glb", &doc, &err) != TL_OK) { puts(err.message); return 1; }
 *     float* ibm = malloc(sizeof(float) * 16 * doc->accessors[a].count);
 *     tl_gltf_accessor_read_float(doc, a, ibm, 16 * doc->accessors[a].count, &err);
 *     tl_gltf_save_def save = tl_default_gltf_save_def();
 *     tl_gltf_save(doc, "out.glb", &save, &err);
 *     tl_gltf_destroy(doc);
 */
#ifndef TAILOR_GLTF_H
#define TAILOR_GLTF_H

#include <tailor/base.h>
#include <tailor/output.h>

/* The largest magnitude tailor computes with: a million km in millimetres. A float accessor
 * value past it is a problem (tl_gltf_check); the scene refuses positions, binds and keys past it.
 */
#define TL_GLTF_MAX_MAGNITUDE 1e12f

#ifdef __cplusplus
extern "C" {
#endif

/* Index of "nothing" for optional references (node.mesh, accessor.bufferView, …). */
#define TL_NONE (-1)

/* Limits applied to untrusted files; beyond them loading fails with TL_ERROR_LIMIT. */
#define TL_GLTF_MAX_FILE_BYTES ((uint64_t)2 << 30) /* 2 GiB per file, buffer or accessor */
#define TL_GLTF_MAX_OBJECTS 1000000u               /* entries in any one top-level array */
#define TL_GLTF_MAX_DEPTH 1024u                    /* node hierarchy depth */

typedef enum tl_gltf_component {
    TL_GLTF_BYTE = 5120,
    TL_GLTF_UNSIGNED_BYTE = 5121,
    TL_GLTF_SHORT = 5122,
    TL_GLTF_UNSIGNED_SHORT = 5123,
    TL_GLTF_UNSIGNED_INT = 5125,
    TL_GLTF_FLOAT = 5126,
} tl_gltf_component;

typedef enum tl_gltf_type {
    TL_GLTF_SCALAR,
    TL_GLTF_VEC2,
    TL_GLTF_VEC3,
    TL_GLTF_VEC4,
    TL_GLTF_MAT2,
    TL_GLTF_MAT3,
    TL_GLTF_MAT4,
} tl_gltf_type;

typedef enum tl_gltf_path {
    TL_GLTF_PATH_TRANSLATION,
    TL_GLTF_PATH_ROTATION,
    TL_GLTF_PATH_SCALE,
    TL_GLTF_PATH_WEIGHTS,
    TL_GLTF_PATH_OTHER, /* e.g. KHR_animation_pointer: kept in the file, not evaluated */
} tl_gltf_path;

typedef enum tl_gltf_interpolation {
    TL_GLTF_LINEAR,
    TL_GLTF_STEP,
    TL_GLTF_CUBICSPLINE,
} tl_gltf_interpolation;

typedef struct tl_gltf_buffer {
    uint8_t* data;   /* the bytes (GLB BIN chunk, external file or data: URI); owned */
    size_t size;     /* bytes loaded; equals or exceeds the JSON byteLength */
    size_t capacity; /* bytes allocated */
    bool external;   /* true when the JSON names an external file (uri not data:) */
} tl_gltf_buffer;

typedef struct tl_gltf_buffer_view {
    uint32_t buffer;
    size_t byte_offset;
    size_t byte_length;
    size_t byte_stride; /* 0 when tightly packed */
} tl_gltf_buffer_view;

typedef struct tl_gltf_sparse {
    size_t count;
    uint32_t indices_view;
    size_t indices_offset;
    tl_gltf_component indices_component; /* unsigned byte, short or int */
    uint32_t values_view;
    size_t values_offset;
} tl_gltf_sparse;

typedef struct tl_gltf_accessor {
    int32_t buffer_view; /* TL_NONE: all zeros (then sparse values, if any) */
    size_t byte_offset;
    tl_gltf_component component_type;
    tl_gltf_type type;
    uint32_t components; /* 1, 2, 3, 4, 4 (MAT2), 9 (MAT3) or 16 (MAT4) */
    bool normalized;
    size_t count; /* elements */
    bool has_sparse;
    tl_gltf_sparse sparse;
    const char* name; /* NULL when absent */
} tl_gltf_accessor;

typedef struct tl_gltf_node {
    const char* name; /* NULL when absent */
    int32_t parent;   /* TL_NONE for scene roots and orphans */
    const uint32_t* children;
    uint32_t child_count;
    int32_t mesh, skin, camera; /* TL_NONE when absent */
    bool has_matrix;            /* the file gives "matrix" rather than TRS */
    float translation[3];       /* TRS as stored (decomposition not attempted for matrix) */
    float rotation[4];          /* x, y, z, w */
    float scale[3];
    float matrix[16]; /* local transform, column-major, from matrix or TRS */
} tl_gltf_node;

typedef struct tl_gltf_attribute {
    const char* name; /* "POSITION", "JOINTS_0", "_CUSTOM", … */
    uint32_t accessor;
} tl_gltf_attribute;

typedef struct tl_gltf_primitive {
    uint32_t mode;    /* 4 = triangles */
    int32_t indices;  /* accessor, or TL_NONE for non-indexed */
    int32_t material; /* TL_NONE when absent */
    int32_t position; /* accessor of POSITION, or TL_NONE */
    const tl_gltf_attribute* attributes;
    uint32_t attribute_count;
    uint32_t joint_set_count; /* JOINTS_0..JOINTS_{n-1}, each with a WEIGHTS_i */
    const int32_t* joints;    /* accessor per set */
    const int32_t* weights;   /* accessor per set */
    uint32_t target_count;    /* morph targets (kept, not evaluated) */
} tl_gltf_primitive;

typedef struct tl_gltf_mesh {
    const char* name;
    const tl_gltf_primitive* primitives;
    uint32_t primitive_count;
} tl_gltf_mesh;

typedef struct tl_gltf_skin {
    const char* name;
    const uint32_t* joints; /* node indices */
    uint32_t joint_count;
    int32_t inverse_bind_matrices; /* accessor (MAT4 float), or TL_NONE (identity) */
    int32_t skeleton;              /* node, or TL_NONE; not trusted to be a common root */
} tl_gltf_skin;

typedef struct tl_gltf_anim_sampler {
    uint32_t input;  /* accessor of key times, seconds */
    uint32_t output; /* accessor of values */
    tl_gltf_interpolation interpolation;
} tl_gltf_anim_sampler;

typedef struct tl_gltf_channel {
    uint32_t sampler;
    int32_t node; /* TL_NONE when the target has no node */
    tl_gltf_path path;
} tl_gltf_channel;

typedef struct tl_gltf_animation {
    const char* name;
    const tl_gltf_channel* channels;
    uint32_t channel_count;
    const tl_gltf_anim_sampler* samplers;
    uint32_t sampler_count;
} tl_gltf_animation;

typedef struct tl_gltf_scene {
    const char* name;
    const uint32_t* nodes;
    uint32_t node_count;
} tl_gltf_scene;

/* A loaded document. The index arrays are read-only views, rebuilt by tl_gltf_reindex. */
typedef struct tl_gltf {
    void* json; /* the whole document as a jansson tree (tailor/gltf_json.h: tl_gltf_json);
                   edit it freely, then call tl_gltf_reindex */
    tl_gltf_buffer* buffers;
    uint32_t buffer_count;
    const tl_gltf_buffer_view* views;
    uint32_t view_count;
    const tl_gltf_accessor* accessors;
    uint32_t accessor_count;
    const tl_gltf_node* nodes;
    uint32_t node_count;
    const tl_gltf_mesh* meshes;
    uint32_t mesh_count;
    const tl_gltf_skin* skins;
    uint32_t skin_count;
    const tl_gltf_animation* animations;
    uint32_t animation_count;
    const tl_gltf_scene* scenes;
    uint32_t scene_count;
    int32_t scene;  /* the default scene, or TL_NONE */
    char* path;     /* the file it was loaded from ("" for a new document); owned */
    bool glb;       /* loaded from a binary .glb/.vrm */
    void* internal; /* index storage; do not touch */
} tl_gltf;

/* Loads a .glb/.vrm (by magic) or a .gltf with external or data: buffers. On failure *out is
 * NULL and err says which file, JSON pointer or byte offset and what is wrong. */
tl_result tl_gltf_load(const char* path, tl_gltf** out, tl_error* err);

/* The same from memory; `name` labels messages and `base_dir` resolves external URIs
 * (NULL: external URIs are an error). The bytes are copied. */
tl_result tl_gltf_load_memory(const void* bytes, size_t size, const char* name,
                              const char* base_dir, tl_gltf** out, tl_error* err);

/* A new empty document: {"asset": {"version": "2.0", "generator": "tailor"}}. */
tl_result tl_gltf_create(tl_gltf** out, tl_error* err);

/* An independent copy: the JSON tree, every buffer's bytes and the index (a rig can be
 * applied to the copy and the original kept). TL_ERROR_MEMORY only. */
tl_result tl_gltf_clone(const tl_gltf* doc, tl_gltf** out, tl_error* err);

/* Frees the document. NULL is fine. */
void tl_gltf_destroy(tl_gltf* doc);

/* Re-reads the JSON tree into the index after edits, with the same validation as loading. */
tl_result tl_gltf_reindex(tl_gltf* doc, tl_error* err);

/* Number of floats (or uints) an accessor reads to: count × components, matrix padding
 * removed. */
size_t tl_gltf_accessor_value_count(const tl_gltf* doc, uint32_t accessor);

/* Reads an accessor as floats: any component type, `normalized` applied, byteStride and
 * matrix column padding honoured, sparse substitution applied. `out_count` must be at least
 * tl_gltf_accessor_value_count. Non-finite values are an error (TL_ERROR_INVALID). */
tl_result tl_gltf_accessor_read_float(const tl_gltf* doc, uint32_t accessor, float* out,
                                      size_t out_count, tl_error* err);

/* Reads an integer accessor (indices, JOINTS_n) as uint32. Float or normalized accessors and
 * negative values (signed components) are errors (TL_ERROR_INVALID). */
tl_result tl_gltf_accessor_read_uint(const tl_gltf* doc, uint32_t accessor, uint32_t* out,
                                     size_t out_count, tl_error* err);

/* How to add an accessor with tl_gltf_accessor_add. */
typedef struct tl_gltf_accessor_def {
    const void* data; /* count × components values of component_type, packed */
    size_t count;     /* elements */
    tl_gltf_component component_type;
    tl_gltf_type type;
    bool normalized;
    int target;       /* bufferView target: 34962 vertex, 34963 index, 0 none */
    bool min_max;     /* write "min"/"max" (required for POSITION) */
    uint32_t buffer;  /* which buffer to append to (created if none exists) */
    const char* name; /* optional accessor name */
} tl_gltf_accessor_def;

tl_gltf_accessor_def tl_default_gltf_accessor_def(void);

/* Appends the data to a buffer (4-byte aligned, or 16 for matrices' safety), adds a
 * bufferView and an accessor to the JSON, and returns the new accessor index. The index is
 * stale until tl_gltf_reindex. */
tl_result tl_gltf_accessor_add(tl_gltf* doc, const tl_gltf_accessor_def* def, uint32_t* out_index,
                               tl_error* err);

/* Appends raw bytes (e.g. an image) as a new bufferView; returns its index. */
tl_result tl_gltf_view_add(tl_gltf* doc, uint32_t buffer, const void* data, size_t size,
                           size_t byte_stride, int target, uint32_t* out_index, tl_error* err);

typedef struct tl_gltf_save_def {
    bool overwrite; /* replace an existing output file (false: TL_ERROR_EXISTS); typical false */
    bool replace_input; /* allow replacing a file the document was read from (its .glb/.gltf or
                           a .bin), compared by device and inode; typical false */
    bool compact;       /* drop buffer bytes no bufferView references; typical false */
    bool force_glb;     /* write GLB whatever the extension; otherwise .gltf writes JSON + .bin */
} tl_gltf_save_def;

tl_gltf_save_def tl_default_gltf_save_def(void);

/* Writes the document to `path` through tailor/output.h: every file to a temporary name in
 * its folder, all renamed into place only once all are complete, so a failure never leaves
 * a partial file. JSON when the name ends in .gltf (and not force_glb), every buffer that
 * is not a data: URI written beside it as NAME.bin (buffer 0) or NAME_N.bin, its uri set to
 * that name (so a copy never writes into the input's .bin). Otherwise a self-contained GLB:
 * buffer 0 in the BIN chunk (a file uri it had is dropped), other buffers without a data:
 * URI become data: URIs. Refuses a target that exists unless def->overwrite
 * (TL_ERROR_EXISTS), one that is a file the document was read from unless
 * def->replace_input (TL_ERROR_EXISTS), and one that is not a regular file (TL_ERROR_IO). */
tl_result tl_gltf_save(const tl_gltf* doc, const char* path, const tl_gltf_save_def* def,
                       tl_error* err);

/* The same as parts of a larger output (e.g. a .glb and its report, renamed together): adds
 * the file(s) to `out` and protects the document's own files; tl_output_commit writes. */
tl_result tl_gltf_save_add(const tl_gltf* doc, const char* path, const tl_gltf_save_def* def,
                           tl_output* out, tl_error* err);

/* Serialises to GLB in memory (malloc'd; caller frees *out_bytes). */
tl_result tl_gltf_save_glb_memory(const tl_gltf* doc, const tl_gltf_save_def* def,
                                  uint8_t** out_bytes, size_t* out_size, tl_error* err);

/* Parses a data: URI's payload (base64) — exposed for tests. Returns bytes written or
 * (size_t)-1 when the URI is not a base64 data URI or does not fit. */
size_t tl_gltf_data_uri_decode(const char* uri, uint8_t* out, size_t out_capacity);

/* Small helpers */
uint32_t tl_gltf_component_size(tl_gltf_component component); /* bytes; 0 if unknown */
uint32_t tl_gltf_type_components(tl_gltf_type type);          /* 1..16 */
const char* tl_gltf_type_string(tl_gltf_type type);           /* "VEC3", … */
/* Attribute accessor of a primitive by name, or TL_NONE. */
int32_t tl_gltf_primitive_attribute(const tl_gltf_primitive* prim, const char* name);
/* Vertex count of a primitive (its POSITION count), 0 if none. */
size_t tl_gltf_primitive_vertex_count(const tl_gltf* doc, const tl_gltf_primitive* prim);

/* ---- Structural checks (tailor inspect's "problems", docs/inspect.md) ----
 * Cheap tests on a loaded document, in the Khronos validator's codes where it has them:
 * SKIN_JOINTS_SHARED, SKIN_NO_COMMON_ROOT, SKIN_SKELETON_INVALID, SKIN_DUPLICATE_JOINT_NAME,
 * NODE_SKINNED_MESH_NON_ROOT, NODE_SKINNED_MESH_LOCAL_TRANSFORMS,
 * NODE_SKIN_WITH_NON_SKINNED_MESH, NODE_SKINNED_MESH_WITHOUT_SKIN, ACCESSOR_UNREADABLE,
 * ACCESSOR_JOINTS_INDEX_OOB, ACCESSOR_WEIGHTS_NON_NORMALIZED (a vertex's weights sum further
 * than 1e-3 from 1). */

typedef struct tl_gltf_problem {
    const char* code;  /* "SKIN_NO_COMMON_ROOT", …; static */
    char message[512]; /* "skin 0: joints node 3 'Hips' and node 40 are in different trees" */
} tl_gltf_problem;

typedef struct tl_gltf_checks {
    tl_gltf_problem* problems; /* in the order found: skins, then mesh nodes, then primitives */
    uint32_t problem_count;
    uint32_t problem_capacity;
    int32_t* joint_skin; /* per node: the first skin listing it as a joint, or TL_NONE */
    int32_t* mesh_skin;  /* per mesh: the skin of the first node instancing it with one, or
                            TL_NONE */
} tl_gltf_checks;

/* Runs every check. TL_ERROR_MEMORY only: what the checks find is in the result. */
tl_result tl_gltf_check(const tl_gltf* doc, tl_gltf_checks** out, tl_error* err);
void tl_gltf_checks_destroy(tl_gltf_checks* checks);

/* Repairs SKIN_SKELETON_INVALID: a skin.skeleton that is not an ancestor (or self) of every
 * joint becomes the deepest node that is, or is removed when the joints are in different
 * trees (skeleton is optional). Writes the number of skins changed to *fixed and reindexes
 * when there are any. TL_ERROR_MEMORY only. */
tl_result tl_gltf_fix_skeletons(tl_gltf* doc, uint32_t* fixed, tl_error* err);

/* The validator's test: a stored matrix that is not the identity, or stored TRS that are not
 * the defaults. */
bool tl_gltf_node_has_local_transform(const tl_gltf_node* node);

#ifdef __cplusplus
}
#endif

#endif
