#!/usr/bin/env python3
"""Makes a tailless case from a tailed asset the way another auto-rigger would have bound it.

usage: tail_styles.py IN.glb OUT_BASENAME --tail PREFIX --parent JOINT --style STYLE
                      [--shin J --thigh-l J --thigh-r J] [--scale S] [--z-up]

The joints whose names start with PREFIX are the artist's tail. They leave the skin (its
joints, inverse binds and every JOINTS_n index; their nodes and clip channels stay, weightless
and outside the skin), and the weight they carried goes to body joints by STYLE:

  template  as ../shared/cases/README.md made the cases: skin at least half on the tail goes
            distal to --shin, proximal (dominant joint the first tail joint) split between
            --thigh-l and --thigh-r; a smaller tail share goes to --parent
  nearest   each vertex's tail share to the body bone nearest that vertex (bind pose): what a
            distance-based binder does
  parent    every tail share to --parent, the joint the tail hangs from (all on the hips)
  thigh     every tail share to --thigh-l (one thigh only)

--scale S and --z-up wrap the scene's roots in one node (scale S; +90 degrees about X, so +Y up
becomes +Z up), as exporters do. Writes OUT.glb and OUT.truth.json in the cases' format
(tail_vertices per "meshM/primP", tail_parent, removed_joints with bind positions, source).
"""
import argparse
import json
import math
import struct
import sys

CT = {5121: ('B', 1, 255), 5123: ('H', 2, 65535), 5126: ('f', 4, None)}


def fail(msg):
    sys.stderr.write('tail_styles.py: %s\n' % msg)
    sys.exit(1)


def read_glb(path):
    data = open(path, 'rb').read()
    magic, _, _ = struct.unpack_from('<III', data, 0)
    if magic != 0x46546C67:
        fail('%s: not a GLB file' % path)
    jlen, _ = struct.unpack_from('<II', data, 12)
    doc = json.loads(data[20:20 + jlen])
    off = 20 + jlen
    blen, _ = struct.unpack_from('<II', data, off)
    return doc, bytearray(data[off + 8:off + 8 + blen])


def write_glb(path, doc, bin_):
    js = json.dumps(doc, separators=(',', ':')).encode()
    js += b' ' * ((4 - len(js) % 4) % 4)
    bin_ += b'\0' * ((4 - len(bin_) % 4) % 4)
    doc['buffers'][0]['byteLength'] = len(bin_)
    js = json.dumps(doc, separators=(',', ':')).encode()
    js += b' ' * ((4 - len(js) % 4) % 4)
    with open(path, 'wb') as f:
        f.write(struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(bin_)))
        f.write(struct.pack('<II', len(js), 0x4E4F534A))
        f.write(js)
        f.write(struct.pack('<II', len(bin_), 0x004E4942))
        f.write(bin_)


def view(doc, acc):
    a = doc['accessors'][acc]
    bv = doc['bufferViews'][a['bufferView']]
    fmt, size, norm = CT[a['componentType']]
    width = {'SCALAR': 1, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}[a['type']]
    stride = bv.get('byteStride', size * width)
    base = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
    return a['count'], base, stride, fmt, norm


