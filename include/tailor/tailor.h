/* tailor — bone chains and secondary motion for auto-rigged glTF characters.
 *
 * The umbrella header: include this one. Modules, bottom to top:
 *   base.h    results and errors
 *   output.h  the one writer: every output file complete or not at all, never an input
 *   gltf.h    the lossless glTF document (read, edit, write)
 *   sim.h     the runtime spring-chain solver (no I/O, no allocation per step)
 *   sample.h  built-in test characters with known ground truth
 *   mesh.h    mesh algorithms on plain arrays (weld, graphs, geodesics, PCA, boxes)
 *   scene.h   rest-world frame, joint roles, clips, poses, skinning
 *   rig.h     far parts, tail chains and their weights
 *   measure.h edge stretch and weighted bone distance
 *   play.h    clip playback with the spring chains simulated
 *   seating.h ground seating that ignores the chains' skin
 *   stress.h  stress tests of a simulated chain (shake, frame rate, hitch, teleport)
 */
#ifndef TAILOR_H
#define TAILOR_H

#include <tailor/base.h>
#include <tailor/output.h>
#include <tailor/gltf.h>
#include <tailor/sim.h>
#include <tailor/sample.h>
#include <tailor/mesh.h>
#include <tailor/scene.h>
#include <tailor/rig.h>
#include <tailor/measure.h>
#include <tailor/play.h>
#include <tailor/seating.h>
#include <tailor/stress.h>

#endif
