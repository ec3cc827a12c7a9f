/* Baking: the player's chain rotations written as glTF rotation channels (docs/bake.md), and
 * the settled rest written as the chain joints' node rotations. */
#include <tailor/bake.h>
#include <tailor/gltf_json.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_bake_def tl_default_bake_def(void) {
    tl_bake_def def;
    def.rate = 30.0f;
    def.tolerance_deg = 0.1f;
    def.max_cycles = 40;
    return def;
}

static uint32_t total_bones(const tl_play_chain* chains, uint32_t count) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < count; ++c)
        n += chains[c].bone_count;
    return n;
}

/* The angle between two unit quaternions, degrees (q and -q are the same rotation). */
static double quat_angle(const float* a, const float* b) {
    double d =
        fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    return d >= 1 ? 0 : 2 * acos(d) * (180.0 / 3.14159265358979323846);
}

/* Shorter-arc slerp as three.js and tl_pose_sample do it, in double. */
static void quat_slerp(float out[4], const float* a, const float* b, double t) {
    double d =
        (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double s = d < 0 ? -1 : 1, wa, wb;
    d = fabs(d);
    if (d > 0.9995) {
        wa = 1 - t, wb = t;
    } else {
        double th = acos(d), sn = sin(th);
        wa = sin((1 - t) * th) / sn, wb = sin(t * th) / sn;
    }
    double q[4], len = 0;
    for (int k = 0; k < 4; ++k)
        q[k] = wa * a[k] + s * wb * b[k], len += q[k] * q[k];
    len = sqrt(len);
    for (int k = 0; k < 4; ++k)
        out[k] = (float)(q[k] / len);
}

/* The chains' local rotations in the player's pose, chain after chain. */
static void read_rotations(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                           const tl_pose* pose, float* out) {
    for (uint32_t c = 0; c < count; ++c) {
        const tl_scene_skin* sk = &scene->skins[chains[c].skin];
        for (uint32_t b = 0; b < chains[c].bone_count; ++b, out += 4)
            memcpy(out, pose->locals[sk->joints[chains[c].bone_joints[b]].node].rotation,
                   4 * sizeof *out);
    }
}

/* The nodes tl_bake keys, into out (NULL: counted only): every chain bone, then the joint of every
 * pendulum and aim part (scene->joint_parts), which the player turns too. */
static uint32_t baked_nodes(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                            bool joint_parts, uint32_t* out) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < count; ++c)
        for (uint32_t b = 0; b < chains[c].bone_count; ++b, ++n)
            if (out) out[n] = scene->skins[chains[c].skin].joints[chains[c].bone_joints[b]].node;
    for (uint32_t i = 0; joint_parts && i < scene->joint_part_count; ++i, ++n) {
        const tl_scene_part* sp = &scene->parts[scene->joint_parts[i]];
        if (out) out[n] = scene->skins[sp->skin].joints[sp->bone_joints[0]].node;
    }
    return n;
}

/* The samples of one clip: the cycle kept (times × bones × 4) and its figures. */
typedef struct cycle {
    uint32_t samples;
    float* times;
    float* best;    /* the kept cycle's rotations */
    float* current; /* the cycle being played */
    double loop_error;
    uint32_t start_cycle;
} cycle;

/* Plays the clip cycle after cycle from rest at 0 and keeps the first cycle whose end meets
 * its start within the tolerance, else the one that comes closest. */
