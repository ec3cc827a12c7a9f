/* The sheet's limit held from its ties (sheet_hold.h, docs/hair.md): no tie strays from its rest
 * offset (carried by the head, turned as its two links turn together) by more than the stretch
 * the seam's skin allows. */
#include "play/sheet_hold.h"

#include "base/mat4.h"

#include <tailor/colliders.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How far the skin between two locks may stretch, as a fraction of the seam's mean rest edge:
 * the allowance the solver's bend limits give a link's skin (spring-chain.md §4: outside-of-bend
 * stretch near 1.3). */
#define SHEET_SEAM_STRETCH 0.3f
/* Gauss-Seidel sweeps over the ties per frame (each tie shares particles with its neighbours) */
#define SHEET_SWEEPS 4
#define HEAD_TIE PLAY_SHEET_HEAD_TIE
/* What holding a tie did: nothing, as it lies within its allowance (which reads only its two
 * chains' particles and the attachment); nothing, as the body held both sides; moved particles */
enum { TIE_WITHIN, TIE_STAYED, TIE_MOVED };

typedef struct sheet_tie {
    uint32_t a, b;   /* chains */
    uint32_t ia, ib; /* their links (link i: particle i-1, or the root, to particle i) */
    float ta, tb;    /* the tied point along each link, 0 its head to 1 its tip */
    uint32_t along;  /* 0: the links' tips (ta = tb = 1); 1: the points beside the seam; 2: a head
                        tie (b = HEAD_TIE): a's point and its rest spot on the attachment */
    float seam;      /* the mean rest length of the skin edges that made it, world units */
    float slack;     /* the allowance, over the rest pose's scale */
    float span;      /* the most a sweep moves its particles: its rest length, over the scale */
    float offset[3]; /* b's particle from a's at rest, in the attachment's frame over the scale */
    float dir[3];    /* the two links' mean direction at rest, in the attachment's frame */
    /* found once for the sweeps: 1 - ta and 1 - tb; the links whose directions turn it
       (max(ia, 1), max(ib, 1)); whether it turns (a dir at rest, both links there); where the
       versions of the particles it reads lie (tie_version; a side's twice when it reads one) */
    float ua, ub;
    uint32_t la, lb;
    bool turns;
    uint32_t reads[4];
} sheet_tie;

struct play_sheet {
    uint32_t count, tie_count;
    sheet_tie* ties;
    float* pos;      /* per chain: 3 x TL_CHAIN_MAX_BONES, the working copy */
    float* moves;    /* per chain: 3 x TL_CHAIN_MAX_BONES */
    uint32_t* bones; /* per chain: its bone count, 0 when not tied */
    float* carried;  /* per tie: its offset and dir carried by the attachment, 6 (one frame's) */
    /* per chain and particle (TL_CHAIN_MAX_BONES a chain): its version, a new one from the clock
       whenever it moves in pos (a tie moves at most 2 of a chain's particles: only the links
       and ties that read those are found again); per link: its unit direction in pos as last
       found, whether it has one, and its version then (the later of its two particles') */
    float* link_dir;
    uint8_t* link_ok;
    uint64_t *link_seen, *version, clock;
    bool memo; /* false: every direction found anew, every sweep run (play_sheet_memo, tests) */
    uint32_t sweeps; /* the sweeps the last hold ran */
    /* across frames (a particle still from one frame to the next keeps its version, so a tie
       whose particles and attachment are as when it last held nothing holds nothing again):
       per particle the position it was handed last and the version it got; per chain its start
       pose and a version of it; per tie the latest version of what it reads (tie_version) when
       it last held nothing (0: not known) */
    float* fresh;
    uint64_t *fresh_version, *start_version, *tie_seen;
    tl_chain_pose* start;
    float* turn;      /* per chain: its start's rotation normalised (play_rotate's), 4 */
    bool started;     /* fresh and start hold a frame's */
    uint32_t skipped; /* the ties the last hold passed over so */
    /* per chain and collider (PLAY_SHEET_COLLIDERS_MAX a chain): a sphere around it this frame
       (tl_collider_sphere; a radius below 0: a plane, none); most of a hold's depth queries lie
       far from most of its chain's colliders. Per chain and particle (TL_CHAIN_MAX_BONES a
       chain): where it was when the hold began and a reach squared (4 floats), and the
       colliders whose spheres, grown for its link, come within that reach of it (near, near_n):
       a query within the reach needs no other */
    float* bound;
    float* ref;
    uint8_t *near, *near_n;
};

