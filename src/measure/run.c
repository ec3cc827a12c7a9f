/* One measurement over the rigs of a file (tailor measure): regions, the body, edge stretch
 * in every rig, bone distance, liveliness and seating per clip. */
#include <tailor/measure.h>
#include <tailor/mesh.h>
#include <tailor/seating.h>
#include <tailor/stress.h>
#include <tailor/colliders.h>
#include "cloth_stretch.h"
#include "skin_depth.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Detected parts or chains become at most this many regions. */
#define DETECTED_MAX 32
#define MAX_SAMPLES 4096

typedef struct run_internal {
    tl_stretch* stretch[TL_MEASURE_RIG_COUNT];
    skin_depth* depth; /* sampled in the file as it is and played (rig_depth) */
} run_internal;

tl_measure_run_def tl_default_measure_run_def(void) {
    tl_measure_run_def def;
    memset(&def, 0, sizeof def);
    def.samples = 24;
    return def;
}

static const tl_measure_rig* chained_rig(const tl_measure_rigs* rigs) {
    return rigs->rigs[TL_MEASURE_CHAIN].used ? &rigs->rigs[TL_MEASURE_CHAIN] : NULL;
}

static const char* chain_name(const tl_measure_rig* rig, uint32_t i) {
    const tl_scene_skin* sk = &rig->scene->skins[rig->chains[i].skin];
    return sk->joints[rig->chains[i].bone_joints[0]].name;
}

static tl_measure_region* region_add(tl_measure_run* run, uint32_t vertex_count) {
    tl_measure_region* r = &run->regions[run->region_count++];
    r->part = r->chain = r->cloth = r->joint = -1;
    r->mask = calloc(vertex_count + 1, 1);
    return r->mask ? r : NULL;
}

/* The parts tailor detects on an un-rigged file, each with the chain built for it. */
static bool regions_from_parts(tl_measure_run* run, const tl_scene_skin* sk) {
    const tl_rig_analysis* rig = run->rigs->analysis;
    const tl_measure_rig* chained = chained_rig(run->rigs);
    for (uint32_t p = 0; p < rig->part_count && run->region_count < DETECTED_MAX; ++p) {
        const tl_rig_part* part = &rig->parts[p];
        if (part->skin != sk->skin) continue;
        tl_measure_region* r = region_add(run, sk->vertex_count);
        if (!r) return false;
        snprintf(r->name, sizeof r->name, "part%u", part->id);
        r->cls = tl_rig_class_string(part->cls);
        r->part = (int32_t)p;
        for (uint32_t k = 0; k < part->vertex_count; ++k)
            r->mask[part->vertices[k]] = 1;
        /* the chain tailor built for this part: its first bone is PREFIX_1 */
        char first[64];
        snprintf(first, sizeof first, "%s_1", part->bone_prefix);
        for (uint32_t c = 0;
             chained && part->action == TL_RIG_ACTION_CHAIN && c < chained->chain_count; ++c)
            if (!strcmp(chain_name(chained, c), first)) r->chain = (int32_t)c;
        /* the cloth: its first bone is PREFIX_0_0 */
        snprintf(first, sizeof first, "%s_0_0", part->bone_prefix);
        uint32_t cloths = chained && chained->player ? tl_player_cloth_count(chained->player) : 0;
        for (uint32_t c = 0; part->action == TL_RIG_ACTION_CLOTH && c < cloths; ++c) {
            const tl_scene_part* sp =
                &chained->scene->parts[tl_player_cloth_part(chained->player, c)];
            if (!strcmp(chained->scene->skins[sp->skin].joints[sp->bone_joints[0]].name, first))
                r->cloth = (int32_t)c;
        }
    }
    return true;
}

/* The skin each chain of a rigged file moves (vertices whose dominant joint is its bone), and
 * each cloth lattice (below). */
