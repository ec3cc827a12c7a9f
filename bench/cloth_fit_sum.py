#!/usr/bin/env python3
# usage: cloth_fit_sum.py TAILOR FILE CLIP...: one line per clip of each cloth region's figures
# (docs/cloth.md "Session 27 (skirtfit27)"; '-': every clip of the file)
import json, subprocess, sys
tailor, path = sys.argv[1], sys.argv[2]
for clip in sys.argv[3:]:
    cmd = [tailor, 'measure', path, '--json'] + ([] if clip == '-' else ['--clip', clip])
    d = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    for c in d.get('clips', [d]):
        b = c['body']['stretch_chain']
        for r in c['regions']:
            if r.get('class') != 'cloth': continue
            s = r['stretch']['chain']; cl = r['cloth']
            print(f"{path.split('/')[-1]} {c['clip'] or '-'} {r['name']} n={r['vertices']} mesh={cl['mesh_penetration']:.4f} depth={r['skin_depth']['chain']:.4f} "
                  f"cloth={s['p99']:.3f}/{s['max']:.3f}/{s['torn_pct']:.3f} body={b['p99']:.3f}/{b['max']:.3f} "
                  f"v={cl['stretch_vertical']['p99']:.3f}/{cl['stretch_vertical']['max']:.3f} h={cl['stretch_horizontal']['p99']:.3f}/{cl['stretch_horizontal']['max']:.3f} part={cl['collider_penetration']:.4f}")
