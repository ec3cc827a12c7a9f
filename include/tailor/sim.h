/* tailor — the runtime spring-chain solver (tails, hair guide chains).
 *
 * A chain is N bones hanging from an attachment joint (usually the hips). Each bone's tip is
 * a particle on a damped spring in physical units that aims at the chain's rest arc; a rope
 * constraint keeps every link its length, neighbouring bends are coupled and limited, the
 * tail stays behind the hips and above the floor. The solver runs at a fixed internal step
 * and interpolates to the render time, so a clip gives the same motion at 30, 60 or 144 fps.
 * Specification: spring-chain.md in the shared spec folder; the manual is docs/sim.md.
 *
 * Example (one chain, a 60 fps player):
 *
 *     tl_chain_def def = tl_default_chain_def();
 *     def.bone_count = 4;
 *     def.rest_translations = t;   // 4 x 3 floats: each bone's neutral offset in its parent
 *     def.rest_rotations = q;      // 4 x 4 floats (x, y, z, w): neutral local rotations
 *     def.tip_translation = end;   // Tail_End offset in the last bone, or NULL
 *     def.scale = model_height / 1.8f;
 *     tl_chain* chain;
 *     if (tl_chain_create(&def, NULL, &chain, &err) != TL_OK) ...;
 *     tl_chain_input in = tl_default_chain_input();
 *     for (each frame) {
 *         in.start = pose of the attachment joint at the previous frame;
 *         in.target = pose of the attachment joint now;
 *         tl_chain_step(chain, &in, 1.0f / 60.0f);
 *         const float* q = tl_chain_local_rotations(chain);  // put into the bones' pose
 *     }
 *     tl_chain_destroy(chain);
 *
 * Frames. "World" is whatever frame the caller's poses are in (the rest-world frame of
 * the character, any up axis, any unit); def.up says which way is up there. Bone geometry
 * is in the attachment joint's local frame and is mapped to the world by the pose's scale.
 * Quaternions are (x, y, z, w) as in glTF.
 *
 * Sleep. A chain on a body that stands still can stop simulating, as rigid-body engines put
 * resting bodies to sleep: with def.sleep_seconds > 0 (tailor's player: 1 s) a chain whose input
 * repeats the last frame's exactly (the same pose floats, hips, force and colliders) falls
 * asleep once its output has stayed under def.sleep_speed (1 cm/s at human scale) for that
 * long, or, lying against a collider or the floor, once its mean pose has and no tip has strayed
 * farther than sleep_speed times the window (a lock buzzing in a crease sleeps; a swing sliding
 * along a collider does not). Asleep, a step returns at once with the outputs as they were and the
 * velocities zero; the first frame whose input differs in any bit, or a tl_chain_set_settings,
 * moving floor or non-zero tl_chain_particles_move, wakes it and steps it as usual. A host that
 * holds a pose passes the same floats every frame (recomputing them may change a last bit: then
 * nothing sleeps); a breathing idle never sleeps.
 *
 *     def.sleep_seconds = 1.0f;             // sleep_speed keeps the 1 cm/s rest bar
 *     ...
 *     tl_chain_step(chain, &in, dt);        // or the batch or sampled step
 *     if (tl_chain_get_stats(chain).asleep) // the bones' rotations are those of last frame
 *         skip_upload(bones);
 *
 * Ownership. tl_chain_create copies everything it needs from the def; the def's arrays may
 * be freed after it returns. Every byte a chain uses is allocated by create (through the
 * optional allocator) and freed by destroy; step never allocates, prints or calls the OS.
 * Pointers returned by the accessors stay valid until destroy and change on every step.
 * A chain is not thread-safe; distinct chains may be stepped on distinct threads.
 */
#ifndef TAILOR_SIM_H
#define TAILOR_SIM_H

#include <tailor/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most bones one chain accepts (tails have 3-8, hair guides up to ~32). */
#define TL_CHAIN_MAX_BONES 64

/* A rigid transform with uniform scale: world = position + scale * rotate(rotation, local). */
typedef struct tl_chain_pose {
    float position[3]; /* world units */
    float rotation[4]; /* unit quaternion (x, y, z, w); normalised by the solver */
    float scale;       /* uniform scale from the attachment's local frame to the world; 1 */
} tl_chain_pose;

/* Decomposes a column-major 4x4 world matrix (glTF layout) with uniform scale into a pose. */
tl_chain_pose tl_chain_pose_from_matrix(const float matrix[16]);

/* The neutral local transform of a joint from inverse bind matrices (spring-chain.md §5):
 * L = (W_parent)^-1 W with W = IBM^-1. Writes translation (parent-local units) and rotation;
 * scale is divided out. Use it to fill rest_translations / rest_rotations. */