static bool regions_from_chains(tl_measure_run* run, const tl_scene_skin* sk) {
    const tl_measure_rig* chained = chained_rig(run->rigs);
    for (uint32_t c = 0; c < chained->chain_count && run->region_count < DETECTED_MAX; ++c) {
        if (chained->chains[c].skin != run->skin) continue;
        tl_measure_region* r = region_add(run, sk->vertex_count);
        if (!r) return false;
        snprintf(r->name, sizeof r->name, "%s", chain_name(chained, c));
        r->cls = "chain";
        r->chain = (int32_t)c;
        for (uint32_t v = 0; v < sk->vertex_count; ++v) {
            uint32_t dominant = tl_scene_skin_dominant_joint(sk, v);
            for (uint32_t b = 0; b < chained->chains[c].bone_count; ++b)
                if (dominant == chained->chains[c].bone_joints[b]) r->mask[v] = 1;
        }
    }
    /* each cloth the player runs: the skin that carries most of its weight on the lattice's
     * bones (summed: a single dominant bone flips between a lattice and a body bone on rounding
     * where the rig's weights tie, which made the region depend on the file's scale) */
    uint32_t cloths = chained->player ? tl_player_cloth_count(chained->player) : 0;
    for (uint32_t c = 0; c < cloths && run->region_count < DETECTED_MAX; ++c) {
        const tl_scene_part* sp = &chained->scene->parts[tl_player_cloth_part(chained->player, c)];
        if (sp->skin != run->skin) continue;
        tl_measure_region* r = region_add(run, sk->vertex_count);
        if (!r) return false;
        snprintf(r->name, sizeof r->name, "%s", sk->joints[sp->bone_joints[0]].name);
        r->cls = "cloth";
        r->cloth = (int32_t)c;
        for (uint32_t v = 0; v < sk->vertex_count; ++v) {
            const uint32_t* j = sk->influence_joints + (size_t)v * sk->influence_count;
            const float* w = sk->influence_weights + (size_t)v * sk->influence_count;
            double on = 0;
            for (uint32_t k = 0; k < sk->influence_count; ++k)
                for (uint32_t b = 0; b < sp->bone_count; ++b)
                    if (j[k] == sp->bone_joints[b]) on += w[k];
            if (on > 0.5) r->mask[v] = 1;
        }
    }
    return true;
}

/* The skin a joint turns: every vertex with weight on it or a joint below it, and the
 * vertices one edge away (they stay, so the edges to them stretch: the seam where a turned
 * head would tear). `below` has room for the skin's joints. */
static bool joint_region_mask(const tl_scene_skin* sk, uint32_t joint, uint8_t* below,
                              uint8_t* mask) {
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
        int32_t a = (int32_t)j; /* parents come in any order: walk up */
        for (uint32_t depth = 0; a != TL_NONE && a != (int32_t)joint && depth < sk->joint_count;
             ++depth)
            a = sk->joints[a].parent;
        below[j] = a == (int32_t)joint;
    }
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        const uint32_t* j = sk->influence_joints + (size_t)v * sk->influence_count;
        const float* w = sk->influence_weights + (size_t)v * sk->influence_count;
        for (uint32_t k = 0; k < sk->influence_count; ++k)
            if (w[k] > 0 && j[k] < sk->joint_count && below[j[k]]) mask[v] = 1;
    }
    size_t index_count = (size_t)sk->triangle_count * 3;
    uint32_t* edges = malloc(sizeof(uint32_t) * 2 * (tl_mesh_edges_bound(index_count) + 1));
    size_t n = edges ? tl_mesh_edges(edges, sk->triangles, index_count, NULL) : 0;
    if (!edges || n == TL_MESH_OUT_OF_MEMORY) {
        free(edges);
        return false;
    }
    for (size_t e = 0; e < n; ++e) { /* 2: one edge away from a moved vertex (1) */
        uint32_t a = edges[2 * e], b = edges[2 * e + 1];
        if (mask[a] == 1 && !mask[b]) mask[b] = 2;
        if (mask[b] == 1 && !mask[a]) mask[a] = 2;
    }
    free(edges);
    return true;
}

