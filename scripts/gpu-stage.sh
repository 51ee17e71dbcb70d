#!/usr/bin/env bash
# Builds self-contained GPU test and benchmark binaries (static CUDA runtime, libstdc++ and GoogleTest)
# and the demo without a window (it needs only the Vulkan loader, libvulkan.so.1, and the driver's
# Vulkan ICD on the target) and stages them with the assets they read and the run script into one folder,
# default gpu-stage/. Copy that folder to any x86-64 Linux machine with an NVIDIA driver and run
#   gpu-stage/gpu-run.sh gpu-stage OUTDIR
# Usage: scripts/gpu-stage.sh [STAGE_DIR] [extra cmake args, e.g. -DCMAKE_CUDA_ARCHITECTURES="80;90"]
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:-gpu-stage}
shift || true
build=${WARPMIND_GPU_BUILD_DIR:-build-gpu}
if [[ ! -f "$build/CMakeCache.txt" || $# -gt 0 ]] ||
   ! grep -q "WARPMIND_WINDOW:BOOL=OFF" "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMIND_CUDA=ON -DWARPMIND_ENGINE=ON -DWARPMIND_WINDOW=OFF \
        -DWARPMIND_STATIC_RUNTIME=ON "$@"
fi
cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target warpmind_tests warpmind-bench warpmind warpmind-demo \
      warpmind-chess warpmind-connect6 warpmind-referee
rm -rf "$stage"
mkdir -p "$stage/assets"
cp "$build/bin/warpmind_tests" "$build/bin/warpmind-bench" "$build/bin/warpmind" "$build/bin/warpmind-demo" \
   "$build/bin/warpmind-chess" "$build/bin/warpmind-connect6" "$build/bin/warpmind-referee" "$stage/"
cp -r assets/scenarios assets/maps "$stage/assets/"
cp scripts/gpu-run.sh "$stage/"
# warpmind-server (where ENet and FlatBuffers are installed) with the shared libraries it needs beyond
# the C library (ENet, NATS and theirs) in STAGE/lib; gpu-run.sh's server-virtual step runs it.
if cmake --build "$build" --target help | grep -c "warpmind-server" > /dev/null; then
  cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target warpmind-server
  mkdir -p "$stage/lib"
  cp "$build/bin/warpmind-server" "$stage/"
  ldd "$build/bin/warpmind-server" | awk '/=> \// {print $3}' |
    grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$stage/lib/"
  strip --strip-debug "$stage/warpmind-server" 2>/dev/null || true
  cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target warpmind-bots
  cp "$build/bin/warpmind-bots" scripts/cluster.sh "$stage/"
  nats=$(command -v nats-server || echo /usr/sbin/nats-server)
  [[ -x $nats ]] && cp "$nats" "$stage/"  # a static program: the cluster step runs it there
fi
git describe --always --abbrev=12 --dirty > "$stage/COMMIT" 2>/dev/null || echo unknown > "$stage/COMMIT"
strip --strip-debug "$stage/warpmind_tests" "$stage/warpmind-bench" "$stage/warpmind" "$stage/warpmind-demo" \
  "$stage/warpmind-chess" "$stage/warpmind-connect6" "$stage/warpmind-referee" 2>/dev/null || true
du -sh "$stage"
