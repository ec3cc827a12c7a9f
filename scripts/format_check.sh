#!/usr/bin/env bash
# Fails when any C source or header differs from clang-format's output (.clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format-check: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
status=0
while IFS= read -r f; do
    if ! clang-format "$f" | cmp -s "$f" -; then
        echo "format-check: $f differs from clang-format; run: clang-format -i $f" >&2
        status=1
    fi
done < <(git ls-files '*.c' '*.h' 2>/dev/null || find src include cli tests bench fuzz -name '*.[ch]')
[ $status -eq 0 ] && echo "format-check: $(git ls-files '*.c' '*.h' | wc -l) files match .clang-format"
exit $status
