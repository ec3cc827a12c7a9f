/* tailor — bone chains and secondary motion for auto-rigged glTF characters.
 *
 * The umbrella header: include this one. Modules, bottom to top:
 *   base.h    results, errors and allocators
 *   file.h    the one reader of a user's file (regular files only, never blocking, bounded)
 *   output.h  the one writer: every output file complete or not at all, never an input
 *   gltf.h    the lossless glTF document (read, edit, write)
 *   sim.h     the runtime spring-chain solver (no I/O, no allocation per step)
 *   mesh.h    mesh algorithms on plain arrays (weld, graphs, geodesics, PCA, boxes)
 *   scene.h   rest-world frame, joint roles, clips, poses, skinning
 *   rig.h     far parts, tail chains and their weights
 *   measure.h edge stretch and weighted bone distance
 *   play.h    clip playback with the spring chains simulated
 *   vrm.h     the chains as VRM 1.0 spring bones (VRMC_springBone), fitted to the player
 *   render.h  a software rasteriser for thumbnails of a posed character
 *   seating.h ground seating that ignores the chains' skin
 *   stress.h  stress tests of a simulated chain (shake, frame rate, hitch, teleport)
 *   batch.h   rig many files: inputs, shards, records, the resumable journal, worker threads
 *   hair.h    hair guides: scalp, guide curves, root bindings, fragment links, the audit
 *
 * Not included here: gltf_json.h (the document's jansson tree, for those who want it) and
 * sample.h (the built-in test characters, a library of their own: tailor_sample).
 */
#ifndef TAILOR_H
#define TAILOR_H

#include <tailor/base.h>
#include <tailor/file.h>
#include <tailor/output.h>
#include <tailor/gltf.h>
#include <tailor/sim.h>
#include <tailor/mesh.h>
#include <tailor/scene.h>
#include <tailor/colliders.h>
#include <tailor/rig.h>
#include <tailor/measure.h>
#include <tailor/play.h>
#include <tailor/bake.h>
#include <tailor/vrm.h>
#include <tailor/seating.h>
#include <tailor/stress.h>
#include <tailor/batch.h>
#include <tailor/render.h>
#include <tailor/hair.h>
#include <tailor/pendulum.h>

#endif
