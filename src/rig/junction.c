/* The junction fit (docs/rig.md "The junction fit", tails.md §6): the weights of the skin
 * where a re-weighted tail meets the body, fitted to the character's own motion.
 *
 * Linear blend skinning is linear in the weights, so over sampled poses of the file's clips
 * (the chain following its attachment rigidly) each edge's change of length is a quadratic
 * in the weights of its two ends once its deformed direction is fixed (local/global, as in
 * as-rigid-as-possible fitting; cf. SSDR, Le & Deng 2012). Every pass is one sparse
 * least-squares problem solved with CHOLMOD: the edge term, a graph Laplacian of the weights,
 * a small pull towards the rig's weights; sum to one by eliminating one weight per vertex;
 * non-negativity and four influences by projection after each solve (an influence projected
 * away stays out). Then a vertex takes the input's weights back where that is no worse for
 * its edges. The chain counts as its attachment joint during the fit (it moves with it); the
 * attachment's share is split back over the attachment and chain bones in the rig's
 * proportions. */
#include "internal.h"

#include "base/mat4.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { FIT_CANDIDATES = 6, FIT_MAX_INFLUENCES = 4, FIT_GROUP_MEMBERS = TL_RIG_MAX_LINKS + 8 };
static const float FIT_DROP = 1e-3f;  /* influences below this are dropped */
static const float TORN_ABOVE = 1.5f; /* measure.md: torn above 1.5 or below 0.67 */
static const float TORN_BELOW = 0.67f;

static int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

static uint32_t sorted_index(const uint32_t* list, uint32_t n, uint32_t u) {
    const uint32_t* hit = list ? bsearch(&u, list, n, sizeof u, compare_u32) : NULL;
    return hit ? (uint32_t)(hit - list) : UINT32_MAX;
}

