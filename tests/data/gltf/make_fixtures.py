#!/usr/bin/env python3
"""Writes the hand-made glTF fixtures of tests/test_gltf.c (and copies them as fuzz seeds).

Every byte is listed here by hand from the glTF 2.0 spec; the expected values live in
tests/test_gltf.c, written by hand too, so neither side is computed by the code under test.
Run from anywhere: python3 tests/data/gltf/make_fixtures.py. The outputs are committed.

Files end without a newline so that every proper prefix is broken JSON (the truncation
test relies on it).
"""
import base64
import json
import math
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BROKEN = os.path.join(HERE, "broken")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def pack(fmt, values):
    return struct.pack("<" + fmt * len(values), *values)


def pad4(b, fill=b"\0"):
    return b + fill * ((4 - len(b) % 4) % 4)


class Builder:
    """Collects bufferViews into one buffer, each view starting on a 4-byte boundary."""

    def __init__(self):
        self.data = b""
        self.views = []

    def view(self, payload, stride=None, target=None):
        self.data = pad4(self.data)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if stride:
            v["byteStride"] = stride
        if target:
            v["target"] = target
        self.views.append(v)
        self.data += payload
        return len(self.views) - 1

    def data_uri(self):
        return "data:application/octet-stream;base64," + base64.b64encode(pad4(self.data)).decode()


def doc(builder=None, **parts):
    d = {"asset": {"version": "2.0", "generator": "tailor make_fixtures.py"}}
    if builder is not None:
        d["buffers"] = [{"byteLength": len(pad4(builder.data)), "uri": builder.data_uri()}]
        d["bufferViews"] = builder.views
    d.update(parts)
    return d


def text(d):
    return json.dumps(d, indent=1)


def write(path, content):
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(path, mode) as f:
        f.write(content)


def glb(json_text, bin_bytes=None):
    j = json_text.encode()
    j += b" " * ((4 - len(j) % 4) % 4)
    out = struct.pack("<II", len(j), 0x4E4F534A) + j
    if bin_bytes is not None:
        b = pad4(bin_bytes)
        out += struct.pack("<II", len(b), 0x004E4942) + b
    return struct.pack("<III", 0x46546C67, 2, 12 + len(out)) + out


def as_glb(d):
    """The same document with buffer 0's data: URI moved into a BIN chunk."""
    d = json.loads(json.dumps(d))
    uri = d["buffers"][0].pop("uri")
    data = base64.b64decode(uri.split(",", 1)[1])
    return glb(text(d), data)