void tl_chain_local_from_binds(const float parent_inverse_bind[16], const float inverse_bind[16],
                               float translation[3], float rotation[4]);

/* The settings a chain carries with it: the rig writes them into the file with each chain, the
 * player reads them back, a host may change them between steps. Lengths and accelerations are
 * for a human of 1.8 m and multiplied by tl_chain_def.scale. Made by tl_default_chain_settings,
 * embedded in tl_chain_def and tl_rig_def. */
typedef struct tl_chain_settings {
    /* --- spring (spring-chain.md §1) --- */
    float root_frequency; /* natural frequency at the root link, Hz; 1.2 (the article's 0.9
                             left the whole tail's swing too slow to settle, docs/stress.md) */
    float tip_frequency;  /* at the tip link (linear in between), Hz; 0.45 */
    float damping_ratio;  /* zeta, 1 = critical; 0.65 */
    float gravity; /* downward acceleration, m/s^2 (x scale); 1, not 9.8: a tail has muscle */

    /* --- rest pose (§3, §6) --- */
    float carry_deg;  /* the whole tail's rest rises to this angle from hanging straight down,
                         shared along the chain; degrees; 50 */
    float rest_curve; /* beta in [0, 1]: 0 aims at the centred rest arc, 1 keeps the authored
                         sideways curl; 0 */

    /* --- bend (§4) --- */
    float coupling_rate;  /* k of the neighbour bend coupling alpha = 1 - exp(-k dt), 1/s; 12 */
    float bend_limit_deg; /* the largest extra bend per joint, degrees; 30 (thick tails get
                             less: min(limit, 0.15 l / r) with joint_radii) */

    /* --- ground contact (§7) --- */
    float ground_clearance; /* the centre line stays this far above the floor, m (x scale); 0.025 */
    float slip_damping;     /* gamma of the touching tips' slip decay, 1/s; 8 (a body
                               collider's friction; on the floor at most what the links lack
                               of critical damping: 0 when zeta >= 0.5) */
} tl_chain_settings;

/* The defaults above. */
tl_chain_settings tl_default_chain_settings(void);

/* Settings and rest geometry of one chain. Lengths and accelerations are given for a
 * human of 1.8 m and multiplied by `scale`; frequencies, ratios and angles do not scale. */
typedef struct tl_chain_def {
    /* --- rest geometry (copied at create) --- */
    int bone_count;                 /* N bones = N links, 1..TL_CHAIN_MAX_BONES; typical 4-8 */
    const float* rest_translations; /* N x 3: bone i's neutral offset in its parent's frame
                                       (bone 0's parent is the attachment joint), bind units */
    const float* rest_rotations;    /* N x 4: bone i's neutral local rotation (x, y, z, w),
                                       from inverse bind matrices, not from the saved nodes */
    const float* tip_translation;   /* 3: the Tail_End offset in the last bone's frame, or NULL:
                                       the last link then continues the incoming tangent in the
                                       last bone's own frame, as long as the link before it */
    const float* joint_radii;       /* N: skin radius at the head of link i (bind units), for
                                       the elastic bend limit; NULL or <= 0 means unknown */
    float hips_lateral[3];          /* the hips' lateral axis (towards the character's left) in
                                       the attachment frame; (1, 0, 0) */
    float hips_up[3];               /* the hips' up axis in the attachment frame; (0, 1, 0) */
    float hips_forward[3];          /* facing direction in the attachment frame; (0, 0, 1) */

    /* --- world --- */
    float up[3];             /* the world's up axis: gravity points down it, the floor faces it;
                                (0, 1, 0) for glTF, (0, 0, 1) for Z-up data */
    float scale;             /* model height / 1.8 m, in world units: 1 for a human in metres,
                                100 for a human in centimetres, 3.1 for a 5.6-unit knight */
    bool floor_enabled;      /* a floor plane the tips may touch but not cross; true */
    float floor_height;      /* the floor's height along `up`, world units; 0 */
    bool hips_plane_enabled; /* no tip below the tail root may cross the plane through the
                                root facing forward (no swinging between the legs); true */

    /* --- the part's own settings, stored with it in the file --- */
    tl_chain_settings settings;

    /* --- time (§9) --- */
    float fixed_step;        /* internal step, s; 1/120 */
    int max_substeps;        /* internal steps one frame may run; a longer frame (a hitch)
                                simulates only its last max_substeps * fixed_step seconds; over
                                the rest the chain is carried with the root and relaxes as its
                                springs would (docs/sim.md, Time); 8 */
    float teleport_distance; /* a root jump longer than this within one frame moves the chain
                                rigidly by the jump instead of flinging it, m (x scale); 1
                                (between frames any jump is a cut, see tl_chain_input.start) */

    /* --- sleep (deactivation, as rigid-body engines do; docs/sim.md "Sleep") --- */
    float sleep_speed;   /* the rest bar, m/s (x scale): a chain may fall asleep once its output
                            moves slower than this; 0.01 (measure.md's rest bar) */
    float sleep_seconds; /* how long the input must stay exactly still and the output under
                            sleep_speed before the chain sleeps, s; 0 = never (the default);
                            tailor's player uses 1. Asleep, a step simulates nothing (see
                            tl_chain_stats.asleep); any change of the input wakes it */
} tl_chain_def;

