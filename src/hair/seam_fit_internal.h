/* The seam fit's state, shared by seam_fit.c (the poses and the sweeps) and seam_pick.c (which
 * vertices it welds and frees, and their candidate joints). Not part of the public API. */
#ifndef TAILOR_HAIR_SEAM_FIT_INTERNAL_H
#define TAILOR_HAIR_SEAM_FIT_INTERNAL_H

#include "hair/seam_fit.h"

#include <tailor/colliders.h>

enum { K_MAX = HAIR_QP_MAX, PAIR_NONE = 0, PAIR_PLANE = 1, PAIR_STRICT = 2 };

/* A (pose, collider) a free vertex can reach: its input depth and, once violated, its plane. */
typedef struct fit_pair {
    uint32_t t, c;
    uint8_t state; /* PAIR_NONE, PAIR_PLANE (may come in to the surface), PAIR_STRICT (no deeper
                      than the input point along the normal) */
    float depth;   /* the input point's depth (<= 0 outside) */
    float n[3];    /* outward normal at the input point */
} fit_pair;

typedef struct fit {
    const tl_scene* scene;
    const tl_scene_skin* sk;
    hair_seam_fit_def def;
    const seam_fit_set* set;
    uint32_t T, C, J;
    const tl_body_collider* body; /* C: the colliders' joints */
    tl_body_collider body_store[TL_BODY_COLLIDERS_MAX];
    float* mats;        /* T x J x 16 */
    tl_collider* world; /* T x C */
    float* spheres;     /* T x C x 4: a sphere around each (tl_collider_sphere); radius -1: none */
    uint8_t* rest_in;   /* per free vertex x collider: inside at rest (not held, as measured) */
    int32_t* weld;      /* per union vertex: its welded hair vertex, or -1 */
    uint32_t nw, *rep;  /* welded vertices and a union vertex of each */
    uint32_t *adj_start, *adj;
    uint32_t nf, *free_w; /* free welded vertices */
    int32_t* fidx;        /* welded -> free index or -1 */
    uint32_t* cand;       /* nf x K_MAX joints */
    uint8_t* kc;          /* candidates per free vertex */
    double *w, *win;      /* nf x K_MAX */
    float* P;             /* nf x T x K_MAX x 3: candidate k's position of the vertex */
    float* X;             /* nw x T x 3: positions (band vertices only) */
    double* H0;           /* nf x K_MAX^2: sum over t of P_t' P_t */
    uint32_t* pair_start; /* nf + 1 */
    fit_pair* pairs;
} fit;

static inline void skin_point(const float* m, const float* b, float* out) {
    for (int i = 0; i < 3; ++i)
        out[i] = m[i] * b[0] + m[4 + i] * b[1] + m[8 + i] * b[2] + m[12 + i];
}

static inline float dot3(const float* a, const float* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Vertex v's weight on joint j. */
float seam_weight_on(const tl_scene_skin* sk, uint32_t v, uint32_t j);
/* The set's mesh welded (the same rest position) and its edges (f->weld, rep, adj). */
bool seam_weld_mesh(fit* f);
/* The body floor as the player finds it (the hair's: seam vertices at or under it stay). */
float seam_body_floor(const fit* f, uint32_t skin);
/* The free vertices: the set's, or the seams' ends over the floor and def.rings rings. */
bool seam_pick_free(fit* f, float floor, hair_seam_fit_report* rep);
/* Each free vertex's candidate joints and input weights (the poses sampled first). */
bool seam_pick_candidates(fit* f);

#endif
