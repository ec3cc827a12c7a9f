/* tailor — the runtime cloth solver: a low-resolution Verlet lattice whose particles drive
 * ordinary skinning bones (capes, skirts, coat tails).
 *
 * A cloth is a lattice of rows x columns particles hanging from row 0, which is pinned to the
 * body. Each fixed step integrates the free particles with Verlet and damping under gravity and
 * an external force, relaxes two constraint groups with their own stiffness (stretch: the
 * immediate neighbours; shear/bend: diagonals and neighbours' neighbours), then runs one final
 * pass from the top row down that puts every particle on its vertical rest length from the one
 * above it (a hard tether: no rubber), inside its safe distance from its skinned rest position
 * (max distance) and outside the body's colliders. The cloth is simulated in the character's
 * local frame with a share of the world motion (10-30%: running does not blow every skirt
 * backwards). Specification: cloth.md in the shared spec folder; the manual is docs/cloth.md.
 *
 * Example (one skirt, a 60 fps player):
 *
 *     tl_cloth_def def = tl_default_cloth_def();
 *     def.rows = 6, def.columns = 16, def.closed = true;
 *     def.rest_positions = p;       // rows x columns x 3, rest-world frame, row-major
 *     def.scale = model_height / 1.8f;
 *     tl_cloth_model* model;        // shared by every character wearing this skirt
 *     if (tl_cloth_model_create(&def, NULL, &model, &err) != TL_OK) ...;
 *     tl_cloth* cloth;
 *     if (tl_cloth_create(model, NULL, &cloth, &err) != TL_OK) ...;
 *     tl_cloth_input in = tl_default_cloth_input();
 *     for (each frame) {
 *         in.frame = the character frame now (rest-world -> world, e.g. from the hips);
 *         in.targets = t;           // every particle's rest position skinned by the body now
 *         in.colliders = c, in.collider_count = n;
 *         tl_cloth_step(cloth, &in, 1.0f / 60.0f);
 *         const float* x = tl_cloth_positions(cloth);   // world, rows x columns x 3
 *     }
 *     tl_cloth_destroy(cloth);
 *     tl_cloth_model_destroy(model);
 *
 * Frames. "Rest-world" is the frame of the character's rest pose (rest positions, lengths,
 * `up`). The character frame maps rest-world points to the world as the body moves (a rigid
 * motion with uniform scale, tl_chain_pose); the solver works in it. Quaternions are
 * (x, y, z, w) as in glTF.
 *
 * Ownership. tl_cloth_model_create copies what it needs from the def (its arrays may be freed
 * after it returns); the model is read-only afterwards, may be shared by any number of cloths
 * (also on different threads) and must outlive them. Every byte a cloth uses is allocated by
 * tl_cloth_create and freed by tl_cloth_destroy; step never allocates, prints or calls the OS.
 * A cloth is not thread-safe; distinct cloths may be stepped on distinct threads.
 */
#ifndef TAILOR_CLOTH_H
#define TAILOR_CLOTH_H

#include <tailor/base.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most rows and columns one lattice accepts. */
#define TL_CLOTH_MAX_SIDE 1024
/* The most colliders (tl_collider plus ellipsoids) one step reads; more are ignored. */
#define TL_CLOTH_MAX_COLLIDERS 64

/* The settings a cloth carries: the rig writes them with the part, the player reads them back,
 * a host may change them between steps (tl_cloth_set_settings). Lengths and accelerations are
 * for a human of 1.8 m and multiplied by tl_cloth_def.scale. "Edge" particles have fewer
 * stretch neighbours than interior ones (the hem, a cape's sides): their own damping, wind,
 * world motion and max distance give them another natural frequency (cloth.md §7). */
