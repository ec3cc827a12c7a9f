#!/usr/bin/env python3
"""A file as a tailor from before session 24 rigged it, and the check that `tailor rig` brings
it up to date (docs/rig.md "Session 25 (rerig25)").

    scripts/play_keys.py strip RIGGED.glb OLD.glb   remove the session-24 play keys (skins'
        extras.tailor.frame and .sheet, hair nodes' extras.tailor.hit_radius); the BIN chunk
        and every other JSON value are kept
    scripts/play_keys.py compare A.glb B.glb        exit 0 when the BIN chunks are the same bytes
        and the JSON trees are equal value for value (numbers exactly); else print what differs
"""
import json
import struct
import sys


def load(path):
    data = open(path, 'rb').read()
    if data[:4] != b'glTF':
        sys.exit(f'{path}: not a GLB')
    length, = struct.unpack_from('<I', data, 12)
    return data, json.loads(data[20:20 + length]), data[20 + length:]


def strip(src, dst):
    data, doc, rest = load(src)
    removed = 0
    for skin in doc.get('skins', []):
        tailor = skin.get('extras', {}).get('tailor', {})
        for key in ('frame', 'sheet'):
            removed += tailor.pop(key, None) is not None
    for node in doc.get('nodes', []):
        removed += node.get('extras', {}).get('tailor', {}).pop('hit_radius', None) is not None
    text = json.dumps(doc, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 4)
    magic, version = struct.unpack_from('<II', data, 0)
    header = struct.pack('<III', magic, version, 20 + len(text) + len(rest))
    open(dst, 'wb').write(header + struct.pack('<II', len(text), 0x4E4F534A) + text + rest)
    print(f'{src}: {removed} play key(s) removed')


def compare(a_path, b_path):
    _, a, a_bin = load(a_path)
    _, b, b_bin = load(b_path)
    diffs = []

    def walk(x, y, at):
        if type(x) is not type(y):
            diffs.append(f'{at}: {type(x).__name__} vs {type(y).__name__}')
        elif isinstance(x, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x or k not in y:
                    diffs.append(f'{at}/{k}: only in {"the first" if k in x else "the second"}')
                else:
                    walk(x[k], y[k], f'{at}/{k}')
        elif isinstance(x, list):
            if len(x) != len(y):
                diffs.append(f'{at}: {len(x)} vs {len(y)} items')
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f'{at}/{i}')
        elif x != y:
            diffs.append(f'{at}: {x!r} vs {y!r}')

    walk(a, b, '')
    same_bin = a_bin == b_bin
    print(f'BIN {"the same" if same_bin else "DIFFERENT"} ({len(a_bin)} / {len(b_bin)} bytes); '
          f'JSON: {len(diffs)} difference(s)')
    for d in diffs[:20]:
        print(' ', d)
    return 0 if same_bin and not diffs else 1


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] not in ('strip', 'compare'):
        sys.exit(__doc__)
    if sys.argv[1] == 'strip':
        strip(sys.argv[2], sys.argv[3])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
