/* The sample registry, the def, the tail every sample shares, and the truth. */
#include "sample/internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef bool sample_build_fn(sample_character* c, uint32_t seed);

static const struct {
    const char* name;
    const char* summary;
    sample_build_fn* build;
} samples[] = {
    {"tailed-biped",
     "humanoid, Mixamo skeleton, tail down and back bound to LeftLeg/UpLegs; Walk Run Shake",
     sample_biped_build},
    {"tailed-quadruped",
     "four legs, tail to the floor bound to BackShin.L/BackThigh.L/.R; Walk Gallop Shake",
     sample_quadruped_build},
};
enum { SAMPLE_COUNT = sizeof samples / sizeof samples[0] };

tl_sample_def tl_default_sample_def(void) {
    tl_sample_def def = {0};
    def.up = TL_SAMPLE_Y_UP;
    def.scale = 1.0f;
    def.facing = TL_SAMPLE_FACING_POS_Z;
    def.height = 1.8f;
    def.seed = 0;
    return def;
}

uint32_t tl_sample_count(void) {
    return SAMPLE_COUNT;
}

const char* tl_sample_name(uint32_t index) {
    assert(index < SAMPLE_COUNT);
    return samples[index].name;
}

const char* tl_sample_summary(uint32_t index) {
    assert(index < SAMPLE_COUNT);
    return samples[index].summary;
}

bool sample_clip_add(sample_character* c, const char* name, uint32_t frames, sample_pose_fn* pose) {
    assert(c->clip_count < SAMPLE_MAX_CLIPS);
    c->clips[c->clip_count++] = (sample_clip){name, frames, pose};
    return true;
}

void sample_pose_shake(double t, double height, sample_pose* out) {
    double s = sin(3 * SAMPLE_PI * t);
    out->hips_offset = v3(0.25 * (height / SAMPLE_REF_HEIGHT) * s, 0, 0);
    out->rotation[0] = quat_axis_angle(v3(0, 1, 0), 45 * SAMPLE_DEG * s);
}

/* The auto-rigger's binding: the first 30 % of the tail on the thighs, split by side (a
 * vertex on the left of the centre line leans to the left thigh), the last 50 % on the left
 * shin, a linear blend between. */
static void weigh_tail_wrong(const void* ctx, double arc, double fraction, dv3 center, dv3 vertex,
                             sample_weights* out) {
    (void)arc;
    const sample_character* c = ctx;
    dv3 off = v3_sub(vertex, center);
    double radius = v3_length(off);
    double lateral = radius > 0 ? off.x / radius : 0; /* design +X is the character's left */
    double thighs = 1.0 - fmin(fmax((fraction - 0.3) / 0.2, 0), 1);
    sample_weights_add(out, c->thigh_l, thighs * (0.5 + 0.35 * lateral));
    sample_weights_add(out, c->thigh_r, thighs * (0.5 - 0.35 * lateral));
    sample_weights_add(out, c->shin_l, 1.0 - thighs);
}

bool sample_tail_add(sample_character* c, const sample_station* skin, sample_station* fur,
                     uint32_t count, int thigh_l, int thigh_r, int shin_l, int parent) {
    c->thigh_l = thigh_l, c->thigh_r = thigh_r, c->shin_l = shin_l, c->tail_parent = parent;
    c->tail_root = skin[0].p;
    c->tail_tip = skin[count - 1].p;
    c->tail_length = sample_path_length(skin, count);
    c->tail_radius = skin[0].ra;
    c->tail_skin_first = c->body.vertex_count;
    /* The fur stands a little off the skin everywhere: never welded, always overlapping. */
    for (uint32_t i = 0; i < count; ++i)
        fur[i] = (sample_station){skin[i].p, 1.35 * skin[i].ra + 0.006, 1.35 * skin[i].rb + 0.006};
    sample_tube skin_tube = {
        skin, count, 12, 36, 3, v3(1, 0, 0), {0, 0.75, 1, 1}, NULL, weigh_tail_wrong, c};
    sample_tube fur_tube = {
        fur, count, 14, 36, 3, v3(1, 0, 0), {0, 0, 1, 1}, NULL, weigh_tail_wrong, c};
    return sample_tube_add(&c->body, &skin_tube) && sample_tube_add(&c->fur, &fur_tube);
}

void tl_sample_truth_free(tl_sample_truth* truth) {
    if (!truth) return;
    for (uint32_t i = 0; i < truth->shell_count; ++i)
        free(truth->shells[i].vertices);
    memset(truth, 0, sizeof *truth);
}

tl_result tl_sample_build(const char* name, const tl_sample_def* def, tl_gltf** out,
                          tl_sample_truth* truth, tl_error* err) {
    assert(name && def && out);
    *out = NULL;
    if (truth) memset(truth, 0, sizeof *truth);
    int found = -1;
    for (int i = 0; i < SAMPLE_COUNT; ++i)
        if (!strcmp(samples[i].name, name)) found = i;
    if (found < 0)
        return tl_error_set(err, TL_ERROR_NOT_FOUND, "no sample named \"%s\" (samples: %s, %s)",
                            name, samples[0].name, samples[1].name);
    if (!(def->scale > 0 && isfinite(def->scale)))
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: scale %g: must be positive", name,
                            (double)def->scale);
    if (!(def->height > 0 && isfinite(def->height)))
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: height %g m: must be positive", name,
                            (double)def->height);
    if (def->up != TL_SAMPLE_Y_UP && def->up != TL_SAMPLE_Z_UP)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: up axis %d: not Y or Z", name,
                            (int)def->up);
    if (def->facing != TL_SAMPLE_FACING_POS_Z && def->facing != TL_SAMPLE_FACING_NEG_Z)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: facing %d: not +Z or -Z", name,
                            (int)def->facing);
    sample_character* c = calloc(1, sizeof *c);
    if (!c) return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory", name);
    tl_result r = TL_OK;
    if (!samples[found].build(c, def->seed))
        r = tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory building the mesh", name);
    else
        r = sample_document_write(c, def, out, truth, err);
    sample_prim_free(&c->body);
    sample_prim_free(&c->fur);
    free(c);
    return r;
}

json_t* sample_json_floats(const float* v, size_t n) {
    json_t* a = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(a, json_real(v[i]));
    return a;
}
