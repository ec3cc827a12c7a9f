/* Clip playback with the spring chains: the bridge from poses to the solver and back. */
#include <tailor/colliders.h>
#include <tailor/play.h>
#include <tailor/gltf_json.h>

#include "base/mat4.h"
#include "play/chain_colliders.h"
#include "play/cloth_play.h"
#include "play/hair_sheet.h"
#include "play/joint_play.h"
#include "sim/contact_memo.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tl_player {
    const tl_scene* scene;
    tl_player_def def;
    uint32_t count;
    tl_play_chain* descs;
    tl_chain** chains;
    tl_chain_input* inputs; /* per chain: start = last frame's attachment pose */
    tl_pose* scratch;       /* intermediate frames */
    tl_pose* sampled;       /* def.sample_chains: the clip at a chain's internal step ... */
    uint32_t sampled_clip;  /* ... of this clip ... */
    float sampled_time;     /* ... at this clip time (NaN: none yet) */
    uint32_t clip;
    float time;    /* the clip time of the last advance */
    float origin;  /* the clip time tl_player_start began at */
    double played; /* seconds played since then (grows through loops) */
    double fed;    /* the clip time of the last pose fed to the chains */
    bool started;
    bool cut; /* the next sampled frame starts with a cut (a loop's wrap, tl_player_cut) */
    /* def.colliders: per chain, the body colliders it runs with and their world poses */
    tl_body_collider (*colliders)[TL_BODY_COLLIDERS_MAX];
    tl_collider (*world)[TL_BODY_COLLIDERS_MAX];
    uint32_t* collider_count;
    tl_collider (*relative)[TL_BODY_COLLIDERS_MAX]; /* world - home: what the chains get */
    /* per chain: its colliders' joints' matrices less home relative was posed from (a pose that
       moves none of them poses them the same: a still body, the rest settle); posed false: none
       yet */
    double (*posed_at)[TL_BODY_COLLIDERS_MAX * 16];
    play_node_plan* plans; /* per chain: its colliders' joints' nodes (play_node_plan_build) */
    double (*rest_inverse)[TL_BODY_COLLIDERS_MAX * 16]; /* per collider: rest_world(joint)^-1 */
    bool* posed;
    bool pose_every; /* play_player_pose_memo false: posed every frame */
    /* per chain with a hit radius: each collider's growth per link (play_chain_colliders) */
    float (*growth)[TL_BODY_COLLIDERS_MAX * TL_CHAIN_MAX_BONES];
    contact_memo* contact_memos; /* def.colliders: per chain, its grown colliders (kept across
                                    frames: the rest settle's are the same every frame) */
    float* floors;               /* per chain: its body floor along up, world units */
    float home[3];       /* the world point the chains are simulated relative to (player_rehome) */
    play_cloths* cloths; /* the scene's cloth parts (cloth_play.c), or NULL */
    play_joints* joints; /* the scene's pendulum and aim parts (joint_play.c), or NULL */
    /* neighbouring hair chains held together (tl_play_chain.sheet_rate marks them) */
    play_sheet* sheet;             /* the sheet's limit (hair_sheet.c), or NULL */
    play_sheet_body* sheet_bodies; /* per chain: its colliders for the limit */
};

tl_player_def tl_default_player_def(void) {
    tl_player_def def;
    def.frame_step = 1.0f / 120.0f;
    def.loop = false;
    def.colliders = true;
    def.fit_colliders = false;
    def.sample_chains = true;
    return def;
}

