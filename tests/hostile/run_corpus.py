#!/usr/bin/env python3
"""Runs every tailor command on every file of the hostile corpus (make_corpus.py) and checks
what issue 17 promises, whatever the file:

  - the exit code is 0, 1 or 2 (no crash, no abort, no sanitizer exit);
  - no sanitizer report on stderr (ASan, UBSan incl. float-cast-overflow and
    float-divide-by-zero, LeakSanitizer);
  - an answer within TIMEOUT seconds;
  - with --json and exit 0: stdout is one JSON document with only finite numbers;
  - with a non-zero exit: no output file and no temporary file left;
  - the input byte for byte unchanged;
  - stdout and stderr hold no control characters but newlines (names from the file are
    escaped before they reach a terminal).

usage: run_corpus.py TAILOR WORK_DIR BASE.glb [--jobs N] [--timeout S] [--filter TEXT]
Prints one line per failure and a summary; exits 1 when anything failed.
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER_MARKS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehavior",
                   "Assertion", "Sanitizer")


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def finite(node):
    """True when no number in the JSON tree is NaN or infinite."""
    if isinstance(node, float):
        return math.isfinite(node)
    if isinstance(node, dict):
        return all(finite(v) for v in node.values())
    if isinstance(node, list):
        return all(finite(v) for v in node)
    return True


def reject_constant(name):
    raise ValueError("non-finite JSON number " + name)


def run(tailor, args, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run([tailor] + args, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.monotonic() - start


def clip_of(tailor, path, timeout):
    code, out, _, _ = run(tailor, ["inspect", path, "--json"], timeout)
    try:
        clips = json.loads(out).get("clips") or json.loads(out).get("animations") or []
        for c in clips:
            if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"]:
                return c["name"]
    except (ValueError, AttributeError):
        pass
    return "none"


def check_file(tailor, path, work, timeout):
    """Every command on one file; returns (failures, seconds per command)."""
    name = os.path.basename(path)
    out_dir = os.path.join(work, "out", name)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    before = digest(path) if os.path.isfile(path) else None
    clip = clip_of(tailor, path, timeout) if os.path.isfile(path) else "none"
    o = lambda n: os.path.join(out_dir, n)
    commands = [
        (["inspect", path], [], False),
        (["inspect", path, "--json"], [], True),
        (["rig", path, "-o", o("rig.glb"), "--report", o("rig.json")],
         [o("rig.glb"), o("rig.json")], False),
        (["rig", path, "--dry-run", "--report", o("dry.json")], [o("dry.json")], False),
        (["measure", path, "--json"], [], True),
        (["measure", path, "--json", "--stress"], [], True),
        (["measure", path, "--samples", "6"], [], False),
        (["play", path, "--clip", clip, "--json"], [], True),
        (["play", path, "--clip", clip, "--seconds", "1"], [], False),
        (["copy", path, "-o", o("copy.gltf"), "--compact"], [o("copy.gltf"), o("copy.bin")], False),
        (["copy", path, "-o", o("copy.glb")], [o("copy.glb")], False),
    ]
    failures, times = [], []
    for args, outputs, as_json in commands:
        label = "%s: tailor %s" % (name, " ".join(a if a != path else "FILE" for a in args))
        code, out, err, seconds = run(tailor, args, timeout)
        times.append((seconds, label))
        text = err.decode("utf-8", "replace")
        if code is None:
            failures.append("%s: no answer within %d s" % (label, timeout))
            continue
        if code not in (0, 1, 2):
            failures.append("%s: exit %d: %s" % (label, code, text.strip()[-600:]))
        elif any(m in text for m in SANITIZER_MARKS):
            failures.append("%s: sanitizer report: %s" % (label, text.strip()[-600:]))
        if code == 0 and as_json:
            try:
                if args[0] == "play":  # JSON Lines: a header, then one frame a line
                    doc = [json.loads(line, parse_constant=reject_constant)
                           for line in out.splitlines()]
                else:
                    doc = json.loads(out, parse_constant=reject_constant)
                if not finite(doc):
                    failures.append("%s: JSON holds a non-finite number" % label)
                # non-finite or huge values anywhere are listed by inspect, never silent
                poisoned = any(m in name for m in ("-nan", "-inf", "1e38", "3e38", "1e30"))
                if args[0] == "inspect" and poisoned and not doc.get("problems"):
                    failures.append("%s: no problem listed" % label)
            except ValueError as e:
                failures.append("%s: exit 0 but stdout is not JSON (%s): %r" %
                                (label, e, out[:200]))
        if code == 0 and not out.strip() and not as_json and args[0] in ("inspect", "measure"):
            failures.append("%s: exit 0 with nothing printed" % label)
        shown = out.replace(path.encode(), b"").replace(name.encode(), b"")
        if re.search(rb"(?<![A-Za-z_])-?(nan|inf)(?![A-Za-z_])", shown, re.I):
            failures.append("%s: prints a NaN or an infinity" % label)
        for stream, data in (("stdout", out), ("stderr", err)):
            bad = sorted({b for b in data if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F})
            if bad:
                failures.append("%s: raw control bytes on %s: %s" % (label, stream, bad))
        if code != 0:
            left = [p for p in outputs if os.path.exists(p)]
            if left:
                failures.append("%s: exit %d but left %s" % (label, code, left))
        temps = [f for f in os.listdir(out_dir) if f.startswith(".tl-")]
        if temps:
            failures.append("%s: temporary files left: %s" % (label, temps))
        for p in outputs:
            if os.path.exists(p):
                os.remove(p)
        if code != 0 and code in (1, 2) and not text.strip():
            failures.append("%s: exit %d with no message" % (label, code))
    if before is not None and digest(path) != before:
        failures.append("%s: the input changed" % name)
    shutil.rmtree(out_dir, ignore_errors=True)
    return failures, times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tailor")
    ap.add_argument("work")
    ap.add_argument("base")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    corpus = os.path.join(a.work, "corpus")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(corpus)
    rigged = os.path.join(a.work, "rigged.glb")
    code, _, err, _ = run(a.tailor, ["rig", a.base, "-o", rigged], a.timeout)
    if code != 0:
        sys.exit("cannot rig the base file: %s" % err.decode(errors="replace"))
    made = subprocess.run([sys.executable, os.path.join(HERE, "make_corpus.py"), corpus, a.base,
                           rigged], capture_output=True, text=True, check=True)
    files = [p for p in made.stdout.split() if a.filter in os.path.basename(p)]
    start = time.monotonic()
    failures, times = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for f, t in pool.map(lambda p: check_file(a.tailor, p, a.work, a.timeout), files):
            failures += f
            times += t
    for f in failures:
        print("FAIL " + f)
    per_command = {}
    for seconds, label in times:
        kind = label.split(": tailor ", 1)[1].split(" /")[0]
        per_command[kind] = per_command.get(kind, 0) + seconds
    print("seconds per command: " + "; ".join("%s %.0f" % kv for kv in sorted(
        per_command.items(), key=lambda kv: -kv[1])))
    times.sort(reverse=True)
    print("slowest: " + "; ".join("%.1f s %s" % t for t in times[:5]))
    print("%d files x %d commands in %.0f s: %d failure(s)" %
          (len(files), len(times) // max(len(files), 1), time.monotonic() - start, len(failures)))
    shutil.rmtree(a.work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
