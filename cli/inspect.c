/* tailor inspect: the first look a rigger needs at a glTF file — skins as joint trees, meshes
 * and the skins that bind them, clips, rigid meshes hung on joints, and cheap structural
 * problems. The report is built once as JSON (docs/inspect.md); the human view prints that
 * same report, so the two cannot disagree. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the sections share while the report is built. */
typedef struct inspect {
    const tl_gltf* doc;
    const int32_t* joint_skin; /* per node: the first skin listing it as a joint, or TL_NONE */
    const int32_t* mesh_skin;  /* per mesh: the skin of the first node instancing it with one */
    uint32_t* stamp;           /* per node: scratch marks for de-duplication */
    const tl_scene* scene;     /* joint roles; NULL when the scene view could not be built */
} inspect;

static json_t* string_or_null(const char* s) {
    return s ? json_string(s) : json_null();
}
static json_t* index_or_null(int32_t i) {
    return i == TL_NONE ? json_null() : json_integer(i);
}

/* ---------------------------------------------------------------- file and scenes */

static void file_section(const tl_gltf* doc, const char* path, json_t* report) {
    struct stat st;
    json_t* asset = json_object_get(doc->json, "asset");
    json_t* used = json_object_get(doc->json, "extensionsUsed");
    json_t* extensions = json_array();
    size_t i;
    json_t* v;
    json_array_foreach(used, i, v) if (json_is_string(v)) json_array_append(extensions, v);
    json_object_set_new(report, "file", json_string(path));
    json_object_set_new(report, "format", json_string(doc->glb ? "glb" : "gltf"));
    json_object_set_new(report, "size",
                        stat(path, &st) == 0 ? json_integer(st.st_size) : json_null());
    json_object_set_new(report, "generator",
                        string_or_null(json_string_value(json_object_get(asset, "generator"))));
    json_object_set_new(report, "extensions_used", extensions);
    json_object_set_new(report, "nodes", json_integer(doc->node_count));
    json_object_set_new(report, "default_scene", index_or_null(doc->scene));
    json_t* scenes = json_array();
    for (uint32_t s = 0; s < doc->scene_count; ++s) {
        json_t* roots = json_array();
        for (uint32_t k = 0; k < doc->scenes[s].node_count; ++k)
            json_array_append_new(roots, json_integer(doc->scenes[s].nodes[k]));
        json_array_append_new(scenes,
                              json_pack("{s:I, s:o, s:o}", "index", (json_int_t)s, "name",
                                        string_or_null(doc->scenes[s].name), "roots", roots));
    }
    json_object_set_new(report, "scenes", scenes);
}

/* ---------------------------------------------------------------- skins */

static json_t* numbers_json(const float* v, int count) {
    json_t* a = json_array();
    for (int k = 0; k < count; ++k)
        json_array_append_new(a, json_real((double)v[k]));
    return a;
}

/* The body colliders the file stores for the skin (tl_scene_skin.colliders), rest-world. */
static json_t* colliders_json(const inspect* in, uint32_t s) {
    static const char* const shapes[] = {"sphere", "capsule", "plane", "ellipsoid"};
    json_t* list = json_array();
    const tl_scene_skin* sk = in->scene ? &in->scene->skins[s] : NULL;
    for (uint32_t k = 0; sk && k < sk->collider_count; ++k) {
        const tl_body_collider* c = &sk->colliders[k];
        const tl_collider* l = &c->local;
        json_t* o =
            json_pack("{s:I, s:I, s:o, s:s, s:s, s:s, s:o, s:I}", "joint", (json_int_t)c->joint,
                      "node", (json_int_t)sk->joints[c->joint].node, "name",
                      string_or_null(sk->joints[c->joint].name), "role", tl_role_string(c->role),
                      "side", tl_side_string(c->side), "shape", shapes[l->shape], "a",
                      numbers_json(l->a, 3), "vertices", (json_int_t)c->vertices);
        if (l->shape == TL_COLLIDER_CAPSULE || l->shape == TL_COLLIDER_PLANE)
            json_object_set_new(o, "b", numbers_json(l->b, 3));
        if (l->shape == TL_COLLIDER_SPHERE || l->shape == TL_COLLIDER_CAPSULE)
            json_object_set_new(o, "radius", json_real((double)l->radius));
        if (l->shape == TL_COLLIDER_ELLIPSOID) {
            json_t* axes = json_array();
            for (int e = 0; e < 3; ++e)
                json_array_append_new(axes, numbers_json(l->axes[e], 3));
            json_object_set_new(o, "axes", axes);
        }
        json_array_append_new(list, o);
    }
    return list;
}