tl_result tl_play_chains_find(const tl_scene* scene, tl_play_chain* out, uint32_t capacity,
                              uint32_t* count, tl_error* err) {
    *count = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i) {
        const tl_scene_part* part = &scene->parts[i];
        if (part->kind != TL_PART_TAIL && part->kind != TL_PART_HAIR) continue; /* cloth: not yet */
        if (*count == capacity) {
            ++*count;
            continue;
        }
        tl_play_chain* c = &out[(*count)++];
        memset(c, 0, sizeof *c);
        c->skin = part->skin;
        c->attach_joint = part->attach_joint;
        c->bone_count = part->bone_count;
        memcpy(c->bone_joints, part->bone_joints, part->bone_count * sizeof *c->bone_joints);
        c->end_joint = (int32_t)part->end_joint;
        memcpy(c->joint_radii, part->radii, part->bone_count * sizeof *c->joint_radii);
        c->settings = tl_default_chain_def();
        c->settings.settings = part->chain;
        c->settings.sleep_seconds = TL_PLAY_SLEEP_SECONDS;
        /* hair hangs in front of the shoulders too: the tail's plane behind the hips is not
           its */
        if (part->kind == TL_PART_HAIR) c->settings.hips_plane_enabled = false;
        if (part->kind == TL_PART_HAIR) c->sheet_rate = TL_PLAY_HAIR_SHEET_RATE;
    }
    /* a hair chain's particles run inside its lock: the lock's skin keeps off the body */
    uint32_t found = *count < capacity ? *count : capacity;
    for (uint32_t skin = 0; skin < scene->skin_count; ++skin) {
        const tl_scene_skin* sk = &scene->skins[skin];
        int32_t* lock = malloc(sk->vertex_count * sizeof *lock + 1);
        uint32_t* joint = malloc(sk->vertex_count * sizeof *joint + 1);
        float* near = malloc(sk->vertex_count * sizeof *near + 1);
        bool ok =
            lock && joint && near && play_skin_locks(scene, skin, out, found, lock, joint, near);
        for (uint32_t i = 0, c = 0; ok && i < scene->part_count && c < found; ++i) {
            tl_part_kind kind = scene->parts[i].kind;
            if (kind != TL_PART_TAIL && kind != TL_PART_HAIR) continue;
            /* the thickness tailor rig stored, when it did: weights changed since (the seam
               fit) do not change how the chain meets the body */
            if (kind == TL_PART_HAIR && out[c].skin == skin)
                out[c].hit_radius = scene->parts[i].hit_radius >= 0
                                        ? scene->parts[i].hit_radius
                                        : play_chain_skin_thickness(scene, &out[c], c, lock, near);
            ++c;
        }
        free(lock), free(joint), free(near);
        if (!ok) return tl_error_set(err, TL_ERROR_MEMORY, "play: out of memory");
    }
    return TL_OK;
}

/* The body's floor (spring-chain.md §8): the lowest rest vertex along up among the skin
 * of no chain's lock (play_skin_locks), so a tail drooping below the soles does not lower it.
 * The skin's locks are kept in locks[skin] and joints[skin] for the sheet (NULL: none found). */
static float body_floor(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                        uint32_t skin, int32_t** locks, uint32_t** joints) {
    const tl_scene_skin* sk = &scene->skins[skin];
    int32_t* lock = malloc(sk->vertex_count * sizeof *lock + 1);
    uint32_t* joint = malloc(sk->vertex_count * sizeof *joint + 1);
    float floor = INFINITY;
    bool found = lock && joint && play_skin_locks(scene, skin, chains, count, lock, joint, NULL);
    for (uint32_t v = 0; found && v < sk->vertex_count; ++v) {
        if (lock[v] >= 0) continue;
        const float* p = sk->rest_positions + 3 * (size_t)v;
        float h = p[0] * sk->up[0] + p[1] * sk->up[1] + p[2] * sk->up[2];
        if (h < floor) floor = h;
    }
    if (found && locks && joints) {
        locks[skin] = lock, joints[skin] = joint;
    } else {
        free(lock), free(joint);
    }
    return isfinite(floor) ? floor : sk->floor;
}

static void skin_locks_free(int32_t** locks, uint32_t** joints, uint32_t skins) {
    for (uint32_t s = 0; s < skins; ++s)
        free(locks ? locks[s] : NULL), free(joints ? joints[s] : NULL);
    free(locks), free(joints);
}

