/* tailor measure's pieces: measure.c (the command), measure_stress.c (--stress),
 * measure_before.c (--before: the other file and the measured one, each played as tailor play
 * plays it, for new tears between them). */
#ifndef TAILOR_CLI_MEASURE_INTERNAL_H
#define TAILOR_CLI_MEASURE_INTERNAL_H

#include "cli.h"

#include <tailor/measure.h>
#include <tailor/play.h>

/* The name of chain i of a rig: its first bone's joint. */
const char* tl_cli_measure_chain_name(const tl_measure_rig* rig, uint32_t i);

/* --stress on the chains of c (NULL: none) and the scene's cloth and joint parts, in clip_name
 * (NULL: tl_stress_default_clip). 0 or the exit code. */
int tl_cli_measure_stress(const char* file, const tl_measure_rig* c, const tl_scene* scene,
                          const char* clip_name, bool as_json);

typedef struct tl_cli_play_side {
    tl_gltf* doc; /* owned (the before file), or NULL (the measured one's) */
    tl_scene* scene;
    tl_player* player;
    uint32_t clip;
} tl_cli_play_side;

/* sides[0] the --before file, sides[1] the measured one (`scene`, not owned), both with players;
 * the same vertex count in skin `skin`. 0 or the exit code (the message printed). */
int tl_cli_sides_open(const char* file, const char* before, tl_scene* scene, uint32_t skin,
                      tl_cli_play_side* sides);
void tl_cli_sides_close(tl_cli_play_side* sides);

/* --region-reweighted: the vertices whose weight on some joint node differs between the two sides
 * by more than 1e-6, into mask (vertex_count). Returns how many. */
uint32_t tl_cli_sides_reweighted(const tl_cli_play_side* sides, uint32_t skin, uint8_t* mask);

/* Each region's new tears (the body's at region_count) between the two sides in clip `clip` of
 * the measured file (the --before file's clip of the same name), into out (region_count + 1).
 * 0 or the exit code. */
int tl_cli_sides_tears(const char* before, const tl_measure_run* run, tl_cli_play_side* sides,
                       uint32_t clip, tl_new_tears* out);

/* A region's "before" object (docs/measure.md), and its text line. */
json_t* tl_cli_before_json(const char* file, const tl_new_tears* t);
void tl_cli_before_print(const char* before, const tl_new_tears* t);

#endif