/* Each pendulum and aim part the player plays: the skin its joint turns. */
static bool regions_from_joints(tl_measure_run* run, const tl_scene_skin* sk) {
    const tl_measure_rig* chained = chained_rig(run->rigs);
    uint32_t n = chained->player ? tl_player_joint_part_count(chained->player) : 0;
    uint8_t* below = malloc((size_t)sk->joint_count + 1);
    bool ok = below != NULL;
    for (uint32_t i = 0;
         ok && i < n && i < TL_MEASURE_MAX_JOINT_PARTS && run->region_count < DETECTED_MAX; ++i) {
        const tl_scene_part* sp = &chained->scene->parts[tl_player_joint_part(chained->player, i)];
        if (sp->skin != run->skin) continue;
        tl_measure_region* r = region_add(run, sk->vertex_count);
        if (!r) ok = false;
        if (!r) break;
        snprintf(r->name, sizeof r->name, "%s", sk->joints[sp->bone_joints[0]].name);
        r->cls = tl_part_kind_string(sp->kind);
        r->joint = (int32_t)i;
        ok = joint_region_mask(sk, sp->bone_joints[0], below, r->mask);
    }
    free(below);
    return ok;
}

/* The caller's regions, else detected parts, else the skin each chain moves; then the body:
 * every vertex outside every region (parts of class "body" are body skin that sits far from
 * its bone, tails.md §2, §4: they stay in the baseline). */
static bool regions_build(tl_measure_run* run, const tl_measure_run_def* def,
                          const tl_scene_skin* sk) {
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained = chained_rig(rigs);
    uint32_t V = sk->vertex_count;
    for (uint32_t i = 0; i < def->region_count; ++i) {
        tl_measure_region* r = region_add(run, V);
        if (!r) return false;
        snprintf(r->name, sizeof r->name, "%s", def->regions[i].name);
        memcpy(r->mask, def->regions[i].mask, V);
    }
    if (run->region_count == 0 && rigs->analysis) {
        if (!regions_from_parts(run, sk)) return false;
    } else if (run->region_count == 0 && rigs->rigged) {
        if (!regions_from_chains(run, sk) || !regions_from_joints(run, sk)) return false;
    } else if (chained && chained->chain_count == 1) {
        for (uint32_t i = 0; i < run->region_count; ++i)
            run->regions[i].chain = 0; /* the caller's regions: the one chain */
    }
    for (uint32_t i = 0; i < run->region_count; ++i) {
        tl_measure_region* r = &run->regions[i];
        for (uint32_t v = 0; v < V; ++v)
            r->vertices += r->mask[v] != 0;
        r->changed = r->part < 0 || rigs->analysis->parts[r->part].action == TL_RIG_ACTION_CHAIN ||
                     rigs->analysis->parts[r->part].action == TL_RIG_ACTION_CLOTH;
    }
    tl_measure_region* body = &run->regions[run->region_count];
    snprintf(body->name, sizeof body->name, "body");
    body->part = body->chain = body->cloth = body->joint = -1;
    if (!(body->mask = calloc(V + 1, 1))) return false;
    for (uint32_t v = 0; v < V; ++v) {
        bool inside = false;
        for (uint32_t i = 0; i < run->region_count; ++i)
            inside = inside || (run->regions[i].mask[v] &&
                                !(run->regions[i].cls && !strcmp(run->regions[i].cls, "body")));
        body->mask[v] = !inside;
        body->vertices += !inside;
    }
    return true;
}

/* Edges of every region in every rig, and the bone distances. */
/* Each configuration's skin depth of the regions the rigs move differently (a region left as
 * the file has it gets the file's own figure in every one: not measured) against the skin in no
 * region (the hair left out: cards have no inside). False on memory. */
