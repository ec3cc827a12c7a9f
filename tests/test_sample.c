/* Tests of the built-in samples (src/sample): every sample in every frame variant is a clean
 * glTF (the Khronos validator), and what the header promises about it holds when read back
 * from the file with the document API alone: inverse bind matrices invert the joints' bind
 * world matrices, the rest-world character stands on y = 0 at the asked height facing the
 * asked way, the tail is bound to the wrong joints, weights are quantised to sum 1, the clips
 * have the documented names, durations and motion, and the bytes are the same every time. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "base/mat4.h"

#include <tailor/sample.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading a sample back --------------------------------------------------------------- */

static void mat_point(double out[3], const double m[16], const float p[3]) {
    for (int r = 0; r < 3; ++r)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

static double mat_max_abs(const double m[16]) {
    double x = 0;
    for (int k = 0; k < 16; ++k)
        x = fmax(x, fabs(m[k]));
    return x;
}

/* World matrices of every node from the file's local matrices (double). */
static double (*world_matrices(const tl_gltf* doc))[16] {
    double(*world)[16] = calloc(doc->node_count, sizeof *world);
    bool* done = calloc(doc->node_count, 1);
    for (uint32_t pass = 0; pass < doc->node_count; ++pass)
        for (uint32_t i = 0; i < doc->node_count; ++i) {
            const tl_gltf_node* n = &doc->nodes[i];
            if (done[i] || (n->parent != TL_NONE && !done[n->parent])) continue;
            double local[16];
            for (int k = 0; k < 16; ++k)
                local[k] = n->matrix[k];
            if (n->parent == TL_NONE)
                memcpy(world[i], local, sizeof local);
            else
                tl_mat4d_mul(world[i], world[n->parent], local);
            done[i] = true;
        }
    free(done);
    return world;
}

static int32_t node_named(const tl_gltf* doc, const char* name) {
    for (uint32_t i = 0; i < doc->node_count; ++i)
        if (doc->nodes[i].name && !strcmp(doc->nodes[i].name, name)) return (int32_t)i;
    return TL_NONE;
}

static float* read_floats(const tl_gltf* doc, uint32_t accessor) {
    size_t n = tl_gltf_accessor_value_count(doc, accessor);
    float* v = malloc((n ? n : 1) * sizeof *v);
    tl_error err;
    if (tl_gltf_accessor_read_float(doc, accessor, v, n, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        free(v);
        return NULL;
    }
    return v;
}

static uint32_t* read_uints(const tl_gltf* doc, uint32_t accessor) {
    size_t n = tl_gltf_accessor_value_count(doc, accessor);
    uint32_t* v = malloc((n ? n : 1) * sizeof *v);
    tl_error err;
    if (tl_gltf_accessor_read_uint(doc, accessor, v, n, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        free(v);
        return NULL;
    }
    return v;
}

/* A sample written to the scratch folder and loaded back. */
typedef struct loaded {
    char path[4096];
    tl_gltf* doc;          /* as read back from the file */
    tl_sample_truth truth; /* as the library returned it */
    double (*world)[16];
    double* joint_mats; /* 16 per skin joint: world × IBM */
    float* ibm;
} loaded;

static void loaded_free(loaded* l) {
    tl_gltf_destroy(l->doc);
    tl_sample_truth_free(&l->truth);
    free(l->world);
    free(l->joint_mats);
    free(l->ibm);
    memset(l, 0, sizeof *l);
}

static bool load_sample(loaded* l, const char* name, const tl_sample_def* def, const char* file) {
    memset(l, 0, sizeof *l);
    tl_gltf* built;
    tl_error err;
    if (tl_sample_build(name, def, &built, &l->truth, &err) != TL_OK) {
        tl_test_failf(__FILE__, __LINE__, "build %s: %s", name, err.message);
        return false;
    }
    snprintf(l->path, sizeof l->path, "%s", tl_test_scratch(file));
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    tl_result r = tl_gltf_save(built, l->path, &save, &err);
    tl_gltf_destroy(built);
    if (r != TL_OK || tl_gltf_load(l->path, &l->doc, &err) != TL_OK) {
        tl_test_failf(__FILE__, __LINE__, "%s: %s", l->path, err.message);
        return false;
    }
    if (l->doc->skin_count != 1 || l->doc->skins[0].inverse_bind_matrices == TL_NONE) {
        tl_test_failf(__FILE__, __LINE__, "%s: expected one skin with inverse bind matrices",
                      l->path);
        return false;
    }
    const tl_gltf_skin* skin = &l->doc->skins[0];
    l->world = world_matrices(l->doc);
    l->ibm = read_floats(l->doc, (uint32_t)skin->inverse_bind_matrices);
    if (!l->ibm) return false;
    l->joint_mats = malloc(skin->joint_count * 16 * sizeof *l->joint_mats);
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        double ibm[16];
        for (int k = 0; k < 16; ++k)
            ibm[k] = l->ibm[16 * j + k];
        tl_mat4d_mul(l->joint_mats + 16 * j, l->world[skin->joints[j]], ibm);
    }
    return true;
}

/* Rest-world positions of a primitive's vertices by linear-blend skinning with the file's
 * joints at rest; also returns its joints and weights (4 per vertex, as floats and as the
 * unsigned bytes they were stored as). */
static bool skin_primitive(const loaded* l, const tl_gltf_primitive* prim, double** out_pos,
                           uint32_t** out_joints, float** out_weights, uint32_t** out_raw) {
    size_t n = tl_gltf_primitive_vertex_count(l->doc, prim);
    float* pos = read_floats(l->doc, (uint32_t)prim->position);
    uint32_t* joints = prim->joint_set_count ? read_uints(l->doc, (uint32_t)prim->joints[0]) : NULL;
    float* weights = prim->joint_set_count ? read_floats(l->doc, (uint32_t)prim->weights[0]) : NULL;
    /* the stored bytes: read_uint refuses normalized accessors, and k / 255 rounds back to k */
    uint32_t* raw = malloc(n * 4 * sizeof *raw);
    if (weights && raw)
        for (size_t i = 0; i < 4 * n; ++i)
            raw[i] = (uint32_t)lround(weights[i] * 255.0);
    if (!pos || !joints || !weights || !raw) {
        free(pos), free(joints), free(weights), free(raw);
        return false;
    }
    double* world = malloc(n * 3 * sizeof *world);
    for (size_t i = 0; i < n; ++i) {
        double sum[3] = {0, 0, 0};
        for (int k = 0; k < 4; ++k) {
            double p[3];
            mat_point(p, l->joint_mats + 16 * joints[4 * i + k], pos + 3 * i);
            for (int r = 0; r < 3; ++r)
                sum[r] += weights[4 * i + k] * p[r];
        }
        memcpy(world + 3 * i, sum, sizeof sum);
    }
    free(pos);
    *out_pos = world, *out_joints = joints, *out_weights = weights, *out_raw = raw;
    return true;
}

/* ---- the variants ------------------------------------------------------------------------ */

typedef struct variant {
    tl_sample_up up;
    float scale;
    tl_sample_facing facing;
    float height;
    uint32_t seed;
} variant;

static const variant variants[] = {
    {TL_SAMPLE_Y_UP, 1.0f, TL_SAMPLE_FACING_POS_Z, 1.8f, 0},
    {TL_SAMPLE_Y_UP, 1.0f, TL_SAMPLE_FACING_NEG_Z, 1.8f, 0},
    {TL_SAMPLE_Y_UP, 0.01f, TL_SAMPLE_FACING_POS_Z, 1.8f, 0},
    {TL_SAMPLE_Y_UP, 0.01f, TL_SAMPLE_FACING_NEG_Z, 1.8f, 0},
    {TL_SAMPLE_Z_UP, 1.0f, TL_SAMPLE_FACING_POS_Z, 1.8f, 0},
    {TL_SAMPLE_Z_UP, 1.0f, TL_SAMPLE_FACING_NEG_Z, 1.8f, 0},
    {TL_SAMPLE_Z_UP, 0.01f, TL_SAMPLE_FACING_POS_Z, 1.8f, 0},
    {TL_SAMPLE_Z_UP, 0.01f, TL_SAMPLE_FACING_NEG_Z, 1.8f, 0},
    /* other sizes, like the Quaternius knight (5.6 units) and a small animal */
    {TL_SAMPLE_Z_UP, 0.01f, TL_SAMPLE_FACING_POS_Z, 5.6f, 0},
    {TL_SAMPLE_Y_UP, 1.0f, TL_SAMPLE_FACING_NEG_Z, 0.45f, 0},
    {TL_SAMPLE_Y_UP, 100.0f, TL_SAMPLE_FACING_POS_Z, 1.2f, 0},
    /* varied proportions */
    {TL_SAMPLE_Z_UP, 0.01f, TL_SAMPLE_FACING_NEG_Z, 1.7f, 7},
    {TL_SAMPLE_Y_UP, 1.0f, TL_SAMPLE_FACING_POS_Z, 1.9f, 12345},
};
enum { VARIANT_COUNT = sizeof variants / sizeof variants[0] };

static tl_sample_def def_of(const variant* v) {
    tl_sample_def def = tl_default_sample_def();
    def.up = v->up, def.scale = v->scale, def.facing = v->facing, def.height = v->height;
    def.seed = v->seed;
    return def;
}

static const char* variant_file(const char* name, int index) {
    static char buf[128];
    snprintf(buf, sizeof buf, "%s-v%d.glb", name, index);
    return buf;
}

/* ---- the checks, one sample and variant at a time ---------------------------------------- */

/* Khronos validator: no errors, no warnings. */
static bool check_valid(const loaded* l) {
    json_t* report = tl_test_validate(l->path);
    if (!report) {
        tl_test_failf(__FILE__, __LINE__, "%s: the validator did not run", l->path);
        return false;
    }
    json_int_t errors = json_integer_value(json_object_get(report, "errors"));
    json_int_t warnings = json_integer_value(json_object_get(report, "warnings"));
    char* codes = json_dumps(json_object_get(report, "codes"), JSON_COMPACT);
    bool ok = json_is_integer(json_object_get(report, "errors")) && errors == 0 && warnings == 0;
    if (!ok)
        tl_test_failf(__FILE__, __LINE__, "%s: %lld errors, %lld warnings: %s", l->path,
                      (long long)errors, (long long)warnings, codes ? codes : "?");
    free(codes);
    json_decref(report);
    return ok;
}

/* world(joint) × IBM(joint) is one matrix for every joint: the armature's, as the truth says;
 * every IBM's last row is exactly 0 0 0 1. */
static bool check_inverse_binds(const loaded* l) {
    const tl_gltf_skin* skin = &l->doc->skins[0];
    const double* first = l->joint_mats;
    double scale = mat_max_abs(first);
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        const float* ibm = l->ibm + 16 * j;
        if (ibm[3] != 0.0f || ibm[7] != 0.0f || ibm[11] != 0.0f || ibm[15] != 1.0f) {
            tl_test_failf(__FILE__, __LINE__, "%s: IBM %u last row %g %g %g %g", l->path, j, ibm[3],
                          ibm[7], ibm[11], ibm[15]);
            return false;
        }
        for (int k = 0; k < 16; ++k) {
            double d = fabs(l->joint_mats[16 * j + k] - first[k]);
            double t = fabs(first[k] - l->truth.bind_to_world[k]);
            if (d > 1e-5 * scale || t > 1e-5 * scale) {
                tl_test_failf(__FILE__, __LINE__,
                              "%s: joint %s: world x IBM [%d] = %.9g, joint 0: %.9g, truth %.9g",
                              l->path, l->doc->nodes[skin->joints[j]].name, k,
                              l->joint_mats[16 * j + k], first[k],
                              (double)l->truth.bind_to_world[k]);
                return false;
            }
        }
    }
    return true;
}

/* The skin's vertices at rest: floor at y = 0, height as asked within 1 %, weights in bytes
 * summing to exactly 255 (and 1 read as floats), unused slots joint 0. */
static bool check_rest_world(const loaded* l, const tl_sample_def* def) {
    const tl_gltf_mesh* mesh = &l->doc->meshes[0];
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
        const tl_gltf_primitive* prim = &mesh->primitives[p];
        double* pos;
        uint32_t *joints, *raw;
        float* weights;
        if (!skin_primitive(l, prim, &pos, &joints, &weights, &raw)) {
            tl_test_failf(__FILE__, __LINE__, "%s: primitive %u cannot be read", l->path, p);
            return false;
        }
        size_t n = tl_gltf_primitive_vertex_count(l->doc, prim);
        const tl_gltf_accessor* wa = &l->doc->accessors[prim->weights[0]];
        bool ok = wa->component_type == TL_GLTF_UNSIGNED_BYTE && wa->normalized;
        for (size_t i = 0; ok && i < n; ++i) {
            lo = fmin(lo, pos[3 * i + 1]), hi = fmax(hi, pos[3 * i + 1]);
            uint32_t sum = 0;
            double fsum = 0;
            for (int k = 0; k < 4; ++k) {
                sum += raw[4 * i + k];
                fsum += weights[4 * i + k];
                if (raw[4 * i + k] == 0 && joints[4 * i + k] != 0) ok = false;
            }
            if (sum != 255 || fabs(fsum - 1.0) > 1e-6) ok = false;
            if (!ok)
                tl_test_failf(__FILE__, __LINE__,
                              "%s: prim %u vertex %zu: weights %u %u %u %u on %u %u %u %u", l->path,
                              p, i, raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3],
                              joints[4 * i], joints[4 * i + 1], joints[4 * i + 2],
                              joints[4 * i + 3]);
        }
        free(pos), free(joints), free(weights), free(raw);
        if (!ok) return false;
    }
    double h = def->height;
    if (fabs((hi - lo) - h) > 0.01 * h || fabs(lo) > 0.001 * h) {
        tl_test_failf(__FILE__, __LINE__, "%s: rest-world y from %.6g to %.6g, asked for 0 to %.6g",
                      l->path, lo, hi, h);
        return false;
    }
    return true;
}

