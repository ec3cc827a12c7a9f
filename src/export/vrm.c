/* The chains written as VRMC_springBone 1.0 (docs/vrm.md), the springs a file carries (1.0 and
 * VRM 0.x) read back, and the VRM rule played on them. */
#include <tailor/gltf_json.h>
#include <tailor/vrm.h>

#include "export/vrm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXT "VRMC_springBone"
#define VRM0_MESSAGE                                                                               \
    "the file has VRM 0.x spring bones (/extensions/VRM/secondaryAnimation): a runtime that "      \
    "finds " EXT " ignores them, so none is written"

tl_vrm_def tl_default_vrm_def(void) {
    tl_vrm_def def;
    def.fps = 60.0f;
    def.warmup_seconds = 2.0f;
    def.fit_seconds = 4.0f;
    def.clip = NULL;
    def.colliders = true;
    def.evaluations = 3000;
    return def;
}

static json_t* vec3(const double* v) {
    return json_pack("[f,f,f]", v[0], v[1], v[2]);
}

static bool is_tailor(const json_t* o) {
    return json_object_get(json_object_get(o, "extras"), "tailor") != NULL;
}

static json_t* tailor_mark(void) {
    return json_pack("{s:{}}", "tailor");
}

/* Drops what tailor wrote before (extras.tailor) and renumbers the references of the rest. */
static const char* path_of(const tl_gltf* doc) {
    return doc->path && *doc->path ? doc->path : "<memory>";
}

