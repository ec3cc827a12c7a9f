"""Imports a rigged glTF into an empty Blender scene, measures how far each of tailor's bones
(Tail_1 ... and Tail.NNN_1 ..., not the _End joints) points from its child joint, under the
importer's default bone heuristic and under "BLENDER" (bones along the file's +Y), then
exports the default import back twice: with extras kept and with the exporter's defaults
(extras dropped). Prints one JSON line: {"angles": {heuristic: {bone: degrees}}}.
Usage: blender -b --factory-startup --python tests/blender_bones.py -- IN.glb OUT_EXTRAS.glb OUT_DEFAULT.glb
test_bake runs it (Debian's blender 3.4)."""
import json
import re
import sys

import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's blender 3.4 glTF add-on still uses numpy.bool (gone in 1.24)
import bpy

TAILOR_BONE = re.compile(r"^Tail(\.\d+)?_\d+$")


def measure():
    out = {}
    for obj in bpy.data.objects:
        if obj.type != "ARMATURE":
            continue
        for bone in obj.data.bones:
            if not TAILOR_BONE.match(bone.name):
                continue
            children = list(bone.children)
            if len(children) != 1:
                out[bone.name] = None
                continue
            y = bone.tail_local - bone.head_local
            d = children[0].head_local - bone.head_local
            out[bone.name] = y.angle(d) * 180.0 / 3.141592653589793
    return out


argv = sys.argv[sys.argv.index("--") + 1:]
angles = {}
for heuristic in ("BLENDER", None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if heuristic:
        bpy.ops.import_scene.gltf(filepath=argv[0], bone_heuristic=heuristic)
    else:
        bpy.ops.import_scene.gltf(filepath=argv[0])
    angles[heuristic or "default"] = measure()
bpy.ops.export_scene.gltf(filepath=argv[1], export_format="GLB", export_extras=True,
                          export_image_format="NONE")
bpy.ops.export_scene.gltf(filepath=argv[2], export_format="GLB", export_image_format="NONE")
print("TAILOR_RESULT " + json.dumps({"angles": angles}))