static float collar_radius(const rig_ctx* ctx, const rig_wpart* p) {
    double s = 0;
    for (uint32_t i = 0; i < p->collar.count; ++i) {
        const float* x = ctx->wpos + 3 * (size_t)p->collar.items[i];
        float d[3] = {x[0] - p->collar_c[0], x[1] - p->collar_c[1], x[2] - p->collar_c[2]};
        s += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    return p->collar.count ? (float)(s / p->collar.count) : 0.0f;
}

/* Sparse weights of one vertex as (joint, weight) pairs. */
typedef struct wset {
    uint32_t n;
    uint32_t j[16];
    float w[16];
} wset;

static void wset_add(wset* s, uint32_t j, float w) {
    for (uint32_t k = 0; k < s->n; ++k)
        if (s->j[k] == j) {
            s->w[k] += w;
            return;
        }
    if (s->n < 16) s->j[s->n] = j, s->w[s->n++] = w;
}

/* Everything one fit works on. Vertices are welded ids; "local" vertices are the free ones
 * (0..nf-1) then the fixed ones around them (nf..nl-1). */
typedef struct fit {
    rig_ctx* ctx;
    const rig_wpart* p;
    tl_rig_part* part;
    uint32_t joint_total;
    int32_t* local;  /* W: local index or -1 */
    uint32_t* verts; /* nl welded ids */
    uint32_t nf, nl;
    wset* input; /* nl: the file's weights (mean over copies), in groups */
    wset* rig;   /* nl: the rig's weights (part plan, band, else the file's), in groups */
    wset *input_joints, *rig_joints; /* the same in joints, for splitting back */
    /* groups: joints that move identically over the poses; the chain joins its attachment */
    int32_t* group_of; /* joint_total */
    uint32_t G;
    uint32_t* group_joint; /* G: a representative joint */
    uint32_t slots;        /* pose matrices per pose: the skin's joints, then the chain's bones */
    uint32_t P;
    float* mats; /* P × G × 12: rows of the 3×4 skinning matrix per group */
    double* Q;   /* G × G × 16: Σ_t M_g(t)^T M_h(t), 4×4 on homogeneous bind positions */
    float* bind; /* nl × 3 */
    /* candidates of free vertices */
    uint32_t* cand; /* nf × FIT_CANDIDATES group ids */
    uint32_t* ncand;
    double* w;    /* nf × FIT_CANDIDATES current weights */
    double* wrig; /* nf × FIT_CANDIDATES the rig's weights on the candidates */
    uint8_t* active;
    uint8_t* in_part; /* nl: 1 for vertices of the part */
    float* pos;       /* nl × P × 3 */
    float* pos_in;    /* nl × P × 3: with the file's weights */
    float* depth;     /* nf: distance from the part and its band along the mesh (0 inside) */
} fit;

static void group_position(const fit* f, uint32_t g, uint32_t t, const float* b, float out[3]) {
    const float* m = f->mats + ((size_t)t * f->G + g) * 12;
    for (int r = 0; r < 3; ++r)
        out[r] = m[4 * r] * b[0] + m[4 * r + 1] * b[1] + m[4 * r + 2] * b[2] + m[4 * r + 3];
}

static void wset_positions(const fit* f, const wset* s, const float* b, float* out) {
    for (uint32_t t = 0; t < f->P; ++t) {
        float* o = out + 3 * (size_t)t;
        o[0] = o[1] = o[2] = 0;
        for (uint32_t k = 0; k < s->n; ++k) {
            float x[3];
            group_position(f, s->j[k], t, b, x);
            for (int r = 0; r < 3; ++r)
                o[r] += s->w[k] * x[r];
        }
    }
}

static void free_positions(const fit* f, uint32_t i) {
    wset s = {0};
    for (uint32_t c = 0; c < f->ncand[i]; ++c)
        if (f->w[i * FIT_CANDIDATES + c] > 0)
            wset_add(&s, f->cand[i * FIT_CANDIDATES + c], (float)f->w[i * FIT_CANDIDATES + c]);
    wset_positions(f, &s, f->bind + 3 * (size_t)i, f->pos + (size_t)i * f->P * 3);
}

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

static const double SIM_STEP = 1.0 / 120.0; /* tl_default_player_def().frame_step */

static void local_direction(const float m[16], const float v[3], float out[3]) {
    float len = 0;
    for (int c = 0; c < 3; ++c) {
        float col =
            sqrtf(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
        out[c] = col > 0 ? (m[4 * c] * v[0] + m[4 * c + 1] * v[1] + m[4 * c + 2] * v[2]) / col : 0;
        len += out[c] * out[c];
    }
    len = sqrtf(len);
    for (int c = 0; c < 3; ++c)
        out[c] = len > 0 ? out[c] / len : 0;
}

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
    local_direction(attach, skin->lateral, def.hips_lateral);
    local_direction(attach, skin->up, def.hips_up);
    local_direction(attach, skin->forward, def.hips_forward);
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

/* The chain bones' skinning matrices in `pose` (K × 16, column-major): the attachment's
 * world, then each bone's neutral translation and simulated rotation. */
static void chain_sim_matrices(const chain_sim* cs, const tl_pose* pose, float* out) {
    double W[16];
    tl_mat4d_from_float(W, pose->world + 16 * (size_t)cs->attach_node);
    const float* q = tl_chain_local_rotations(cs->chain);
    for (uint32_t b = 0; b < cs->K; ++b) {
        double x = q[4 * b], y = q[4 * b + 1], z = q[4 * b + 2], w = q[4 * b + 3];
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
static void fill_chain(const fit* f, chain_sim* cs, const tl_pose* pose, float* out) {
    uint32_t J = f->ctx->skin->joint_count, K = f->slots - J;
    if (cs) {
        chain_sim_matrices(cs, pose, out + 16 * (size_t)J);
        return;
    }
    for (uint32_t b = 0; b < K; ++b)
        memcpy(out + 16 * (size_t)(J + b), out + 16 * (size_t)f->p->attach, 16 * sizeof *out);
}

/* The range-of-motion set for a file with no clip (tails.md §6): from the rest pose, each
 * thigh flexed and extended, abducted and adducted, each knee bent both ways, the spine bent
 * forwards, backwards and sideways and twisted, about the character's own axes. */
typedef struct rom_move {
    int32_t joint[2];
    int axis; /* 0 lateral, 1 forward, 2 up */
    float degrees[2];
} rom_move;

static uint32_t rom_moves(const tl_scene_skin* skin, rom_move* out) {
    const tl_scene_body* b = &skin->body;
    uint32_t n = 0;
    for (int s = 0; s < 2; ++s) {
        if (b->thigh[s] != TL_NONE) {
            out[n++] = (rom_move){{b->thigh[s], TL_NONE}, 0, {35, 0}};
            out[n++] = (rom_move){{b->thigh[s], TL_NONE}, 0, {-35, 0}};
            out[n++] = (rom_move){{b->thigh[s], TL_NONE}, 1, {20, 0}};
            out[n++] = (rom_move){{b->thigh[s], TL_NONE}, 1, {-20, 0}};
        }
        if (b->shin[s] != TL_NONE) {
            out[n++] = (rom_move){{b->shin[s], TL_NONE}, 0, {45, 0}};
            out[n++] = (rom_move){{b->shin[s], TL_NONE}, 0, {-45, 0}};
        }
    }
    if (b->thigh[0] != TL_NONE && b->thigh[1] != TL_NONE) { /* a stride */
        out[n++] = (rom_move){{b->thigh[0], b->thigh[1]}, 0, {30, -30}};
        out[n++] = (rom_move){{b->thigh[0], b->thigh[1]}, 0, {-30, 30}};
    }
    /* the spine: its first joint above the pelvis */
    int32_t spine = TL_NONE;
    for (uint32_t j = 0; j < skin->joint_count && spine == TL_NONE; ++j)
        if (skin->joints[j].role == TL_ROLE_SPINE && skin->joints[j].parent == b->pelvis)
            spine = (int32_t)j;
    if (spine == TL_NONE) spine = b->chest;
    if (spine != TL_NONE)
        for (int axis = 0; axis < 3; ++axis) {
            out[n++] = (rom_move){{spine, TL_NONE}, axis, {15, 0}};
            out[n++] = (rom_move){{spine, TL_NONE}, axis, {-15, 0}};
        }
    return n;
}

enum { ROM_MAX_MOVES = 32 };

static uint32_t rom_pose_count(const rig_ctx* ctx) {
    rom_move moves[ROM_MAX_MOVES];
    return 1 + rom_moves(ctx->skin, moves);
}

static void quat_mul(const float a[4], const float b[4], float out[4]) {
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* Fills m (pose count × slots × 16) and returns the pose count. */
static uint32_t rom_poses(const fit* f, chain_sim* cs, tl_pose* pose, float* m) {
    const rig_ctx* ctx = f->ctx;
    const tl_scene* scene = ctx->scene;
    const tl_scene_skin* skin = ctx->skin;
    uint32_t s = (uint32_t)(skin - scene->skins), JT = f->slots;
    rom_move moves[ROM_MAX_MOVES];
    uint32_t n = rom_moves(skin, moves);
    for (uint32_t k = 0; k <= n; ++k) { /* the rest pose, then each move */
        tl_pose_set_rest(pose, scene, s);
        const float* axes[3] = {skin->lateral, skin->forward, skin->up};
        for (int q = 0; q < 2 && k > 0; ++q) {
            const rom_move* mv = &moves[k - 1];
            if (mv->joint[q] == TL_NONE) continue;
            const tl_scene_joint* jt = &skin->joints[mv->joint[q]];
            const tl_gltf_node* node = &scene->doc->nodes[jt->node];
            const float* a = axes[mv->axis];
            float local[3] = {a[0], a[1], a[2]};
            if (node->parent >= 0) { /* the axis in the parent's frame: R^T a, normalised */
                const float* pw = pose->world + 16 * (size_t)node->parent;
                for (int r = 0; r < 3; ++r)
                    local[r] = pw[4 * r] * a[0] + pw[4 * r + 1] * a[1] + pw[4 * r + 2] * a[2];
            }
            float len = sqrtf(local[0] * local[0] + local[1] * local[1] + local[2] * local[2]);
            if (!(len > 0)) continue;
            float h = 0.5f * mv->degrees[q] * 3.14159265f / 180, sn = sinf(h) / len;
            float dq[4] = {local[0] * sn, local[1] * sn, local[2] * sn, cosf(h)};
            float* rot = pose->locals[jt->node].rotation;
            float out[4];
            quat_mul(dq, rot, out);
            memcpy(rot, out, sizeof out);
        }
        tl_pose_update_world(pose, scene);
        float* out = m + (size_t)k * JT * 16;
        tl_pose_joint_matrices(pose, scene, s, out);
        if (cs) { /* the chain held on its rest arc under the pose */
            tl_chain_pose a = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)cs->attach_node);
            tl_chain_clear(cs->chain);
            tl_chain_reset(cs->chain, &a);
        }
        fill_chain(f, cs, pose, out);
    }
    return n + 1;
}

/* The poses: `per_clip` samples of every clip not skipped; a file with no clip gets the
 * range-of-motion set. Fills f->P and f->mats (for the skin's joints, 12 floats each, then
 * grouped by the caller). Returns the per-pose joint matrices, P × joint_count × 16. */
static float* sample_poses(fit* f, uint32_t* out_P) {
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
    uint32_t P = clips ? clips * per_clip : rom_pose_count(ctx);
    float* m = malloc(((size_t)P * JT + 1) * 16 * sizeof *m);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose* scratch = tl_pose_create(scene);
    chain_sim cs = {0};
    bool sim = m && pose && scratch && chain_sim_create(f, &cs);
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
            fill_chain(f, sim ? &cs : NULL, pose, out);
        }
    }
    if (m && !clips) P = rom_poses(f, sim ? &cs : NULL, pose, m);
    tl_chain_destroy(cs.chain);
    tl_pose_destroy(pose);
    tl_pose_destroy(scratch);
    *out_P = P;
    return m;
}

/* Groups joints by identical motion; the chain's joints join the attachment's group. */
static bool build_groups(fit* f, const float* jm, const uint8_t* used) {
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

/* b_i^T Q_gh b_j with homogeneous bind positions. */
static double quad(const fit* f, uint32_t g, uint32_t h, const float* bi, const float* bj) {
    const double* q = f->Q + ((size_t)g * f->G + h) * 16;
    double x[4] = {bi[0], bi[1], bi[2], 1}, y[4] = {bj[0], bj[1], bj[2], 1}, s = 0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            s += x[r] * q[4 * r + c] * y[c];
    return s;
}

static void to_groups(const fit* f, const wset* joints, wset* out) {
    *out = (wset){0};
    for (uint32_t k = 0; k < joints->n; ++k)
        if (joints->j[k] < f->joint_total && f->group_of[joints->j[k]] >= 0)
            wset_add(out, (uint32_t)f->group_of[joints->j[k]], joints->w[k]);
}

/* How vertex i's edges fare over the poses with its positions `pi`, in the measure's order
 * of concern: new tears (torn, and not torn with the file's weights), then tears, then the
 * squared change of length. */
typedef struct edge_score {
    uint32_t new_torn, torn;
    double squared;
} edge_score;

static edge_score vertex_score(const fit* f, uint32_t i, const float* pi) {
    const rig_ctx* ctx = f->ctx;
    uint32_t v = f->verts[i];
    edge_score s = {0, 0, 0};
    for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
        int32_t j = f->local[ctx->adj[k]];
        float L = ctx->adj_len[k];
        if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
        const float* pj = f->pos + (size_t)j * f->P * 3;
        const float* qi = f->pos_in + (size_t)i * f->P * 3;
        const float* qj = f->pos_in + (size_t)j * f->P * 3;
        for (uint32_t t = 0; t < f->P; ++t) {
            float d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                          pi[3 * t + 2] - pj[3 * t + 2]};
            float e[3] = {qi[3 * t] - qj[3 * t], qi[3 * t + 1] - qj[3 * t + 1],
                          qi[3 * t + 2] - qj[3 * t + 2]};
            float r = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L;
            float r_in = sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / L;
            bool torn = r > TORN_ABOVE || r < TORN_BELOW;
            bool torn_in = r_in > TORN_ABOVE || r_in < TORN_BELOW;
            s.new_torn += torn && !torn_in;
            s.torn += torn;
            s.squared += (double)(r - 1) * (r - 1);
        }
    }
    return s;
}

