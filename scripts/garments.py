#!/usr/bin/env python3
# usage: garments.py BODY.glb OUT_DIR
# Deterministic test garments for issue 13 (cloth judged on characters not in ../shared): puts
# a cape (open sheet, unskinned mesh parented to the joint where the arms branch off the spine,
# like the KayKit knight's Knight_Cape) and a skirt (closed cone skinned to the thighs, as an
# auto-rigger binds one) on a real body. Every size comes from the body's rest joints (found by
# tree structure, not names), so the same code dresses any biped. Writes OUT_DIR/NAME-cape.glb
# and OUT_DIR/NAME-skirt.glb and prints what it found as JSON.
import json, math, os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'hostile'))
import make_corpus  # noqa: E402  (the GLB reader/writer the hostile tests use)

def mat_mul(a, b):  # column-major 4x4
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]

def mat_trs(n):
    if 'matrix' in n: return list(n['matrix'])
    tx, ty, tz = n.get('translation', [0, 0, 0]); x, y, z, w = n.get('rotation', [0, 0, 0, 1])
    sx, sy, sz = n.get('scale', [1, 1, 1])
    r = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]
    return [r[0] * sx, r[1] * sx, r[2] * sx, 0, r[3] * sy, r[4] * sy, r[5] * sy, 0,
            r[6] * sz, r[7] * sz, r[8] * sz, 0, tx, ty, tz, 1]

def mat_inv(m):  # affine inverse
    a = [[m[c * 4 + r] for c in range(3)] for r in range(3)]
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
           + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    inv = [[0] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(3):
            rr = [i for i in range(3) if i != c]; cc = [i for i in range(3) if i != r]
            minor = a[rr[0]][cc[0]] * a[rr[1]][cc[1]] - a[rr[0]][cc[1]] * a[rr[1]][cc[0]]
            inv[r][c] = (-1) ** (r + c) * minor / det
    t = [m[12], m[13], m[14]]
    it = [-sum(inv[r][k] * t[k] for k in range(3)) for r in range(3)]
    return [inv[0][0], inv[1][0], inv[2][0], 0, inv[0][1], inv[1][1], inv[2][1], 0,
            inv[0][2], inv[1][2], inv[2][2], 0, it[0], it[1], it[2], 1]

def xform(m, p):
    return [m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r] for r in range(3)]

def sub(a, b): return [a[i] - b[i] for i in range(3)]
def add(a, b): return [a[i] + b[i] for i in range(3)]
def mul(a, s): return [x * s for x in a]
def dot(a, b): return sum(a[i] * b[i] for i in range(3))
def norm(a): return math.sqrt(dot(a, a))
def unit(a): n = norm(a); return mul(a, 1 / n) if n > 0 else a
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

def skeleton(doc):
    parent = {}
    for i, n in enumerate(doc['nodes']):
        for c in n.get('children', []): parent[c] = i
    world = {}
    def w(i):
        if i not in world:
            m = mat_trs(doc['nodes'][i])
            world[i] = mat_mul(w(parent[i]), m) if i in parent else m
        return world[i]
    for i in range(len(doc['nodes'])): w(i)
    return parent, world

def path_up(parent, j):
    out = [j]
    while out[-1] in parent: out.append(parent[out[-1]])
    return out

def lca(parent, a, b):
    up = set(path_up(parent, a))
    for j in path_up(parent, b):
        if j in up: return j

def grid_mesh(doc, name, pos, rows, cols, closed, skin=None):
    tris = []
    cc = cols if closed else cols - 1
    for r in range(rows - 1):
        for c in range(cc):
            a, b = r * cols + c, r * cols + (c + 1) % cols
            tris += [(a, a + cols, b), (b, a + cols, b + cols)]
    attr = {'POSITION': doc.add(pos, 'VEC3', min_max=True, target=34962)}
    if skin:
        attr['JOINTS_0'] = doc.add(skin[0], 'VEC4', 5123, target=34962)
        attr['WEIGHTS_0'] = doc.add(skin[1], 'VEC4', target=34962)
    ind = doc.add(tris, 'SCALAR', 5123, target=34963)
    doc.json['accessors'][ind]['count'] = 3 * len(tris)
    doc.json['meshes'].append({'name': name, 'primitives': [{'attributes': attr, 'indices': ind}]})
    return len(doc.json['meshes']) - 1