/* The particles a tie's side reads (its point's and its direction's link): those of link l,
 * or the first particle alone when the chain has one; as places in the sheet's versions. */
static void tie_reads(uint32_t chain, uint32_t bones, uint32_t l, uint32_t* out) {
    uint32_t at = chain * TL_CHAIN_MAX_BONES;
    out[0] = at + l - 1, out[1] = l < bones ? at + l : at + l - 1;
}

bool play_sheet_from_ties(const play_sheet_tie* ties, uint32_t tie_count, uint32_t count,
                          const uint32_t* bones, play_sheet** out) {
    *out = NULL;
    for (uint32_t k = 0; k < tie_count; ++k) {
        const play_sheet_tie* t = &ties[k];
        bool head = t->b == HEAD_TIE;
        if (t->a >= count || (!head && t->b >= count) || t->ia >= bones[t->a] ||
            (!head && t->ib >= bones[t->b]) || bones[t->a] > TL_CHAIN_MAX_BONES ||
            (!head && bones[t->b] > TL_CHAIN_MAX_BONES))
            return false;
    }
    if (tie_count == 0) return true;
    play_sheet* s = calloc(1, sizeof *s);
    if (!s) return false;
    s->count = count;
    s->tie_count = tie_count;
    s->ties = calloc(tie_count, sizeof *s->ties);
    s->pos = calloc(3 * TL_CHAIN_MAX_BONES * (size_t)count, sizeof(float));
    s->moves = calloc(3 * TL_CHAIN_MAX_BONES * (size_t)count, sizeof(float));
    s->bones = calloc(count, sizeof(uint32_t));
    s->carried = calloc(6 * (size_t)tie_count, sizeof(float));
    size_t links = (size_t)TL_CHAIN_MAX_BONES * count;
    s->link_dir = calloc(3 * links, sizeof(float));
    s->link_ok = calloc(links, 1);
    s->link_seen = calloc(links, sizeof(uint64_t));
    s->version = calloc(links, sizeof(uint64_t));
    s->fresh = calloc(3 * links, sizeof(float));
    s->fresh_version = calloc(links, sizeof(uint64_t));
    s->start_version = calloc(count, sizeof(uint64_t));
    s->start = calloc(count, sizeof(tl_chain_pose));
    s->turn = calloc(4 * (size_t)count, sizeof(float));
    s->tie_seen = calloc(tie_count, sizeof(uint64_t));
    s->bound = calloc(4 * PLAY_SHEET_COLLIDERS_MAX * (size_t)count, sizeof(float));
    s->ref = calloc(4 * links, sizeof(float));
    s->near = calloc(PLAY_SHEET_COLLIDERS_MAX * links, 1);
    s->near_n = calloc(links, 1);
    s->memo = true;
    if (!s->ties || !s->pos || !s->moves || !s->bones || !s->carried || !s->link_dir ||
        !s->link_ok || !s->link_seen || !s->version || !s->fresh || !s->fresh_version ||
        !s->start_version || !s->start || !s->tie_seen || !s->bound || !s->ref || !s->near ||
        !s->near_n || !s->turn)
        return play_sheet_destroy(s), false;
    for (uint32_t k = 0; k < tie_count; ++k) {
        const play_sheet_tie* t = &ties[k];
        sheet_tie* u = &s->ties[k]; /* (its rest zero until play_sheet_rest) */
        u->a = t->a, u->b = t->b, u->ia = t->ia, u->ib = t->ib;
        u->ta = t->ta, u->tb = t->tb, u->along = t->along, u->seam = t->seam;
        u->ua = 1 - t->ta, u->ub = 1 - t->tb;
        u->la = t->ia > 0 ? t->ia : 1, u->lb = t->ib > 0 ? t->ib : 1;
        tie_reads(t->a, bones[t->a], u->la, u->reads);
        if (t->b == HEAD_TIE)
            memcpy(u->reads + 2, u->reads, 2 * sizeof(uint32_t));
        else
            tie_reads(t->b, bones[t->b], u->lb, u->reads + 2);
        s->bones[t->a] = bones[t->a];
        if (t->b != HEAD_TIE) s->bones[t->b] = bones[t->b];
    }
    *out = s;
    return true;
}