static bool depths_build(tl_measure_run* run) {
    run_internal* in = run->internal;
    const tl_measure_rigs* rigs = run->rigs;
    const tl_scene* first = rigs->rigs[run->first].scene;
    uint32_t n = first->skins[run->skin].vertex_count;
    uint8_t *body = malloc(n + 1), *none = calloc(n + 1, 1);
    bool ok = body && none && tl_body_skin_mask(first, run->skin, body, NULL) == TL_OK;
    const uint8_t* masks[TL_MEASURE_MAX_REGIONS];
    for (uint32_t i = 0; i < run->region_count; ++i)
        masks[i] = run->regions[i].changed ? run->regions[i].mask : none;
    for (uint32_t v = 0; ok && v < n; ++v)
        for (uint32_t i = 0; i < run->region_count && body[v]; ++i)
            body[v] = !run->regions[i].mask[v];
    /* (every rig has the same rest skin: one measure serves each in turn, skinned by its own) */
    ok = ok && (in->depth = skin_depth_create(first, run->skin, masks, run->region_count, body));
    free(body), free(none);
    return ok;
}

/* The skin depth rig c samples: the file as it is (the first rig) and played, else NULL. */
static skin_depth* rig_depth(const tl_measure_run* run, int c) {
    const run_internal* in = run->internal;
    return c == (int)run->first || c == TL_MEASURE_CHAIN ? in->depth : NULL;
}

static tl_result measures_build(tl_measure_run* run, tl_error* err) {
    run_internal* in = run->internal;
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained = chained_rig(rigs);
    const uint8_t* masks[TL_MEASURE_MAX_REGIONS + 1];
    for (uint32_t i = 0; i <= run->region_count; ++i)
        masks[i] = run->regions[i].mask;
    tl_measure_def def = tl_default_measure_def();
    def.samples = run->samples;
    for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c) {
        if (!rigs->rigs[c].used) continue;
        /* every configuration measures the regions and the body */
        tl_result r = tl_stretch_create(rigs->rigs[c].scene, run->skin, masks,
                                        run->region_count + 1, &def, &in->stretch[c], err);
        if (r != TL_OK) return r;
    }
    for (uint32_t i = 0; i <= run->region_count; ++i)
        run->regions[i].edges = tl_stretch_edge_count(in->stretch[run->first], i);
    if (!depths_build(run)) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    const tl_scene* first = rigs->rigs[run->first].scene;
    float* scratch = malloc(
        sizeof(float) * 7 *
        (tl_scene_skin_bones_bound(&(chained ? chained->scene : first)->skins[run->skin]) + 1));
    for (uint32_t i = 0; i < run->region_count && scratch; ++i) {
        tl_measure_region* r = &run->regions[i];
        r->distance = tl_measure_bone_distance(first, run->skin, r->mask, NULL, NULL, 0, scratch);
        r->distance_chain = chained ? tl_measure_bone_distance(chained->scene, run->skin, r->mask,
                                                               NULL, NULL, 0, scratch)
                                    : -1;
    }
    free(scratch);
    return TL_OK;
}

tl_result tl_measure_run_create(const tl_measure_rigs* rigs, const tl_measure_run_def* def,
                                tl_measure_run** out, tl_error* err) {
    assert(rigs && def && out && def->samples >= 1);
    assert(def->region_count <= TL_MEASURE_MAX_REGIONS);
    *out = NULL;
    tl_measure_run* run = calloc(1, sizeof *run);
    run_internal* in = calloc(1, sizeof *in);
    if (!run || !in) {
        free(run);
        free(in);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    run->internal = in;
    run->rigs = rigs;
    run->skin = def->skin;
    run->samples = def->samples;
    run->first = TL_MEASURE_CHAIN;
    for (int c = TL_MEASURE_RIG_COUNT - 1; c >= 0; --c)
        if (rigs->rigs[c].used) run->first = (tl_measure_rig_kind)c;
    const tl_scene_skin* sk = &rigs->rigs[run->first].scene->skins[def->skin];
    assert(def->skin < rigs->rigs[run->first].scene->skin_count);
    run->height = sk->height;
    tl_result r =
        regions_build(run, def, sk) ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = measures_build(run, err);
    if (r != TL_OK) {
        tl_measure_run_destroy(run);
        return r;
    }
    *out = run;
    return TL_OK;
}

void tl_measure_run_destroy(tl_measure_run* run) {
    if (!run) return;
    run_internal* in = run->internal;
    for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c)
        tl_stretch_destroy(in->stretch[c]);
    skin_depth_destroy(in->depth);
    for (uint32_t i = 0; i <= run->region_count && i <= TL_MEASURE_MAX_REGIONS; ++i)
        free(run->regions[i].mask);
    free(in);
    free(run);
}

