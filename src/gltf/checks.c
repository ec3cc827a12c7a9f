/* The structural checks `tailor inspect` reports (docs/inspect.md "problems"): cheap tests on
 * the index a loaded document already passed, in the validator's codes where it has them. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vertex whose weights sum further than this from 1 is reported. Looser than the validator's
 * float-rounding bound on purpose: the report is for sums an artist would see as shrinking. */
#define WEIGHT_SUM_TOLERANCE 1e-3

/* What the checks share while they run. */
typedef struct inspect {
    const tl_gltf* doc;
    tl_gltf_checks* out;
    bool failed; /* out of memory */
} inspect;

static void problem(inspect* in, const char* code, const char* format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void problem(inspect* in, const char* code, const char* format, ...) {
    tl_gltf_checks* out = in->out;
    if (out->problem_count == out->problem_capacity) {
        uint32_t cap = out->problem_capacity ? 2 * out->problem_capacity : 16;
        tl_gltf_problem* grown = realloc(out->problems, cap * sizeof *grown);
        if (!grown) {
            in->failed = true;
            return;
        }
        out->problems = grown;
        out->problem_capacity = cap;
    }
    tl_gltf_problem* p = &out->problems[out->problem_count++];
    p->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(p->message, sizeof p->message, format, args);
    va_end(args);
}

/* "node 12 'Head'" for messages; `buf` must hold 160 bytes. */
static const char* node_label(const tl_gltf* doc, uint32_t node, char* buf) {
    const char* name = doc->nodes[node].name;
    if (name)
        snprintf(buf, 160, "node %u '%.120s'", node, name);
    else
        snprintf(buf, 160, "node %u", node);
    return buf;
}

static bool is_ancestor_or_self(const tl_gltf* doc, uint32_t ancestor, uint32_t node) {
    for (int32_t k = (int32_t)node; k != TL_NONE; k = doc->nodes[k].parent)
        if (k == (int32_t)ancestor) return true;
    return false;
}

static uint32_t top_ancestor(const tl_gltf* doc, uint32_t node) {
    while (doc->nodes[node].parent != TL_NONE)
        node = (uint32_t)doc->nodes[node].parent;
    return node;
}

/* The validator's test: a stored matrix must be identity, stored TRS must be the defaults. */
bool tl_gltf_node_has_local_transform(const tl_gltf_node* n) {
    if (n->has_matrix) {
        for (int i = 0; i < 16; ++i)
            if (n->matrix[i] != (i % 5 == 0 ? 1.0f : 0.0f)) return true;
        return false;
    }
    return n->translation[0] != 0 || n->translation[1] != 0 || n->translation[2] != 0 ||
           n->rotation[0] != 0 || n->rotation[1] != 0 || n->rotation[2] != 0 ||
           n->rotation[3] != 1 || n->scale[0] != 1 || n->scale[1] != 1 || n->scale[2] != 1;
}

static int compare_names(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* Joint names a tool would match bones by must be unique within a skin. */
static void check_duplicate_names(inspect* in, uint32_t s) {
    const tl_gltf_skin* skin = &in->doc->skins[s];
    const char** names = malloc(sizeof *names * (skin->joint_count + 1));
    if (!names) return;
    uint32_t n = 0;
    for (uint32_t j = 0; j < skin->joint_count; ++j)
        if (in->doc->nodes[skin->joints[j]].name) names[n++] = in->doc->nodes[skin->joints[j]].name;
    qsort(names, n, sizeof *names, compare_names);
    for (uint32_t j = 1; j < n; ++j)
        if (!strcmp(names[j], names[j - 1]) && (j == 1 || strcmp(names[j], names[j - 2])))
            problem(in, "SKIN_DUPLICATE_JOINT_NAME",
                    "skin %u: more than one joint is named '%.200s'", s, names[j]);
    free(names);
}

static void check_skin_roots(inspect* in, uint32_t s) {
    const tl_gltf* doc = in->doc;
    const tl_gltf_skin* skin = &doc->skins[s];
    char a[160], b[160];
    if (skin->joint_count == 0) return;
    uint32_t root = top_ancestor(doc, skin->joints[0]);
    for (uint32_t j = 1; j < skin->joint_count; ++j) {
        if (top_ancestor(doc, skin->joints[j]) != root) {
            problem(in, "SKIN_NO_COMMON_ROOT", "skin %u: joints %s and %s are in different trees",
                    s, node_label(doc, skin->joints[0], a), node_label(doc, skin->joints[j], b));
            break;
        }
    }
    if (skin->skeleton == TL_NONE) return;
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        if (!is_ancestor_or_self(doc, (uint32_t)skin->skeleton, skin->joints[j])) {
            problem(in, "SKIN_SKELETON_INVALID",
                    "skin %u: skeleton %s is not a common root: joint %s is outside it", s,
                    node_label(doc, (uint32_t)skin->skeleton, a),
                    node_label(doc, skin->joints[j], b));
            return;
        }
    }
}

/* Joints two skins share, then each skin's roots and joint names; the joint tables. */
static void check_skins(inspect* in) {
    const tl_gltf* doc = in->doc;
    tl_gltf_checks* out = in->out;
    uint32_t* shared = calloc(doc->skin_count + 1, sizeof *shared);
    if (!shared) {
        in->failed = true;
        return;
    }
    for (uint32_t s = 0; s < doc->skin_count; ++s) {
        const tl_gltf_skin* skin = &doc->skins[s];
        memset(shared, 0, sizeof *shared * doc->skin_count);
        for (uint32_t j = 0; j < skin->joint_count; ++j) {
            uint32_t node = skin->joints[j];
            if (out->joint_skin[node] == TL_NONE)
                out->joint_skin[node] = (int32_t)s;
            else if (out->joint_skin[node] != (int32_t)s)
                ++shared[out->joint_skin[node]];
        }
        for (uint32_t t = 0; t < s; ++t)
            if (shared[t])
                problem(in, "SKIN_JOINTS_SHARED", "skins %u and %u share %u joints", t, s,
                        shared[t]);
        check_skin_roots(in, s);
        check_duplicate_names(in, s);
    }
    free(shared);
}

/* The skinning checks that need the data: weight sums, and joint indices inside the skin. */
static void check_skinning(inspect* in, uint32_t m, uint32_t p) {
    const tl_gltf* doc = in->doc;
    const tl_gltf_primitive* prim = &doc->meshes[m].primitives[p];
    int32_t skin = in->out->mesh_skin[m];
    size_t n = doc->accessors[prim->weights[0]].count;
    double* sum = calloc(n + 1, sizeof *sum); /* double: four weights near 3e38 stay finite */
    float* weights = malloc(sizeof *weights * 4 * (n + 1));
    uint32_t* joints = malloc(sizeof *joints * 4 * (n + 1));
    if (!sum || !weights || !joints) {
        in->failed = true;
        goto done;
    }
    size_t out_of_range = 0;
    uint32_t worst_joint = 0;
    tl_error err;
    for (uint32_t s = 0; s < prim->joint_set_count; ++s) {
        if (tl_gltf_accessor_read_float(doc, (uint32_t)prim->weights[s], weights, 4 * n, &err) ||
            tl_gltf_accessor_read_uint(doc, (uint32_t)prim->joints[s], joints, 4 * n, &err)) {
            problem(in, "ACCESSOR_UNREADABLE", "mesh %u primitive %u: %s", m, p, err.message);
            goto done;
        }
        for (size_t i = 0; i < 4 * n; ++i) {
            sum[i / 4] += weights[i];
            if (skin != TL_NONE && joints[i] >= doc->skins[skin].joint_count) {
                ++out_of_range;
                if (joints[i] > worst_joint) worst_joint = joints[i];
            }
        }
    }
    if (out_of_range)
        problem(in, "ACCESSOR_JOINTS_INDEX_OOB",
                "mesh %u primitive %u: %zu joint indices (up to %u) are past skin %d's %u joints",
                m, p, out_of_range, worst_joint, skin, doc->skins[skin].joint_count);
    size_t bad = 0;
    double worst = 1;
    for (size_t v = 0; v < n; ++v) {
        if (fabs(sum[v] - 1) > WEIGHT_SUM_TOLERANCE) {
            if (!bad || fabs(sum[v] - 1) > fabs(worst - 1)) worst = sum[v];
            ++bad;
        }
    }
    if (bad)
        problem(in, "ACCESSOR_WEIGHTS_NON_NORMALIZED",
                "mesh %u primitive %u: %zu of %zu vertices have weights that do not sum to 1 "
                "(worst %g)",
                m, p, bad, n, (double)worst);
done:
    free(sum);
    free(weights);
    free(joints);
}

/* Nodes that instance meshes: which skin binds each mesh, and the validator's node checks. */
static void check_mesh_nodes(inspect* in) {
    const tl_gltf* doc = in->doc;
    char label[160];
    for (uint32_t i = 0; i < doc->node_count; ++i) {
        const tl_gltf_node* node = &doc->nodes[i];
        if (node->skin != TL_NONE) {
            if (node->parent != TL_NONE)
                problem(in, "NODE_SKINNED_MESH_NON_ROOT",
                        "%s has skin %d but is not a root: its parents' transforms do not move it",
                        node_label(doc, i, label), node->skin);
            if (tl_gltf_node_has_local_transform(node))
                problem(in, "NODE_SKINNED_MESH_LOCAL_TRANSFORMS",
                        "%s has skin %d and a local transform, which skinning ignores",
                        node_label(doc, i, label), node->skin);
        }
        if (node->mesh == TL_NONE) continue;
        const tl_gltf_mesh* mesh = &doc->meshes[node->mesh];
        bool any_skinned = false, all_skinned = true;
        for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
            any_skinned |= mesh->primitives[p].joint_set_count > 0;
            all_skinned &= mesh->primitives[p].joint_set_count > 0;
        }
        if (node->skin != TL_NONE) {
            if (in->out->mesh_skin[node->mesh] == TL_NONE)
                in->out->mesh_skin[node->mesh] = node->skin;
            if (!all_skinned)
                problem(in, "NODE_SKIN_WITH_NON_SKINNED_MESH",
                        "%s has skin %d but mesh %d has a primitive without JOINTS_0/WEIGHTS_0",
                        node_label(doc, i, label), node->skin, node->mesh);
        } else if (any_skinned) {
            problem(in, "NODE_SKINNED_MESH_WITHOUT_SKIN",
                    "%s instances mesh %d, which has joint weights, without a skin",
                    node_label(doc, i, label), node->mesh);
        }
    }
}