static void find_cycle(tl_player* player, tl_pose* pose, const tl_scene* scene,
                       const uint32_t* nodes, uint32_t bones, uint32_t clip, const tl_bake_def* def,
                       cycle* cy) {
    size_t frame = 4 * (size_t)bones;
    float duration = scene->clips[clip].duration;
    tl_player_start(player, clip, 0.0f);
    cy->loop_error = INFINITY;
    for (uint32_t m = 0; m < def->max_cycles; ++m) {
        for (uint32_t k = 0; k < cy->samples; ++k) {
            tl_player_advance(player, pose, clip, cy->times[k]);
            for (uint32_t b = 0; b < bones; ++b)
                memcpy(cy->current + k * frame + 4 * b, pose->locals[nodes[b]].rotation,
                       4 * sizeof(float));
        }
        double error = 0;
        for (uint32_t b = 0; b < bones; ++b)
            error = fmax(error, quat_angle(cy->current + 4 * b,
                                           cy->current + (cy->samples - 1) * frame + 4 * b));
        if (error < cy->loop_error) {
            cy->loop_error = error;
            cy->start_cycle = m;
            float* t = cy->best;
            cy->best = cy->current, cy->current = t;
        }
        if (error <= def->tolerance_deg) break;
    }
    (void)duration;
}

/* Keeps the first and last sample and every sample slerp between the kept neighbours cannot
 * stand for within the tolerance (every joint at once). Marks kept samples in `keep`. */
static uint32_t reduce(const cycle* cy, uint32_t bones, double tolerance, bool* keep,
                       double* max_error) {
    size_t frame = 4 * (size_t)bones;
    uint32_t n = cy->samples, kept = 1;
    memset(keep, 0, n * sizeof *keep);
    keep[0] = true;
    *max_error = 0;
    uint32_t a = 0;
    while (a + 1 < n) {
        uint32_t b = a + 1;
        double worst_ok = 0;
        while (b + 1 < n) {
            double worst = 0;
            for (uint32_t i = a + 1; i <= b && worst <= tolerance; ++i) {
                double t =
                    (cy->times[i] - cy->times[a]) / (double)(cy->times[b + 1] - cy->times[a]);
                for (uint32_t j = 0; j < bones && worst <= tolerance; ++j) {
                    float q[4];
                    quat_slerp(q, cy->best + a * frame + 4 * j, cy->best + (b + 1) * frame + 4 * j,
                               t);
                    worst = fmax(worst, quat_angle(q, cy->best + i * frame + 4 * j));
                }
            }
            if (worst > tolerance) break;
            worst_ok = worst;
            ++b;
        }
        keep[b] = true;
        ++kept;
        *max_error = fmax(*max_error, worst_ok);
        a = b;
    }
    return kept;
}

/* Keeps each quaternion on the same side as the one before (no sign flips between keys). */
static void make_continuous(cycle* cy, uint32_t bones) {
    size_t frame = 4 * (size_t)bones;
    for (uint32_t k = 1; k < cy->samples; ++k)
        for (uint32_t j = 0; j < bones; ++j) {
            float* q = cy->best + k * frame + 4 * j;
            const float* p = q - frame;
            if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0)
                for (int c = 0; c < 4; ++c)
                    q[c] = -q[c];
        }
}

/* The sampler of an existing rotation channel on `node` in the animation's JSON, or -1. */
static json_int_t rotation_sampler(json_t* animation, uint32_t node) {
    size_t i;
    json_t* ch;
    json_array_foreach(json_object_get(animation, "channels"), i, ch) {
        json_t* target = json_object_get(ch, "target");
        if (json_integer_value(json_object_get(target, "node")) == (json_int_t)node &&
            json_is_integer(json_object_get(target, "node")) &&
            json_is_string(json_object_get(target, "path")) &&
            !strcmp(json_string_value(json_object_get(target, "path")), "rotation"))
            return json_integer_value(json_object_get(ch, "sampler"));
    }
    return -1;
}

static tl_result add_float_accessor(tl_gltf* doc, const float* data, size_t count,
                                    tl_gltf_type type, bool min_max, uint32_t* out, tl_error* err) {
    tl_gltf_accessor_def a = tl_default_gltf_accessor_def();
    a.data = data;
    a.count = count;
    a.component_type = TL_GLTF_FLOAT;
    a.type = type;
    a.min_max = min_max;
    return tl_gltf_accessor_add(doc, &a, out, err);
}

/* Writes the kept keys of one clip: one time accessor, one rotation accessor, sampler and
 * channel per baked joint (a joint the clip already turns gets its rotation sampler replaced). */