/* The defaults above (bone_count 0 and NULL geometry: the caller fills those). */
tl_chain_def tl_default_chain_def(void);

/* A body collider (spring-chain.md; shared with cloth): no particle ends an internal step inside
 * one, and a particle on its surface slides with the chain's slip damping as friction. Given in
 * world units, in the world frame, by the host each frame (it carries each collider with the
 * body joint it is attached to). */
typedef enum tl_collider_shape {
    TL_COLLIDER_SPHERE,   /* centre a, radius */
    TL_COLLIDER_CAPSULE,  /* the points within radius of the segment a-b */
    TL_COLLIDER_PLANE,    /* the half-space behind the plane through a with outward normal b */
    TL_COLLIDER_ELLIPSOID /* centre a, semi-axes `axes`: the points a + sum q_k axes[k] with
                             |q| < 1. A particle inside is moved onto the far side of the
                             tangent plane at the surface point radially out from the centre in
                             the unit-sphere space of q (the ellipsoid is convex, so it ends
                             outside: the nearest surface point only approximately) */
} tl_collider_shape;

typedef struct tl_collider {
    tl_collider_shape shape;
    float a[3];       /* world units */
    float b[3];       /* capsule: the segment's other end; plane: unit normal (out of the body) */
    float radius;     /* sphere, capsule: world units */
    float axes[3][3]; /* ellipsoid: its three semi-axes, orthogonal, world units (their lengths
                         are its radii); unused by the other shapes */
} tl_collider;

/* One frame's animated input. */
typedef struct tl_chain_input {
    tl_chain_pose start;  /* the attachment joint's world pose at the start of the frame:
                             normally the previous frame's target; anything else is a cut (a
                             looping clip's wrap, a teleport): the chain is carried rigidly
                             from the previous target to it, then simulated to the target */
    tl_chain_pose target; /* ... at the end of the frame (the render time); sub-steps
                             interpolate between the two (on the parabola through the previous
                             frame's start when that frame was about as long) */
    bool has_hips;        /* the hips frame moves apart from the attachment joint */
    float hips_start[4];  /* then: the hips frame's world rotation (its x, y, z = lateral, up,
                             forward) at the start of the frame ... */
    float hips_target[4]; /* ... and at its end. Otherwise the hips axes ride the attachment. */
    float force[3];       /* an external acceleration on every particle over this frame, added
                             to gravity (wind, a vehicle's acceleration felt in its frame: the
                             negative of that acceleration), world units / s^2; 0 */
    const tl_collider* colliders; /* the body's colliders at the end of the frame, or NULL;
                                     read during the step only (every internal step of the
                                     frame uses them; tl_chain_step_sampled gives each step its
                                     own) */
    int collider_count;
    /* or NULL: per collider k and link i, collider_growth[k * links + i] metres added to
     * collider k's size (radius, each semi-axis) for link i's tip; a size it leaves at or below
     * 0 leaves that link free of the collider. A chain lying inside a collider at rest keeps it
     * for the links outside it (a lock lying on the back: the links that hang free). */
    const float* collider_growth;
} tl_chain_input;

/* Identity poses with scale 1, has_hips false, no force. */
tl_chain_input tl_default_chain_input(void);

/* What a chain has done; counters never reset except by create. */
typedef struct tl_chain_stats {
    uint64_t steps;            /* internal steps run */
    uint32_t nonfinite_inputs; /* frames whose input (pose, dt) had NaN/inf or a zero rotation:
                                  the chain was reset at the last good pose */
    uint32_t nonfinite_states; /* internal steps whose result was not finite (reset; never
                                  expected: a non-zero value is a solver bug) */
    uint32_t teleports;        /* root jumps beyond teleport_distance (rigid re-base) */
    uint32_t cuts;             /* frames whose start was not the previous frame's target: the
                                  chain was carried rigidly across the jump (a loop's wrap) */
    uint32_t clamped_frames;   /* frames longer than max_substeps * fixed_step */
    uint32_t contacts;         /* tips on the floor or a collider after the last internal step */
    uint32_t sleeps;           /* times the chain fell asleep */
    bool asleep; /* the chain sleeps: its last step simulated nothing, its outputs are as they
                    were and its velocities zero (tl_chain_def.sleep_seconds) */
} tl_chain_stats;

