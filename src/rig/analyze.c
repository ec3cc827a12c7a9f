/* The analysis driver: defaults, names, one pass per skin (field, parts, decisions, plans),
 * and the public arrays. */
#include "internal.h"
#include "scene/schema.h"
#include <tailor/gltf_json.h>
#include <tailor/hair.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* tl_rig_class_string(tl_rig_class cls) {
    static const char* names[TL_RIG_CLASS_COUNT] = {"body",  "tail", "rigid",
                                                    "cloth", "none", "hair"};
    return (unsigned)cls < TL_RIG_CLASS_COUNT ? names[cls] : "none";
}

const char* tl_rig_region_string(tl_rig_region region) {
    static const char* names[TL_RIG_REGION_COUNT] = {"pelvis", "spine", "head", "limb", "other"};
    return (unsigned)region < TL_RIG_REGION_COUNT ? names[region] : "other";
}

const char* tl_rig_action_string(tl_rig_action action) {
    static const char* names[TL_RIG_ACTION_COUNT] = {"reported", "chain", "rigid", "already_rigged",
                                                     "cloth"};
    return (unsigned)action < TL_RIG_ACTION_COUNT ? names[action] : "reported";
}

tl_rig_def tl_default_rig_def(void) {
    tl_rig_def def = {0};
    def.far = 0.07f;
    def.resplit_step = 0.01f;
    def.resplit_max = 0.40f;
    def.limb_ratio = 0.4f;
    def.elongation = 1.8f;
    def.tube_ratio = 1.5f;
    def.min_length = 0.15f;
    def.segment = 0.1f;
    def.min_links = 3;
    def.max_links = 8;
    def.overlap = 0.5f;
    def.attach_bias = 1.5f;
    def.pelvis_tolerance = 0.02f;
    def.misbound_ratio = 1.5f;
    def.misbound_slack = 0.02f;
    def.weld = 1e-5f;
    def.collar_share = 0.05f;
    def.own_bone_share = 0.5f;
    def.bound_like_collar = 0.5f;
    def.mode = TL_RIG_MODE_CHAIN;
    def.fix_rigid = false;
    def.grow = true;
    def.root_band = 1.0f;
    def.junction_fit = true;
    def.junction_ring = 2.0f;
    def.junction_poses = 16;
    def.junction_max_poses = 64;
    def.junction_iterations = 20;
    def.junction_smooth = 0.05f;
    def.junction_pull = 1e-3f;
    def.chain = tl_default_chain_settings();
    def.cloth = true;
    def.cloth_row = 0.05f;
    def.cloth_min_length = 0.05f;
    def.cloth_min_vertices = 20;
    def.cloth_open_gap_deg = 60;
    def.cloth_settings = tl_default_cloth_settings();
    return def;
}

static bool in_range(float x, float lo, float hi) {
    return isfinite(x) && x >= lo && x <= hi;
}