static tl_result write_clip(tl_gltf* doc, const tl_scene* scene, const uint32_t* nodes,
                            uint32_t bones, uint32_t clip, const cycle* cy, const bool* keep,
                            uint32_t kept, float* scratch, size_t* bytes, tl_error* err) {
    size_t frame = 4 * (size_t)bones;
    uint32_t m = 0, times_acc;
    for (uint32_t k = 0; k < cy->samples; ++k)
        if (keep[k]) scratch[m++] = cy->times[k];
    tl_result r = add_float_accessor(doc, scratch, kept, TL_GLTF_SCALAR, true, &times_acc, err);
    if (r != TL_OK) return r;
    *bytes = kept * sizeof(float);
    json_t* animation = json_array_get(json_object_get(tl_gltf_json(doc), "animations"),
                                       scene->clips[clip].animation);
    json_t* samplers = json_object_get(animation, "samplers");
    json_t* channels = json_object_get(animation, "channels");
    for (uint32_t j = 0; j < bones; ++j) {
        m = 0;
        for (uint32_t k = 0; k < cy->samples; ++k)
            if (keep[k]) memcpy(scratch + 4 * m++, cy->best + k * frame + 4 * j, 16);
        uint32_t values;
        if ((r = add_float_accessor(doc, scratch, kept, TL_GLTF_VEC4, false, &values, err)))
            return r;
        *bytes += kept * 4 * sizeof(float);
        uint32_t node = nodes[j];
        json_t* sampler = json_pack("{s:I,s:I,s:s}", "input", (json_int_t)times_acc, "output",
                                    (json_int_t)values, "interpolation", "LINEAR");
        json_int_t old = rotation_sampler(animation, node);
        bool ok = sampler != NULL;
        if (ok && old >= 0 && (size_t)old < json_array_size(samplers)) {
            ok = json_array_set_new(samplers, (size_t)old, sampler) == 0;
        } else if (ok) {
            json_int_t index = (json_int_t)json_array_size(samplers);
            ok = json_array_append_new(samplers, sampler) == 0;
            json_t* channel = json_pack("{s:I,s:{s:I,s:s}}", "sampler", index, "target", "node",
                                        (json_int_t)node, "path", "rotation");
            ok = ok && channel && json_array_append_new(channels, channel) == 0;
        }
        if (!ok) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    return TL_OK;
}

static void cycle_free(cycle* cy) {
    free(cy->times);
    free(cy->best);
    free(cy->current);
}

tl_result tl_bake(tl_gltf* doc, const tl_scene* scene, const tl_play_chain* chains,
                  uint32_t chain_count, const uint32_t* clips, uint32_t clip_count,
                  const tl_bake_def* def, tl_bake_clip_report* reports, tl_error* err) {
    assert(def->rate > 0 && def->tolerance_deg >= 0 && def->max_cycles >= 1);
    tl_player_def pdef = tl_default_player_def();
    pdef.loop = true;
    tl_player* player = NULL;
    tl_result r = tl_player_create(scene, chains, chain_count, &pdef, &player, err);
    if (r != TL_OK) return r;
    tl_pose* pose = tl_pose_create(scene);
    /* a pendulum or aim turns a joint the clips animate: keyed, its motion replaces the clip's,
       and a player would turn it again; so it is keyed only when every clip is, and its part
       then leaves the file */
    bool every = true;
    for (uint32_t c = 0; c < scene->clip_count && every; ++c) {
        bool listed = false;
        for (uint32_t i = 0; i < clip_count && !listed; ++i)
            listed = clips[i] == c;
        every = listed || !(scene->clips[c].duration > 0);
    }
    bool joint_parts = every && scene->joint_part_count > 0;
    uint32_t bones = baked_nodes(scene, chains, chain_count, joint_parts, NULL);
    uint32_t* nodes = malloc((bones + 1) * sizeof *nodes);
    if (!nodes) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (nodes) baked_nodes(scene, chains, chain_count, joint_parts, nodes);
    for (uint32_t i = 0; i < clip_count && r == TL_OK; ++i) {
        assert(clips[i] < scene->clip_count);
        tl_bake_clip_report* rep = &reports[i];
        memset(rep, 0, sizeof *rep);
        rep->clip = clips[i];
        double duration = scene->clips[clips[i]].duration;
        if (!(duration > 0) || bones == 0) continue;
        cycle cy = {0};
        cy.samples = (uint32_t)ceil(duration * def->rate - 1e-6) + 1;
        size_t size = (size_t)cy.samples * 4 * bones;
        cy.times = malloc(cy.samples * sizeof *cy.times);
        cy.best = malloc(size * sizeof(float));
        cy.current = malloc(size * sizeof(float));
        bool* keep = malloc(cy.samples * sizeof *keep);
        float* scratch = malloc((size_t)cy.samples * 4 * sizeof(float));
        if (!pose || !cy.times || !cy.best || !cy.current || !keep || !scratch) {
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        } else {
            for (uint32_t k = 0; k + 1 < cy.samples; ++k)
                cy.times[k] = (float)(k / (double)def->rate);
            cy.times[cy.samples - 1] = (float)duration;
            find_cycle(player, pose, scene, nodes, bones, clips[i], def, &cy);
            make_continuous(&cy, bones);
            rep->samples = cy.samples;
            rep->cycle_start = cy.start_cycle * duration;
            rep->loop_error_deg = cy.loop_error;
            rep->keys = reduce(&cy, bones, def->tolerance_deg, keep, &rep->max_error_deg);
            r = write_clip(doc, scene, nodes, bones, clips[i], &cy, keep, rep->keys, scratch,
                           &rep->bytes, err);
        }
        free(keep);
        free(scratch);
        cycle_free(&cy);
    }
    json_t* node_list = json_object_get(tl_gltf_json(doc), "nodes");
    for (uint32_t i = 0; r == TL_OK && joint_parts && i < scene->joint_part_count; ++i) {
        json_t* extras = json_object_get(
            json_array_get(node_list, scene->parts[scene->joint_parts[i]].node), "extras");
        json_object_del(extras, "tailor");
    }
    free(nodes);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    if (r == TL_OK) r = tl_gltf_reindex(doc, err);
    return r;
}

/* The angle between two unit quaternions from the vector part of a⁻¹b, radians (exact near 0,
 * where acos of the dot product rounds to 0.04°). */
static double quat_angle_small(const float* a, const float* b) {
    double v[3], dot = 0, len = 0;
    for (int k = 0; k < 4; ++k)
        dot += (double)a[k] * b[k];
    for (int k = 0; k < 3; ++k) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        v[k] =
            (double)a[3] * b[k] - (double)b[3] * a[k] - ((double)a[i] * b[j] - (double)a[j] * b[i]);
        len += v[k] * v[k];
    }
    return 2 * atan2(sqrt(len), fabs(dot));
}