/* lateral = right thigh → left thigh, forward = lateral × up: the asked facing, as the truth says.
 */
static bool check_facing(const loaded* l, const tl_sample_def* def, const char* left,
                         const char* right) {
    int32_t a = node_named(l->doc, left), b = node_named(l->doc, right);
    if (a == TL_NONE || b == TL_NONE) {
        tl_test_failf(__FILE__, __LINE__, "%s: no %s / %s", l->path, left, right);
        return false;
    }
    double lat[3] = {l->world[a][12] - l->world[b][12], l->world[a][13] - l->world[b][13],
                     l->world[a][14] - l->world[b][14]};
    double fwd[3] = {-lat[2], 0, lat[0]}; /* lat × (0, 1, 0) */
    double n = sqrt(fwd[0] * fwd[0] + fwd[2] * fwd[2]);
    double want = def->facing == TL_SAMPLE_FACING_POS_Z ? 1 : -1;
    bool ok = n > 0 && fabs(fwd[0] / n) < 1e-4 && fabs(fwd[2] / n - want) < 1e-4 &&
              fabs(lat[1]) < 1e-4 * def->height && fabs(l->truth.forward[2] - want) < 1e-6 &&
              l->truth.up[1] == 1.0f;
    if (!ok)
        tl_test_failf(__FILE__, __LINE__,
                      "%s: forward from the thighs (%g, %g), truth (%g, %g, %g), asked z %g",
                      l->path, fwd[0] / n, fwd[2] / n, (double)l->truth.forward[0],
                      (double)l->truth.forward[1], (double)l->truth.forward[2], want);
    return ok;
}

