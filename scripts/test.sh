#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs the whole test suite.
# GPU cases skip cleanly where no GPU is usable.
# Then (not with --sanitize) the package is installed into a temporary prefix and the examples are built
# against it and run (scripts/examples.sh) — once from the build above (static libraries), once from a
# CPU-only build of shared libraries (build-shared/), whose Python module's tests (tests/python, pytest)
# and C# binding's tests (tests/csharp, NUnit under mono) run there too.
# --sanitize: the CPU library, programs and tests built with AddressSanitizer and UndefinedBehaviorSanitizer
# into build-sanitize/ (no CUDA, no renderer) and the suite run there; any report fails it.
# --tsan: the threads contract (context.h: modules of one context on threads of their own) under
# ThreadSanitizer — tests/core/shared_context_test.cpp and the modules it drives, built with WARPMIND_TSAN
# into build-tsan/ (no CUDA); any report fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [[ "${1:-}" == "--tsan" ]]; then
  dir=${WARPMIND_TSAN_BUILD_DIR:-build-tsan}
  [[ -f "$dir/CMakeCache.txt" ]] ||
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPMIND_CUDA=OFF -DWARPMIND_ENGINE=OFF -DWARPMIND_TSAN=ON > /dev/null
  cmake --build "$dir" -j "${WARPMIND_JOBS:-2}" --target warpmind_thread_tests
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  # Without address randomisation where the kernel allows it: ThreadSanitizer's fixed memory layout
  # can clash with a kernel's wide mmap randomisation.
  run=()
  setarch "$(uname -m)" -R true 2> /dev/null && run=(setarch "$(uname -m)" -R)
  "${run[@]}" "$dir/bin/warpmind_thread_tests"
  exit 0
fi
if [[ "${1:-}" == "--sanitize" ]]; then
  export WARPMIND_BUILD_DIR=${WARPMIND_BUILD_DIR:-build-sanitize}
  if [[ ! -f "$WARPMIND_BUILD_DIR/CMakeCache.txt" ]]; then
    bash scripts/build.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPMIND_CUDA=OFF -DWARPMIND_ENGINE=OFF -DWARPMIND_SANITIZE=ON
  else
    bash scripts/build.sh
  fi
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
else
  bash scripts/build.sh
fi
cd "${WARPMIND_BUILD_DIR:-build}"
ctest --output-on-failure -j "${WARPMIND_JOBS:-2}"
if [[ "${1:-}" != "--sanitize" ]]; then
  cd - > /dev/null
  bash scripts/examples.sh
  # The package again as shared libraries of a CPU-only build (no nvcc needed downstream): the library
  # targets alone, installed, and every example built and run against them.
  # With it, the Python module (Debian's interpreter, whose packages setup.sh installed) and its tests.
  shared=${WARPMIND_SHARED_BUILD_DIR:-build-shared}
  cmake -S . -B "$shared" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DWARPMIND_CUDA=OFF \
    -DWARPMIND_ENGINE=OFF -DWARPMIND_TESTS=OFF -DWARPMIND_PYTHON=ON -DWARPMIND_CSHARP=ON \
    -DPython_EXECUTABLE=/usr/bin/python3 > /dev/null
  cmake --build "$shared" -j "${WARPMIND_JOBS:-2}" --target warpmind_c warpmind_scenarios warpmind_combat warpmind_world \
    warpmind_python warpmind_csharp > /dev/null
  c_library=$(realpath "$(find "$shared" -name 'libwarpmind_c.so' | head -1)")
  PYTHONPATH="$shared/python" WARPMIND_C_LIBRARY="$c_library" \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
  # The C# binding's NUnit suite under mono.
  mcs -nologo -target:library -out:"$shared/dotnet/WarpmindTests.dll" -r:"$shared/dotnet/Warpmind.dll" -pkg:nunit \
    tests/csharp/WarpmindTests.cs
  LD_LIBRARY_PATH="$(dirname "$c_library")" nunit-console -nologo -noresult "$shared/dotnet/WarpmindTests.dll"
  WARPMIND_BUILD_DIR="$shared" bash scripts/examples.sh
fi
