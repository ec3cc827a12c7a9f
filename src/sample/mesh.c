/* The tube sweeper the samples are modelled with. */
#include "sample/internal.h"

#include <stdlib.h>
#include <string.h>

void sample_weights_add(sample_weights* w, int joint, double weight) {
    if (weight <= 0) return;
    int smallest = 0;
    for (int k = 0; k < 4; ++k) {
        if (w->weight[k] > 0 && w->joint[k] == joint) {
            w->weight[k] += weight;
            return;
        }
        if (w->weight[k] < w->weight[smallest]) smallest = k;
    }
    if (weight > w->weight[smallest]) w->joint[smallest] = joint, w->weight[smallest] = weight;
}

double sample_rng_factor(sample_rng* rng, double spread) {
    if (rng->state == 0) return 1.0;
    /* splitmix64: good enough, and the same everywhere */
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double unit = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
    return 1.0 + spread * (2.0 * unit - 1.0);
}

void sample_prim_free(sample_prim* prim) {
    free(prim->position);
    free(prim->normal);
    free(prim->uv);
    free(prim->weights);
    free(prim->indices);
    memset(prim, 0, sizeof *prim);
}

static bool prim_reserve(sample_prim* p, uint32_t vertices, uint32_t indices) {
    if (p->vertex_count + vertices > p->vertex_capacity) {
        uint32_t cap = p->vertex_capacity ? p->vertex_capacity : 1024;
        while (cap < p->vertex_count + vertices)
            cap *= 2;
        dv3* pos = realloc(p->position, cap * sizeof *pos);
        if (pos) p->position = pos;
        dv3* nrm = realloc(p->normal, cap * sizeof *nrm);
        if (nrm) p->normal = nrm;
        double(*uv)[2] = realloc(p->uv, cap * sizeof *uv);
        if (uv) p->uv = uv;
        sample_weights* w = realloc(p->weights, cap * sizeof *w);
        if (w) p->weights = w;
        if (!pos || !nrm || !uv || !w) return false;
        p->vertex_capacity = cap;
    }
    if (p->index_count + indices > p->index_capacity) {
        uint32_t cap = p->index_capacity ? p->index_capacity : 4096;
        while (cap < p->index_count + indices)
            cap *= 2;
        uint32_t* idx = realloc(p->indices, cap * sizeof *idx);
        if (!idx) return false;
        p->indices = idx;
        p->index_capacity = cap;
    }
    return true;
}

double sample_path_length(const sample_station* s, uint32_t count) {
    double length = 0;
    for (uint32_t i = 1; i < count; ++i)
        length += v3_length(v3_sub(s[i].p, s[i - 1].p));
    return length;
}

/* The station interpolated at arc length `arc` along the path. */
static sample_station path_at(const sample_station* s, uint32_t count, double arc) {
    for (uint32_t i = 1; i < count; ++i) {
        double seg = v3_length(v3_sub(s[i].p, s[i - 1].p));
        if (arc <= seg || i == count - 1) {
            double t = seg > 0 ? fmin(fmax(arc / seg, 0), 1) : 0;
            return (sample_station){v3_lerp(s[i - 1].p, s[i].p, t),
                                    s[i - 1].ra + (s[i].ra - s[i - 1].ra) * t,
                                    s[i - 1].rb + (s[i].rb - s[i - 1].rb) * t};
        }
        arc -= seg;
    }
    return s[0];
}

/* Arc length at the point of the path nearest to p. */
static double path_project(const sample_station* s, uint32_t count, dv3 p) {
    double best = INFINITY, best_arc = 0, arc = 0;
    for (uint32_t i = 1; i < count; ++i) {
        dv3 d = v3_sub(s[i].p, s[i - 1].p);
        double seg2 = v3_dot(d, d), seg = sqrt(seg2);
        double t = seg2 > 0 ? fmin(fmax(v3_dot(v3_sub(p, s[i - 1].p), d) / seg2, 0), 1) : 0;
        double dist = v3_length(v3_sub(p, v3_add(s[i - 1].p, v3_scale(d, t))));
        if (dist < best) best = dist, best_arc = arc + t * seg;
        arc += seg;
    }
    return best_arc;
}

