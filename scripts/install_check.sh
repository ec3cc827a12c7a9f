#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a tiny program against it twice:
# once through the CMake package, once through pkg-config.
set -euo pipefail
build=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
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
"$scratch/app/build/app" "$here/../shared/assets/khronos-fox/Fox.glb" | grep -q "26 nodes"

PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig" \
    cc "$scratch/app/main.c" -o "$scratch/app/app-pc" -Wl,-rpath,"$scratch/prefix/lib" \
    $(PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib64/pkgconfig" pkg-config --cflags --libs tailor)
"$scratch/app/app-pc" "$here/../shared/assets/khronos-fox/Fox.glb" | grep -q "26 nodes"
# the public headers also compile as C++
printf '#include <tailor/tailor.h>\nint main() { return tl_default_chain_def().bone_count; }\n' > "$scratch/app/main.cpp"
c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I"$scratch/prefix/include" -c "$scratch/app/main.cpp" -o "$scratch/app/main.o"
"$scratch/prefix/bin/tailor" --version >/dev/null
echo "install-check: CMake package and pkg-config both build and run against the installed tailor; headers compile as C++"