void play_sheet_destroy(play_sheet* s) {
    if (!s) return;
    free(s->ties), free(s->pos), free(s->moves), free(s->bones), free(s->carried);
    free(s->link_dir), free(s->link_ok), free(s->link_seen), free(s->version);
    free(s->fresh), free(s->fresh_version), free(s->start_version), free(s->start);
    free(s->tie_seen), free(s->bound), free(s->ref), free(s->near), free(s->near_n), free(s->turn);
    free(s);
}

void play_sheet_memo(play_sheet* s, bool memo) {
    if (s) s->memo = memo;
}

uint32_t play_sheet_sweeps(const play_sheet* s) {
    return s ? s->sweeps : 0;
}

uint32_t play_sheet_skipped(const play_sheet* s) {
    return s ? s->skipped : 0;
}

uint32_t play_sheet_tie_count(const play_sheet* s) {
    return s ? s->tie_count : 0;
}

void play_rotate(const float* q, const float* v, float* out, bool inverse) {
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), sign = inverse ? -1 : 1;
    float u[4] = {sign * q[0] / n, sign * q[1] / n, sign * q[2] / n, q[3] / n};
    tl_quat_rotate(out, u, v);
}

static bool unit(float* v) {
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0)) return false;
    v[0] /= n, v[1] /= n, v[2] /= n;
    return true;
}

/* The mean direction of the tie's two links (a particle's link: from the one before it; the
 * first particle's, having none, the next link's). False: none (a one-link chain). */
static bool tie_direction(const sheet_tie* t, const float* a, uint32_t na, const float* b,
                          uint32_t nb, float* out) {
    float da[3], db[3];
    uint32_t ia = t->ia > 0 ? t->ia : 1, ib = t->ib > 0 ? t->ib : 1;
    if (ia >= na || ib >= nb) return false;
    for (int c = 0; c < 3; ++c)
        da[c] = a[3 * ia + c] - a[3 * (ia - 1) + c], db[c] = b[3 * ib + c] - b[3 * (ib - 1) + c];
    if (!unit(da) || !unit(db)) return false;
    for (int c = 0; c < 3; ++c)
        out[c] = da[c] + db[c];
    return unit(out);
}

/* The later of two versions. */
static uint64_t later(uint64_t a, uint64_t b) {
    return a > b ? a : b;
}

/* Link i's unit direction of chain c in the working copy (tie_direction's), found again only
 * when one of its two particles moved since; NULL: none. */
static inline const float* link_unit(play_sheet* s, uint32_t c, uint32_t i) {
    size_t at = (size_t)c * TL_CHAIN_MAX_BONES + i;
    float* d = s->link_dir + 3 * at;
    uint64_t v = later(s->version[at - 1], s->version[at]);
    if (!s->memo || s->link_seen[at] != v) {
        const float *p = s->pos + 3 * TL_CHAIN_MAX_BONES * (size_t)c + 3 * i, *q = p - 3;
        d[0] = p[0] - q[0], d[1] = p[1] - q[1], d[2] = p[2] - q[2];
        s->link_ok[at] = unit(d);
        s->link_seen[at] = v;
    }
    return s->link_ok[at] ? d : NULL;
}

/* tie_direction over the working copy of a tie that turns, its links' directions through
 * link_unit. */
static inline bool tie_direction_held(play_sheet* s, const sheet_tie* t, float* out) {
    const float *da = link_unit(s, t->a, t->la), *db = da ? link_unit(s, t->b, t->lb) : NULL;
    if (!db) return false;
    out[0] = da[0] + db[0], out[1] = da[1] + db[1], out[2] = da[2] + db[2];
    return unit(out);
}

