/* tailor/scene.h — the evaluated character: rest-world frame, joint roles, clips, poses,
 * skinning, and the parts tailor stored in the file.
 *
 * A tl_scene is built once from a tl_gltf and is read-only afterwards. It reads every
 * accessor it needs at build time (inverse bind matrices, vertex positions, joints and
 * weights, triangles, animation keys) into plain float/uint arrays, so evaluating a pose
 * or skinning a mesh never touches JSON and never allocates. It is also the one reader of
 * extras.tailor (docs/schema.md): the parts are decoded and checked at build time into
 * tl_scene_part, which players and measurements use instead of the JSON.
 *
 * Frames (see the spec's "Conventions"):
 *   - Bind space: where mesh POSITIONs and inverse bind matrices (IBMs) live. A joint's
 *     bind-space matrix is IBM^-1.
 *   - World: the file's own scene space (node transforms multiplied from the roots).
 *   - Rest-world: bind space placed in the world by M = W_file(top joint) · IBM(top joint)
 *     (tl_scene_skin.rest_world). A joint's rest-world matrix is M · IBM^-1. Skinning
 *     (glTF: v = Σ w · W(joint) · IBM(joint) · p) produces world coordinates; in the rest
 *     pose (tl_pose_set_rest) W(joint) · IBM(joint) = M for every joint, so the skinned
 *     bind mesh is exactly M · p: rest-world coordinates and world coordinates are the
 *     same coordinates, and every pose is measured in that one frame. "Up", "height" and
 *     the floor are defined there.
 *   - Rest (neutral) local transforms come from the IBMs, never from the node transforms
 *     stored in the file (those may be any saved frame of an animation):
 *     local_rest(j) = W_rest(parent)^-1 · M · IBM(j)^-1, which is IBM(parent) · IBM(j)^-1
 *     when the parent is a joint of the same skin.
 *
 * Indices: a "node" is an index into doc->nodes; a "joint" is an index into one skin's
 * joint list (tl_scene_skin.joints, the same order as the file's skin.joints). Poses are
 * per node; roles and landmarks are per joint.
 *
 * Ownership: tl_scene_create allocates the scene and everything it points to;
 * tl_scene_destroy frees it. The scene keeps a pointer to the document (names, node
 * parents), so the document must outlive the scene and must not be reindexed while the
 * scene is in use (tl_scene_refresh rebuilds it after an edit). A tl_pose belongs to the caller
 * (tl_pose_create / tl_pose_destroy) and may be reused for any number of samples of the scene it
 * was made for.
 *
 * Example:
 *     tl_scene* scene; tl_error err;
 *     if (tl_scene_create(doc, &scene, &err) != TL_OK) { puts(err.message); return 1; }
 *     const tl_scene_skin* skin = &scene->skins[0];
 *     uint32_t clip;
 *     if (tl_scene_find_clip(scene, "Walk", &clip, &err) != TL_OK) { puts(err.message); ... }
 *     tl_pose* pose = tl_pose_create(scene);
 *     float* joints = malloc(sizeof(float) * 16 * skin->joint_count);
 *     float* positions = malloc(sizeof(float) * 3 * skin->vertex_count);
 *     for (float t = 0; t <= scene->clips[clip].duration; t += 1.0f / 30) {
 *         tl_pose_sample(pose, scene, clip, t);
 *         tl_pose_joint_matrices(pose, scene, 0, joints);
 *         tl_scene_skin_positions(scene, 0, joints, positions); // world = rest-world
 *     }
 *     free(positions); free(joints); tl_pose_destroy(pose); tl_scene_destroy(scene);
 */
#ifndef TAILOR_SCENE_H
#define TAILOR_SCENE_H

#include <tailor/base.h>
#include <tailor/cloth.h>
#include <tailor/gltf.h>
#include <tailor/pendulum.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a joint is in the body. Roles come from names first (Mixamo, Blender .L/.R and
 * _L/_R, Left/Right, Khronos b_LeftLeg01_015, Quaternius, KayKit, CesiumMan, MakeHuman,
 * VRM; case-insensitive) and from the skeleton's shape where names say nothing. Several
 * joints may share a role (twist segments: MakeHuman upperleg01/upperleg02 are both
 * thigh); tl_scene_body names the one main joint of each. docs/scene.md lists the rules. */