/* Does the edge between free vertices i and j tear in some pose where the file's weights
 * did not tear it? */
static bool edge_tears_anew(const fit* f, uint32_t i, uint32_t j, float L) {
    if (!(L > 1e-6f * f->ctx->H)) return false;
    const float* pi = f->pos + (size_t)i * f->P * 3;
    const float* pj = f->pos + (size_t)j * f->P * 3;
    const float* qi = f->pos_in + (size_t)i * f->P * 3;
    const float* qj = f->pos_in + (size_t)j * f->P * 3;
    for (uint32_t t = 0; t < f->P; ++t) {
        float d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                      pi[3 * t + 2] - pj[3 * t + 2]};
        float e[3] = {qi[3 * t] - qj[3 * t], qi[3 * t + 1] - qj[3 * t + 1],
                      qi[3 * t + 2] - qj[3 * t + 2]};
        float r = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L;
        float r_in = sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / L;
        if ((r > TORN_ABOVE || r < TORN_BELOW) && !(r_in > TORN_ABOVE || r_in < TORN_BELOW))
            return true;
    }
    return false;
}

/* a no worse than b, in that order of concern */
static bool no_worse(const edge_score* a, const edge_score* b) {
    if (a->new_torn != b->new_torn) return a->new_torn < b->new_torn;
    if (a->torn != b->torn) return a->torn < b->torn;
    return a->squared <= b->squared;
}

/* The edge term over every edge touching the free set (the fit's energy, for the report). */
static double fit_energy(const fit* f) {
    const rig_ctx* ctx = f->ctx;
    double e = 0;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        const float* pi = f->pos + (size_t)i * f->P * 3;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || ((uint32_t)j < f->nf && (uint32_t)j < i) || !(L > 1e-6f * ctx->H))
                continue;
            const float* pj = f->pos + (size_t)j * f->P * 3;
            for (uint32_t t = 0; t < f->P; ++t) {
                float d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                              pi[3 * t + 2] - pj[3 * t + 2]};
                float r = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L;
                e += (double)(r - 1) * (r - 1);
            }
        }
    }
    return f->P ? e / f->P : 0;
}

/* One global step: with every edge's deformed direction fixed (from f->pos), the weights
 * minimising the quadratic energy, on each vertex's active candidates, summing to one. */
