/* The player's cloth parts (cloth_play.h): the bridge from poses to tl_cloth and back.
 *
 *   targets   particle i's rest position skinned to its one joint: W(j) · IBM(j) · bind_i
 *   frame     the attachment joint's motion from rest: W(attach) · (M · IBM(attach)^-1)^-1
 *   bones     the rest bone carried by its patch's rigid motion (cloth_lattice.c)
 * The lattice's set-up and the bones' motion are cloth_lattice.c's, which the web runtime's glue
 * shares (web/tailor_sim_glue.c). */
#include "play/cloth_play.h"
#include "play/cloth_lattice.h"

#include <tailor/colliders.h>
#include <tailor/mesh.h>

#include "base/mat4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct play_cloth {
    uint32_t part;
    tl_cloth_model* model;
    tl_cloth* cloth;
    float* rest;          /* n x 3 rest-world */
    float* targets;       /* n x 3 world */
    float attach_inv[16]; /* (M · IBM(attach)^-1)^-1 */
    tl_body_collider colliders[TL_BODY_COLLIDERS_MAX];
    tl_collider fitted[TL_BODY_COLLIDERS_MAX]; /* colliders[k].local: rest-world, as fitted */
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    uint32_t collider_count;
    bool cut;
} play_cloth;

struct play_cloths {
    const tl_scene* scene;
    uint32_t count;
    play_cloth* items;
};

static void invert(float out[16], const float m[16]) {
    double a[16], b[16];
    tl_mat4d_from_float(a, m);
    tl_mat4d_invert(b, a);
    tl_mat4d_to_float(out, b);
}

/* The body colliders the cloth meets (play_lattice_fit_collider). */
static tl_result fit_colliders(const tl_scene* scene, const tl_scene_part* sp, play_cloth* pc,
                               float margin, tl_error* err) {
    tl_body_collider all[TL_BODY_COLLIDERS_MAX];
    uint32_t count;
    tl_result r = tl_body_colliders_fit(scene, sp->skin, all, TL_BODY_COLLIDERS_MAX, &count, err);
    if (r != TL_OK) return r;
    for (uint32_t k = 0; k < count; ++k)
        if (play_lattice_fit_collider(&all[k].local, pc->rest, sp->cloth_rows, sp->cloth_columns,
                                      margin)) {
            pc->fitted[pc->collider_count] = all[k].local;
            pc->colliders[pc->collider_count++] = all[k];
        }
    return TL_OK;
}

/* The rest-world positions of the skin the lattice drives (more than half its weight on the
 * part's bones, the region tailor measure judges), in a new array (*out); 0 when none or out of
 * memory (*out NULL then). */
static uint32_t part_rest_mesh(const tl_scene* scene, const tl_scene_part* sp, float** out) {
    const tl_scene_skin* sk = &scene->skins[sp->skin];
    uint32_t IC = sk->influence_count, count = 0;
    *out = malloc(3 * (size_t)sk->vertex_count * sizeof **out + 1);
    if (!*out) return 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        float w = 0;
        for (uint32_t k = 0; k < IC; ++k) {
            uint32_t j = sk->influence_joints[(size_t)v * IC + k];
            bool ours = j == sp->end_joint;
            for (uint32_t b = 0; b < sp->bone_count && !ours; ++b)
                ours = sp->bone_joints[b] == j;
            if (ours) w += sk->influence_weights[(size_t)v * IC + k];
        }
        if (w > 0.5f) memcpy(*out + 3 * (size_t)count++, sk->rest_positions + 3 * (size_t)v, 12);
    }
    return count;
}

/* The skin points of an open lattice (play_lattice_skin_points) from the part's rest mesh; *out:
 * a new array (NULL when none); -1 when out of memory. */
static int skin_points(const tl_scene* scene, const tl_scene_part* sp, const play_cloth* pc,
                       float margin, tl_cloth_skin_point** out) {
    float* mesh;
    uint32_t count = part_rest_mesh(scene, sp, &mesh), R = sp->cloth_rows, C = sp->cloth_columns;
    int* bin = mesh ? malloc(play_lattice_skin_bins(R, C) * sizeof *bin) : NULL;
    *out = bin ? malloc((count + 1) * sizeof **out) : NULL;
    int kept = *out ? play_lattice_skin_points(pc->fitted, pc->collider_count, pc->rest, R, C,
                                               margin, mesh, count, bin, *out)
                    : -1;
    free(mesh), free(bin);
    return kept;
}

