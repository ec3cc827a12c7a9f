/* The keys of extras.tailor (docs/schema.md), spelled once for the one writer (src/rig/write.c)
 * and the one reader (src/scene/parts.c). Not part of the public API. */
#ifndef TL_SCENE_SCHEMA_H
#define TL_SCENE_SCHEMA_H

#include <tailor/cloth.h>
#include <tailor/pendulum.h>
#include <tailor/sim.h>

#include <tailor/gltf.h>

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The version this build writes, and the newest it reads (it reads every older one). */
#define TL_SCHEMA_VERSION 2

#define TL_SCHEMA_KEY "tailor" /* under "extras" of a part's node and of a skin */
#define TL_SCHEMA_VERSION_KEY "version"
#define TL_SCHEMA_KIND "kind"
#define TL_SCHEMA_ATTACHMENT "attachment"
#define TL_SCHEMA_ATTACHMENT_NAME "attachment_name"
#define TL_SCHEMA_BONES "bones"
#define TL_SCHEMA_BONE_NAMES "bone_names"
#define TL_SCHEMA_RADII "radii"
#define TL_SCHEMA_CHAIN "chain"
#define TL_SCHEMA_CLOTH "cloth"                    /* a cloth part's lattice and settings (below) */
#define TL_SCHEMA_COLLIDERS "colliders"            /* on a skin: its body colliders */
#define TL_SCHEMA_COLLIDER_JOINT "joint"           /* a collider's node (a joint of the skin) ... */
#define TL_SCHEMA_COLLIDER_JOINT_NAME "joint_name" /* ... and that node's name */
#define TL_SCHEMA_COLLIDER_ROLE "role"
#define TL_SCHEMA_COLLIDER_SIDE "side"
#define TL_SCHEMA_COLLIDER_SHAPE "shape"
#define TL_SCHEMA_COLLIDER_A "a"
#define TL_SCHEMA_COLLIDER_B "b"
#define TL_SCHEMA_COLLIDER_RADIUS "radius"
#define TL_SCHEMA_COLLIDER_AXES "axes"
#define TL_SCHEMA_COLLIDER_VERTICES "vertices"
#define TL_SCHEMA_HIT_RADIUS "hit_radius" /* a hair part's lock thickness, bind units */
#define TL_SCHEMA_SHEET "sheet"           /* on a skin: its hair parts' sheet ties (below) */
#define TL_SCHEMA_SHEET_PARTS "parts"     /* a tie's two part nodes ... */
#define TL_SCHEMA_SHEET_LINKS "links"     /* ... their links ... */
#define TL_SCHEMA_SHEET_AT "at"           /* ... the tied points along them, 0..1 ... */
#define TL_SCHEMA_SHEET_SEAM "seam"       /* ... and the seam's mean rest edge, world units */
/* On a skin: what tailor rig --hair-fit did (a record: the clips, poses, free and changed
   vertices; no reader plays it; its presence keeps a later --hair-fit from fitting again) */
#define TL_SCHEMA_HAIR_FIT "hair_fit"
#define TL_SCHEMA_V1_SCALE "scale" /* version 1 wrote chain.scale; nothing read it */

/* On a skin: its frame (up, forward, lateral; rest-world) */
#define TL_SCHEMA_FRAME "frame"
#define TL_SCHEMA_FRAME_UP "up"
#define TL_SCHEMA_FRAME_FORWARD "forward"
#define TL_SCHEMA_FRAME_LATERAL "lateral"

/* The shape names, indexed by tl_collider_shape: "sphere", "capsule", "plane", "ellipsoid". */
extern const char* const tl_schema_collider_shapes[4];

/* One spring setting: its key, where it sits in tl_chain_settings and its range. */
typedef struct tl_schema_setting {
    const char* key;
    size_t offset; /* of the float in tl_chain_settings (tl_cloth_settings for cloth) */
    float min;     /* -INFINITY: no lower bound */
    bool min_open; /* the value must be > min rather than >= min */
    float max;     /* INFINITY: no upper bound (inclusive) */
} tl_schema_setting;

enum { TL_SCHEMA_SETTING_COUNT = 10 };
extern const tl_schema_setting tl_schema_settings[TL_SCHEMA_SETTING_COUNT];

/* The setting's field in a settings struct. */
float* tl_schema_setting_field(const tl_schema_setting* s, tl_chain_settings* settings);

/* False when `value` is out of the setting's range (not finite as a float, or past a bound);
 * then `why` says so ("must be > 0"). */
bool tl_schema_setting_check(const tl_schema_setting* s, double value, char* why, size_t size);

/* extras.tailor.cloth of a part of kind cloth (docs/schema.md) */
#define TL_SCHEMA_CLOTH_ROWS "rows"
#define TL_SCHEMA_CLOTH_COLUMNS "columns"
#define TL_SCHEMA_CLOTH_CLOSED "closed"
#define TL_SCHEMA_CLOTH_BONE_COLUMNS "bone_columns"
#define TL_SCHEMA_CLOTH_PARTICLES "particles"             /* rows x columns x 3, bind space */
#define TL_SCHEMA_CLOTH_PARTICLE_JOINTS "particle_joints" /* rows x columns node indices */
#define TL_SCHEMA_CLOTH_SETTINGS "settings"
#define TL_SCHEMA_CLOTH_ITERATIONS "iterations" /* the one integer setting */

/* The cloth's float settings: key, field in tl_cloth_settings, range (as tl_schema_setting). */
enum { TL_SCHEMA_CLOTH_SETTING_COUNT = 14 };
extern const tl_schema_setting tl_schema_cloth_settings[TL_SCHEMA_CLOTH_SETTING_COUNT];
float* tl_schema_cloth_setting_field(const tl_schema_setting* s, tl_cloth_settings* settings);

/* extras.tailor of a part of kind pendulum or aim (docs/schema.md), on the joint it turns */
#define TL_SCHEMA_PENDULUM "pendulum"                      /* the pendulum's settings */
#define TL_SCHEMA_PENDULUM_REST_DIRECTION "rest_direction" /* 3 numbers, the joint's frame */
#define TL_SCHEMA_AIM "aim"                                /* the aim's settings */
#define TL_SCHEMA_AIM_AXIS "aim_axis"                      /* 3 numbers, the joint's frame */
#define TL_SCHEMA_AIM_TARGET "target"                      /* the node it points at ... */
#define TL_SCHEMA_AIM_TARGET_NAME "target_name"            /* ... and that node's name */

/* The pendulum's and the aim's float settings: key, field in tl_pendulum_def / tl_aim_def,
 * range (the ones tl_pendulum_init checks and tl_aim_solve asserts). */
enum { TL_SCHEMA_PENDULUM_SETTING_COUNT = 6, TL_SCHEMA_AIM_SETTING_COUNT = 2 };
extern const tl_schema_setting tl_schema_pendulum_settings[TL_SCHEMA_PENDULUM_SETTING_COUNT];
extern const tl_schema_setting tl_schema_aim_settings[TL_SCHEMA_AIM_SETTING_COUNT];

/* skins[skin].extras.tailor of the document, made when absent, with this build's version set;
 * NULL when the skin does not exist or its extras are not an object. (Every writer of a skin's
 * record goes through it: tailor rig's colliders, frame and sheet.) */
json_t* tl_schema_skin_record(tl_gltf* doc, uint32_t skin);

#endif