static bool global_step(fit* f, cholmod_common* cm) {
    const rig_ctx* ctx = f->ctx;
    const tl_rig_def* def = ctx->def;
    uint32_t nf = f->nf, P = f->P, C = FIT_CANDIDATES;
    double lambda = def->junction_smooth, mu = def->junction_pull;
    /* the reference (largest active) candidate and unknown offsets */
    uint32_t* ref = malloc((nf + 1) * sizeof *ref);
    int32_t* var = malloc(((size_t)nf * C + 1) * sizeof *var); /* unknown of (i, c) or -1 */
    double* fvec = calloc((size_t)nf * C + 1, sizeof *fvec);   /* full-space linear term */
    double* q = malloc(((size_t)P * 3 + 1) * sizeof *q);
    if (!ref || !var || !fvec || !q) {
        free(ref), free(var), free(fvec), free(q);
        return false;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < nf; ++i) {
        uint32_t best = 0;
        double bw = -1;
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            if (f->active[i * C + c] && f->w[i * C + c] > bw) bw = f->w[i * C + c], best = c;
        ref[i] = best;
        for (uint32_t c = 0; c < C; ++c)
            var[i * C + c] =
                (c < f->ncand[i] && f->active[i * C + c] && c != best) ? (int32_t)n++ : -1;
    }
    /* linear terms: directions, fixed neighbours, Laplacian to fixed weights, pull */
    for (uint32_t i = 0; i < nf; ++i) {
        uint32_t v = f->verts[i];
        const float* pi = f->pos + (size_t)i * P * 3;
        const float* bi = f->bind + 3 * (size_t)i;
        memset(q, 0, (size_t)P * 3 * sizeof *q);
        double* fi = fvec + (size_t)i * C;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
            const float* pj = f->pos + (size_t)j * P * 3;
            for (uint32_t t = 0; t < P; ++t) {
                double d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                               pi[3 * t + 2] - pj[3 * t + 2]};
                double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                if (!(len > 1e-12)) continue;
                for (int r = 0; r < 3; ++r)
                    q[3 * t + r] += d[r] / len / L;
                if ((uint32_t)j >= f->nf) /* a fixed neighbour's position */
                    for (int r = 0; r < 3; ++r)
                        q[3 * t + r] += pj[3 * t + r] / ((double)L * L);
            }
            /* the Laplacian of the change from the rig's weights: λ Σ_e |(w_i - r_i) -
               (w_j - r_j)|², so the body's own weight boundaries stay where evidence is weak */
            for (uint32_t c = 0; c < f->ncand[i]; ++c) {
                double rj = 0;
                for (uint32_t m = 0; m < f->rig[j].n; ++m)
                    if (f->rig[j].j[m] == f->cand[i * C + c]) rj = f->rig[j].w[m];
                double ri = f->wrig[i * C + c];
                fi[c] += (uint32_t)j >= f->nf ? lambda * ri : lambda * (ri - rj);
            }
        }
        for (uint32_t c = 0; c < f->ncand[i]; ++c) {
            double s = 0;
            for (uint32_t t = 0; t < P; ++t) {
                float a[3];
                group_position(f, f->cand[i * C + c], t, bi, a);
                s += a[0] * q[3 * t] + a[1] * q[3 * t + 1] + a[2] * q[3 * t + 2];
            }
            fi[c] += s / P + mu * f->wrig[i * C + c];
        }
    }
    /* the Hessian blocks, reduced to the unknowns: entry (k,l) of T_i^T B T_j is
       B[k][l] - B[k][r_j] - B[r_i][l] + B[r_i][r_j]; the reference's constant part moves the
       linear term by -B e_r */
    size_t cap = 0;
    for (uint32_t i = 0; i < nf; ++i) {
        uint32_t v = f->verts[i];
        cap += (size_t)C * C * (1 + ctx->adj_off[v + 1] - ctx->adj_off[v]);
    }
    cholmod_triplet* T =
        cholmod_allocate_triplet(n ? n : 1, n ? n : 1, cap + 1, 1, CHOLMOD_REAL, cm);
    cholmod_dense* rhs = cholmod_zeros(n ? n : 1, 1, CHOLMOD_REAL, cm);
    double* red = calloc((size_t)nf * C + 1, sizeof *red); /* reduced linear term */
    bool ok = T && rhs && red;
    double B[FIT_CANDIDATES][FIT_CANDIDATES];
    for (uint32_t i = 0; ok && i < nf; ++i) {
        uint32_t v = f->verts[i];
        const float* bi = f->bind + 3 * (size_t)i;
        uint32_t ni = f->ncand[i];
        for (uint32_t c = 0; c < ni; ++c)
            red[i * C + c] += fvec[i * C + c];
        /* neighbours j (and i itself, j = i) */
        for (int64_t k = (int64_t)ctx->adj_off[v] - 1; k < (int64_t)ctx->adj_off[v + 1]; ++k) {
            uint32_t j = i;
            double scale;
            if (k < (int64_t)ctx->adj_off[v]) {
                /* the diagonal: Σ_e 1/(P L²) S_ii + (λ deg + μ) I */
                double inv = 0;
                uint32_t deg = 0;
                for (uint32_t e = ctx->adj_off[v]; e < ctx->adj_off[v + 1]; ++e) {
                    float L = ctx->adj_len[e];
                    if (f->local[ctx->adj[e]] < 0 || !(L > 1e-6f * ctx->H)) continue;
                    inv += 1.0 / ((double)L * L);
                    ++deg;
                }
                for (uint32_t a = 0; a < ni; ++a)
                    for (uint32_t b = 0; b < ni; ++b)
                        B[a][b] =
                            inv / P * quad(f, f->cand[i * C + a], f->cand[i * C + b], bi, bi) +
                            (a == b ? lambda * deg + mu : 0);
                scale = 1;
            } else {
                int32_t lj = f->local[ctx->adj[k]];
                float L = ctx->adj_len[k];
                if (lj < 0 || (uint32_t)lj >= nf || !(L > 1e-6f * ctx->H)) continue;
                j = (uint32_t)lj;
                const float* bj = f->bind + 3 * (size_t)j;
                for (uint32_t a = 0; a < ni; ++a)
                    for (uint32_t b = 0; b < f->ncand[j]; ++b)
                        B[a][b] = -quad(f, f->cand[i * C + a], f->cand[j * C + b], bi, bj) /
                                      ((double)P * L * L) -
                                  (f->cand[i * C + a] == f->cand[j * C + b] ? lambda : 0);
                scale = 1;
            }
            uint32_t ri = ref[i], rj = ref[j], nj = f->ncand[j];
            /* the linear term: -T_i^T B e_rj */
            for (uint32_t a = 0; a < ni; ++a)
                red[i * C + a] -= scale * B[a][rj];
            for (uint32_t a = 0; a < ni; ++a) {
                int32_t ra = var[i * C + a];
                if (ra < 0) continue;
                for (uint32_t b = 0; b < nj; ++b) {
                    int32_t cb = var[j * C + b];
                    if (cb < 0 || ra > cb) continue; /* upper triangle */
                    double x = B[a][b] - B[a][rj] - B[ri][b] + B[ri][rj];
                    size_t at = T->nnz++;
                    ((int*)T->i)[at] = ra;
                    ((int*)T->j)[at] = cb;
                    ((double*)T->x)[at] = scale * x;
                }
            }
        }
    }
    /* reduce the linear term: T_i^T x = x[k] - x[r] */
    for (uint32_t i = 0; ok && i < nf; ++i)
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            if (var[i * C + c] >= 0)
                ((double*)rhs->x)[var[i * C + c]] = red[i * C + c] - red[i * C + ref[i]];
    cholmod_sparse* A = ok && n ? cholmod_triplet_to_sparse(T, T->nnz, cm) : NULL;
    cholmod_factor* L = A ? cholmod_analyze(A, cm) : NULL;
    cholmod_dense* x = NULL;
    if (L && cholmod_factorize(A, L, cm) && cm->status == CHOLMOD_OK)
        x = cholmod_solve(CHOLMOD_A, L, rhs, cm);
    ok = ok && (n == 0 || x);
    for (uint32_t i = 0; ok && i < nf; ++i) {
        double sum = 0;
        for (uint32_t c = 0; c < f->ncand[i]; ++c) {
            double wv = var[i * C + c] >= 0 ? ((double*)x->x)[var[i * C + c]] : 0;
            f->w[i * C + c] = wv;
            sum += wv;
        }
        f->w[i * C + ref[i]] = 1 - sum;
    }
    cholmod_free_dense(&x, cm);
    cholmod_free_factor(&L, cm);
    cholmod_free_sparse(&A, cm);
    cholmod_free_dense(&rhs, cm);
    cholmod_free_triplet(&T, cm);
    free(red), free(ref), free(var), free(fvec), free(q);
    return ok;
}

/* Non-negative, at most four influences, summing to one; projected-away influences leave
 * the active set. */