/* The skin's pendulum and aim parts (tailor rig --pendulum / --aim, docs/schema.md), as read. */
static json_t* joint_parts_json(const inspect* in, uint32_t s) {
    json_t* list = json_array();
    const tl_scene* scene = in->scene;
    for (uint32_t i = 0; scene && i < scene->joint_part_count; ++i) {
        const tl_scene_part* sp = &scene->parts[scene->joint_parts[i]];
        if (sp->skin != s) continue;
        const tl_scene_joint* joints = scene->skins[s].joints;
        json_t* o =
            json_pack("{s:s,s:I,s:s}", "kind", tl_part_kind_string(sp->kind), "joint",
                      (json_int_t)sp->bone_joints[0], "name", joints[sp->bone_joints[0]].name);
        if (sp->kind == TL_PART_PENDULUM) {
            const tl_pendulum_def* d = &sp->pendulum;
            json_object_set_new(
                o, "pendulum",
                json_pack("{s:f,s:o,s:f,s:f,s:f,s:f,s:f}", "length", (double)d->length,
                          "rest_direction", numbers_json(d->rest_direction, 3), "gravity",
                          (double)d->gravity, "damping", (double)d->damping, "stiffness",
                          (double)d->stiffness, "max_angle_deg", (double)d->max_angle_deg,
                          "teleport_distance", (double)d->teleport_distance));
        } else {
            json_object_set_new(o, "target", json_integer(sp->aim_target));
            json_object_set_new(o, "target_name", json_string(joints[sp->aim_target].name));
            json_object_set_new(
                o, "aim",
                json_pack("{s:o,s:f,s:f}", "aim_axis", numbers_json(sp->aim.aim_axis, 3), "weight",
                          (double)sp->aim.weight, "max_angle_deg", (double)sp->aim.max_angle_deg));
        }
        json_array_append_new(list, o);
    }
    return list;
}

static json_t* skins_section(inspect* in) {
    const tl_gltf* doc = in->doc;
    json_t* skins = json_array();
    int32_t* local = malloc(sizeof *local * (doc->node_count + 1));
    if (!local) return skins;
    for (uint32_t i = 0; i < doc->node_count; ++i)
        local[i] = TL_NONE;
    for (uint32_t s = 0; s < doc->skin_count; ++s) {
        const tl_gltf_skin* skin = &doc->skins[s];
        for (uint32_t j = 0; j < skin->joint_count; ++j)
            if (local[skin->joints[j]] == TL_NONE) local[skin->joints[j]] = (int32_t)j;
        json_t* joints = json_array();
        for (uint32_t j = 0; j < skin->joint_count; ++j) {
            uint32_t node = skin->joints[j];
            /* The nearest ancestor in this skin, so helper nodes between joints do not break
             * the tree. */
            int32_t parent = TL_NONE;
            for (int32_t p = doc->nodes[node].parent; p != TL_NONE && parent == TL_NONE;
                 p = doc->nodes[p].parent)
                parent = local[p];
            json_t* role = json_null();
            json_t* side = json_null();
            if (in->scene) {
                const tl_scene_joint* sj = &in->scene->skins[s].joints[j];
                if (sj->role != TL_ROLE_NONE) role = json_string(tl_role_string(sj->role));
                if (sj->role != TL_ROLE_NONE && sj->side != TL_SIDE_NONE)
                    side = json_string(tl_side_string(sj->side));
            }
            json_array_append_new(
                joints, json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "index", (json_int_t)j, "node",
                                  (json_int_t)node, "name", string_or_null(doc->nodes[node].name),
                                  "parent", index_or_null(parent), "role", role, "side", side));
        }
        json_array_append_new(skins, json_pack("{s:I, s:o, s:I, s:o, s:o, s:o}", "index",
                                               (json_int_t)s, "name", string_or_null(skin->name),
                                               "joint_count", (json_int_t)skin->joint_count,
                                               "skeleton", index_or_null(skin->skeleton), "joints",
                                               joints, "colliders", colliders_json(in, s)));
        if (in->scene) { /* the character's frame (docs/scene.md "The character's axes") */
            const tl_scene_skin* sk = &in->scene->skins[s];
            json_t* o = json_array_get(skins, json_array_size(skins) - 1);
            json_object_set_new(o, "up", numbers_json(sk->up, 3));
            json_object_set_new(o, "forward", numbers_json(sk->forward, 3));
            json_object_set_new(o, "lateral", numbers_json(sk->lateral, 3));
            json_object_set_new(o, "frame_stored", json_boolean(sk->frame_stored));
            json_object_set_new(o, "height", json_real((double)sk->height));
            json_object_set_new(o, "floor", json_real((double)sk->floor));
            json_object_set_new(o, "joint_parts", joint_parts_json(in, s));
        }
        for (uint32_t j = 0; j < skin->joint_count; ++j)
            local[skin->joints[j]] = TL_NONE;
    }
    free(local);
    return skins;
}