# --- components.gltf: the six component types, plain and normalized --------------------------
def components():
    b = Builder()
    acc = []

    def add(fmt, ct, typ, values, normalized=False):
        v = b.view(pack(fmt, values))
        n = {"SCALAR": 1, "VEC2": 2, "VEC4": 4}[typ]
        a = {"bufferView": v, "componentType": ct, "count": len(values) // n, "type": typ}
        if normalized:
            a["normalized"] = True
        acc.append(a)

    add("b", 5120, "SCALAR", [-128, -1, 0, 127])                  # 0 BYTE
    add("B", 5121, "SCALAR", [0, 1, 128, 255])                    # 1 UNSIGNED_BYTE
    add("h", 5122, "SCALAR", [-32768, -1, 0, 32767])              # 2 SHORT
    add("H", 5123, "SCALAR", [0, 1, 32768, 65535])               # 3 UNSIGNED_SHORT
    add("I", 5125, "SCALAR", [0, 1, 65536, 4294967295])          # 4 UNSIGNED_INT
    add("f", 5126, "SCALAR", [-1.5, 0.0, 0.25, 3.0e38])          # 5 FLOAT
    add("b", 5120, "VEC2", [-128, -127, 0, 127, 64, -64], True)  # 6 BYTE normalized
    add("B", 5121, "VEC4", [0, 255, 51, 102], True)              # 7 UNSIGNED_BYTE normalized
    add("h", 5122, "SCALAR", [-32768, -32767, 0, 32767, 16384], True)  # 8 SHORT normalized
    add("H", 5123, "SCALAR", [0, 65535, 13107], True)            # 9 UNSIGNED_SHORT normalized
    return doc(b, accessors=acc)


# --- stride.gltf: interleaved views with garbage in the gaps ----------------------------------
def stride():
    b = Builder()
    # 20-byte vertices: VEC3 float at 0, VEC4 unsigned byte at 12, 4 bytes of 0xEE at 16.
    pos = [(1.0, 2.0, 3.0), (4.0, 5.0, 6.0), (7.0, 8.0, 9.0)]
    col = [(10, 20, 30, 40), (50, 60, 70, 80), (90, 100, 110, 120)]
    inter = b"".join(pack("f", p) + pack("B", c) + b"\xEE" * 4 for p, c in zip(pos, col))
    v0 = b.view(b"\xEE" * 8 + inter, stride=20, target=34962)  # the view starts 8 bytes in
    # 8-byte elements: VEC2 unsigned short at 0, VEC2 normalized short at 4.
    us = [(1, 2), (3, 4)]
    sn = [(32767, -32768), (0, 16384)]
    inter2 = b"".join(pack("H", u) + pack("h", s) for u, s in zip(us, sn))
    v1 = b.view(inter2, stride=8, target=34962)
    acc = [
        {"bufferView": v0, "byteOffset": 8, "componentType": 5126, "count": 3, "type": "VEC3"},
        {"bufferView": v0, "byteOffset": 20, "componentType": 5121, "count": 3, "type": "VEC4"},
        {"bufferView": v1, "byteOffset": 0, "componentType": 5123, "count": 2, "type": "VEC2"},
        {"bufferView": v1, "byteOffset": 4, "componentType": 5122, "count": 2, "type": "VEC2",
         "normalized": True},
    ]
    return doc(b, accessors=acc)


# --- sparse.gltf: sparse over a view, sparse without a view, unsigned int sparse indices ------
def sparse():
    b = Builder()
    base = b.view(pack("f", [1, 2, 3, 4, 5]))
    idx0 = b.view(b"\xEE\xEE" + pack("B", [1, 3]))      # indices at byteOffset 2
    val0 = b.view(pack("f", [20, 40]))
    idx1 = b.view(pack("H", [0, 3]))
    val1 = b.view(b"\xEE" * 4 + pack("f", [1, 2, 3, 4, 5, 6]))  # values at byteOffset 4
    base2 = b.view(pack("H", [7, 8, 9]))
    idx2 = b.view(pack("I", [2]))
    val2 = b.view(pack("H", [99]))
    acc = [
        {"bufferView": base, "componentType": 5126, "count": 5, "type": "SCALAR",
         "sparse": {"count": 2, "indices": {"bufferView": idx0, "byteOffset": 2, "componentType": 5121},
                    "values": {"bufferView": val0}}},
        {"componentType": 5126, "count": 4, "type": "VEC3",
         "sparse": {"count": 2, "indices": {"bufferView": idx1, "componentType": 5123},
                    "values": {"bufferView": val1, "byteOffset": 4}}},
        {"bufferView": base2, "componentType": 5123, "count": 3, "type": "SCALAR",
         "sparse": {"count": 1, "indices": {"bufferView": idx2, "componentType": 5125},
                    "values": {"bufferView": val2}}},
    ]
    return doc(b, accessors=acc)


# --- matrix.gltf: MAT2/MAT3/MAT4 with 1- and 2-byte components (columns padded to 4 bytes) ----
def matrix():
    b = Builder()
    P1, P2 = b"\x55", b"\x55\x55"  # padding bytes a careless reader would pick up
    m0 = b.view(pack("b", [1, 2]) + P1 * 2 + pack("b", [3, 4]) + P1 * 2 +
                pack("b", [-1, -2]) + P1 * 2 + pack("b", [-3, -4]) + P1 * 2)           # MAT2 BYTE x2
    m1 = b.view(pack("B", [0, 255]) + P1 * 2 + pack("B", [51, 102]) + P1 * 2)         # MAT2 UBYTE norm
    m2 = b.view(pack("h", [100, -200, 300, -400]))                                    # MAT2 SHORT
    m3 = b.view(b"".join(pack("b", c) + P1 for c in
                         [[1, 2, 3], [4, 5, 6], [7, 8, 9], [-1, -2, -3], [-4, -5, -6], [-7, -8, -9]]))
    m4 = b.view(b"".join(pack("h", c) + P2 for c in [[1000, 2000, 3000], [4000, 5000, 6000],
                                                      [7000, 8000, 9000]]))          # MAT3 SHORT
    m5 = b.view(b"".join(pack("H", c) + P2 for c in [[0, 65535, 13107], [1, 2, 3],
                                                      [65535, 0, 65535]]))           # MAT3 USHORT norm
    m6 = b.view(pack("B", list(range(1, 17))))                                        # MAT4 UBYTE
    m7 = b.view(pack("f", [i + 0.5 for i in range(16)]))                              # MAT4 FLOAT
    acc = [
        {"bufferView": m0, "componentType": 5120, "count": 2, "type": "MAT2"},
        {"bufferView": m1, "componentType": 5121, "count": 1, "type": "MAT2", "normalized": True},
        {"bufferView": m2, "componentType": 5122, "count": 1, "type": "MAT2"},
        {"bufferView": m3, "componentType": 5120, "count": 2, "type": "MAT3"},
        {"bufferView": m4, "componentType": 5122, "count": 1, "type": "MAT3"},
        {"bufferView": m5, "componentType": 5123, "count": 1, "type": "MAT3", "normalized": True},
        {"bufferView": m6, "componentType": 5121, "count": 1, "type": "MAT4"},
        {"bufferView": m7, "componentType": 5126, "count": 1, "type": "MAT4"},
    ]
    return doc(b, accessors=acc)


# --- skin.gltf / skin.glb: a skinned triangle with two JOINTS/WEIGHTS sets and a clip ----------
def skin():
    b = Builder()
    pos = b.view(pack("f", [0, 0, 0, 1, 0, 0, 0, 3, 0]), target=34962)
    j0 = b.view(pack("B", [0, 1, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0]), target=34962)
    w0 = b.view(pack("f", [0.6, 0.2, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0]), target=34962)
    j1 = b.view(pack("H", [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), target=34962)
    w1 = b.view(pack("B", [51, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), target=34962)
    ind = b.view(pack("H", [0, 1, 2]), target=34963)

    def translation(y):  # inverse bind matrix of a joint at (0, y, 0), column-major
        return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -y, 0, 1]

    ibm = b.view(pack("f", translation(0) + translation(1) + translation(2) + translation(3)))
    times = b.view(pack("f", [0.0, 1.0]))
    s = math.sqrt(0.5)
    rots = b.view(pack("f", [0, 0, 0, 1, 0, 0, s, s]))
    acc = [
        {"bufferView": pos, "componentType": 5126, "count": 3, "type": "VEC3",
         "min": [0, 0, 0], "max": [1, 3, 0]},
        {"bufferView": j0, "componentType": 5121, "count": 3, "type": "VEC4"},
        {"bufferView": w0, "componentType": 5126, "count": 3, "type": "VEC4"},
        {"bufferView": j1, "componentType": 5123, "count": 3, "type": "VEC4"},
        {"bufferView": w1, "componentType": 5121, "count": 3, "type": "VEC4", "normalized": True},
        {"bufferView": ind, "componentType": 5123, "count": 3, "type": "SCALAR"},
        {"bufferView": ibm, "componentType": 5126, "count": 4, "type": "MAT4"},
        {"bufferView": times, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
        {"bufferView": rots, "componentType": 5126, "count": 2, "type": "VEC4"},
    ]
    return doc(
        b,
        accessors=acc,
        scene=0,
        scenes=[{"name": "scene", "nodes": [0, 4]}],
        nodes=[
            {"name": "root", "children": [1]},
            {"name": "hip", "translation": [0, 1, 0], "children": [2]},
            {"name": "spine", "translation": [0, 1, 0], "children": [3]},
            {"name": "head", "translation": [0, 1, 0]},
            {"name": "body", "mesh": 0, "skin": 0},
        ],
        meshes=[{"name": "body", "primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4},
            "indices": 5}]}],
        skins=[{"name": "rig", "joints": [0, 1, 2, 3], "inverseBindMatrices": 6, "skeleton": 0}],
        animations=[{"name": "turn", "samplers": [{"input": 7, "output": 8}],
                     "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}],
    )


# --- external.gltf: one buffer in a file whose name needs %20, one in a data: URI ------------
def external():
    data0 = pack("f", [1.0, -2.0, 0.5, 8.0])
    data1 = pack("H", [7, 65535])
    d = {
        "asset": {"version": "2.0", "generator": "tailor make_fixtures.py"},
        "buffers": [
            {"byteLength": 16, "uri": "external%20data.bin"},
            {"byteLength": 4, "uri": "data:application/octet-stream;base64," + base64.b64encode(data1).decode()},
        ],
        "bufferViews": [{"buffer": 0, "byteLength": 16}, {"buffer": 1, "byteLength": 4}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5123, "count": 2, "type": "SCALAR"},
        ],
    }
    return d, data0


# --- broken/: each file wrong in one way (expected result and JSON pointer in test_gltf.c) ----
def small():
    """A valid base: 4 floats in one view, one SCALAR accessor."""
    b = Builder()
    b.view(pack("f", [1, 2, 3, 4]))
    return doc(b, accessors=[{"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"}])


def broken():
    out = {}

    def edit(name, fn, base=None):
        d = json.loads(json.dumps(base or small()))
        fn(d)
        out[name + ".gltf"] = text(d)

    edit("accessor_offset", lambda d: d["accessors"][0].update(byteOffset=100))
    edit("accessor_count", lambda d: d["accessors"][0].update(count=5))
    edit("accessor_huge_count", lambda d: d["accessors"][0].update(count=2**40))
    edit("accessor_limit_count", lambda d: (d["accessors"][0].pop("bufferView"),
                                            d["accessors"][0].update(count=2**30, type="MAT4")))
    edit("accessor_view_index", lambda d: d["accessors"][0].update(bufferView=1))
    edit("accessor_component", lambda d: d["accessors"][0].update(componentType=5124))
    edit("accessor_type", lambda d: d["accessors"][0].update(type="VEC5"))
    edit("view_offset", lambda d: d["bufferViews"][0].update(byteOffset=17))
    edit("view_length", lambda d: d["bufferViews"][0].update(byteLength=17))
    edit("view_stride", lambda d: d["bufferViews"][0].update(byteStride=6))
    edit("view_buffer", lambda d: d["bufferViews"][0].update(buffer=1))
    edit("view_no_buffers", lambda d: d.pop("buffers"))
    edit("buffer_huge", lambda d: d["buffers"][0].update(byteLength=2**40))
    edit("buffer_short_uri", lambda d: d["buffers"][0].update(byteLength=64))
    edit("base64_char", lambda d: d["buffers"][0].update(uri=d["buffers"][0]["uri"][:-4] + "AA!A"))
    edit("base64_padding", lambda d: d["buffers"][0].update(uri=d["buffers"][0]["uri"] + "=AAAA"))
    edit("base64_not", lambda d: d["buffers"][0].update(uri="data:application/octet-stream,AAAA"))
    edit("uri_external", lambda d: d["buffers"][0].update(uri="missing.bin"))
    edit("uri_parent", lambda d: d["buffers"][0].update(uri="../../secret.bin"))
    edit("uri_absolute", lambda d: d["buffers"][0].update(uri="/etc/passwd"))
    edit("asset_version", lambda d: d["asset"].update(version="1.0"))
    edit("asset_missing", lambda d: d.pop("asset"))
    edit("required_extension", lambda d: d.update(extensionsRequired=["KHR_draco_mesh_compression"]))
    edit("accessors_object", lambda d: d.update(accessors={}))
    edit("sparse_index_view", lambda d: d["accessors"][0].update(
        sparse={"count": 1, "indices": {"bufferView": 3, "componentType": 5121}, "values": {"bufferView": 0}}))
    edit("sparse_values_fit", lambda d: d["accessors"][0].update(
        sparse={"count": 4, "indices": {"bufferView": 0, "componentType": 5121},
                "values": {"bufferView": 0, "byteOffset": 4}}))
    edit("sparse_count", lambda d: d["accessors"][0].update(
        sparse={"count": 5, "indices": {"bufferView": 0, "componentType": 5121}, "values": {"bufferView": 0}}))
    # Sparse index 200 past count 4: only reading finds it (the indices are data).
    b = Builder()
    b.view(pack("f", [1, 2, 3, 4]))
    b.view(pack("B", [200]))
    edit("sparse_index_value", lambda d: d["accessors"][0].update(
        sparse={"count": 1, "indices": {"bufferView": 1, "componentType": 5121}, "values": {"bufferView": 0}}),
        base=doc(b, accessors=[{"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"}]))
    nodes = lambda *n: (lambda d: d.update(nodes=list(n)))
    edit("node_cycle", nodes({"children": [1]}, {"children": [2]}, {"children": [0]}))
    edit("node_self", nodes({"children": [0]}))
    edit("node_two_parents", nodes({"children": [2]}, {"children": [2]}, {}))
    edit("node_child_index", nodes({"children": [1]}, {"children": [7]}))
    edit("node_mesh_index", nodes({"mesh": 0}))
    edit("node_negative", nodes({"camera": -1}))
    edit("node_translation", nodes({"translation": [0, "1", 0]}))
    edit("node_matrix", nodes({"matrix": [1, 0, 0]}))
    edit("node_deep", lambda d: d.update(nodes=[{"children": [i + 1]} for i in range(1100)] + [{}]))
    edit("scene_index", lambda d: d.update(scene=0))
    edit("scene_node", lambda d: d.update(scenes=[{"nodes": [0]}]))
    edit("mesh_attribute", lambda d: d.update(meshes=[{"primitives": [{"attributes": {"POSITION": 1}}]}]))
    edit("mesh_position", lambda d: d.update(meshes=[{"primitives": [{"attributes": {"POSITION": 0}}]}]))
    edit("mesh_joints", lambda d: (d["accessors"][0].update(type="VEC4", count=1),
                                  d.update(meshes=[{"primitives": [{"attributes": {"JOINTS_0": 0, "WEIGHTS_0": 0}}]}])))
    edit("skin_joint", lambda d: d.update(nodes=[{}], skins=[{"joints": [0, 1]}]))
    edit("skin_ibm", lambda d: d.update(nodes=[{}], skins=[{"joints": [0], "inverseBindMatrices": 0}]))
    edit("anim_sampler", lambda d: d.update(nodes=[{}], animations=[
        {"samplers": [], "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}]))
    edit("anim_input", lambda d: d.update(animations=[{"samplers": [{"input": 4, "output": 0}], "channels": []}]))
    out["not_object.gltf"] = "[1, 2, 3]"
    out["syntax.gltf"] = '{"asset": {"version": "2.0"},\n "nodes": [{"name": "a"} {"name": "b"}]}'
    out["duplicate_key.gltf"] = '{"asset": {"version": "2.0"}, "asset": {"version": "2.0"}}'
    out["empty.gltf"] = ""

    # Binary: NaN in an inverse bind matrix (a float in the BIN chunk, not in the JSON).
    ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    ibm[13] = float("nan")
    d = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 64}],
         "bufferViews": [{"buffer": 0, "byteLength": 64}],
         "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "MAT4"}],
         "nodes": [{"name": "joint"}], "skins": [{"joints": [0], "inverseBindMatrices": 0}]}
    good = glb(text(d), pack("f", ibm))
    out["ibm_nan.glb"] = good

    # GLB container damage, each on the otherwise valid ibm_nan.glb layout:
    # header 0..11, JSON chunk header 12..19, JSON from 20, BIN chunk header at `b`.
    jlen = struct.unpack_from("<I", good, 12)[0]
    b = 20 + jlen

    def patched(offset, value):
        g = bytearray(good)
        struct.pack_into("<I", g, offset, value)
        return bytes(g)

    out["glb_version.glb"] = patched(4, 1)
    out["glb_length_long.glb"] = patched(8, len(good) + 4)
    out["glb_length_short.glb"] = patched(8, len(good) - 4)       # the BIN chunk runs past the end
    stray = bytearray(good + b"\0" * 4)
    struct.pack_into("<I", stray, 8, len(stray))
    out["glb_stray.glb"] = bytes(stray)                            # 4 bytes after the last chunk
    out["glb_json_length.glb"] = patched(12, len(good))
    out["glb_json_type.glb"] = patched(16, 0x004E4942)
    out["glb_bin_length.glb"] = patched(b, 68)
    out["glb_bin_short.glb"] = glb(text(d), pack("f", ibm[:8]))    # byteLength 64, BIN has 32
    out["glb_header.glb"] = good[:16]
    out["glb_json_number.glb"] = glb("42")
    return out


def main():
    os.makedirs(BROKEN, exist_ok=True)
    os.makedirs(CORPUS, exist_ok=True)
    good = {
        "components.gltf": text(components()),
        "stride.gltf": text(stride()),
        "sparse.gltf": text(sparse()),
        "matrix.gltf": text(matrix()),
        "skin.gltf": text(skin()),
        "skin.glb": as_glb(skin()),
    }
    ext, ext_bin = external()
    good["external.gltf"] = text(ext)
    for name, content in good.items():
        write(os.path.join(HERE, name), content)
    write(os.path.join(HERE, "external data.bin"), ext_bin)
    for name, content in broken().items():
        write(os.path.join(BROKEN, name), content)
    # Seeds: every fixture that loads from memory alone (external.gltf needs its .bin).
    for name in good:
        if name != "external.gltf":
            shutil.copy(os.path.join(HERE, name), os.path.join(CORPUS, name))
    for name in sorted(os.listdir(BROKEN)):
        shutil.copy(os.path.join(BROKEN, name), os.path.join(CORPUS, "broken_" + name))


if __name__ == "__main__":
    main()