static tl_result build_chain(const tl_scene* scene, const tl_play_chain* desc, float floor,
                             tl_chain** out, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[desc->skin];
    float translations[3 * TL_CHAIN_MAX_BONES], rotations[4 * TL_CHAIN_MAX_BONES], tip[3],
        tip_rotation[4];
    float radii[TL_CHAIN_MAX_BONES];
    uint32_t parent = desc->attach_joint;
    for (uint32_t b = 0; b < desc->bone_count; ++b) {
        uint32_t j = desc->bone_joints[b];
        tl_chain_local_from_binds(sk->joints[parent].inverse_bind, sk->joints[j].inverse_bind,
                                  translations + 3 * b, rotations + 4 * b);
        radii[b] = desc->joint_radii[b];
        parent = j;
    }
    tl_chain_def def = desc->settings;
    def.bone_count = (int)desc->bone_count;
    def.rest_translations = translations;
    def.rest_rotations = rotations;
    def.tip_translation = NULL;
    if (desc->end_joint != TL_NONE) {
        tl_chain_local_from_binds(sk->joints[parent].inverse_bind,
                                  sk->joints[desc->end_joint].inverse_bind, tip, tip_rotation);
        def.tip_translation = tip;
    }
    def.joint_radii = radii;
    const float* attach = sk->joints[desc->attach_joint].rest_world;
    tl_mat4_local_direction(attach, sk->lateral, def.hips_lateral);
    tl_mat4_local_direction(attach, sk->up, def.hips_up);
    tl_mat4_local_direction(attach, sk->forward, def.hips_forward);
    memcpy(def.up, sk->up, sizeof def.up);
    def.scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
    def.floor_height = floor;
    tl_error chain_err;
    tl_result r = tl_chain_create(&def, NULL, out, &chain_err);
    if (r != TL_OK) /* the solver knows no file: say which file and which chain */
        return tl_error_set(err, r, "%s: the chain from %s: %s",
                            scene->doc->path && *scene->doc->path ? scene->doc->path : "<memory>",
                            sk->joints[desc->bone_joints[0]].name, chain_err.message);
    return TL_OK;
}

/* Each chain's body colliders: its skin's (stored, else fitted with def.fit_colliders), as
 * play_chain_colliders keeps them. */
static tl_result fit_colliders(tl_player* p, tl_error* err) {
    p->colliders = calloc(p->count + 1, sizeof *p->colliders);
    p->world = calloc(p->count + 1, sizeof *p->world);
    p->collider_count = calloc(p->count + 1, sizeof *p->collider_count);
    p->relative = calloc(p->count + 1, sizeof *p->relative);
    p->growth = calloc(p->count + 1, sizeof *p->growth);
    p->posed_at = calloc(p->count + 1, sizeof *p->posed_at);
    p->posed = calloc(p->count + 1, sizeof *p->posed);
    p->plans = calloc(p->count + 1, sizeof *p->plans);
    p->rest_inverse = calloc(p->count + 1, sizeof *p->rest_inverse);
    if (!p->colliders || !p->world || !p->collider_count || !p->relative || !p->growth ||
        !p->posed_at || !p->posed || !p->plans || !p->rest_inverse)
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < p->count; ++i) {
        const tl_play_chain* d = &p->descs[i];
        const tl_scene_skin* sk = &p->scene->skins[d->skin];
        tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
        const tl_body_collider* all = sk->colliders;
        uint32_t n = sk->collider_count;
        if (n == 0 && p->def.fit_colliders) {
            tl_result r =
                tl_body_colliders_fit(p->scene, d->skin, fitted, TL_BODY_COLLIDERS_MAX, &n, err);
            if (r != TL_OK) return r;
            all = fitted;
        }
        uint32_t kept = p->collider_count[i] =
            play_chain_colliders(p->scene, d, all, n, p->colliders[i], p->growth[i]);
        play_node_plan_build(p->scene, d->skin, p->colliders[i], kept, &p->plans[i]);
        for (uint32_t k = 0; k < kept; ++k) {
            double rest[16];
            tl_mat4d_from_float(rest, sk->joints[p->colliders[i][k].joint].rest_world);
            tl_mat4d_invert(p->rest_inverse[i] + 16 * (size_t)k, rest);
        }
    }
    return TL_OK;
}

/* After a frame of dt seconds: neighbouring chains held together by the sheet's limit
 * (hair_sheet.c). */
static void sheet_couple(tl_player* p, float dt) {
    if (!p->sheet || !(dt > 0)) return;
    /* the colliders each chain's last step saw (pose_colliders at the frame's end) */
    for (uint32_t i = 0; i < p->count; ++i) {
        play_sheet_body* body = &p->sheet_bodies[i];
        *body = (play_sheet_body){0};
        if (!p->collider_count || p->collider_count[i] == 0) continue;
        body->colliders = p->relative[i];
        body->count = p->collider_count[i];
        body->growth = p->descs[i].hit_radius > 0 ? p->growth[i] : NULL;
    }
    play_sheet_hold(p->sheet, p->chains, p->inputs, p->sheet_bodies);
}