typedef enum tl_role {
    TL_ROLE_NONE,   /* anything else: root, tail, ears, fingers, hair, IK/pole/control */
    TL_ROLE_PELVIS, /* the joint whose subtree holds both legs and the spine */
    TL_ROLE_SPINE,  /* torso joints other than pelvis and chest */
    TL_ROLE_CHEST,  /* the torso joint the arms (front legs) branch from */
    TL_ROLE_NECK,
    TL_ROLE_HEAD,
    TL_ROLE_HIP,   /* a leg-girdle joint between pelvis and thigh (MakeHuman pelvis.L,
                      Quaternius BackShoulder.L/BackLeg.L) */
    TL_ROLE_THIGH, /* upper leg; on quadrupeds the hind upper leg */
    TL_ROLE_SHIN,  /* lower leg; on quadrupeds the hind lower leg */
    TL_ROLE_FOOT,
    TL_ROLE_TOE,
    TL_ROLE_SHOULDER,  /* clavicle / arm girdle; on quadrupeds the front-leg girdle */
    TL_ROLE_UPPER_ARM, /* on quadrupeds the front upper leg */
    TL_ROLE_FOREARM,   /* on quadrupeds the front lower leg */
    TL_ROLE_HAND,      /* on quadrupeds the front foot */
    TL_ROLE_COUNT
} tl_role;

/* The character's own side (its left, not the viewer's). Used to index [2] arrays. */
typedef enum tl_side {
    TL_SIDE_LEFT = 0,
    TL_SIDE_RIGHT = 1,
    TL_SIDE_NONE = 2,
} tl_side;

/* Short fixed names: "pelvis", "upper_arm", …; "left", "right", "none". Never NULL. */
const char* tl_role_string(tl_role role);
const char* tl_side_string(tl_side side);

/* A local transform: translation, rotation quaternion (x, y, z, w; unit length), scale. */
typedef struct tl_trs {
    float translation[3];
    float rotation[4];
    float scale[3];
} tl_trs;

/* Column-major 4×4 matrix (glTF layout) from TRS: T · R · S. */
void tl_trs_to_matrix(const tl_trs* trs, float out[16]);
/* TRS from an affine matrix (shear is dropped; a negative determinant flips scale.x). */
tl_trs tl_trs_from_matrix(const float m[16]);

/* One joint of a skin, with everything derived from its inverse bind matrix. */
typedef struct tl_scene_joint {
    uint32_t node;    /* index into doc->nodes */
    int32_t parent;   /* nearest ancestor that is a joint of this skin, or TL_NONE */
    const char* name; /* the node's name, or "" */
    tl_role role;
    tl_side side;           /* from the name (.L, _R, Left…), else from the shape */
    bool deforming;         /* carries skin weight in some primitive bound to this skin */
    float inverse_bind[16]; /* the IBM (identity when the skin has none) */
    float rest_world[16];   /* M · IBM^-1: the joint in the rest-world frame */
    tl_trs rest;            /* neutral local transform (see the top of this file) */
} tl_scene_joint;

/* The main joint of each role (joint indices, or TL_NONE); arrays are indexed by tl_side. */
typedef struct tl_scene_body {
    int32_t pelvis, chest, neck, head;
    int32_t hip[2], thigh[2], shin[2], foot[2], toe[2];
    int32_t shoulder[2], upper_arm[2], forearm[2], hand[2];
} tl_scene_body;

/* The most body colliders one skin has (13 bones, some split in two; colliders.h). */
#define TL_BODY_COLLIDERS_MAX 26

/* A body collider riding one joint (colliders.h): fitted by tl_body_colliders_fit, or stored
 * in the file (extras.tailor.colliders, docs/schema.md) and read into tl_scene_skin. */
typedef struct tl_body_collider {
    uint32_t joint; /* the skin joint it rides (index into the skin's joints) */
    tl_role role;   /* of that joint */
    tl_side side;
    tl_collider local; /* in the skin's rest-world frame (the rest pose) */
    uint32_t vertices; /* skin vertices it was fitted to (0: not stored) */
} tl_body_collider;

/* One mesh primitive bound to a skin, and where its vertices and triangles sit in the
 * skin's union arrays. */
typedef struct tl_scene_primitive {
    uint32_t node; /* the first node that instances the mesh with this skin */
    uint32_t mesh;
    uint32_t primitive;    /* index into doc->meshes[mesh].primitives */
    uint32_t first_vertex; /* into the skin's vertex arrays */
    uint32_t vertex_count;
    uint32_t first_triangle; /* into the skin's triangle array */
    uint32_t triangle_count;
} tl_scene_primitive;