/* ---------------------------------------------------------------- meshes */

static const char* mode_name(uint32_t mode) {
    static const char* names[] = {"points",    "lines",          "line_loop",   "line_strip",
                                  "triangles", "triangle_strip", "triangle_fan"};
    return mode < 7 ? names[mode] : "unknown";
}

static size_t triangle_count(const tl_gltf* doc, const tl_gltf_primitive* prim) {
    size_t n = prim->indices != TL_NONE ? doc->accessors[prim->indices].count
                                        : tl_gltf_primitive_vertex_count(doc, prim);
    if (prim->mode == 4) return n / 3;
    if (prim->mode == 5 || prim->mode == 6) return n > 2 ? n - 2 : 0;
    return 0;
}

static json_t* meshes_section(inspect* in, json_int_t* total_vertices) {
    const tl_gltf* doc = in->doc;
    json_t* meshes = json_array();
    for (uint32_t m = 0; m < doc->mesh_count; ++m) {
        const tl_gltf_mesh* mesh = &doc->meshes[m];
        json_t* prims = json_array();
        for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
            const tl_gltf_primitive* prim = &mesh->primitives[p];
            size_t vertices = tl_gltf_primitive_vertex_count(doc, prim);
            *total_vertices += (json_int_t)vertices;
            json_array_append_new(prims,
                                  json_pack("{s:s, s:I, s:I, s:o, s:I, s:I}", "mode",
                                            mode_name(prim->mode), "vertices", (json_int_t)vertices,
                                            "triangles", (json_int_t)triangle_count(doc, prim),
                                            "skin", index_or_null(in->mesh_skin[m]), "joint_sets",
                                            (json_int_t)prim->joint_set_count, "morph_targets",
                                            (json_int_t)prim->target_count));
        }
        json_array_append_new(meshes, json_pack("{s:I, s:o, s:o}", "index", (json_int_t)m, "name",
                                                string_or_null(mesh->name), "primitives", prims));
    }
    return meshes;
}

/* ---------------------------------------------------------------- animations */

/* An accessor's first min or max: the file's "min"/"max" when given, else read from the data. */
static double accessor_bound(const tl_gltf* doc, uint32_t a, bool want_max) {
    json_t* obj = json_array_get(json_object_get(doc->json, "accessors"), a);
    json_t* stored = json_array_get(json_object_get(obj, want_max ? "max" : "min"), 0);
    if (json_is_number(stored)) return json_number_value(stored);
    size_t n = doc->accessors[a].count;
    float* values = malloc(sizeof *values * (n + 1));
    double bound = 0;
    if (values && tl_gltf_accessor_read_float(doc, a, values, n, NULL) == TL_OK && n > 0) {
        bound = values[0];
        for (size_t i = 1; i < n; ++i)
            bound = want_max ? fmax(bound, values[i]) : fmin(bound, values[i]);
    }
    free(values);
    return bound;
}

