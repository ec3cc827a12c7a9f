# The rigged hair table of docs/hair.md: tailor rig each MakeHuman style, then tailor measure
# --json in Walk, HeadTurn and Jump. Usage: python3 scripts/hair_table.py build/tailor OUT_DIR [STYLES]
# "all hair": every edge of the hair primitive (the skin's mesh nodes named *hair*, as the
# MakeHuman cases are), so the seams between chain regions and the head are in it too.
import json, subprocess, sys, os, struct
T = sys.argv[1]  # tailor binary
out = sys.argv[2]
styles = sys.argv[3].split(',') if len(sys.argv) > 3 else ['afro01','bob01','bob02','braid01','long01','ponytail01','short01','short02','short03','short04']
clips = ['Walk','HeadTurn','Jump']
os.makedirs(out, exist_ok=True)
def hair_vertices(path):
    f = open(path, 'rb').read()
    j = json.loads(f[20:20 + struct.unpack('<I', f[12:16])[0]])
    base, verts = 0, []
    for n in j['nodes']:
        if 'mesh' not in n or n.get('skin') != 0: continue
        for p in j['meshes'][n['mesh']]['primitives']:
            c = j['accessors'][p['attributes']['POSITION']]['count']
            if 'hair' in n.get('name', ''): verts += range(base, base + c)
            base += c
    return verts
print('| style, clip | chains | chain verts | hair p99 | hair max | torn | body p99 | body max | all hair p99 | all hair max | all hair torn | free motion mm | rest sag mm | pen H | root drift |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
for s in styles:
    g = f'{out}/{s}.glb'
    r = subprocess.run([T,'rig',f'/work/shared/cases/mh-{s}.glb','-o',g],capture_output=True,text=True)
    if r.returncode: print(s,'rig failed',r.stderr[:200]); continue
    rj = f'{out}/{s}.hair.json'
    json.dump({'vertices': hair_vertices(f'/work/shared/cases/mh-{s}.glb')}, open(rj, 'w'))
    for c in clips:
        r = subprocess.run([T,'measure',g,'--clip',c,'--json'],capture_output=True,text=True)
        if r.returncode: print(s,c,'measure failed',r.stderr[:300]); continue
        d = json.loads(r.stdout)
        json.dump(d, open(f'{out}/{s}.{c}.json','w'))
        hr = [x for x in d['regions'] if 'hair' in x]
        b = d['body']['stretch']
        if not hr:
            print(f'| {s} {c} | rigid | | | | | {b["p99"]:.3f} | {b["max"]:.3f} | | | | | | | |'); continue
        p99 = max(x['stretch']['chain']['p99'] for x in hr)
        mx = max(x['stretch']['chain']['max'] for x in hr)
        cnt = sum(x['stretch']['chain']['count'] for x in hr)
        torn = sum(x['stretch']['chain']['torn_pct']*x['stretch']['chain']['count'] for x in hr)/max(cnt,1)
        h = hr[0]['hair']
        r = subprocess.run([T,'measure',g,'--clip',c,'--region-json',rj,'--json'],capture_output=True,text=True)
        a = json.loads(r.stdout)['regions'][0]['stretch']['chain'] if not r.returncode else None
        al = f'{a["p99"]:.3f} | {a["max"]:.3f} | {a["torn_pct"]:.3f}%' if a else 'failed | | ' 
        nv = sum(x['vertices'] for x in hr)
        print(f'| {s} {c} | {len(hr)} | {nv} | {p99:.3f} | {mx:.3f} | {torn:.3f}% | {b["p99"]:.3f} | {b["max"]:.3f} | {al} | {h["free_motion_max"]*1000:.1f} | {h["rest_sag_max"]*1000:.2f} | {h["collider_penetration"]:.4f} | {h["root_drift_max"]:.1e} |', flush=True)