/* A skin with the union of every surface primitive (modes 4-6) bound to it (a mesh bound by
 * several nodes is counted once), its rest-world frame, roles and the character's axes. */
typedef struct tl_scene_skin {
    uint32_t skin;                /* index into doc->skins */
    const tl_scene_joint* joints; /* joint_count, in the file's order */
    uint32_t joint_count;
    uint32_t top;               /* the joint M comes from: of the joints with no joint
                                   ancestor, the one with the most joints below it */
    uint32_t top_count;         /* joints with no joint ancestor (5 on Quaternius animals) */
    float rest_world[16];       /* M = W_file(top) · IBM(top) */
    const uint32_t* live_order; /* the nodes this skin's joints hang from: its joints and their
                                   ancestors, in node_order (tl_pose_keep_skin) */
    uint32_t live_count;

    const tl_scene_primitive* primitives;
    uint32_t primitive_count;
    uint32_t vertex_count;            /* sum over primitives */
    const float* bind_positions;      /* vertex_count × 3, bind space (POSITION as stored) */
    const float* rest_positions;      /* vertex_count × 3, rest-world: M · bind position */
    uint32_t influence_count;         /* influences per vertex: 4 × the most JOINTS_n sets */
    const uint32_t* influence_joints; /* vertex_count × influence_count joint indices */
    const float* influence_weights;   /* the same shape; each vertex sums to 1 (weights
                                         are normalised as three.js does; a vertex with
                                         no weight is bound to joint 0) */
    uint32_t triangle_count;          /* triangles (modes 4, 5, 6) of every primitive */
    const uint32_t* triangles;        /* triangle_count × 3 indices into the union */

    /* The character's frame in rest-world coordinates (unit vectors, right-handed:
     * forward = lateral × up). up is a rest-world coordinate axis: +Y, unless
     * every leg signal names the same other axis (per leg: the axis nearest to the
     * direction from its farthest skin vertex to the thigh, and from its farthest joint to
     * the pelvis). lateral runs from the
     * right thigh to the left thigh (upper arms if no thighs; +X if neither), made
     * perpendicular to up. A frame the file stores (extras.tailor.frame, written by tailor
     * rig) replaces this one: see frame_stored. */
    float up[3], forward[3], lateral[3];
    float height; /* H: extent of rest_positions along up (0: no mesh) */
    float floor;  /* the lowest rest_positions coordinate along up */
    tl_scene_body body;

    const tl_body_collider* colliders; /* the body colliders the file stores for this skin
                                          (extras.tailor.colliders), or NULL */
    uint32_t collider_count;           /* 0..TL_BODY_COLLIDERS_MAX */
    bool frame_stored;                 /* up, forward, lateral (and so height, floor) are the file's
                                          extras.tailor.frame (docs/schema.md), not the roles' */
} tl_scene_skin;

/* One animated channel, keys read from the file at build time. */
typedef struct tl_scene_channel {
    uint32_t node;
    tl_gltf_path path; /* translation, rotation or scale only */
    tl_gltf_interpolation interpolation;
    uint32_t key_count;
    const float* times;  /* key_count seconds, non-decreasing */
    const float* values; /* key_count × components, or × 3 × components for
                            CUBICSPLINE (in-tangent, value, out-tangent) */
    uint32_t components; /* 3, or 4 for rotation */
} tl_scene_channel;

/* Bounds on what a file may claim (docs/hostile.md). Beyond them tl_scene_create fails with
 * TL_ERROR_LIMIT and the JSON pointer of the value, so that work stays proportional to the
 * character and arithmetic on its coordinates cannot overflow a float:
 *   - key times: from 0 (glTF) to TL_SCENE_MAX_CLIP_SECONDS; the clip's duration caps the
 *     samples and the simulated time of every command;
 *   - every coordinate-like value (POSITION, inverse bind matrices, animation keys, node
 *     world transforms, vertices placed in the world): |v| <= TL_SCENE_MAX_MAGNITUDE, so
 *     a squared distance (1e24) or a product of three (1e36) is still a finite float. */
#define TL_SCENE_MAX_CLIP_SECONDS 3600.0f            /* one hour */
#define TL_SCENE_MAX_MAGNITUDE TL_GLTF_MAX_MAGNITUDE /* gltf.h */

