/* The junction fit's poses (docs/rig.md "The junction fit", tails.md §6): the clips' sampled
 * poses with the chain simulated as the player will move it, or for a file with no clip the
 * range-of-motion set; then the joints grouped by identical motion over them. */
#include "junction_internal.h"

#include "base/mat4.h"

#include <math.h>
#include <string.h>

/* The chain as the player will move it (docs/play.md): bones with the writer's inverse binds
 * (each shares the attachment's bind rotation and scale, its head at J_i), the solver with
 * the rig's settings, stepped on the player's grid from rest at t = 0. Its skinning matrices
 * go into the fit's poses, so the fit sees the tail swing and carry as it will be played. */
typedef struct chain_sim {
    tl_chain* chain;
    uint32_t K;
    uint32_t attach_node;
    double ibm[TL_RIG_MAX_LINKS][16];
    float trans[TL_RIG_MAX_LINKS][3];
    tl_chain_input in;
    double last;
} chain_sim;

/* The player's grid: tl_default_player_def()'s frame_step, the float 1/120 s, widened as
 * the player widens it, so the fit's chain is stepped at the player's very times. */
static const double SIM_STEP = (double)(1.0f / 120.0f);

static bool chain_sim_create(const fit* f, chain_sim* cs) {
    const rig_ctx* ctx = f->ctx;
    const tl_scene_skin* skin = ctx->skin;
    const tl_rig_part* part = f->part;
    uint32_t K = part->segments, A = (uint32_t)f->p->attach;
    if (K < 1 || K > TL_RIG_MAX_LINKS) return false;
    cs->K = K;
    cs->attach_node = skin->joints[A].node;
    double M[16], Minv[16], ibm_attach[16], B_attach[16];
    tl_mat4d_from_float(M, skin->rest_world);
    tl_mat4d_from_float(ibm_attach, skin->joints[A].inverse_bind);
    if (!tl_mat4d_invert(Minv, M) || !tl_mat4d_invert(B_attach, ibm_attach)) return false;
    float ibmf[TL_RIG_MAX_LINKS + 1][16], translations[3 * TL_RIG_MAX_LINKS],
        rotations[4 * TL_RIG_MAX_LINKS], tip[3], tip_rot[4], radii[TL_RIG_MAX_LINKS];
    for (uint32_t i = 0; i <= K; ++i) {
        double J[3] = {part->joints[3 * i], part->joints[3 * i + 1], part->joints[3 * i + 2]};
        double B[16], inv[16];
        memcpy(B, B_attach, sizeof B);
        for (int r = 0; r < 3; ++r)
            B[12 + r] = Minv[r] * J[0] + Minv[4 + r] * J[1] + Minv[8 + r] * J[2] + Minv[12 + r];
        B[3] = B[7] = B[11] = 0, B[15] = 1;
        if (!tl_mat4d_invert(inv, B)) return false;
        tl_mat4d_to_float(ibmf[i], inv);
        ibmf[i][3] = ibmf[i][7] = ibmf[i][11] = 0, ibmf[i][15] = 1;
        if (i < K) tl_mat4d_from_float(cs->ibm[i], ibmf[i]);
    }
    for (uint32_t b = 0; b < K; ++b) {
        tl_chain_local_from_binds(b ? ibmf[b - 1] : skin->joints[A].inverse_bind, ibmf[b],
                                  translations + 3 * b, rotations + 4 * b);
        memcpy(cs->trans[b], translations + 3 * b, sizeof cs->trans[b]);
    }
    tl_chain_local_from_binds(ibmf[K - 1], ibmf[K], tip, tip_rot);
    double scale = cbrt(fabs(Minv[0] * (Minv[5] * Minv[10] - Minv[9] * Minv[6]) -
                             Minv[4] * (Minv[1] * Minv[10] - Minv[9] * Minv[2]) +
                             Minv[8] * (Minv[1] * Minv[6] - Minv[5] * Minv[2])));
    for (uint32_t b = 0; b < K; ++b)
        radii[b] = (float)(part->radii[b] * scale);
    tl_chain_def def = tl_default_chain_def();
    def.settings = ctx->def->chain;
    def.bone_count = (int)K;
    def.rest_translations = translations;
    def.rest_rotations = rotations;
    def.tip_translation = tip;
    def.joint_radii = radii;
    const float* attach = skin->joints[A].rest_world;
    tl_mat4_local_direction(attach, skin->lateral, def.hips_lateral);
    tl_mat4_local_direction(attach, skin->up, def.hips_up);
    tl_mat4_local_direction(attach, skin->forward, def.hips_forward);
    memcpy(def.up, skin->up, sizeof def.up);
    def.scale = skin->height > 0 ? skin->height / 1.8f : 1.0f;
    /* the floor: the lowest skin outside the part (the player's: outside the chain's skin) */
    float floor = INFINITY;
    for (uint32_t v = 0; v < skin->vertex_count; ++v) {
        if (sorted_index(part->vertices, part->vertex_count, v) != UINT32_MAX) continue;
        const float* x = skin->rest_positions + 3 * (size_t)v;
        float h = x[0] * skin->up[0] + x[1] * skin->up[1] + x[2] * skin->up[2];
        if (h < floor) floor = h;
    }
    def.floor_height = isfinite(floor) ? floor : skin->floor;
    tl_error err;
    cs->in = tl_default_chain_input();
    return tl_chain_create(&def, NULL, &cs->chain, &err) == TL_OK;
}