/* A bound on how fast any point of the chains moved since the last rotations (`last`, read
 * from the pose; `since` false on the first frame: 0), in its skin's heights per second: each
 * joint's turn times the length of the chain beyond it (the roots hold still under the stored
 * pose). Copies the pose's rotations into `last`. */
static double settle_speed(const tl_player* player, const tl_scene* scene,
                           const tl_play_chain* chains, uint32_t count, const tl_pose* pose,
                           float* last, bool since) {
    double worst = 0;
    for (uint32_t c = 0; c < count; ++c) {
        const tl_scene_skin* sk = &scene->skins[chains[c].skin];
        const float* len = tl_chain_link_lengths(tl_player_chain(player, c));
        uint32_t n = chains[c].bone_count;
        double beyond = 0, speed = 0;
        for (uint32_t b = n; b-- > 0;) {
            const float* q = pose->locals[sk->joints[chains[c].bone_joints[b]].node].rotation;
            beyond += len[b];
            if (since) speed += quat_angle_small(last + 4 * (size_t)b, q) * beyond;
            memcpy(last + 4 * (size_t)b, q, 4 * sizeof *q);
        }
        worst = fmax(worst, speed * 60.0 / (sk->height > 0 ? sk->height : 1.0)); /* (0: no size) */
        last += 4 * (size_t)n;
    }
    return worst;
}

