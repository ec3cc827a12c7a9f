/* The hair figures of `tailor measure` (the "hair" block): roots on the scalp, the
 * settled rest against the modelled shape, the free hair's motion relative to the head, and the
 * deepest hair vertex inside a body collider. The chains are those stored in the file
 * (tl_play_chains_find), simulated from rest. */
#include "internal.h"

#include <tailor/colliders.h>
#include <tailor/play.h>

#include "base/try.h"

#include <stdlib.h>
#include <string.h>

/* The rest-world point p in the frame of joint matrix m (rigid: columns orthonormal after the
 * bind scale, which the rest frame shares). */
static void head_local(const float* m, const float* p, float out[3]) {
    float d[3] = {p[0] - m[12], p[1] - m[13], p[2] - m[14]};
    float s2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    for (int r = 0; r < 3; ++r)
        out[r] = (m[4 * r] * d[0] + m[4 * r + 1] * d[1] + m[4 * r + 2] * d[2]) / (s2 > 0 ? s2 : 1);
}

typedef struct hair_run {
    const tl_scene* scene;
    uint32_t skin;
    uint32_t* hair; /* union vertices of the hair */
    uint32_t count;
    tl_pose* pose;
    float* joints;
    float* skinned;
    tl_player* player;
    tl_body_collider colliders[TL_BODY_COLLIDERS_MAX];
    uint32_t collider_count;
    uint8_t* inside_at_rest; /* hair vertex × collider */
} hair_run;

static void run_free(hair_run* r) {
    free(r->hair), free(r->joints), free(r->skinned), free(r->inside_at_rest);
    tl_pose_destroy(r->pose);
    tl_player_destroy(r->player);
}