/* Every tail vertex (per the truth) is bound to the three wrong joints only; near the root to
 * the thighs alone (each dominating somewhere), near the tip to the left shin alone. */
static bool check_wrong_binding(const loaded* l) {
    const tl_sample_truth* t = &l->truth;
    const tl_gltf_skin* skin = &l->doc->skins[0];
    const char* wrong[3] = {t->wrong_thigh_l, t->wrong_thigh_r, t->wrong_shin_l};
    uint32_t dominant_count[3] = {0, 0, 0}, root_checked = 0, tip_checked = 0;
    if (t->shell_count != 2 || t->tail_length <= 0) {
        tl_test_failf(__FILE__, __LINE__, "%s: truth has %u shells, tail length %g", l->path,
                      t->shell_count, (double)t->tail_length);
        return false;
    }
    for (uint32_t s = 0; s < t->shell_count; ++s) {
        const tl_sample_shell* shell = &t->shells[s];
        if (shell->mesh >= l->doc->mesh_count ||
            shell->primitive >= l->doc->meshes[shell->mesh].primitive_count ||
            shell->vertex_count == 0) {
            tl_test_failf(__FILE__, __LINE__, "%s: shell %s points nowhere", l->path, shell->name);
            return false;
        }
        const tl_gltf_primitive* prim = &l->doc->meshes[shell->mesh].primitives[shell->primitive];
        double* pos;
        uint32_t *joints, *raw;
        float* weights;
        if (!skin_primitive(l, prim, &pos, &joints, &weights, &raw)) return false;
        size_t n = tl_gltf_primitive_vertex_count(l->doc, prim);
        bool ok = true;
        for (uint32_t v = 0; ok && v < shell->vertex_count; ++v) {
            uint32_t i = shell->vertices[v];
            if (i >= n) {
                ok = false;
                tl_test_failf(__FILE__, __LINE__, "%s: shell %s vertex %u of %zu", l->path,
                              shell->name, i, n);
                break;
            }
            int dom = -1;
            uint32_t best = 0;
            for (int k = 0; k < 4; ++k) {
                if (raw[4 * i + k] == 0) continue;
                const char* jn = l->doc->nodes[skin->joints[joints[4 * i + k]]].name;
                int which = -1;
                for (int w = 0; w < 3; ++w)
                    if (!strcmp(jn, wrong[w])) which = w;
                if (which < 0) {
                    ok = false;
                    tl_test_failf(__FILE__, __LINE__, "%s: tail vertex %u has weight on %s",
                                  l->path, i, jn);
                }
                if (raw[4 * i + k] > best) best = raw[4 * i + k], dom = which;
            }
            if (!ok) break;
            dominant_count[dom]++;
            double dr = 0, dt = 0;
            for (int r = 0; r < 3; ++r) {
                dr += (pos[3 * i + r] - t->tail_root[r]) * (pos[3 * i + r] - t->tail_root[r]);
                dt += (pos[3 * i + r] - t->tail_tip[r]) * (pos[3 * i + r] - t->tail_tip[r]);
            }
            /* the documented split: the first 30 % of the tail on the thighs alone, the last
             * 50 % on the shin alone (these zones sit well inside those, measured straight) */
            bool on_shin = false, only_shin = false;
            for (int k = 0; k < 4; ++k) {
                if (raw[4 * i + k] == 0) continue;
                bool shin =
                    !strcmp(l->doc->nodes[skin->joints[joints[4 * i + k]]].name, t->wrong_shin_l);
                on_shin = on_shin || shin;
                only_shin = only_shin || (shin && raw[4 * i + k] == 255);
            }
            if (sqrt(dr) < 0.15 * t->tail_length) {
                root_checked++;
                if (on_shin || dom == 2) ok = false;
            }
            if (sqrt(dt) < 0.3 * t->tail_length) {
                tip_checked++;
                if (!only_shin) ok = false;
            }
            if (!ok)
                tl_test_failf(
                    __FILE__, __LINE__,
                    "%s: tail vertex %u (%.3f from the root, %.3f from the tip) dominated by %s",
                    l->path, i, sqrt(dr), sqrt(dt), wrong[dom]);
        }
        free(pos), free(joints), free(weights), free(raw);
        if (!ok) return false;
    }
    if (!dominant_count[0] || !dominant_count[1] || !dominant_count[2] || root_checked < 20 ||
        tip_checked < 20) {
        tl_test_failf(__FILE__, __LINE__,
                      "%s: dominant thigh_l %u thigh_r %u shin_l %u; %u root, %u tip vertices",
                      l->path, dominant_count[0], dominant_count[1], dominant_count[2],
                      root_checked, tip_checked);
        return false;
    }
    return true;
}

