#!/usr/bin/env python3
"""Writes the hostile corpus: valid glTF files that attack a rigging tool's assumptions.

usage: make_corpus.py OUT_DIR BASE.glb [RIGGED.glb]

Every case is made at test time from a real character (BASE, a shared file; RIGGED, the same
file after `tailor rig`, so play and the chain solver see the attack too): huge, negative and
non-finite key times, NaN / inf / 1e38 in every float accessor kind, positions near the float
limit, keys scaling to zero, zero and negative node scales, degenerate skins, deep and wide
hierarchies, 65,534 joints, 100,000 empty nodes, control characters in names, a .gltf whose
buffer is a FIFO, and the character at 1 mm and 1000 km. Python 3 standard library only;
nothing here is checked in as binary. Prints one line per file written.
"""
import copy
import json
import math
import os
import struct
import sys

FLOAT = 5126
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


class Doc:
    def __init__(self, path):
        data = open(path, "rb").read()
        magic, version, length = struct.unpack_from("<III", data, 0)
        assert magic == 0x46546C67 and version == 2, path
        json_len, json_type = struct.unpack_from("<II", data, 12)
        self.json = json.loads(data[20:20 + json_len])
        offset = 20 + json_len
        self.bin = bytearray()
        if offset + 8 <= length:
            bin_len, _ = struct.unpack_from("<II", data, offset)
            self.bin = bytearray(data[offset + 8:offset + 8 + bin_len])

    def clone(self):
        c = Doc.__new__(Doc)
        c.json = copy.deepcopy(self.json)
        c.bin = bytearray(self.bin)
        return c

    # Accessors: float ones read and written in place, honouring byteStride.
    def _layout(self, a):
        acc = self.json["accessors"][a]
        view = self.json["bufferViews"][acc["bufferView"]]
        n = COMPONENTS[acc["type"]]
        stride = view.get("byteStride", 4 * n)
        base = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        return acc, n, stride, base

    def read(self, a):
        acc, n, stride, base = self._layout(a)
        assert acc["componentType"] == FLOAT
        return [list(struct.unpack_from("<%df" % n, self.bin, base + i * stride))
                for i in range(acc["count"])]

    def write(self, a, values):
        acc, n, stride, base = self._layout(a)
        for i, v in enumerate(values):
            struct.pack_into("<%df" % n, self.bin, base + i * stride, *v)
        finite = [v for v in values if all(math.isfinite(x) for x in v)]
        if "min" in acc and finite:
            acc["min"] = [min(v[k] for v in finite) for k in range(n)]
            acc["max"] = [max(v[k] for v in finite) for k in range(n)]

    def add(self, values, type_, component=FLOAT, min_max=False, target=None):
        """Appends an accessor of packed values (its view's `target` if given); returns its
        index."""
        while len(self.bin) % 4:
            self.bin.append(0)
        fmt = {FLOAT: "f", 5125: "I", 5123: "H", 5121: "B"}[component]
        flat = [x for v in values for x in v]
        raw = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        view = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(raw)}
        if target:
            view["target"] = target
        self.json["bufferViews"].append(view)
        self.bin += raw
        acc = {"bufferView": len(self.json["bufferViews"]) - 1, "componentType": component,
               "count": len(values), "type": type_}
        if min_max:
            n = len(values[0])
            acc["min"] = [min(v[k] for v in values) for k in range(n)]
            acc["max"] = [max(v[k] for v in values) for k in range(n)]
        self.json["accessors"].append(acc)
        return len(self.json["accessors"]) - 1

    def save(self, path):
        while len(self.bin) % 4:
            self.bin.append(0)
        self.json["buffers"][0]["byteLength"] = len(self.bin)
        text = json.dumps(self.json, separators=(",", ":"), allow_nan=False).encode()
        text += b" " * ((4 - len(text) % 4) % 4)
        total = 12 + 8 + len(text) + 8 + len(self.bin)
        with open(path, "wb") as f:
            f.write(struct.pack("<III", 0x46546C67, 2, total))
            f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
            f.write(struct.pack("<II", len(self.bin), 0x004E4942) + bytes(self.bin))

    # What the attacks reach for.
    def samplers(self, path=None):
        """(animation, sampler) pairs, optionally only those driving `path`."""
        out = []
        for ai, anim in enumerate(self.json.get("animations", [])):
            for ch in anim["channels"]:
                if path is None or ch["target"].get("path") == path:
                    out.append((ai, ch["sampler"]))
        return out

    def sampler(self, ai, si):
        return self.json["animations"][ai]["samplers"][si]

    def primitives(self):
        return [p for m in self.json["meshes"] for p in m["primitives"]]


