/* tailor/vrm.h — the chains as VRM 1.0 spring bones (VRMC_springBone), for every VRM runtime.
 *
 * A VRM runtime (three-vrm, UniVRM, Godot's VRM add-on) moves a spring bone by its own rule,
 * not tailor's solver: per rendered frame each joint's tail keeps (1 - dragForce) of its last
 * move, is pulled along the joint's initial direction by stiffness * dt and along gravityDir
 * by gravityPower * dt, is put back at the link's length from the joint, pushed out of the
 * colliders (hitRadius around the tail), and the joint turns to point at it. The settings
 * that make that rule move like tailor's chain are not tailor's settings: tl_vrm_write FITS
 * them. It plays the chain with tailor's player (60 fps, looping, from rest at clip time 0,
 * as `tailor play`) on the walk clip, plays the same clip through its own implementation of
 * the VRM rule (written from the VRM 1.0 specification and checked against three-vrm; the
 * runtime's per-frame order included), and searches the settings (stiffness and drag from
 * root to tip, gravity down or up, the hit radius as a share of the skin's radius, or of a hair
 * lock's thickness) that bring the VRM tip's path closest to tailor's (least squares over the
 * window). Hair locks that tailor's sheet couples are played together and fitted as one: one
 * set of these for the whole head of hair (each spring's stiffness scaled by its bones'
 * lengths), so neighbouring locks move alike in the runtime; other chains one by one. The
 * settings suit the clip fitted on: the rule's target is the file's settled rest, fixed to
 * the parent bone, so a clip that carries the tail elsewhere (an idle after a walk) moves
 * differently (docs/vrm.md measures the other clips).
 *
 * What is written (document root "extensions"."VRMC_springBone", specVersion "1.0"):
 *   - one spring per chain, named as its first bone without the "_1" ("Tail"), joints
 *     Tail_1 … Tail_K and the end joint Tail_End last (a VRM joint turns to point at the
 *     next one: the end joint gives the last bone its length), each with stiffness,
 *     gravityPower, gravityDir (the skin's down, world), dragForce and hitRadius;
 *   - the skin's body colliders (colliders.h: spheres and capsules, on their joint's node,
 *     offsets in the node's frame, radii in world units as three-vrm reads them), except
 *     those a chain already lies in at rest, in one collider group per chain;
 *   - "VRMC_springBone" in extensionsUsed (never extensionsRequired: a plain glTF viewer
 *     ignores it).
 * Springs, colliders and groups tailor wrote before (marked extras.tailor) are replaced;
 * anything else in an existing VRMC_springBone is kept. A file with VRM 0.x spring bones
 * (extensions.VRM.secondaryAnimation) is left untouched: a runtime that finds VRMC_springBone
 * ignores the 0.x ones, so adding it would silently drop the file's own (tl_vrm_write
 * says so with TL_ERROR_UNSUPPORTED).
 *
 * Example:
 *     tl_vrm_def def = tl_default_vrm_def();
 *     tl_vrm_fit fits[16];
 *     uint32_t n;
 *     if (tl_vrm_write(doc, &def, fits, 16, &n, &err) != TL_OK) ...;
 *     printf("tip within %.3f H\n", fits[0].error_max);
 */
#ifndef TAILOR_VRM_H
#define TAILOR_VRM_H

#include <tailor/base.h>
#include <tailor/gltf.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_vrm_def {
    float fps;            /* the runtime's frame rate the fit plays at, Hz; 60 */
    float warmup_seconds; /* played before the fitted window (both start at rest at clip
                             time 0: tailor on its rest arc, VRM at the file's settled rest,
                             so the first moments differ by construction), s; 2 */
    float fit_seconds;    /* the fitted window, s; 4 (the clip loops) */
    const char* clip;     /* the clip fitted on: NULL takes the first whose name contains
                             "walk" (any case), else clip 0; no clip: default settings */
    bool colliders;       /* write the body colliders; true */
    uint32_t evaluations; /* runs the search may make per fitted group (each runs every
                             chain of the group: the hair locks together, else one chain);
                             3000 */
} tl_vrm_def;