/* v turned by the shortest arc that carries unit n0 to unit n1 (none when they are opposite). */
static inline void arc_turn(const float* n0, const float* n1, const float* v, float* out) {
    float k[3] = {n0[1] * n1[2] - n0[2] * n1[1], n0[2] * n1[0] - n0[0] * n1[2],
                  n0[0] * n1[1] - n0[1] * n1[0]};
    float c = n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2];
    if (!(c > -0.999f)) {
        memcpy(out, v, 3 * sizeof(float));
        return;
    }
    float kv[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
    float kd = (k[0] * v[0] + k[1] * v[1] + k[2] * v[2]) / (1 + c);
    out[0] = c * v[0] + kv[0] + kd * k[0];
    out[1] = c * v[1] + kv[1] + kd * k[1];
    out[2] = c * v[2] + kv[2] + kd * k[2];
}

/* The tied point of link i at t, from a chain's particles (the first link's: its tip). */
static void tie_point(const float* pos, uint32_t i, float t, float* out) {
    for (int c = 0; c < 3; ++c)
        out[c] = i == 0 ? pos[c] : (1 - t) * pos[3 * (i - 1) + c] + t * pos[3 * i + c];
}

/* tie_point of a tie's side, 1 - t given. */
static inline void side_point(const float* pos, uint32_t i, float t, float u, float* out) {
    if (i == 0) {
        out[0] = pos[0], out[1] = pos[1], out[2] = pos[2];
        return;
    }
    /* (written out: the hold is bound by its instruction count, and -O2 keeps 3-loops) */
    const float *p = pos + 3 * (i - 1), *q = pos + 3 * i;
    out[0] = u * p[0] + t * q[0], out[1] = u * p[1] + t * q[1], out[2] = u * p[2] + t * q[2];
}

/* A head tie's rest: its point's offset from the attachment, in the attachment's frame over the
 * scale; its allowance the seam ties', its sweep at most its seam edge. */
static void head_tie_rest(sheet_tie* t, const float* a, const tl_chain_input* in) {
    float scale = in->start.scale > 0 ? in->start.scale : 1, p[3], d[3];
    tie_point(a, t->ia, t->ta, p);
    for (int c = 0; c < 3; ++c)
        d[c] = (p[c] - in->start.position[c]) / scale;
    play_rotate(in->start.rotation, d, t->offset, true);
    memset(t->dir, 0, sizeof t->dir);
    t->slack = SHEET_SEAM_STRETCH * t->seam / scale;
    t->span = t->seam / scale;
}

void play_sheet_rest(play_sheet* s, tl_chain* const* chains, const tl_chain_input* inputs) {
    if (!s) return;
    s->started = false; /* the ties' rest changes: what they held before says nothing */
    for (uint32_t k = 0; k < s->tie_count; ++k) {
        sheet_tie* t = &s->ties[k];
        const float* a = tl_chain_particle_positions(chains[t->a]);
        if (t->b == HEAD_TIE) {
            head_tie_rest(t, a, &inputs[t->a]);
            continue;
        }
        const float* b = tl_chain_particle_positions(chains[t->b]);
        const float* q = inputs[t->a].start.rotation;
        float scale = inputs[t->a].start.scale > 0 ? inputs[t->a].start.scale : 1;
        float d[3], n[3] = {0, 0, 0}, pa[3], pb[3];
        tie_point(a, t->ia, t->ta, pa), tie_point(b, t->ib, t->tb, pb);
        for (int c = 0; c < 3; ++c)
            d[c] = (pb[c] - pa[c]) / scale;
        play_rotate(q, d, t->offset, true);
        if (tie_direction(t, a, s->bones[t->a], b, s->bones[t->b], d)) play_rotate(q, d, n, true);
        memcpy(t->dir, n, sizeof n);
        t->turns = (n[0] != 0 || n[1] != 0 || n[2] != 0) && t->la < s->bones[t->a] &&
                   t->lb < s->bones[t->b];
        t->slack = SHEET_SEAM_STRETCH * t->seam / scale;
        t->span = sqrtf(t->offset[0] * t->offset[0] + t->offset[1] * t->offset[1] +
                        t->offset[2] * t->offset[2]) +
                  t->seam / scale;
    }
}

