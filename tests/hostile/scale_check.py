#!/usr/bin/env python3
"""The same character at 1 mm, at human size and at 1000 km rigs, plays and measures the same
(scaled): every threshold in rig, sim, play and measure is relative to the character's size.

usage: scale_check.py TAILOR WORK_DIR SHARED_CASE.glb

Two families: the built-in sample (`tailor sample tailed-biped --height H`, H = 0.001, 1.8,
1e6) and a shared case scaled by make_corpus.scale_character (positions, translations, bind
matrices and keys times k). For each scaled copy against the unscaled one:
  - rig: the same parts, classes, actions, vertex and segment counts; every number of the
    report equal, or equal times k (lengths), within 1e-3 relative (timings excluded);
  - play --json: every joint position divided by k equal within 1e-3 of the height;
  - measure --json: every number equal (ratios) or equal times k, within 2e-3 relative; a
    torn percentage (a count of edge samples past the torn ratio) within that or 0.005
    percentage points: joints that agree to 3e-7 H move a short edge's ratio by ~1e-4, so the
    few samples that close to the threshold may flip (5 of the biped's 257,328 did).
"""
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_corpus  # noqa: E402

TIMING_KEYS = {"seconds"}  # wall-clock timings of the rig stages
failures = []
compared = [0]


def play_lines(text):
    """`tailor play --json` (JSON Lines: a header, then a frame a line) as one document."""
    lines = text.splitlines()
    doc = json.loads(lines[0])
    doc["frames"] = [json.loads(line) for line in lines[1:]]
    return doc


def run(tailor, *args):
    p = subprocess.run([tailor] + list(args), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append("tailor %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return p.stdout


def same_number(a, b, k, rel, scale_ref):
    """a at size 1, b at size k: equal (a ratio), or equal times k (a length)."""
    slack = rel * scale_ref
    return abs(a - b) <= rel * abs(a) + 1e-9 or abs(a * k - b) <= rel * abs(a * k) + slack * k


def compare(a, b, k, rel, scale_ref, where):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key in TIMING_KEYS or key in ("file", "output"):
                continue
            if key not in b:
                failures.append("%s/%s: missing at scale %g" % (where, key, k))
                continue
            compare(a[key], b[key], k, rel, scale_ref, where + "/" + key)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            failures.append("%s: %d entries, %d at scale %g" % (where, len(a), len(b), k))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, k, rel, scale_ref, "%s/%d" % (where, i))
    elif isinstance(a, bool) or isinstance(a, str) or a is None:
        if a != b:
            failures.append("%s: %r, %r at scale %g" % (where, a, b, k))
    elif isinstance(a, (int, float)):
        compared[0] += 1
        torn = where.endswith("torn_pct") and isinstance(b, (int, float)) and abs(a - b) <= 0.005
        if not torn and (not isinstance(b, (int, float)) or not same_number(a, b, k, rel, scale_ref)):
            failures.append("%s: %r, %r at scale %g" % (where, a, b, k))


def check(tailor, work, label, files, height):
    """files: [(k, path)] with k = 1 first."""
    reports, plays, measures = {}, {}, {}
    for k, path in files:
        rigged = os.path.join(work, "%s-%g-rigged.glb" % (label, k))
        report = os.path.join(work, "%s-%g.json" % (label, k))
        if run(tailor, "rig", path, "-o", rigged, "--report", report) is None:
            return
        reports[k] = json.load(open(report))
        info = json.loads(run(tailor, "inspect", rigged, "--json") or "{}")
        clip = info["animations"][0]["name"]
        out = run(tailor, "play", rigged, "--clip", clip, "--seconds", "1", "--json")
        plays[k] = play_lines(out) if out else None
        out = run(tailor, "measure", rigged, "--clip", clip, "--json", "--samples", "8")
        measures[k] = json.loads(out) if out else None
    base = files[0][0]
    for k, _ in files[1:]:
        compare(reports[base], reports[k], k, 1e-3, height, "%s rig" % label)
        if plays[base] and plays[k]:
            worst = 0.0
            for fa, fb in zip(plays[base]["frames"], plays[k]["frames"]):
                for ca, cb in zip(fa["chains"], fb["chains"]):
                    for pa, pb in zip(ca, cb):
                        for x, y in zip(pa, pb):
                            worst = max(worst, abs(x - y / k) / height)
            if len(plays[base]["frames"]) != len(plays[k]["frames"]) or worst > 1e-3:
                failures.append("%s play at scale %g: joints differ by %.3g H (%d, %d frames)" %
                                (label, k, worst, len(plays[base]["frames"]),
                                 len(plays[k]["frames"])))
            print("%s play at scale %g: largest joint difference %.2g H" % (label, k, worst))
        if measures[base] and measures[k]:
            compare(measures[base], measures[k], k, 2e-3, height, "%s measure" % label)


def main():
    tailor, work, case = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The built-in sample at three heights.
    files = []
    for h in (1.8, 0.001, 1e6):
        path = os.path.join(work, "biped-%g.glb" % h)
        run(tailor, "sample", "tailed-biped", "--height", repr(h), "-o", path)
        files.append((h / 1.8, path))
    check(tailor, work, "biped", files, 1.8)
    # A shared case, its geometry scaled to 1 mm and 1000 km tall.
    doc = make_corpus.Doc(case)
    acc = doc.json["accessors"][doc.primitives()[0]["attributes"]["POSITION"]]
    height = max(b - a for a, b in zip(acc["min"], acc["max"]))
    files = [(1.0, case)]
    for metres in (0.001, 1e6):
        k = metres / height
        d = doc.clone()
        make_corpus.scale_character(d, k)
        path = os.path.join(work, "case-%g.glb" % metres)
        d.save(path)
        files.append((k, path))
    check(tailor, work, "case", files, height)
    for f in failures[:40]:
        print("FAIL " + f)
    print("%d numbers compared, %d failure(s)" % (compared[0], len(failures)))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
