/* The hair's seam weights fitted to the motion (docs/hair.md "Session 26 (hairfit26)"): the
 * welded hair vertices on an edge whose two ends share almost no weight, and a few rings beside
 * them, get weights over the joints around them that keep every hair edge near its rest length
 * in poses of the character's clips played with the chains, and that take no vertex deeper into
 * a body collider than its input weights put it in any of those poses. Run by tailor rig after
 * the weights and the play data (--hair-fit): the player then plays the stored play data, which
 * the new weights do not change, so the fitted poses are the motion that plays. */
#ifndef TAILOR_HAIR_SEAM_FIT_H
#define TAILOR_HAIR_SEAM_FIT_H

#include <tailor/scene.h>

#include <stdbool.h>
#include <stdint.h>

enum { HAIR_QP_MAX = 8 };    /* candidate joints per vertex */
enum { HAIR_FIT_PLAYS = 4 }; /* plays of each clip the poses come from */

typedef struct hair_seam_fit_def {
    float jump;     /* an edge is a seam when half the L1 distance of its ends' weights is at
                       least this; 0.5 */
    uint32_t rings; /* rings of vertices beside the seams also fitted; 3 */
    uint32_t samples[HAIR_FIT_PLAYS]; /* each clip played this many times (0: no more plays),
                         the player advanced to that many poses evenly over it; a pose is
                         one sample. The chains' state at a time depends on the steps the
                         player was advanced by (a jump's contacts most), so the poses of one
                         play alone do not hold the hair out of the body in another: 48, 36,
                         30 */
    uint32_t sweeps;                  /* Gauss-Seidel sweeps over the band; 30 */
    float pull;        /* toward the input weights, times the spread of each vertex's normal
                          matrix (trace - sum / K); 0.01 */
    bool colliders;    /* the body-collider half-spaces (off: measured only); true */
    const char* clips; /* comma-separated clip names; NULL: every clip of the file (the first
                          64) */
} hair_seam_fit_def;

hair_seam_fit_def hair_default_seam_fit_def(void);

typedef struct hair_seam_fit_report {
    uint32_t seams;         /* welded hair edges with a weight jump >= def.jump */
    uint32_t free_vertices; /* welded vertices fitted */
    uint32_t changed;       /* union vertices whose weights changed */
    uint32_t poses;         /* clips x samples */
    uint32_t planes;        /* collider half-spaces kept at the end */
    uint32_t floor_kept;    /* seam vertices left as they were: at or under the body floor */
    float deepest_input;    /* the deepest a free vertex lies in a body collider it is outside
                               at rest, in the fit's poses, with its input weights (H) */
    float deepest;          /* ... with the fitted weights */
    float excess;           /* the most a free vertex lies deeper than its input did (H) */
    uint32_t clip_count;    /* the clips fitted (scene clip indices) */
    uint32_t clips[64];
} hair_seam_fit_report;

/* What a weight fit sees and may change besides its def: the hair's seam band (hair_seam_fit) or
 * a cloth part's render vertices (src/rig/cloth_fit.c, docs/cloth.md "Session 27 (skirtfit27)"). */
typedef struct seam_fit_set {
    const uint8_t* mesh;   /* per skin vertex: welded into the mesh whose edges the fit keeps */
    const uint8_t* fitted; /* per skin vertex: its welded vertex fitted; NULL: the seams' ends
                              and def.rings rings beside them over the body floor (the hair's) */
    const uint32_t* extra; /* per skin vertex x extra_count: joints offered besides its own and
                              its neighbours' (UINT32_MAX: none); NULL: none */
    uint32_t extra_count;  /* 1 */
    uint32_t entered;      /* also the joints of the colliders each fitted vertex goes deepest
                              into in the poses with its input weights (at most 4); 0 (hair) */
    const uint8_t* kept;   /* per skin joint: a set whose summed weight stays at least `share`
                              (or the input's, when that is less); NULL: none */
    float share;           /* 0.501 (a cloth vertex stays the cloth's: more than half) */
    float push;            /* weight of the pull onto a collider's surface of a fitted point
                              inside it, per pose, against 1 for each kept edge; 0 (the hair) */
    double qp_step;        /* hair_qp_solve's step_min; 0: 1e-12 (the hair's) */
} seam_fit_set;

/* Half the L1 distance of vertices u and v's weights over joints: 1 where they share no joint,
 * 0 where their weights are equal (an edge is a seam at def.jump and above). */
float hair_seam_weight_jump(const tl_scene_skin* sk, uint32_t u, uint32_t v);

/* Fits skin `skin` of the scene. joints / weights: vertex_count x 4 out, filled where
 * changed[v] is set (the skin's other vertices keep theirs). No clip, no hair or no seam: nothing
 * changes (report->poses or report->seams 0). TL_ERROR_MEMORY when scratch memory fails. */
tl_result hair_seam_fit(const tl_scene* scene, uint32_t skin, const hair_seam_fit_def* def,
                        uint32_t* joints, float* weights, uint8_t* changed,
                        hair_seam_fit_report* report, tl_error* err);

/* The fit on any vertex set (hair_seam_fit is it on the hair's seams): the weights of the set's
 * fitted vertices over their candidates (their own joints, set->extra, then the heaviest joints
 * of their neighbours within def->rings + 1 edges, at most HAIR_QP_MAX), in the poses of the
 * player playing the file's clips (chains and cloth as stored). Same outputs as hair_seam_fit. */
tl_result seam_fit_run(const tl_scene* scene, uint32_t skin, const hair_seam_fit_def* def,
                       const seam_fit_set* set, uint32_t* joints, float* weights, uint8_t* changed,
                       hair_seam_fit_report* report, tl_error* err);

/* min 1/2 x'Qx - c'x over n <= HAIR_QP_MAX variables subject to sum(x) = 1 and the m rows
 * A x <= b (the caller's x >= 0 among them), from a feasible x (in and out); a step shorter than
 * step_min (largest entry) is none: 1e-12 (the hair's); the cloth's many near-parallel planes
 * need 1e-10, or rounding keeps it stepping to the iteration cap. Returns the iterations taken,
 * or -1 (singular or not converged: x stays feasible). */
int hair_qp_solve(int n, const double* Q, const double* c, int m, const double* A, const double* b,
                  double step_min, double* x);

#endif
