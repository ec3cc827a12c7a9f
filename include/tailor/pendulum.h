/* tailor/pendulum.h — the other parts of a cloth rig (cloth.md §10): a one-particle Verlet
 * pendulum with a look-at (a hood, a tassel) and an aim constraint (a shoulder pad aiming at
 * the shoulder so a raised arm lifts it).
 *
 * The pendulum hangs one particle at `length` from a pivot (the hood bone's joint) and swings
 * it under gravity, damping and a spring toward its rest direction, inside a cone about that
 * direction; the bone then looks at the particle: its rotation is the pivot's rotation turned
 * by the shortest arc from the rest direction to the particle's (no twist). Fixed internal
 * steps as the chain and the cloth take (the pivot interpolated across them).
 *
 *     tl_pendulum_def def = tl_default_pendulum_def();
 *     def.length = 0.25f * scale, def.scale = scale;   // the hood bone's length
 *     memcpy(def.rest_direction, bone_axis_in_pivot_frame, sizeof def.rest_direction);
 *     tl_pendulum hood;
 *     if (tl_pendulum_init(&hood, &def, &err) != TL_OK) ...;
 *     for (each frame) {
 *         tl_pendulum_step(&hood, &pivot_world_pose_now, dt);
 *         tl_pendulum_rotation(&hood, bone_world_rotation);
 *     }
 *
 * Ownership: a tl_pendulum is a plain struct the caller owns (no allocation anywhere: the
 * step cannot allocate); copy it to fork a state. Quaternions are (x, y, z, w) as in glTF.
 */
#ifndef TAILOR_PENDULUM_H
#define TAILOR_PENDULUM_H

#include <tailor/base.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_pendulum_def {
    float length;            /* pivot to particle, world units; 0.2 (x scale: a hood) */
    float rest_direction[3]; /* in the pivot's frame, the direction the particle rests in
                                (normalised at init); (0, -1, 0) */
    float up[3];             /* the world's up (gravity points down it); (0, 1, 0) */
    float scale;             /* model height / 1.8 m in world units; 1 */
    float gravity;           /* m/s^2 (x scale); 9.81 */
    float damping;           /* share of the particle's velocity lost per fixed step, [0, 1);
                                0.05 */
    float stiffness;         /* share of the way to the rest direction (carried by the pivot)
                                the particle is pulled per fixed step, [0, 1]; 0.02 (0: hangs
                                where gravity puts it) */
    float max_angle_deg;     /* the cone about the rest direction the particle stays in,
                                degrees, (0, 180]; 60 */
    float fixed_step;        /* internal step, s; 1/120 */
    int max_substeps;        /* internal steps one frame may run (longer frames run these over
                                the whole frame); 8 */
    float teleport_distance; /* a pivot jump longer than this within one frame carries the
                                particle rigidly, m (x scale); 1 */
} tl_pendulum_def;

tl_pendulum_def tl_default_pendulum_def(void);

typedef struct tl_pendulum {
    tl_pendulum_def def;
    float position[3];     /* the particle, world */
    float previous[3];     /* the particle one internal step ago, world */
    tl_chain_pose pivot;   /* the pivot at the last frame's end */
    tl_chain_pose stepped; /* the pivot at the last internal step: the frame the particle was
                              last kept in its cone in (the look-at and the swing are taken in
                              it, then shown under `pivot`: the time left in the accumulator
                              moves the pivot, not the particle's place in its frame) */
    float accumulator;     /* time since the last internal step, s */
    bool started;          /* false: the next step places the particle at rest */
    uint32_t steps;        /* internal steps run */
    uint32_t teleports;    /* pivot jumps carried */
    uint32_t nonfinite;    /* frames with non-finite input (ignored, the pendulum restarted) */
} tl_pendulum;

/* Checks the def (it may come from a file: TL_ERROR_INVALID names the field) and puts the
 * pendulum in its not-started state. */
tl_result tl_pendulum_init(tl_pendulum* pendulum, const tl_pendulum_def* def, tl_error* err);

/* The particle at rest along its rest direction under the pivot, still. */
void tl_pendulum_reset(tl_pendulum* pendulum, const tl_chain_pose* pivot);

/* A cut (a respawn, a loop's wrap): the pivot jumps to `pivot` and the particle is carried
 * rigidly with it, keeping its place and velocity in the pivot's frame (not started: placed at
 * rest). What a pivot jump beyond teleport_distance does inside tl_pendulum_step. */
void tl_pendulum_carry(tl_pendulum* pendulum, const tl_chain_pose* pivot);

/* Advances dt seconds (>= 0) with the pivot moving from its last pose to `pivot` (world).
 * The first step after init starts at rest. */
void tl_pendulum_step(tl_pendulum* pendulum, const tl_chain_pose* pivot, float dt);

/* The bone's world rotation: the pivot's, turned by the shortest arc taking the rest
 * direction to the particle's direction in the pivot's frame at the last internal step (the
 * look-at; within the cone at any frame time, on the fixed-step grid or not). */
void tl_pendulum_rotation(const tl_pendulum* pendulum, float rotation[4]);

/* The angle between the particle's direction and the rest direction (the pivot's frame at
 * the last internal step), degrees. */
float tl_pendulum_swing_deg(const tl_pendulum* pendulum);

/* An aim constraint: a bone turned so that one of its axes points at a target. */
typedef struct tl_aim_def {
    float aim_axis[3];   /* the bone's local axis that points at the target; (1, 0, 0) */
    float weight;        /* share of the turn applied, [0, 1]; 1 */
    float max_angle_deg; /* the most the aim turns the bone from its given rotation, degrees,
                            [0, 180]; 45 (a shoulder pad follows the arm part way) */
} tl_aim_def;

tl_aim_def tl_default_aim_def(void);

/* `rotation` (the bone's world rotation before the constraint) turned by the shortest arc
 * taking its aim axis toward `target` from `position` (world), limited to max_angle_deg and
 * scaled by weight, into `out` (may alias rotation). A target at the position leaves it. */
void tl_aim_solve(const tl_aim_def* def, const float rotation[4], const float position[3],
                  const float target[3], float out[4]);

#ifdef __cplusplus
}
#endif

#endif
