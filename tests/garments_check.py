#!/usr/bin/env python3
# usage: garments_check.py TAILOR SOURCE_DIR SHARED_DIR WORK_DIR
# Issue 13: cloth judged on garments not in ../shared. scripts/garments.py dresses real bodies
# of ../shared in a cape (unskinned, under the chest joint) and a skirt (skinned to the thighs);
# each is rigged and measured. Asserted: the rigged files validate with no error and no warning
# code the body did not already draw, every cape and every skirt becomes one cloth lattice (the
# skirt a closed ring from the pelvis region, no tail part, and every other part the bare
# body's: its skin stays body), the tethers stay within 1e-6 of rest length in every clip,
# every garment comes to rest within 2 s of the stress shake (CesiumMan's cape took 2.617 s
# before the tether pass gave the particle above its share of each move, docs/cloth.md "Coming
# to rest after a shake"), and on a body with a clip the hitch and teleport transients meet the
# stress bars (hitch <= 1.5 and <= 1.02 later, teleport <= 1.15 and <= 1.02 later; CesiumMan's
# cape's were 3.19 / 2.91, its skirt's hitch 2.50), and the whole garment as modelled (every
# vertex of its mesh, simulated) stretches no more than the body (p99, max) and tears no more
# than 0.1% or the file's own binding (the skirts' thigh-bound collars kept their thigh weights
# and tore 0.58-1.73% before: docs/cloth.md "The whole skirt as modelled").
import json, os, struct, subprocess, sys
tailor, src, shared, work = sys.argv[1:5]
# Misses known today, printed here and asserted with TL_GARMENTS_STRICT=1: none (so the ctest
# known_failing_garments was removed in session 11). CesiumMan's cape's hitch 'later' ratio read 1.048 > 1.02 while
# the links' push ran once a step before the relaxation with a tuned share (0.75); pushed
# before every relaxation iteration, the whole depth, it reads 1.002 (docs/cloth.md "The links'
# push inside the relaxation") and is asserted again.
KNOWN_MISSES = set()
strict = os.environ.get('TL_GARMENTS_STRICT') == '1'
def known(key, ok, what):
    if key in KNOWN_MISSES and not strict: print(('ok   ' if ok else 'KNOWN FAILING ') + what)
    else: check(ok, what)
def garment_region(path, out):
    """The generated garment's vertices (its mesh, named Gen*) as union indices of skin 0 (the
    skin's primitives in node order), written as a --region-json file; False if it has none."""
    b = open(path, 'rb').read()
    j = json.loads(b[20:20 + struct.unpack('<I', b[12:16])[0]])
    first, rng = 0, None
    for nd in j['nodes']:
        if 'mesh' not in nd or nd.get('skin') != 0: continue
        mesh = j['meshes'][nd['mesh']]
        for prim in mesh['primitives']:
            c = j['accessors'][prim['attributes']['POSITION']]['count']
            if mesh.get('name', '').startswith('Gen'): rng = (first, first + c)
            first += c
    if rng: json.dump({'name': 'whole', 'vertices': list(range(*rng))}, open(out, 'w'))
    return rng is not None
bodies = ['assets/khronos-cesiumman/CesiumMan.glb', 'cases/mh-body.glb', 'assets/vrm-godette/Godette_vrm_v4.vrm']
os.makedirs(work, exist_ok=True)
fails = []
measured = 0  # cloth regions measured: the tether check must not pass on none
def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok: fails.append(what)
def run(*args):
    return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout
def validate(path):
    return json.loads(run('node', os.path.join(src, 'tests/validate.mjs'), os.path.abspath(path)))