/* A chain's colliders as the hold reads them: the body and the sheet's spheres and near lists
 * of the chain this frame, and its bone count. */
typedef struct hold_body {
    const play_sheet_body* body;
    const float *bound, *ref;
    const uint8_t *near, *near_n;
    uint32_t bones;
} hold_body;

static hold_body hold_body_of(const play_sheet* s, const play_sheet_body* bodies, uint32_t chain) {
    size_t links = (size_t)TL_CHAIN_MAX_BONES * chain;
    return (hold_body){bodies + chain,     s->bound + 4 * (size_t)PLAY_SHEET_COLLIDERS_MAX * chain,
                       s->ref + 4 * links, s->near + PLAY_SHEET_COLLIDERS_MAX * links,
                       s->near_n + links,  s->bones[chain]};
}

/* Collider k's depth at p grown for the link, or `deepest` when that is deeper; passed over
 * when p lies outside its sphere so grown (its depth there is <= 0). */
static inline float collider_deeper(const hold_body* h, uint32_t k, uint32_t link, const float* p,
                                    float deepest) {
    float grow = h->body->growth ? h->body->growth[k * h->bones + link] : 0;
    if (!isfinite(grow)) return deepest; /* -INFINITY: the link is free of it */
    const float* b = h->bound + 4 * k;
    if (b[3] >= 0) {
        float reach = b[3] + grow, e[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
        if (!(reach > 0) || e[0] * e[0] + e[1] * e[1] + e[2] * e[2] >= reach * reach)
            return deepest;
    }
    float d = tl_collider_depth(&h->body->colliders[k], p) + grow;
    return d > deepest ? d : deepest;
}

/* How deep p is in the colliders of a chain's link (grown for it; a link free of one: not),
 * where that is above 0; <= 0 (or -INFINITY) when it is outside all. Near the link's particle
 * as the hold began, only the colliders near it are read (the others' depth is <= 0 there). */
static inline float body_depth(const hold_body* h, uint32_t link, const float* p) {
    float deepest = -INFINITY;
    const float* r = h->ref + 4 * link;
    float e[3] = {p[0] - r[0], p[1] - r[1], p[2] - r[2]};
    if (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] < r[3]) {
        const uint8_t* near = h->near + PLAY_SHEET_COLLIDERS_MAX * link;
        for (uint32_t n = 0, count = h->near_n[link]; n < count; ++n)
            deepest = collider_deeper(h, near[n], link, p, deepest);
        return deepest;
    }
    for (uint32_t k = 0, count = h->body->count; k < count; ++k)
        deepest = collider_deeper(h, k, link, p, deepest);
    return deepest;
}

/* Each collider's sphere, and each particle's near colliders within a reach of a link length
 * (the rest of a hold's moves are rarely longer; a query beyond it reads them all). */
static void hold_near(play_sheet* s, const play_sheet_body* bodies) {
    for (uint32_t i = 0; i < s->count; ++i) {
        assert(bodies[i].count <= PLAY_SHEET_COLLIDERS_MAX);
        float* bound = s->bound + 4 * (size_t)PLAY_SHEET_COLLIDERS_MAX * i;
        for (uint32_t k = 0; k < bodies[i].count; ++k)
            if (!s->memo || !tl_collider_sphere(&bodies[i].colliders[k], bound + 4 * k))
                bound[4 * k + 3] = -1; /* (read whatever the point: a plane, or for tests) */
        const float* x = s->pos + 3 * (size_t)TL_CHAIN_MAX_BONES * i;
        for (uint32_t j = 0; j < s->bones[i]; ++j) {
            float* r = s->ref + 4 * ((size_t)TL_CHAIN_MAX_BONES * i + j);
            uint8_t* near =
                s->near + PLAY_SHEET_COLLIDERS_MAX * ((size_t)TL_CHAIN_MAX_BONES * i + j);
            uint8_t* n = s->near_n + (size_t)TL_CHAIN_MAX_BONES * i + j;
            const float* a = j > 0 ? x + 3 * (j - 1) : x + 3 * (j + 1 < s->bones[i] ? j + 1 : j);
            float e[3] = {x[3 * j] - a[0], x[3 * j + 1] - a[1], x[3 * j + 2] - a[2]};
            float reach = sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
            memcpy(r, x + 3 * j, 3 * sizeof(float));
            r[3] = s->memo ? 0.99f * reach * reach : 0, *n = 0;
            for (uint32_t k = 0; k < bodies[i].count; ++k) {
                const float* b = bound + 4 * k;
                float grow = bodies[i].growth ? bodies[i].growth[k * s->bones[i] + j] : 0;
                if (!isfinite(grow)) continue;
                float far = b[3] + grow + reach, c[3] = {r[0] - b[0], r[1] - b[1], r[2] - b[2]};
                if (b[3] < 0 || c[0] * c[0] + c[1] * c[1] + c[2] * c[2] < far * far)
                    near[(*n)++] = (uint8_t)k;
            }
        }
    }
}