/* Every float accessor read once: a NaN, an infinity (or a value past TL_GLTF_MAX_MAGNITUDE,
 * which tailor's scene refuses) is a problem, whichever accessor it sits in, so that `copy`
 * passing such data through is never silent. */
static void check_finite(inspect* in) {
    const tl_gltf* doc = in->doc;
    size_t cap = 0;
    float* values = NULL;
    for (uint32_t a = 0; a < doc->accessor_count && !in->failed; ++a) {
        if (doc->accessors[a].component_type != TL_GLTF_FLOAT) continue;
        size_t n = tl_gltf_accessor_value_count(doc, a);
        if (n > cap) {
            float* grown = realloc(values, sizeof *values * n);
            if (!grown) {
                in->failed = true;
                break;
            }
            values = grown, cap = n;
        }
        tl_error err;
        if (tl_gltf_accessor_read_float(doc, a, values, n, &err) != TL_OK) {
            problem(in, "ACCESSOR_NON_FINITE", "accessor %u: %s", a, err.message);
            continue;
        }
        for (size_t i = 0; i < n; ++i)
            if (!(fabsf(values[i]) <= TL_GLTF_MAX_MAGNITUDE)) {
                problem(in, "ACCESSOR_NON_FINITE",
                        "accessor %u: value %zu is %g, past the %g tailor computes with", a, i,
                        (double)values[i], (double)TL_GLTF_MAX_MAGNITUDE);
                break;
            }
    }
    free(values);
}