/* A clip is one glTF animation. Channels targeting morph weights or extensions are
 * kept in the file but not evaluated. */
typedef struct tl_scene_clip {
    const char* name;   /* the animation's name, or "" */
    uint32_t animation; /* index into doc->animations */
    float start;        /* the earliest key time, seconds */
    float duration;     /* the latest key time, seconds (glTF clips play 0..duration) */
    const tl_scene_channel* channels;
    uint32_t channel_count;
} tl_scene_clip;

/* What a part stored in the file is (extras.tailor.kind, docs/schema.md). */
typedef enum tl_part_kind {
    TL_PART_TAIL,     /* a spring chain of new bones hanging from a body joint */
    TL_PART_HAIR,     /* a guide chain of a hair mesh (tailor rig, tailor hair) */
    TL_PART_CLOTH,    /* a cloth lattice driving bones (a skirt, a cape) */
    TL_PART_PENDULUM, /* an existing joint swung by a one-particle pendulum (a hood) */
    TL_PART_AIM,      /* an existing joint turned toward a target joint (a shoulder pad) */
} tl_part_kind;

/* "tail", "hair", "cloth", "pendulum", "aim". Never NULL. */
const char* tl_part_kind_string(tl_part_kind kind);

/* One part tailor rig stored in the file (extras.tailor on the node of its first bone,
 * docs/schema.md), decoded and checked once when the scene is built. Joints are indices
 * into skins[skin].joints. Consumers (play, measure) read these, never the JSON. */
typedef struct tl_scene_part {
    tl_part_kind kind;
    uint32_t node;               /* the node whose extras hold the part */
    uint32_t version;            /* the schema version it was written with, 1.. */
    uint32_t skin;               /* index into tl_scene.skins */
    uint32_t attach_joint;       /* the joint the part hangs from */
    uint32_t bone_count;         /* 1..TL_CHAIN_MAX_BONES, root first */
    const uint32_t* bone_joints; /* bone_count joints (Tail_1 … Tail_K) */
    uint32_t end_joint;          /* the weightless end joint (Tail_End) */
    const float* radii;          /* bone_count skin radii at the bone heads, bind units;
                                    0: unknown (the file has none) */
    tl_chain_settings chain;     /* tail, hair: the spring settings; a key the file lacks
                                    has its default (tl_default_chain_settings) */
    float hit_radius;            /* hair: the lock's thickness tailor rig stored
                                    (extras.tailor.hit_radius, bind units: what
                                    tl_play_chains_find finds, for readers without the
                                    skin's arithmetic); -1 when absent. The player plays it
                                    (finds its own only when absent) */
    /* cloth: the lattice of extras.tailor.cloth (docs/schema.md); bone_joints lists its bones
     * row by row (bone (r, b) at particle (r, 2 b)), and end_joint is its last bone */
    uint32_t cloth_rows, cloth_columns;    /* particles: rows x columns (0 unless cloth) */
    uint32_t cloth_bone_columns;           /* bone columns: bone_count / (rows - 1) */
    bool cloth_closed;                     /* the columns close around (a skirt) */
    const float* cloth_particles;          /* rows x columns x 3 rest positions, bind space */
    const uint32_t* cloth_particle_joints; /* rows x columns: the skin joint each particle's
                                              rest position is skinned to */
    tl_cloth_settings cloth;               /* the cloth's settings (defaults where absent) */
    /* pendulum, aim: bone_count 1, bone_joints[0] (= end_joint) the joint they turn, an existing
     * joint of the skin; attach_joint its parent joint (itself when it has none) */
    tl_pendulum_def pendulum; /* pendulum: length, gravity and teleport_distance in metres of a
                                 1.8 m character (the player multiplies them by H / 1.8 m, as
                                 def.scale); rest_direction in the joint's own frame, unit; up,
                                 fixed_step and max_substeps the player's */
    tl_aim_def aim;           /* aim: aim_axis in the joint's own frame, unit */
    uint32_t aim_target;      /* aim: the joint it points at (not the joint or below it) */
    bool resolved_by_name;    /* some stored node index disagreed with its stored name
                                 (the nodes were renumbered) and the name was used */
    bool from_names;          /* the file has no extras.tailor (an exporter dropped it):
                                 the chain was recognised from tailor rig's joint names
                                 (Tail_1 … Tail_K, Tail_End; Tail.001_1 …), version 0,
                                 default settings, radii 0; a note says so */
} tl_scene_part;

