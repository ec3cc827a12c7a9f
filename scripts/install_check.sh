#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a tiny program against it twice:
# once through the CMake package, once through pkg-config.
set -euo pipefail
build=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
# the shared characters: where the build was configured to find them (TL_SHARED_DIR)
shared=$(sed -n 's/^TL_SHARED_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
shared=${shared:-$here/../shared}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null

mkdir -p "$scratch/app"
cat > "$scratch/app/main.c" <<'C'
#include <tailor/tailor.h>
#include <stdio.h>
int main(int argc, char** argv) {
    tl_gltf* doc;
    tl_error err;
    if (argc < 2 || tl_gltf_load(argv[1], &doc, &err) != TL_OK) return 1;
    printf("%u nodes\n", doc->node_count);
    tl_gltf_destroy(doc);
    return 0;
}
C
cat > "$scratch/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(tailor REQUIRED)
add_executable(app main.c)
target_link_libraries(app PRIVATE tailor::tailor)
CM
cmake -S "$scratch/app" -B "$scratch/app/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/app/build" >/dev/null
"$scratch/app/build/app" "$shared/assets/khronos-fox/Fox.glb" | grep -q "26 nodes"

PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig" \
    cc "$scratch/app/main.c" -o "$scratch/app/app-pc" -Wl,-rpath,"$scratch/prefix/lib" \
    $(PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig" pkg-config --cflags --libs tailor)
"$scratch/app/app-pc" "$shared/assets/khronos-fox/Fox.glb" | grep -q "26 nodes"
# The README's C program and its two build recipes, as written there, against the install.
readme_block() { # the fenced block after the README line "<!-- install_check: NAME -->"
    awk -v mark="<!-- install_check: $1 -->" '$0 == mark { grab = 1; next }
        grab == 1 && /^```/ { grab = 2; next } grab == 2 && /^```/ { exit } grab == 2 { print }' \
        "$here/README.md"
}
readme=$scratch/readme
mkdir -p "$readme"
readme_block rig.c > "$readme/rig.c"
readme_block CMakeLists.txt > "$readme/CMakeLists.txt"
[ -s "$readme/rig.c" ] && [ -s "$readme/CMakeLists.txt" ] && [ -n "$(readme_block pkg-config)" ] ||
    { echo "install-check: README.md lacks an install_check block" >&2; exit 1; }
cmake -S "$readme" -B "$readme/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$readme/build" >/dev/null
tailless=$shared/cases/fox-khronos-tailless.glb
"$readme/build/rig" "$tailless" "$readme/rigged-cmake.glb" | grep -q "^1 chain(s), "
(cd "$readme" && PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig" \
    eval "$(readme_block pkg-config)")
LD_LIBRARY_PATH="$scratch/prefix/lib:$scratch/prefix/lib64" "$readme/rig" "$tailless" \
    "$readme/rigged-pc.glb" | grep -q "^1 chain(s), "
cmp -s "$readme/rigged-cmake.glb" "$readme/rigged-pc.glb" ||
    { echo "install-check: the README program built two ways wrote different files" >&2; exit 1; }
# the installed headers include only the C standard library and each other (the JSON-access
# header gltf_json.h alone adds jansson); sim.h needs base.h alone
std='assert|complex|ctype|errno|fenv|float|inttypes|iso646|limits|locale|math|setjmp|signal|stdalign|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|tgmath|threads|time|uchar|wchar|wctype'
for h in "$scratch/prefix/include/tailor/"*.h; do
    name=$(basename "$h")
    bad=$(grep -E '^\s*#\s*include' "$h" | grep -Ev "<tailor/[a-z_]+\.h>|<($std)\.h>" || true)
    [ "$name" = gltf_json.h ] && bad=$(printf '%s\n' "$bad" | grep -v '<jansson.h>' || true)
    if [ -n "$bad" ]; then
        echo "install-check: $name includes more than the C library and tailor: $bad" >&2
        exit 1
    fi
done
if grep -lw 'json_t\|jansson\.h' "$scratch/prefix/include/tailor/"*.h | grep -v '/gltf_json.h$'; then
    echo "install-check: jansson named in a header other than gltf_json.h" >&2
    exit 1
fi
[ "$(grep -E '^#include' "$scratch/prefix/include/tailor/sim.h")" = "#include <tailor/base.h>" ] ||
    { echo "install-check: sim.h includes more than base.h" >&2; exit 1; }
# the installed shared library exports tl_* alone
bash "$here/tests/exports.sh" "$(ls "$scratch"/prefix/lib*/libtailor.so | head -1)" >/dev/null
# the public headers (and the JSON-access and sample headers) also compile as C++
printf '#include <tailor/tailor.h>\n#include <tailor/gltf_json.h>\n#include <tailor/sample.h>\nint main() { return tl_default_chain_def().bone_count + (int)tl_sample_count(); }\n' > "$scratch/app/all.cpp"
c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I"$scratch/prefix/include" -c "$scratch/app/all.cpp" -o "$scratch/app/all.o"
# the main surface compiles as C++
printf '#include <tailor/tailor.h>\nint main() { return tl_default_chain_def().bone_count; }\n' > "$scratch/app/main.cpp"
c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I"$scratch/prefix/include" -c "$scratch/app/main.cpp" -o "$scratch/app/main.o"
"$scratch/prefix/bin/tailor" --version >/dev/null
echo "install-check: CMake package and pkg-config both build and run against the installed tailor (the README's program and recipes too); headers compile as C++, include only the C library (gltf_json.h: jansson); libtailor.so exports tl_* alone"