static json_t* animations_section(inspect* in) {
    const tl_gltf* doc = in->doc;
    json_t* animations = json_array();
    for (uint32_t a = 0; a < doc->animation_count; ++a) {
        const tl_gltf_animation* anim = &doc->animations[a];
        double start = 0, end = 0;
        for (uint32_t s = 0; s < anim->sampler_count; ++s) {
            double lo = accessor_bound(doc, anim->samplers[s].input, false);
            double hi = accessor_bound(doc, anim->samplers[s].input, true);
            start = s == 0 ? lo : fmin(start, lo);
            end = s == 0 ? hi : fmax(end, hi);
        }
        json_t* joints = json_array();
        uint32_t nodes_animated = 0;
        for (uint32_t c = 0; c < anim->channel_count; ++c) {
            int32_t node = anim->channels[c].node;
            if (node == TL_NONE || in->stamp[node] == a + 1) continue;
            in->stamp[node] = a + 1;
            ++nodes_animated;
            if (in->joint_skin[node] != TL_NONE)
                json_array_append_new(joints, string_or_null(doc->nodes[node].name));
        }
        json_array_append_new(animations,
                              json_pack("{s:I, s:o, s:f, s:f, s:I, s:I, s:o}", "index",
                                        (json_int_t)a, "name", string_or_null(anim->name), "start",
                                        start, "duration", end, "channels",
                                        (json_int_t)anim->channel_count, "nodes_animated",
                                        (json_int_t)nodes_animated, "joints_animated", joints));
    }
    return animations;
}

/* ---------------------------------------------------------------- rigid attachments */

/* Unskinned meshes that ride on a joint (a helmet, a cape, antlers): they move rigidly. */
static json_t* attachments_section(inspect* in) {
    const tl_gltf* doc = in->doc;
    json_t* list = json_array();
    for (uint32_t i = 0; i < doc->node_count; ++i) {
        const tl_gltf_node* node = &doc->nodes[i];
        if (node->mesh == TL_NONE || node->skin != TL_NONE) continue;
        int32_t joint = node->parent;
        while (joint != TL_NONE && in->joint_skin[joint] == TL_NONE)
            joint = doc->nodes[joint].parent;
        if (joint == TL_NONE) continue;
        json_array_append_new(
            list, json_pack("{s:I, s:o, s:I, s:I, s:o, s:I}", "node", (json_int_t)i, "name",
                            string_or_null(node->name), "mesh", (json_int_t)node->mesh, "joint",
                            (json_int_t)joint, "joint_name", string_or_null(doc->nodes[joint].name),
                            "skin", (json_int_t)in->joint_skin[joint]));
    }
    return list;
}

static json_t* problem_json(const char* code, const char* message) {
    return json_pack("{s:s, s:s}", "code", code, "message", message);
}

static json_t* build_report(const tl_gltf* doc, const char* path) {
    inspect in = {doc};
    tl_gltf_checks* checks = NULL;
    in.stamp = calloc(doc->node_count + 1, sizeof *in.stamp);
    json_t* problems = json_array();
    json_t* report = json_object();
    tl_scene* scene = NULL;
    tl_error err;
    if (in.stamp && problems && report && tl_gltf_check(doc, &checks, &err) == TL_OK) {
        in.joint_skin = checks->joint_skin;
        in.mesh_skin = checks->mesh_skin;
        /* Roles need the whole scene view, which refuses some broken data the report still
         * shows. */
        if (doc->skin_count && tl_scene_create(doc, &scene, &err) != TL_OK) {
            char message[512];
            snprintf(message, sizeof message, "joint roles not found: %.488s", err.message);
            json_array_append_new(problems, problem_json("ROLES_UNAVAILABLE", message));
        }
        for (uint32_t i = 0; i < checks->problem_count; ++i)
            json_array_append_new(
                problems, problem_json(checks->problems[i].code, checks->problems[i].message));
        in.scene = scene;
        file_section(doc, path, report);
        json_object_set_new(report, "skins", skins_section(&in));
        json_int_t vertices = 0;
        json_object_set_new(report, "meshes", meshes_section(&in, &vertices));
        json_object_set_new(report, "vertices", json_integer(vertices));
        json_object_set_new(report, "animations", animations_section(&in));
        json_object_set_new(report, "rigid_attachments", attachments_section(&in));
        json_object_set_new(report, "problems", json_incref(problems));
    } else {
        json_decref(report);
        report = NULL;
    }
    tl_scene_destroy(scene);
    tl_gltf_checks_destroy(checks);
    json_decref(problems);
    free(in.stamp);
    return report;
}

