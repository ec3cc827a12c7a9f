/* The cloth's shared model (cloth.md §1, §3): the lattice's rest data, its edges, tethers and
 * constraint groups laid out so that no two constraints of a group touch one particle. */
#include "cloth_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_cloth_settings tl_default_cloth_settings(void) {
    tl_cloth_settings s;
    /* 8 left the relaxation's residual to jitter the lower rows of a resting cape (the knight's
     * cape 0.0031 m/s 2 s after Running_A, over the 0.0023 bar); 12 settles it (0.0006) */
    s.iterations = 12;
    /* A free swing's amplitude keeps (1 - damping)^(steps / 2): at 0.12 (0.08 on edges, which
     * swing longer, cloth.md §7) a swing decays by e^-7.7 (e^-5) in 2 s at 60 steps a second, so
     * the cloth is at rest within 2 s of the body stopping. At 0.04 a cape still swung at a
     * tenth of its speed then. */
    s.damping = 0.12f;
    s.edge_damping = 0.08f;
    s.contact_damping = 0.3f;
    s.stretch_stiffness = 1.0f;
    s.shear_stiffness = 0.2f;
    s.gravity = 9.81f;
    s.wind = 1.0f;
    s.edge_wind = 1.5f;
    s.world_motion = 0.2f;
    s.edge_world_motion = 0.3f;
    s.max_distance_top = 0.05f;
    s.max_distance_bottom = 0.4f;
    s.edge_max_distance = 1.25f;
    s.collision_margin = 0.01f;
    return s;
}

tl_cloth_def tl_default_cloth_def(void) {
    tl_cloth_def d;
    memset(&d, 0, sizeof d);
    d.up[1] = 1;
    d.scale = 1;
    d.fixed_step = 1.0f / 60.0f;
    d.max_substeps = 4;
    d.teleport_distance = 1;
    d.settings = tl_default_cloth_settings();
    return d;
}

static void* alloc_bytes(const tl_allocator* a, size_t size) {
    return a->alloc ? a->alloc(size, a->user) : malloc(size);
}
static void free_bytes(const tl_allocator* a, void* p) {
    if (!p) return;
    if (a->free)
        a->free(p, a->user);
    else
        free(p);
}
static void* plain_alloc(size_t size, void* user) {
    (void)user;
    return malloc(size);
}
static void plain_free(void* p, void* user) {
    (void)user;
    free(p);
}

/* ---- the lattice's runs (every constraint kind, cloth.md §3) ---- */

typedef struct run_list {
    cloth_run* runs;
    bool* stretch;
    int count, pairs;
} run_list;

static void add_run(run_list* l, bool stretch, int first, int stride, int offset, int count,
                    int width) {
    if (count <= 0) return;
    if (l->runs) {
        l->runs[l->count] = (cloth_run){first, stride, offset, count, width, l->pairs, 0.5f, 0.5f};
        l->stretch[l->count] = stretch;
    }
    l->count++;
    l->pairs += count;
}

/* Pairs (r, c)-(r + dr, c + dc) for every c, as runs of independent pairs. Along a row, pairs
 * (c, c + d) come in blocks of d from c = 0 and c = d, every 2 d columns. */
static void add_kind(run_list* l, const tl_cloth_def* d, bool stretch, int dr, int dc) {
    int R = d->rows, C = d->columns;
    for (int r = (dr == 0 ? 1 : 0); r + dr < R; ++r) {
        int row = r * C;
        if (dc == 0) {
            add_run(l, stretch, row, 1, dr * C, C, 1);
            continue;
        }
        int adc = dc < 0 ? -dc : dc;
        if (dr == 0) {
            for (int k = 0; k < 2 * adc; k += adc) {
                int count = 0;
                for (int c = k; c + adc < C; c += 2 * adc)
                    for (int e = 0; e < adc && c + e + adc < C; ++e)
                        count++;
                add_run(l, stretch, row + k, 2 * adc, adc, count, adc);
            }
            if (d->closed)
                for (int c = C - adc; c < C; ++c)
                    add_run(l, stretch, row + c, 1, (c + adc) % C - c, 1, 1);
        } else if (dc > 0) {
            add_run(l, stretch, row, 1, dr * C + dc, C - dc, 1);
            if (d->closed)
                for (int c = C - dc; c < C; ++c)
                    add_run(l, stretch, row + c, 1, dr * C + (c + dc) % C - c, 1, 1);
        } else {
            add_run(l, stretch, row + adc, 1, dr * C - adc, C - adc, 1);
            if (d->closed)
                for (int c = 0; c < adc; ++c)
                    add_run(l, stretch, row + c, 1, dr * C + (c - adc + C) - c, 1, 1);
        }
    }
}