tl_result tl_rig_def_check(const tl_rig_def* def, tl_error* err) {
    assert(def);
    struct {
        const char* name;
        float value, lo, hi;
    } checks[] = {
        {"far", def->far, 1e-4f, 1},
        {"resplit_step", def->resplit_step, 0, 1},
        {"resplit_max", def->resplit_max, 0, 10},
        {"limb_ratio", def->limb_ratio, 0, 10},
        {"elongation", def->elongation, 1, 1e6f},
        {"tube_ratio", def->tube_ratio, 0, 1e6f},
        {"min_length", def->min_length, 0, 100},
        {"segment", def->segment, 1e-4f, 100},
        {"overlap", def->overlap, 0, 1},
        {"attach_bias", def->attach_bias, 1, 100},
        {"pelvis_tolerance", def->pelvis_tolerance, 0, 1},
        {"misbound_ratio", def->misbound_ratio, 0, 1e6f},
        {"misbound_slack", def->misbound_slack, 0, 100},
        {"weld", def->weld, 1e-9f, 0.1f},
        {"collar_share", def->collar_share, 1e-6f, 1},
        {"own_bone_share", def->own_bone_share, 0, 1},
        {"bound_like_collar", def->bound_like_collar, 0, 1},
        {"root_band", def->root_band, 0, 100},
        {"junction_ring", def->junction_ring, 0, 100},
        {"junction_smooth", def->junction_smooth, 0, 1e6f},
        {"junction_pull", def->junction_pull, 1e-9f, 1e6f},
        {"cloth_row", def->cloth_row, 1e-3f, 1},
        {"cloth_min_length", def->cloth_min_length, 0, 100},
        {"cloth_open_gap_deg", def->cloth_open_gap_deg, 0, 360},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; ++i)
        if (!in_range(checks[i].value, checks[i].lo, checks[i].hi))
            return tl_error_set(err, TL_ERROR_ARGUMENT, "%s = %g is outside %g..%g", checks[i].name,
                                (double)checks[i].value, (double)checks[i].lo,
                                (double)checks[i].hi);
    /* the chain settings in the ranges the file's reader accepts (docs/schema.md) */
    for (int k = 0; k < TL_SCHEMA_SETTING_COUNT; ++k) {
        tl_chain_settings chain = def->chain;
        float value = *tl_schema_setting_field(&tl_schema_settings[k], &chain);
        char why[64];
        if (!tl_schema_setting_check(&tl_schema_settings[k], value, why, sizeof why))
            return tl_error_set(err, TL_ERROR_ARGUMENT, "chain.%s = %g: %s",
                                tl_schema_settings[k].key, (double)value, why);
    }
    if (def->min_links < 1 || def->max_links > TL_RIG_MAX_LINKS || def->min_links > def->max_links)
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "links %u..%u must lie within 1..%d and be ordered", def->min_links,
                            def->max_links, TL_RIG_MAX_LINKS);
    if (def->override_count > TL_RIG_MAX_OVERRIDES)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "more than %d part overrides",
                            TL_RIG_MAX_OVERRIDES);
    if (def->junction_fit &&
        (def->junction_poses < 1 || def->junction_max_poses < 1 || def->junction_iterations > 100))
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "junction poses %u (at most %u) must be at least 1, passes %u "
                            "at most 100",
                            def->junction_poses, def->junction_max_poses, def->junction_iterations);
    if (def->mode != TL_RIG_MODE_CHAIN && def->mode != TL_RIG_MODE_RIGID)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "unknown mode %d", (int)def->mode);
    return TL_OK;
}

static void ctx_free(rig_ctx* ctx) {
    free(ctx->remap);
    free(ctx->wpos);
    free(ctx->copy_first);
    free(ctx->copies);
    free(ctx->adj_off);
    free(ctx->adj);
    free(ctx->adj_len);
    rig_bones_free(&ctx->bones);
    free(ctx->dskel);
    free(ctx->wbd_union);
    free(ctx->wbd);
    free(ctx->misbound);
    free(ctx->region);
    free(ctx->stamp);
    free(ctx->mask);
    free(ctx->queue);
    free(ctx->owner);
    free(ctx->body);
    free(ctx->shell);
    free(ctx->shell_size);
    for (uint32_t i = 0; i < ctx->part_count; ++i)
        rig_wpart_free(&ctx->parts[i]);
    free(ctx->parts);
}

/* Is PREFIX_1 or PREFIX_End a node of the document, or the prefix of an earlier chain? */
static bool prefix_taken(const tl_gltf* doc, const tl_rig_analysis* a, const char* prefix) {
    char first[48], end[48];
    snprintf(first, sizeof first, "%s_1", prefix);
    snprintf(end, sizeof end, "%s_End", prefix);
    for (uint32_t i = 0; i < doc->node_count; ++i) {
        const char* name = doc->nodes[i].name;
        if (name && (!strcmp(name, first) || !strcmp(name, end))) return true;
    }
    for (uint32_t i = 0; i < a->part_count; ++i)
        if (a->parts[i].action == TL_RIG_ACTION_CHAIN && !strcmp(a->parts[i].bone_prefix, prefix))
            return true;
    return false;
}

static void choose_prefix(const tl_gltf* doc, const tl_rig_analysis* a, tl_rig_part* part) {
    snprintf(part->bone_prefix, sizeof part->bone_prefix, "Tail");
    for (unsigned k = 1; prefix_taken(doc, a, part->bone_prefix) && k < 100000; ++k)
        snprintf(part->bone_prefix, sizeof part->bone_prefix, "Tail.%03u", k);
}