/* ---------------------------------------------------------------- the human view */

static const char* str(json_t* obj, const char* key, const char* fallback) {
    const char* s = json_string_value(json_object_get(obj, key));
    return s ? s : fallback;
}
static json_int_t num(json_t* obj, const char* key) {
    return json_integer_value(json_object_get(obj, key));
}
/* An index, or "-" for null, right-aligned in `width`. */
static void print_index(json_t* value, int width) {
    if (json_is_integer(value))
        printf("%*lld", width, (long long)json_integer_value(value));
    else
        printf("%*s", width, "-");
}

/* " 'name'", or nothing for a null name. */
static void print_name(json_t* name) {
    if (json_is_string(name)) printf(" '%s'", json_string_value(name));
}

static void print_file(json_t* r) {
    double size = (double)num(r, "size");
    printf("%s: %s, %.1f %s, generator \"%s\"\n", str(r, "file", "?"),
           !strcmp(str(r, "format", ""), "glb") ? "GLB" : "glTF JSON",
           size >= 1 << 20 ? size / (1 << 20) : size / 1024, size >= 1 << 20 ? "MiB" : "KiB",
           str(r, "generator", "none"));
    json_t* ext = json_object_get(r, "extensions_used");
    printf("extensions used: ");
    if (!json_array_size(ext)) printf("none");
    size_t i;
    json_t* v;
    json_array_foreach(ext, i, v) printf("%s%s", i ? ", " : "", json_string_value(v));
    printf("\n%lld nodes, %zu scene(s):", (long long)num(r, "nodes"),
           json_array_size(json_object_get(r, "scenes")));
    json_int_t def =
        json_is_integer(json_object_get(r, "default_scene")) ? num(r, "default_scene") : -1;
    json_array_foreach(json_object_get(r, "scenes"), i, v) {
        size_t roots = json_array_size(json_object_get(v, "roots"));
        printf(" %lld", (long long)num(v, "index"));
        print_name(json_object_get(v, "name"));
        printf(" (%zu root%s%s)", roots, roots == 1 ? "" : "s",
               num(v, "index") == def ? ", default" : "");
    }
    printf("\n");
}

/* Children lists of a skin's joint tree: first[j] and next[k] (SIZE_MAX ends a list), in
 * skin order, built once so that printing a tree is linear in its joints. */
typedef struct joint_tree {
    size_t *first, *next, *last;
} joint_tree;

/* Prints a joint and its subtree, children in skin order. */
static void print_joint(json_t* joints, const joint_tree* tree, size_t j, int depth, int width,
                        bool roles) {
    json_t* joint = json_array_get(joints, j);
    int indent = 2 * depth;
    const char* name = str(joint, "name", "(unnamed)");
    if (roles)
        printf("  %5lld  %*s%-*s  %s%s%s\n", (long long)num(joint, "index"), indent, "",
               width - indent, name, str(joint, "side", ""),
               json_is_string(json_object_get(joint, "side")) ? " " : "", str(joint, "role", "-"));
    else
        printf("  %5lld  %*s%s\n", (long long)num(joint, "index"), indent, "", name);
    for (size_t k = tree->first[j]; k != SIZE_MAX; k = tree->next[k])
        print_joint(joints, tree, k, depth + 1, width, roles);
}

static int joint_depth(json_t* joints, json_t* joint) {
    int depth = 0;
    json_t* parent;
    while (json_is_integer(parent = json_object_get(joint, "parent")) &&
           depth < (int)json_array_size(joints)) {
        joint = json_array_get(joints, (size_t)json_integer_value(parent));
        ++depth;
    }
    return depth;
}

static double vector_length(json_t* v) {
    double d2 = 0;
    for (size_t k = 0; k < 3; ++k) {
        double x = json_number_value(json_array_get(v, k));
        d2 += x * x;
    }
    return sqrt(d2);
}

