/* tailor inspect, checked against sources that share no code with it: the "Automated summary"
 * (python) in each shared/assets SOURCE.md, the Khronos glTF-Validator, and the file's own
 * JSON node hierarchy read here without the library. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/tailor.h>

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Runs `tailor inspect PATH --json` and parses its output; NULL (with a failure) on error. */
static json_t* inspect_json(const char* path) {
    char* out = NULL;
    int code = tl_test_cli(&out, "inspect '%s' --json", path);
    json_error_t jerr;
    json_t* report = code == 0 && out ? json_loads(out, 0, &jerr) : NULL;
    if (!report)
        tl_test_failf(__FILE__, __LINE__, "inspect %s: exit %d, %s", path, code,
                      code == 0 ? jerr.text : "(failed)");
    free(out);
    return report;
}

static json_int_t num(json_t* obj, const char* key) {
    return json_integer_value(json_object_get(obj, key));
}

/* A python repr of a string ('x' or "x", backslash escapes) or None, as a C string (NULL for
 * None) in `out`. Returns false when `s` is neither. */
static bool python_string(const char* s, size_t n, char* out, size_t cap, bool* is_none) {
    *is_none = n == 4 && !strncmp(s, "None", 4);
    if (*is_none) return true;
    if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0]) return false;
    size_t k = 0;
    for (size_t i = 1; i + 1 < n && k + 1 < cap; ++i) {
        if (s[i] == '\\' && i + 2 < n) ++i;
        out[k++] = s[i];
    }
    out[k] = '\0';
    return true;
}

/* Compares a JSON string-or-null with a python repr found in the summary. */
static bool same_name(json_t* value, const char* repr, size_t n) {
    char buf[512];
    bool none;
    if (!python_string(repr, n, buf, sizeof buf, &none)) return false;
    return none ? json_is_null(value)
                : json_is_string(value) && !strcmp(json_string_value(value), buf);
}

/* The summary facts seen, so that a block the parser does not understand fails. */
typedef struct seen {
    bool nodes, vertices, meshes, skins, animations, rigid;
    size_t anim_lines, skin_lines, joint_lines;
} seen;