static tl_result run_open(hair_run* r, const tl_scene* scene, uint32_t skin, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[skin];
    memset(r, 0, sizeof *r);
    r->scene = scene, r->skin = skin;
    uint8_t* flags = calloc(sk->primitive_count + 1, 1);
    r->hair = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    r->joints = malloc(16 * sizeof(float) * (sk->joint_count + 1));
    r->skinned = malloc(3 * sizeof(float) * (sk->vertex_count + 1));
    r->pose = tl_pose_create(scene);
    if (!flags || !r->hair || !r->joints || !r->skinned || !r->pose) {
        free(flags);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    tl_hair_find_primitives(scene, skin, flags);
    for (uint32_t p = 0; p < sk->primitive_count; ++p)
        for (uint32_t v = 0; flags[p] && v < sk->primitives[p].vertex_count; ++v)
            r->hair[r->count++] = sk->primitives[p].first_vertex + v;
    free(flags);
    if (r->count == 0) return tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u has no hair", skin);
    tl_play_chain chains[64];
    uint32_t n;
    TRY(tl_play_chains_find(scene, chains, 64, &n, err));
    tl_player_def def = tl_default_player_def();
    TRY(tl_player_create(scene, chains, n < 64 ? n : 64, &def, &r->player, err));
    TRY(tl_body_colliders_fit(scene, skin, r->colliders, TL_BODY_COLLIDERS_MAX, &r->collider_count,
                              err));
    r->inside_at_rest = calloc((size_t)r->count * (r->collider_count + 1), 1);
    if (!r->inside_at_rest) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    tl_pose_set_rest(r->pose, scene, skin);
    tl_body_colliders_pose(scene, skin, r->colliders, r->collider_count, r->pose, world);
    for (uint32_t i = 0; i < r->count; ++i)
        for (uint32_t c = 0; c < r->collider_count; ++c)
            r->inside_at_rest[(size_t)i * r->collider_count + c] =
                tl_collider_depth(&world[c], sk->rest_positions + 3 * (size_t)r->hair[i]) > 0;
    return TL_OK;
}

/* Skins the pose and returns the hair's largest distance from its rest shape in the head's
 * frame (the head's own motion undone) and, in *depth, the deepest new collider penetration. */
static float run_sample(hair_run* r, float* depth) {
    const tl_scene_skin* sk = &r->scene->skins[r->skin];
    tl_pose_joint_matrices(r->pose, r->scene, r->skin, r->joints);
    tl_scene_skin_positions(r->scene, r->skin, r->joints, r->skinned);
    const float* m = r->joints + 16 * (size_t)sk->body.head;
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    tl_body_colliders_pose(r->scene, r->skin, r->colliders, r->collider_count, r->pose, world);
    float moved = 0;
    for (uint32_t i = 0; i < r->count; ++i) {
        const float* p = r->skinned + 3 * (size_t)r->hair[i];
        float local[3];
        head_local(m, p, local);
        float d = sqrtf(tl__dist2(local, sk->rest_positions + 3 * (size_t)r->hair[i]));
        moved = d > moved ? d : moved;
        for (uint32_t c = 0; c < r->collider_count; ++c) {
            if (r->inside_at_rest[(size_t)i * r->collider_count + c]) continue;
            float k = tl_collider_depth(&world[c], p);
            *depth = k > *depth ? k : *depth;
        }
    }
    return moved;
}

typedef struct stretch_hook {
    tl_player* player;
    uint32_t clip;
} stretch_hook;

static void stretch_advance(void* user, tl_pose* pose, float time) {
    const stretch_hook* h = user;
    tl_player_advance(h->player, pose, h->clip, time);
}

/* The stretch of the whole hair mesh and of the rest of the skin, the chains simulated from rest
 * (tailor measure's sample times): the seams between chains and the head are hair edges too. */
static tl_result run_stretch(hair_run* r, uint32_t clip, uint32_t samples, tl_hair_measure* out,
                             tl_error* err) {
    uint32_t V = r->scene->skins[r->skin].vertex_count;
    uint8_t* hair = calloc(2 * (size_t)V + 1, 1);
    if (!hair) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint8_t* body = hair + V;
    for (uint32_t i = 0; i < r->count; ++i)
        hair[r->hair[i]] = 1;
    for (uint32_t v = 0; v < V; ++v)
        body[v] = !hair[v];
    const uint8_t* masks[2] = {hair, body};
    tl_measure_def def = tl_default_measure_def();
    def.samples = samples;
    tl_stretch* st = NULL;
    tl_result res = tl_stretch_create(r->scene, r->skin, masks, 2, &def, &st, err);
    free(hair);
    if (res != TL_OK) return res;
    stretch_hook hook = {r->player, clip};
    tl_stretch_stats stats[2];
    tl_player_start(r->player, clip, 0);
    tl_stretch_run(st, clip, stretch_advance, &hook, stats);
    tl_stretch_destroy(st);
    out->stretch = stats[0], out->stretch_body = stats[1];
    return TL_OK;
}

tl_result tl_hair_measure_clip(const tl_scene* scene, uint32_t skin, uint32_t clip,
                               uint32_t samples, tl_hair_measure* out, tl_error* err) {
    assert(scene && out && skin < scene->skin_count && clip < scene->clip_count);
    memset(out, 0, sizeof *out);
    const tl_scene_skin* sk = &scene->skins[skin];
    if (sk->body.head == TL_NONE)
        return tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u has no head joint", skin);
    hair_run r;
    tl_result res = run_open(&r, scene, skin, err);
    /* the roots: the style's guides at rest, bound to the scalp (the hair itself excluded) */
    tl_hair_scalp* scalp = NULL;
    tl_hair_mesh mesh = {0};
    tl_hair_guides* guides = NULL;
    tl_hair_def def = tl_default_hair_def();
    uint8_t* flags = res == TL_OK ? calloc(sk->primitive_count + 1, 1) : NULL;
    if (res == TL_OK && !flags) res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (res == TL_OK) {
        tl_hair_find_primitives(scene, skin, flags);
        res = tl_hair_scalp_find(scene, skin, &def, flags, &scalp, err);
    }
    if (res == TL_OK) res = tl_hair_mesh_from_scene_hair(scene, skin, &mesh, err);
    if (res == TL_OK) res = tl_hair_guides_create(&mesh, scalp, &def, &guides, err);
    if (res == TL_OK) {
        tl_hair_drift d =
            tl_hair_root_drift(scene, skin, guides, clip, samples, r.pose, r.joints, r.skinned);
        out->roots = d.roots;
        out->root_drift_max = d.triangle_drift;
        out->head_bone_drift_max = d.head_drift;
        /* settled at rest: 3 s of the bind pose */
        tl_pose_set_rest(r.pose, scene, skin);
        tl_player_cut(r.player, r.pose);
        for (int f = 0; f < 360; ++f) {
            tl_pose_set_rest(r.pose, scene, skin);
            tl_player_step_pose(r.player, r.pose, 1.0f / 120);
        }
        float unused = 0;
        out->rest_sag_max = run_sample(&r, &unused);
        /* the clip from rest at t = 0 */
        float depth = 0;
        tl_player_start(r.player, clip, 0);
        for (uint32_t s = 0; s < samples; ++s) {
            float t =
                samples > 1 ? scene->clips[clip].duration * (float)s / (float)(samples - 1) : 0;
            tl_player_advance(r.player, r.pose, clip, t);
            float moved = run_sample(&r, &depth);
            out->free_motion_max = moved > out->free_motion_max ? moved : out->free_motion_max;
        }
        out->collider_penetration = sk->height > 0 ? depth / sk->height : 0;
        res = run_stretch(&r, clip, samples, out, err);
    }
    free(flags);
    tl_hair_guides_destroy(guides);
    tl_hair_mesh_free(&mesh);
    tl_hair_scalp_destroy(scalp);
    run_free(&r);
    return res;
}