/* "frame: up …, forward …, lateral …" (rest-world) and where it comes from. */
static void print_frame(json_t* skin) {
    static const char* const keys[3] = {"up", "forward", "lateral"};
    if (!json_is_array(json_object_get(skin, "up"))) return;
    printf("  frame:");
    for (int k = 0; k < 3; ++k) {
        json_t* v = json_object_get(skin, keys[k]);
        printf("%s %s (%.4g, %.4g, %.4g)", k ? "," : "", keys[k],
               json_number_value(json_array_get(v, 0)), json_number_value(json_array_get(v, 1)),
               json_number_value(json_array_get(v, 2)));
    }
    printf(" (%s)\n", json_is_true(json_object_get(skin, "frame_stored"))
                          ? "stored by tailor rig, rest-world"
                          : "from the joints' roles, rest-world");
}

/* "body colliders: …", one line each: shape, joint, role and side, size (rest-world units). */
static void print_colliders(json_t* colliders) {
    size_t n = json_array_size(colliders), k;
    json_t* c;
    printf("  body colliders: %zu%s\n", n, n ? " (stored by tailor rig; rest-world units)" : "");
    json_array_foreach(colliders, k, c) {
        const char* shape = str(c, "shape", "?");
        const char* side = str(c, "side", "none");
        printf("  %5zu  %-9s on %lld '%s' (%s%s%s): ", k, shape, (long long)num(c, "joint"),
               str(c, "name", ""), strcmp(side, "none") ? side : "",
               strcmp(side, "none") ? " " : "", str(c, "role", "none"));
        json_t *a = json_object_get(c, "a"), *b = json_object_get(c, "b");
        if (!strcmp(shape, "ellipsoid")) {
            json_t* axes = json_object_get(c, "axes");
            printf("radii %.4g %.4g %.4g", vector_length(json_array_get(axes, 0)),
                   vector_length(json_array_get(axes, 1)), vector_length(json_array_get(axes, 2)));
        } else if (!strcmp(shape, "plane")) {
            printf("normal %.3g %.3g %.3g", json_number_value(json_array_get(b, 0)),
                   json_number_value(json_array_get(b, 1)),
                   json_number_value(json_array_get(b, 2)));
        } else {
            printf("radius %.4g", json_number_value(json_object_get(c, "radius")));
            if (!strcmp(shape, "capsule")) {
                double d2 = 0;
                for (size_t i = 0; i < 3; ++i) {
                    double d = json_number_value(json_array_get(b, i)) -
                               json_number_value(json_array_get(a, i));
                    d2 += d * d;
                }
                printf(", length %.4g", sqrt(d2));
            }
        }
        printf(", %s %.4g %.4g %.4g, %lld vertices\n",
               !strcmp(shape, "capsule") ? "from"
               : !strcmp(shape, "plane") ? "through"
                                         : "centre",
               json_number_value(json_array_get(a, 0)), json_number_value(json_array_get(a, 1)),
               json_number_value(json_array_get(a, 2)), (long long)num(c, "vertices"));
    }
}

/* "pendulum/aim parts: …", one line each (metres of a 1.8 m character, the joint's frame). */
static void print_joint_parts(json_t* parts) {
    size_t k;
    json_t* p;
    if (json_array_size(parts))
        printf("  pendulum/aim parts: %zu (stored by tailor rig)\n", json_array_size(parts));
    json_array_foreach(parts, k, p) {
        json_t* d = json_object_get(p, "pendulum");
        if (d) {
            json_t* r = json_object_get(d, "rest_direction");
            printf("    pendulum on joint %lld '%s': length %.3g m, rest (%.3g %.3g %.3g), "
                   "stiffness %.3g, damping %.3g, within %.4g deg\n",
                   (long long)num(p, "joint"), str(p, "name", ""),
                   json_number_value(json_object_get(d, "length")),
                   json_number_value(json_array_get(r, 0)), json_number_value(json_array_get(r, 1)),
                   json_number_value(json_array_get(r, 2)),
                   json_number_value(json_object_get(d, "stiffness")),
                   json_number_value(json_object_get(d, "damping")),
                   json_number_value(json_object_get(d, "max_angle_deg")));
            continue;
        }
        d = json_object_get(p, "aim");
        json_t* x = json_object_get(d, "aim_axis");
        printf("    aim on joint %lld '%s' at joint %lld '%s': axis (%.3g %.3g %.3g), weight %.3g, "
               "at most %.4g deg\n",
               (long long)num(p, "joint"), str(p, "name", ""), (long long)num(p, "target"),
               str(p, "target_name", ""), json_number_value(json_array_get(x, 0)),
               json_number_value(json_array_get(x, 1)), json_number_value(json_array_get(x, 2)),
               json_number_value(json_object_get(d, "weight")),
               json_number_value(json_object_get(d, "max_angle_deg")));
    }
}