typedef struct tl_chain tl_chain;

/* Validates the def's geometry (untrusted: it comes from a file) and builds a chain:
 * TL_ERROR_INVALID names the bone whose link has zero length or a non-finite value,
 * TL_ERROR_MEMORY when the allocator fails. Settings out of range are caller mistakes
 * (asserts). allocator may be NULL (malloc/free); it is kept for destroy. */
tl_result tl_chain_create(const tl_chain_def* def, const tl_allocator* allocator, tl_chain** out,
                          tl_error* err);

/* Frees the chain through the allocator it was created with. NULL is fine. */
void tl_chain_destroy(tl_chain* chain);

/* Advances the chain by dt seconds (>= 0) of animation: the attachment moves from
 * input->start to input->target. The first step after create or reset places the chain at
 * its rest arc. Non-finite input resets the chain and is counted in the stats. */
void tl_chain_step(tl_chain* chain, const tl_chain_input* input, float dt);

/* Steps count chains, each with its own input, by the same dt, one after the other (each in
 * a one-lane working copy on the stack; tl_chain_batch_step is the fast way to step many). */
void tl_chain_step_many(tl_chain* const* chains, const tl_chain_input* inputs, int count, float dt);

/* The working copy in which tl_chain_batch_step steps chains side by side: one per thread that
 * steps chains, shared by any number of chains. */
typedef struct tl_chain_batch tl_chain_batch;

/* Bytes tl_chain_batch_create allocates: a 16-lane (8-lane) working copy per group of chains,
 * about 0.22 KB per bone per chain of max_chains on x86-64, plus four groups' worth. */
size_t tl_chain_batch_memory_size(int max_bones, int max_chains);

/* A batch for up to max_chains chains of at most max_bones bones (1..TL_CHAIN_MAX_BONES) a
 * call; more chains still step correctly, only with their constants gathered again each time.
 * TL_ERROR_MEMORY when the allocator fails; allocator may be NULL (malloc/free). */
tl_result tl_chain_batch_create(int max_bones, int max_chains, const tl_allocator* allocator,
                                tl_chain_batch** out, tl_error* err);
void tl_chain_batch_destroy(tl_chain_batch* batch);

/* Steps count chains, each with its own input, by the same dt. Chains with the same bone count
 * are stepped 16 (8 without AVX2) at a time in SIMD lanes of the batch's working copy (about 4x
 * less CPU per chain than one by one; list them in the same order every frame so that each
 * keeps its lane and its constants stay gathered); every chain gets exactly the bits
 * tl_chain_step would give it. A chain may be listed twice (it steps twice, in order). The
 * chains of one call and the batch must not be used on other threads meanwhile. */
void tl_chain_batch_step(tl_chain_batch* batch, tl_chain* const* chains,
                         const tl_chain_input* inputs, int count, float dt);

/* Changes the chain's settings at run time (between steps), keeping its state: nothing is reset,
 * the next step runs with the new springs, rest arc, limits, coupling, gravity and contact.
 * Settings out of range are caller mistakes (asserts), as in create. */
void tl_chain_set_settings(tl_chain* chain, const tl_chain_settings* settings);

/* Moves the floor plane to `height` along the def's up (world units), keeping the state: for a
 * host that keeps the chain in coordinates relative to a moving origin (tailor's player after a
 * cut), where the world's floor lies at floor_height - up · origin. */
void tl_chain_set_floor(tl_chain* chain, float height);

/* Moves the tip particles between steps by a host's position correction, keeping their
 * velocities (a correction feeds no velocity, spring-chain.md §2): `offsets` N x 3 world units,
 * particle i by offsets[3i..3i+2]. The next step starts from the moved particles (its rope puts
 * each back at its link's length); the last step's output stays as it was. tailor's player
 * holds neighbouring hair locks together this way (docs/hair.md, "The sheet"). */
void tl_chain_particles_move(tl_chain* chain, const float* offsets);

/* The settings the chain runs with (the def's, or the last tl_chain_set_settings). */
tl_chain_settings tl_chain_get_settings(const tl_chain* chain);