tl_result tl_player_create(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                           const tl_player_def* def, tl_player** out, tl_error* err) {
    assert(def->frame_step > 0);
    *out = NULL;
    tl_player* p = calloc(1, sizeof *p);
    if (!p) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    p->scene = scene;
    p->def = *def;
    p->count = count;
    p->descs = calloc(count + 1, sizeof *p->descs);
    p->chains = calloc(count + 1, sizeof *p->chains);
    p->inputs = calloc(count + 1, sizeof *p->inputs);
    p->floors = calloc(count + 1, sizeof *p->floors);
    p->scratch = tl_pose_create(scene);
    p->sampled = def->sample_chains ? tl_pose_create(scene) : NULL;
    p->sampled_time = NAN;
    if (!p->descs || !p->chains || !p->inputs || !p->floors || !p->scratch ||
        (def->sample_chains && !p->sampled)) {
        tl_player_destroy(p);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    bool one_skin = true;
    /* each chain skin's locks, found for its floor and kept for the sheet's ties (the same
       chains, so the same locks) */
    int32_t** locks = calloc(scene->skin_count + 1, sizeof *locks);
    uint32_t** joints = calloc(scene->skin_count + 1, sizeof *joints);
    for (uint32_t i = 0; i < count; ++i) {
        const tl_play_chain* c = &chains[i];
        one_skin = one_skin && c->skin == chains[0].skin;
        bool ok = c->skin < scene->skin_count && c->bone_count >= 1 &&
                  c->bone_count <= TL_CHAIN_MAX_BONES;
        const tl_scene_skin* sk = ok ? &scene->skins[c->skin] : NULL;
        ok = ok && c->attach_joint < sk->joint_count &&
             (c->end_joint == TL_NONE ||
              (c->end_joint >= 0 && (uint32_t)c->end_joint < sk->joint_count));
        for (uint32_t b = 0; ok && b < c->bone_count; ++b)
            ok = c->bone_joints[b] < sk->joint_count;
        if (!ok) {
            tl_player_destroy(p);
            skin_locks_free(locks, joints, scene->skin_count);
            return tl_error_set(
                err, TL_ERROR_INVALID, "%s: chain %u: a joint index is out of range",
                scene->doc->path && *scene->doc->path ? scene->doc->path : "<memory>", i);
        }
        p->descs[i] = *c;
        /* the floor is its skin's, the same for each of the skin's chains: found once */
        uint32_t same = 0;
        while (same < i && chains[same].skin != c->skin)
            same++;
        p->floors[i] =
            same < i ? p->floors[same] : body_floor(scene, chains, count, c->skin, locks, joints);
        tl_result r = build_chain(scene, c, p->floors[i], &p->chains[i], err);
        if (r != TL_OK) {
            tl_player_destroy(p);
            skin_locks_free(locks, joints, scene->skin_count);
            return r;
        }
        p->inputs[i] = tl_default_chain_input();
    }
    tl_result cr = play_cloths_create(scene, def->colliders, &p->cloths, err);
    if (cr == TL_OK) cr = play_joints_create(scene, &p->joints, err);
    if (cr == TL_OK) {
        /* Only the chains' joints are read from the scratch pose: keep just their skin. */
        one_skin = one_skin && play_joints_skin_only(p->joints, count ? chains[0].skin : 0);
        if (count > 0 && one_skin && !p->cloths)
            tl_pose_keep_skin(p->scratch, scene, chains[0].skin);
        if (count > 0 && one_skin && p->sampled && !p->cloths)
            tl_pose_keep_skin(p->sampled, scene, chains[0].skin);
    }
    if (cr == TL_OK && def->colliders) cr = fit_colliders(p, err);
    if (cr == TL_OK && def->colliders && count > 0) {
        p->contact_memos = calloc(count, sizeof *p->contact_memos);
        if (!p->contact_memos) cr = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        for (uint32_t i = 0; cr == TL_OK && i < count; ++i)
            chain_contact_memo_attach(p->chains[i], &p->contact_memos[i]);
    }
    if (cr == TL_OK) {
        p->sheet_bodies = calloc(count + 1, sizeof *p->sheet_bodies);
        if (!p->sheet_bodies ||
            !play_sheet_create(scene, p->descs, count, (const int32_t* const*)locks,
                               (const uint32_t* const*)joints, &p->sheet))
            cr = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    skin_locks_free(locks, joints, scene->skin_count);
    if (cr != TL_OK) {
        tl_player_destroy(p);
        return cr;
    }
    *out = p;
    return TL_OK;
}

void play_player_pose_memo(tl_player* p, bool memo) {
    p->pose_every = !memo;
}

void tl_player_destroy(tl_player* p) {
    if (!p) return;
    for (uint32_t i = 0; p->chains && i < p->count; ++i)
        tl_chain_destroy(p->chains[i]);
    free(p->chains);
    free(p->contact_memos);
    free(p->descs);
    free(p->colliders);
    free(p->world);
    free(p->collider_count);
    free(p->relative);
    free(p->growth);
    free(p->posed_at);
    free(p->posed);
    free(p->plans);
    free(p->rest_inverse);
    free(p->floors);
    play_cloths_destroy(p->cloths);
    play_joints_destroy(p->joints);
    play_sheet_destroy(p->sheet);
    free(p->sheet_bodies);
    free(p->inputs);
    tl_pose_destroy(p->scratch);
    tl_pose_destroy(p->sampled);
    free(p);
}

static tl_chain_pose attachment_pose(const tl_player* p, const tl_pose* pose, uint32_t i) {
    const tl_play_chain* d = &p->descs[i];
    uint32_t node = p->scene->skins[d->skin].joints[d->attach_joint].node;
    double m[16]; /* (the one path at every home, 0 included: a run at home and one far out
                     round alike) */
    if (play_node_world(p->scene, pose, node, p->home, m)) {
        float f[16];
        tl_mat4d_to_float(f, m);
        return tl_chain_pose_from_matrix(f);
    }
    tl_chain_pose a = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)node);
    for (int c = 0; c < 3; ++c)
        a.position[c] -= p->home[c];
    return a;
}