static tl_result create_one(const tl_scene* scene, uint32_t part, bool colliders, play_cloth* pc,
                            tl_error* err) {
    const tl_scene_part* sp = &scene->parts[part];
    const tl_scene_skin* sk = &scene->skins[sp->skin];
    uint32_t R = sp->cloth_rows, C = sp->cloth_columns, n = R * C;
    tl_cloth_skin_point* points = NULL;
    pc->part = part;
    /* rest, targets (n x 3 each), then the links' slack (n x 2, used at create only) */
    pc->rest = malloc(8 * (size_t)n * sizeof *pc->rest);
    if (!pc->rest) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    pc->targets = pc->rest + 3 * (size_t)n;
    float* slack = pc->rest + 6 * (size_t)n;
    for (uint32_t i = 0; i < n; ++i)
        tl_mat4_transform_point(pc->rest + 3 * i, sk->rest_world, sp->cloth_particles + 3 * i);
    invert(pc->attach_inv, sk->joints[sp->attach_joint].rest_world);
    tl_cloth_def def = tl_default_cloth_def();
    def.rows = (int)R, def.columns = (int)C, def.closed = sp->cloth_closed;
    def.rest_positions = pc->rest;
    memcpy(def.up, sk->up, sizeof def.up);
    def.scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
    def.settings = sp->cloth;
    /* the player feeds poses every 1/120 s (tl_player_def.frame_step): the cloth steps with
     * them */
    play_lattice_player_step(&def);
    if (colliders) {
        float margin = def.settings.collision_margin * def.scale;
        tl_result r = fit_colliders(scene, sp, pc, margin, err);
        if (r != TL_OK) return r;
        play_lattice_link_slack(pc->fitted, pc->collider_count, pc->rest, R, C, sp->cloth_closed,
                                margin, slack);
        def.link_slack = slack;
        if (!sp->cloth_closed) /* a closed ring pushes no links and no skin */
            def.skin_point_count = skin_points(scene, sp, pc, margin, &points);
        if (def.skin_point_count < 0) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        def.skin_points = points;
    }
    tl_error e;
    tl_result r = tl_cloth_model_create(&def, NULL, &pc->model, &e);
    free(points);
    if (r == TL_OK) r = tl_cloth_create(pc->model, NULL, &pc->cloth, &e);
    if (r != TL_OK)
        return tl_error_set(err, r, "%s: the cloth from %s: %s",
                            scene->doc->path && *scene->doc->path ? scene->doc->path : "<memory>",
                            sk->joints[sp->attach_joint].name, e.message);
    return TL_OK;
}