def set_time(doc, which, value):
    """Sets one key time (first or last) of every sampler of animation 0."""
    done = set()
    for ai, si in doc.samplers():
        if ai != 0:
            continue
        inp = doc.sampler(ai, si)["input"]
        if inp in done:
            continue
        done.add(inp)
        t = doc.read(inp)
        t[which if which >= 0 else len(t) + which][0] = value
        doc.write(inp, t)
        doc.json["accessors"][inp]["min"] = [min(x[0] for x in t if math.isfinite(x[0]))]
        doc.json["accessors"][inp]["max"] = [max(x[0] for x in t if math.isfinite(x[0]))]


def poison(doc, accessor, value, every=False):
    """One value (or every value) of a float accessor becomes `value`."""
    v = doc.read(accessor)
    rows = range(len(v)) if every else [len(v) // 2]
    for i in rows:
        v[i] = [value] * len(v[i])
    doc.write(accessor, v)


def scale_character(doc, k):
    """The same character k times larger: positions, translations, bind matrices, keys."""
    for prim in doc.primitives():
        pos = prim["attributes"]["POSITION"]
        doc.write(pos, [[x * k for x in p] for p in doc.read(pos)])
    for node in doc.json["nodes"]:
        if "translation" in node:
            node["translation"] = [x * k for x in node["translation"]]
        if "matrix" in node:
            node["matrix"] = [x * k if i in (12, 13, 14) else x for i, x in enumerate(node["matrix"])]
    for skin in doc.json.get("skins", []):
        if "inverseBindMatrices" in skin:
            a = skin["inverseBindMatrices"]
            doc.write(a, [[x * k if i in (12, 13, 14) else x for i, x in enumerate(m)]
                          for m in doc.read(a)])
    done = set()
    for ai, si in doc.samplers("translation"):
        out = doc.sampler(ai, si)["output"]
        if out not in done:
            done.add(out)
            doc.write(out, [[x * k for x in v] for v in doc.read(out)])


def wrap_root(doc, scale):
    """Puts the whole scene under a new root node with this scale."""
    scene = doc.json["scenes"][doc.json.get("scene", 0)]
    doc.json["nodes"].append({"name": "hostile_root", "scale": scale, "children": scene["nodes"]})
    scene["nodes"] = [len(doc.json["nodes"]) - 1]


def add_empty_nodes(doc, count, chained):
    first = len(doc.json["nodes"])
    for i in range(count):
        node = {}
        if chained and i + 1 < count:
            node["children"] = [first + i + 1]
        doc.json["nodes"].append(node)
    scene = doc.json["scenes"][doc.json.get("scene", 0)]
    if chained:
        scene["nodes"].append(first)
    else:
        doc.json["nodes"].append({"name": "wide", "children": list(range(first, first + count))})
        scene["nodes"].append(len(doc.json["nodes"]) - 1)


def big_skin(doc, joints):
    """A second mesh bound to a skin of `joints` joints: a tree of nodes, four children
    each (depth about log4 of the count), every joint 0.001 above its parent."""
    first = len(doc.json["nodes"])
    depth = [0] * joints
    for i in range(joints):
        node = {"name": "J%d" % i, "translation": [0, 0.001, 0]}
        kids = [first + c for c in range(4 * i + 1, min(4 * i + 5, joints))]
        if kids:
            node["children"] = kids
        if i:
            depth[i] = depth[(i - 1) // 4] + 1
        doc.json["nodes"].append(node)
    ibm = doc.add([[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.001 * (depth[i] + 1), 0, 1]
                   for i in range(joints)], "MAT4")
    verts = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    pos = doc.add(verts, "VEC3", min_max=True)
    jnt = doc.add([[0, 1, 2, 3], [joints - 1, 0, 0, 0], [joints // 2, 0, 0, 0]], "VEC4", 5123)
    wgt = doc.add([[0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0], [1, 0, 0, 0]], "VEC4")
    doc.json["meshes"].append({"primitives": [{"attributes": {
        "POSITION": pos, "JOINTS_0": jnt, "WEIGHTS_0": wgt}}]})
    doc.json["skins"].append({"joints": list(range(first, first + joints)),
                              "inverseBindMatrices": ibm})
    doc.json["nodes"].append({"name": "big", "mesh": len(doc.json["meshes"]) - 1,
                              "skin": len(doc.json["skins"]) - 1})
    doc.json["scenes"][doc.json.get("scene", 0)]["nodes"] += [first, len(doc.json["nodes"]) - 1]


def cases(base):
    """(name, function of a Doc) for every attack; each function edits its own copy."""
    out = []

    def case(name):
        def register(fn):
            out.append((name, fn))
            return fn
        return register

    # Key times: huge, negative, non-finite, not increasing.
    for name, which, value in [("time-last-1e6", -1, 1e6), ("time-last-1e30", -1, 1e30),
                               ("time-last-3e38", -1, 3.4e38), ("time-first-negative", 0, -4.0),
                               ("time-first-1e6", 0, 1e6), ("time-nan", 1, float("nan")),
                               ("time-inf", -1, float("inf")), ("time-repeated", 1, 0.0)]:
        out.append((name, lambda d, w=which, v=value: set_time(d, w, v)))

    # Non-finite and huge values in every float accessor kind.
    kinds = {}
    prim = base.primitives()[0]
    kinds["position"] = prim["attributes"]["POSITION"]
    for attr in ("NORMAL", "TEXCOORD_0", "WEIGHTS_0", "TANGENT"):
        if attr in prim["attributes"] and \
                base.json["accessors"][prim["attributes"][attr]]["componentType"] == FLOAT:
            kinds[attr.lower()] = prim["attributes"][attr]
    if base.json.get("skins") and "inverseBindMatrices" in base.json["skins"][0]:
        kinds["ibm"] = base.json["skins"][0]["inverseBindMatrices"]
    for path in ("translation", "rotation", "scale"):
        s = base.samplers(path)
        if s:
            kinds["key-" + path] = base.sampler(*s[0])["output"]
    for kind, accessor in kinds.items():
        for label, value in [("nan", float("nan")), ("inf", float("inf")), ("1e38", 1e38),
                             ("-3e38", -3.4e38)]:
            out.append(("%s-%s" % (kind, label), lambda d, a=accessor, v=value: poison(d, a, v)))
    out.append(("position-all-3e38", lambda d: poison(d, kinds["position"], 3.0e38, True)))
    out.append(("position-all-zero", lambda d: poison(d, kinds["position"], 0.0, True)))
    out.append(("ibm-all-zero", lambda d: poison(d, kinds["ibm"], 0.0, True)))
    out.append(("ibm-all-1e38", lambda d: poison(d, kinds["ibm"], 1e38, True)))
    out.append(("weights-all-zero", lambda d: poison(d, prim["attributes"]["WEIGHTS_0"], 0.0, True)))
    if "key-scale" in kinds:
        out.append(("key-scale-all-zero", lambda d: poison(d, kinds["key-scale"], 0.0, True)))
    if "key-rotation" in kinds:
        out.append(("key-rotation-all-zero",
                    lambda d: poison(d, kinds["key-rotation"], 0.0, True)))
    if "key-translation" in kinds:
        out.append(("key-translation-all-1e30",
                    lambda d: poison(d, kinds["key-translation"], 1e30, True)))
        # just inside the bound (1e12): the solver sees huge, finite translations
        out.append(("key-translation-all-9e11",
                    lambda d: poison(d, kinds["key-translation"], 9e11, True)))
        out.append(("key-translation-one-9e11",
                    lambda d: poison(d, kinds["key-translation"], 9e11)))

    # Every joint keyed to scale 0 over the whole clip (chains hang from a point).
    @case("keys-scale-zero-every-joint")
    def _(d):
        anim = d.json["animations"][0]
        inp = anim["samplers"][0]["input"]
        count = d.json["accessors"][inp]["count"]
        zero = d.add([[0.0, 0.0, 0.0]] * count, "VEC3")
        for j in d.json["skins"][0]["joints"]:
            anim["samplers"].append({"input": inp, "output": zero})
            anim["channels"].append({"sampler": len(anim["samplers"]) - 1,
                                     "target": {"node": j, "path": "scale"}})

    # Node transforms.
    for name, scale in [("root-scale-zero", [0, 0, 0]), ("root-scale-negative", [-1, 1, 1]),
                        ("root-scale-1e-30", [1e-30] * 3), ("root-scale-1e30", [1e30] * 3),
                        ("root-scale-mm", [1e-5] * 3), ("root-scale-1000km", [1e4] * 3),
                        ("root-scale-1e9", [1e9] * 3)]:
        out.append((name, lambda d, s=scale: wrap_root(d, s)))

    @case("joint-scale-zero")
    def _(d):
        for j in d.json["skins"][0]["joints"][2:4]:
            d.json["nodes"][j]["scale"] = [0, 0, 0]

    @case("node-translation-1e38")
    def _(d):
        d.json["nodes"][d.json["skins"][0]["joints"][1]]["translation"] = [1e38, -1e38, 1e38]

    @case("node-matrix-singular")
    def _(d):
        n = d.json["nodes"][d.json["skins"][0]["joints"][1]]
        for k in ("translation", "rotation", "scale"):
            n.pop(k, None)
        n["matrix"] = [0.0] * 16

    # Skins.
    @case("skin-one-joint-everywhere")
    def _(d):
        joints = d.json["skins"][0]["joints"]
        d.json["skins"][0]["joints"] = [joints[0]]
        d.json["skins"][0].pop("inverseBindMatrices", None)
        acc = d.json["accessors"][prim["attributes"]["JOINTS_0"]]
        view = d.json["bufferViews"][acc["bufferView"]]
        size = {5121: 1, 5123: 2, 5125: 4}[acc["componentType"]]
        stride = view.get("byteStride", 4 * size)
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        for i in range(acc["count"]):
            d.bin[start + i * stride:start + i * stride + 4 * size] = bytes(4 * size)

    # Scale: the character itself 1 mm and 1000 km tall, geometry scaled (not a node scale).
    height = 1.0
    for p in base.primitives():
        acc = base.json["accessors"][p["attributes"]["POSITION"]]
        if "min" in acc:
            height = max(height, max(b - a for a, b in zip(acc["min"], acc["max"])))
    out.append(("scaled-1mm", lambda d: scale_character(d, 0.001 / height)))
    out.append(("scaled-1000km", lambda d: scale_character(d, 1e6 / height)))

    # Size of the hierarchy and of skins.
    out.append(("nodes-100000-empty", lambda d: add_empty_nodes(d, 100000, False)))
    out.append(("nodes-deep-1000", lambda d: add_empty_nodes(d, 1000, True)))
    out.append(("skin-65534-joints", lambda d: big_skin(d, 65534)))

    # Names a terminal would act on.
    @case("names-control-characters")
    def _(d):
        bad = "\x1b[2J\x1b[31mred\x07\r\nfake line\x1b]0;title\x07\\"
        for i, n in enumerate(d.json["nodes"]):
            n["name"] = bad + str(i)
        for a in d.json.get("animations", []):
            a["name"] = bad + "clip"
        for m in d.json["meshes"]:
            m["name"] = bad

    # Many clips, many channels on one node.
    @case("animations-30-copies")
    def _(d):
        anim = d.json["animations"][0]
        d.json["animations"] += [dict(anim, name="copy%d" % i) for i in range(30)]

    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir, base_path = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    sources = [("base", Doc(base_path))]
    if len(sys.argv) > 3:
        sources.append(("rigged", Doc(sys.argv[3])))
    # The rigged file meets every attack (rig, play and the solver see it); the un-rigged one
    # those aimed at finding parts: geometry, skins, hierarchy, names, size.
    rig_side = ("position", "ibm", "weights", "scaled", "root-scale", "skin-", "names",
                "nodes", "time-last-1e6", "time-first-negative", "joint-scale", "node-")
    for label, src in sources:
        for name, fn in cases(src):
            if label == "base" and len(sources) > 1 and not name.startswith(rig_side):
                continue
            d = src.clone()
            fn(d)
            path = os.path.join(out_dir, "%s-%s.glb" % (label, name))
            d.save(path)
            print(path)
    # A .gltf whose buffer is a FIFO (a reader must not block on it).
    d = sources[0][1].clone()
    bin_name = "fifo-buffer.bin"
    fifo = os.path.join(out_dir, bin_name)
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    d.json["buffers"][0]["uri"] = bin_name
    d.json["buffers"][0]["byteLength"] = len(d.bin)
    path = os.path.join(out_dir, "base-fifo-buffer.gltf")
    with open(path, "w") as f:
        json.dump(d.json, f)
    print(path)


if __name__ == "__main__":
    main()