/* Would moving p by g * d take it deeper into its link's colliders? (Only depths above 0
 * decide it, so the colliders body_depth passes over change nothing.) */
static inline bool goes_deeper(const hold_body* h, uint32_t link, const float* p, const float* d,
                               float g) {
    float q[3] = {p[0] + g * d[0], p[1] + g * d[1], p[2] + g * d[2]};
    float after = body_depth(h, link, q);
    if (!(after > 0)) return false;
    return after > body_depth(h, link, p);
}

/* A tie's side: the particles its point moves with (the link's two ends, or the first link's
 * tip alone) and their weights. Returns how many. */
static int side_particles(uint32_t link, float t, uint32_t* idx, float* w) {
    if (link == 0) return idx[0] = 0, w[0] = 1, 1;
    idx[0] = link - 1, w[0] = 1 - t, idx[1] = link, w[1] = t;
    return 2;
}

/* Would moving the side's particles by g * w_k * d take one deeper into its link's colliders? */
static bool side_goes_deeper(const hold_body* body, const float* pos, const uint32_t* idx,
                             const float* w, int n, const float* d, float g) {
    if (!body->body || body->body->count == 0) return false;
    for (int k = 0; k < n; ++k)
        if (w[k] > 0 && goes_deeper(body, idx[k], pos + 3 * idx[k], d, g * w[k])) return true;
    return false;
}

/* x moved by f * d. */
static inline void particle_move(float* x, float f, const float* d) {
    x[0] += f * d[0], x[1] += f * d[1], x[2] += f * d[2];
}

/* A head tie held: the link's point drawn towards its rest spot carried by the attachment (its
 * pose at the frame's end), past the allowance, at most its seam a sweep; the chain's side alone
 * moves, and not when that takes one of its particles deeper into its link's colliders. */
static int head_tie_hold(play_sheet* s, const sheet_tie* t, const float* o,
                         const tl_chain_input* in, const hold_body* body) {
    float* xa = s->pos + 3 * TL_CHAIN_MAX_BONES * t->a;
    float sc = in->start.scale > 0 ? in->start.scale : 1, pa[3], d[3];
    side_point(xa, t->ia, t->ta, t->ua, pa);
    for (int c = 0; c < 3; ++c)
        d[c] = in->start.position[c] + sc * o[c] - pa[c];
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > sc * t->slack)) return TIE_WITHIN;
    float e = fminf(len - sc * t->slack, sc * t->span) / len;
    uint32_t ia[2];
    float wa[2], sa = 0;
    int na = side_particles(t->ia, t->ta, ia, wa);
    for (int k = 0; k < na; ++k)
        sa += wa[k] * wa[k];
    if (!(sa > 0) || side_goes_deeper(body, xa, ia, wa, na, d, e / sa)) return TIE_STAYED;
    uint64_t now = ++s->clock, *va = s->version + (size_t)TL_CHAIN_MAX_BONES * t->a;
    for (int k = 0; k < na; ++k)
        particle_move(xa + 3 * ia[k], e * wa[k] / sa, d);
    for (int k = 0; k < na; ++k)
        va[ia[k]] = now;
    return TIE_MOVED;
}

/* One tie held: its excess over the allowance closed, at most its rest span a sweep. `o` and
 * `n0` are its offset and dir carried by the attachment (tie_carry). What it did (TIE_*). */