tl_result play_cloths_create(const tl_scene* scene, bool colliders, play_cloths** out,
                             tl_error* err) {
    *out = NULL;
    uint32_t count = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        count += scene->parts[i].kind == TL_PART_CLOTH;
    if (!count) return TL_OK;
    play_cloths* pc = calloc(1, sizeof *pc);
    if (pc) pc->items = calloc(count, sizeof *pc->items);
    if (!pc || !pc->items) {
        free(pc);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    pc->scene = scene;
    for (uint32_t i = 0; i < scene->part_count; ++i) {
        if (scene->parts[i].kind != TL_PART_CLOTH) continue;
        tl_result r = create_one(scene, i, colliders, &pc->items[pc->count++], err);
        if (r != TL_OK) {
            play_cloths_destroy(pc);
            return r;
        }
    }
    *out = pc;
    return TL_OK;
}

void play_cloths_destroy(play_cloths* pc) {
    if (!pc) return;
    for (uint32_t i = 0; i < pc->count; ++i) {
        tl_cloth_destroy(pc->items[i].cloth);
        tl_cloth_model_destroy(pc->items[i].model);
        free(pc->items[i].rest);
    }
    free(pc->items);
    free(pc);
}

/* Targets, frame and colliders of one cloth under the pose. */
static tl_chain_pose read_pose(const play_cloths* pcs, play_cloth* pc, const tl_pose* pose) {
    const tl_scene_part* sp = &pcs->scene->parts[pc->part];
    const tl_scene_skin* sk = &pcs->scene->skins[sp->skin];
    uint32_t n = sp->cloth_rows * sp->cloth_columns;
    for (uint32_t i = 0; i < n; ++i) {
        const tl_scene_joint* j = &sk->joints[sp->cloth_particle_joints[i]];
        float skin[16];
        tl_mat4_mul(skin, pose->world + 16 * (size_t)j->node, j->inverse_bind);
        tl_mat4_transform_point(pc->targets + 3 * i, skin, sp->cloth_particles + 3 * i);
    }
    if (pc->collider_count)
        tl_body_colliders_pose(pcs->scene, sp->skin, pc->colliders, pc->collider_count, pose,
                               pc->world);
    float frame[16];
    tl_mat4_mul(frame, pose->world + 16 * (size_t)sk->joints[sp->attach_joint].node,
                pc->attach_inv);
    return tl_chain_pose_from_matrix(frame);
}

static void step_one(const play_cloths* pcs, play_cloth* pc, const tl_pose* pose, float dt) {
    tl_cloth_input in = tl_default_cloth_input();
    in.frame = read_pose(pcs, pc, pose);
    in.targets = pc->targets;
    in.cut = pc->cut;
    in.colliders = pc->collider_count ? pc->world : NULL;
    in.collider_count = (int)pc->collider_count;
    tl_cloth_step(pc->cloth, &in, dt);
    pc->cut = false;
}

void play_cloths_start(play_cloths* pcs, const tl_pose* pose) {
    for (uint32_t i = 0; pcs && i < pcs->count; ++i) {
        /* the first step after clear starts at rest on the targets, out of the colliders */
        tl_cloth_clear(pcs->items[i].cloth);
        pcs->items[i].cut = false;
        step_one(pcs, &pcs->items[i], pose, 0.0f);
    }
}

/* A host's pose sampler seen by one cloth (tl_cloth_sampler). */
typedef struct cloth_sampling {
    const play_cloths* pcs;
    play_cloth* pc;
    play_pose_at pose_at;
    void* user;
    const tl_pose* fixed; /* or one pose for every time */
} cloth_sampling;

static void sample_cloth_input(void* user, float t, tl_cloth_input* in) {
    cloth_sampling* s = user;
    const tl_pose* pose = s->fixed ? s->fixed : s->pose_at(s->user, t);
    in->frame = read_pose(s->pcs, s->pc, pose);
    in->targets = s->pc->targets;
    in->colliders = s->pc->collider_count ? s->pc->world : NULL;
    in->collider_count = (int)s->pc->collider_count;
}

void play_cloths_cut(play_cloths* pcs, const tl_pose* pose) {
    /* carried to the pose now (tl_cloth_step_sampled with a cut and no time), so the frame
       after it runs from there as any other: exact, and the same at every frame rate */
    for (uint32_t i = 0; pcs && i < pcs->count; ++i) {
        cloth_sampling s = {pcs, &pcs->items[i], NULL, NULL, pose};
        tl_cloth_step_sampled(pcs->items[i].cloth, sample_cloth_input, &s, 0.0f, true);
        pcs->items[i].cut = false;
    }
}

void play_cloths_step_sampled(play_cloths* pcs, play_pose_at pose_at, void* user, float dt) {
    for (uint32_t i = 0; pcs && i < pcs->count; ++i) {
        cloth_sampling s = {pcs, &pcs->items[i], pose_at, user, NULL};
        tl_cloth_step_sampled(pcs->items[i].cloth, sample_cloth_input, &s, dt, false);
    }
}

void play_cloths_step(play_cloths* pcs, const tl_pose* pose, float dt) {
    for (uint32_t i = 0; pcs && i < pcs->count; ++i)
        step_one(pcs, &pcs->items[i], pose, dt);
}

void play_cloths_apply(const play_cloths* pcs, tl_pose* pose) {
    for (uint32_t i = 0; pcs && i < pcs->count; ++i) {
        const play_cloth* pc = &pcs->items[i];
        const tl_scene_part* sp = &pcs->scene->parts[pc->part];
        const tl_scene_skin* sk = &pcs->scene->skins[sp->skin];
        uint32_t R = sp->cloth_rows, C = sp->cloth_columns;
        uint32_t count = sp->bone_count + 1;
        float rest[(TL_CHAIN_MAX_BONES + 1) * 16], local[(TL_CHAIN_MAX_BONES + 1) * 16];
        for (uint32_t k = 0; k < count; ++k) {
            uint32_t joint = k < sp->bone_count ? sp->bone_joints[k] : sp->end_joint;
            memcpy(rest + 16 * k, sk->joints[joint].rest_world, sizeof sk->joints[0].rest_world);
        }
        play_lattice_bone_locals(
            pc->rest, tl_cloth_positions(pc->cloth), R, C, sp->cloth_closed, sp->cloth_bone_columns,
            count, rest, pose->world + 16 * (size_t)sk->joints[sp->attach_joint].node, local);
        for (uint32_t k = 0; k < count; ++k) {
            uint32_t joint = k < sp->bone_count ? sp->bone_joints[k] : sp->end_joint;
            pose->locals[sk->joints[joint].node] = tl_trs_from_matrix(local + 16 * k);
        }
    }
}

uint32_t play_cloths_count(const play_cloths* pc) {
    return pc ? pc->count : 0;
}
const tl_cloth* play_cloths_get(const play_cloths* pc, uint32_t i) {
    return pc->items[i].cloth;
}
uint32_t play_cloths_part(const play_cloths* pc, uint32_t i) {
    return pc->items[i].part;
}
const float* play_cloths_targets(const play_cloths* pc, uint32_t i) {
    return pc->items[i].targets;
}
uint32_t play_cloths_colliders(const play_cloths* pc, uint32_t i, const tl_collider** world) {
    if (world) *world = pc->items[i].world;
    return pc->items[i].collider_count;
}