static void print_skins(json_t* r) {
    size_t i, j;
    json_t *skin, *joint;
    json_array_foreach(json_object_get(r, "skins"), i, skin) {
        json_t* joints = json_object_get(skin, "joints");
        json_t* skeleton = json_object_get(skin, "skeleton");
        printf("\nskin %zu", i);
        print_name(json_object_get(skin, "name"));
        printf(": %lld joints, ", (long long)num(skin, "joint_count"));
        if (json_is_integer(skeleton))
            printf("skeleton node %lld", (long long)json_integer_value(skeleton));
        else
            printf("no skeleton");
        bool roles = false;
        int width = 5;
        json_array_foreach(joints, j, joint) {
            int w = 2 * joint_depth(joints, joint) + (int)strlen(str(joint, "name", "(unnamed)"));
            if (w > width) width = w;
            roles |= json_is_string(json_object_get(joint, "role"));
        }
        if (roles)
            printf("\n  joint  %-*s  role\n", width, "name");
        else
            printf("\n  joint  name\n");
        size_t n = json_array_size(joints);
        joint_tree tree = {malloc(sizeof(size_t) * (n + 1)), malloc(sizeof(size_t) * (n + 1)),
                           malloc(sizeof(size_t) * (n + 1))};
        if (!tree.first || !tree.next || !tree.last) {
            free(tree.first), free(tree.next), free(tree.last);
            printf("  (out of memory listing the joints)\n");
            continue;
        }
        for (size_t k = 0; k < n; ++k)
            tree.first[k] = tree.next[k] = tree.last[k] = SIZE_MAX;
        json_array_foreach(joints, j, joint) {
            json_t* parent = json_object_get(joint, "parent");
            size_t p = json_is_integer(parent) ? (size_t)json_integer_value(parent) : SIZE_MAX;
            if (p >= n || p == j) continue;
            if (tree.first[p] == SIZE_MAX)
                tree.first[p] = j;
            else
                tree.next[tree.last[p]] = j;
            tree.last[p] = j;
        }
        json_array_foreach(joints, j, joint) {
            if (json_is_null(json_object_get(joint, "parent")))
                print_joint(joints, &tree, j, 0, width, roles);
        }
        free(tree.first), free(tree.next), free(tree.last);
        print_frame(skin);
        print_colliders(json_object_get(skin, "colliders"));
        print_joint_parts(json_object_get(skin, "joint_parts"));
    }
}

static void print_meshes(json_t* r) {
    json_t* meshes = json_object_get(r, "meshes");
    size_t i, p;
    json_t *mesh, *prim;
    int width = 4;
    json_array_foreach(meshes, i, mesh) {
        int w = (int)strlen(str(mesh, "name", ""));
        if (w > width) width = w;
    }
    printf("\n%zu mesh(es), %lld vertices\n", json_array_size(meshes),
           (long long)num(r, "vertices"));
    if (!json_array_size(meshes)) return;
    printf("  mesh  prim  %-*s  mode            verts     tris  skin  sets  morphs\n", width,
           "name");
    json_array_foreach(meshes, i, mesh) {
        json_array_foreach(json_object_get(mesh, "primitives"), p, prim) {
            printf("  %4zu  %4zu  %-*s  %-14s %6lld %8lld  ", i, p, width,
                   p ? "" : str(mesh, "name", ""), str(prim, "mode", ""),
                   (long long)num(prim, "vertices"), (long long)num(prim, "triangles"));
            print_index(json_object_get(prim, "skin"), 4);
            printf("  %4lld  %6lld\n", (long long)num(prim, "joint_sets"),
                   (long long)num(prim, "morph_targets"));
        }
    }
}