static void chain_sim_start(chain_sim* cs, const tl_scene* scene, tl_pose* scratch, uint32_t clip) {
    tl_pose_sample(scratch, scene, clip, 0);
    tl_chain_pose a = tl_chain_pose_from_matrix(scratch->world + 16 * (size_t)cs->attach_node);
    tl_chain_clear(cs->chain);
    tl_chain_reset(cs->chain, &a);
    cs->in.start = a;
    cs->last = 0;
}

static void chain_sim_feed(chain_sim* cs, const tl_scene* scene, tl_pose* scratch, uint32_t clip,
                           double x) {
    tl_pose_sample(scratch, scene, clip, (float)x);
    cs->in.target = tl_chain_pose_from_matrix(scratch->world + 16 * (size_t)cs->attach_node);
    tl_chain_step(cs->chain, &cs->in, (float)(x - cs->last));
    cs->in.start = cs->in.target;
    cs->last = x;
}

/* Steps the chain on the player's grid up to clip time t. */
static void chain_sim_advance(chain_sim* cs, const tl_scene* scene, tl_pose* scratch, uint32_t clip,
                              double t) {
    for (double k = floor(cs->last / SIM_STEP + 1e-6) + 1; k * SIM_STEP < t - 1e-7; k += 1)
        chain_sim_feed(cs, scene, scratch, clip, k * SIM_STEP);
    if (t > cs->last) chain_sim_feed(cs, scene, scratch, clip, t);
}

static void quat_mul(const float a[4], const float b[4], float out[4]) {
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The chain bones' skinning matrices in `pose` (K × 16, column-major): the attachment's
 * world, then each bone's neutral translation and simulated rotation. */
static void chain_sim_matrices(const chain_sim* cs, const tl_pose* pose, const float* swing,
                               float* out) {
    double W[16];
    tl_mat4d_from_float(W, pose->world + 16 * (size_t)cs->attach_node);
    const float* q = tl_chain_local_rotations(cs->chain);
    for (uint32_t b = 0; b < cs->K; ++b) {
        float qb[4] = {q[4 * b], q[4 * b + 1], q[4 * b + 2], q[4 * b + 3]};
        if (swing) quat_mul(swing, q + 4 * b, qb);
        double x = qb[0], y = qb[1], z = qb[2], w = qb[3];
        double n = sqrt(x * x + y * y + z * z + w * w);
        if (n > 0) x /= n, y /= n, z /= n, w /= n;
        double L[16] = {
            1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),     0,
            2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),     0,
            2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y), 0,
            cs->trans[b][0],         cs->trans[b][1],         cs->trans[b][2],         1};
        double Wn[16], S[16];
        tl_mat4d_mul(Wn, W, L);
        memcpy(W, Wn, sizeof W);
        tl_mat4d_mul(S, W, cs->ibm[b]);
        tl_mat4d_to_float(out + 16 * (size_t)b, S);
    }
}

/* The chain's slots of one pose's matrices (after the skin's joints): simulated, else (no
 * solver) the attachment's, the chain carried rigidly. With `at_rest` the chain is put on its
 * rest arc under the pose (the range-of-motion poses hold still). */