def main():
    src, out_dir = sys.argv[1:3]
    base = os.path.splitext(os.path.basename(src))[0]
    src_doc = make_corpus.Doc(src)
    doc, bin0 = src_doc.json, src_doc.bin
    parent, world = skeleton(doc)
    skin_i = next(i for i, n in enumerate(doc['nodes']) if 'skin' in n)
    skin = doc['skins'][doc['nodes'][skin_i]['skin']]
    joints = skin['joints']
    P = {j: world[j][12:15] for j in joints}
    lo = min(P[j][1] for j in joints); hi = max(P[j][1] for j in joints)
    H = hi - lo
    # Lateral axis from the widest joint pair in the lower and upper body; world up is +y (glTF).
    lower = [j for j in joints if P[j][1] < lo + 0.15 * H]
    feet = sorted(lower, key=lambda j: P[j][1])
    fa = feet[0]
    fb = max(lower, key=lambda j: norm(sub(P[j], P[fa])) if lca(parent, j, fa) not in path_up(parent, fa)[:3] else -1)
    hip = lca(parent, fa, fb)
    def thigh_on(foot):  # on the way down to a foot: the joint nearest hip height (0.5 H)
        down = list(reversed(path_up(parent, foot)))
        down = down[down.index(hip) + 1:]
        near = lambda h: min(down, key=lambda j: abs(P[j][1] - (lo + h * H)))
        t = near(0.5)  # the knee: the first joint below it by 0.12 H (a mid-thigh twist joint is not)
        return t, next((j for j in down[down.index(t) + 1:] if P[t][1] - P[j][1] > 0.12 * H), down[-1])
    (tl, kl), (tr, kr) = thigh_on(fa), thigh_on(fb)
    upper = [j for j in joints if P[j][1] > lo + 0.6 * H]
    center = mul(add(P[tl], P[tr]), 0.5)
    lat_guess = unit([P[tl][0] - P[tr][0], 0, P[tl][2] - P[tr][2]])
    ha = max(upper, key=lambda j: dot(sub(P[j], center), lat_guess))
    hb = min(upper, key=lambda j: dot(sub(P[j], center), lat_guess))
    chest = lca(parent, ha, hb)
    # Shoulders: the chest's children toward each hand; their span is the cape's width.
    def child_toward(j):
        p = path_up(parent, j)
        return p[p.index(chest) - 1] if p.index(chest) > 0 else j
    def arm_root(hand):  # the first joint toward the hand that is 0.05 H off the spine line
        p = list(reversed(path_up(parent, hand))); p = p[p.index(chest) + 1:]
        return next((j for j in p if abs(dot(sub(P[j], P[chest]), lat_guess)) > 0.05 * H), p[-1])
    sa, sb = arm_root(ha), arm_root(hb)
    lat = unit(sub(P[tl], P[tr])); lat[1] = 0; lat = unit(lat)
    up = [0, 1, 0]
    # Forward: toes point ahead of the ankles (the lowest joint against its parent).
    toe = [0, 0, 0]
    for f in (fa, fb):
        if f in parent: toe = add(toe, sub(P[f], P[parent[f]]))
    fwd = unit(cross(lat, up))
    if dot(fwd, toe) < 0: fwd = mul(fwd, -1)
    hip_span = norm(sub(P[tl], P[tr]))
    thigh_len = P[tl][1] - P[kl][1]
    sh_span = abs(dot(sub(P[sa], P[sb]), lat))
    info = {'body': base, 'height': H, 'hip_joint': doc['nodes'][hip].get('name'),
            'thighs': [doc['nodes'][tl].get('name'), doc['nodes'][tr].get('name')],
            'chest': doc['nodes'][chest].get('name'), 'hip_span': hip_span, 'thigh_length': thigh_len,
            'shoulder_span': sh_span}
    os.makedirs(out_dir, exist_ok=True)
    # The skinned-vertex space: joint_world * inverse_bind maps it to world at rest.
    ibm_acc = doc['accessors'][skin['inverseBindMatrices']]
    bv = doc['bufferViews'][ibm_acc['bufferView']]
    ibm_off = bv.get('byteOffset', 0) + ibm_acc.get('byteOffset', 0)
    def ibm(k): return list(struct.unpack_from('<16f', bin0, ibm_off + 64 * k))
    to_bind = mat_inv(mat_mul(world[tl], ibm(joints.index(tl))))

    # Skirt: a cone from above the hip joints to just above the knees, standing off the legs.
    out = src_doc.clone()
    doc_s = out.json
    rows, cols = 10, 24
    top_y, hem_y = P[tl][1] + 0.3 * thigh_len, P[kl][1] + 0.15 * thigh_len
    r_top, r_hem = 1.05 * hip_span, 1.9 * hip_span
    ctr = [center[0], 0, center[2]]
    pos, J, W = [], [], []
    for r in range(rows):
        t = r / (rows - 1)
        y, rad = top_y + (hem_y - top_y) * t, r_top + (r_hem - r_top) * t
        for c in range(cols):
            a = 2 * math.pi * c / cols
            d = add(mul(lat, math.cos(a)), mul(fwd, math.sin(a)))
            p = add(add(ctr, mul(d, rad)), [0, y, 0])
            pos.append(xform(to_bind, p))
            s = 0.5 + 0.5 * math.cos(a)  # 1 on the left thigh's side, 0 on the right's
            s = s * s * (3 - 2 * s)
            jw = sorted([(s, joints.index(tl)), (1 - s, joints.index(tr))], reverse=True)
            if jw[1][0] <= 0: jw[1] = (0.0, 0)  # no joint with zero weight (validator warning)
            J.append((jw[0][1], jw[1][1], 0, 0)); W.append((jw[0][0], jw[1][0], 0, 0))
    m = grid_mesh(out, 'GenSkirt', pos, rows, cols, True, (J, W))
    doc_s['nodes'].append({'name': 'GenSkirt', 'mesh': m, 'skin': doc['nodes'][skin_i]['skin']})
    doc_s['scenes'][doc_s.get('scene', 0)]['nodes'].append(len(doc_s['nodes']) - 1)
    out.save(os.path.join(out_dir, base + '-skirt.glb'))

    # Cape: an open sheet behind the back from the shoulders to mid-thigh, curved around the back,
    # an unskinned mesh child of the chest joint (vertices in the chest's local space).
    out = src_doc.clone()
    doc_c = out.json
    rows, cols = 12, 11
    top = [P[chest][0], (P[sa][1] + P[sb][1]) / 2, P[chest][2]]
    hem_y = P[kl][1] + 0.5 * thigh_len
    back = 0.45 * sh_span
    to_chest = mat_inv(world[chest])
    pos = []
    for r in range(rows):
        t = r / (rows - 1)
        y = top[1] + (hem_y - top[1]) * t
        half = 0.5 * sh_span * (1 + 0.4 * t)
        for c in range(cols):
            u = (c / (cols - 1)) * 2 - 1
            a = u * math.radians(70)
            p = add(top, mul(lat, half * math.sin(a)))
            p = sub(p, mul(fwd, back * (0.6 + 0.4 * math.cos(a)) + 0.1 * sh_span * t))
            p[1] = y
            pos.append(xform(to_chest, p))
    m = grid_mesh(out, 'GenCape', pos, rows, cols, False)
    doc_c['nodes'].append({'name': 'GenCape', 'mesh': m})
    doc_c['nodes'][chest].setdefault('children', []).append(len(doc_c['nodes']) - 1)
    out.save(os.path.join(out_dir, base + '-cape.glb'))
    print(json.dumps(info))

main()