typedef struct tl_scene {
    const tl_gltf* doc;
    uint32_t node_count;
    const uint32_t* node_order; /* node_count nodes, every parent before its children */
    const tl_trs* stored;       /* node_count local transforms as the file stores them
                                   (a "matrix" node decomposed) */
    const float* stored_world;  /* node_count × 16 world matrices of the stored transforms */
    const uint32_t* live_order; /* the nodes whose world a clip or a chain can change, in
                                   node_order: joints, animated nodes and all below them */
    uint32_t live_count;        /* how many; tl_pose_sample costs this, not node_count */
    const tl_scene_skin* skins; /* one per doc->skins, same order */
    uint32_t skin_count;
    const tl_scene_clip* clips; /* one per doc->animations, same order */
    uint32_t clip_count;
    const tl_scene_part* parts; /* the parts stored in the file, in node order */
    uint32_t part_count;
    const uint32_t* joint_parts; /* the parts of kind pendulum and aim (indices into parts) in
                                    the order a player applies them: the pendulums, then each
                                    aim after the aims whose joints carry its target */
    uint32_t joint_part_count;
    const char* const* notes; /* what the reader of extras.tailor did that the file did not
                                 say plainly, "FILE: /json/pointer: what" (indices resolved
                                 by name, unknown keys ignored); for the caller to show */
    uint32_t note_count;
    void* internal; /* storage; do not touch */
} tl_scene;

/* A pendulum for joint `joint` of a skin (docs/schema.md kind pendulum), in the units the part
 * stores: rest_direction (the joint's frame) toward its first child joint, else along its bone
 * from its parent, else down; length that child's distance in metres of a 1.8 m character, else
 * 0.2; length_m > 0 replaces it. */
tl_pendulum_def tl_part_default_pendulum(const tl_scene* scene, uint32_t skin, uint32_t joint,
                                         float length_m);
/* An aim for joint `joint` of a skin: aim_axis (the joint's frame) toward its first child
 * joint, else along its bone from its parent, else +Y; weight 1, max_angle_deg 45. */
tl_aim_def tl_part_default_aim(const tl_scene* scene, uint32_t skin, uint32_t joint);

/* Stores a part of kind pendulum (aim: pointing at node `target`) as extras.tailor of `node`, a
 * joint (docs/schema.md); the node's other extras are kept. TL_ERROR_INVALID when the node
 * already holds a part. The scene built from the document checks the rest (tl_scene_create). */
tl_result tl_part_write_pendulum(tl_gltf* doc, uint32_t node, const tl_pendulum_def* def,
                                 tl_error* err);
tl_result tl_part_write_aim(tl_gltf* doc, uint32_t node, uint32_t target, const tl_aim_def* def,
                            tl_error* err);
/* Stores scene skin `skin`'s frame (up, forward, lateral, rest-world: what the player takes) as
 * skins[s].extras.tailor.frame of its glTF skin (docs/schema.md), so every reader of the file
 * plays its parts by it; the skin's other extras are kept and its record gets a version. */
tl_result tl_skin_write_frame(tl_gltf* doc, const tl_scene* scene, uint32_t skin, tl_error* err);

/* Builds the scene view. Fails (with the file, JSON pointer and reason) when an accessor
 * the scene needs is unreadable or inconsistent: IBM count below the joint count, joint
 * indices past the skin's joints, key times decreasing or with the wrong count of values;
 * or when extras.tailor is of a newer schema version than this build reads, malformed, out
 * of range or names joints that are not there (docs/schema.md). */
tl_result tl_scene_create(const tl_gltf* doc, tl_scene** out, tl_error* err);

/* Builds the scene again from its document, in place, after the document changed and was
 * reindexed (tl_rig_apply does both): the same pointer then shows the new joints, weights
 * and parts. Every array the scene held is freed; poses made for it must be made again.
 * On failure the scene is left as it was. */
tl_result tl_scene_refresh(tl_scene* scene, tl_error* err);

/* Frees the scene. NULL is fine. */
void tl_scene_destroy(tl_scene* scene);

/* Finds a clip by exact name, else by the part after the last '|' ("AnimalArmature|Walk"
 * answers to "Walk"), else either ignoring case when only one clip answers ("walk").
 * TL_ERROR_NOT_FOUND: the message suggests the closest clip ("did you mean ...?": one whose
 * name holds what was asked, or the fewest edits within about half its length) and lists the
 * clip names; a name that several clips answer ignoring case names them. */