static int tie_hold(play_sheet* s, const sheet_tie* t, const float* o, const float* n0,
                    const tl_chain_input* inputs, const play_sheet_body* bodies) {
    const size_t per = 3 * TL_CHAIN_MAX_BONES;
    if (t->b == HEAD_TIE) {
        hold_body h = hold_body_of(s, bodies, t->a);
        return head_tie_hold(s, t, o, &inputs[t->a], &h);
    }
    float* xa = s->pos + per * t->a;
    float* yb = s->pos + per * t->b;
    float sc = inputs[t->a].start.scale, n1[3], turned[3], pa[3], pb[3];
    float most = sc * t->slack;
    /* the rest offset carried by the attachment, then turned as the two links turned
       together: a sheet swinging as one keeps its offsets, a lock swinging past its
       neighbour (out of the sheet, which the points' distance barely sees) does not */
    if (t->turns && tie_direction_held(s, t, n1))
        arc_turn(n0, n1, o, turned);
    else
        memcpy(turned, o, sizeof turned);
    side_point(xa, t->ia, t->ta, t->ua, pa), side_point(yb, t->ib, t->tb, t->ub, pb);
    float d[3] = {pb[0] - pa[0] - sc * turned[0], pb[1] - pa[1] - sc * turned[1],
                  pb[2] - pa[2] - sc * turned[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > most)) return TIE_WITHIN;
    /* the excess to close; a sweep closes no more than the tie's own rest span: a lock swung
       far past a neighbour held by the body is drawn back over frames, not yanked through in
       one (long01's Jump flung a lock end 0.6 m, docs/hair.md) */
    float e = fminf(len - most, sc * t->span) / len;
    uint32_t ia[2], ib[2];
    float wa[2], wb[2];
    int na = side_particles(t->ia, t->ta, ia, wa), nb = side_particles(t->ib, t->tb, ib, wb);
    float sa = 0, sb = 0;
    for (int k = 0; k < na; ++k)
        sa += wa[k] * wa[k];
    for (int k = 0; k < nb; ++k)
        sb += wb[k] * wb[k];
    /* each particle moves by its weight over the sum of squares, so the points close the excess
       (half from each side); a side that would go deeper into the body stays */
    hold_body hx = hold_body_of(s, bodies, t->a), hy = hold_body_of(s, bodies, t->b);
    bool x_stays = side_goes_deeper(&hx, xa, ia, wa, na, d, e / (sa + sb));
    bool y_stays = side_goes_deeper(&hy, yb, ib, wb, nb, d, -e / (sa + sb));
    if (x_stays && y_stays) return TIE_STAYED;
    float w = (x_stays ? 0 : sa) + (y_stays ? 0 : sb);
    if (!(w > 0)) return TIE_STAYED;
    for (int k = 0; k < na && !x_stays; ++k)
        particle_move(xa + 3 * ia[k], e * wa[k] / w, d);
    for (int k = 0; k < nb && !y_stays; ++k)
        particle_move(yb + 3 * ib[k], -(e * wb[k] / w), d);
    uint64_t now = ++s->clock, *va = s->version + (size_t)TL_CHAIN_MAX_BONES * t->a,
             *vb = s->version + (size_t)TL_CHAIN_MAX_BONES * t->b;
    for (int k = 0; k < na && !x_stays; ++k)
        va[ia[k]] = now;
    for (int k = 0; k < nb && !y_stays; ++k)
        vb[ib[k]] = now;
    return TIE_MOVED;
}

/* Copies each chain's particles in (a particle's version kept when it is where it was handed
 * last frame) and notes each chain's start pose (a new version when it changed). */