static void project(fit* f) {
    uint32_t C = FIT_CANDIDATES;
    for (uint32_t i = 0; i < f->nf; ++i) {
        double* w = f->w + (size_t)i * C;
        uint8_t* act = f->active + (size_t)i * C;
        uint32_t n = f->ncand[i];
        for (uint32_t c = 0; c < n; ++c)
            if (!(w[c] > FIT_DROP) || !act[c]) w[c] = 0, act[c] = 0;
        for (;;) { /* at most four */
            uint32_t count = 0, low = 0;
            for (uint32_t c = 0; c < n; ++c)
                if (act[c]) {
                    if (count == 0 || w[c] < w[low]) low = c;
                    ++count;
                }
            if (count <= FIT_MAX_INFLUENCES) break;
            w[low] = 0, act[low] = 0;
        }
        double s = 0;
        for (uint32_t c = 0; c < n; ++c)
            s += w[c];
        if (s > 0) {
            for (uint32_t c = 0; c < n; ++c)
                w[c] /= s;
        } else { /* cannot happen after a solve that sums to one; keep the rig's */
            for (uint32_t c = 0; c < n; ++c)
                w[c] = f->wrig[i * C + c], act[c] = w[c] > 0;
        }
    }
}

/* The vertex's fitted group weights split back over joints: a group's share goes to its
 * joints in the rig's proportions at this vertex, else the file's, else the representative. */
static void split_back(const fit* f, uint32_t i, const wset* groups, uint32_t jo[4], float wo[4]) {
    wset out = {0};
    for (uint32_t k = 0; k < groups->n; ++k) {
        uint32_t g = groups->j[k];
        const wset* src[2] = {&f->rig_joints[i], &f->input_joints[i]};
        bool done = false;
        for (int s = 0; s < 2 && !done; ++s) {
            double total = 0;
            for (uint32_t m = 0; m < src[s]->n; ++m)
                if (src[s]->j[m] < f->joint_total && f->group_of[src[s]->j[m]] == (int32_t)g)
                    total += src[s]->w[m];
            if (!(total > 0)) continue;
            for (uint32_t m = 0; m < src[s]->n; ++m)
                if (src[s]->j[m] < f->joint_total && f->group_of[src[s]->j[m]] == (int32_t)g)
                    wset_add(&out, src[s]->j[m], (float)(groups->w[k] * src[s]->w[m] / total));
            done = true;
        }
        if (!done) wset_add(&out, f->group_joint[g], groups->w[k]);
    }
    /* the four largest, renormalised */
    for (int k = 0; k < 4; ++k)
        jo[k] = 0, wo[k] = 0;
    uint32_t m4 = 0;
    for (uint32_t k = 0; k < out.n; ++k) {
        float wt = out.w[k];
        if (!(wt >= FIT_DROP)) continue;
        uint32_t at = m4 < 4 ? m4 : 4;
        while (at > 0 && wo[at - 1] < wt) {
            if (at < 4) wo[at] = wo[at - 1], jo[at] = jo[at - 1];
            --at;
        }
        if (at < 4) wo[at] = wt, jo[at] = out.j[k];
        if (m4 < 4) ++m4;
    }
    float sum = 0;
    for (uint32_t k = 0; k < m4; ++k)
        sum += wo[k];
    for (uint32_t k = 0; k < m4; ++k)
        wo[k] /= sum;
    if (m4 == 0) jo[0] = (uint32_t)f->p->attach, wo[0] = 1;
}

static const float* g_depth; /* for the sort below (qsort has no context argument) */

static int deeper_first(const void* a, const void* b) {
    float x = g_depth[*(const uint32_t*)a], y = g_depth[*(const uint32_t*)b];
    return x > y ? -1 : x < y;
}

static void fit_free(fit* f) {
    free(f->local), free(f->verts), free(f->input), free(f->rig), free(f->input_joints);
    free(f->rig_joints), free(f->group_of), free(f->group_joint), free(f->mats), free(f->Q);
    free(f->bind), free(f->cand), free(f->ncand), free(f->w), free(f->wrig), free(f->active);
    free(f->pos), free(f->pos_in), free(f->depth), free(f->in_part);
}