static void check_rigid(json_t* list, const char* text) {
    if (!strcmp(text, "none")) {
        ENSURE_MSG(json_array_size(list) == 0, "expected no rigid attachments, got %zu",
                   json_array_size(list));
        return;
    }
    /* 'NAME' (mesh M) under joint 'JOINT'; … */
    size_t count = 0;
    for (const char* p = text; *p; ++count) {
        const char* end = strstr(p, "; ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char item[600];
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        const char* mesh = strstr(item, " (mesh ");
        const char* joint = strstr(item, ") under joint ");
        ENSURE_MSG(mesh && joint, "cannot parse rigid attachment \"%s\"", item);
        json_t* a = json_array_get(list, count);
        ENSURE_MSG(a, "rigid attachment %zu (%s) missing", count, item);
        ENSURE_MSG(same_name(json_object_get(a, "name"), item, (size_t)(mesh - item)),
                   "rigid attachment %zu: name is not %s", count, item);
        ENSURE(num(a, "mesh") == atoll(mesh + 7));
        ENSURE_MSG(same_name(json_object_get(a, "joint_name"), joint + 14, strlen(joint + 14)),
                   "rigid attachment %zu (%s): joint is %s", count, item,
                   json_string_value(json_object_get(a, "joint_name")));
        p = end ? end + 2 : p + n;
    }
    ENSURE_MSG(json_array_size(list) == count, "%zu rigid attachments, summary lists %zu",
               json_array_size(list), count);
}

static void check_mesh_line(json_t* r, const char* line) {
    unsigned m, prims, morphs;
    long long verts, tris;
    const char* name = strstr(line, "name=");
    const char* rest = strstr(line, " prims=");
    ENSURE(sscanf(line, " mesh[%u]", &m) == 1 && name && rest);
    ENSURE(sscanf(rest, " prims=%u verts=%lld tris=%lld morphTargets=%u", &prims, &verts, &tris,
                  &morphs) == 4);
    json_t* mesh = json_array_get(json_object_get(r, "meshes"), m);
    ENSURE_MSG(mesh, "mesh %u missing", m);
    ENSURE_MSG(same_name(json_object_get(mesh, "name"), name + 5, (size_t)(rest - name - 5)),
               "mesh %u name", m);
    json_t* list = json_object_get(mesh, "primitives");
    ENSURE(json_array_size(list) == prims);
    long long v = 0, t = 0;
    size_t i;
    json_t* prim;
    json_array_foreach(list, i, prim) {
        v += num(prim, "vertices");
        t += num(prim, "triangles");
        ENSURE(num(prim, "morph_targets") == morphs);
    }
    ENSURE_MSG(v == verts, "mesh %u: %lld vertices, summary says %lld", m, v, verts);
    ENSURE_MSG(t == tris, "mesh %u: %lld triangles, summary says %lld", m, t, tris);
    /* attrs lists the first primitive's attributes */
    bool skinned = strstr(line, "'JOINTS_0'") != NULL;
    ENSURE(skinned == (num(json_array_get(list, 0), "joint_sets") > 0));
}

static void check_skin_line(json_t* r, const char* line, unsigned* current) {
    unsigned s, joints;
    const char* name = strstr(line, "name=");
    const char* rest = strstr(line, " joints=");
    ENSURE(sscanf(line, " skin[%u]", &s) == 1 && name && rest);
    char skeleton[32];
    ENSURE(sscanf(rest, " joints=%u skeleton=%31s", &joints, skeleton) == 2);
    json_t* skin = json_array_get(json_object_get(r, "skins"), s);
    ENSURE_MSG(skin, "skin %u missing", s);
    ENSURE(same_name(json_object_get(skin, "name"), name + 5, (size_t)(rest - name - 5)));
    ENSURE(num(skin, "joint_count") == joints);
    ENSURE(json_array_size(json_object_get(skin, "joints")) == joints);
    if (!strcmp(skeleton, "None"))
        ENSURE(json_is_null(json_object_get(skin, "skeleton")));
    else
        ENSURE(num(skin, "skeleton") == atoll(skeleton));
    *current = s;
}

static void check_joint_names(json_t* r, unsigned s, const char* list) {
    json_t* joints = json_object_get(json_array_get(json_object_get(r, "skins"), s), "joints");
    size_t j = 0;
    for (const char* p = list; *p; ++j) {
        const char* end = strstr(p, ", ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        json_t* joint = json_array_get(joints, j);
        const char* name = json_string_value(json_object_get(joint, "name"));
        ENSURE_MSG(joint && num(joint, "index") == (json_int_t)j, "skin %u joint %zu missing", s,
                   j);
        ENSURE_MSG(name && strlen(name) == n && !strncmp(name, p, n),
                   "skin %u joint %zu: %s, not %.*s", s, j, name ? name : "null", (int)n, p);
        p = end ? end + 2 : p + n;
    }
    ENSURE_MSG(j == json_array_size(joints), "skin %u: %zu joints, summary names %zu", s,
               json_array_size(joints), j);
}

static void check_node_line(json_t* r, const char* line) {
    unsigned mesh;
    char skin[32];
    const char* arrow = strstr(line, " -> mesh ");
    ENSURE(arrow && sscanf(arrow, " -> mesh %u skin=%31s", &mesh, skin) == 2);
    json_t* prims =
        json_object_get(json_array_get(json_object_get(r, "meshes"), mesh), "primitives");
    ENSURE(json_array_size(prims) > 0);
    size_t i;
    json_t* prim;
    json_array_foreach(prims, i, prim) {
        json_t* bound = json_object_get(prim, "skin");
        if (!strcmp(skin, "None"))
            ENSURE_MSG(json_is_null(bound), "%s: mesh has a skin", line);
        else
            ENSURE_MSG(json_integer_value(bound) == atoll(skin) && json_is_integer(bound), "%s",
                       line);
    }
}

static void check_anim_line(json_t* r, const char* line, size_t index) {
    const char* name = line + strlen("  anim ");
    const char* rest = strstr(line, ": channels=");
    unsigned channels;
    double duration, t0, t1;
    const char* times = rest ? strstr(rest, " (t ") : NULL;
    const char* dots = times ? strstr(times, "..") : NULL; /* "0..2": %lf would eat "0." */
    ENSURE_MSG(dots && sscanf(rest, ": channels=%u duration=%lfs", &channels, &duration) == 2 &&
                   sscanf(times, " (t %lf", &t0) == 1 && sscanf(dots, "..%lf)", &t1) == 1,
               "cannot parse \"%s\"", line);
    json_t* anim = json_array_get(json_object_get(r, "animations"), index);
    ENSURE_MSG(anim, "animation %zu missing", index);
    ENSURE_MSG(same_name(json_object_get(anim, "name"), name, (size_t)(rest - name)),
               "animation %zu is not %.*s", index, (int)(rest - name), name);
    ENSURE(num(anim, "channels") == channels);
    /* Key times are float32 in the file; the summary prints them as doubles. */
    double start = json_number_value(json_object_get(anim, "start"));
    double end = json_number_value(json_object_get(anim, "duration"));
    ENSURE_NEAR(end, t1, 1e-6 * fmax(1, t1));
    ENSURE_NEAR(start, t0, 1e-6 * fmax(1, t1));
    /* "duration=X.XXXs" is t1 - t0 rounded to 3 decimals. */
    ENSURE_NEAR(end - start, duration, 0.0005 + 1e-6);
    ENSURE(json_array_size(json_object_get(anim, "joints_animated")) > 0);
    ENSURE(json_array_size(json_object_get(anim, "joints_animated")) <=
           (size_t)num(anim, "nodes_animated"));
}

/* Checks one "file: …" block of a summary (lines up to the closing fence). */
static void check_block(const char* folder, char* block) {
    char name[256], path[4700];
    ENSURE(sscanf(block, "file: %255s", name) == 1);
    snprintf(path, sizeof path, "%s/%s", folder, name);
    json_t* r = inspect_json(path);
    if (!r) return;
    seen s = {0};
    unsigned skin = 0;
    long long n;
    for (char* line = strtok(block, "\n"); line && !tl_test_failed; line = strtok(NULL, "\n")) {
        if (sscanf(line, "node count: %lld", &n) == 1) {
            s.nodes = true;
            ENSURE_MSG(num(r, "nodes") == n, "%s: %lld nodes, summary %lld", path,
                       (long long)num(r, "nodes"), n);
        } else if (sscanf(line, "total mesh vertices: %lld", &n) == 1) {
            s.vertices = true;
            ENSURE_MSG(num(r, "vertices") == n, "%s: %lld vertices, summary %lld", path,
                       (long long)num(r, "vertices"), n);
        } else if (sscanf(line, "meshes: %lld", &n) == 1) {
            s.meshes = true;
            ENSURE((long long)json_array_size(json_object_get(r, "meshes")) == n);
        } else if (sscanf(line, "skins: %lld", &n) == 1) {
            s.skins = true;
            ENSURE((long long)json_array_size(json_object_get(r, "skins")) == n);
        } else if (sscanf(line, "animations: %lld", &n) == 1) {
            s.animations = true;
            ENSURE((long long)json_array_size(json_object_get(r, "animations")) == n);
        } else if (!strncmp(line, "  mesh[", 7)) {
            check_mesh_line(r, line);
        } else if (!strncmp(line, "  skin[", 7)) {
            ++s.skin_lines;
            check_skin_line(r, line, &skin);
        } else if (!strncmp(line, "    joints: ", 12)) {
            ++s.joint_lines;
            check_joint_names(r, skin, line + 12);
        } else if (!strncmp(line, "  node[", 7)) {
            check_node_line(r, line);
        } else if (!strncmp(line, "  anim ", 7)) {
            check_anim_line(r, line, s.anim_lines++);
        } else if (!strncmp(line, "rigid (unskinned) meshes parented under a joint: ", 49)) {
            s.rigid = true;
            check_rigid(json_object_get(r, "rigid_attachments"), line + 49);
        }
    }
    if (!tl_test_failed) {
        ENSURE_MSG(s.nodes && s.vertices && s.meshes && s.skins && s.animations && s.rigid,
                   "%s: summary block incomplete", path);
        ENSURE(s.skin_lines == json_array_size(json_object_get(r, "skins")));
        ENSURE(s.joint_lines == s.skin_lines);
        ENSURE_MSG(s.anim_lines == json_array_size(json_object_get(r, "animations")),
                   "%s: %zu anim lines for %zu animations", path, s.anim_lines,
                   json_array_size(json_object_get(r, "animations")));
    }
    if (tl_test_failed) fprintf(stderr, "  in %s\n", path);
    json_decref(r);
}

/* Every asset's report agrees with its SOURCE.md summary, and every asset file has one. */
static void matches_source_summaries(void) {
    const char* assets = tl_test_shared("assets");
    char root[4096];
    snprintf(root, sizeof root, "%s", assets);
    DIR* d = opendir(root);
    ENSURE_MSG(d, "cannot open %s", root);
    size_t checked = 0;
    struct dirent* e;
    while ((e = readdir(d)) && !tl_test_failed) {
        if (e->d_name[0] == '.') continue;
        char folder[4400], md[4420];
        snprintf(folder, sizeof folder, "%s/%s", root, e->d_name);
        snprintf(md, sizeof md, "%s/SOURCE.md", folder);
        size_t size;
        char* text = (char*)tl_test_read_file(md, &size);
        if (!text) continue;
        text = realloc(text, size + 1);
        text[size] = '\0';
        /* Blocks run from "file: " to the closing fence; the makehuman folders have none. */
        for (char* p = strstr(text, "\nfile: "); p && !tl_test_failed; p = strstr(p, "\nfile: ")) {
            char* end = strstr(p, "\n```");
            if (!end) break;
            *end = '\0';
            check_block(folder, p + 1);
            ++checked;
            p = end + 1;
        }
        free(text);
    }
    closedir(d);
    if (tl_test_failed) return;
    const char** files;
    size_t count = tl_test_shared_files(&files), asset_files = 0;
    for (size_t i = 0; i < count; ++i)
        asset_files += strstr(files[i], "/assets/") != NULL;
    ENSURE_MSG(checked == asset_files && checked > 0, "%zu summaries checked, %zu asset files",
               checked, asset_files);
}

/* The JSON chunk of a GLB (or a .gltf's text) parsed here, without the library. */
static json_t* raw_json(const char* path) {
    size_t size;
    unsigned char* bytes = tl_test_read_file(path, &size);
    if (!bytes) return NULL;
    json_t* root = NULL;
    if (size >= 20 && !memcmp(bytes, "glTF", 4)) {
        uint32_t length;
        memcpy(&length, bytes + 12, 4);
        if (length <= size - 20) root = json_loadb((const char*)bytes + 20, length, 0, NULL);
    } else {
        root = json_loadb((const char*)bytes, size, 0, NULL);
    }
    free(bytes);
    return root;
}

/* Every skin's joint list and tree matches the file's node hierarchy: a joint's parent is its
 * nearest ancestor in the same skin. Also: problems match the validator where they share a
 * code. Over every shared file (assets and auto-rigger cases). */
static json_int_t code_count(json_t* problems, const char* code) {
    json_int_t n = 0;
    size_t i;
    json_t* p;
    json_array_foreach(problems, i, p) n +=
        !strcmp(json_string_value(json_object_get(p, "code")), code);
    return n;
}

static void check_joint_tree(const char* path, json_t* r) {
    json_t* raw = raw_json(path);
    ENSURE_MSG(raw, "%s: cannot read its JSON", path);
    json_t* nodes = json_object_get(raw, "nodes");
    size_t node_count = json_array_size(nodes);
    long* parent = malloc(sizeof *parent * (node_count + 1));
    long* in_skin = malloc(sizeof *in_skin * (node_count + 1));
    for (size_t i = 0; i < node_count; ++i)
        parent[i] = -1;
    size_t i, k;
    json_t *node, *child;
    json_array_foreach(nodes, i, node) {
        json_array_foreach(json_object_get(node, "children"), k, child) {
            parent[json_integer_value(child)] = (long)i;
        }
    }
    json_t* skins = json_object_get(raw, "skins");
    ENSURE_MSG(json_array_size(skins) == json_array_size(json_object_get(r, "skins")), "%s", path);
    json_t* raw_skin;
    json_array_foreach(skins, i, raw_skin) {
        json_t* raw_joints = json_object_get(raw_skin, "joints");
        json_t* joints = json_object_get(json_array_get(json_object_get(r, "skins"), i), "joints");
        for (size_t n = 0; n < node_count; ++n)
            in_skin[n] = -1;
        json_array_foreach(raw_joints, k, node) in_skin[json_integer_value(node)] = (long)k;
        ENSURE(json_array_size(joints) == json_array_size(raw_joints));
        json_t* joint;
        json_array_foreach(joints, k, joint) {
            long n = (long)json_integer_value(json_array_get(raw_joints, k));
            ENSURE_MSG(num(joint, "node") == n, "%s skin %zu joint %zu: node %lld, file %ld", path,
                       i, k, (long long)num(joint, "node"), n);
            long want = -1;
            for (long p = parent[n]; p >= 0 && want < 0; p = parent[p])
                want = in_skin[p];
            json_t* got = json_object_get(joint, "parent");
            ENSURE_MSG(want < 0 ? json_is_null(got) : json_integer_value(got) == want,
                       "%s skin %zu joint %zu: parent %lld, file says %ld", path, i, k,
                       (long long)json_integer_value(got), want);
        }
    }
    free(parent);
    free(in_skin);
    json_decref(raw);
}

static void agrees_with_file_and_validator(void) {
    /* Problems that are validator codes with one report per node or skin, as ours. */
    static const char* per_object[] = {
        "SKIN_SKELETON_INVALID",           "SKIN_NO_COMMON_ROOT",
        "NODE_SKINNED_MESH_NON_ROOT",      "NODE_SKINNED_MESH_LOCAL_TRANSFORMS",
        "NODE_SKIN_WITH_NON_SKINNED_MESH", "NODE_SKINNED_MESH_WITHOUT_SKIN"};
    const char** files;
    size_t count = tl_test_shared_files(&files);
    ENSURE(count > 0);
    json_int_t total_problems = 0;
    for (size_t f = 0; f < count && !tl_test_failed; ++f) {
        json_t* r = inspect_json(files[f]);
        if (!r) return;
        check_joint_tree(files[f], r);
        json_t* report = tl_test_validate(files[f]);
        json_t* problems = json_object_get(r, "problems");
        if (!tl_test_failed && report) {
            json_t* codes = json_object_get(report, "codes");
            for (size_t c = 0; c < sizeof per_object / sizeof *per_object && !tl_test_failed; ++c) {
                json_int_t ours = code_count(problems, per_object[c]);
                json_int_t theirs = json_integer_value(json_object_get(codes, per_object[c]));
                ENSURE_MSG(ours == theirs, "%s: %lld %s, the validator reports %lld", files[f],
                           (long long)ours, per_object[c], (long long)theirs);
            }
            /* Reported per primitive here, per element by the validator; our weight tolerance
             * is looser, so ours implies theirs. */
            json_int_t oob =
                json_integer_value(json_object_get(codes, "ACCESSOR_JOINTS_INDEX_OOB"));
            ENSURE((code_count(problems, "ACCESSOR_JOINTS_INDEX_OOB") > 0) == (oob > 0));
            if (code_count(problems, "ACCESSOR_WEIGHTS_NON_NORMALIZED"))
                ENSURE(json_integer_value(
                           json_object_get(codes, "ACCESSOR_WEIGHTS_NON_NORMALIZED")) > 0);
            total_problems += (json_int_t)json_array_size(problems);
        }
        ENSURE_MSG(report, "the validator did not run on %s", files[f]);
        json_decref(report);
        json_decref(r);
    }
    /* The shared files are known to carry some of these (Quaternius skeletons, KayKit parts). */
    ENSURE(total_problems > 0);
}

/* The human view shows the same facts: the tree is indented, joints show their role,
 * attachments name their joint. */
static char* find_line(char* text, const char* needle) {
    char* hit = strstr(text, needle);
    if (!hit) return NULL;
    while (hit > text && hit[-1] != '\n')
        --hit;
    return hit;
}

static size_t line_indent(const char* line, const char* name) {
    const char* at = strstr(line, name);
    return at ? (size_t)(at - line) : 0;
}

static void human_view(void) {
    char* out = NULL;
    const char* knight = tl_test_shared("assets/kaykit-knight/Knight.glb");
    ENSURE(tl_test_cli(&out, "inspect '%s'", knight) == 0 && out);
    json_t* r = inspect_json(knight);
    ENSURE(r);
    char* cape = find_line(out, "Knight_Cape ");
    char* hand = find_line(out, " hand.l ");
    char* slot = find_line(out, " handslot.l ");
    char* thigh = find_line(out, " upperleg.l ");
    bool ok = cape && strstr(cape, " chest ") && strchr(cape, '\n') > strstr(cape, " chest ") &&
              hand && slot && line_indent(slot, "handslot.l") == line_indent(hand, "hand.l") + 2 &&
              thigh &&
              strstr(thigh, " left thigh\n") == strchr(thigh, '\n') - strlen(" left thigh");
    char count[64];
    snprintf(count, sizeof count, "\n%zu problem(s)\n",
             json_array_size(json_object_get(r, "problems")));
    ok = ok && strstr(out, count) && strstr(out, "7024 vertices");
    json_decref(r);
    if (!ok) fprintf(stderr, "%s", out);
    free(out);
    ENSURE(ok);
}

/* Broken input: exit 1, the file named on stderr, nothing on stdout. */
static void check_broken(const char* path) {
    const char* err_path = tl_test_scratch("stderr.txt");
    char* out = NULL;
    int code = tl_test_cli(&out, "inspect '%s' --json 2>'%s'", path, err_path);
    size_t size = 0;
    char* err = (char*)tl_test_read_file(err_path, &size);
    ENSURE(err);
    err = realloc(err, size + 1);
    err[size] = '\0';
    bool named = strstr(err, path) != NULL;
    ENSURE_MSG(code == 1 && out && !*out && named, "%s: exit %d, stdout \"%s\", stderr \"%s\"",
               path, code, out ? out : "", err);
    free(out);
    free(err);
}

static void broken_input(void) {
    check_broken(tl_test_scratch("no-such-file.glb"));
    if (tl_test_failed) return;
    size_t size;
    unsigned char* bytes = tl_test_read_file(tl_test_shared("assets/khronos-fox/Fox.glb"), &size);
    ENSURE(bytes && size > 1000);
    const char* cut = tl_test_scratch("Fox-truncated.glb");
    FILE* f = fopen(cut, "wb");
    ENSURE(f);
    fwrite(bytes, 1, size / 2, f);
    fclose(f);
    free(bytes);
    check_broken(cut);
}

/* The data checks, on the Khronos fox with two values broken through the library: vertex 0's
 * weights sum to 0.5 and vertex 1 names joint 60000 of 24. The validator must agree. */
static void damaged_weights(void) {
    tl_gltf* doc;
    tl_error err;
    ENSURE_OK(tl_gltf_load(tl_test_shared("assets/khronos-fox/Fox.glb"), &doc, &err), err);
    const tl_gltf_primitive* prim = &doc->meshes[0].primitives[0];
    ENSURE(prim->joint_set_count == 1);
    const tl_gltf_accessor* w = &doc->accessors[prim->weights[0]];
    const tl_gltf_accessor* j = &doc->accessors[prim->joints[0]];
    ENSURE(w->component_type == TL_GLTF_FLOAT && j->component_type == TL_GLTF_UNSIGNED_SHORT);
    const tl_gltf_buffer_view* wv = &doc->views[w->buffer_view];
    const tl_gltf_buffer_view* jv = &doc->views[j->buffer_view];
    uint8_t* wp = doc->buffers[wv->buffer].data + wv->byte_offset + w->byte_offset;
    uint8_t* jp = doc->buffers[jv->buffer].data + jv->byte_offset + j->byte_offset +
                  (jv->byte_stride ? jv->byte_stride : 8);
    const float half[4] = {0.5f, 0, 0, 0};
    const uint16_t far_joint = 60000;
    memcpy(wp, half, sizeof half);
    memcpy(jp, &far_joint, sizeof far_joint);
    const char* out = tl_test_scratch("Fox-damaged.glb");
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    tl_result saved = tl_gltf_save(doc, out, &def, &err);
    tl_gltf_destroy(doc);
    ENSURE_OK(saved, err);
    json_t* r = inspect_json(out);
    ENSURE(r);
    json_t* problems = json_object_get(r, "problems");
    char* text = json_dumps(problems, JSON_INDENT(2));
    bool found = code_count(problems, "ACCESSOR_WEIGHTS_NON_NORMALIZED") == 1 &&
                 code_count(problems, "ACCESSOR_JOINTS_INDEX_OOB") == 1 && text &&
                 strstr(text, "1 of 1728 vertices") && strstr(text, "up to 60000");
    if (!found) fprintf(stderr, "  problems: %s\n", text ? text : "");
    free(text);
    json_decref(r);
    ENSURE(found);
    json_t* report = tl_test_validate(out);
    ENSURE(report);
    json_t* codes = json_object_get(report, "codes");
    bool agrees =
        json_integer_value(json_object_get(codes, "ACCESSOR_WEIGHTS_NON_NORMALIZED")) > 0 &&
        json_integer_value(json_object_get(codes, "ACCESSOR_JOINTS_INDEX_OOB")) > 0;
    json_decref(report);
    ENSURE(agrees);
}

/* Joint roles against the VRM humanoid map the Godette file carries (VRM 0.x humanBones: the
 * character's own left and right). Body bones must have the matching role and side; finger,
 * eye and jaw bones and every joint outside the map must have none. */
static void roles_match_vrm_humanoid(void) {
    static const struct {
        const char* bone;
        const char* role;
    } body[] = {{"hips", "pelvis"},       {"spine", "spine"},
                {"chest", "chest"},       {"upperChest", "chest"},
                {"neck", "neck"},         {"head", "head"},
                {"Shoulder", "shoulder"}, {"UpperArm", "upper_arm"},
                {"LowerArm", "forearm"},  {"Hand", "hand"},
                {"UpperLeg", "thigh"},    {"LowerLeg", "shin"},
                {"Foot", "foot"},         {"Toes", "toe"}};
    const char* path = tl_test_shared("assets/vrm-godette/Godette_vrm_v4.vrm");
    json_t* raw = raw_json(path);
    ENSURE(raw);
    json_t* bones = json_object_get(
        json_object_get(json_object_get(json_object_get(raw, "extensions"), "VRM"), "humanoid"),
        "humanBones");
    json_t* r = inspect_json(path);
    ENSURE(r && json_array_size(bones) > 0);
    json_t* joints = json_object_get(json_array_get(json_object_get(r, "skins"), 0), "joints");
    size_t i, k, body_bones = 0;
    json_t *joint, *bone;
    json_array_foreach(joints, k, joint) {
        const char *want_role = NULL, *want_side = NULL, *bone_name = "(not in the map)";
        json_array_foreach(bones, i, bone) {
            if (num(bone, "node") != num(joint, "node")) continue;
            bone_name = json_string_value(json_object_get(bone, "bone"));
            const char* b = bone_name;
            if (!strncmp(b, "left", 4))
                want_side = "left", b += 4;
            else if (!strncmp(b, "right", 5))
                want_side = "right", b += 5;
            for (size_t m = 0; m < sizeof body / sizeof *body; ++m)
                if (!strcmp(b, body[m].bone)) want_role = body[m].role;
            if (!want_role) want_side = NULL;
        }
        body_bones += want_role != NULL;
        json_t* role = json_object_get(joint, "role");
        json_t* side = json_object_get(joint, "side");
        bool ok = want_role ? json_is_string(role) && !strcmp(json_string_value(role), want_role)
                            : json_is_null(role);
        ok = ok && (want_side ? json_is_string(side) && !strcmp(json_string_value(side), want_side)
                              : json_is_null(side));
        ENSURE_MSG(ok, "joint %zu '%s' (VRM %s): role %s side %s, expected %s %s", k,
                   json_string_value(json_object_get(joint, "name")), bone_name,
                   json_is_string(role) ? json_string_value(role) : "null",
                   json_is_string(side) ? json_string_value(side) : "null",
                   want_role ? want_role : "null", want_side ? want_side : "null");
    }
    ENSURE(body_bones >= 20);
    json_decref(r);
    json_decref(raw);
}

/* Triangle counts for every primitive mode, on the Khronos fox (1728 vertices, not indexed)
 * re-saved with its mode changed: strips and fans make n - 2 triangles, lines and points none. */
static void triangles_by_mode(void) {
    static const struct {
        int mode;
        json_int_t triangles;
    } cases[] = {{4, 576}, {5, 1726}, {6, 1726}, {0, 0}, {1, 0}, {3, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        tl_gltf* doc;
        tl_error err;
        ENSURE_OK(tl_gltf_load(tl_test_shared("assets/khronos-fox/Fox.glb"), &doc, &err), err);
        json_t* prim = json_array_get(
            json_object_get(json_array_get(json_object_get(doc->json, "meshes"), 0), "primitives"),
            0);
        json_object_set_new(prim, "mode", json_integer(cases[c].mode));
        const char* out = tl_test_scratch("Fox-mode.glb");
        tl_gltf_save_def def = tl_default_gltf_save_def();
        def.overwrite = true;
        tl_result saved = tl_gltf_save(doc, out, &def, &err);
        tl_gltf_destroy(doc);
        ENSURE_OK(saved, err);
        json_t* r = inspect_json(out);
        ENSURE(r);
        json_t* p = json_array_get(
            json_object_get(json_array_get(json_object_get(r, "meshes"), 0), "primitives"), 0);
        json_int_t vertices = num(p, "vertices"), triangles = num(p, "triangles");
        json_decref(r);
        ENSURE(vertices == 1728);
        ENSURE_MSG(triangles == cases[c].triangles, "mode %d: %lld triangles, expected %lld",
                   cases[c].mode, (long long)triangles, (long long)cases[c].triangles);
    }
}

static const tl_test_case cases[] = {
    {"triangles_by_mode", triangles_by_mode},
    {"roles_match_vrm_humanoid", roles_match_vrm_humanoid},
    {"damaged_weights", damaged_weights},
    {"matches_source_summaries", matches_source_summaries},
    {"agrees_with_file_and_validator", agrees_with_file_and_validator},
    {"human_view", human_view},
    {"broken_input", broken_input},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