static void lattice_runs(run_list* l, const tl_cloth_def* d) {
    add_kind(l, d, true, 1, 0);  /* vertical stretch */
    add_kind(l, d, true, 0, 1);  /* horizontal stretch */
    add_kind(l, d, false, 1, 1); /* shear */
    add_kind(l, d, false, 1, -1);
    if (d->rows > 2) add_kind(l, d, false, 2, 0); /* bend */
    if (d->columns > 2 && (!d->closed || d->columns > 4)) add_kind(l, d, false, 0, 2);
}

size_t tl_cloth_model_memory_size(int rows, int columns, bool closed) {
    tl_cloth_def d = tl_default_cloth_def();
    d.rows = rows, d.columns = columns, d.closed = closed;
    run_list l = {0};
    lattice_runs(&l, &d);
    size_t n = (size_t)rows * (size_t)columns;
    return sizeof(tl_cloth_model) + n * (5 * sizeof(float) + 1 + sizeof(float)) +
           (size_t)l.count * sizeof(cloth_run) + (size_t)l.pairs * sizeof(float) + 64;
}

/* ---- groups: greedy, a run goes into the first group of its kind none of whose particles
 * it touches ---- */

static tl_result group_runs(tl_cloth_model* m, const run_list* l, cloth_run* sorted, uint64_t* used,
                            int* group_of, tl_error* err) {
    memset(used, 0, sizeof(uint64_t) * (size_t)m->n);
    m->group_count = 0;
    for (int pass = 0; pass < 2; ++pass) { /* stretch groups first */
        int first_group = m->group_count;
        for (int k = 0; k < l->count; ++k) {
            if (l->stretch[k] != (pass == 0)) continue;
            const cloth_run* r = &l->runs[k];
            uint64_t mask = 0;
            for (int j = 0; j < r->count; ++j) {
                int a = cloth_run_a(r, j);
                mask |= used[a] | used[a + r->offset];
            }
            int g = first_group;
            while (g < CLOTH_MAX_GROUPS && (mask >> g & 1))
                g++;
            if (g >= CLOTH_MAX_GROUPS)
                return tl_error_set(err, TL_ERROR_LIMIT, "cloth: more than %d constraint groups",
                                    CLOTH_MAX_GROUPS);
            for (int j = 0; j < r->count; ++j) {
                int a = cloth_run_a(r, j);
                used[a] |= (uint64_t)1 << g, used[a + r->offset] |= (uint64_t)1 << g;
            }
            group_of[k] = g;
            if (g + 1 > m->group_count) m->group_count = g + 1;
            m->groups[g].stretch = pass == 0;
        }
    }
    /* runs ordered by group, their pair data in the same order */
    int at = 0, data = 0;
    for (int g = 0; g < m->group_count; ++g) {
        m->groups[g].first_run = at, m->groups[g].run_count = 0, m->groups[g].pair_count = 0;
        for (int k = 0; k < l->count; ++k)
            if (group_of[k] == g) {
                sorted[at] = l->runs[k];
                sorted[at].data = data;
                data += l->runs[k].count;
                m->groups[g].run_count++, m->groups[g].pair_count += l->runs[k].count;
                at++;
            }
    }
    return TL_OK;
}

static float distance3(const float* a, const float* b) {
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return (float)sqrt(dx * dx + dy * dy + dz * dz);
}

