#!/usr/bin/env python3
# usage: strip_tail.py IN.glb OUT_BASENAME TAIL_PREFIX SHIN THIGH_L THIGH_R TAIL_PARENT
# Strips an asset's tail weights the way /work/shared/cases/README.md says the cases were made:
# tail skin (>= half on tail joints) goes to the wrong bones (distal to one shin, proximal split
# between the thighs), body skin's smaller tail share to the joint the tail hangs from. The tail
# joints stay in the file carrying no weight. Writes OUT.glb and OUT.truth.json (tail_vertices
# as union indices in primitive order of the skinned meshes).
import json, struct, sys
src, out, prefix, shin, thl, thr, parent = sys.argv[1:8]
data = open(src, 'rb').read()
magic, ver, length = struct.unpack_from('<III', data, 0)
jlen, jtype = struct.unpack_from('<II', data, 12)
doc = json.loads(data[20:20 + jlen])
off = 20 + jlen
blen, btype = struct.unpack_from('<II', data, off)
bin_ = bytearray(data[off + 8: off + 8 + blen])
skin = doc['skins'][0]
names = [doc['nodes'][j].get('name', '') for j in skin['joints']]
idx = {n: i for i, n in enumerate(names)}
tail = {i for i, n in enumerate(names) if n.startswith(prefix)}
first = min(tail, key=lambda i: i)  # the proximal tail joint (first in joint order)
S, TL, TR, PA = idx[shin], idx[thl], idx[thr], idx[parent]
CT = {5121: ('B', 1, 255), 5123: ('H', 2, 65535), 5126: ('f', 4, None)}
def view(acc):
    a = doc['accessors'][acc]; bv = doc['bufferViews'][a['bufferView']]
    fmt, size, norm = CT[a['componentType']]
    stride = bv.get('byteStride', size * 4)
    base = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
    return a['count'], base, stride, fmt, size, norm
tail_vertices, union = [], 0
for mi, mesh in enumerate(doc['meshes']):
    skinned = any(n.get('mesh') == mi and 'skin' in n for n in doc['nodes'])
    for prim in mesh['primitives']:
        at = prim['attributes']
        n = doc['accessors'][at['POSITION']]['count']
        if not skinned or 'JOINTS_0' not in at:
            continue
        cj, bj, sj, fj, zj, _ = view(at['JOINTS_0'])
        cw, bw, sw, fw, zw, nw = view(at['WEIGHTS_0'])
        for v in range(n):
            J = list(struct.unpack_from('<4' + fj, bin_, bj + v * sj))
            W = list(struct.unpack_from('<4' + fw, bin_, bw + v * sw))
            if nw: W = [w / nw for w in W]
            share = sum(w for j, w in zip(J, W) if j in tail)
            if share <= 0: continue
            if share >= 0.5:
                tail_vertices.append(union + v)
                dom = max((w, j) for j, w in zip(J, W) if j in tail)[1]
                if dom == first: J, W = [TL, TR, 0, 0], [0.5, 0.5, 0, 0]
                else: J, W = [S, 0, 0, 0], [1, 0, 0, 0]
            else:
                acc = {}
                for j, w in zip(J, W):
                    if w <= 0: continue
                    k = PA if j in tail else j
                    acc[k] = acc.get(k, 0) + w
                items = sorted(acc.items(), key=lambda x: -x[1])[:4]
                items += [(0, 0.0)] * (4 - len(items))
                J, W = [k for k, _ in items], [w for _, w in items]
            if nw: W = [round(w * nw) for w in W]; W[0] += nw - sum(W)
            struct.pack_into('<4' + fj, bin_, bj + v * sj, *J)
            struct.pack_into('<4' + fw, bin_, bw + v * sw, *W)
        union += n
js = json.dumps(doc, separators=(',', ':')).encode()
js += b' ' * ((4 - len(js) % 4) % 4)
bin_ += b'\0' * ((4 - len(bin_) % 4) % 4)
total = 12 + 8 + len(js) + 8 + len(bin_)
with open(out + '.glb', 'wb') as f:
    f.write(struct.pack('<III', 0x46546C67, 2, total))
    f.write(struct.pack('<II', len(js), 0x4E4F534A)); f.write(js)
    f.write(struct.pack('<II', len(bin_), 0x004E4942)); f.write(bin_)
json.dump({'tail_vertices': tail_vertices}, open(out + '.truth.json', 'w'))
print(out, 'tail vertices', len(tail_vertices), 'of', union)