tl_result tl_bake_rest_rotations(const tl_scene* scene, const tl_play_chain* chains,
                                 uint32_t chain_count, float* rotations, uint32_t* frames,
                                 tl_error* err) {
    tl_player_def pdef = tl_default_player_def();
    tl_player* player = NULL;
    /* the settle runs until its own still test, without the player's sleep (whose frozen
       outputs would end it elsewhere: the rigs' bytes stay as they were) */
    tl_play_chain* awake = malloc(((size_t)chain_count + 1) * sizeof *awake);
    if (!awake) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t c = 0; c < chain_count; ++c) {
        awake[c] = chains[c];
        awake[c].settings.sleep_seconds = 0;
    }
    tl_result r = tl_player_create(scene, awake, chain_count, &pdef, &player, err);
    free(awake);
    if (r != TL_OK) return r;
    tl_pose* pose = tl_pose_create(scene);
    if (!pose) {
        tl_player_destroy(player);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    uint32_t bones = total_bones(chains, chain_count);
    float* last = malloc((4 * (size_t)bones + 1) * sizeof *last);
    if (!last) {
        tl_pose_destroy(pose);
        tl_player_destroy(player);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    int most = (int)lroundf(TL_BAKE_SETTLE_SECONDS * 60.0f), still = 0, f = 0;
    for (; f < most && still < TL_BAKE_STILL_FRAMES; ++f) {
        tl_pose_set_stored(pose, scene);
        tl_player_step_pose(player, pose, 1.0f / 60.0f);
        double speed = settle_speed(player, scene, chains, chain_count, pose, last, f > 0);
        still = f > 0 && speed < TL_BAKE_STILL_SPEED ? still + 1 : 0; /* NaN: not still */
    }
    if (frames) *frames = (uint32_t)f;
    read_rotations(scene, chains, chain_count, pose, rotations);
    free(last);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return TL_OK;
}

tl_result tl_bake_rest(tl_gltf* doc, const tl_scene* scene, const tl_play_chain* chains,
                       uint32_t chain_count, tl_error* err) {
    uint32_t bones = total_bones(chains, chain_count);
    float* q = malloc((4 * (size_t)bones + 1) * sizeof *q);
    if (!q) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    tl_result r = tl_bake_rest_rotations(scene, chains, chain_count, q, NULL, err);
    json_t* nodes = json_object_get(tl_gltf_json(doc), "nodes");
    const float* p = q;
    for (uint32_t c = 0; c < chain_count && r == TL_OK; ++c) {
        const tl_scene_skin* sk = &scene->skins[chains[c].skin];
        for (uint32_t b = 0; b < chains[c].bone_count && r == TL_OK; ++b, p += 4) {
            json_t* node = json_array_get(nodes, sk->joints[chains[c].bone_joints[b]].node);
            if (json_object_get(node, "matrix")) continue; /* TRS only: a matrix stays */
            json_t* rot =
                json_pack("[f,f,f,f]", (double)p[0], (double)p[1], (double)p[2], (double)p[3]);
            if (!rot || json_object_set_new(node, "rotation", rot))
                r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        }
    }
    free(q);
    if (r == TL_OK) r = tl_gltf_reindex(doc, err);
    return r;
}

tl_result tl_bake_rest_document(tl_gltf* doc, tl_error* err) {
    tl_scene* scene = NULL;
    tl_play_chain chains[64];
    uint32_t count = 0;
    tl_result r = tl_scene_create(doc, &scene, err);
    if (r == TL_OK) r = tl_play_chains_find(scene, chains, 64, &count, err);
    if (r == TL_OK && count > 0) r = tl_bake_rest(doc, scene, chains, count > 64 ? 64 : count, err);
    tl_scene_destroy(scene);
    return r;
}