tl_vrm_def tl_default_vrm_def(void);

/* What the fit found for one chain. */
typedef struct tl_vrm_fit {
    uint32_t node;        /* the chain's first bone */
    int32_t clip;         /* index into the scene's clips fitted on, or TL_NONE */
    uint32_t joints;      /* joints written, the end joint included */
    uint32_t colliders;   /* colliders in its group */
    float stiffness[2];   /* written at the root and the last bone (linear between), world
                             units / s as the runtime reads them */
    float drag[2];        /* dragForce at the root and the last bone, 0..1 */
    float gravity_power;  /* world units / s */
    float hit_radius[2];  /* world units, root and last bone */
    double error_rms;     /* RMS distance between the VRM tip and tailor's over the
                             window, x H; NaN without a clip */
    double error_max;     /* the largest distance in the window, x H */
    double error_default; /* error_rms with the search's starting settings, x H */
    uint32_t evaluations; /* runs of its group the search made */
} tl_vrm_fit;

/* Writes every chain of the document (tl_play_chains_find on a scene built from it) as a
 * VRMC_springBone spring, fitted (above), and reindexes. Writes at most `capacity` fits and
 * the chain count to *count. No chains: nothing changes, *count 0. TL_ERROR_UNSUPPORTED for
 * a file with VRM 0.x spring bones (left untouched); TL_ERROR_INVALID when an existing
 * VRMC_springBone is malformed (the JSON pointer said); TL_ERROR_MEMORY. */
tl_result tl_vrm_write(tl_gltf* doc, const tl_vrm_def* def, tl_vrm_fit* fits, uint32_t capacity,
                       uint32_t* count, tl_error* err);

/* One spring the file carries, as a VRM runtime reads it. */
typedef struct tl_vrm_spring {
    uint32_t version;         /* 0: a VRM 0.x secondaryAnimation bone group; 1: VRMC_springBone */
    const char* name;         /* the spring's name (0.x: its comment), "" if none; into the doc */
    uint32_t joint_count;     /* 1.0: joints listed; 0.x: root bones listed (each moves with its
                                 whole subtree) */
    uint32_t first_node;      /* the first joint (root bone) */
    uint32_t last_node;       /* the last joint listed */
    float stiffness;          /* of the first joint (0.x: the group's "stiffiness") */
    float gravity_power;      /* the same */
    float drag_force;         /* the same */
    float hit_radius;         /* the same */
    uint32_t collider_groups; /* groups it collides with */
    bool tailor;              /* written by tl_vrm_write (extras.tailor) */
} tl_vrm_spring;

/* The springs of the file: VRMC_springBone 1.0 and VRM 0.x secondaryAnimation groups. Writes
 * at most `capacity`, the number to *count, and the colliders of both to *colliders (NULL:
 * not wanted). TL_ERROR_INVALID names the JSON pointer of a malformed entry. */
tl_result tl_vrm_springs(const tl_gltf* doc, tl_vrm_spring* out, uint32_t capacity, uint32_t* count,
                         uint32_t* colliders, tl_error* err);

/* Plays VRMC_springBone spring `spring` of the document (tl_vrm_springs order among the 1.0
 * ones) through tailor's implementation of the VRM rule: the clip at frame f / fps (looping)
 * under the scene's pose, reset at frame 0 (each joint at its node's transform), one runtime
 * update of 1 / fps per later frame. Writes frames x joint_count x 3 world positions of its
 * joints (the last: the end joint) to `positions`, and the joint count to *joints (at most
 * TL_CHAIN_MAX_BONES + 1). The preview of what three-vrm shows, and the fit's check.
 * TL_ERROR_NOT_FOUND without that spring; TL_ERROR_INVALID as tl_vrm_springs. */
tl_result tl_vrm_play(const tl_gltf* doc, const tl_scene* scene, uint32_t spring, uint32_t clip,
                      float fps, uint32_t frames, float* positions, uint32_t* joints,
                      tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
