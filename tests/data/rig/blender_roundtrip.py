"""Imports a glTF into an empty Blender scene and exports it again as GLB with extras kept
(and no images): what a user does who opens a rigged file in Blender and saves it back.
Usage: blender -b --factory-startup --python blender_roundtrip.py -- IN.glb OUT.glb
Made tests/data/rig/fox-rigged-v2-small-blender.glb with Debian's blender 3.4.1 (not a
dependency of the build or the tests; apt-get install blender python3-numpy)."""
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's blender 3.4 add-on still uses numpy.bool, gone in numpy 1.24
import bpy
import sys

argv = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=argv[0])
bpy.ops.export_scene.gltf(filepath=argv[1], export_format="GLB", export_extras=True,
                          export_image_format="NONE")