static void weigh_chain(const sample_chain* chain, double arc, sample_weights* out) {
    /* f[i]: how far past boundary i the arc is (0 before the blend, 1 after) */
    double f_prev = 1.0;
    for (int k = 0; k < chain->count; ++k) {
        double f_next = 0.0;
        if (k + 1 < chain->count)
            f_next = fmin(fmax(0.5 + (arc - chain->start_arc[k + 1]) / (2 * chain->blend), 0), 1);
        sample_weights_add(out, chain->joint[k], f_prev * (1.0 - f_next));
        f_prev = f_next;
    }
}

bool sample_tube_add(sample_prim* prim, sample_tube* tube) {
    const sample_station* st = tube->stations;
    uint32_t n_st = tube->station_count, sides = tube->sides, cap = tube->cap_rings;
    uint32_t ring_total = tube->rings + 2 * cap, cols = sides + 1;
    uint32_t vertex_total = ring_total * cols + 2;
    uint32_t index_total = 3 * (2 * sides + 2 * sides * (ring_total - 1));
    if (!prim_reserve(prim, vertex_total, index_total)) return false;
    double length = sample_path_length(st, n_st);
    if (tube->chain)
        for (int k = 0; k < tube->chain->count; ++k)
            tube->chain->start_arc[k] = path_project(st, n_st, tube->chain->start[k]);

    /* Ring centres, frames and radii, from the start pole to the end pole. */
    uint32_t first = prim->vertex_count;
    sample_station main0 = path_at(st, n_st, 0), main1 = path_at(st, n_st, length);
    dv3 t0 = v3_normalize(v3_sub(path_at(st, n_st, length * 0.01).p, main0.p));
    dv3 a = v3_sub(tube->side, v3_scale(t0, v3_dot(tube->side, t0)));
    if (v3_length(a) < 1e-6) a = fabs(t0.x) < 0.9 ? v3(1, 0, 0) : v3(0, 1, 0);
    a = v3_normalize(v3_sub(a, v3_scale(t0, v3_dot(a, t0))));
    dv3 t_prev = t0;
    uint32_t v = first;
    for (uint32_t r = 0; r < ring_total; ++r) {
        sample_station ring;
        dv3 tangent;
        double arc;
        if (r < cap || r >= cap + tube->rings) {
            bool start = r < cap;
            uint32_t k = start ? cap - r : r - (cap + tube->rings) + 1; /* 1 … cap, outwards */
            double alpha = 0.5 * SAMPLE_PI * k / (cap + 1);
            sample_station end = start ? main0 : main1;
            tangent = start ? t0 : t_prev;
            double depth = 0.5 * (end.ra + end.rb) * sin(alpha);
            ring = (sample_station){v3_add(end.p, v3_scale(tangent, start ? -depth : depth)),
                                    end.ra * cos(alpha), end.rb * cos(alpha)};
            arc = start ? 0 : length;
        } else {
            uint32_t i = r - cap;
            arc = length * i / (tube->rings - 1);
            ring = path_at(st, n_st, arc);
            double h = length / (tube->rings - 1);
            dv3 ahead = path_at(st, n_st, fmin(arc + h, length)).p;
            dv3 behind = path_at(st, n_st, fmax(arc - h, 0)).p;
            tangent = v3_normalize(v3_sub(ahead, behind));
            /* parallel transport: the side axis turns only as much as the path does */
            a = v3_normalize(v3_sub(a, v3_scale(tangent, v3_dot(a, tangent))));
            t_prev = tangent;
        }
        dv3 b = v3_cross(tangent, a);
        sample_weights w = {0};
        if (tube->chain) weigh_chain(tube->chain, arc, &w);
        for (uint32_t j = 0; j < cols; ++j, ++v) {
            double phi = 2 * SAMPLE_PI * (j % sides) / sides;
            dv3 p = v3_add(
                ring.p, v3_add(v3_scale(a, ring.ra * cos(phi)), v3_scale(b, ring.rb * sin(phi))));
            prim->position[v] = p;
            prim->uv[v][0] = tube->uv[0] + (tube->uv[2] - tube->uv[0]) * j / sides;
            prim->uv[v][1] = tube->uv[1] + (tube->uv[3] - tube->uv[1]) * (r + 1) / (ring_total + 1);
            if (tube->weigh) {
                w = (sample_weights){0};
                tube->weigh(tube->weigh_ctx, arc, length > 0 ? arc / length : 0, ring.p, p, &w);
            }
            prim->weights[v] = w;
        }
    }
    /* The poles, after the rings so that ring vertices stay in ring order. */
    uint32_t pole0 = v++, pole1 = v++;
    double r0 = 0.5 * (main0.ra + main0.rb), r1 = 0.5 * (main1.ra + main1.rb);
    prim->position[pole0] = v3_sub(main0.p, v3_scale(t0, r0));
    prim->position[pole1] = v3_add(main1.p, v3_scale(t_prev, r1));
    double umid = 0.5 * (tube->uv[0] + tube->uv[2]);
    prim->uv[pole0][0] = umid, prim->uv[pole0][1] = tube->uv[1];
    prim->uv[pole1][0] = umid, prim->uv[pole1][1] = tube->uv[3];
    prim->weights[pole0] = prim->weights[first];
    prim->weights[pole1] = prim->weights[first + (ring_total - 1) * cols];
    prim->vertex_count = v;

    /* Triangles, wound counter-clockwise seen from outside. */
    uint32_t* idx = prim->indices + prim->index_count;
    uint32_t last = first + (ring_total - 1) * cols;
    for (uint32_t j = 0; j < sides; ++j) {
        *idx++ = pole0, *idx++ = first + j + 1, *idx++ = first + j;
        *idx++ = last + j, *idx++ = last + j + 1, *idx++ = pole1;
    }
    for (uint32_t r = 0; r + 1 < ring_total; ++r)
        for (uint32_t j = 0; j < sides; ++j) {
            uint32_t i0 = first + r * cols + j, i1 = i0 + cols;
            *idx++ = i0, *idx++ = i0 + 1, *idx++ = i1;
            *idx++ = i0 + 1, *idx++ = i1 + 1, *idx++ = i1;
        }
    uint32_t tri_begin = prim->index_count;
    prim->index_count = (uint32_t)(idx - prim->indices);

    /* Area-weighted normals; the seam's two copies share theirs. */
    for (uint32_t i = first; i < v; ++i)
        prim->normal[i] = v3(0, 0, 0);
    for (uint32_t i = tri_begin; i < prim->index_count; i += 3) {
        uint32_t i0 = prim->indices[i], i1 = prim->indices[i + 1], i2 = prim->indices[i + 2];
        dv3 n = v3_cross(v3_sub(prim->position[i1], prim->position[i0]),
                         v3_sub(prim->position[i2], prim->position[i0]));
        prim->normal[i0] = v3_add(prim->normal[i0], n);
        prim->normal[i1] = v3_add(prim->normal[i1], n);
        prim->normal[i2] = v3_add(prim->normal[i2], n);
    }
    for (uint32_t r = 0; r < ring_total; ++r) {
        uint32_t seam0 = first + r * cols, seam1 = seam0 + sides;
        dv3 n = v3_add(prim->normal[seam0], prim->normal[seam1]);
        prim->normal[seam0] = prim->normal[seam1] = n;
    }
    for (uint32_t i = first; i < v; ++i)
        prim->normal[i] = v3_normalize(prim->normal[i]);
    return true;
}

