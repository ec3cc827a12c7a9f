/* The VRM spring-bone rule (vrm_sim.c), the fit (vrm_fit.c) and the JSON (vrm.c) share these. */
#ifndef TL_EXPORT_VRM_INTERNAL_H
#define TL_EXPORT_VRM_INTERNAL_H

#include <tailor/play.h>
#include <tailor/vrm.h>

#define VRM_MAX_JOINTS (TL_CHAIN_MAX_BONES + 1)
#define VRM_MAX_COLLIDERS 64

/* One joint's settings as the runtime reads them (world units). */
typedef struct vrm_settings {
    double stiffness, gravity_power, gravity_dir[3], drag, hit_radius;
} vrm_settings;

typedef struct vrm_collider {
    uint32_t node;
    bool capsule;
    double offset[3], tail[3]; /* the node's frame */
    double radius;             /* world units */
} vrm_collider;

/* A spring: joints in order (the last only gives the one before it its tail), each joint's
 * node transform as stored (the runtime's initial state), its settings, its colliders. */
typedef struct vrm_spring_def {
    uint32_t count; /* joints, 2..VRM_MAX_JOINTS */
    uint32_t nodes[VRM_MAX_JOINTS];
    tl_trs locals[VRM_MAX_JOINTS];
    vrm_settings settings[VRM_MAX_JOINTS]; /* count - 1 used */
    int32_t parent_node;                   /* nodes[0]'s parent node, or TL_NONE */
    uint32_t collider_count;
    vrm_collider colliders[VRM_MAX_COLLIDERS];
} vrm_spring_def;

/* The runtime's state: local rotations, tails (current, previous), node worlds. */
typedef struct vrm_state {
    double rotation[VRM_MAX_JOINTS][4];
    double tail[VRM_MAX_JOINTS][3], prev[VRM_MAX_JOINTS][3];
    double world[VRM_MAX_JOINTS][16];
} vrm_state;

/* Every joint at its stored transform under the parent's world, tails at rest, still. */
void vrm_reset(const vrm_spring_def* def, vrm_state* s, const double parent_world[16]);

/* One runtime frame of dt under the parent's world and the colliders' node worlds
 * (collider_count x 16, in def->colliders order). */
void vrm_update(const vrm_spring_def* def, vrm_state* s, const double parent_world[16],
                const double* collider_worlds, double dt);

/* A spring from the document's VRMC_springBone (spring index among them); fills def from the
 * document's nodes. TL_ERROR_NOT_FOUND, TL_ERROR_INVALID (with the JSON pointer). */
tl_result vrm_spring_read(const tl_gltf* doc, const tl_scene* scene, uint32_t spring,
                          vrm_spring_def* def, tl_error* err);

/* Fits the settings of `count` chains with one set of knobs (tl_vrm_write: hair locks coupled
 * by the sheet together, other chains one by one), played together as tailor play plays them:
 * each defs[i]'s nodes, locals and colliders filled, its settings written; fits[i] filled. */
tl_result vrm_fit_group(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                        const tl_vrm_def* vdef, vrm_spring_def* defs, tl_vrm_fit* fits,
                        tl_error* err);

#endif
