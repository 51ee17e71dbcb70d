#!/usr/bin/env bash
# Builds self-contained GPU test and benchmark binaries (static CUDA runtime, libstdc++ and GoogleTest)
# and the programs the tests run (the demo without a window, the engines, the referee, the tuner, the
# server and its bots), and stages them with the shared libraries they need beyond the C library (ENet,
# the Vulkan loader, NATS, ...: STAGE/lib, which gpu-run.sh puts on the library path), the assets they
# read and the run script into one folder, default gpu-stage/. Copy that folder to any x86-64 Linux
# machine with an NVIDIA driver (the demo also needs the driver's Vulkan ICD) and run
#   gpu-stage/gpu-run.sh gpu-stage OUTDIR
# Usage: scripts/gpu-stage.sh [STAGE_DIR] [extra cmake args, e.g. -DCMAKE_CUDA_ARCHITECTURES="80;90"]
# WARPMIND_GPU_BUILD_DIR picks the build folder (default build-gpu); WARPMIND_GPU_KEEP_CONFIG=1 stages an
# existing CUDA build as it is configured (a shared C++ runtime: the target needs a libstdc++ as new).
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:-gpu-stage}
shift || true
build=${WARPMIND_GPU_BUILD_DIR:-build-gpu}
if [[ ${WARPMIND_GPU_KEEP_CONFIG:-0} != 1 ]] && { [[ ! -f "$build/CMakeCache.txt" || $# -gt 0 ]] ||
   ! grep -q "WARPMIND_WINDOW:BOOL=OFF" "$build/CMakeCache.txt"; }; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMIND_CUDA=ON -DWARPMIND_ENGINE=ON -DWARPMIND_WINDOW=OFF \
        -DWARPMIND_STATIC_RUNTIME=ON "$@"
fi
programs=(warpmind_tests warpmind-bench warpmind warpmind-demo warpmind-chess warpmind-connect6 warpmind-referee
          warpmind-tune warpmind-datagen)
cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target "${programs[@]}"
rm -rf "$stage"
mkdir -p "$stage/assets" "$stage/lib"
for p in "${programs[@]}"; do cp "$build/bin/$p" "$stage/"; done
cp -r assets/scenarios assets/maps "$stage/assets/"
cp scripts/gpu-run.sh scripts/gather-runs.py scripts/match.sh "$stage/"
# The shared libraries a staged program needs beyond the C library and the compiler's runtime.
stage_libs() {
  ldd "$@" | awk '/=> \// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$stage/lib/"
}
# warpmind-server (where ENet and FlatBuffers are installed) with the shared libraries it needs beyond
# the C library (ENet, NATS and theirs) in STAGE/lib; gpu-run.sh's server-virtual step runs it.
if cmake --build "$build" --target help | grep -c "warpmind-server" > /dev/null; then
  cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target warpmind-server
  cp "$build/bin/warpmind-server" "$stage/"
  strip --strip-debug "$stage/warpmind-server" 2>/dev/null || true
  cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target warpmind-bots
  cp "$build/bin/warpmind-bots" scripts/cluster.sh scripts/bot-processes.sh scripts/soak.sh "$stage/"
  nats=$(command -v nats-server || echo /usr/sbin/nats-server)
  [[ -x $nats ]] && cp "$nats" "$stage/"  # a static program: the cluster step runs it there
  # iproute2, for the cluster step's network namespaces on a machine without it (its libraries go to STAGE/lib)
  ip=$(command -v ip || echo /usr/sbin/ip)
  [[ -x $ip ]] && cp "$ip" "$stage/ip"
fi
stage_libs "$stage"/warpmind* $([[ -x $stage/ip ]] && echo "$stage/ip")
# The GLVND libraries the NVIDIA Vulkan driver loads (dispatch, GLX, EGL, GL), which a machine with the
# driver alone can lack.
for l in libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0 libGL.so.1 libGLESv2.so.2; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')
  [[ -n $p ]] && cp -L "$p" "$stage/lib/"
done
# WARPMIND_GPU_SHARED_BUILD_DIR: a shared CUDA build (-DBUILD_SHARED_LIBS=ON -DWARPMIND_CUDA=ON), built and
# installed into STAGE/prefix (its CUDA runtime with it), and beside it in STAGE/src what gpu-run.sh's
# bindings step builds and runs there: the Python module's sources (built for that machine's Python),
# the headers they include, tests/python, the examples and the binding benchmark.
if [[ -n ${WARPMIND_GPU_SHARED_BUILD_DIR:-} ]]; then
  shared=$WARPMIND_GPU_SHARED_BUILD_DIR
  help=$(cmake --build "$shared" --target help)
  grep -q "BUILD_SHARED_LIBS:BOOL=ON" "$shared/CMakeCache.txt" && [[ $help == *warpmind_gpu_core* ]] ||
    { echo "gpu-stage: $shared is not a shared CUDA build" >&2; exit 2; }
  # What installs: the libraries, the Python module (built there again for its Python) and Warpmind.dll.
  targets=(warpmind_c warpmind_scenarios warpmind_python)
  [[ $help == *warpmind_csharp* ]] && targets+=(warpmind_csharp)
  cmake --build "$shared" -j "${WARPMIND_JOBS:-2}" --target "${targets[@]}"
  cmake --install "$shared" --prefix "$stage/prefix" > /dev/null
  mkdir -p "$stage/src/ai" "$stage/src/tests" "$stage/src/bench"
  cp -r ai/bindings "$stage/src/ai/"
  dest=$(cd "$stage/src/ai" && pwd)
  (cd ai && find src -name '*.h' -exec cp --parents {} "$dest/" \;)
  cp -r tests/python "$stage/src/tests/"
  cp -r examples "$stage/src/"
  cp -r bench/bindings "$stage/src/bench/"
  # The C# tests and example compiled here against the installed Warpmind.dll (STAGE/dotnet), for a
  # machine with mono; WARPMIND_GPU_MONO=1 also carries this machine's mono runtime and NUnit console into
  # STAGE/mono for one without (mono finds its assemblies and configuration beside its binary).
  dll=$(find "$stage/prefix" -name Warpmind.dll | head -n 1)
  if [[ -n $dll ]] && command -v mcs > /dev/null; then
    mkdir -p "$stage/dotnet"
    cp "$dll" "$stage/dotnet/"
    mcs -nologo -target:library -out:"$stage/dotnet/WarpmindTests.dll" -r:"$dll" -pkg:nunit tests/csharp/WarpmindTests.cs
    mcs -nologo -out:"$stage/dotnet/GameLoop.exe" -r:"$dll" examples/csharp/GameLoop.cs
  fi
  if [[ ${WARPMIND_GPU_MONO:-0} == 1 ]]; then
    m="$stage/mono"
    mkdir -p "$m/bin" "$m/lib/mono" "$m/etc" "$m/nunit"
    cp -L "$(command -v mono-sgen || echo /usr/bin/mono-sgen)" "$m/bin/mono"
    cp -r /usr/lib/mono/4.5 "$m/lib/mono/"
    rm -f "$m/lib/mono/4.5/"*.exe
    # The assemblies the NUnit console, the suite and the example load (the rest of the GAC stays here).
    mkdir -p "$m/lib/mono/gac"
    for a in System System.Configuration System.Core System.Drawing System.Numerics System.Runtime.Remoting \
             System.Security System.Xml Mono.Posix Mono.Security nunit-console-runner nunit.core nunit.core.interfaces \
             nunit.framework nunit.util policy.2.6.nunit-console-runner policy.2.6.nunit.core \
             policy.2.6.nunit.core.interfaces policy.2.6.nunit.framework policy.2.6.nunit.util; do
      cp -r "/usr/lib/mono/gac/$a" "$m/lib/mono/gac/"
    done
    cp -rL /etc/mono "$m/etc/"
    cp -L /usr/lib/libmono-native.so /usr/lib/libMonoPosixHelper.so "$m/lib/"
    cp /usr/lib/nunit/nunit-console.exe /usr/lib/nunit/nunit-console.exe.config "$m/nunit/"
    ldd "$m"/lib/*.so | awk '/=> \// {print $3}' | sort -u |
      grep -vE '/(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$m/lib/"
  fi
fi
git describe --always --abbrev=12 --dirty > "$stage/COMMIT" 2>/dev/null || echo unknown > "$stage/COMMIT"
for p in "${programs[@]}"; do strip --strip-debug "$stage/$p" 2>/dev/null || true; done
du -sh "$stage"