void tl_rig_analysis_destroy(tl_rig_analysis* a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->skin_count; ++i) {
        tl_rig_skin* s = &a->skins[i];
        free(s->skeleton_distance);
        free(s->bone_distance);
        free(s->misbound);
        free(s->part);
        free(s->primitives);
        tl_hair_guides_destroy(s->hair_guides);
    }
    for (uint32_t i = 0; i < a->part_count; ++i) {
        free(a->parts[i].vertices);
        free(a->parts[i].new_joints);
        free(a->parts[i].new_weights);
        free(a->parts[i].band_vertices);
        free(a->parts[i].band_joints);
        free(a->parts[i].band_weights);
        free(a->parts[i].cloth.particles);
        free(a->parts[i].cloth.particle_joints);
    }
    free(a->skins);
    free(a->parts);
    free(a->unskinned);
    free(a);
}

/* A skin's per-vertex arrays, before any part: every vertex outside every part. */
static bool skin_arrays(tl_rig_skin* out, const tl_scene_skin* skin) {
    out->skin = skin->skin;
    out->vertex_count = skin->vertex_count;
    out->height = skin->height;
    out->joint_count = skin->joint_count;
    memcpy(out->rest_world, skin->rest_world, sizeof out->rest_world);
    memcpy(out->up, skin->up, sizeof out->up);
    memcpy(out->forward, skin->forward, sizeof out->forward);
    uint32_t V = skin->vertex_count;
    out->skeleton_distance = malloc((V ? V : 1) * sizeof *out->skeleton_distance);
    out->bone_distance = malloc((V ? V : 1) * sizeof *out->bone_distance);
    out->misbound = calloc(V ? V : 1, 1);
    out->part = malloc((V ? V : 1) * sizeof *out->part);
    out->primitives = malloc((skin->primitive_count + 1) * sizeof *out->primitives);
    if (!out->skeleton_distance || !out->bone_distance || !out->misbound || !out->part ||
        !out->primitives)
        return false;
    memcpy(out->primitives, skin->primitives, skin->primitive_count * sizeof *out->primitives);
    out->primitive_count = skin->primitive_count;
    for (uint32_t v = 0; v < V; ++v)
        out->part[v] = -1;
    return true;
}

/* The public copy of a worked part; a tail's chain-or-rigid action follows `mode`. */
static void part_publish(tl_rig_part* part, const rig_wpart* p, const tl_scene_skin* skin,
                         tl_rig_mode mode) {
    part->cls = p->cls;
    part->region = p->region;
    part->action = p->action;
    /* only a tail's action depends on the mode (rig_parts_decide) */
    if (p->cls == TL_RIG_CLASS_TAIL &&
        (p->action == TL_RIG_ACTION_CHAIN || p->action == TL_RIG_ACTION_RIGID))
        part->action = mode == TL_RIG_MODE_CHAIN ? TL_RIG_ACTION_CHAIN : TL_RIG_ACTION_RIGID;
    part->reason = p->reason ? p->reason : "";
    part->overridden = p->overridden;
    part->welded_count = p->verts.count;
    part->grown = p->grown;
    part->shells = p->shells;
    part->threshold = p->threshold;
    part->attach_joint = p->attach;
    if (p->attach != TL_NONE) {
        snprintf(part->attach_name, sizeof part->attach_name, "%s", skin->joints[p->attach].name);
        part->attach_role = skin->joints[p->attach].role;
    }
    memcpy(part->collar, p->collar_c, sizeof part->collar);
    part->reach = p->reach;
    part->centroid_ratio = p->centroid_ratio;
    part->elongation = p->elongation;
    part->tube_ratio = p->tube_ratio;
    part->length = p->length;
    part->misbound = p->misbound;
    part->own_bones = p->own_bones;
}

/* A cloth part's lattice (cloth.c), its bones named Cloth_r_b (Cloth.001_r_b, ... when taken);
 * a part too small for a lattice is reported only. */