typedef struct hook_ctx {
    const tl_measure_rig* rig;
    uint32_t clip;
    const tl_measure_run* run; /* with out: the cloth figures (chain_hook) */
    tl_measure_clip* out;
    cloth_stretch** split;       /* with out: per region, its edges split by direction, or NULL */
    cloth_stretch** input;       /* with split: the same edges as the file bound them, or NULL */
    const tl_scene* input_scene; /* with input: the file as bound, and a pose of it */
    tl_pose* input_pose;
    skin_depth* depth; /* the configuration's, sampled after everything moved */
    bool* failed;      /* set when a sample ran out of memory */
} hook_ctx;

/* One sample of a cloth region's lattice: tethers and safe distances. */
static void cloth_sample(const tl_player* player, uint32_t index, float height,
                         tl_measure_cloth* m) {
    const tl_cloth* c = tl_player_cloth(player, index);
    const float* targets = tl_player_cloth_targets(player, index);
    const tl_cloth_model* model = tl_cloth_get_model(c);
    const float* local = tl_cloth_local_positions(c);
    const float* world = tl_cloth_positions(c);
    const float* rest = tl_cloth_model_tethers(model);
    const float* safe = tl_cloth_max_distances(c);
    int C = tl_cloth_model_columns(model), n = tl_cloth_particle_count(c);
    for (int i = C; i < n; ++i) {
        double d = 0, e = 0;
        for (int k = 0; k < 3; ++k) {
            double a = (double)local[3 * i + k] - local[3 * (i - C) + k];
            double b = (double)world[3 * i + k] - targets[3 * i + k];
            d += a * a, e += b * b;
        }
        double t = fabs(sqrt(d) - rest[i]) / rest[i], x = (sqrt(e) - safe[i]) / safe[i];
        if (t > m->tether_violation_max) m->tether_violation_max = t;
        if (x > m->max_distance_violation_max) m->max_distance_violation_max = x;
    }
    const tl_collider* colliders;
    uint32_t count = tl_player_cloth_colliders(player, index, &colliders);
    if (count > m->colliders) m->colliders = count;
    /* the free particles: row 0 is pinned to its targets, the body's own skin */
    for (uint32_t k = 0; k < count && height > 0; ++k)
        for (int i = C; i < n; ++i) {
            double d = tl_collider_depth(&colliders[k], world + 3 * i) / height;
            if (d > m->collider_penetration) m->collider_penetration = d;
        }
}

/* One sample of each pendulum's swing and aim's error (the RMS summed as squares). */
static void joints_sample(const tl_measure_rig* rig, const tl_pose* pose, tl_measure_clip* out) {
    for (uint32_t i = 0; i < out->joint_count; ++i) {
        tl_measure_joint* m = &out->joints[i];
        const tl_pendulum* pen = tl_player_pendulum(rig->player, i);
        float e =
            pen ? tl_pendulum_swing_deg(pen)
                : tl_measure_aim_error_deg(
                      rig->scene, &rig->scene->parts[tl_player_joint_part(rig->player, i)], pose);
        m->samples++;
        if (!isfinite(e)) {
            m->nonfinite++;
        } else if (pen) {
            m->swing_max_deg = fmaxf(m->swing_max_deg, e);
            m->swing_rms_deg += e * e;
        } else {
            m->aim_error_max_deg = fmaxf(m->aim_error_max_deg, e);
        }
    }
}

