/* A cloth instance: its state on a shared model, settings, reset, outputs (cloth.h). */
#include "cloth_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_cloth_input tl_default_cloth_input(void) {
    tl_cloth_input in;
    memset(&in, 0, sizeof in);
    in.frame.rotation[3] = 1;
    in.frame.scale = 1;
    return in;
}

static void check_settings(const tl_cloth_settings* s) {
    assert(s->iterations >= 0 && s->iterations <= 1000);
    assert(s->damping >= 0 && s->damping < 1 && s->edge_damping >= 0 && s->edge_damping < 1);
    assert(s->contact_damping >= 0 && s->contact_damping <= 1);
    assert(s->stretch_stiffness >= 0 && s->stretch_stiffness <= 1);
    assert(s->shear_stiffness >= 0 && s->shear_stiffness <= 1);
    assert(isfinite(s->gravity) && isfinite(s->wind) && isfinite(s->edge_wind));
    assert(s->world_motion >= 0 && s->world_motion <= 1);
    assert(s->edge_world_motion >= 0 && s->edge_world_motion <= 1);
    assert(s->max_distance_top > 0 && s->max_distance_bottom > 0 && s->edge_max_distance > 0);
    assert(s->collision_margin >= 0 && isfinite(s->collision_margin));
    (void)s;
}

/* Per-particle parameters from the settings (cloth.md §5, §7). */
static void apply_settings(tl_cloth* c) {
    const tl_cloth_model* m = c->model;
    const tl_cloth_settings* s = &c->settings;
    for (int i = 0; i < m->n; ++i) {
        int r = i / m->columns;
        bool e = m->edge[i];
        float t = m->rows > 2 ? (float)(r - 1) / (float)(m->rows - 2) : 1.0f;
        float d = s->max_distance_top + (s->max_distance_bottom - s->max_distance_top) * t;
        c->damping[i] = e ? s->edge_damping : s->damping;
        c->share[i] = e ? s->edge_world_motion : s->world_motion;
        c->wind[i] = e ? s->edge_wind : s->wind;
        c->max_distance[i] = r == 0 ? 0.0f : d * m->scale * (e ? s->edge_max_distance : 1.0f);
    }
}

tl_result tl_cloth_create(const tl_cloth_model* model, const tl_allocator* allocator,
                          tl_cloth** out, tl_error* err) {
    assert(model && out);
    *out = NULL;
    check_settings(&model->settings);
    tl_allocator a = allocator ? *allocator : model->allocator;
    int n = model->n;
    /* 16 arrays of n, two outputs of 3n, a row's scratch */
    size_t floats = (size_t)n * (16 + 6) + 3 * (size_t)model->columns;
    size_t bytes =
        ((sizeof(tl_cloth) + 63) & ~(size_t)63) + floats * sizeof(float) + (size_t)n + 64;
    char* block = a.alloc(bytes, a.user);
    if (!block)
        return tl_error_set(err, TL_ERROR_MEMORY, "cloth: out of memory for %d particles", n);
    tl_cloth* c = (tl_cloth*)block;
    memset(c, 0, sizeof *c);
    c->model = model, c->allocator = a, c->n = n, c->settings = model->settings;
    float* f = (float*)(block + ((sizeof(tl_cloth) + 63) & ~(size_t)63));
    float** arrays[] = {&c->x,       &c->y,     &c->z,    &c->px,          &c->py,  &c->pz,
                        &c->t0x,     &c->t0y,   &c->t0z,  &c->t1x,         &c->t1y, &c->t1z,
                        &c->damping, &c->share, &c->wind, &c->max_distance};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        *arrays[k] = f + k * (size_t)n;
    c->out_world = f + 16 * (size_t)n;
    c->out_local = c->out_world + 3 * (size_t)n;
    c->row_before = c->out_local + 3 * (size_t)n;
    c->contact = (uint8_t*)(c->row_before + 3 * (size_t)model->columns);
    memset(c->contact, 0, (size_t)n);
    memset(c->out_world, 0, sizeof(float) * 6 * (size_t)n);
    apply_settings(c);
    c->frame = tl_default_cloth_input().frame;
    c->step_frame = c->prior_step = c->frame;
    *out = c;
    return TL_OK;
}

void tl_cloth_destroy(tl_cloth* cloth) {
    if (!cloth) return;
    tl_allocator a = cloth->allocator;
    a.free(cloth, a.user);
}

void tl_cloth_set_settings(tl_cloth* cloth, const tl_cloth_settings* settings) {
    check_settings(settings);
    cloth->settings = *settings;
    apply_settings(cloth);
}

tl_cloth_settings tl_cloth_get_settings(const tl_cloth* cloth) {
    return cloth->settings;
}

void tl_cloth_clear(tl_cloth* cloth) {
    cloth->started = false;
    cloth->accumulator = 0;
}

int tl_cloth_particle_count(const tl_cloth* cloth) {
    return cloth->n;
}
const tl_cloth_model* tl_cloth_get_model(const tl_cloth* cloth) {
    return cloth->model;
}
const float* tl_cloth_positions(const tl_cloth* cloth) {
    return cloth->out_world;
}
const float* tl_cloth_local_positions(const tl_cloth* cloth) {
    return cloth->out_local;
}
const uint8_t* tl_cloth_contacts(const tl_cloth* cloth) {
    return cloth->contact;
}
const float* tl_cloth_max_distances(const tl_cloth* cloth) {
    return cloth->max_distance;
}
tl_cloth_stats tl_cloth_get_stats(const tl_cloth* cloth) {
    return cloth->stats;
}

void tl_cloth_particle_frame(const tl_cloth* cloth, int row, int column, float rotation[4]) {
    const tl_cloth_model* m = cloth->model;
    assert(row >= 0 && row < m->rows && column >= 0 && column < m->columns);
    int C = m->columns, i = row * C + column;
    const float* p = cloth->out_world;
    v3 here = v3_load(p + 3 * i);
    v3 x = row + 1 < m->rows ? v3_sub(v3_load(p + 3 * (i + C)), here)
                             : v3_sub(here, v3_load(p + 3 * (i - C)));
    int left = column > 0 ? i - 1 : (m->closed ? i + C - 1 : i);
    int right = column + 1 < C ? i + 1 : (m->closed ? i - C + 1 : i);
    v3 y = v3_sub(v3_load(p + 3 * right), v3_load(p + 3 * left));
    x = v3_normalize_or(x, v3_make(0, -1, 0));
    y = v3_madd(y, x, -v3_dot(y, x)); /* orthonormalise keeping x */
    y = v3_normalize_or(y, v3_perpendicular(x));
    v3 z = v3_cross(x, y);
    qt_store(rotation, qt_from_basis(x, y, z));
}