static bool plan_cloth(tl_rig_analysis* a, const tl_scene* scene, rig_ctx* ctx, const rig_wpart* p,
                       tl_rig_part* part) {
    tl_rig_skin* out = &a->skins[part->skin];
    part->first_new_joint = ctx->skin->joint_count + out->new_joint_count;
    /* a skin that has its cloth already (a rigged file rigged again) gets no more */
    bool built = false, rigged = false;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        rigged =
            rigged || (scene->parts[i].kind == TL_PART_CLOTH && scene->parts[i].skin == part->skin);
    if (!rigged && !rig_cloth_plan(ctx, p, part, &built)) return false;
    if (!built) {
        part->action = TL_RIG_ACTION_REPORTED;
        free(part->new_joints), free(part->new_weights);
        part->new_joints = NULL, part->new_weights = NULL;
        free(part->cloth.particles), free(part->cloth.particle_joints);
        memset(&part->cloth, 0, sizeof part->cloth);
        return true;
    }
    part->reason = p->apart ? "a garment modelled apart, rebound to the torso joint it hung from: "
                              "a cloth lattice"
                   : part->region == TL_RIG_REGION_PELVIS
                       ? "wide, hangs from the pelvis region: a cloth lattice (a skirt)"
                       : "wide, hangs from the spine: a cloth lattice (a cape)";
    for (unsigned k = 0; k < 100000; ++k) {
        if (k)
            snprintf(part->bone_prefix, sizeof part->bone_prefix, "Cloth.%03u", k);
        else
            snprintf(part->bone_prefix, sizeof part->bone_prefix, "Cloth");
        char first[48];
        snprintf(first, sizeof first, "%s_0_0", part->bone_prefix);
        bool taken = false;
        for (uint32_t i = 0; i < scene->doc->node_count && !taken; ++i)
            taken = scene->doc->nodes[i].name && !strcmp(scene->doc->nodes[i].name, first);
        for (uint32_t i = 0; i + 1 < a->part_count && !taken; ++i)
            taken = a->parts[i].action == TL_RIG_ACTION_CLOTH &&
                    !strcmp(a->parts[i].bone_prefix, part->bone_prefix);
        if (!taken) break;
    }
    out->new_joint_count += part->cloth.bone_count;
    return true;
}

/* The analysis of one skin from its worked context, in `mode`: per-vertex fields, then each
 * part with its planned chain, weights and root band. */
static bool skin_publish(tl_rig_analysis* a, const tl_scene* scene, uint32_t s, rig_ctx* ctx,
                         tl_rig_mode mode) {
    const tl_scene_skin* skin = &scene->skins[s];
    tl_rig_skin* out = &a->skins[s];
    out->welded_count = ctx->W;
    for (uint32_t v = 0; v < ctx->V; ++v) {
        uint32_t w = ctx->remap[v];
        out->skeleton_distance[v] = ctx->dskel[w];
        out->bone_distance[v] = ctx->wbd_union[v];
        out->misbound[v] = ctx->misbound[w];
    }
    tl_rig_part* grown = realloc(a->parts, (a->part_count + ctx->part_count + 1) * sizeof *grown);
    if (!grown) return false;
    a->parts = grown;
    double t0 = rig_now();
    uint8_t* banded = calloc(ctx->W + 1, 1);
    bool ok = banded != NULL;
    for (uint32_t i = 0; i < ctx->part_count && ok; ++i) {
        const rig_wpart* p = &ctx->parts[i];
        tl_rig_part* part = &a->parts[a->part_count];
        *part = (tl_rig_part){0};
        part->id = a->part_count;
        part->skin = s;
        part_publish(part, p, skin, mode);
        if (part->action == TL_RIG_ACTION_CHAIN) {
            choose_prefix(scene->doc, a, part);
            part->first_new_joint = skin->joint_count + out->new_joint_count;
        }
        a->part_count++;
        ok = rig_part_plan(ctx, p, part) && rig_part_band(ctx, p, part, banded) &&
             rig_part_junction(ctx, p, part, banded);
        if (ok && part->action == TL_RIG_ACTION_CLOTH) ok = plan_cloth(a, scene, ctx, p, part);
        if (!ok) break;
        if (part->action == TL_RIG_ACTION_CHAIN) {
            out->new_joint_count += part->segments + 1;
            a->chain_count++;
        }
        if (part->action == TL_RIG_ACTION_CHAIN || part->action == TL_RIG_ACTION_RIGID ||
            part->action == TL_RIG_ACTION_CLOTH)
            a->changed_vertices += part->vertex_count + part->band_count;
        for (uint32_t k = 0; k < part->vertex_count; ++k)
            out->part[part->vertices[k]] = (int32_t)part->id;
    }
    a->seconds[TL_RIG_STAGE_WEIGHTS] += rig_now() - t0;
    free(banded);
    return ok;
}

