/* The seam blend kept outside the body (hair.md "Seams blended outside the body"): linear blend
 * skinning puts a vertex blended between two locks that part around the body on the chord
 * between them, inside it. Each blended row is tried against bends the chains can make, sampled
 * at rig time (the joints kept out of the colliders, so locks lie along the body where a bend
 * meets it), and gives back as much of its blend as takes it deeper into a collider. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_SAMPLES 32 /* turns of every chain tried together */
#define GUARD_LEVELS 4   /* the blend tried at 1, 3/4, 1/2, 1/4 of its move, else none */

typedef struct guard_turns {
    uint32_t chains;
    float* bone; /* chains × samples × TL_CHAIN_MAX_BONES × 15: rotation (row-major), rest
                    joint, turned joint */
} guard_turns;

/* A deterministic spread: the sample, chain and joint hashed into [0, 1). */
static float guard_hash(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t h =
        a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu ^ (c + 0x165667b1u) * 0xc2b2ae35u;
    h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12, h *= 0x297a2d39u, h ^= h >> 15;
    return (float)(h >> 8) / 16777216.0f;
}

/* The rotation by `angle` about the unit `axis`, row-major. */
static void rotation(const float axis[3], float angle, float r[9]) {
    float c = cosf(angle), s = sinf(angle), t = 1 - c;
    float x = axis[0], y = axis[1], z = axis[2];
    float m[9] = {t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                  t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                  t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(r, m, sizeof m);
}

/* A bone's turn (15 floats: rotation, rest joint, turned joint) applied to p. */
static void bone_apply(const float* b, const float p[3], float out[3]) {
    float d[3] = {p[0] - b[9], p[1] - b[10], p[2] - b[11]};
    for (int k = 0; k < 3; ++k)
        out[k] = b[12 + k] + b[3 * k] * d[0] + b[3 * k + 1] * d[1] + b[3 * k + 2] * d[2];
}

/* The minimal rotation taking unit-less direction a to direction b, row-major. */
static void rotation_between(const float a[3], const float b[3], float r[9]) {
    float la = sqrtf(tl__dot(a, a)), lb = sqrtf(tl__dot(b, b));
    float x[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    float sn = sqrtf(tl__dot(x, x)), cs = tl__dot(a, b);
    if (!(la > 0 && lb > 0) || !(sn > 1e-9f * la * lb)) {
        float id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(r, id, sizeof id);
        if (cs < 0) { /* opposite: half a turn about any axis across a */
            float u[3] = {fabsf(a[0]) < 0.9f * la, fabsf(a[0]) >= 0.9f * la, 0}, v[3];
            v[0] = a[1] * u[2] - a[2] * u[1], v[1] = a[2] * u[0] - a[0] * u[2];
            v[2] = a[0] * u[1] - a[1] * u[0];
            float lv = sqrtf(tl__dot(v, v));
            for (int k = 0; k < 3; ++k)
                v[k] /= lv;
            rotation(v, 3.14159265f, r);
        }
        return;
    }
    for (int k = 0; k < 3; ++k)
        x[k] /= sn;
    rotation(x, atan2f(sn, cs), r);
}

/* p moved out of every collider it lies deeper in than `allowed` (its rest depths), as the
 * solver keeps particles out: steps along the depth's gradient (central differences of h). */
static void push_out(const tl_collider* col, uint32_t n, const float* allowed, float h,
                     float p[3]) {
    for (int it = 0; it < 4; ++it) {
        uint32_t worst = n;
        float excess = 0;
        for (uint32_t c = 0; c < n; ++c) {
            float e = tl_collider_depth(&col[c], p) - allowed[c];
            if (e > excess) excess = e, worst = c;
        }
        if (worst == n) return;
        float g[3];
        for (int k = 0; k < 3; ++k) {
            float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
            a[k] += h, b[k] -= h;
            g[k] = tl_collider_depth(&col[worst], b) - tl_collider_depth(&col[worst], a);
        }
        float lg = sqrtf(tl__dot(g, g));
        if (!(lg > 0)) return;
        for (int k = 0; k < 3; ++k)
            p[k] += (excess + 0.01f * h) * g[k] / lg;
    }
}

/* The chain bent about one axis across it, joint b turning by angle[b] more than the joint
 * above it, each turned joint pushed out of the colliders as the solver's particles are: the
 * lock lies along the body where the bend meets it. Writes each bone's turn (the minimal
 * rotation from its rest direction to its bent one). */
static void chain_bend(const tl_hair_chain* ch, const float axis[3], const float* angle,
                       const tl_collider* col, uint32_t n, float h, float* allowed, float* out) {
    float total = 0, at[3];
    memcpy(at, ch->joints, sizeof at);
    for (uint32_t b = 0; b < ch->bone_count; ++b) {
        float* o = out + 15 * b;
        const float *j0 = ch->joints + 3 * b, *j1 = j0 + 3;
        float rest[3] = {j1[0] - j0[0], j1[1] - j0[1], j1[2] - j0[2]}, r[9], next[3], bent[3];
        total += angle[b];
        rotation(axis, total, r);
        for (int k = 0; k < 3; ++k)
            next[k] = at[k] + r[3 * k] * rest[0] + r[3 * k + 1] * rest[1] + r[3 * k + 2] * rest[2];
        for (uint32_t c = 0; c < n; ++c)
            allowed[c] = fmaxf(0, tl_collider_depth(&col[c], j1));
        push_out(col, n, allowed, h, next);
        for (int k = 0; k < 3; ++k)
            bent[k] = next[k] - at[k];
        rotation_between(rest, bent, o);
        memcpy(o + 9, j0, 3 * sizeof(float));
        memcpy(o + 12, at, 3 * sizeof(float));
        memcpy(at, next, sizeof at);
    }
}

/* Every chain bent per sample towards a direction of its own across its rest direction, each
 * joint by a share of `turn` hashed per joint. */
static bool turns_build(guard_turns* t, const tl_hair_chains* cs, const tl_collider* col,
                        uint32_t n, float turn, float h) {
    t->chains = cs->chain_count;
    t->bone = malloc(sizeof(float) * 15 * TL_CHAIN_MAX_BONES * GUARD_SAMPLES * (t->chains + 1));
    float* allowed = malloc(sizeof(float) * (n + 1));
    if (!t->bone || !allowed) return free(allowed), false;
    for (uint32_t c = 0; c < t->chains; ++c) {
        const tl_hair_chain* ch = &cs->chains[c];
        float d[3], e1[3], e2[3];
        for (int k = 0; k < 3; ++k)
            d[k] = ch->joints[3 * ch->bone_count + k] - ch->joints[k];
        float len = sqrtf(tl__dot(d, d));
        for (int k = 0; k < 3; ++k)
            d[k] = len > 0 ? d[k] / len : k == 1;
        /* two unit axes across the lock */
        float a[3] = {fabsf(d[0]) < 0.9f, fabsf(d[0]) >= 0.9f, 0};
        e1[0] = d[1] * a[2] - d[2] * a[1], e1[1] = d[2] * a[0] - d[0] * a[2];
        e1[2] = d[0] * a[1] - d[1] * a[0];
        float l1 = sqrtf(tl__dot(e1, e1));
        for (int k = 0; k < 3; ++k)
            e1[k] /= l1;
        e2[0] = d[1] * e1[2] - d[2] * e1[1], e2[1] = d[2] * e1[0] - d[0] * e1[2];
        e2[2] = d[0] * e1[1] - d[1] * e1[0];
        for (uint32_t s = 0; s < GUARD_SAMPLES; ++s) {
            float phi = 6.2831853f * guard_hash(s, c, TL_CHAIN_MAX_BONES), axis[3];
            float angle[TL_CHAIN_MAX_BONES];
            for (int k = 0; k < 3; ++k)
                axis[k] = cosf(phi) * e1[k] + sinf(phi) * e2[k];
            for (uint32_t b = 0; b < ch->bone_count; ++b)
                angle[b] = turn * guard_hash(s, c, b);
            float* out = t->bone + 15 * TL_CHAIN_MAX_BONES * ((size_t)c * GUARD_SAMPLES + s);
            chain_bend(ch, axis, angle, col, n, h, allowed, out);
        }
    }
    free(allowed);
    return true;
}

/* A row's position in sample s: each bone's weight at its turned point, the head's at rest. */
static void row_position(const guard_turns* t, const hair_seam_field* f, const float* row,
                         const uint32_t* cols, uint32_t count, const float p[3], uint32_t s,
                         float out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t j = cols[i], c = 0;
        float q[3] = {p[0], p[1], p[2]};
        while (c < t->chains && f->first[c + 1] <= j)
            c++;
        if (c < t->chains) {
            size_t at = (size_t)c * GUARD_SAMPLES + s;
            bone_apply(t->bone + 15 * (TL_CHAIN_MAX_BONES * at + (j - f->first[c])), p, q);
        }
        for (int k = 0; k < 3; ++k)
            out[k] += row[j] * q[k];
    }
}

/* Whether the row `blend` takes p deeper than the row `base` into some collider, in any sample,
 * by more than eps (a collider p rests in bounds it by its rest depth too). */
static bool blend_sinks(const guard_turns* t, const hair_seam_field* f, const float* base,
                        const float* blend, const uint32_t* cols, uint32_t count, const float p[3],
                        const float* rest_depth, const tl_collider* col, uint32_t n, float eps) {
    for (uint32_t s = 0; s < GUARD_SAMPLES; ++s) {
        float q0[3], q1[3];
        row_position(t, f, base, cols, count, p, s, q0);
        row_position(t, f, blend, cols, count, p, s, q1);
        for (uint32_t c = 0; c < n; ++c) {
            float bound = fmaxf(fmaxf(rest_depth[c], 0), tl_collider_depth(&col[c], q0));
            if (tl_collider_depth(&col[c], q1) > bound + eps) return true;
        }
    }
    return false;
}

bool hair_seam_guard(const hair_seam_field* f, const uint8_t* band, const float* a0, float* a,
                     const tl_collider* col, uint32_t n, float turn, float eps) {
    if (n == 0 || f->chains->chain_count == 0) return true;
    guard_turns t = {0};
    float* tried = malloc(sizeof(float) * f->J);
    uint32_t* cols = malloc(sizeof(uint32_t) * f->J);
    float* rest_depth = malloc(sizeof(float) * n);
    bool ok = tried && cols && rest_depth && turns_build(&t, f->chains, col, n, turn, eps);
    for (size_t u = 0; ok && u < f->W; ++u) {
        if (!band[u]) continue;
        const float *p = f->positions + 3 * u, *r0 = a0 + u * f->J;
        float* r1 = a + u * f->J;
        uint32_t count = 0;
        for (size_t j = 0; j < f->J; ++j)
            if (r0[j] != 0 || r1[j] != 0) cols[count++] = (uint32_t)j;
        for (uint32_t c = 0; c < n; ++c)
            rest_depth[c] = tl_collider_depth(&col[c], p);
        float keep = 0;
        for (int level = GUARD_LEVELS; level > 0 && keep == 0; --level) {
            float k = (float)level / GUARD_LEVELS;
            for (uint32_t i = 0; i < count; ++i)
                tried[cols[i]] = r0[cols[i]] + k * (r1[cols[i]] - r0[cols[i]]);
            if (!blend_sinks(&t, f, r0, tried, cols, count, p, rest_depth, col, n, eps)) keep = k;
        }
        for (uint32_t i = 0; i < count; ++i)
            r1[cols[i]] = r0[cols[i]] + keep * (r1[cols[i]] - r0[cols[i]]);
    }
    free(t.bone), free(tried), free(cols), free(rest_depth);
    return ok;
}