static tl_result check_def(const tl_cloth_def* d, tl_error* err) {
    assert(d && d->fixed_step > 0 && d->max_substeps >= 1 && d->scale > 0);
    if (d->rows < 2 || d->columns < 2 || d->rows > TL_CLOTH_MAX_SIDE ||
        d->columns > TL_CLOTH_MAX_SIDE)
        return tl_error_set(err, TL_ERROR_LIMIT, "cloth: a %d x %d lattice (2..%d a side)", d->rows,
                            d->columns, TL_CLOTH_MAX_SIDE);
    if (d->closed && d->columns < 3)
        return tl_error_set(err, TL_ERROR_INVALID, "cloth: a closed ring of %d columns (>= 3)",
                            d->columns);
    if (!d->rest_positions) return tl_error_set(err, TL_ERROR_INVALID, "cloth: no rest positions");
    int n = d->rows * d->columns;
    for (int i = 0; i < 3 * n; ++i)
        if (!isfinite(d->rest_positions[i]))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "cloth: particle %d (row %d, column %d) is not finite", i / 3,
                                i / 3 / d->columns, i / 3 % d->columns);
    for (int i = d->columns; i < n; ++i)
        if (!(distance3(d->rest_positions + 3 * i, d->rest_positions + 3 * (i - d->columns)) > 0))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "cloth: particle %d (row %d, column %d) coincides with the one "
                                "above it (a zero-length link)",
                                i, i / d->columns, i % d->columns);
    for (int i = 0; d->link_slack && i < 2 * n; ++i)
        if (!(d->link_slack[i] >= 0 && isfinite(d->link_slack[i])))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "cloth: particle %d's link slack is not a finite depth >= 0",
                                i / 2);
    if (d->skin_point_count < 0 || (d->skin_point_count > 0 && !d->skin_points))
        return tl_error_set(err, TL_ERROR_INVALID, "cloth: %d skin points and no array",
                            d->skin_point_count);
    for (int i = 0; i < d->skin_point_count; ++i) {
        const tl_cloth_skin_point* p = &d->skin_points[i];
        int r = p->cell / d->columns, c = p->cell % d->columns;
        if (p->cell < 0 || r + 1 >= d->rows || (!d->closed && c + 1 >= d->columns) ||
            !(p->u >= -1 && p->u <= 2 && p->v >= -1 && p->v <= 2) ||
            !(p->slack >= 0 && isfinite(p->slack)) || !isfinite(p->lift))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "cloth: skin point %d (cell %d, u %g, v %g, lift %g, slack %g) "
                                "is not in a cell of the lattice",
                                i, p->cell, (double)p->u, (double)p->v, (double)p->lift,
                                (double)p->slack);
    }
    return TL_OK;
}

/* Rest lengths, and each run's shares: its a ends lie on one row and its b ends below or on
 * it, off row 0, so a run pulls a pinned a end (row 0) by none of the correction, or both
 * ends by half. */
static void fill_pairs(tl_cloth_model* m) {
    for (int k = 0; k < m->run_count; ++k) {
        cloth_run* r = &m->runs[k];
        bool pinned = r->first < m->columns;
        r->wa = pinned ? 0.0f : 0.5f, r->wb = pinned ? 1.0f : 0.5f;
        for (int j = 0; j < r->count; ++j) {
            int a = cloth_run_a(r, j), b = a + r->offset;
            assert((a < m->columns) == pinned && b >= m->columns);
            m->pair_rest[r->data + j] = distance3(m->rest + 3 * a, m->rest + 3 * b);
        }
    }
}

/* Edges have fewer stretch neighbours than interior particles (cloth.md §7). */
static void find_edges(tl_cloth_model* m) {
    int C = m->columns;
    for (int i = 0; i < m->n; ++i) {
        int r = i / C, c = i % C, degree = 0;
        degree += r > 0;
        degree += r + 1 < m->rows;
        degree += m->closed || c > 0;
        degree += m->closed || c + 1 < C;
        m->edge[i] = r > 0 && degree < 4;
    }
}