/* One skin: field, parts and decisions once, then the public parts in every mode. */
static bool analyze_skin(tl_rig_analysis* const* as, const tl_rig_mode* modes, uint32_t count,
                         const tl_scene* scene, uint32_t s, const tl_rig_def* def) {
    const tl_scene_skin* skin = &scene->skins[s];
    uint32_t V = skin->vertex_count;
    for (uint32_t k = 0; k < count; ++k)
        if (!skin_arrays(&as[k]->skins[s], skin)) return false;
    if (V == 0 || !(skin->height > 0)) {
        for (uint32_t k = 0; k < count; ++k)
            for (uint32_t v = 0; v < V; ++v)
                as[k]->skins[s].skeleton_distance[v] = as[k]->skins[s].bone_distance[v] = INFINITY;
        return true;
    }

    rig_ctx ctx = {0};
    ctx.scene = scene;
    ctx.skin = skin;
    ctx.def = def;
    ctx.H = skin->height;
    ctx.V = V;
    ctx.seconds = as[0]->seconds;
    ctx.pelvis = TL_NONE;
    uint32_t first_id = as[0]->part_count;
    bool ok = rig_field_build(&ctx) && rig_parts_find(&ctx) && rig_parts_decide(&ctx, first_id);
    for (uint32_t k = 0; k < count && ok; ++k)
        ok = skin_publish(as[k], scene, s, &ctx, modes[k]) && tl_hair_rig_plan(as[k], scene, s);
    ctx_free(&ctx);
    return ok;
}

/* Meshes with no skin whose nearest joint ancestor is a torso joint of a skin (the first skin
 * listing that joint). */
static bool find_unskinned(tl_rig_analysis* a, const tl_scene* scene) {
    const tl_gltf* doc = scene->doc;
    int64_t* joint_at = malloc(((size_t)doc->node_count + 1) * sizeof *joint_at); /* s << 32 | j */
    if (!joint_at) return false;
    for (uint32_t n = 0; n < doc->node_count; ++n)
        joint_at[n] = -1;
    for (uint32_t s = scene->skin_count; s-- > 0;)
        for (uint32_t j = 0; j < scene->skins[s].joint_count; ++j)
            if (scene->skins[s].joints[j].node < doc->node_count)
                joint_at[scene->skins[s].joints[j].node] = (int64_t)s << 32 | j;
    bool ok = true;
    for (uint32_t n = 0; n < doc->node_count && ok; ++n) {
        if (doc->nodes[n].mesh == TL_NONE || doc->nodes[n].skin != TL_NONE) continue;
        int32_t up = doc->nodes[n].parent;
        for (uint32_t guard = 0; up != TL_NONE && joint_at[up] < 0 && guard < doc->node_count;
             ++guard)
            up = doc->nodes[up].parent;
        if (up == TL_NONE || joint_at[up] < 0) continue;
        const tl_scene_skin* sk = &scene->skins[joint_at[up] >> 32];
        uint32_t j = (uint32_t)(joint_at[up] & 0xffffffff);
        tl_role role = sk->joints[j].role;
        if (role != TL_ROLE_PELVIS && role != TL_ROLE_SPINE && role != TL_ROLE_CHEST &&
            role != TL_ROLE_NECK)
            continue; /* under a limb or the head: not a garment */
        tl_rig_unskinned* grown = realloc(a->unskinned, (a->unskinned_count + 1) * sizeof *grown);
        if (!(ok = grown != NULL)) break;
        a->unskinned = grown;
        tl_rig_unskinned* u = &a->unskinned[a->unskinned_count++];
        memset(u, 0, sizeof *u);
        u->node = n, u->skin = sk->skin, u->joint = j, u->role = role;
        snprintf(u->name, sizeof u->name, "%s", doc->nodes[n].name ? doc->nodes[n].name : "");
        snprintf(u->joint_name, sizeof u->joint_name, "%s", sk->joints[j].name);
    }
    free(joint_at);
    return ok;
}