static void fill_chain(const fit* f, chain_sim* cs, const tl_pose* pose, const float* swing,
                       float* out) {
    uint32_t J = f->ctx->skin->joint_count, K = f->slots - J;
    if (cs) {
        chain_sim_matrices(cs, pose, swing, out + 16 * (size_t)J);
        return;
    }
    for (uint32_t b = 0; b < K; ++b)
        memcpy(out + 16 * (size_t)(J + b), out + 16 * (size_t)f->p->attach, 16 * sizeof *out);
}

/* The range-of-motion set for a file with no clip (tails.md §6). Every skin joint the free
 * and fixed vertices' weights name turns on its own, about the character's three axes, both
 * ways, by its role's typical range; then all of them at once in patterns of opposite signs
 * (so every two of them move against each other in some pose), and a stride. Each joint
 * moving on its own keeps joints the rest pose cannot tell apart (a root, a hip girdle, a
 * second spine joint) from merging into one group, which the fit would then trade weight
 * within blindly. */
typedef struct rom_turn {
    int32_t joint;
    int axis; /* 0 lateral, 1 forward, 2 up */
    float degrees;
} rom_turn;

enum {
    ROM_PATTERNS = 4, /* 2 × ROM_PATTERNS poses of every joint at once */
    ROM_SWINGS = 4    /* the chain swung on the rest body: sideways and up and down, ± */
};
static const float ROM_SWING_DEGREES = 45; /* the chain's swing, root to tip */

/* A joint of this role's range, in degrees, one way: near the ends of what a walk, a gallop or
 * a jump asks of it (a fit shown the extremes stays nearer the file's weights where they
 * hold; shown less, it tore more of the clips' skin: docs/rig.md §8). A limb's girdle (hip,
 * shoulder) gets the widest limb range: rigs split a leg's swing between the girdle joints
 * and the thigh as they please, and quadruped gallops turn hip-role joints well past 30° (on
 * the cases 56-111° from rest: at 30° the fit never saw the rump folded so, and tore it). */
static float rom_degrees(tl_role role) {
    switch (role) {
    case TL_ROLE_THIGH:
    case TL_ROLE_UPPER_ARM:
        return 50;
    case TL_ROLE_SHIN:
    case TL_ROLE_FOREARM:
    case TL_ROLE_HIP:
    case TL_ROLE_SHOULDER:
        return 60;
    case TL_ROLE_FOOT:
    case TL_ROLE_HAND:
    case TL_ROLE_TOE:
        return 40;
    default:
        return 20; /* torso, neck, head and joints of no role */
    }
}

/* The joints that move: the skin's joints `used` marks. Returns their count. */
static uint32_t rom_joints(const fit* f, const uint8_t* used, int32_t* out) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < f->ctx->skin->joint_count; ++j)
        if (used[j]) out[n++] = (int32_t)j;
    return n;
}

static uint32_t rom_pose_count(const fit* f, const uint8_t* used) {
    const tl_scene_body* b = &f->ctx->skin->body;
    uint32_t n = 0;
    for (uint32_t j = 0; j < f->ctx->skin->joint_count; ++j)
        n += used[j] != 0;
    uint32_t stride = b->thigh[0] != TL_NONE && b->thigh[1] != TL_NONE ? 2 : 0;
    return 1 + 6 * n + (n > 1 ? 2 * ROM_PATTERNS : 0) + stride + ROM_SWINGS;
}

/* Pose k's turns (k ≥ 1; pose 0 is the rest pose) into out; returns their count. */
static uint32_t rom_turns(const fit* f, const int32_t* joints, uint32_t n, uint32_t k,
                          rom_turn* out) {
    const tl_scene_skin* skin = f->ctx->skin;
    const tl_scene_body* b = &skin->body;
    uint32_t m = k - 1;
    if (m < 6 * n) { /* one joint about one axis, one way */
        int32_t j = joints[m / 6];
        float a = rom_degrees(skin->joints[j].role);
        out[0] = (rom_turn){j, (int)(m % 6) / 2, m % 2 ? -a : a};
        return 1;
    }
    m -= 6 * n;
    if (n > 1 && m < 2 * ROM_PATTERNS) { /* all at once: bit p of each joint's rank, ± */
        uint32_t p = m / 2;
        for (uint32_t r = 0; r < n; ++r) {
            float a = rom_degrees(skin->joints[joints[r]].role);
            float sign = (((r + 1) >> p) & 1) != (m % 2) ? 1.0f : -1.0f;
            out[2 * r] = (rom_turn){joints[r], 0, sign * 0.5f * a};
            out[2 * r + 1] = (rom_turn){joints[r], 1, sign * (p % 2 ? 0.3f : -0.3f) * a};
        }
        return 2 * n;
    }
    if (n > 1) m -= 2 * ROM_PATTERNS;
    if (b->thigh[0] == TL_NONE || b->thigh[1] == TL_NONE || m >= 2) return 0; /* swings */
    float s = m % 2 ? -30.0f : 30.0f;                                         /* the stride */
    out[0] = (rom_turn){b->thigh[0], 0, s};
    out[1] = (rom_turn){b->thigh[1], 0, -s};
    return 2;
}

