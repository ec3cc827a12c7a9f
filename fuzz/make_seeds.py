#!/usr/bin/env python3
"""Derives small fuzz seeds (under 64 KB) from real shared GLBs: the same JSON tree
(extensions, names, hierarchy, skins, clips) with every accessor cut short — the first
VERTS vertices of each primitive, the triangles among them, the first KEYS keys of the
first two clips, two elements of anything else — min/max dropped, each accessor in a bufferView of its own, and embedded images dropped.

The rigged seeds (for fuzz_scene_parts, the reader of extras.tailor) come from the repo's
fixture tests/data/rig/fox-khronos-rigged-v1.glb, cut short the same way: as written (schema
version 1), as version 2 writes it (node names beside the indices, chain.scale dropped), and
that version 2 file with its nodes renumbered (node i -> N-1-i) and extras.tailor left stale,
so the reader resolves the chain by name. Two more carry body colliders on the skin
(skins[0].extras.tailor.colliders: one of each shape on named joints, in the joint's frame
as tailor rig writes them), as stored and renumbered (the colliders' joints then by name).

Usage: python3 fuzz/make_seeds.py SHARED_DIR   (writes fuzz/corpus/real_*.glb)
"""
import json
import os
import struct
import sys

VERTS, KEYS = 48, 3
SOURCES = [
    ("assets/khronos-fox/Fox.glb", "real_fox.glb"),
    ("assets/khronos-cesiumman/CesiumMan.glb", "real_cesiumman.glb"),
    ("assets/vrm-godette/Godette_vrm_v4.vrm", "real_godette.vrm"),
    ("assets/kaykit-anim-clips/Med_MovementBasic.glb", "real_kaykit_clips.glb"),
    ("assets/quaternius-trex/Trex.glb", "real_trex.glb"),  # skin.skeleton the validator rejects
]
CSIZE = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
FMT = {5121: "B", 5123: "H", 5125: "I"}