/* The play keys (docs/schema.md) the skins' parts lack: a file tailor rigged before session 24
 * holds its parts but not these (before session 23, not the colliders either), so the rig
 * (which leaves the parts as they are) writes them in tl_rig_apply. */
static void find_play_missing(tl_rig_analysis* a, const tl_scene* scene) {
    json_t* skins = json_object_get(tl_gltf_json(scene->doc), "skins");
    for (uint32_t i = 0; i < scene->part_count; ++i) {
        const tl_scene_part* p = &scene->parts[i];
        if (p->skin >= a->skin_count) continue;
        tl_rig_skin* rs = &a->skins[p->skin];
        /* a pendulum's gravity and H follow the frame too (`--pendulum` writes it) */
        rs->play_frame |= !scene->skins[p->skin].frame_stored;
        if (p->kind != TL_PART_TAIL && p->kind != TL_PART_HAIR && p->kind != TL_PART_CLOTH)
            continue;
        rs->play_colliders = true; /* (kept below only where the skin stores none) */
        if (p->kind == TL_PART_HAIR && p->hit_radius < 0) rs->play_hit_radii++;
    }
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        json_t* tailor = json_object_get(
            json_object_get(json_array_get(skins, a->skins[s].skin), "extras"), TL_SCHEMA_KEY);
        a->skins[s].play_colliders &= !json_object_get(tailor, TL_SCHEMA_COLLIDERS);
        /* (a sheet a fresh rig found no ties for is absent too: sought again only beside the
           hit_radius keys it was written with) */
        a->skins[s].play_sheet =
            a->skins[s].play_hit_radii > 0 && !json_object_get(tailor, TL_SCHEMA_SHEET);
        a->skins[s].hair_fitted = json_object_get(tailor, TL_SCHEMA_HAIR_FIT) != NULL;
    }
}

tl_result tl_rig_analyze_modes(const tl_scene* scene, const tl_rig_def* def,
                               const tl_rig_mode* modes, uint32_t count, tl_rig_analysis** out,
                               tl_error* err) {
    assert(scene && def && modes && out && count >= 1);
    for (uint32_t k = 0; k < count; ++k)
        out[k] = NULL;
    tl_result r = tl_rig_def_check(def, err);
    for (uint32_t k = 0; k < count && r == TL_OK; ++k)
        if (modes[k] != TL_RIG_MODE_CHAIN && modes[k] != TL_RIG_MODE_RIGID)
            r = tl_error_set(err, TL_ERROR_ARGUMENT, "unknown mode %d", (int)modes[k]);
    if (r != TL_OK) return r;
    bool ok = true;
    for (uint32_t k = 0; k < count && ok; ++k) {
        tl_rig_analysis* a = out[k] = calloc(1, sizeof *a);
        ok = a && (a->skins = calloc(scene->skin_count + 1, sizeof *a->skins));
        if (!ok) break;
        a->def = *def;
        a->def.mode = modes[k];
        a->hair_chain = def->hair ? def->hair->chain : tl_default_hair_chain_def().chain;
        a->skin_count = scene->skin_count;
    }
    /* the worked parts are the same in every mode; the first mode decides them */
    tl_rig_def work = *def;
    work.mode = modes[0];
    for (uint32_t s = 0; s < scene->skin_count && ok; ++s)
        ok = analyze_skin(out, modes, count, scene, s, &work);
    for (uint32_t k = 0; k < count && ok; ++k)
        ok = find_unskinned(out[k], scene);
    for (uint32_t k = 0; k < count && ok; ++k)
        find_play_missing(out[k], scene);
    if (!ok) {
        for (uint32_t k = 0; k < count; ++k) {
            tl_rig_analysis_destroy(out[k]);
            out[k] = NULL;
        }
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    /* the caller's hair def is read during the analysis only; hair_chain keeps what is stored */
    for (uint32_t k = 0; k < count; ++k)
        out[k]->def.hair = NULL;
    return TL_OK;
}

tl_result tl_rig_analyze(const tl_scene* scene, const tl_rig_def* def, tl_rig_analysis** out,
                         tl_error* err) {
    assert(scene && def && out);
    return tl_rig_analyze_modes(scene, def, &def->mode, 1, out, err);
}