/* Turns joint `jt` of the pose by `degrees` about the world axis `a` (in its parent's
 * frame as the pose has it). */
static void rom_turn_joint(const tl_scene* scene, tl_pose* pose, const tl_scene_joint* jt,
                           const float* a, float degrees) {
    const tl_gltf_node* node = &scene->doc->nodes[jt->node];
    float local[3] = {a[0], a[1], a[2]};
    if (node->parent >= 0) { /* the axis in the parent's frame: R^T a, normalised */
        const float* pw = pose->world + 16 * (size_t)node->parent;
        for (int r = 0; r < 3; ++r)
            local[r] = pw[4 * r] * a[0] + pw[4 * r + 1] * a[1] + pw[4 * r + 2] * a[2];
    }
    float len = sqrtf(local[0] * local[0] + local[1] * local[1] + local[2] * local[2]);
    if (!(len > 0)) return;
    float h = 0.5f * degrees * 3.14159265f / 180, sn = sinf(h) / len;
    float dq[4] = {local[0] * sn, local[1] * sn, local[2] * sn, cosf(h)};
    float* rot = pose->locals[jt->node].rotation;
    float out[4];
    quat_mul(dq, rot, out);
    memcpy(rot, out, sizeof out);
}

/* The chain's swing in pose k of P, per bone in its parent's frame (each bone shares the
 * attachment's bind rotation): the last ROM_SWINGS poses swing it on the rest body, the poses
 * of every joint at once swing it too, so the fit sees the tail move apart from the rump as
 * it will when played. False: the chain on its rest arc. */
static bool rom_swing(const fit* f, uint32_t n, uint32_t k, uint32_t P, float q[4]) {
    const tl_scene_skin* skin = f->ctx->skin;
    uint32_t m;
    if (k + ROM_SWINGS >= P)
        m = k + ROM_SWINGS - P;
    else if (n > 1 && k > 6 * n && k <= 6 * n + 2 * ROM_PATTERNS)
        m = k - 6 * n - 1;
    else
        return false;
    const float* world = m % 4 < 2 ? skin->up : skin->lateral;
    float a[3];
    tl_mat4_local_direction(skin->joints[f->p->attach].rest_world, world, a);
    float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(len > 0) || f->part->segments < 1) return false;
    float h = 0.5f * (m % 2 ? -1.0f : 1.0f) * ROM_SWING_DEGREES / (float)f->part->segments *
              3.14159265f / 180;
    float sn = sinf(h) / len;
    q[0] = a[0] * sn, q[1] = a[1] * sn, q[2] = a[2] * sn, q[3] = cosf(h);
    return true;
}