/* The tail hangs from the pelvis (root between 35 % and 65 % of H up) down to within
 * `reach` × H of the floor (lowest tail vertex), and away from the legs: every tail vertex
 * more than 0.15 H below the root lies at least `behind` × H behind the root (the root is
 * already at the back of the pelvis), per the truth's shells. */
static bool check_tail_reach(const loaded* l, double reach, double behind) {
    const tl_sample_truth* t = &l->truth;
    double h = t->height, lowest = INFINITY, least_behind = INFINITY;
    for (uint32_t s = 0; s < t->shell_count; ++s) {
        const tl_gltf_primitive* prim =
            &l->doc->meshes[t->shells[s].mesh].primitives[t->shells[s].primitive];
        double* pos;
        uint32_t *joints, *raw;
        float* weights;
        if (!skin_primitive(l, prim, &pos, &joints, &weights, &raw)) return false;
        for (uint32_t v = 0; v < t->shells[s].vertex_count; ++v) {
            const double* p = pos + 3 * t->shells[s].vertices[v];
            lowest = fmin(lowest, p[1]);
            if (p[1] > t->tail_root[1] - 0.15 * h) continue;
            double back = 0;
            for (int r = 0; r < 3; ++r)
                back -= (p[r] - t->tail_root[r]) * t->forward[r];
            least_behind = fmin(least_behind, back);
        }
        free(pos), free(joints), free(weights), free(raw);
    }
    bool ok = t->tail_root[1] > 0.35 * h && t->tail_root[1] < 0.65 * h && lowest >= 0 &&
              lowest < reach * h && t->tail_length > 0.3 * h && least_behind >= behind * h;
    if (!ok)
        tl_test_failf(__FILE__, __LINE__,
                      "%s: tail root at y %g, lowest tail vertex %g, length %g, the low tail at "
                      "least %g behind the root (H %g)",
                      l->path, (double)t->tail_root[1], lowest, (double)t->tail_length,
                      least_behind, h);
    return ok;
}