bool rig_part_junction(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, uint8_t* banded) {
    const tl_rig_def* def = ctx->def;
    if (!def->junction_fit || part->action != TL_RIG_ACTION_CHAIN || !part->new_joints ||
        p->attach < 0)
        return true;
    double t0 = rig_now();
    const tl_scene_skin* skin = ctx->skin;
    uint32_t W = ctx->W, C = FIT_CANDIDATES;
    float r1 = collar_radius(ctx, p);
    if (!(r1 > 0)) r1 = 0.05f * ctx->H; /* a shell with a point collar: a twentieth of H */
    uint32_t self = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->part_count; ++i)
        if (&ctx->parts[i] == p) self = i;
    fit f = {0};
    f.ctx = ctx;
    f.p = p;
    f.part = part;
    f.joint_total = part->first_new_joint + part->segments + 1;
    if (f.joint_total < skin->joint_count) f.joint_total = skin->joint_count;

    /* 1. the free set: the part, its band, and everything within `junction_ring` collar
       radii of them along welded edges (in no other part or band), minus the tail's core */
    uint8_t* own = calloc(W + 1, 1); /* 1 part, 2 own band */
    uint8_t* open = calloc(W + 1, 1);
    float* dist = malloc(((size_t)W + 1) * sizeof *dist);
    void* scratch = malloc(tl_mesh_geodesic_scratch_size(W));
    rig_list seeds = {0}, cand_list = {0}, fixed = {0}, sources = {0};
    f.local = malloc(((size_t)W + 1) * sizeof *f.local);
    bool ok = own && open && dist && scratch && f.local;
    for (uint32_t i = 0; ok && i < p->verts.count; ++i)
        own[p->verts.items[i]] = 1, ok = rig_list_push(&seeds, p->verts.items[i]);
    for (uint32_t k = 0; ok && k < part->band_count; ++k) {
        uint32_t w = ctx->remap[part->band_vertices[k]];
        if (!own[w]) own[w] = 2, ok = rig_list_push(&seeds, w);
    }
    for (uint32_t w = 0; ok && w < W; ++w)
        open[w] =
            own[w] || ((ctx->owner[w] == -1 || (uint32_t)ctx->owner[w] == self) && !banded[w]);
    if (ok)
        tl_mesh_geodesic(dist, ctx->adj_off, ctx->adj, ctx->adj_len, W, open, seeds.items,
                         seeds.count, scratch);
    float ring = def->junction_ring * r1;
    float* cdepth = ok ? malloc(((size_t)W + 1) * sizeof *cdepth) : NULL;
    ok = ok && cdepth;
    for (uint32_t w = 0; ok && w < W; ++w) {
        f.local[w] = -1;
        if (open[w] && (own[w] || dist[w] <= ring)) {
            cdepth[cand_list.count] = own[w] ? 0 : dist[w];
            ok = rig_list_push(&cand_list, w);
        }
    }
    /* the rig's weights per candidate (joints), to find the core */
    wset* rigj = ok ? calloc(cand_list.count + 1, sizeof *rigj) : NULL;
    wset* inj = ok ? calloc(cand_list.count + 1, sizeof *inj) : NULL;
    ok = ok && rigj && inj;
    for (uint32_t c = 0; ok && c < cand_list.count; ++c) {
        uint32_t w = cand_list.items[c];
        uint32_t first = ctx->copy_first[w], copies = ctx->copy_first[w + 1] - first;
        for (uint32_t k = 0; k < copies; ++k) {
            size_t v = ctx->copies[first + k];
            for (uint32_t m = 0; m < skin->influence_count; ++m) {
                float wt = skin->influence_weights[v * skin->influence_count + m];
                if (wt > 0)
                    wset_add(&inj[c], skin->influence_joints[v * skin->influence_count + m],
                             wt / (float)copies);
            }
        }
        uint32_t u = ctx->copies[first];
        uint32_t at = own[w] == 1 ? sorted_index(part->vertices, part->vertex_count, u)
                                  : sorted_index(part->band_vertices, part->band_count, u);
        const uint32_t* pj = own[w] == 1 ? part->new_joints : part->band_joints;
        const float* pw = own[w] == 1 ? part->new_weights : part->band_weights;
        if (own[w] && at != UINT32_MAX) {
            for (int m = 0; m < 4; ++m)
                if (pw[4 * (size_t)at + m] > 0)
                    wset_add(&rigj[c], pj[4 * (size_t)at + m], pw[4 * (size_t)at + m]);
        } else {
            rigj[c] = inj[c];
        }
    }
    /* core: wholly on chain bones and farther than one collar radius from anything else */
    uint8_t* chainy = ok ? calloc(cand_list.count + 1, 1) : NULL;
    ok = ok && chainy;
    memset(open, 0, W);
    for (uint32_t c = 0; ok && c < cand_list.count; ++c) {
        float on = 0;
        for (uint32_t m = 0; m < rigj[c].n; ++m)
            if (rigj[c].j[m] >= skin->joint_count) on += rigj[c].w[m];
        chainy[c] = own[cand_list.items[c]] == 1 && on >= 0.999f;
        open[cand_list.items[c]] = 1;
        if (!chainy[c]) ok = rig_list_push(&sources, cand_list.items[c]);
    }
    if (ok && sources.count)
        tl_mesh_geodesic(dist, ctx->adj_off, ctx->adj, ctx->adj_len, W, open, sources.items,
                         sources.count, scratch);
    /* local indices: free first */
    uint32_t nf = 0;
    for (uint32_t c = 0; ok && c < cand_list.count; ++c) {
        uint32_t w = cand_list.items[c];
        bool core = chainy[c] && (!sources.count || dist[w] > r1);
        if (!core) f.local[w] = (int32_t)nf++;
    }
    f.nf = nf;
    uint32_t nl = nf;
    for (uint32_t c = 0; ok && c < cand_list.count; ++c) {
        uint32_t w = cand_list.items[c];
        if (f.local[w] < 0) continue;
        for (uint32_t k = ctx->adj_off[w]; ok && k < ctx->adj_off[w + 1]; ++k) {
            uint32_t u = ctx->adj[k];
            if (f.local[u] >= 0) continue;
            f.local[u] = (int32_t)nl++;
            ok = rig_list_push(&fixed, u);
        }
    }
    f.nl = nl;
    f.verts = ok ? malloc(((size_t)nl + 1) * sizeof *f.verts) : NULL;
    f.input_joints = ok ? calloc(nl + 1, sizeof *f.input_joints) : NULL;
    f.rig_joints = ok ? calloc(nl + 1, sizeof *f.rig_joints) : NULL;
    f.bind = ok ? malloc(((size_t)nl + 1) * 3 * sizeof *f.bind) : NULL;
    f.depth = ok ? malloc(((size_t)nf + 1) * sizeof *f.depth) : NULL;
    ok = ok && f.verts && f.input_joints && f.rig_joints && f.bind && f.depth;
    for (uint32_t c = 0; ok && c < cand_list.count; ++c) {
        uint32_t w = cand_list.items[c];
        if (f.local[w] < 0) continue;
        uint32_t i = (uint32_t)f.local[w];
        if (i < nf) f.verts[i] = w, f.input_joints[i] = inj[c], f.rig_joints[i] = rigj[c];
        if (i < nf) f.depth[i] = cdepth[c];
    }
    /* fixed vertices: a core vertex keeps the chain's weights; beyond, the file's (or the
       band's of another part: the weights they will be written with) */
    for (uint32_t x = 0; ok && x < fixed.count; ++x) {
        uint32_t w = fixed.items[x], i = nf + x;
        f.verts[i] = w;
        uint32_t c = sorted_index(cand_list.items, cand_list.count, w);
        if (c != UINT32_MAX) {
            f.input_joints[i] = inj[c], f.rig_joints[i] = rigj[c];
            continue;
        }
        uint32_t first = ctx->copy_first[w], copies = ctx->copy_first[w + 1] - first;
        for (uint32_t k = 0; k < copies; ++k) {
            size_t v = ctx->copies[first + k];
            for (uint32_t m = 0; m < skin->influence_count; ++m) {
                float wt = skin->influence_weights[v * skin->influence_count + m];
                if (wt > 0)
                    wset_add(&f.input_joints[i],
                             skin->influence_joints[v * skin->influence_count + m],
                             wt / (float)copies);
            }
        }
        f.rig_joints[i] = f.input_joints[i];
    }
    for (uint32_t i = 0; ok && i < nl; ++i)
        memcpy(f.bind + 3 * (size_t)i,
               skin->bind_positions + 3 * (size_t)ctx->copies[ctx->copy_first[f.verts[i]]],
               3 * sizeof *f.bind);
    free(rigj), free(inj), free(chainy), free(own), free(open), free(dist), free(scratch);
    free(cdepth);
    rig_list_free(&seeds), rig_list_free(&cand_list), rig_list_free(&sources);
    rig_list_free(&fixed);
    if (!ok || nf == 0) {
        fit_free(&f);
        return ok;
    }

    /* 2. poses and joint groups */
    f.slots = skin->joint_count + part->segments;
    uint8_t* used = calloc(f.slots + 1, 1);
    float* jm = used ? sample_poses(&f, &f.P) : NULL;
    ok = used && jm;
    for (uint32_t i = 0; ok && i < nl; ++i)
        for (int s = 0; s < 2; ++s) {
            const wset* ws = s ? &f.rig_joints[i] : &f.input_joints[i];
            for (uint32_t m = 0; m < ws->n; ++m) {
                uint32_t j = ws->j[m];
                if (j < skin->joint_count)
                    used[j] = 1;
                else if (j >= part->first_new_joint && j < part->first_new_joint + part->segments)
                    used[skin->joint_count + (j - part->first_new_joint)] = 1;
            }
        }
    ok = ok && f.P > 0 && build_groups(&f, jm, used);
    free(jm), free(used);
    f.input = ok ? calloc(nl + 1, sizeof *f.input) : NULL;
    f.rig = ok ? calloc(nl + 1, sizeof *f.rig) : NULL;
    f.pos = ok ? malloc(((size_t)nl * f.P + 1) * 3 * sizeof *f.pos) : NULL;
    f.pos_in = ok ? malloc(((size_t)nl * f.P + 1) * 3 * sizeof *f.pos_in) : NULL;
    f.in_part = ok ? calloc(nl + 1, 1) : NULL;
    for (uint32_t i = 0; f.in_part && i < nl; ++i)
        f.in_part[i] = sorted_index(part->vertices, part->vertex_count,
                                    ctx->copies[ctx->copy_first[f.verts[i]]]) != UINT32_MAX;
    f.cand = ok ? calloc((size_t)nf * C + 1, sizeof *f.cand) : NULL;
    f.ncand = ok ? calloc(nf + 1, sizeof *f.ncand) : NULL;
    f.w = ok ? calloc((size_t)nf * C + 1, sizeof *f.w) : NULL;
    f.wrig = ok ? calloc((size_t)nf * C + 1, sizeof *f.wrig) : NULL;
    f.active = ok ? calloc((size_t)nf * C + 1, 1) : NULL;
    ok = ok && f.input && f.rig && f.pos && f.pos_in && f.in_part && f.cand && f.ncand && f.w &&
         f.wrig && f.active;
    for (uint32_t i = 0; ok && i < nl; ++i) {
        to_groups(&f, &f.input_joints[i], &f.input[i]);
        to_groups(&f, &f.rig_joints[i], &f.rig[i]);
        wset_positions(&f, &f.input[i], f.bind + 3 * (size_t)i, f.pos_in + (size_t)i * f.P * 3);
        if (i >= nf)
            wset_positions(&f, &f.rig[i], f.bind + 3 * (size_t)i, f.pos + (size_t)i * f.P * 3);
    }
    /* candidates: the vertex's own groups (rig and file), then its neighbours', by weight */
    for (uint32_t i = 0; ok && i < nf; ++i) {
        wset score = {0};
        for (uint32_t m = 0; m < f.rig[i].n; ++m)
            wset_add(&score, f.rig[i].j[m], 4 + f.rig[i].w[m]);
        for (uint32_t m = 0; m < f.input[i].n; ++m)
            wset_add(&score, f.input[i].j[m], 2 + f.input[i].w[m]);
        uint32_t v = f.verts[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f.local[ctx->adj[k]];
            if (j < 0) continue;
            for (uint32_t m = 0; m < f.rig[j].n; ++m)
                wset_add(&score, f.rig[j].j[m], 0.1f * f.rig[j].w[m]);
            for (uint32_t m = 0; m < f.input[j].n; ++m)
                wset_add(&score, f.input[j].j[m], 0.1f * f.input[j].w[m]);
        }
        /* the tail's own skin may not be bound again to bones the rig found too far from it
           (the misbinding rule of tails.md §1, per joint): near joints and the rig's only */
        if (f.in_part[i]) {
            const float* x = ctx->wpos + 3 * (size_t)v;
            float limit = def->misbound_ratio * ctx->dskel[v] + def->misbound_slack * ctx->H;
            for (uint32_t m = 0; m < score.n;) {
                uint32_t g = score.j[m], rj = f.group_joint[g];
                bool kept =
                    rj >= skin->joint_count || rig_joint_distance(&ctx->bones, rj, x) <= limit;
                for (uint32_t q = 0; q < f.rig[i].n; ++q)
                    kept = kept || f.rig[i].j[q] == g;
                if (kept)
                    ++m;
                else
                    score.j[m] = score.j[--score.n], score.w[m] = score.w[score.n];
            }
        }
        uint32_t n = 0;
        while (n < C && score.n) {
            uint32_t best = 0;
            for (uint32_t m = 1; m < score.n; ++m)
                if (score.w[m] > score.w[best]) best = m;
            f.cand[i * C + n++] = score.j[best];
            score.j[best] = score.j[--score.n], score.w[best] = score.w[score.n];
        }
        f.ncand[i] = n;
        double s = 0;
        for (uint32_t c = 0; c < n; ++c) {
            f.active[i * C + c] = 1;
            for (uint32_t m = 0; m < f.rig[i].n; ++m)
                if (f.rig[i].j[m] == f.cand[i * C + c]) f.wrig[i * C + c] = f.rig[i].w[m];
            s += f.wrig[i * C + c];
        }
        for (uint32_t c = 0; c < n; ++c)
            f.w[i * C + c] = f.wrig[i * C + c] = s > 0 ? f.wrig[i * C + c] / s : 1.0 / n;
        free_positions(&f, i);
    }

    /* 3. local/global passes */
    cholmod_common cm;
    bool started = ok && cholmod_start(&cm);
    ok = ok && started;
    if (started) cm.print = 0;
    part->fit.energy_before = ok ? (float)fit_energy(&f) : 0;
    uint32_t it = 0;
    for (; ok && it < def->junction_iterations; ++it) {
        ok = global_step(&f, &cm);
        if (!ok) break;
        project(&f);
        for (uint32_t i = 0; i < nf; ++i)
            free_positions(&f, i);
    }
    if (started) cholmod_finish(&cm);
    part->fit.energy_after = ok ? (float)fit_energy(&f) : 0;

    /* 4. revert: the file's weights wherever they are no worse for the vertex's edges */
    uint8_t* reverted = ok ? calloc(nf + 1, 1) : NULL;
    float* trial = ok ? malloc(((size_t)f.P + 1) * 3 * sizeof *trial) : NULL;
    float* trial2 = ok ? malloc(((size_t)f.P + 1) * 3 * sizeof *trial2) : NULL;
    ok = ok && reverted && trial && trial2;
    uint32_t reverts = 0;
    /* from the outside in (the fixed body first), in sweeps until none changes: a revert
       can make its inner neighbour's worth it */
    uint32_t* sequence = ok ? malloc(((size_t)nf + 1) * sizeof *sequence) : NULL;
    ok = ok && sequence;
    for (uint32_t i = 0; ok && i < nf; ++i)
        sequence[i] = i;
    if (ok) {
        g_depth = f.depth;
        qsort(sequence, nf, sizeof *sequence, deeper_first);
    }
    for (int sweep = 0; ok && sweep < 8; ++sweep) {
        uint32_t before = reverts;
        for (uint32_t n = 0; n < nf; ++n) {
            uint32_t i = sequence[n];
            if (reverted[i]) continue;
            float* pi = f.pos + (size_t)i * f.P * 3;
            const float* qi = f.pos_in + (size_t)i * f.P * 3;
            memcpy(trial, qi, (size_t)f.P * 3 * sizeof *trial);
            edge_score in = vertex_score(&f, i, trial), fitted = vertex_score(&f, i, pi);
            if (no_worse(&in, &fitted)) {
                memcpy(pi, trial, (size_t)f.P * 3 * sizeof *pi);
                reverted[i] = 1;
                ++reverts;
            }
        }
        /* then pairs: two neighbours given back together where one alone would tear the
           edge between them (a seam of the fitted set inside the file's weights) */
        for (uint32_t n = 0; n < nf; ++n) {
            uint32_t i = sequence[n];
            if (reverted[i]) continue;
            uint32_t v = f.verts[i];
            for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1] && !reverted[i]; ++k) {
                int32_t lj = f.local[ctx->adj[k]];
                if (lj < 0 || (uint32_t)lj >= nf || reverted[lj]) continue;
                uint32_t j = (uint32_t)lj;
                if (!edge_tears_anew(&f, i, j, ctx->adj_len[k])) continue;
                float* pi = f.pos + (size_t)i * f.P * 3;
                float* pj = f.pos + (size_t)j * f.P * 3;
                edge_score a = vertex_score(&f, i, pi), b = vertex_score(&f, j, pj);
                edge_score fitted = {a.new_torn + b.new_torn, a.torn + b.torn,
                                     a.squared + b.squared};
                memcpy(trial, pi, (size_t)f.P * 3 * sizeof *trial);
                memcpy(pi, f.pos_in + (size_t)i * f.P * 3, (size_t)f.P * 3 * sizeof *pi);
                memcpy(trial2, pj, (size_t)f.P * 3 * sizeof *trial2);
                memcpy(pj, f.pos_in + (size_t)j * f.P * 3, (size_t)f.P * 3 * sizeof *pj);
                a = vertex_score(&f, i, pi), b = vertex_score(&f, j, pj);
                edge_score in = {a.new_torn + b.new_torn, a.torn + b.torn, a.squared + b.squared};
                if (no_worse(&in, &fitted)) {
                    reverted[i] = reverted[j] = 1;
                    reverts += 2;
                } else {
                    memcpy(pi, trial, (size_t)f.P * 3 * sizeof *pi);
                    memcpy(pj, trial2, (size_t)f.P * 3 * sizeof *pj);
                }
            }
        }
        if (reverts == before) break;
    }
    free(sequence);
    free(trial2);
    part->fit.energy_final = ok ? (float)fit_energy(&f) : 0;
    free(trial);

    /* 5. write back: part vertices into the plan; other changed vertices become the band */
    uint32_t* bv = NULL;
    uint32_t* bj = NULL;
    float* bw = NULL;
    uint32_t bn = 0;
    if (ok) {
        uint32_t cap = 0;
        for (uint32_t i = 0; i < nf; ++i)
            cap += ctx->copy_first[f.verts[i] + 1] - ctx->copy_first[f.verts[i]];
        cap += part->band_count;
        bv = malloc(((size_t)cap + 1) * sizeof *bv);
        ok = bv != NULL;
    }
    uint32_t* order = NULL; /* band vertex -> free index, for the weights */
    if (ok) order = malloc(((size_t)W + 1) * sizeof *order);
    ok = ok && order;
    for (uint32_t i = 0; ok && i < nf; ++i) {
        uint32_t w = f.verts[i];
        uint32_t jo[4];
        float wo[4];
        wset groups = {0};
        if (reverted[i]) {
            split_back(&f, i, &f.input[i], jo, wo); /* the file's top four */
        } else {
            for (uint32_t c = 0; c < f.ncand[i]; ++c)
                if (f.w[i * C + c] > 0) wset_add(&groups, f.cand[i * C + c], (float)f.w[i * C + c]);
            split_back(&f, i, &groups, jo, wo);
        }
        uint32_t u0 = ctx->copies[ctx->copy_first[w]];
        uint32_t at = sorted_index(part->vertices, part->vertex_count, u0);
        if (at != UINT32_MAX) {
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c) {
                uint32_t k = sorted_index(part->vertices, part->vertex_count, ctx->copies[c]);
                if (reverted[i]) { /* each copy its own file weights, top four */
                    wset one = {0};
                    size_t v = ctx->copies[c];
                    for (uint32_t m = 0; m < skin->influence_count; ++m)
                        if (skin->influence_weights[v * skin->influence_count + m] > 0)
                            wset_add(&one, skin->influence_joints[v * skin->influence_count + m],
                                     skin->influence_weights[v * skin->influence_count + m]);
                    wset g1 = {0};
                    to_groups(&f, &one, &g1);
                    wset keep = f.input_joints[i];
                    f.input_joints[i] = one;
                    split_back(&f, i, &g1, jo, wo);
                    f.input_joints[i] = keep;
                }
                memcpy(part->new_joints + 4 * (size_t)k, jo, sizeof jo);
                memcpy(part->new_weights + 4 * (size_t)k, wo, sizeof wo);
            }
        } else if (!reverted[i]) {
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c)
                bv[bn++] = ctx->copies[c];
            order[w] = i;
            banded[w] = 1;
            /* stash the weights in the fit's arrays for the sorted pass below */
            for (uint32_t c = 0; c < C; ++c)
                f.w[i * C + c] = c < 4 ? wo[c] : 0, f.cand[i * C + c] = c < 4 ? jo[c] : 0;
        }
    }
    if (ok) {
        qsort(bv, bn, sizeof *bv, compare_u32);
        bj = calloc(4 * (size_t)bn + 1, sizeof *bj);
        bw = calloc(4 * (size_t)bn + 1, sizeof *bw);
        ok = bj && bw;
    }
    for (uint32_t k = 0; ok && k < bn; ++k) {
        uint32_t i = order[ctx->remap[bv[k]]];
        for (int m = 0; m < 4; ++m)
            bj[4 * (size_t)k + m] = f.cand[i * C + m],
                               bw[4 * (size_t)k + m] = (float)f.w[i * C + m];
    }
    if (ok) {
        free(part->band_vertices), free(part->band_joints), free(part->band_weights);
        part->band_vertices = bv, part->band_joints = bj, part->band_weights = bw;
        part->band_count = bn;
        bv = NULL, bj = NULL, bw = NULL;
        part->fit.free_vertices = nf;
        part->fit.fixed_vertices = nl - nf;
        part->fit.poses = f.P;
        part->fit.iterations = it;
        part->fit.joints = f.G;
        part->fit.reverted = reverts;
    }
    free(bv), free(bj), free(bw), free(order), free(reverted);
    fit_free(&f);
    double dt = rig_now() - t0;
    part->fit.seconds = (float)dt;
    ctx->seconds[TL_RIG_STAGE_FIT] += dt;
    ctx->seconds[TL_RIG_STAGE_WEIGHTS] -= dt; /* the caller times the fit with the weights */
    return ok;
}
