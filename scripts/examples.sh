#!/usr/bin/env bash
# Installs the built library (build dir: $WARPMIND_BUILD_DIR, default build/) into a temporary prefix,
# then builds examples/ out of tree against the installed package — with find_package (CMake) and with
# pkg-config — and runs every example. Fails on any step.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARPMIND_BUILD_DIR:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
echo "examples: installed into a temporary prefix ($(find "$tmp/prefix" -type f | wc -l) files)"
cmake -S examples -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/examples" -j "${WARPMIND_JOBS:-2}" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
echo "examples: built with find_package(warpmind)"
if compgen -G "$tmp/prefix/lib*/libwarpmind_field.so*" > /dev/null; then  # a shared build: linked to it
  # ldd's whole output goes to a file first: with pipefail, grep -q quitting early could fail ldd (SIGPIPE).
  ldd "$tmp/examples/rts_loop" > "$tmp/rts_loop.ldd"
  grep -q "libwarpmind_field.so" "$tmp/rts_loop.ldd" ||
    { echo "examples: rts_loop is not linked to the shared libwarpmind_field.so"; exit 1; }
  echo "examples: linked against the shared libraries"
fi
for example in rts_loop aoi_server chess_ai connect6_ai c_api; do
  echo "examples: $example"
  "$tmp/examples/$example"
done
# A plain C project (LANGUAGES C, no C++ enabled) on a machine without the CUDA toolkit (find_package
# of it disabled): links against warpmind::c with the C compiler alone, a CUDA build's runtime taken
# from the package's own copy.
cmake -S examples/c_only -B "$tmp/c_only" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON --no-warn-unused-cli > "$tmp/c_only.log" || { cat "$tmp/c_only.log"; exit 1; }
cmake --build "$tmp/c_only" >> "$tmp/c_only.log" 2>&1 || { cat "$tmp/c_only.log"; exit 1; }
"$tmp/c_only/c_only" > /dev/null
echo "examples: c_only (a plain C project, no CUDA toolkit) built and ran"
# The Python example where the package has the Python module (shared builds), with the system's
# interpreter (its NumPy).
py_dir=$(find "$tmp/prefix" -path '*/python3/dist-packages' -type d | head -1)
if [[ -n "$py_dir" && -d "$py_dir/warpmind" ]]; then
  PYTHONPATH="$py_dir" /usr/bin/python3 examples/python/quickstart.py
  PYTHONPATH="$py_dir" /usr/bin/python3 examples/python/heatmap.py "$tmp/heatmap.png"
  echo "examples: python/quickstart.py and heatmap.py ran against the installed module"
fi
# The C# example where the package has Warpmind.dll (shared builds), under mono.
dll=$(find "$tmp/prefix" -name Warpmind.dll | head -1)
if [[ -n "$dll" ]]; then
  mcs -nologo -out:"$tmp/GameLoop.exe" -r:"$dll" examples/csharp/GameLoop.cs
  cp "$dll" "$tmp/"
  LD_LIBRARY_PATH="$(dirname "$(find "$tmp/prefix" -name 'libwarpmind_c.so' | head -1)")" mono "$tmp/GameLoop.exe"
  echo "examples: csharp/GameLoop.cs ran against the installed Warpmind.dll"
fi
# The same examples through pkg-config.
pc_dir=$(dirname "$(find "$tmp/prefix" -name warpmind.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs --static warpmind)
# shellcheck disable=SC2086
c++ -O2 examples/rts_loop/main.cpp $flags -o "$tmp/rts_loop_pc"
# shellcheck disable=SC2086
cc -std=c11 -O2 -c examples/c_api/main.c $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags warpmind | sed 's/-std=c++20//') \
  -o "$tmp/c_api.o"
# shellcheck disable=SC2086
c++ "$tmp/c_api.o" $flags -o "$tmp/c_api_pc"
echo "examples: built with pkg-config"
"$tmp/rts_loop_pc" > /dev/null
"$tmp/c_api_pc" > /dev/null
echo "examples: every example ran"