typedef struct clip_spec {
    const char* name;
    double duration;
} clip_spec;

/* Names and durations as documented, 30 keys a second, LINEAR, and the Shake moves the hips
 * 0.25 m (H / 1.8 m) to the character's left and yaws them 45° at t = 1/6 s. */
static bool check_clips(const loaded* l, const tl_sample_def* def, const clip_spec* clips,
                        uint32_t count, const char* hips_name) {
    const tl_gltf* doc = l->doc;
    if (doc->animation_count != count) {
        tl_test_failf(__FILE__, __LINE__, "%s: %u clips, documented %u", l->path,
                      doc->animation_count, count);
        return false;
    }
    int32_t hips = node_named(doc, hips_name);
    if (hips == TL_NONE) return false;
    for (uint32_t c = 0; c < count; ++c) {
        const tl_gltf_animation* a = &doc->animations[c];
        if (!a->name || strcmp(a->name, clips[c].name)) {
            tl_test_failf(__FILE__, __LINE__, "%s: clip %u is %s, documented %s", l->path, c,
                          a->name ? a->name : "?", clips[c].name);
            return false;
        }
        bool has_hips_translation = false;
        uint32_t rotations = 0;
        for (uint32_t s = 0; s < a->channel_count; ++s) {
            const tl_gltf_anim_sampler* sm = &a->samplers[a->channels[s].sampler];
            float* times = read_floats(doc, sm->input);
            size_t keys = doc->accessors[sm->input].count;
            bool ok = times && sm->interpolation == TL_GLTF_LINEAR &&
                      keys == (size_t)lround(clips[c].duration * 30) + 1 && times[0] == 0.0f &&
                      fabs(times[keys - 1] - clips[c].duration) < 1e-6;
            for (size_t k = 1; ok && k < keys; ++k)
                ok = fabs(times[k] - times[k - 1] - 1.0 / 30) < 1e-6;
            if (!ok)
                tl_test_failf(__FILE__, __LINE__,
                              "%s: %s channel %u: %zu keys to %g s, documented %g s at 30 fps",
                              l->path, a->name, s, keys, times ? times[keys - 1] : -1.0,
                              clips[c].duration);
            free(times);
            if (!ok) return false;
            if (a->channels[s].path == TL_GLTF_PATH_ROTATION) rotations++;
            if (a->channels[s].path == TL_GLTF_PATH_TRANSLATION && a->channels[s].node == hips)
                has_hips_translation = true;
        }
        if (!has_hips_translation || rotations == 0) {
            tl_test_failf(__FILE__, __LINE__, "%s: %s: hips translation %d, %u rotation channels",
                          l->path, a->name, has_hips_translation, rotations);
            return false;
        }
        if (strcmp(a->name, "Shake")) continue;
        /* At t = 1/6 s (key 5) sin(3πt) = 1. */
        const float *tr = NULL, *rot = NULL;
        float *trv = NULL, *rotv = NULL;
        for (uint32_t s = 0; s < a->channel_count; ++s) {
            if (a->channels[s].node != hips) continue;
            uint32_t out = a->samplers[a->channels[s].sampler].output;
            if (a->channels[s].path == TL_GLTF_PATH_TRANSLATION) tr = trv = read_floats(doc, out);
            if (a->channels[s].path == TL_GLTF_PATH_ROTATION) rot = rotv = read_floats(doc, out);
        }
        bool ok = tr && rot;
        if (ok) {
            const double* parent = l->world[doc->nodes[hips].parent];
            double d[3];
            for (int r = 0; r < 3; ++r)
                d[r] = parent[r] * (tr[15] - tr[0]) + parent[4 + r] * (tr[16] - tr[1]) +
                       parent[8 + r] * (tr[17] - tr[2]);
            double want = 0.25 * def->height / 1.8,
                   side = def->facing == TL_SAMPLE_FACING_POS_Z ? 1 : -1;
            ok = fabs(d[0] - side * want) < 1e-4 * want && fabs(d[1]) < 1e-4 * want &&
                 fabs(d[2]) < 1e-4 * want;
            if (!ok)
                tl_test_failf(__FILE__, __LINE__,
                              "%s: Shake hips moved (%g, %g, %g) at 1/6 s, want x %g", l->path,
                              d[0], d[1], d[2], side * want);
            /* yaw: the hips' world rotation at key 5 relative to key 0, about +Y by 45° */
            double q0[4] = {rot[0], rot[1], rot[2], rot[3]},
                   q5[4] = {rot[20], rot[21], rot[22], rot[23]};
            /* relative local rotation q5 · q0⁻¹, mapped through the parent's rotation */
            double w = q5[3] * q0[3] + q5[0] * q0[0] + q5[1] * q0[1] + q5[2] * q0[2];
            double x = -q5[3] * q0[0] + q5[0] * q0[3] - q5[1] * q0[2] + q5[2] * q0[1];
            double y = -q5[3] * q0[1] + q5[1] * q0[3] - q5[2] * q0[0] + q5[0] * q0[2];
            double z = -q5[3] * q0[2] + q5[2] * q0[3] - q5[0] * q0[1] + q5[1] * q0[0];
            double angle = 2 * atan2(sqrt(x * x + y * y + z * z), fabs(w)) * 180 / 3.14159265358979;
            double ax[3] = {w < 0 ? -x : x, w < 0 ? -y : y, w < 0 ? -z : z}, wa[3];
            for (int r = 0; r < 3; ++r)
                wa[r] = parent[r] * ax[0] + parent[4 + r] * ax[1] + parent[8 + r] * ax[2];
            double wn = sqrt(wa[0] * wa[0] + wa[1] * wa[1] + wa[2] * wa[2]);
            if (ok && (fabs(angle - 45) > 0.01 || wn == 0 || wa[1] / wn < 0.9999)) {
                ok = false;
                tl_test_failf(__FILE__, __LINE__, "%s: Shake hips turned %g° about (%g, %g, %g)",
                              l->path, angle, wa[0] / wn, wa[1] / wn, wa[2] / wn);
            }
        }
        free(trv), free(rotv);
        if (!ok) return false;
    }
    return true;
}