/* Advances the simulated chains to each sample time (tl_stretch_run's hook). */
static void chain_hook(void* user, tl_pose* pose, float time) {
    const hook_ctx* h = user;
    if (h->rig->player) tl_player_advance(h->rig->player, pose, h->clip, time);
    for (uint32_t i = 0; i < h->rig->chain_count; ++i)
        if (h->rig->live[i]) tl_liveliness_add(h->rig->live[i], pose);
    if (h->out && h->rig->player) joints_sample(h->rig, pose, h->out);
    bool sampled = false; /* the input's pose at this time, once for every region */
    for (uint32_t i = 0; h->out && i < h->run->region_count && i < TL_MEASURE_MAX_REGIONS; ++i) {
        int32_t c = h->run->regions[i].cloth;
        if (c < 0) continue;
        tl_measure_cloth* m = &h->out->cloth[i];
        cloth_sample(h->rig->player, (uint32_t)c, h->run->height, m);
        if (!h->split || !h->split[i] || !(h->run->height > 0)) continue;
        const tl_collider* colliders;
        uint32_t count = tl_player_cloth_colliders(h->rig->player, (uint32_t)c, &colliders);
        cloth_stretch_add(h->split[i], pose);
        double d = cloth_stretch_depth(h->split[i], colliders, count) / h->run->height;
        if (d > m->mesh_penetration) m->mesh_penetration = d;
        if (!h->input || !h->input[i]) continue;
        if (!sampled) tl_pose_sample(h->input_pose, h->input_scene, h->clip, time), sampled = true;
        cloth_stretch_pose(h->input[i], h->input_pose);
        d = cloth_stretch_depth(h->input[i], colliders, count) / h->run->height;
        if (d > m->mesh_penetration_input) m->mesh_penetration_input = d;
    }
    if (h->depth && !skin_depth_add(h->depth, h->rig->scene, pose)) *h->failed = true;
}

/* A configuration nothing moves: its skin depth only. */
static void depth_hook(void* user, tl_pose* pose, float time) {
    (void)time;
    const hook_ctx* h = user;
    if (h->depth && !skin_depth_add(h->depth, h->rig->scene, pose)) *h->failed = true;
}

/* The most the chains' skin lifts the hips over the clip's sample times, or -1. */
static double clip_lift(const tl_measure_rig* chained, uint32_t clip, uint32_t samples) {
    float times[MAX_SAMPLES], dy[MAX_SAMPLES];
    uint32_t n = samples < MAX_SAMPLES ? samples : MAX_SAMPLES;
    float duration = chained->scene->clips[clip].duration;
    for (uint32_t j = 0; j < n; ++j)
        times[j] = (float)j * duration / (float)n;
    tl_seating_def sdef = tl_default_seating_def();
    tl_error err;
    if (tl_seating_compare(chained->scene, chained->chains, chained->chain_count, clip, times, n,
                           &sdef, dy, NULL, NULL, &err) != TL_OK)
        return -1;
    double max_dy = 0;
    for (uint32_t j = 0; j < n; ++j)
        if (dy[j] > max_dy) max_dy = dy[j];
    return max_dy;
}

/* Advances the simulated chains only (no liveliness): the new-tears pass. */
static void player_hook(void* user, tl_pose* pose, float time) {
    const hook_ctx* h = user;
    tl_player_advance(h->rig->player, pose, h->clip, time);
}

/* The skin a cloth lattice re-weighted: the part and every vertex with weight on a joint the
 * file did not have (the rig appends its joints after the file's, rig.md "What the output file
 * holds"). The chain's set is the part and its band, which the rig plans itself. */
static void cloth_changed_mask(const tl_scene_skin* sb, const tl_scene_skin* sa,
                               const tl_rig_part* part, uint8_t* mask) {
    for (uint32_t k = 0; k < part->vertex_count; ++k)
        mask[part->vertices[k]] = 1;
    for (uint32_t v = 0; v < sa->vertex_count; ++v) {
        const uint32_t* j = sa->influence_joints + (size_t)v * sa->influence_count;
        const float* w = sa->influence_weights + (size_t)v * sa->influence_count;
        for (uint32_t k = 0; k < sa->influence_count; ++k)
            if (w[k] > 0 && j[k] >= sb->joint_count) mask[v] = 1;
    }
}