tl_result tl_gltf_check(const tl_gltf* doc, tl_gltf_checks** out, tl_error* err) {
    assert(doc && out);
    *out = NULL;
    tl_gltf_checks* c = calloc(1, sizeof *c);
    inspect in = {doc, c, c == NULL};
    if (c) {
        c->joint_skin = malloc(sizeof *c->joint_skin * (doc->node_count + 1));
        c->mesh_skin = malloc(sizeof *c->mesh_skin * (doc->mesh_count + 1));
        in.failed = !c->joint_skin || !c->mesh_skin;
    }
    if (!in.failed) {
        for (uint32_t i = 0; i < doc->node_count; ++i)
            c->joint_skin[i] = TL_NONE;
        for (uint32_t i = 0; i < doc->mesh_count; ++i)
            c->mesh_skin[i] = TL_NONE;
        check_skins(&in);
        check_mesh_nodes(&in);
        for (uint32_t m = 0; m < doc->mesh_count && !in.failed; ++m)
            for (uint32_t p = 0; p < doc->meshes[m].primitive_count && !in.failed; ++p)
                if (doc->meshes[m].primitives[p].joint_set_count > 0) check_skinning(&in, m, p);
        if (!in.failed) check_finite(&in);
    }
    if (in.failed) {
        tl_gltf_checks_destroy(c);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", tl_gltf_label(doc));
    }
    *out = c;
    return TL_OK;
}

void tl_gltf_checks_destroy(tl_gltf_checks* checks) {
    if (!checks) return;
    free(checks->problems);
    free(checks->joint_skin);
    free(checks->mesh_skin);
    free(checks);
}

tl_result tl_gltf_fix_skeletons(tl_gltf* doc, uint32_t* fixed, tl_error* err) {
    *fixed = 0;
    json_t* skins = json_object_get(doc->json, "skins");
    for (uint32_t s = 0; s < doc->skin_count; ++s) {
        const tl_gltf_skin* skin = &doc->skins[s];
        if (skin->skeleton == TL_NONE || skin->joint_count == 0) continue;
        bool valid = true;
        for (uint32_t j = 0; j < skin->joint_count && valid; ++j)
            valid = is_ancestor_or_self(doc, (uint32_t)skin->skeleton, skin->joints[j]);
        if (valid) continue;
        /* the deepest node above every joint; none when they are in different trees */
        int32_t root = (int32_t)skin->joints[0];
        for (uint32_t j = 1; j < skin->joint_count && root != TL_NONE; ++j)
            while (root != TL_NONE && !is_ancestor_or_self(doc, (uint32_t)root, skin->joints[j]))
                root = doc->nodes[root].parent;
        json_t* js = json_array_get(skins, s);
        int bad = root == TL_NONE ? json_object_del(js, "skeleton")
                                  : json_object_set_new(js, "skeleton", json_integer(root));
        if (bad) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        ++*fixed;
    }
    return *fixed ? tl_gltf_reindex(doc, err) : TL_OK;
}