for b in bodies:
    body = os.path.join(shared, b)
    info = json.loads(run(sys.executable, os.path.join(src, 'scripts/garments.py'), body, work))
    base = os.path.join(work, info['body'])
    before = set(validate(body)['codes'])
    # the bare body's parts: a skirted file must keep them (real body skin stays body)
    key = lambda p: (p['vertices'], p['welded'], p['class'], p['region'], p['action'], p['attach_joint'])
    run(tailor, 'rig', body, '-o', base + '.rig.glb', '--report', base + '.rep.json')
    body_parts = [key(p) for p in json.load(open(base + '.rep.json'))['parts']]
    for g in ('cape', 'skirt'):
        inp, out, rep = base + '-' + g + '.glb', base + '-' + g + '.rig.glb', base + '-' + g + '.rep.json'
        run(tailor, 'rig', inp, '-o', out, '--report', rep)
        v = validate(out)
        check(v['errors'] == 0 and set(v['codes']) <= before,
              '%s %s: validator %d errors, codes %s (body: %s)' % (info['body'], g, v['errors'], sorted(v['codes']), sorted(before)))
        report = json.load(open(rep))['parts']
        parts = [p for p in report if p['action'] == 'cloth']
        check(len(parts) == 1, '%s %s: cloth lattices %s' % (info['body'], g, [p['cloth'] for p in parts]))
        if g == 'skirt':
            # a skirt on its own shell, skinned to the thighs: one closed ring hanging from the
            # pelvis region, not body skin (limb test) nor flaps re-split into tails
            check(len(parts) == 1 and parts[0]['cloth']['closed'] and parts[0]['region'] == 'pelvis',
                  '%s skirt: a closed lattice from the pelvis region' % info['body'])
            tails = [p['vertices'] for p in report if p['class'] == 'tail']
            check(not tails, '%s skirt: no tail parts (%s)' % (info['body'], tails))
            rest = [key(p) for p in report if p['action'] != 'cloth']
            check(rest == body_parts, '%s skirt: the other parts are the bare body\'s (%d / %d parts)' % (
                  info['body'], len(rest), len(body_parts)))
        if not parts: continue
        whole = base + '-' + g + '.whole.json'
        if garment_region(inp, whole):  # the whole garment as modelled, against the body
            w = json.loads(run(tailor, 'measure', inp, '--region-json', whole, '--json'))
            for c in w.get('clips', [w]):
                st = [r for r in c['regions'] if r['name'] == 'whole'][0]['stretch']
                ch, orig, body = st['chain'], st['original'], c['body']['stretch']
                known((info['body'], g, 'whole'),
                      ch['p99'] <= body['p99'] and ch['max'] <= body['max'] and
                      ch['torn_pct'] <= max(0.1, orig['torn_pct']),
                      '%s %s %s: whole garment p99/max/torn %.3f/%.3f/%.3f%% (as bound %.3f/%.3f/%.3f%%, '
                      'body %.3f/%.3f)' % (info['body'], g, c.get('clip') or '', ch['p99'], ch['max'],
                      ch['torn_pct'], orig['p99'], orig['max'], orig['torn_pct'], body['p99'], body['max']))
        m = json.loads(run(tailor, 'measure', inp, '--json'))
        for c in m['clips']:
            for r in c['regions']:
                cl = r.get('cloth')
                if not cl: continue
                measured += 1
                check(cl['tether_violation_max'] <= 1e-6, '%s %s %s: tethers %.3g' % (info['body'], g, c['clip'], cl['tether_violation_max']))
                bs = c['body']['stretch']
                sd = r.get('skin_depth') or {}  # (inside the body's skin: docs/measure.md)
                print('info %s %s %s: stretch v p99/max %.4f/%.4f h %.4f/%.4f torn %.2f%% (body %.4f/%.4f/%.2f%%) '
                      'max distance %.3g collider %.4f mesh %.4f (input %.4f) H; in the skin %s (input %s) H' % (
                      info['body'], g, c['clip'], cl['stretch_vertical']['p99'], cl['stretch_vertical']['max'],
                      cl['stretch_horizontal']['p99'], cl['stretch_horizontal']['max'],
                      max(cl['stretch_vertical']['torn_pct'], cl['stretch_horizontal']['torn_pct']),
                      bs['p99'], bs['max'], bs['torn_pct'], cl['max_distance_violation_max'],
                      cl['collider_penetration'], cl['mesh_penetration'], cl['mesh_penetration_input'],
                      '%.4f' % sd['chain'] if sd.get('chain') is not None else '-',
                      '%.4f' % sd['original'] if sd.get('original') is not None else '-'))
        s = json.loads(run(tailor, 'measure', inp, '--stress', '--json'))
        for p in s.get('parts', []):
            if p.get('kind') != 'cloth': continue
            what = '%s %s stress: settle %.3f s, nonfinite %d, length error %.3g, hitch %.2f, teleport %.2f' % (
                info['body'], g, p['settle_seconds'], p['nonfinite'], p['max_length_error'],
                p['hitch_speed_ratio'], p['teleport_speed_ratio'])
            check(p['nonfinite'] == 0, what)
            check(0 <= p['settle_seconds'] <= 2.0, what + ' (settle bar 2 s)')
            if p['hitch_speed_ratio'] >= 0:  # (-1: no clip to run the events in)
                hitch_ok = p['hitch_speed_ratio'] <= 1.5 and p['hitch_speed_ratio_later'] <= 1.02
                hitch = what + ' (hitch bars 1.5, later %.3f <= 1.02)' % p['hitch_speed_ratio_later']
                known((info['body'], g, 'hitch'), hitch_ok, hitch)
                known((info['body'], g, 'teleport'),
                      p['teleport_speed_ratio'] <= 1.15 and p['teleport_speed_ratio_later'] <= 1.02,
                      what + ' (teleport bars 1.15, later %.3f <= 1.02)' % p['teleport_speed_ratio_later'])
check(measured >= 2, '%d cloth regions measured' % measured)
print('%d failed' % len(fails))
sys.exit(1 if fails else 0)