/* Fills m (pose count × slots × 16) and returns the pose count. */
static uint32_t rom_poses(const fit* f, const uint8_t* used, chain_sim* cs, tl_pose* pose,
                          float* m) {
    const rig_ctx* ctx = f->ctx;
    const tl_scene* scene = ctx->scene;
    const tl_scene_skin* skin = ctx->skin;
    uint32_t s = (uint32_t)(skin - scene->skins), JT = f->slots;
    int32_t* joints = malloc(((size_t)skin->joint_count + 1) * sizeof *joints);
    rom_turn* turns = malloc((2 * (size_t)skin->joint_count + 2) * sizeof *turns);
    if (!joints || !turns) return free(joints), free(turns), 0;
    uint32_t n = rom_joints(f, used, joints), P = rom_pose_count(f, used);
    const float* axes[3] = {skin->lateral, skin->forward, skin->up};
    for (uint32_t k = 0; k < P; ++k) { /* the rest pose, then each move */
        tl_pose_set_rest(pose, scene, s);
        uint32_t nt = k ? rom_turns(f, joints, n, k, turns) : 0;
        for (uint32_t q = 0; q < nt; ++q)
            if (turns[q].joint != TL_NONE)
                rom_turn_joint(scene, pose, &skin->joints[turns[q].joint], axes[turns[q].axis],
                               turns[q].degrees);
        tl_pose_update_world(pose, scene);
        float* out = m + (size_t)k * JT * 16;
        tl_pose_joint_matrices(pose, scene, s, out);
        if (cs) { /* the chain held on its rest arc under the pose */
            tl_chain_pose a = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)cs->attach_node);
            tl_chain_clear(cs->chain);
            tl_chain_reset(cs->chain, &a);
        }
        float swing[4];
        fill_chain(f, cs, pose, rom_swing(f, n, k, P, swing) ? swing : NULL, out);
    }
    free(joints), free(turns);
    return P;
}

bool rig_fit_poses_from_clips(const fit* f) {
    const tl_scene* scene = f->ctx->scene;
    for (uint32_t c = 0; c < scene->clip_count; ++c)
        if (!(c < 64 && (f->ctx->def->junction_skip >> c) & 1)) return true;
    return false;
}

/* The poses: `per_clip` samples of every clip not skipped; a file with no clip gets the
 * range-of-motion set. Fills f->P and f->mats (for the skin's joints, 12 floats each, then
 * grouped by the caller). Returns the per-pose joint matrices, P × joint_count × 16. */
float* rig_fit_sample_poses(fit* f, const uint8_t* used, uint32_t* out_P) {
    rig_ctx* ctx = f->ctx;
    const tl_scene* scene = ctx->scene;
    uint32_t s = (uint32_t)(ctx->skin - scene->skins);
    const tl_rig_def* def = ctx->def;
    uint32_t clips = 0;
    for (uint32_t c = 0; c < scene->clip_count; ++c)
        if (!(c < 64 && (def->junction_skip >> c) & 1)) ++clips;
    uint32_t per_clip = def->junction_poses;
    if (clips && per_clip * clips > def->junction_max_poses)
        per_clip = def->junction_max_poses / clips > 4 ? def->junction_max_poses / clips : 4;
    uint32_t JT = f->slots;
    uint32_t P = clips ? clips * per_clip : rom_pose_count(f, used);
    float* m = malloc(((size_t)P * JT + 1) * 16 * sizeof *m);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose* scratch = tl_pose_create(scene);
    chain_sim cs = {0};
    bool sim = m && pose && scratch && chain_sim_create(f, &cs);
    /* the chain reads only its attachment's world: sample that node and its ancestors alone
       (a skin of 65,534 joints would otherwise be posed at every 1/120 s step) */
    uint32_t* ancestors = sim ? malloc(scene->node_count * sizeof *ancestors) : NULL;
    if (ancestors) {
        uint32_t n = 0;
        for (int32_t a = (int32_t)cs.attach_node; a >= 0 && n < scene->node_count;
             a = scene->doc->nodes[a].parent)
            ancestors[n++] = (uint32_t)a;
        for (uint32_t i = 0; i < n / 2; ++i) {
            uint32_t x = ancestors[i];
            ancestors[i] = ancestors[n - 1 - i], ancestors[n - 1 - i] = x;
        }
        scratch->order = ancestors, scratch->order_count = n;
    }
    if (!m || !pose || !scratch) {
        free(m);
        m = NULL;
    }
    uint32_t t = 0;
    for (uint32_t c = 0; m && clips && c < scene->clip_count; ++c) {
        if (c < 64 && (def->junction_skip >> c) & 1) continue;
        if (sim) chain_sim_start(&cs, scene, scratch, c);
        for (uint32_t k = 0; k < per_clip; ++k, ++t) {
            double time = (double)k * scene->clips[c].duration / per_clip;
            if (sim) chain_sim_advance(&cs, scene, scratch, c, time);
            tl_pose_sample(pose, scene, c, (float)time);
            float* out = m + (size_t)t * JT * 16;
            tl_pose_joint_matrices(pose, scene, s, out);
            fill_chain(f, sim ? &cs : NULL, pose, NULL, out);
        }
    }
    if (m && !clips) P = rom_poses(f, used, sim ? &cs : NULL, pose, m);
    tl_chain_destroy(cs.chain);
    tl_pose_destroy(pose);
    tl_pose_destroy(scratch);
    free(ancestors);
    *out_P = P;
    return m;
}