static void hold_begin(play_sheet* s, tl_chain* const* chains, const tl_chain_input* inputs) {
    const size_t per = 3 * TL_CHAIN_MAX_BONES;
    bool keep = s->memo && s->started;
    for (uint32_t i = 0; i < s->count; ++i) {
        float *to = s->pos + per * i, *fresh = s->fresh + per * i;
        uint64_t *v = s->version + TL_CHAIN_MAX_BONES * (size_t)i,
                 *fv = s->fresh_version + TL_CHAIN_MAX_BONES * (size_t)i, now = ++s->clock;
        size_t bytes = 3 * sizeof(float) * s->bones[i];
        if (bytes > 0) memcpy(to, tl_chain_particle_positions(chains[i]), bytes);
        for (uint32_t j = 0; j < s->bones[i]; ++j) {
            if (keep && memcmp(fresh + 3 * j, to + 3 * j, 3 * sizeof(float)) == 0) {
                v[j] = fv[j]; /* the same particle: the same version */
            } else {
                memcpy(fresh + 3 * j, to + 3 * j, 3 * sizeof(float));
                v[j] = fv[j] = now; /* copied anew */
            }
        }
        if (!keep || memcmp(&s->start[i], &inputs[i].start, sizeof s->start[i]) != 0) {
            s->start[i] = inputs[i].start, s->start_version[i] = ++s->clock;
            const float* q = inputs[i].start.rotation;
            float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            float* u = s->turn + 4 * (size_t)i;
            u[0] = q[0] / n, u[1] = q[1] / n, u[2] = q[2] / n, u[3] = q[3] / n;
        }
    }
    s->started = true;
}

/* The latest version of what holding a tie within its allowance reads: its sides' particles
 * (tie_reads) and its attachment's start. Versions come from one clock and a particle given an
 * old one back is where it was then, so the same latest version means the same inputs. */
static inline uint64_t tie_version(const play_sheet* s, const sheet_tie* t) {
    const uint64_t* v = s->version;
    return later(
        later(later(v[t->reads[0]], v[t->reads[1]]), later(v[t->reads[2]], v[t->reads[3]])),
        s->start_version[t->a]);
}

void play_sheet_hold(play_sheet* s, tl_chain* const* chains, const tl_chain_input* inputs,
                     const play_sheet_body* bodies) {
    if (!s) return;
    const size_t per = 3 * TL_CHAIN_MAX_BONES;
    uint64_t before = s->clock;
    hold_begin(s, chains, inputs);
    hold_near(s, bodies);
    /* the attachments do not move within a frame: each tie's rest vectors carried once, and
       again only when its attachment moved */
    for (uint32_t k = 0; k < s->tie_count; ++k) {
        const sheet_tie* t = &s->ties[k];
        if (s->start_version[t->a] <= before) continue; /* (carried as last frame) */
        float* c = s->carried + 6 * (size_t)k;
        const float* q = s->turn + 4 * (size_t)t->a; /* (play_rotate's, normalised once) */
        tl_quat_rotate(c, q, t->offset);
        if (t->b != HEAD_TIE) tl_quat_rotate(c + 3, q, t->dir);
    }
    /* a sweep that moves nothing leaves every input of the next as it found them (the frame's
       carried vectors and bodies, the copy), so the sweeps after it would move nothing either:
       a sheet at rest (the rest settle) holds in one sweep. A tie that lay within its
       allowance is passed over while its particles' and attachment's versions are the same. */
    bool moved = true;
    s->sweeps = s->skipped = 0;
    for (int sweep = 0; sweep < SHEET_SWEEPS && (moved || !s->memo); ++sweep, ++s->sweeps) {
        moved = false;
        for (uint32_t k = 0; k < s->tie_count; ++k) {
            const sheet_tie* t = &s->ties[k];
            uint64_t v = tie_version(s, t);
            if (s->memo && s->tie_seen[k] == v) {
                ++s->skipped;
                continue;
            }
            int held = tie_hold(s, t, s->carried + 6 * (size_t)k, s->carried + 6 * (size_t)k + 3,
                                inputs, bodies);
            s->tie_seen[k] = held == TIE_WITHIN ? v : 0;
            moved |= held == TIE_MOVED;
        }
    }
    for (uint32_t i = 0; i < s->count; ++i) {
        if (s->bones[i] == 0) continue;
        const float* now = tl_chain_particle_positions(chains[i]);
        const float* to = s->pos + per * i;
        float* m = s->moves + per * i;
        for (uint32_t k = 0; k < 3 * s->bones[i]; ++k)
            m[k] = to[k] - now[k];
        tl_chain_particles_move(chains[i], m);
    }
}