/* New tears of each chained or cloth part's re-weighted skin on an un-rigged file rigged in
 * memory, against the file as bound; zero counts elsewhere. */
static tl_result clip_new_tears(const tl_measure_run* run, uint32_t clip, tl_measure_clip* out,
                                tl_error* err) {
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained = chained_rig(rigs);
    memset(out->new_tears, 0, sizeof out->new_tears);
    if (!chained || !rigs->analysis || !rigs->rigs[TL_MEASURE_ORIGINAL].used) return TL_OK;
    const tl_scene* before = rigs->rigs[TL_MEASURE_ORIGINAL].scene;
    uint32_t V = before->skins[run->skin].vertex_count;
    tl_measure_def def = tl_default_measure_def();
    uint8_t* mask = NULL;
    tl_result r = TL_OK;
    for (uint32_t i = 0; r == TL_OK && i < run->region_count; ++i) {
        int32_t pi = run->regions[i].part;
        if (pi < 0) continue;
        const tl_rig_part* part = &rigs->analysis->parts[pi];
        bool cloth = part->action == TL_RIG_ACTION_CLOTH;
        if ((part->action != TL_RIG_ACTION_CHAIN && !cloth) || part->skin != run->skin) continue;
        const tl_scene_skin* sa = &chained->scene->skins[run->skin];
        if (sa->vertex_count != V) continue; /* a rebound mesh has no binding to compare */
        if (!mask && !(mask = malloc((size_t)V + 1)))
            return tl_error_set(err, TL_ERROR_MEMORY, "out of memory (new tears)");
        memset(mask, 0, (size_t)V + 1);
        if (cloth) cloth_changed_mask(&before->skins[run->skin], sa, part, mask);
        for (uint32_t k = 0; !cloth && k < part->vertex_count; ++k)
            mask[part->vertices[k]] = 1;
        for (uint32_t k = 0; !cloth && k < part->band_count; ++k)
            mask[part->band_vertices[k]] = 1;
        hook_ctx hook = {chained, clip, NULL, NULL};
        tl_player_start(chained->player, clip, 0);
        r = tl_measure_new_tears(before, chained->scene, run->skin, mask, clip, &def, player_hook,
                                 &hook, &out->new_tears[i], err);
    }
    free(mask);
    return r;
}