/* A floating origin: the chains are simulated relative to `home`, set when the player starts
 * and at every reported cut. Near the world's origin (within half a power of two of at least 8
 * character heights, per axis) it is 0; far from it (a teleport 100 m away, a level far out)
 * chain 0's attachment position snapped to a power of two of at most a quarter height, so the
 * solver's state keeps the character's own magnitudes, as near the origin: a float's rounding is
 * that of the character, not of its distance (the coarse grid left up to 4 m, 4x the rounding of
 * a run at home, docs/stress.md "Session 20"), and a cut is carried by a small translation. */
static void player_rehome(tl_player* p, const tl_pose* pose) {
    if (p->count == 0) return;
    const tl_scene_skin* sk = &p->scene->skins[p->descs[0].skin];
    const float* m = pose->world + 16 * (size_t)sk->joints[p->descs[0].attach_joint].node;
    float height = sk->height > 0 ? sk->height : 1.0f;
    float far = exp2f(ceilf(log2f(8 * height))), grid = exp2f(floorf(log2f(height / 4)));
    float home[3];
    for (int c = 0; c < 3; ++c)
        home[c] = !isfinite(m[12 + c])           ? p->home[c]
                  : roundf(m[12 + c] / far) == 0 ? 0
                                                 : grid * roundf(m[12 + c] / grid);
    if (!memcmp(home, p->home, sizeof home)) return;
    memcpy(p->home, home, sizeof home);
    for (uint32_t i = 0; i < p->count; ++i) {
        const float* up = p->scene->skins[p->descs[i].skin].up;
        tl_chain_set_floor(p->chains[i],
                           p->floors[i] - (up[0] * home[0] + up[1] * home[1] + up[2] * home[2]));
    }
}

void tl_player_start(tl_player* p, uint32_t clip, float time) {
    tl_pose_sample(p->scratch, p->scene, clip, time);
    player_rehome(p, p->scratch);
    for (uint32_t i = 0; i < p->count; ++i) {
        tl_chain_pose a = attachment_pose(p, p->scratch, i);
        tl_chain_clear(p->chains[i]);
        tl_chain_reset(p->chains[i], &a);
        p->inputs[i].start = a;
    }
    play_sheet_rest(p->sheet, p->chains, p->inputs);
    play_cloths_start(p->cloths, p->scratch);
    play_joints_start(p->joints, p->scratch);
    p->clip = clip;
    p->time = time;
    p->origin = time;
    p->played = 0;
    p->fed = time;
    p->started = true;
    p->cut = false;
}