/* ": a, b, c +N more" within about `room` characters; the JSON has every name. */
static void print_names(json_t* names, int room) {
    size_t j;
    json_t* name;
    json_array_foreach(names, j, name) {
        const char* s = json_is_string(name) ? json_string_value(name) : "(unnamed)";
        if ((int)strlen(s) + 2 > room) {
            printf(" +%zu more", json_array_size(names) - j);
            return;
        }
        printf("%s%s", j ? ", " : ": ", s);
        room -= (int)strlen(s) + 2;
    }
}

static void print_animations(json_t* r) {
    json_t* animations = json_object_get(r, "animations");
    size_t i;
    json_t* anim;
    int width = 4;
    json_array_foreach(animations, i, anim) {
        int w = (int)strlen(str(anim, "name", ""));
        if (w > width) width = w;
    }
    /* With one skin, a clip that moves all of it says so instead of listing every name. */
    json_t* skins = json_object_get(r, "skins");
    size_t all =
        json_array_size(skins) == 1 ? (size_t)num(json_array_get(skins, 0), "joint_count") : 0;
    printf("\n%zu animation(s)\n", json_array_size(animations));
    if (!json_array_size(animations)) return;
    printf("  anim  %-*s  duration  channels  joints animated\n", width, "name");
    json_array_foreach(animations, i, anim) {
        json_t* joints = json_object_get(anim, "joints_animated");
        printf("  %4zu  %-*s  %7.3fs  %8lld  %zu", i, width, str(anim, "name", ""),
               json_number_value(json_object_get(anim, "duration")),
               (long long)num(anim, "channels"), json_array_size(joints));
        if (all && json_array_size(joints) == all)
            printf(" (all)");
        else
            print_names(joints, 60);
        printf("\n");
    }
}

static void print_attachments(json_t* r) {
    json_t* list = json_object_get(r, "rigid_attachments");
    size_t i;
    json_t* a;
    if (!json_array_size(list)) return;
    int width = 4;
    json_array_foreach(list, i, a) {
        int w = (int)strlen(str(a, "name", ""));
        if (w > width) width = w;
    }
    printf("\n%zu rigid attachment(s): unskinned meshes under a joint\n", json_array_size(list));
    printf("  node  %-*s  mesh  joint\n", width, "name");
    json_array_foreach(list, i, a) {
        printf("  %4lld  %-*s  %4lld  %s (node %lld)\n", (long long)num(a, "node"), width,
               str(a, "name", ""), (long long)num(a, "mesh"), str(a, "joint_name", "(unnamed)"),
               (long long)num(a, "joint"));
    }
}

static void print_problems(json_t* r) {
    json_t* list = json_object_get(r, "problems");
    size_t i;
    json_t* p;
    printf("\n%zu problem(s)\n", json_array_size(list));
    json_array_foreach(list, i, p)
        printf("  %-34s %s\n", str(p, "code", ""), str(p, "message", ""));
}

int tl_cli_inspect(int argc, char** argv) {
    const char* path = NULL;
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--json"))
            as_json = true;
        else if (tl_cli_is_help(argv[i])) {
            printf(
                "usage: tailor inspect FILE [--json]\n"
                "  Shows a glTF's skins (joint trees), meshes and the skins binding them, clips,\n"
                "  unskinned meshes hung on joints, and structural problems.\n"
                "  --json  the same as one JSON document (schema: docs/inspect.md)\n");
            return 0;
        } else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            return tl_cli_fail("inspect", "unknown argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!path) return tl_cli_fail("inspect", "expected FILE (see --help)"), 2;
    tl_gltf* doc;
    tl_error err;
    if (tl_gltf_load(path, &doc, &err) != TL_OK) return tl_cli_fail("inspect", "%s", err.message);
    json_t* report = build_report(doc, path);
    if (report) json_object_set_new(report, "vrm_springs", tl_cli_vrm_springs_json(doc));
    tl_gltf_destroy(doc);
    if (!report) return tl_cli_fail("inspect", "%s: out of memory", path);
    if (as_json) {
        int code =
            tl_cli_json_out("inspect", path, report, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
        json_decref(report);
        return code;
    } else {
        print_file(report);
        print_skins(report);
        print_meshes(report);
        print_animations(report);
        print_attachments(report);
        tl_cli_vrm_springs_print(json_object_get(report, "vrm_springs"));
        print_problems(report);
    }
    json_decref(report);
    return 0;
}