def element_size(a):
    cs, t = CSIZE[a["componentType"]], a["type"]
    rows = {"MAT2": 2, "MAT3": 3, "MAT4": 4}.get(t)
    if rows:
        return rows * ((rows * cs + 3) // 4 * 4)
    return cs * NCOMP[t]


def read_glb(path):
    data = open(path, "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    j = json.loads(data[20:20 + jlen])
    blen = struct.unpack_from("<I", data, 20 + jlen)[0]
    return j, data[28 + jlen:28 + jlen + blen]


def element_bytes(j, bin_, i, k):
    a = j["accessors"][i]
    v = j["bufferViews"][a["bufferView"]]
    es = element_size(a)
    stride = v.get("byteStride", es)
    at = v.get("byteOffset", 0) + a.get("byteOffset", 0) + k * stride
    return bin_[at:at + es]


def shrink(j, bin_, max_clips=2):
    # Clips past the first few go; their accessors stay (cut short) as unreferenced data.
    j["animations"] = j.get("animations", [])[:max_clips]
    new_count = {}
    for skin in j.get("skins", []):
        if "inverseBindMatrices" in skin:
            new_count[skin["inverseBindMatrices"]] = j["accessors"][skin["inverseBindMatrices"]]["count"]
    indices = {}
    for mesh in j.get("meshes", []):
        for p in mesh["primitives"]:
            attrs = list(p["attributes"].values())
            for t in p.get("targets", []):
                attrs += list(t.values())
            for i in attrs:
                new_count[i] = min(j["accessors"][i]["count"], VERTS)
            if "indices" in p:
                ia = j["accessors"][p["indices"]]
                fmt = FMT[ia["componentType"]]
                vals = [struct.unpack("<" + fmt, element_bytes(j, bin_, p["indices"], k))[0]
                        for k in range(ia["count"])]
                tris = [vals[t:t + 3] for t in range(0, len(vals) - 2, 3)]
                kept = [x for t in tris if max(t) < VERTS for x in t]
                indices[p["indices"]] = (fmt, kept)
                new_count[p["indices"]] = len(kept)
    for anim in j.get("animations", []):
        for s in anim["samplers"]:
            ic, oc = j["accessors"][s["input"]]["count"], j["accessors"][s["output"]]["count"]
            keys = min(ic, KEYS)
            new_count[s["input"]] = keys
            new_count[s["output"]] = keys * (oc // ic if ic else 1)
    # Accessors nothing kept refers to go; the rest are renumbered.
    keep = sorted(new_count)
    remap = {old: k for k, old in enumerate(keep)}
    for mesh in j.get("meshes", []):
        for p in mesh["primitives"]:
            p["attributes"] = {k: remap[v] for k, v in p["attributes"].items()}
            p["targets"] = [{k: remap[v] for k, v in t.items()} for t in p.get("targets", [])]
            if not p["targets"]:
                del p["targets"]
            if "indices" in p:
                p["indices"] = remap[p["indices"]]
    for skin in j.get("skins", []):
        if "inverseBindMatrices" in skin:
            skin["inverseBindMatrices"] = remap[skin["inverseBindMatrices"]]
    for anim in j.get("animations", []):
        for smp in anim["samplers"]:
            smp["input"], smp["output"] = remap[smp["input"]], remap[smp["output"]]
    new_count = {remap[old]: c for old, c in new_count.items()}
    indices = {remap[old]: v for old, v in indices.items()}
    j["accessors"] = [j["accessors"][old] for old in keep]
    out, views = b"", []
    for i, a in enumerate(j["accessors"]):
        a.pop("sparse", None)
        count = new_count.get(i, min(a["count"], 2))
        if i in indices:
            fmt, kept = indices[i]
            payload = struct.pack("<%d%s" % (len(kept), fmt), *kept)
        elif "bufferView" in a:
            payload = b"".join(element_bytes(j, bin_, i, k) for k in range(count))
        else:
            payload = b"\0" * (element_size(a) * count)
        out += b"\0" * ((-len(out)) % 16)
        views.append({"buffer": 0, "byteOffset": len(out), "byteLength": len(payload)})
        out += payload
        a["bufferView"] = len(views) - 1
        a.pop("byteOffset", None)
        a["count"] = count
        a.pop("min", None)
        a.pop("max", None)
    j["bufferViews"] = views
    for key in ("images", "textures", "samplers"):
        j.pop(key, None)
    for m in j.get("materials", []):
        for k in [k for k, v in m.items() if isinstance(v, dict) and "index" in v]:
            del m[k]
        pbr = m.get("pbrMetallicRoughness", {})
        for k in [k for k, v in pbr.items() if isinstance(v, dict) and "index" in v]:
            del pbr[k]
    out += b"\0" * ((-len(out)) % 4)
    j["buffers"] = [{"byteLength": len(out)}]
    return j, out


def write_glb(path, j, bin_):
    t = json.dumps(j, separators=(",", ":")).encode()
    t += b" " * ((-len(t)) % 4)
    body = struct.pack("<II", len(t), 0x4E4F534A) + t + struct.pack("<II", len(bin_), 0x004E4942) + bin_
    with open(path, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)


RIGGED = "tests/data/rig/fox-khronos-rigged-v1.glb"


def as_v2(j):
    nodes = j["nodes"]
    for node in nodes:
        t = node.get("extras", {}).get("tailor")
        if t:
            t["version"] = 2
            t["attachment_name"] = nodes[t["attachment"]]["name"]
            t["bone_names"] = [nodes[b]["name"] for b in t["bones"]]
            t["chain"].pop("scale", None)
    return j


def with_colliders(j):
    nodes = j["nodes"]
    named = {node.get("name"): i for i, node in enumerate(nodes)}

    def on(name, role, side, shape, **numbers):
        c = {"joint": named[name], "joint_name": name, "role": role, "side": side, "shape": shape}
        c.update(numbers)
        c["vertices"] = 40
        return c

    j["skins"][0].setdefault("extras", {})["tailor"] = {"version": 2, "colliders": [
        on("b_Hip_01", "pelvis", "none", "ellipsoid", a=[0.0, 4.5, -2.0],
           axes=[[12.0, 0.0, 0.0], [0.0, 9.0, 0.0], [0.0, 0.0, 7.5]]),
        on("b_LeftLeg01_015", "thigh", "left", "capsule", a=[0.0, 0.0, 0.0], b=[0.0, 18.0, 0.0],
           radius=6.5),
        on("b_Head_05", "head", "none", "sphere", a=[0.0, 6.0, 3.0], radius=9.0),
        on("b_Spine01_02", "spine", "none", "plane", a=[0.0, 0.0, 0.0], b=[0.0, 0.0, 1.0]),
    ]}
    return j


def with_joint_parts(j):
    """A pendulum on the head and an aim of the left upper arm at the head (docs/schema.md kinds
    pendulum and aim), as tailor rig --pendulum / --aim write them."""
    nodes = j["nodes"]
    named = {node.get("name"): i for i, node in enumerate(nodes)}
    nodes[named["b_Head_05"]].setdefault("extras", {})["tailor"] = {
        "version": 2, "kind": "pendulum", "pendulum": {
            "length": 0.2, "gravity": 9.81, "damping": 0.05, "stiffness": 0.02,
            "max_angle_deg": 60.0, "teleport_distance": 1.0, "rest_direction": [0.0, 1.0, 0.0]}}
    nodes[named["b_LeftUpperArm_09"]].setdefault("extras", {})["tailor"] = {
        "version": 2, "kind": "aim", "target": named["b_Head_05"], "target_name": "b_Head_05",
        "aim": {"weight": 1.0, "max_angle_deg": 45.0, "aim_axis": [0.0, 1.0, 0.0]}}
    return j


def renumbered(j):
    n = len(j["nodes"])
    new = lambda i: n - 1 - i
    j["nodes"] = j["nodes"][::-1]
    for node in j["nodes"]:
        if "children" in node:
            node["children"] = [new(c) for c in node["children"]]
    for skin in j.get("skins", []):
        skin["joints"] = [new(c) for c in skin["joints"]]
        if "skeleton" in skin:
            skin["skeleton"] = new(skin["skeleton"])
    for scene in j.get("scenes", []):
        scene["nodes"] = [new(c) for c in scene["nodes"]]
    for anim in j.get("animations", []):
        for ch in anim["channels"]:
            if "node" in ch["target"]:
                ch["target"]["node"] = new(ch["target"]["node"])
    return j


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for src, name in SOURCES:
        j, bin_ = read_glb(os.path.join(shared, src))
        j, bin_ = shrink(j, bin_)
        path = os.path.join(corpus, name)
        write_glb(path, j, bin_)
        print(name, os.path.getsize(path))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for edit, name in ((lambda j: j, "real_fox_rigged_v1.glb"), (as_v2, "real_fox_rigged_v2.glb"),
                       (lambda j: renumbered(as_v2(j)), "real_fox_rigged_renumbered.glb"),
                       (lambda j: with_colliders(as_v2(j)), "real_fox_rigged_colliders.glb"),
                       (lambda j: renumbered(with_colliders(as_v2(j))),
                        "real_fox_rigged_colliders_renumbered.glb"),
                       (lambda j: with_joint_parts(as_v2(j)), "real_fox_rigged_joint_parts.glb"),
                       (lambda j: renumbered(with_joint_parts(as_v2(j))),
                        "real_fox_rigged_joint_parts_renumbered.glb")):
        j, bin_ = read_glb(os.path.join(root, RIGGED))
        j, bin_ = shrink(edit(j), bin_)
        path = os.path.join(corpus, name)
        write_glb(path, j, bin_)
        print(name, os.path.getsize(path))


if __name__ == "__main__":
    main()