/* Chain i's body colliders in `pose`, or none: relative (less home, what the chains get)
 * composed in double from the locals, as the attachment; world (tl_player_colliders) the same
 * at home 0. */
static void pose_colliders(tl_player* p, uint32_t i, const tl_pose* pose, const tl_collider** out,
                           int* count, const float** growth) {
    if (!p->collider_count || p->collider_count[i] == 0) return;
    *growth = p->descs[i].hit_radius > 0 ? p->growth[i] : NULL;
    const tl_scene_skin* sk = &p->scene->skins[p->descs[i].skin];
    const play_node_plan* plan = &p->plans[i];
    bool same = p->posed[i] && !p->pose_every,
         home = p->home[0] == 0 && p->home[1] == 0 && p->home[2] == 0;
    double world[PLAY_PLAN_NODES][16];
    play_node_plan_compose(pose, plan, world);
    for (uint32_t k = 0; k < p->collider_count[i]; ++k) {
        double now[16], move[16], *at = p->posed_at[i] + 16 * (size_t)k;
        if (plan->count) /* (else too deep a path: the float world) */
            memcpy(now, world[plan->slot[k]], sizeof now);
        else
            tl_mat4d_from_float(now, pose->world +
                                         16 * (size_t)sk->joints[p->colliders[i][k].joint].node);
        for (int c = 0; c < 3; ++c)
            now[12 + c] -= p->home[c];
        if (same && memcmp(at, now, sizeof now) == 0) continue; /* (the same collider) */
        memcpy(at, now, sizeof now);
        tl_mat4d_mul(move, now, p->rest_inverse[i] + 16 * (size_t)k);
        tl_collider_transform(&p->colliders[i][k].local, move, &p->relative[i][k]);
        if (home) p->world[i][k] = p->relative[i][k];
    }
    if (!home) /* (the world ones only for tl_player_colliders: from the float world) */
        tl_body_colliders_pose(p->scene, p->descs[i].skin, p->colliders[i], p->collider_count[i],
                               pose, p->world[i]);
    p->posed[i] = true;
    *out = p->relative[i];
    *count = (int)p->collider_count[i];
}

/* One render frame: the chains move from their last attachment pose to the one in `pose`. */
static void step_frame(tl_player* p, const tl_pose* pose, float dt) {
    for (uint32_t i = 0; i < p->count; ++i) {
        p->inputs[i].target = attachment_pose(p, pose, i);
        pose_colliders(p, i, pose, &p->inputs[i].colliders, &p->inputs[i].collider_count,
                       &p->inputs[i].collider_growth);
        tl_chain_step(p->chains[i], &p->inputs[i], dt);
        p->inputs[i].start = p->inputs[i].target;
    }
    sheet_couple(p, dt);
    play_cloths_step(p->cloths, pose, dt);
    play_joints_step(p->joints, pose, dt);
}

/* A fed frame of the clip, for the chains' pose sampler: it runs from clip time `from` to the
 * already evaluated `end` at clip time `end_time`, dt seconds later (no wrap inside). */
typedef struct clip_frame {
    tl_player* p;
    uint32_t chain;
    uint32_t clip;
    double from;
    float dt;
    const tl_pose* end;
    float end_time;
} clip_frame;

static const tl_pose* clip_pose_at(void* user, float t) {
    clip_frame* f = user;
    tl_player* p = f->p;
    const tl_pose* pose = f->end;
    float time = (float)(f->from + t);
    /* a frame's end is its fed pose (a step a rounding short of it too: the same clip time), so
       most frames evaluate no other; chains stepping at the same times share one */
    if (t < f->dt && time != f->end_time) {
        if (!(time == p->sampled_time && f->clip == p->sampled_clip)) {
            tl_pose_sample(p->sampled, p->scene, f->clip, time);
            p->sampled_time = time, p->sampled_clip = f->clip;
        }
        pose = p->sampled;
    }
    return pose;
}