tl_result tl_cloth_model_create(const tl_cloth_def* def, const tl_allocator* allocator,
                                tl_cloth_model** out, tl_error* err) {
    assert(out);
    *out = NULL;
    tl_result r = check_def(def, err);
    if (r != TL_OK) return r;
    tl_allocator a = allocator ? *allocator : (tl_allocator){plain_alloc, plain_free, NULL};
    int n = def->rows * def->columns;
    run_list l = {0};
    lattice_runs(&l, def);
    int run_count = l.count, pair_count = l.pairs;
    /* one block: the model, then its arrays */
    size_t at = (sizeof(tl_cloth_model) + 15) & ~(size_t)15;
    size_t o_rest = at;
    at += (size_t)n * 3 * sizeof(float);
    size_t o_tether = at;
    at += (size_t)n * sizeof(float);
    size_t o_slack = at;
    at += (size_t)n * 2 * sizeof(float);
    size_t o_skin = at;
    at += (size_t)def->skin_point_count * sizeof(tl_cloth_skin_point);
    size_t o_pairs = at;
    at += (size_t)pair_count * sizeof(float);
    size_t o_runs = at = (at + 15) & ~(size_t)15;
    at += (size_t)run_count * sizeof(cloth_run);
    size_t o_edge = at;
    at += (size_t)n;
    char* block = alloc_bytes(&a, at);
    /* scratch for the grouping (create may allocate; step never does) */
    size_t scratch = (size_t)run_count * (sizeof(cloth_run) + sizeof(bool) + sizeof(int)) +
                     (size_t)n * sizeof(uint64_t);
    char* tmp = alloc_bytes(&a, scratch + 16);
    if (!block || !tmp) {
        free_bytes(&a, block), free_bytes(&a, tmp);
        return tl_error_set(err, TL_ERROR_MEMORY, "cloth: out of memory for %d particles", n);
    }
    tl_cloth_model* m = (tl_cloth_model*)block;
    memset(m, 0, sizeof *m);
    m->allocator = a;
    m->rows = def->rows, m->columns = def->columns, m->n = n, m->closed = def->closed;
    m->rest = (float*)(block + o_rest);
    m->tether = (float*)(block + o_tether);
    m->slack = (float*)(block + o_slack);
    if (def->link_slack)
        memcpy(m->slack, def->link_slack, sizeof(float) * 2 * (size_t)n);
    else
        memset(m->slack, 0, sizeof(float) * 2 * (size_t)n);
    m->skin = (tl_cloth_skin_point*)(block + o_skin), m->skin_count = def->skin_point_count;
    if (m->skin_count)
        memcpy(m->skin, def->skin_points, sizeof(tl_cloth_skin_point) * (size_t)m->skin_count);
    m->pair_rest = (float*)(block + o_pairs);
    m->runs = (cloth_run*)(block + o_runs);
    m->edge = (uint8_t*)(block + o_edge);
    m->run_count = run_count, m->pair_count = pair_count;
    memcpy(m->rest, def->rest_positions, sizeof(float) * 3 * (size_t)n);
    double c[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            c[k] += m->rest[3 * i + k];
    m->origin = v3_make((float)(c[0] / n), (float)(c[1] / n), (float)(c[2] / n));
    for (int i = 0; i < n; ++i)
        m->tether[i] =
            i < m->columns ? 0 : distance3(m->rest + 3 * i, m->rest + 3 * (i - m->columns));
    uint64_t* used = (uint64_t*)tmp;
    l.runs = (cloth_run*)(used + n);
    l.stretch = (bool*)(l.runs + run_count);
    int* group_of = (int*)(((uintptr_t)(l.stretch + run_count) + 3) & ~(uintptr_t)3);
    l.count = l.pairs = 0;
    lattice_runs(&l, def);
    r = group_runs(m, &l, m->runs, used, group_of, err);
    free_bytes(&a, tmp);
    if (r != TL_OK) {
        free_bytes(&a, block);
        return r;
    }
    fill_pairs(m);
    find_edges(m);
    memcpy(m->up, def->up, sizeof m->up);
    m->scale = def->scale, m->fixed_step = def->fixed_step;
    m->teleport_distance = def->teleport_distance, m->max_substeps = def->max_substeps;
    m->settings = def->settings;
    *out = m;
    return TL_OK;
}

void tl_cloth_model_destroy(tl_cloth_model* model) {
    if (!model) return;
    tl_allocator a = model->allocator;
    free_bytes(&a, model);
}

int tl_cloth_model_rows(const tl_cloth_model* m) {
    return m->rows;
}
int tl_cloth_model_columns(const tl_cloth_model* m) {
    return m->columns;
}
bool tl_cloth_model_closed(const tl_cloth_model* m) {
    return m->closed;
}
const float* tl_cloth_model_rest_positions(const tl_cloth_model* m) {
    return m->rest;
}
void tl_cloth_model_origin(const tl_cloth_model* m, float origin[3]) {
    v3_store(origin, m->origin);
}
const float* tl_cloth_model_tethers(const tl_cloth_model* m) {
    return m->tether;
}
const uint8_t* tl_cloth_model_edges(const tl_cloth_model* m) {
    return m->edge;
}
int tl_cloth_model_group_count(const tl_cloth_model* m) {
    return m->group_count;
}
tl_cloth_group_view tl_cloth_model_group(const tl_cloth_model* m, int group) {
    assert(group >= 0 && group < m->group_count);
    return (tl_cloth_group_view){m->groups[group].pair_count, m->groups[group].stretch};
}
void tl_cloth_model_group_pairs(const tl_cloth_model* m, int group, int* a, int* b, float* rest) {
    assert(group >= 0 && group < m->group_count);
    const cloth_group* g = &m->groups[group];
    int k = 0;
    for (int q = g->first_run; q < g->first_run + g->run_count; ++q) {
        const cloth_run* r = &m->runs[q];
        for (int j = 0; j < r->count; ++j, ++k) {
            a[k] = cloth_run_a(r, j), b[k] = a[k] + r->offset, rest[k] = m->pair_rest[r->data + j];
        }
    }
}