/* ---- the cases --------------------------------------------------------------------------- */

static const clip_spec biped_clips[] = {{"Walk", 1.0}, {"Run", 0.6}, {"Shake", 2.0 / 3.0}};
static const clip_spec quadruped_clips[] = {{"Walk", 1.0}, {"Gallop", 0.5}, {"Shake", 2.0 / 3.0}};

static void run_variants(const char* name, const char* left_thigh, const char* right_thigh,
                         const char* hips, const char* tail_parent, const clip_spec* clips,
                         double reach, double behind) {
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        tl_sample_def def = def_of(&variants[v]);
        loaded l;
        bool ok = load_sample(&l, name, &def, variant_file(name, v)) && check_valid(&l) &&
                  check_inverse_binds(&l) && check_rest_world(&l, &def) &&
                  check_facing(&l, &def, left_thigh, right_thigh) && check_wrong_binding(&l) &&
                  check_tail_reach(&l, reach, behind) && check_clips(&l, &def, clips, 3, hips);
        if (ok && strcmp(l.truth.tail_parent, tail_parent)) {
            tl_test_failf(__FILE__, __LINE__, "%s: tail parent %s", l.path, l.truth.tail_parent);
            ok = false;
        }
        loaded_free(&l);
        if (!ok) {
            fprintf(stderr, "  variant %d: up %s, scale %g, facing %s, height %g, seed %u\n", v,
                    def.up == TL_SAMPLE_Z_UP ? "z" : "y", (double)def.scale,
                    def.facing == TL_SAMPLE_FACING_NEG_Z ? "-z" : "+z", (double)def.height,
                    def.seed);
            return;
        }
    }
}

static void test_biped_variants(void) {
    run_variants("tailed-biped", "mixamorig:LeftUpLeg", "mixamorig:RightUpLeg", "mixamorig:Hips",
                 "mixamorig:Hips", biped_clips, 0.15, 0.08);
}

static void test_quadruped_variants(void) {
    run_variants("tailed-quadruped", "BackThigh.L", "BackThigh.R", "Hips", "Hips", quadruped_clips,
                 0.02, 0.1);
}