/* Groups joints by identical motion; the chain's joints join the attachment's group. */
bool rig_fit_build_groups(fit* f, const float* jm, const uint8_t* used) {
    rig_ctx* ctx = f->ctx;
    uint32_t J = ctx->skin->joint_count, JT = f->slots, P = f->P;
    uint32_t first = f->part->first_new_joint, K = JT - J;
    f->group_of = malloc(((size_t)f->joint_total + 1) * sizeof *f->group_of);
    f->group_joint = malloc(((size_t)JT + 1) * sizeof *f->group_joint);
    uint32_t* group_slot = malloc(((size_t)JT + 1) * sizeof *group_slot);
    int32_t* slot_group = malloc(((size_t)JT + 1) * sizeof *slot_group);
    if (!f->group_of || !f->group_joint || !group_slot || !slot_group) {
        free(group_slot), free(slot_group);
        return false;
    }
    f->G = 0;
    uint32_t A = (uint32_t)f->p->attach;
    float tol = 1e-5f, ttol = 1e-5f * ctx->H;
    for (uint32_t j = 0; j < JT; ++j) {
        slot_group[j] = -1;
        if (!used[j] && j != A) continue;
        int32_t found = -1;
        for (uint32_t g = 0; g < f->G && found < 0; ++g) {
            uint32_t r = group_slot[g];
            bool same = true;
            for (uint32_t t = 0; t < P && same; ++t) {
                const float* a = jm + ((size_t)t * JT + j) * 16;
                const float* b = jm + ((size_t)t * JT + r) * 16;
                for (int k = 0; k < 12 && same; ++k)
                    same = fabsf(a[k] - b[k]) <= tol;
                for (int k = 12; k < 15 && same; ++k)
                    same = fabsf(a[k] - b[k]) <= ttol;
            }
            if (same) found = (int32_t)g;
        }
        if (found < 0) {
            found = (int32_t)f->G;
            group_slot[f->G] = j;
            f->group_joint[f->G++] = j < J ? j : first + (j - J);
        }
        slot_group[j] = found;
    }
    /* every joint a weight may name: the skin's, this chain's (Tail_End with the last bone),
       anything else (another chain) with the attachment */
    for (uint32_t j = 0; j < f->joint_total; ++j) {
        uint32_t slot = j < J                         ? j
                        : j >= first && j < first + K ? J + (j - first)
                        : j == first + K && K > 0     ? J + K - 1
                                                      : A;
        f->group_of[j] = slot_group[slot] >= 0 ? slot_group[slot] : slot_group[A];
    }
    free(slot_group);
    f->mats = malloc(((size_t)P * f->G + 1) * 12 * sizeof *f->mats);
    f->Q = calloc((size_t)f->G * f->G * 16 + 1, sizeof *f->Q);
    if (!f->mats || !f->Q) return free(group_slot), false;
    for (uint32_t t = 0; t < P; ++t)
        for (uint32_t g = 0; g < f->G; ++g) {
            const float* a = jm + ((size_t)t * JT + group_slot[g]) * 16; /* column-major */
            float* o = f->mats + ((size_t)t * f->G + g) * 12;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c)
                    o[4 * r + c] = a[4 * c + r];
        }
    for (uint32_t g = 0; g < f->G; ++g)
        for (uint32_t h = 0; h < f->G; ++h) {
            double* q = f->Q + ((size_t)g * f->G + h) * 16;
            for (uint32_t t = 0; t < P; ++t) {
                const float* a = f->mats + ((size_t)t * f->G + g) * 12;
                const float* b = f->mats + ((size_t)t * f->G + h) * 12;
                for (int r = 0; r < 4; ++r)
                    for (int c = 0; c < 4; ++c)
                        q[4 * r + c] += (double)a[r] * b[c] + (double)a[4 + r] * b[4 + c] +
                                        (double)a[8 + r] * b[8 + c];
            }
        }
    free(group_slot);
    return true;
}