def invert(m):
    """Inverse of a column-major 4x4 matrix, as rows."""
    a = [[m[c * 4 + r] for c in range(4)] + [float(r == k) for k in range(4)] for r in range(4)]
    for i in range(4):
        p = max(range(i, 4), key=lambda r: abs(a[r][i]))
        a[i], a[p] = a[p], a[i]
        piv = a[i][i]
        a[i] = [x / piv for x in a[i]]
        for r in range(4):
            if r != i:
                f = a[r][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
    return [row[4:] for row in a]


def point_segment(p, a, b):
    ab = [b[k] - a[k] for k in range(3)]
    ap = [p[k] - a[k] for k in range(3)]
    ll = sum(x * x for x in ab)
    t = max(0.0, min(1.0, sum(x * y for x, y in zip(ab, ap)) / ll)) if ll > 0 else 0.0
    return math.sqrt(sum((ap[k] - t * ab[k]) ** 2 for k in range(3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('input')
    ap.add_argument('out')
    ap.add_argument('--tail', required=True)
    ap.add_argument('--parent', required=True)
    ap.add_argument('--style', required=True, choices=['template', 'nearest', 'parent', 'thigh'])
    ap.add_argument('--shin')
    ap.add_argument('--thigh-l')
    ap.add_argument('--thigh-r')
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--z-up', action='store_true')
    ap.add_argument('--source', help='the input as a path under shared/assets (for the truth)')
    args = ap.parse_args()

    doc, bin_ = read_glb(args.input)
    skin = doc['skins'][0]
    names = [doc['nodes'][j].get('name', '') for j in skin['joints']]
    idx = {n: i for i, n in enumerate(names)}
    for n in (args.parent, args.shin, args.thigh_l, args.thigh_r):
        if n is not None and n not in idx:
            fail('%s: no joint %r in skin 0' % (args.input, n))
    if args.style in ('template', 'thigh') and not args.thigh_l:
        fail('--style %s needs --thigh-l' % args.style)
    if args.style == 'template' and not (args.shin and args.thigh_r):
        fail('--style template needs --shin and --thigh-r')
    tail = sorted(i for i, n in enumerate(names) if n.startswith(args.tail))
    if not tail:
        fail('%s: no joint named %s*' % (args.input, args.tail))
    tailset, first = set(tail), tail[0]

    # bind positions (inverse of each inverse bind matrix), the tail's for the truth
    n_ibm, ibase, istride, _, _ = view(doc, skin['inverseBindMatrices'])
    ibms = [struct.unpack_from('<16f', bin_, ibase + i * istride) for i in range(n_ibm)]
    bind = [[row[3] for row in invert(m)[:3]] for m in ibms]

    skinned = [mi for mi in range(len(doc['meshes']))
               if any(n.get('mesh') == mi and 'skin' in n for n in doc['nodes'])]
    # deforming body joints (carry weight) and their bone segments, for --style nearest
    prims = [(mi, pi, p) for mi in skinned for pi, p in enumerate(doc['meshes'][mi]['primitives'])
             if 'JOINTS_0' in p['attributes']]
    for _, _, p in prims:
        if any(k.startswith('JOINTS_') and k != 'JOINTS_0' for k in p['attributes']):
            fail('%s: only JOINTS_0 is handled' % args.input)
    deforming = set()
    for _, _, p in prims:
        cj, bj, sj, fj, _ = view(doc, p['attributes']['JOINTS_0'])
        cw, bw, sw, fw, _ = view(doc, p['attributes']['WEIGHTS_0'])
        for v in range(cj):
            for j, w in zip(struct.unpack_from('<4' + fj, bin_, bj + v * sj),
                            struct.unpack_from('<4' + fw, bin_, bw + v * sw)):
                if w > 0:
                    deforming.add(j)
    node_joint = {n: i for i, n in enumerate(skin['joints'])}
    segments = []
    for j in sorted(deforming - tailset):
        kids = [node_joint[c] for c in doc['nodes'][skin['joints'][j]].get('children', [])
                if c in node_joint and node_joint[c] not in tailset]
        for c in kids or [j]:
            segments.append((j, bind[j], bind[c]))

    def nearest(pos):
        return min(segments, key=lambda s: point_segment(pos, s[1], s[2]))[0]

    tail_vertices = {}
    for mi, pi, p in prims:
        at = p['attributes']
        cp, bp, sp, _, _ = view(doc, at['POSITION'])
        cj, bj, sj, fj, _ = view(doc, at['JOINTS_0'])
        cw, bw, sw, fw, nw = view(doc, at['WEIGHTS_0'])
        key = 'mesh%d/prim%d' % (mi, pi)
        for v in range(cj):
            J = list(struct.unpack_from('<4' + fj, bin_, bj + v * sj))
            W = list(struct.unpack_from('<4' + fw, bin_, bw + v * sw))
            if nw:
                W = [w / nw for w in W]
            share = sum(w for j, w in zip(J, W) if j in tailset)
            if share > 0:
                if share >= 0.5:
                    tail_vertices.setdefault(key, []).append(v)
                if args.style == 'template' and share >= 0.5:
                    dom = max((w, j) for j, w in zip(J, W) if j in tailset)[1]
                    to = {idx[args.thigh_l]: 0.5, idx[args.thigh_r]: 0.5} if dom == first \
                        else {idx[args.shin]: 1.0}
                    acc = to
                else:
                    if args.style in ('template', 'parent'):
                        target = idx[args.parent]
                    elif args.style == 'thigh':
                        target = idx[args.thigh_l]
                    else:
                        target = nearest(struct.unpack_from('<3f', bin_, bp + v * sp))
                    acc = {}
                    for j, w in zip(J, W):
                        if w > 0:
                            k = target if j in tailset else j
                            acc[k] = acc.get(k, 0) + w
                items = sorted(acc.items(), key=lambda x: -x[1])[:4]
                total = sum(w for _, w in items)
                items = [(k, w / total) for k, w in items] + [(0, 0.0)] * (4 - len(items))
                J, W = [k for k, _ in items], [w for _, w in items]
                if nw:
                    W = [round(w * nw) for w in W]
                    W[0] += nw - sum(W)
                struct.pack_into('<4' + fw, bin_, bw + v * sw, *W)
            J = [0 if (w == 0 and j in tailset) else j for j, w in zip(J, W)]
            struct.pack_into('<4' + fj, bin_, bj + v * sj, *J)

    # the tail joints leave the skin: renumber JOINTS_0, new inverse binds
    keep = [i for i in range(len(names)) if i not in tailset]
    remap = {old: new for new, old in enumerate(keep)}
    for _, _, p in prims:
        cj, bj, sj, fj, _ = view(doc, p['attributes']['JOINTS_0'])
        for v in range(cj):
            J = struct.unpack_from('<4' + fj, bin_, bj + v * sj)
            struct.pack_into('<4' + fj, bin_, bj + v * sj, *[remap[j] for j in J])
    bin_ += b'\0' * ((4 - len(bin_) % 4) % 4)
    offset = len(bin_)
    for i in keep:
        bin_ += struct.pack('<16f', *ibms[i])
    doc['bufferViews'].append({'buffer': 0, 'byteOffset': offset, 'byteLength': 64 * len(keep)})
    doc['accessors'].append({'bufferView': len(doc['bufferViews']) - 1, 'componentType': 5126,
                             'count': len(keep), 'type': 'MAT4'})
    skin['inverseBindMatrices'] = len(doc['accessors']) - 1
    skin['joints'] = [skin['joints'][i] for i in keep]

    if args.scale != 1.0 or args.z_up:
        s = math.sqrt(0.5)
        wrap = {'name': 'ExportRoot', 'scale': [args.scale] * 3}
        if args.z_up:
            wrap['rotation'] = [s, 0.0, 0.0, s]
        for sc in doc.get('scenes', []):
            doc['nodes'].append(dict(wrap, children=sc.get('nodes', [])))
            sc['nodes'] = [len(doc['nodes']) - 1]

    write_glb(args.out + '.glb', doc, bin_)
    truth = {'case': args.out.split('/')[-1], 'tail_parent': args.parent,
             'style': args.style, 'tail_vertices': tail_vertices,
             'removed_joints': [{'name': names[i], 'bind_position': bind[i]} for i in tail]}
    if args.source:
        truth['source'] = args.source
    json.dump(truth, open(args.out + '.truth.json', 'w'))
    print(args.out, 'tail vertices', sum(len(v) for v in tail_vertices.values()))


if __name__ == '__main__':
    main()