tl_result tl_measure_run_clip(tl_measure_run* run, uint32_t clip, tl_measure_clip* out,
                              tl_error* err) {
    run_internal* in = run->internal;
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained = chained_rig(rigs);
    out->clip = clip;
    memset(out->cloth, 0, sizeof out->cloth);
    memset(out->joints, 0, sizeof out->joints);
    memset(out->skin_depth, 0, sizeof out->skin_depth);
    out->joint_count = 0;
    if (chained && chained->player) {
        uint32_t n = tl_player_joint_part_count(chained->player);
        out->joint_count = n < TL_MEASURE_MAX_JOINT_PARTS ? n : TL_MEASURE_MAX_JOINT_PARTS;
        for (uint32_t i = 0; i < out->joint_count; ++i)
            out->joints[i].kind =
                chained->scene->parts[tl_player_joint_part(chained->player, i)].kind;
    }
    for (uint32_t i = 0; chained && i < run->region_count && i < TL_MEASURE_MAX_REGIONS; ++i) {
        int32_t c = run->regions[i].cloth;
        if (c < 0) continue;
        const tl_scene_part* sp =
            &chained->scene->parts[tl_player_cloth_part(chained->player, (uint32_t)c)];
        out->cloth[i].particles = sp->cloth_rows * sp->cloth_columns;
        out->cloth[i].bones = sp->bone_count + 1;
    }
    for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c) {
        const tl_measure_rig* rig = &rigs->rigs[c];
        if (!rig->used) continue;
        cloth_stretch* split[TL_MEASURE_MAX_REGIONS] = {0};
        cloth_stretch* input[TL_MEASURE_MAX_REGIONS] = {0};
        bool motion = c == TL_MEASURE_CHAIN && rig->player;
        /* the file as bound, posed at the same times against the same colliders: the skin's
           vertices as they were, so the rig's figure has its before */
        const tl_measure_rig* original = &rigs->rigs[TL_MEASURE_ORIGINAL];
        const tl_scene* before = original->used && rigs->analysis ? original->scene : NULL;
        if (before &&
            (run->skin >= before->skin_count ||
             before->skins[run->skin].vertex_count != rig->scene->skins[run->skin].vertex_count))
            before = NULL;
        bool failed = false;
        skin_depth* depth = rig_depth(run, c);
        hook_ctx hook = {rig, clip, run, out, split, input, before, NULL, depth, &failed};
        if (depth) skin_depth_clear(depth);
        bool ok = !motion || !before || (hook.input_pose = tl_pose_create(before)) != NULL;
        for (uint32_t i = 0; motion && i < run->region_count && i < TL_MEASURE_MAX_REGIONS; ++i) {
            int32_t k = run->regions[i].cloth;
            if (k < 0) continue;
            const tl_scene_part* sp =
                &rig->scene->parts[tl_player_cloth_part(rig->player, (uint32_t)k)];
            const uint32_t* edges = tl_stretch_edges(in->stretch[c], i);
            size_t edge_count = tl_stretch_edge_count(in->stretch[c], i);
            out->cloth[i].mesh_penetration_input = -1;
            ok = ok && (split[i] = cloth_stretch_create(rig->scene, run->skin, sp, edges,
                                                        edge_count, run->samples)) != NULL;
            if (ok && before) {
                out->cloth[i].mesh_penetration_input = 0;
                ok = (input[i] = cloth_stretch_create(before, run->skin, sp, edges, edge_count,
                                                      0)) != NULL; /* (its depth only) */
            }
        }
        if (!ok) {
            for (uint32_t j = 0; j < TL_MEASURE_MAX_REGIONS; ++j)
                cloth_stretch_destroy(split[j]), cloth_stretch_destroy(input[j]);
            tl_pose_destroy(hook.input_pose);
            return tl_error_set(err, TL_ERROR_MEMORY, "out of memory (cloth stretch)");
        }
        if (motion) {
            tl_player_start(rig->player, clip, 0);
            for (uint32_t i = 0; i < rig->chain_count; ++i)
                tl_liveliness_clear(rig->live[i]);
        }
        tl_stretch_run(in->stretch[c], clip, motion ? chain_hook : depth_hook, &hook,
                       out->stats[c]);
        for (uint32_t i = 0; i < run->region_count && i < TL_MEASURE_MAX_REGIONS; ++i)
            out->skin_depth[c][i] = !run->regions[i].changed || !depth ? -1
                                    : run->height > 0 ? skin_depth_deepest(depth, i) / run->height
                                                      : 0;
        for (uint32_t i = 0; i < TL_MEASURE_MAX_REGIONS; ++i) {
            cloth_stretch_destroy(input[i]);
            if (!split[i]) continue;
            cloth_stretch_stats(split[i], &out->cloth[i].stretch_vertical,
                                &out->cloth[i].stretch_horizontal);
            cloth_stretch_destroy(split[i]);
        }
        tl_pose_destroy(hook.input_pose);
        if (failed) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory (skin depth)");
    }
    for (uint32_t i = 0; i < out->joint_count; ++i) {
        tl_measure_joint* m = &out->joints[i];
        uint32_t finite = m->samples - m->nonfinite;
        m->swing_rms_deg = finite ? sqrtf(m->swing_rms_deg / (float)finite) : 0;
    }
    out->lift = chained && chained->chain_count > 0 ? clip_lift(chained, clip, run->samples) : -1;
    for (uint32_t i = 0; chained && i < chained->chain_count; ++i)
        out->liveliness[i] = tl_liveliness_result(chained->live[i]);
    return clip_new_tears(run, clip, out, err);
}