static void sample_clip(void* user, float t, tl_chain_sample* out) {
    clip_frame* f = user;
    tl_player* p = f->p;
    const tl_pose* pose = clip_pose_at(user, t);
    out->attachment = attachment_pose(p, pose, f->chain);
    pose_colliders(p, f->chain, pose, &out->colliders, &out->collider_count, &out->collider_growth);
}

/* step_frame with def.sample_chains: each chain's internal steps see the clip at their own
 * times (tl_chain_step_sampled), not a blend of the frame's two poses. */
static void step_clip_frame(tl_player* p, const tl_pose* pose, uint32_t clip, double from, float to,
                            float dt) {
    clip_frame f = {p, 0, clip, from, dt, pose, to};
    for (uint32_t i = 0; i < p->count; ++i) {
        f.chain = i;
        tl_chain_step_sampled(p->chains[i], sample_clip, &f, dt, p->cut);
        p->inputs[i].start = attachment_pose(p, pose, i);
    }
    sheet_couple(p, dt);
    p->cut = false;
    play_cloths_step_sampled(p->cloths, clip_pose_at, &f, dt);
    play_joints_step(p->joints, pose, dt); /* (its own fixed steps, the pivot interpolated) */
}

/* One fed frame, the clip from clip time `from` to `to` (evaluated in `pose`), dt seconds. */
static void feed_frame(tl_player* p, const tl_pose* pose, uint32_t clip, double from, float to,
                       float dt) {
    if (p->sampled)
        step_clip_frame(p, pose, clip, from, to, dt);
    else
        step_frame(p, pose, dt);
}

/* Feeds the chains the clip at clip time `t`, played time `x` (the last fed is at *last).
 * A loop's wrap on the way is a cut: glTF loops jump from the clip's last pose to its first,
 * so the chains reach the wrap with the last pose and start again from the first. Left inside
 * a frame, the jump would be spread over that frame, and the tail would answer it
 * differently at every frame rate. Wraps are counted from the clip times themselves, so
 * rounding in the played time cannot put one on the wrong side of a sample. */
static void feed(tl_player* p, tl_pose* pose, uint32_t clip, double* last, double x, float t) {
    double duration = p->scene->clips[clip].duration;
    if (p->def.loop && duration > 0) {
        long wraps = lround(((x - *last) - ((double)t - p->fed)) / duration);
        double wrap = *last + (duration - p->fed);
        for (long m = 0; m < wraps; ++m, wrap += duration) {
            double at = wrap > x ? x : (wrap < *last ? *last : wrap);
            tl_pose_sample(p->scratch, p->scene, clip, (float)duration);
            feed_frame(p, p->scratch, clip, p->fed, (float)duration, (float)(at - *last));
            tl_pose_sample(p->scratch, p->scene, clip, 0.0f);
            for (uint32_t i = 0; i < p->count; ++i)
                p->inputs[i].start = attachment_pose(p, p->scratch, i);
            play_cloths_cut(p->cloths, p->scratch);
            play_joints_cut(p->joints, p->scratch);
            p->cut = true;
            p->fed = 0;
            *last = at;
        }
    }
    tl_pose_sample(pose, p->scene, clip, t);
    feed_frame(p, pose, clip, p->fed, t, (float)(x - *last));
    *last = x;
    p->fed = t;
}

void tl_player_advance(tl_player* p, tl_pose* pose, uint32_t clip, float time) {
    if (!p->started || clip != p->clip || (time < p->time && !p->def.loop))
        tl_player_start(p, clip, time);
    double duration = p->scene->clips[clip].duration;
    double from = p->played, to = p->played + (time - p->time);
    if (time < p->time) to += duration; /* looped: play on through the wrap */
    /* clip samples on a fixed grid from the start (every frame_step), then the render time:
     * the chains see the same poses at the same times whatever the render rate */
    double step = p->def.frame_step, last = from;
    for (double k = floor(from / step + 1e-6) + 1; k * step < to - 1e-7; k += 1) {
        double t = p->origin + k * step;
        if (p->def.loop && duration > 0) t = fmod(t, duration);
        feed(p, p->scratch, clip, &last, k * step, (float)t);
    }
    if (to > last)
        feed(p, pose, clip, &last, to, time);
    else
        tl_pose_sample(pose, p->scene, clip, time);
    p->played = to;
    p->time = time;
    tl_player_apply(p, pose);
}