static tl_result drop_tailor_entries(const tl_gltf* doc, json_t* sb, tl_error* err) {
    json_t* colliders = json_object_get(sb, "colliders");
    json_t* groups = json_object_get(sb, "colliderGroups");
    json_t* springs = json_object_get(sb, "springs");
    if ((colliders && !json_is_array(colliders)) || (groups && !json_is_array(groups)) ||
        (springs && !json_is_array(springs)))
        return tl_error_set(err, TL_ERROR_INVALID,
                            "%s: /extensions/" EXT ": colliders, colliderGroups and springs must "
                            "be arrays",
                            path_of(doc));
    size_t nc = json_array_size(colliders), ng = json_array_size(groups);
    long* cmap = calloc(nc + 1, sizeof *cmap);
    long* gmap = calloc(ng + 1, sizeof *gmap);
    if (!cmap || !gmap) {
        free(cmap), free(gmap);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    long kept = 0;
    for (size_t i = 0; i < nc; ++i)
        cmap[i] = is_tailor(json_array_get(colliders, i)) ? -1 : kept++;
    kept = 0;
    for (size_t i = 0; i < ng; ++i)
        gmap[i] = is_tailor(json_array_get(groups, i)) ? -1 : kept++;
    /* renumber a list of indices through map (n entries), dropping the removed */
    json_t* lists[2] = {groups, springs};
    const char* keys[2] = {"colliders", "colliderGroups"};
    long* maps[2] = {cmap, gmap};
    size_t sizes[2] = {nc, ng};
    for (int l = 0; l < 2; ++l) {
        size_t i;
        json_t* o;
        json_array_foreach(lists[l], i, o) {
            json_t* refs = json_object_get(o, keys[l]);
            if (!json_is_array(refs)) continue;
            json_t* out = json_array();
            size_t k;
            json_t* v;
            json_array_foreach(refs, k, v) {
                json_int_t x = json_integer_value(v);
                if (!json_is_integer(v) || x < 0 || (size_t)x >= sizes[l])
                    json_array_append(out, v); /* not ours to mend: kept as it was */
                else if (maps[l][x] >= 0)
                    json_array_append_new(out, json_integer(maps[l][x]));
            }
            json_object_set_new(o, keys[l], out);
        }
    }
    json_t* all[3] = {colliders, groups, springs};
    for (int l = 0; l < 3; ++l)
        for (size_t i = json_array_size(all[l]); i-- > 0;)
            if (is_tailor(json_array_get(all[l], i))) json_array_remove(all[l], i);
    free(cmap), free(gmap);
    return TL_OK;
}

static json_t* collider_json(const vrm_collider* c) {
    json_t* shape =
        c->capsule
            ? json_pack("{s:{s:o,s:f,s:o}}", "capsule", "offset", vec3(c->offset), "radius",
                        c->radius, "tail", vec3(c->tail))
            : json_pack("{s:{s:o,s:f}}", "sphere", "offset", vec3(c->offset), "radius", c->radius);
    return json_pack("{s:i,s:o,s:o}", "node", (int)c->node, "shape", shape, "extras",
                     tailor_mark());
}

/* "Tail_1" -> "Tail". */
static json_t* spring_name(const tl_gltf* doc, uint32_t node) {
    const char* n = doc->nodes[node].name ? doc->nodes[node].name : "";
    size_t len = strlen(n);
    if (len > 2 && !strcmp(n + len - 2, "_1")) len -= 2;
    return json_stringn(n, len);
}

static void append_spring(const tl_gltf* doc, const tl_scene* scene, json_t* sb,
                          const vrm_spring_def* def, const tl_vrm_fit* fit) {
    json_t* colliders = json_object_get(sb, "colliders");
    json_t* groups = json_object_get(sb, "colliderGroups");
    json_t* springs = json_object_get(sb, "springs");
    json_t* members = json_array();
    for (uint32_t c = 0; c < def->collider_count; ++c) {
        json_array_append_new(members, json_integer((json_int_t)json_array_size(colliders)));
        json_array_append_new(colliders, collider_json(&def->colliders[c]));
    }
    json_t* joints = json_array();
    for (uint32_t j = 0; j < def->count; ++j) {
        json_t* o = json_pack("{s:i}", "node", (int)def->nodes[j]);
        if (j + 1 < def->count) {
            const vrm_settings* s = &def->settings[j];
            json_object_set_new(o, "hitRadius", json_real(s->hit_radius));
            json_object_set_new(o, "stiffness", json_real(s->stiffness));
            json_object_set_new(o, "gravityPower", json_real(s->gravity_power));
            json_object_set_new(o, "gravityDir", vec3(s->gravity_dir));
            json_object_set_new(o, "dragForce", json_real(s->drag));
        }
        json_array_append_new(joints, o);
    }
    json_t* spring =
        json_pack("{s:o,s:o}", "name", spring_name(doc, def->nodes[0]), "joints", joints);
    if (def->collider_count) {
        json_t* g = json_pack("{s:s,s:o,s:o}", "name", "tailor body", "colliders", members,
                              "extras", tailor_mark());
        json_object_set_new(spring, "colliderGroups",
                            json_pack("[I]", (json_int_t)json_array_size(groups)));
        json_array_append_new(groups, g);
    } else {
        json_decref(members);
    }
    json_t* mark = tailor_mark();
    json_t* about = json_object();
    if (fit->clip != TL_NONE) {
        json_object_set_new(about, "clip", json_string(scene->clips[fit->clip].name));
        json_object_set_new(about, "fit_error_rms", json_real(fit->error_rms));
        json_object_set_new(about, "fit_error_max", json_real(fit->error_max));
    }
    json_object_set_new(mark, "tailor", about);
    json_object_set_new(spring, "extras", mark);
    json_array_append_new(springs, spring);
}

static void use_extension(json_t* root, const char* name) {
    json_t* used = json_object_get(root, "extensionsUsed");
    if (!json_is_array(used)) {
        used = json_array();
        json_object_set_new(root, "extensionsUsed", used);
    }
    size_t i;
    json_t* v;
    json_array_foreach(used, i,
                       v) if (json_is_string(v) && !strcmp(json_string_value(v), name)) return;
    json_array_append_new(used, json_string(name));
}

/* The VRMC_springBone object to add to (made if absent), or NULL with *err set. */
static json_t* spring_bone_object(tl_gltf* doc, tl_result* r, tl_error* err) {
    json_t* root = tl_gltf_json(doc);
    json_t* ext = json_object_get(root, "extensions");
    if (ext && !json_is_object(ext))
        return *r = tl_error_set(err, TL_ERROR_INVALID, "%s: /extensions: not an object",
                                 path_of(doc)),
               NULL;
    if (json_object_get(json_object_get(ext, "VRM"), "secondaryAnimation")) {
        *r = tl_error_set(err, TL_ERROR_UNSUPPORTED, "%s: %s", path_of(doc), VRM0_MESSAGE);
        return NULL;
    }
    if (!ext) {
        ext = json_object();
        json_object_set_new(root, "extensions", ext);
    }
    json_t* sb = json_object_get(ext, EXT);
    if (sb && !json_is_object(sb))
        return *r = tl_error_set(err, TL_ERROR_INVALID, "%s: /extensions/" EXT ": not an object",
                                 path_of(doc)),
               NULL;
    if (!sb) {
        sb = json_pack("{s:s}", "specVersion", "1.0");
        json_object_set_new(ext, EXT, sb);
    }
    if ((*r = drop_tailor_entries(doc, sb, err)) != TL_OK) return NULL;
    const char* keys[3] = {"colliders", "colliderGroups", "springs"};
    for (int k = 0; k < 3; ++k)
        if (!json_object_get(sb, keys[k])) json_object_set_new(sb, keys[k], json_array());
    return sb;
}

/* The chains fitted: the hair locks the sheet couples on one skin together, with one set of
 * knobs (vrm_fit_group), every other chain alone; springs and fits keep the chains' order. */
static tl_result fit_groups(const tl_scene* scene, const tl_play_chain* chains, uint32_t n,
                            const tl_vrm_def* def, vrm_spring_def* springs, tl_vrm_fit* found,
                            tl_error* err) {
    tl_play_chain* members = malloc(n * sizeof *members);
    uint32_t* index = malloc(n * sizeof *index);
    vrm_spring_def* defs = malloc(n * sizeof *defs);
    tl_vrm_fit* fits = malloc(n * sizeof *fits);
    bool* done = calloc(n, sizeof *done);
    tl_result r = members && index && defs && fits && done
                      ? TL_OK
                      : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t c = 0; c < n && r == TL_OK; ++c) {
        if (done[c]) continue;
        uint32_t m = 0;
        for (uint32_t d = c; d < n; ++d) {
            bool with = d == c || (chains[c].sheet_rate > 0 && chains[d].sheet_rate > 0 &&
                                   chains[d].skin == chains[c].skin && !done[d]);
            if (!with) continue;
            done[d] = true;
            index[m] = d;
            members[m++] = chains[d];
        }
        r = vrm_fit_group(scene, members, m, def, defs, fits, err);
        for (uint32_t k = 0; k < m && r == TL_OK; ++k)
            springs[index[k]] = defs[k], found[index[k]] = fits[k];
    }
    free(members), free(index), free(defs), free(fits), free(done);
    return r;
}

