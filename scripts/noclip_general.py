#!/usr/bin/env python3
"""The junction fit's range-of-motion set on the general files (docs/rig.md §8, "no clips").

usage: noclip_general.py DIR TAILOR_A TAILOR_B [NAME_PART]...

DIR holds the generated files of `test_general general_cases` (build/scratch/test_general:
NAME.glb, NAME.truth.json). Each file is rigged by both builds with every clip skipped
(`--fit-skip` each: the fit then sees the range-of-motion set, as for a file with no clip),
and the walk and the fast clip are measured (chain simulated): the whole tail (the truth's
vertices) p99 / max / torn, and the new tears of the re-weighted skin from `--report`. Each
cell is judged against the general test's bars, with the input's figures from the same
files: tail (p99 and max within the input body's), torn (at most 0.1%), input (p99 and
torn not above the input's), new (at most 0.25%). Prints one line per file and clip and
the cells that move between pass and fail.
"""
import json
import os
import subprocess
import sys

CLIPS = {"fox-q": ("Walk", "Gallop"), "husky": ("Walk", "Gallop"), "horse": ("Walk", "Gallop"),
         "rat": ("Rat_Walk", "Rat_Run"), "trex": ("TRex_Walk", "TRex_Run"),
         "stag": ("Walk", "Gallop"), "fox-k": ("Walk", "Run")}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def stretch(tailor, glb, clip, truth):
    m = json.loads(run([tailor, "measure", glb, "--clip", clip, "--region-json", truth,
                        "--json"]).stdout)
    st = m["regions"][0]["stretch"]
    s = st.get("chain") or st.get("chain_static") or st.get("original")
    return s, m["body"]["stretch"]


def judge(s, body, inp, new):
    fails = []
    if s["p99"] > body["p99"] or s["max"] > body["max"]:
        fails.append("tail")
    if s["torn_pct"] > 0.1:
        fails.append("torn")
    if s["p99"] > inp["p99"] or s["torn_pct"] > inp["torn_pct"]:
        fails.append("input")
    if new > 0.25:
        fails.append("new")
    return fails


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    folder, builds, parts = sys.argv[1], sys.argv[2:4], sys.argv[4:]
    names = sorted(f[:-4] for f in os.listdir(folder)
                   if f.endswith(".glb") and not f.endswith(".rigged.glb"))
    names = [n for n in names if not parts or any(p in n for p in parts)]
    failing = [0, 0]
    for name in names:
        key = "fox-q" if name.startswith("fox-q") else "fox-k" if name.startswith(
            "fox-k") else name.split("-")[0]
        glb, truth = os.path.join(folder, name + ".glb"), os.path.join(folder, name + ".truth.json")
        clips = [a["name"] for a in json.loads(run([builds[1], "inspect", glb, "--json"]).stdout)[
            "animations"]]
        skip = sum((["--fit-skip", c] for c in clips), [])
        for clip in CLIPS[key]:
            full = [c for c in clips if c.endswith(clip)][0]
            inp, body = stretch(builds[1], glb, clip, truth)
            row, verdicts = [], []
            for b, tailor in enumerate(builds):
                out, rep = f"/tmp/noclip_{b}_{name}.glb", f"/tmp/noclip_{b}_{name}.json"
                if run([tailor, "rig", glb, "-o", out, "--force", "--report", rep] + skip).returncode:
                    row.append("rig failed")
                    verdicts.append(["rig"])
                    continue
                chains = [p for p in json.load(open(rep))["parts"] if p["action"] == "chain"]
                new = sum(p.get("new_torn_pct", {}).get(full, 0) for p in chains)
                s, _ = stretch(tailor, out, clip, truth)
                v = judge(s, body, inp, new)
                verdicts.append(v)
                row.append(f"{s['p99']:.3f}/{s['max']:.2f}/{s['torn_pct']:.3f}% new {new:.3f}% "
                           f"{','.join(v) or 'ok'}")
            failing[0] += bool(verdicts[0])
            failing[1] += bool(verdicts[1])
            move = ("  PASS->FAIL" if verdicts[1] and not verdicts[0] else
                    "  FAIL->PASS" if verdicts[0] and not verdicts[1] else "")
            print(f"{name:24s} {clip:10s} A {row[0]:40s} | B {row[1]}{move}", flush=True)
    print(f"cells failing: A {failing[0]}, B {failing[1]}")


if __name__ == "__main__":
    main()