/* The skeleton the brief names: every Mixamo joint, parented the Mixamo way. */
static void test_biped_skeleton(void) {
    static const char* const chain[][2] = {
        {"mixamorig:Spine", "mixamorig:Hips"},
        {"mixamorig:Spine1", "mixamorig:Spine"},
        {"mixamorig:Spine2", "mixamorig:Spine1"},
        {"mixamorig:Neck", "mixamorig:Spine2"},
        {"mixamorig:Head", "mixamorig:Neck"},
        {"mixamorig:LeftShoulder", "mixamorig:Spine2"},
        {"mixamorig:LeftArm", "mixamorig:LeftShoulder"},
        {"mixamorig:LeftForeArm", "mixamorig:LeftArm"},
        {"mixamorig:LeftHand", "mixamorig:LeftForeArm"},
        {"mixamorig:RightShoulder", "mixamorig:Spine2"},
        {"mixamorig:RightArm", "mixamorig:RightShoulder"},
        {"mixamorig:RightForeArm", "mixamorig:RightArm"},
        {"mixamorig:RightHand", "mixamorig:RightForeArm"},
        {"mixamorig:LeftUpLeg", "mixamorig:Hips"},
        {"mixamorig:LeftLeg", "mixamorig:LeftUpLeg"},
        {"mixamorig:LeftFoot", "mixamorig:LeftLeg"},
        {"mixamorig:LeftToeBase", "mixamorig:LeftFoot"},
        {"mixamorig:RightUpLeg", "mixamorig:Hips"},
        {"mixamorig:RightLeg", "mixamorig:RightUpLeg"},
        {"mixamorig:RightFoot", "mixamorig:RightLeg"},
        {"mixamorig:RightToeBase", "mixamorig:RightFoot"},
    };
    tl_sample_def def = tl_default_sample_def();
    tl_gltf* doc;
    tl_error err;
    ENSURE_OK(tl_sample_build("tailed-biped", &def, &doc, NULL, &err), err);
    ENSURE(doc->skin_count == 1 && doc->skins[0].joint_count == 22);
    for (size_t i = 0; i < sizeof chain / sizeof chain[0]; ++i) {
        int32_t child = node_named(doc, chain[i][0]), parent = node_named(doc, chain[i][1]);
        ENSURE_MSG(child != TL_NONE && parent != TL_NONE && doc->nodes[child].parent == parent,
                   "%s under %s", chain[i][0], chain[i][1]);
    }
    int32_t hips = node_named(doc, "mixamorig:Hips");
    ENSURE(hips != TL_NONE && doc->nodes[hips].parent != TL_NONE);
    ENSURE(doc->skins[0].skeleton == hips);
    /* the skinned mesh node is a scene root with no transform */
    int32_t body = node_named(doc, "Body");
    ENSURE(body != TL_NONE && doc->nodes[body].parent == TL_NONE && doc->nodes[body].skin == 0);
    for (int k = 0; k < 16; ++k)
        ENSURE(doc->nodes[body].matrix[k] == (k % 5 == 0 ? 1.0f : 0.0f));
    tl_gltf_destroy(doc);
}

/* The brief's sizes: a few thousand vertices, two primitives, the seams split. */
static void test_mesh_shape(void) {
    for (uint32_t s = 0; s < tl_sample_count(); ++s) {
        tl_sample_def def = tl_default_sample_def();
        tl_gltf* doc;
        tl_sample_truth truth;
        tl_error err;
        ENSURE_OK(tl_sample_build(tl_sample_name(s), &def, &doc, &truth, &err), err);
        ENSURE(doc->mesh_count == 1 && doc->meshes[0].primitive_count == 2);
        size_t body = tl_gltf_primitive_vertex_count(doc, &doc->meshes[0].primitives[0]);
        size_t fur = tl_gltf_primitive_vertex_count(doc, &doc->meshes[0].primitives[1]);
        ENSURE_MSG(body >= 2000 && body <= 10000, "%s: %zu body vertices", tl_sample_name(s), body);
        /* the fur primitive is all tail; the skin shell is the end of the body primitive */
        ENSURE(truth.shells[1].primitive == 1 && truth.shells[1].vertex_count == fur);
        ENSURE(truth.shells[0].primitive == 0 &&
               truth.shells[0].vertices[truth.shells[0].vertex_count - 1] == body - 1);
        /* seams: vertices sharing a position with different UVs, in both shells */
        for (int p = 0; p < 2; ++p) {
            const tl_gltf_primitive* prim = &doc->meshes[0].primitives[p];
            float* pos = read_floats(doc, (uint32_t)prim->position);
            float* uv = read_floats(doc, (uint32_t)tl_gltf_primitive_attribute(prim, "TEXCOORD_0"));
            float* nrm = read_floats(doc, (uint32_t)tl_gltf_primitive_attribute(prim, "NORMAL"));
            ENSURE(pos && uv && nrm);
            const tl_sample_shell* shell = &truth.shells[p];
            uint32_t seams = 0;
            for (uint32_t a = 0; a < shell->vertex_count; ++a)
                for (uint32_t b = a + 1; b < shell->vertex_count && b < a + 20; ++b) {
                    uint32_t i = shell->vertices[a], j = shell->vertices[b];
                    if (!memcmp(pos + 3 * i, pos + 3 * j, 12) &&
                        memcmp(uv + 2 * i, uv + 2 * j, 8) && !memcmp(nrm + 3 * i, nrm + 3 * j, 12))
                        seams++;
                }
            free(pos), free(uv), free(nrm);
            ENSURE_MSG(seams >= 20, "%s primitive %d: %u seam pairs in the tail", tl_sample_name(s),
                       p, seams);
        }
        tl_sample_truth_free(&truth);
        tl_gltf_destroy(doc);
    }
}

/* Same def, same bytes; another seed, other bytes. */
static void test_deterministic(void) {
    for (uint32_t s = 0; s < tl_sample_count(); ++s) {
        uint8_t* bytes[3] = {NULL, NULL, NULL};
        size_t size[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k) {
            tl_sample_def def = tl_default_sample_def();
            def.up = TL_SAMPLE_Z_UP, def.scale = 0.01f, def.facing = TL_SAMPLE_FACING_NEG_Z;
            def.seed = k == 2 ? 3 : 0;
            tl_gltf* doc;
            tl_error err;
            ENSURE_OK(tl_sample_build(tl_sample_name(s), &def, &doc, NULL, &err), err);
            tl_gltf_save_def save = tl_default_gltf_save_def();
            ENSURE_OK(tl_gltf_save_glb_memory(doc, &save, &bytes[k], &size[k], &err), err);
            tl_gltf_destroy(doc);
        }
        bool same = size[0] == size[1] && !memcmp(bytes[0], bytes[1], size[0]);
        bool differs = size[0] != size[2] || memcmp(bytes[0], bytes[2], size[0]);
        for (int k = 0; k < 3; ++k)
            free(bytes[k]);
        ENSURE_MSG(same, "%s: two builds differ", tl_sample_name(s));
        ENSURE_MSG(differs, "%s: seed 3 gives the seed-0 bytes", tl_sample_name(s));
    }
}