tl_result tl_vrm_write(tl_gltf* doc, const tl_vrm_def* def, tl_vrm_fit* fits, uint32_t capacity,
                       uint32_t* count, tl_error* err) {
    *count = 0;
    tl_scene* scene = NULL;
    tl_play_chain chains[64];
    uint32_t n = 0;
    vrm_spring_def* springs = NULL;
    tl_vrm_fit* found = NULL;
    tl_result r = tl_scene_create(doc, &scene, err);
    if (r == TL_OK) r = tl_play_chains_find(scene, chains, 64, &n, err);
    if (r == TL_OK && n > 64) r = tl_error_set(err, TL_ERROR_LIMIT, "more than 64 chains");
    if (r != TL_OK || n == 0) goto done;
    springs = calloc(n, sizeof *springs);
    found = calloc(n, sizeof *found);
    if (!springs || !found) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        goto done;
    }
    if (json_object_get(json_object_get(json_object_get(tl_gltf_json(doc), "extensions"), "VRM"),
                        "secondaryAnimation")) {
        r = tl_error_set(err, TL_ERROR_UNSUPPORTED, "%s: %s", path_of(doc), VRM0_MESSAGE);
        goto done;
    }
    r = fit_groups(scene, chains, n, def, springs, found, err);
    if (r != TL_OK) goto done;
    json_t* sb = spring_bone_object(doc, &r, err);
    if (!sb) goto done;
    for (uint32_t c = 0; c < n; ++c) {
        append_spring(doc, scene, sb, &springs[c], &found[c]);
        if (c < capacity) fits[c] = found[c];
    }
    use_extension(tl_gltf_json(doc), EXT);
    *count = n;
    tl_scene_destroy(scene);
    scene = NULL;
    r = tl_gltf_reindex(doc, err);
done:
    free(springs);
    free(found);
    tl_scene_destroy(scene);
    return r;
}