void sample_bezier_stations(sample_station* out, uint32_t count, dv3 p0, dv3 p1, dv3 p2, dv3 p3,
                            double r0, double r1) {
    enum { DENSE = 512 };
    dv3 pts[DENSE + 1];
    double arc[DENSE + 1];
    for (int i = 0; i <= DENSE; ++i) {
        double t = (double)i / DENSE, u = 1 - t;
        pts[i] = v3_add(v3_add(v3_scale(p0, u * u * u), v3_scale(p1, 3 * u * u * t)),
                        v3_add(v3_scale(p2, 3 * u * t * t), v3_scale(p3, t * t * t)));
        arc[i] = i ? arc[i - 1] + v3_length(v3_sub(pts[i], pts[i - 1])) : 0;
    }
    int seg = 1;
    for (uint32_t k = 0; k < count; ++k) {
        double target = arc[DENSE] * k / (count - 1);
        while (seg < DENSE && arc[seg] < target)
            ++seg;
        double span = arc[seg] - arc[seg - 1];
        double t = span > 0 ? (target - arc[seg - 1]) / span : 0;
        double f = (double)k / (count - 1);
        double r = r0 + (r1 - r0) * f;
        out[k] = (sample_station){v3_lerp(pts[seg - 1], pts[seg], fmin(fmax(t, 0), 1)), r, r};
    }
}