typedef struct tl_cloth_settings {
    int iterations;          /* relaxation iterations per fixed step; 12 */
    float damping;           /* share of the velocity lost per fixed step, [0, 1); 0.12 (at rest
                                within ~2 s of the body stopping) */
    float edge_damping;      /* the same for edge particles; 0.08 */
    float contact_damping;   /* extra share lost per step by a particle that touched a collider
                                in the previous step (friction with the body), [0, 1]; 0.3 */
    float stretch_stiffness; /* share of the stretch correction applied per iteration, [0, 1]; 1 */
    float shear_stiffness;   /* the same for the shear/bend group (0: bends freely); 0.2 */
    float gravity;           /* downward acceleration, m/s^2 (x scale); 9.81 */
    float wind;              /* share of tl_cloth_input.force felt by interior particles; 1 */
    float edge_wind;         /* ... by edge particles; 1.5 */
    float world_motion;      /* share of the character frame's world motion the cloth feels, [0,
                                1] (cloth.md §8: 0.1-0.3); 0.2 */
    float edge_world_motion; /* ... for edge particles; 0.3 */
    float max_distance_top;  /* safe distance from the skinned rest position at row 1, m (x
                                scale); 0.05 (row 0 is pinned) */
    float max_distance_bottom; /* at the last row (linear in between), m (x scale); 0.4 */
    float edge_max_distance;   /* factor on the safe distance of edge particles; 1.25 */
    float collision_margin;    /* particles stay this far outside the colliders, m (x scale);
                                  0.01 (the lattice is coarser than the render mesh) */
} tl_cloth_settings;

/* The defaults above. */
tl_cloth_settings tl_default_cloth_settings(void);

/* A point of the skin the lattice drives, bilinear in the four particles of one cell: (1 - u)
 * (1 - v) top-left + (1 - u) v top-right + u (1 - v) bottom-left + u v bottom-right, lifted off
 * it along the cell's normal. */
typedef struct tl_cloth_skin_point {
    int cell;    /* its top-left particle r x columns + c: r + 1 < rows, c + 1 < columns (or
                    the last column of a closed ring, whose right neighbour is column 0) */
    float u, v;  /* down the cell and along its row; outside [0, 1] beyond the lattice's
                    border (a garment's edge lies half a cell beyond its edge particles), within
                    [-1, 2] */
    float lift;  /* the skin's offset from that bilinear point along the cell's normal (down x
                    along, normalised), rest-world units: the point is carried at it */
    float slack; /* as tl_cloth_def.link_slack: its depth at rest, >= 0 */
} tl_cloth_skin_point;

/* The lattice and the world. */
typedef struct tl_cloth_def {
    int rows;                    /* rows of particles, row 0 pinned, 2..TL_CLOTH_MAX_SIDE; 4-8 */
    int columns;                 /* particles per row, 2..TL_CLOTH_MAX_SIDE; 8-24 */
    bool closed;                 /* the last column neighbours the first (a skirt); false: a
                                    cape */
    const float* rest_positions; /* rows x columns x 3, row-major (particle r * columns + c),
                                    rest-world units; copied at create */
    float up[3];                 /* the world's up axis (gravity points down it); (0, 1, 0) for
                                    glTF, (0, 0, 1) for Z-up data */
    float scale;                 /* model height / 1.8 m in world units: 1 for a human in metres,
                                    100 in centimetres */
    float fixed_step;            /* internal step, s; 1/60 (the look is tuned at this step) */
    int max_substeps;            /* internal steps one frame may run (a longer frame runs these
                                    over its whole length); 4 */
    float teleport_distance;     /* a character frame jump longer than this within one frame is a
                                    cut, m (x scale); 1 */
    const float* link_slack;     /* rows x columns x 2 or NULL (0): how deep particle i's links
                                    (up, and right along the row) may go into a collider before
                                    an open lattice pushes them out, rest-world units, >= 0: the
                                    depth the rest pose has (the player measures it); copied */
    const tl_cloth_skin_point* skin_points; /* skin_point_count or NULL: points the lattice
                                    keeps out of the colliders (an open one as it does its
                                    links; a closed ring too, which pushes no links), moving
                                    their cells' particles (the skin lies on the cells, and
                                    beyond the edge particles, where no link is); copied */
    int skin_point_count;                   /* 0 */
    tl_cloth_settings settings;             /* the default of a cloth made from this model */
} tl_cloth_def;

/* The defaults above (rows, columns 0 and NULL positions: the caller fills those). */
tl_cloth_def tl_default_cloth_def(void);