/* What a host's sampler gives for one time inside a frame. */
typedef struct tl_chain_sample {
    tl_chain_pose attachment;     /* the attachment joint's world pose at that time */
    bool has_hips;                /* the hips frame moves apart from the attachment joint ... */
    float hips[4];                /* ... then its world rotation (x, y, z = lateral, up, forward) */
    float force[3];               /* the external acceleration then (tl_chain_input.force); 0 */
    const tl_collider* colliders; /* the body's colliders then (valid until the next call) */
    int collider_count;
    const float* collider_growth; /* per collider and link, or NULL (tl_chain_input's) */
} tl_chain_sample;

/* Fills *out with the poses `t` seconds after the frame's start (0 <= t <= dt). Called with
 * increasing t, at every internal step inside the frame and at its end; `out` is zeroed with
 * an identity attachment pose (scale 1) before each call. */
typedef void (*tl_chain_sampler)(void* user, float t, tl_chain_sample* out);

/* Advances the chain by dt seconds, asking the sampler for the poses at each internal step
 * instead of interpolating two (spring-chain.md §9): the motion is then the same at every frame
 * rate (measure.md "Stress": <= 0.1% of the chain; the player's clips give 1e-6). The frame
 * starts where the previous one ended, unless `cut`: the host moved the character
 * discontinuously (a respawn, a camera cut), and the chain is carried rigidly from the previous
 * frame's end to sampler(0). A frame longer than max_substeps steps first crosses its head as
 * one long frame (tl_chain_step's hitch), then samples the simulated window. Example:
 *
 *     static void sample_clip(void* user, float t, tl_chain_sample* out) {
 *         game* g = user;                       // the engine's animation state
 *         float world[16];
 *         anim_sample_joint(g->anim, g->time + t, g->hips_joint, world);  // engine call
 *         out->attachment = tl_chain_pose_from_matrix(world);
 *         out->force[0] = g->wind[0], out->force[2] = g->wind[2];
 *     }
 *     ...
 *     tl_chain_step_sampled(chain, sample_clip, &game, dt, game.respawned);
 *     game.time += dt;
 */
void tl_chain_step_sampled(tl_chain* chain, tl_chain_sampler sampler, void* user, float dt,
                           bool cut);

/* Puts the chain at rest on its rest arc, still, under the given attachment pose. A pose
 * that is not valid (non-finite, a zero rotation, scale 0) counts as a non-finite input and
 * the chain rests under the last good pose instead. */
void tl_chain_reset(tl_chain* chain, const tl_chain_pose* attachment);

/* Forgets the state: the next step starts at rest from its input's start pose. */
void tl_chain_clear(tl_chain* chain);

/* --- output (valid until the next step) --- */

int tl_chain_bone_count(const tl_chain* chain);
/* N x 4: each bone's local rotation (x, y, z, w) relative to its parent, at the render time,
 * ready to replace the bone's rotation in a pose (its translation stays the neutral one). */
const float* tl_chain_local_rotations(const tl_chain* chain);
/* N x 3: each link's tip in world units at the render time (link i's tip is bone i+1's
 * origin; the last is the chain's end). */
const float* tl_chain_tip_positions(const tl_chain* chain);
/* N x 3 each: the tip particles and their velocities (world units, per second) after the
 * last internal step, which lags the render time by less than one fixed step. These two and
 * tl_chain_link_lengths first write back the state a tl_chain_batch may still hold for the chain
 * (so not while another thread steps it); the arrays are valid until the chain's next step. */
const float* tl_chain_particle_positions(const tl_chain* chain);
const float* tl_chain_particle_velocities(const tl_chain* chain);
/* Seconds by which those particles and velocities lag the render time: the time owed to the next
 * internal step, in [0, fixed_step); 0 after a frame whose last step ended at its end. */
double tl_chain_state_lag(const tl_chain* chain);
/* N: each link's length in world units under the last pose. */
const float* tl_chain_link_lengths(const tl_chain* chain);
/* N x 3: each link's rest direction in the attachment frame (the centred, carried rest arc
 * the springs aim at, with the chain at rest). */
const float* tl_chain_rest_directions(const tl_chain* chain);
/* N: each joint's bend limit, radians. */
const float* tl_chain_bend_limits(const tl_chain* chain);
tl_chain_stats tl_chain_get_stats(const tl_chain* chain);

/* Bytes tl_chain_create allocates for a def (one block): about 0.35 KB per bone on x86-64,
 * 2.8 KB for 8 bones (the batches' working copies are in tl_chain_batch; a chain stepped alone
 * works on the stack). */
size_t tl_chain_memory_size(int bone_count);

#ifdef __cplusplus
}
#endif

#endif
