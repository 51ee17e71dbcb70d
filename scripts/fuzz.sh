#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer, UndefinedBehaviorSanitizer) into build-fuzz/ and
# runs each for SECONDS (default 60) from its committed seed corpus (tests/fuzz/corpus/TARGET, copied to
# out/fuzz/TARGET/corpus so the committed seeds stay as they are). Exits non-zero on any finding; the
# reproducer and the log stay in out/fuzz/TARGET/. Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
bash scripts/setup.sh --fuzz
build=${WARPMIND_FUZZ_BUILD_DIR:-build-fuzz}
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DWARPMIND_CUDA=OFF -DWARPMIND_ENGINE=OFF -DWARPMIND_TESTS=OFF -DWARPMIND_FUZZ=ON > /dev/null
fi
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(field_scenario crowd_scenario aoi_scenario ddm_scenario battle_map fen pgn connect6 uci connect6_engine aoi_ticks network nav_map
    crowd_state world_map aoi_state nav_state protocol server training_games connect6_network)
fi
cmake --build "$build" -j "${WARPMIND_JOBS:-2}" --target "${targets[@]/#/fuzz_}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  dir=out/fuzz/$t
  mkdir -p "$dir/corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$dir/corpus/" 2>/dev/null || true
  printf 'fuzz %-16s %ss ... ' "$t" "$seconds"
  max_len=16384
  [[ $t == network ]] && max_len=65536           # the smallest chess network file is 63,636 bytes
  [[ $t == connect6_network ]] && max_len=57344  # the smallest Connect6 network file is 57,276 bytes
  if "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -max_len=$max_len \
      -artifact_prefix="$dir/" -print_final_stats=1 "$dir/corpus" > "$dir/log.txt" 2>&1; then
    echo "ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log.txt" | grep -o '[0-9]*$') runs)"
  else
    echo "FINDING (see $dir/log.txt and the crash-/leak-/timeout- file beside it)"
    failed+=("$t")
  fi
done
if ((${#failed[@]} > 0)); then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz: no findings"