tl_result tl_scene_find_clip(const tl_scene* scene, const char* name, uint32_t* out_clip,
                             tl_error* err);

/* A joint of a skin by exact node name, or TL_NONE. */
int32_t tl_scene_find_joint(const tl_scene* scene, uint32_t skin, const char* name);

/* Local TRS of every node plus their world matrices. Fields are the caller's to read and
 * to edit (then call tl_pose_update_world). */
typedef struct tl_pose {
    uint32_t node_count;
    tl_trs* locals;        /* node_count */
    float* world;          /* node_count × 16 */
    const uint32_t* order; /* the nodes sampling keeps up to date; NULL: scene->live_order */
    uint32_t order_count;
} tl_pose;

/* From now on sampling, tl_pose_set_rest and tl_pose_update_live keep only this skin's
 * joints and their ancestors up to date (work proportional to that skin, however many other
 * nodes and skins the file has); other nodes' world goes stale. For a pose that only one
 * skin's joints are read from (a player's, a stress run's). */
void tl_pose_keep_skin(tl_pose* pose, const tl_scene* scene, uint32_t skin);

/* Allocates a pose for the scene, set to the stored transforms. NULL when out of memory. */
tl_pose* tl_pose_create(const tl_scene* scene);
void tl_pose_destroy(tl_pose* pose);

/* Every node at its stored local transform; world updated for every node. */
void tl_pose_set_stored(tl_pose* pose, const tl_scene* scene);

/* Every node at its stored transform except the skin's joints, which take their rest
 * (bind) locals; world updated for the live nodes (the others are at their stored
 * transforms, whose world the pose already holds unless the caller edited it). Then every
 * joint's W · IBM equals the skin's M. */
void tl_pose_set_rest(tl_pose* pose, const tl_scene* scene, uint32_t skin);

/* Overwrites the locals the clip animates with their values at `time` (seconds; clamped
 * to the clip's keys). Other locals are left as they are; world is not updated. */
void tl_pose_apply_clip(tl_pose* pose, const tl_scene* scene, uint32_t clip, float time);

/* Recomputes world from locals (parents before children). */
void tl_pose_update_world(tl_pose* pose, const tl_scene* scene);

/* The same for the live nodes only (scene->live_order), when only locals of joints or
 * animated nodes were edited (a player writing its chains' bones). */
void tl_pose_update_live(tl_pose* pose, const tl_scene* scene);

/* The usual call (costs live_count nodes, not node_count: the other nodes cannot move and
 * keep their stored world): stored transforms, then the clip at `time`, then world —
 * what a glTF player shows at that time. */
void tl_pose_sample(tl_pose* pose, const tl_scene* scene, uint32_t clip, float time);

/* Joint matrices W(joint) · IBM(joint) of a skin in this pose; `out` holds
 * joint_count × 16 floats. */
void tl_pose_joint_matrices(const tl_pose* pose, const tl_scene* scene, uint32_t skin, float* out);

/* The joint with the most weight on union vertex `vertex` of a skin (the first on ties). */
uint32_t tl_scene_skin_dominant_joint(const tl_scene_skin* skin, uint32_t vertex);

/* The bones of a skin's joints as rest-world segments (6 floats each: a then b) and the joint
 * each belongs to, in joint order: one segment from a joint to each of its child joints; a
 * leaf gets its parent's bone continued by half that bone's length when the parent deforms,
 * else a zero-length segment (a point). With `deforming_only`, joints that carry no skin
 * weight get none. tl_scene_skin_bones_bound gives the most segments (joint count × 2);
 * returns the number written. The weighted bone distance (measure.h) and the rig's skeleton
 * distance field both measure to these. */
size_t tl_scene_skin_bones_bound(const tl_scene_skin* skin);
size_t tl_scene_skin_bones(const tl_scene_skin* skin, bool deforming_only, float* segments,
                           uint32_t* segment_joint);

/* Linear blend skinning of the skin's union of vertices with the given joint matrices:
 * out[v] = Σ w · J(joint) · bind_position[v], in world (= rest-world) coordinates.
 * `out` holds vertex_count × 3 floats. Morph targets are not applied. */
void tl_scene_skin_positions(const tl_scene* scene, uint32_t skin, const float* joint_matrices,
                             float* out);

#ifdef __cplusplus
}
#endif

#endif