/* An ellipsoid collider: the points x with |(R^-1 (x - centre)) / radii| < 1. */
typedef struct tl_cloth_ellipsoid {
    float centre[3];   /* world units */
    float rotation[4]; /* world orientation of its axes (x, y, z, w) */
    float radii[3];    /* semi-axes along its x, y, z, world units */
} tl_cloth_ellipsoid;

/* One frame's animated input (at the end of the frame; the start is the previous frame's end). */
typedef struct tl_cloth_input {
    tl_chain_pose frame;  /* the character frame: rest-world -> world */
    const float* targets; /* rows x columns x 3, world: every particle's rest position skinned
                             by the body (row 0 follows them; the safe distance is measured
                             from them); read during the step only */
    bool cut;             /* the body moved discontinuously (a clip's wrap, a respawn): every
                             particle is carried by its target's jump, with no world motion */
    float force[3];       /* an external acceleration (wind), world units / s^2; 0 */
    const tl_collider* colliders; /* body colliders (world) or NULL */
    int collider_count;
    const tl_cloth_ellipsoid* ellipsoids; /* ellipsoid colliders (world) or NULL */
    int ellipsoid_count;
} tl_cloth_input;

/* An identity frame with scale 1, no targets (must be set), no force, no colliders. */
tl_cloth_input tl_default_cloth_input(void);

/* What a cloth has done; counters never reset except by create. */
typedef struct tl_cloth_stats {
    uint64_t steps;            /* internal steps run */
    uint32_t cuts;             /* frames carried across a jump (input.cut or a teleport) */
    uint32_t teleports;        /* of which: unflagged frame jumps beyond teleport_distance */
    uint32_t clamped_frames;   /* frames longer than max_substeps fixed steps */
    uint32_t nonfinite_inputs; /* frames with NaN/inf input: the cloth was reset to its targets */
    uint32_t nonfinite_states; /* steps whose result was not finite (reset; a solver bug) */
    uint32_t contacts;         /* particles touching a collider after the last step */
    uint32_t max_distance_clamps; /* particles held at their safe distance in the last step */
} tl_cloth_stats;

typedef struct tl_cloth_model tl_cloth_model;
typedef struct tl_cloth tl_cloth;

/* Validates the def (untrusted: it comes from a file) and builds the shared topology: rest
 * lengths, constraint groups in which no two constraints touch one particle, the tethers,
 * the edges. TL_ERROR_INVALID names the particle with a non-finite position or a zero-length
 * link, TL_ERROR_LIMIT a lattice beyond TL_CLOTH_MAX_SIDE, TL_ERROR_MEMORY an allocator
 * failure. Settings out of range are caller mistakes (asserts). allocator may be NULL. */
tl_result tl_cloth_model_create(const tl_cloth_def* def, const tl_allocator* allocator,
                                tl_cloth_model** out, tl_error* err);
void tl_cloth_model_destroy(tl_cloth_model* model);

/* Bytes tl_cloth_model_create allocates for a lattice: about 100 bytes per particle, and
 * sizeof(tl_cloth_skin_point) per skin point on top. */
size_t tl_cloth_model_memory_size(int rows, int columns, bool closed);

/* A cloth instance (its state) on a model, with the model's settings. allocator may be NULL. */
tl_result tl_cloth_create(const tl_cloth_model* model, const tl_allocator* allocator,
                          tl_cloth** out, tl_error* err);
void tl_cloth_destroy(tl_cloth* cloth);

/* Advances the cloth by dt seconds (>= 0) of animation. The first step after create or clear
 * places every particle at its target, still. Non-finite input resets the cloth. */
void tl_cloth_step(tl_cloth* cloth, const tl_cloth_input* input, float dt);

/* Fills *in with the cloth's input `t` seconds after the frame's start (0 <= t <= dt): the
 * character frame, the targets (read before the sampler is called again), the force and the
 * colliders at that time. Called with increasing t, at every internal step inside the frame
 * and at its end; `in` comes set to tl_default_cloth_input() and its `cut` is ignored. */
typedef void (*tl_cloth_sampler)(void* user, float t, tl_cloth_input* in);

