#!/usr/bin/env bash
# Installs what warpmind needs from Debian's packages; installs nothing that is already there.
# Safe to run any number of times. Needs root (or sudo) only when something is missing.
# --fuzz: also what scripts/fuzz.sh needs (clang and its libFuzzer and sanitizer runtimes).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libgtest-dev googletest          # tests (static libgtest.a is used for staged GPU binaries)
  nlohmann-json3-dev               # scenario files
  libcli11-dev                     # command-line flags of the programs (CLI11, header-only)
  libstb-dev                       # stb_image_write for PNG output
  zlib1g-dev                       # gzip-compressed maps read by the programs
  libvulkan-dev glslc vulkan-tools # renderer (demo engine)
  vulkan-validationlayers          # validation in debug builds of the engine
  libglfw3-dev                     # windows and input
  libimgui-dev                     # Dear ImGui and its GLFW/Vulkan backends
  mesa-vulkan-drivers              # lavapipe: software Vulkan for headless tests
  xvfb xauth                       # a display for windowed tests on machines without one
  clang-format                     # the sources' layout (.clang-format), checked by a test
  libenet-dev                      # warpmind-server and warpmind-bots: UDP with ENet
  flatbuffers-compiler libflatbuffers-dev  # their wire protocol (demos/server/protocol.fbs, flatc at build time)
  nats-server libnats-dev          # zones of a server cluster (scripts/cluster.sh) and their NATS client
  libsodium-dev                    # sealed packets (X25519, ChaCha20-Poly1305); the zones' bus signed (HMAC-SHA-256)
  python3-dev python3-pybind11 python3-numpy python3-pytest python3-matplotlib  # the Python module, its tests, examples
  mono-mcs mono-runtime libnunit-cil-dev nunit-console        # the C# binding and its tests
  python3-torch                    # the learned evaluations' trainer (train/), its tests on the CPU
)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-14-dev)  # clang -fsanitize=fuzzer,address,undefined
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
