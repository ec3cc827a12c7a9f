#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time on a copy of fuzz/corpus and fails if it found a
# crash (or leak, timeout, out-of-memory). Usage: scripts/fuzz.sh FUZZER SECONDS
set -euo pipefail
fuzzer=${1:?usage: fuzz.sh FUZZER SECONDS}
seconds=${2:?usage: fuzz.sh FUZZER SECONDS}
root=$(cd "$(dirname "$0")/.." && pwd)
work="$(cd "$(dirname "$fuzzer")" && pwd)/fuzz-run-$(basename "$fuzzer")"
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
# a target with seeds of its own (fuzz/corpus-NAME) starts from those, the others from the GLBs
seeds="$root/fuzz/corpus"
[ -d "$root/fuzz/corpus-$(basename "$fuzzer")" ] && seeds="$root/fuzz/corpus-$(basename "$fuzzer")"
cp "$seeds"/* "$work/corpus/"
echo "fuzz: $(basename "$fuzzer") for ${seconds}s on $(ls "$work/corpus" | wc -l) seeds (work folder $work)"
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$fuzzer" "$work/corpus" -max_len=65536 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$work/log.txt" 2>&1 || status=$?
# the report's head says what broke (a sanitizer's error or the target's own message); the
# tail has the artifact's name and the run's statistics
if grep -qE "^==[0-9]+==|ERROR:|broken promise" "$work/log.txt"; then
    echo "fuzz: the first report:"
    grep -m1 -n -E "^==[0-9]+==|ERROR:|broken promise" "$work/log.txt" | cut -d: -f1 |
        { read -r at; sed -n "$((at > 3 ? at - 3 : 1)),$((at + 30))p" "$work/log.txt"; }
    echo "..."
fi
tail -n 25 "$work/log.txt"
crashes=$(ls "$work/artifacts" | wc -l)
if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    echo "fuzz: FAILED (exit $status, $crashes artifact(s) in $work/artifacts)" >&2
    exit 1
fi
echo "fuzz: no crash in ${seconds}s"