/* Advances the cloth by dt seconds, asking the sampler for the input at each internal step
 * instead of interpolating the frame's two ends (spring-chain.md §9): every internal step sees
 * the host's pose at its own time, so the motion is the same at every frame rate (measured in
 * docs/cloth.md). The frame starts where the previous one ended, unless `cut`: the host moved
 * the character discontinuously and sampler(0) is where the frame starts; every particle is
 * then carried by its own target's jump to it (in the character frame: exactly), with no world
 * motion. An unreported jump of the frame beyond teleport_distance between two internal steps
 * is carried the same way. A frame longer than max_substeps steps first crosses its head as
 * one long frame (tl_cloth_step's hitch), then samples the simulated window. When the frame's
 * end lies past the last internal step, the outputs are the particles projected onto their
 * tethers and out of the colliders at the end's pose; the state is not changed by it. */
void tl_cloth_step_sampled(tl_cloth* cloth, tl_cloth_sampler sampler, void* user, float dt,
                           bool cut);

/* Puts every particle at its target (world), still, under the given character frame. */
void tl_cloth_reset(tl_cloth* cloth, const tl_chain_pose* frame, const float* targets);

/* Forgets the state: the next step starts at rest from its targets. */
void tl_cloth_clear(tl_cloth* cloth);

/* Changes the settings at run time (between steps), keeping the state. */
void tl_cloth_set_settings(tl_cloth* cloth, const tl_cloth_settings* settings);
tl_cloth_settings tl_cloth_get_settings(const tl_cloth* cloth);

/* --- output (valid until the next step) --- */

int tl_cloth_particle_count(const tl_cloth* cloth);
const tl_cloth_model* tl_cloth_get_model(const tl_cloth* cloth);
/* N x 3: the particles after the last internal step, in world units under the last frame
 * (they lag the render time by less than one fixed step in the character frame). */
const float* tl_cloth_positions(const tl_cloth* cloth);
/* The same in the solver's own coordinates: rest-world minus tl_cloth_model_origin (small
 * numbers, so the tether lengths are exact to float precision: check them here). */
const float* tl_cloth_local_positions(const tl_cloth* cloth);
/* N: 1 for particles that touched a collider in the last step. */
const uint8_t* tl_cloth_contacts(const tl_cloth* cloth);
/* N: each particle's safe distance, rest-world units. */
const float* tl_cloth_max_distances(const tl_cloth* cloth);
tl_cloth_stats tl_cloth_get_stats(const tl_cloth* cloth);

/* The frame of particle (row, column) as a world rotation (x, y, z, w) (cloth.md §1): x from
 * it to the particle below (above, on the last row), y from its left to its right neighbour
 * (itself at an open edge), z = x cross y, orthonormalised keeping x. */
void tl_cloth_particle_frame(const tl_cloth* cloth, int row, int column, float rotation[4]);

/* --- the model --- */

int tl_cloth_model_rows(const tl_cloth_model* model);
int tl_cloth_model_columns(const tl_cloth_model* model);
bool tl_cloth_model_closed(const tl_cloth_model* model);
/* The rest centroid (rest-world): the solver's coordinates are relative to it. */
void tl_cloth_model_origin(const tl_cloth_model* model, float origin[3]);
/* N: the tether length of each particle (rest distance to the one above it; 0 on row 0). */
const float* tl_cloth_model_tethers(const tl_cloth_model* model);
/* N x 3: the rest positions (rest-world). */
const float* tl_cloth_model_rest_positions(const tl_cloth_model* model);
/* N: 1 for edge particles (fewer stretch neighbours than an interior one). */
const uint8_t* tl_cloth_model_edges(const tl_cloth_model* model);

/* One constraint group: `count` pairs (a[k], b[k]) of rest length rest[k], no two touching one
 * particle. Groups 0 .. stretch_groups-1 are stretch, the rest shear/bend. */
typedef struct tl_cloth_group_view {
    int count;
    bool stretch;
} tl_cloth_group_view;
int tl_cloth_model_group_count(const tl_cloth_model* model);
tl_cloth_group_view tl_cloth_model_group(const tl_cloth_model* model, int group);
/* Writes group's pairs (count each) into a, b and rest (rest-world units). */
void tl_cloth_model_group_pairs(const tl_cloth_model* model, int group, int* a, int* b,
                                float* rest);

#ifdef __cplusplus
}
#endif

#endif