static void test_bad_input(void) {
    static tl_gltf dummy;
    tl_sample_def def = tl_default_sample_def();
    tl_gltf* doc = &dummy; /* must come back NULL */
    tl_sample_truth truth;
    tl_error err;
    ENSURE(tl_sample_build("tailed-dragon", &def, &doc, &truth, &err) == TL_ERROR_NOT_FOUND &&
           !doc);
    ENSURE(err.result == TL_ERROR_NOT_FOUND && strstr(err.message, "tailed-dragon"));
    ENSURE(truth.shell_count == 0);
    def.scale = 0;
    ENSURE(tl_sample_build("tailed-biped", &def, &doc, NULL, &err) == TL_ERROR_ARGUMENT &&
           strstr(err.message, "scale"));
    def = tl_default_sample_def();
    def.height = -1;
    ENSURE(tl_sample_build("tailed-biped", &def, &doc, NULL, &err) == TL_ERROR_ARGUMENT &&
           strstr(err.message, "height"));
    def.height = NAN;
    ENSURE(tl_sample_build("tailed-biped", &def, &doc, NULL, &err) == TL_ERROR_ARGUMENT);
}

static void test_list(void) {
    ENSURE(tl_sample_count() == 2);
    ENSURE(!strcmp(tl_sample_name(0), "tailed-biped") &&
           !strcmp(tl_sample_name(1), "tailed-quadruped"));
    char* out = NULL;
    ENSURE(tl_test_cli(&out, "sample --list") == 0);
    bool listed = out && strstr(out, "tailed-biped") && strstr(out, "tailed-quadruped");
    free(out);
    ENSURE(listed);
}

/* The command writes the same file as the library, and the truth sidecar. */
static void test_cli(void) {
    const char* glb = tl_test_scratch("cli-biped.glb");
    char truth_path[4096];
    snprintf(truth_path, sizeof truth_path, "%s", tl_test_scratch("cli-biped.truth.json"));
    ENSURE(tl_test_cli(NULL,
                       "sample tailed-biped -o '%s' --up z --scale 0.01 --facing -z --height 1.75 "
                       "--truth '%s'",
                       glb, truth_path) == 0);
    tl_sample_def def = tl_default_sample_def();
    def.up = TL_SAMPLE_Z_UP, def.scale = 0.01f, def.facing = TL_SAMPLE_FACING_NEG_Z,
    def.height = 1.75f;
    tl_gltf* doc;
    tl_sample_truth truth;
    tl_error err;
    ENSURE_OK(tl_sample_build("tailed-biped", &def, &doc, &truth, &err), err);
    uint8_t* bytes = NULL;
    size_t size = 0, file_size = 0;
    tl_gltf_save_def save = tl_default_gltf_save_def();
    tl_result r = tl_gltf_save_glb_memory(doc, &save, &bytes, &size, &err);
    tl_gltf_destroy(doc);
    unsigned char* file = tl_test_read_file(glb, &file_size);
    bool same = r == TL_OK && file && file_size == size && !memcmp(file, bytes, size);
    free(bytes), free(file);
    json_t* j = json_load_file(truth_path, 0, NULL);
    bool truth_ok =
        j && json_real_value(json_object_get(j, "H")) > 1.7499 &&
        json_real_value(json_object_get(j, "H")) < 1.7501 &&
        json_array_size(json_object_get(json_object_get(j, "tail_vertices"), "mesh0/prim0")) ==
            truth.shells[0].vertex_count &&
        json_array_size(json_object_get(json_object_get(j, "tail_vertices"), "mesh0/prim1")) ==
            truth.shells[1].vertex_count &&
        !strcmp(json_string_value(json_object_get(j, "tail_parent")), "mixamorig:Hips") &&
        json_array_size(json_object_get(j, "bind_to_world")) == 16 &&
        json_real_value(json_array_get(json_object_get(j, "forward"), 2)) == -1.0;
    json_decref(j);
    tl_sample_truth_free(&truth);
    ENSURE_MSG(same, "the command's file differs from the library's");
    ENSURE_MSG(truth_ok, "%s: truth fields", truth_path);
    ENSURE(tl_test_cli(NULL, "sample tailed-dragon -o '%s' 2>/dev/null", glb) == 2);
    ENSURE(tl_test_cli(NULL, "sample tailed-biped -o '%s' --scale nope 2>/dev/null", glb) == 2);
    ENSURE(tl_test_cli(NULL, "sample tailed-biped -o '%s' --height 0 2>/dev/null", glb) == 2);
    ENSURE(tl_test_cli(NULL, "sample tailed-biped 2>/dev/null") == 2);
}

static const tl_test_case cases[] = {
    {"list", test_list},
    {"bad_input", test_bad_input},
    {"biped_skeleton", test_biped_skeleton},
    {"mesh_shape", test_mesh_shape},
    {"deterministic", test_deterministic},
    {"cli", test_cli},
    {"biped_variants", test_biped_variants},
    {"quadruped_variants", test_quadruped_variants},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