void tl_player_step_pose(tl_player* p, tl_pose* pose, float dt) {
    if (!p->started) {
        player_rehome(p, pose);
        for (uint32_t i = 0; i < p->count; ++i) {
            tl_chain_pose a = attachment_pose(p, pose, i);
            tl_chain_reset(p->chains[i], &a);
            p->inputs[i].start = a;
        }
        play_sheet_rest(p->sheet, p->chains, p->inputs);
        play_cloths_start(p->cloths, pose);
        play_joints_start(p->joints, pose);
        p->started = true;
    }
    p->cut = false; /* (this path cuts by the start pose, tl_player_cut set it) */
    step_frame(p, pose, dt);
    tl_player_apply(p, pose);
}

void tl_player_cut(tl_player* p, const tl_pose* pose) {
    player_rehome(p, pose);
    for (uint32_t i = 0; i < p->count; ++i)
        p->inputs[i].start = attachment_pose(p, pose, i);
    p->cut = true;
    play_cloths_cut(p->cloths, pose);
    play_joints_cut(p->joints, pose);
}

void tl_player_apply(const tl_player* p, tl_pose* pose) {
    for (uint32_t i = 0; i < p->count; ++i) {
        const tl_play_chain* d = &p->descs[i];
        const tl_scene_skin* sk = &p->scene->skins[d->skin];
        const float* q = tl_chain_local_rotations(p->chains[i]);
        for (uint32_t b = 0; b < d->bone_count; ++b) {
            const tl_scene_joint* j = &sk->joints[d->bone_joints[b]];
            tl_trs* local = &pose->locals[j->node];
            *local = j->rest;
            memcpy(local->rotation, q + 4 * b, sizeof local->rotation);
        }
    }
    play_cloths_apply(p->cloths, pose);
    tl_pose_update_live(pose, p->scene); /* only joints changed */
    play_joints_apply(p->joints, pose);  /* on the pose the chains left */
}

void tl_player_origin(const tl_player* p, float out[3]) {
    memcpy(out, p->home, sizeof p->home);
}

uint32_t tl_player_colliders(const tl_player* p, uint32_t i, const tl_collider** world) {
    assert(i < p->count);
    if (world) *world = p->world ? p->world[i] : NULL;
    return p->collider_count ? p->collider_count[i] : 0;
}

const float* tl_player_collider_growth(const tl_player* p, uint32_t i) {
    assert(i < p->count);
    return p->collider_count && p->collider_count[i] && p->descs[i].hit_radius > 0 ? p->growth[i]
                                                                                   : NULL;
}

const tl_scene* tl_player_scene(const tl_player* p) {
    return p->scene;
}
uint32_t tl_player_chain_count(const tl_player* p) {
    return p->count;
}
const tl_chain* tl_player_chain(const tl_player* p, uint32_t i) {
    assert(i < p->count);
    return p->chains[i];
}
uint32_t tl_player_cloth_count(const tl_player* p) {
    return play_cloths_count(p->cloths);
}
const tl_cloth* tl_player_cloth(const tl_player* p, uint32_t i) {
    assert(i < play_cloths_count(p->cloths));
    return play_cloths_get(p->cloths, i);
}
uint32_t tl_player_cloth_part(const tl_player* p, uint32_t i) {
    assert(i < play_cloths_count(p->cloths));
    return play_cloths_part(p->cloths, i);
}
const float* tl_player_cloth_targets(const tl_player* p, uint32_t i) {
    assert(i < play_cloths_count(p->cloths));
    return play_cloths_targets(p->cloths, i);
}
uint32_t tl_player_cloth_colliders(const tl_player* p, uint32_t i, const tl_collider** world) {
    assert(i < play_cloths_count(p->cloths));
    return play_cloths_colliders(p->cloths, i, world);
}
uint32_t tl_player_joint_part_count(const tl_player* p) {
    return play_joints_count(p->joints);
}
uint32_t tl_player_joint_part(const tl_player* p, uint32_t i) {
    return play_joints_part(p->joints, i);
}
const tl_pendulum* tl_player_pendulum(const tl_player* p, uint32_t i) {
    return play_joints_pendulum(p->joints, i);
}
const tl_play_chain* tl_player_chain_desc(const tl_player* p, uint32_t i) {
    assert(i < p->count);
    return &p->descs[i];
}
