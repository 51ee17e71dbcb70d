#!/usr/bin/env bash
# Runs the staged GPU tests and benchmarks on a CUDA machine; writes logs and JSON into OUTDIR.
# Usage: gpu-run.sh STAGE_DIR OUTDIR [steps...]
#   steps: tests (all tests, GPU cases included), memcheck (compute-sanitizer memcheck on the GPU
#   tests), racecheck, synccheck, memcheck-each / racecheck-each / synccheck-each (one sanitizer run per
#   test, each under WARPMIND_TEST_TIMEOUT), memcheck-crowd / racecheck-crowd (the crowd's GPU tests only), memcheck-perft (the chess perft's GPU tests only), memcheck-nav (the navigation fields' GPU tests), ncu-field / ncu-crowd / ncu-ddm (per-kernel times with Nsight Compute), ncu-detail-field /
#   ncu-detail-crowd (full sections of the hottest kernels), demo-battle (the 100,000-unit
#   battle demo, headless; needs libvulkan.so.1 and the driver's Vulkan ICD), demo-boards (the chess
#   and Connect6 computer's hybrid search on the GPU, headless; the same needs), server-virtual
#   (warpmind-server's tick with 100,000 to 4,000,000 in-process clients; its libraries in STAGE/lib),
#   server-sockets (the server and its bots over loopback sockets, one server, a cluster of 4 zones, and
#   8 zones in a grid with 40,000 bots, each in a network namespace where allowed), server-churn
#   (one server, 2,000 bots: sessions in a row, then churn with resumes), server-10k (10,000 bots on one
#   server of three sockets), server-kill (a zone of a cluster killed and restored from its store: 4 zones
#   and 8,000 bots, then 2 zones with the crash that forces a replay), server-devices (2 zones and 8,000
#   bots on one GPU, then each zone on a GPU of its own with --device; needs 2 GPUs), soak[:MINUTES] (scripts/soak.sh
#   with 2,000 bots, default 8 minutes), bench-SUITE (e.g. bench-field), bench-SUITE-quick, and bench-SUITE:ARG,ARG,...
#   to pass options (e.g. bench-field:--only-scale writes field-only-scale.json), match-chess[:GAMES] and
#   match-connect6[:GAMES] (the engines' GPU search against 16 CPU threads, refereed), label-chess[:SECONDS]
#   (Stockfish-labelled games for the trainer; STOCKFISH names the program), match-stockfish[:GAMES]
#   (warpmind-chess against Stockfish at UCI_Elo MATCH_ELO, 10 s + 0.1 s, a referee per host thread), bindings
#   (the shared CUDA build of STAGE/prefix from Python and C: the module built there, tests/python on cuda,
#   the examples; gpu-stage.sh with WARPMIND_GPU_SHARED_BUILD_DIR). Default:
#   tests memcheck bench-field
# WARPMIND_STEP_TIMEOUT=SECONDS ends a sanitizer step that runs longer (its log says how far it got);
# WARPMIND_GPU_FILTER replaces the sanitizer steps' test filter (a --gtest_filter pattern).
# Every step's log is OUTDIR/<step>.log; benchmark results are OUTDIR/<suite>.json, and the demo-battle and
# server steps gather their runs into OUTDIR/<step>.json (gather-runs.py, the shape of a results file). The exit status is
# non-zero if any step failed; a summary table is printed last.
set -uo pipefail
stage=$(cd "${1:?stage dir}" && pwd)
out=${2:?output dir}
shift 2
steps=("$@")
((${#steps[@]})) || steps=(tests memcheck bench-field)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export WARPMIND_BIN_DIR="$stage" WARPMIND_SOURCE_DIR="$stage"
# The staged programs' shared libraries (gpu-stage.sh copies them to STAGE/lib), and the NVIDIA driver's
# Vulkan ICD where the loader does not find one by itself (containers with the driver mounted).
export LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ -z ${VK_DRIVER_FILES:-} && -z ${VK_ICD_FILENAMES:-} ]]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
             /etc/vulkan/icd.d/nvidia_icd.json; do
    [[ -f $icd ]] && { export VK_DRIVER_FILES=$icd; break; }
  done
fi
# The driver's Vulkan goes through its EGL vendor library (GLVND, in STAGE/lib where the machine lacks it).
if [[ -z ${__EGL_VENDOR_LIBRARY_FILENAMES:-} ]]; then
  for egl in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
    [[ -f $egl ]] && { export __EGL_VENDOR_LIBRARY_FILENAMES=$egl; break; }
  done
fi
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "nvidia-smi not available" > "$out/nvidia-smi.txt"
# The sanitizers' default tests: the GPU's, less the one that makes cudaMalloc fail on purpose (the
# sanitizer reports that API error, which the test expects).
gpu_filter=${WARPMIND_GPU_FILTER:-'*Gpu*:*gpu*:*Device*:Field.*:FieldQueries.*:Crowd.*-DeviceMemory.AnAllocationThatFailsIsOutOfMemory'}
step_timeout=()
[[ -n ${WARPMIND_STEP_TIMEOUT:-} ]] && step_timeout=(timeout "$WARPMIND_STEP_TIMEOUT")
summary=()
status=0
for step in "${steps[@]}"; do
  log="$out/$step.log"
  t0=$(date +%s)
  case "$step" in
    tests)
      "$stage/warpmind_tests" --gtest_output="json:$out/tests.json" > "$log" 2>&1 ;;
    memcheck|racecheck|synccheck)
      ${step_timeout[@]+"${step_timeout[@]}"} compute-sanitizer --tool "$step" --error-exitcode 3 "$stage/warpmind_tests" --gtest_filter="$gpu_filter" > "$log" 2>&1 ;;
    memcheck-each|racecheck-each|synccheck-each)
      # Each GPU test in its own sanitizer run, at most WARPMIND_TEST_TIMEOUT seconds (default 120) each
      # and WARPMIND_STEP_TIMEOUT for all; the log has a line per test: clean, its errors, or timed out.
      tool=${step%-each}
      deadline=$(( $(date +%s) + ${WARPMIND_STEP_TIMEOUT:-3600} ))
      : > "$log"
      while read -r t; do
        if (( $(date +%s) >= deadline )); then echo "$t not run (step time limit)" >> "$log"; continue; fi
        timeout "${WARPMIND_TEST_TIMEOUT:-120}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$stage/warpmind_tests" \
          --gtest_filter="$t" > "$out/one.log" 2>&1
        r=$?
        case $r in
          0) echo "$t clean: $(grep -hE '(ERROR|RACECHECK) SUMMARY' "$out/one.log" | tr '\n' ' ')" ;;
          124) echo "$t timed out" ;;
          *) echo "$t FAILED rc=$r"; cat "$out/one.log"; false ;;
        esac >> "$log" || status=1
      done < <("$stage/warpmind_tests" --gtest_list_tests --gtest_filter="$gpu_filter" | awk '/^[^ ]/{s=$1} /^  /{print s $1}')
      rm -f "$out/one.log"
      echo "$tool-each: $(grep -c ' clean' "$log") clean, $(grep -c ' timed out' "$log") timed out, $(grep -c ' not run' "$log") not run, $(grep -c ' FAILED' "$log") failed" >> "$log" ;;
    memcheck-perft)
      # The chess perft's GPU tests alone (the standard positions, slices under small budgets, random
      # positions against the CPU perft, transpositions merged).
      ${step_timeout[@]+"${step_timeout[@]}"} compute-sanitizer --tool memcheck --error-exitcode 3 "$stage/warpmind_tests" \
        --gtest_filter='ChessGpu.Perft*' > "$log" 2>&1 ;;
    memcheck-nav)
      # The navigation fields' GPU tests alone (random and adversarial maps, goal sets, the device field
      # and its steering), without the generated 1024^2 maps' many-goal test (slow under the sanitizer).
      ${step_timeout[@]+"${step_timeout[@]}"} compute-sanitizer --tool memcheck --error-exitcode 3 "$stage/warpmind_tests" \
        --gtest_filter='NavGpu.*:-NavGpu.GeneratedLargeMapsAndManyGoalsEqualTheCpu' > "$log" 2>&1 ;;
    memcheck-crowd|racecheck-crowd)
      # The crowd's GPU tests alone, without the long ones (the 600-tick one, the standard scenarios, slow
      # under the sanitizer).
      compute-sanitizer --tool "${step%-crowd}" --error-exitcode 3 "$stage/warpmind_tests" \
        --gtest_filter='AllVariants/CrowdVariantTest.*gpu*:Crowd.*:CrowdAvoid.*:CrowdRadii.*:-Crowd.GpuVariantsMatchReferenceOverManyTicks:CrowdAvoid.StandardScenariosDrainWithoutDeadlock' > "$log" 2>&1 ;;
    bench-*:*)
      spec=${step#bench-}; suite=${spec%%:*}; IFS=, read -r -a extra <<< "${spec#*:}"
      name=$(echo "$spec" | tr -c 'A-Za-z0-9_.\n-' '-' | sed 's/--*/-/g; s/-$//')
      log="$out/bench-$name.log"
      "$stage/warpmind-bench" "$suite" "${extra[@]}" --out "$out/$name.json" > "$log" 2>&1 ;;
    bench-*-quick)
      suite=${step#bench-}; suite=${suite%-quick}
      "$stage/warpmind-bench" "$suite" --quick --out "$out/$suite-quick.json" > "$log" 2>&1 ;;
    bench-*)
      suite=${step#bench-}
      "$stage/warpmind-bench" "$suite" --out "$out/$suite.json" > "$log" 2>&1 ;;
    ncu-field)
      # Per-kernel device time of one gpu-binned build: the 100,000-entity scale case, then the seed's
      # heaviest case (2048^2, 2048 entities, radius 15).
      for a in "--resolution 4096 --world 4096 --count 100000" "--resolution 2048 --count 2048"; do
        echo "== warpmind field $a --radius 15 --variant gpu-binned"
        ncu --print-summary per-kernel --metrics gpu__time_duration.sum \
          "$stage/warpmind" field $a --radius 15 --variant gpu-binned --repeat 3 2>&1 |
          grep -E "^  [a-zA-Z_]|gpu__time_duration|==|build:" | grep -v "^==PROF=="
      done > "$log" 2>&1 ;;
    ncu-detail-field)
      # Full Nsight Compute sections for the binned accumulate kernel at the scale case.
      ncu --kernel-name regex:k_bin_accumulate --launch-count 1 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats \
        "$stage/warpmind" field --resolution 4096 --world 4096 --count 100000 --radius 15 --variant gpu-binned > "$log" 2>&1
      ncu --kernel-name regex:k_bin_accumulate --launch-count 1 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section SchedulerStats --section InstructionStats \
        "$stage/warpmind" field --resolution 2048 --count 2048 --radius 15 --variant gpu-binned >> "$log" 2>&1 ;;
    ncu-crowd)
      # Per-kernel device time of the crowd GPU variants at 1,000,000 agents.
      for v in gpu-static-grid gpu-tiled gpu-sort; do
        echo "== warpmind crowd --agents 1000000 --variant $v"
        ncu --print-summary per-kernel --metrics gpu__time_duration.sum,dram__bytes.sum \
          "$stage/warpmind" crowd --agents 1000000 --steps 4 --variant $v 2>&1 |
          grep -E "^  [a-zA-Z_]|gpu__time_duration|dram__bytes|==" | grep -v "^==PROF=="
      done > "$log" 2>&1 ;;
    ncu-ddm)
      # Per-kernel device time of region matching at 1,000,000 regions, overlap degree 1: a full match,
      # then steps of moves (match_changes), warm caches.
      echo "== warpmind ddm --regions 1000000 --alpha 1 --variant gpu-grid --steps 3" > "$log"
      ncu --print-summary per-kernel --metrics gpu__time_duration.sum --cache-control none --clock-control none \
        "$stage/warpmind" ddm --regions 1000000 --alpha 1 --variant gpu-grid --steps 3 2>&1 |
        grep -E "^  [a-zA-Z_]|gpu__time_duration|==|steps" | grep -v "^==PROF==" >> "$log" 2>&1 ;;
    ncu-detail-crowd)
      # Full Nsight Compute sections for the static grid's kernels at 1,000,000 agents.
      ncu --kernel-name regex:"k_sg_scan|k_sg_write|k_tiled_check" --launch-skip 3 --launch-count 3 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
        --section SourceCounters "$stage/warpmind" crowd --agents 1000000 --steps 3 --variant gpu-static-grid > "$log" 2>&1
      ncu --kernel-name regex:k_tiled_check --launch-count 1 --section SpeedOfLight --section WarpStateStats \
        --section Occupancy "$stage/warpmind" crowd --agents 1000000 --steps 2 --variant gpu-tiled >> "$log" 2>&1 ;;
    demo-battle)
      # The battle demo headless at 100,000 units (50,000 per army) with the field at 2048^2, a frame
      # rendered every 3 ticks: CUDA backend (heat map by interop when the Vulkan device is the GPU, and
      # once through the host), then a few ticks of the CPU backend. Needs the Vulkan loader.
      common=(--headless --units 50000 --resolution 2048 --sight 20 --gap 16 --ticks-per-frame 3)
      { "$stage/warpmind-demo" "${common[@]}" --backend cuda --frames 100 --save-every 50 --out "$out/demo-cuda" &&
        cat "$out/demo-cuda/stats.json" &&
        "$stage/warpmind-demo" "${common[@]}" --backend cuda --sight 10 --frames 100 --save-every 100 --out "$out/demo-cuda-sight10" &&
        cat "$out/demo-cuda-sight10/stats.json" &&
        "$stage/warpmind-demo" "${common[@]}" --backend cuda --sight 10 --no-interop --frames 100 --save-every 100 \
          --out "$out/demo-cuda-sight10-upload" &&
        cat "$out/demo-cuda-sight10-upload/stats.json" &&
        "$stage/warpmind-demo" "${common[@]}" --backend cpu --frames 2 --save-every 10 --out "$out/demo-cpu" &&
        cat "$out/demo-cpu/stats.json" && python3 "$stage/gather-runs.py" demo-battle "$out" "$stage"; } > "$log" 2>&1 ;;
    demo-boards)
      # The board scenes' computer headless with the hybrid search's batches on the GPU (the panel's
      # cuda backend): stats.json's "computer" says on_gpu and the batched nodes. Needs the Vulkan loader.
      { "$stage/warpmind-demo" --headless --scene chess --ai-plays 4 --ai-time 1000 --ai-search hybrid --backend cuda \
          --out "$out/demo-chess-hybrid" && cat "$out/demo-chess-hybrid/stats.json" &&
        "$stage/warpmind-demo" --headless --scene connect6 --ai-plays 4 --ai-time 1000 --ai-search hybrid --backend cuda \
          --out "$out/demo-connect6-hybrid" && cat "$out/demo-connect6-hybrid/stats.json" &&
        grep -q '"on_gpu": true' "$out/demo-chess-hybrid/stats.json" &&
        grep -q '"on_gpu": true' "$out/demo-connect6-hybrid/stats.json"; } > "$log" 2>&1 ;;
    server-virtual)
      # warpmind-server with in-process virtual clients (no sockets; docs/server.md): 100,000, 1,000,000
      # and 4,000,000 clients at the bots' density (about 8 in each client's 3 x 3 buckets), every client
      # a command a tick; CUDA, then the CPU backend. One JSON line per run in server-virtual.jsonl.
      : > "$out/server-virtual.jsonl"
      for run in "100000 7000 cuda" "1000000 22140 cuda" "4000000 44280 cuda" "100000 7000 cpu" "1000000 22140 cpu"; do
        read -r n map backend <<< "$run"
        echo "== warpmind-server --virtual-clients $n --map $map --aoi 20 --backend $backend"
        ${step_timeout[@]+"${step_timeout[@]}"} "$stage/warpmind-server" --virtual-clients "$n" --map "$map" --aoi 20 \
          --ticks "$([[ $backend == cuda ]] && echo 50 || echo 10)" --backend "$backend" | tee -a "$out/server-virtual.jsonl"
      done > "$log" 2>&1
      python3 "$stage/gather-runs.py" server-virtual "$out" "$stage" >> "$log" 2>&1 ;;
    server-churn)
      # Sessions over a server's life, over loopback: one server (its default backend, --max-clients 4000,
      # map 989) and 2,000 bots on 8 threads, three runs of 10 s in a row (the later ones reuse the ids the
      # earlier ones left, HP and all), then one of 30 s at 5% churn a second (leaves and rejoins,
      # restarts and resumes). JSON lines in server-churn.jsonl: each run of the bots, then the server's
      # summary.
      : > "$out/server-churn.jsonl"
      {
        "$stage/warpmind-server" --port 0 --max-clients 4000 --map 989 --aoi 20 --seconds 150 --json \
          > "$out/churn-server.json" 2> "$out/churn-server.err" &
        spid=$!
        for _ in $(seq 200); do grep -q "listening on 127.0.0.1:[0-9]*," "$out/churn-server.err" && break; sleep 0.05; done
        port=$(grep -o "listening on 127.0.0.1:[0-9]*," "$out/churn-server.err" | grep -o "[0-9]*,$" | tr -d ,)
        for s in 1 2 3; do
          echo "== session $s: warpmind-bots --bots 2000 --threads 8 --seconds 10 --seed $s"
          timeout 120 "$stage/warpmind-bots" --server "127.0.0.1:$port" --bots 2000 --threads 8 --seconds 10 \
            --seed "$s" --json | tail -1 | tee -a "$out/server-churn.jsonl"
        done
        echo "== churn: warpmind-bots --bots 2000 --threads 8 --seconds 30 --churn 0.05 --seed 4"
        timeout 200 "$stage/warpmind-bots" --server "127.0.0.1:$port" --bots 2000 --threads 8 --seconds 30 \
          --churn 0.05 --seed 4 --json | tail -1 | tee -a "$out/server-churn.jsonl"
        kill -INT "$spid"; wait "$spid"
        tail -1 "$out/churn-server.json" | tee -a "$out/server-churn.jsonl"
        python3 "$stage/gather-runs.py" server-churn "$out" "$stage"
      } > "$log" 2>&1 ;;
    server-10k)
      # 10,000 bots on one server with three sockets on its port (--sockets 3; ENet holds 4,095
      # connections a socket), at the bots' usual density (map 2212). The bots run as 4 processes of 2,500
      # on 4 threads each (scripts/bot-processes.sh, their records checked together), each process's
      # sockets on a loopback block of its own (127.0.10-13.X: about 10 players an address, as a server on
      # a network sees them): all connecting at once for a 10 s run, then (a server of its own) arriving
      # over the first 4 s of a 12 s run (--ramp-seconds 4). JSON lines in server-10k.jsonl: each run's
      # bots' summary (the processes' own under "runs"), then its server's.
      : > "$out/server-10k.jsonl"
      {
        for run in "0 10" "4 12"; do
          read -r ramp secs <<< "$run"
          "$stage/warpmind-server" --port 0 --sockets 3 --max-clients 10000 --map 2212 --aoi 20 --seconds 90 --json \
            > "$out/10k-server-$ramp.json" 2> "$out/10k-server-$ramp.err" &
          spid=$!
          for _ in $(seq 200); do grep -q "listening on 127.0.0.1:[0-9]*," "$out/10k-server-$ramp.err" && break; sleep 0.05; done
          port=$(grep -o "listening on 127.0.0.1:[0-9]*," "$out/10k-server-$ramp.err" | grep -o "[0-9]*,$" | tr -d ,)
          echo "== warpmind-server --sockets 3 --max-clients 10000 --map 2212; BOTS_BIND_BLOCKS=1 bot-processes.sh 4 10000 1 -- --threads 4 --seconds $secs --ramp-seconds $ramp"
          (ulimit -n 100000 2> /dev/null
           BOTS_BIND_BLOCKS=1 WARPMIND_BIN_DIR="$stage" timeout 200 bash "$stage/bot-processes.sh" 4 10000 1 \
             "$out/10k-bots-$ramp" -- --server "127.0.0.1:$port" --threads 4 --seconds "$secs" --ramp-seconds "$ramp") |
            tail -1 | tee -a "$out/server-10k.jsonl"
          kill -INT "$spid"; wait "$spid"
          tail -1 "$out/10k-server-$ramp.json" | tee -a "$out/server-10k.jsonl"
        done
        python3 "$stage/gather-runs.py" server-10k "$out" "$stage"
      } > "$log" 2>&1 ;;
    soak|soak:*)
      # scripts/soak.sh MINUTES 2000 (default 8 minutes; soak:M for M): one server (its default backend)
      # up for the whole run, 2,000 bots on 8 threads with 5% churn in checked runs of a minute, the
      # server's RSS sampled every minute. The log, and its last line (one JSON object) in soak.jsonl.
      minutes=8
      [[ $step == soak:* ]] && minutes=${step#soak:}
      SOAK_LOG="$out/soak-logs" SOAK_BACKEND=auto SOAK_THREADS=8 WARPMIND_BIN_DIR="$stage" \
        bash "$stage/soak.sh" "$minutes" 2000 > "$log" 2>&1
      tail -1 "$log" > "$out/soak.jsonl" ;;
    server-sockets)
      # Real UDP sockets on this machine (loopback): one server (its default backend) with 2,000 and 4,000
      # bots on 8 threads (ENet holds at most 4,095 connections a host), at the bots' usual density; then
      # scripts/cluster.sh with 4 zones and 8,000 bots (nats-server from PATH or STAGE). JSON lines in
      # server-sockets.jsonl.
      export PATH="$PATH:$stage"
      : > "$out/server-sockets.jsonl"
      {
        for run in "2000 989" "4000 1400"; do
          read -r n map <<< "$run"
          echo "== warpmind-server --max-clients 4000 --map $map; warpmind-bots --bots $n --threads 8 --seconds 10"
          "$stage/warpmind-server" --port 0 --max-clients 4000 --map "$map" --aoi 20 --seconds 40 --json \
            > "$out/sockets-server-$n.json" 2> "$out/sockets-server-$n.err" &
          spid=$!
          for _ in $(seq 200); do grep -q "listening on 127.0.0.1:[0-9]*," "$out/sockets-server-$n.err" && break; sleep 0.05; done
          port=$(grep -o "listening on 127.0.0.1:[0-9]*," "$out/sockets-server-$n.err" | grep -o "[0-9]*,$" | tr -d ,)
          timeout 120 "$stage/warpmind-bots" --server "127.0.0.1:$port" --bots "$n" --threads 8 --seconds 10 --json |
            tail -1 | tee -a "$out/server-sockets.jsonl"
          kill -INT "$spid"; wait "$spid"
          tail -1 "$out/sockets-server-$n.json" | tee -a "$out/server-sockets.jsonl"
        done
        echo "== scripts/cluster.sh 4 8000 10 (map 1980, bots on 8 threads)"
        CLUSTER_LOG="$out/cluster-log" CLUSTER_MAP=1980 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=8 \
          timeout 200 bash "$stage/cluster.sh" 4 8000 10 | tail -1 | tee -a "$out/server-sockets.jsonl"
        # 8 zones in 2 rows of 4, 40,000 bots at the same density (map 4428), two sockets a zone; each zone
        # in a network namespace of its own where this machine allows it (root, iproute2).
        netns=0
        if [[ $(id -u) == 0 ]] && command -v ip > /dev/null && ip netns add "wmprobe$$" 2> /dev/null; then
          ip netns del "wmprobe$$"; netns=1
        fi
        # 40,000 bots hold 40,000 UDP sockets: in four processes of 10,000 (their records checked together),
        # each under the host's limit of open files, and more ports than the usual ephemeral range (28,232),
        # so both limits are raised for this run where allowed.
        ports_file=/proc/sys/net/ipv4/ip_local_port_range
        ports=$(cat "$ports_file" 2> /dev/null || true)
        [[ -w $ports_file ]] && echo "1024 65535" > "$ports_file" 2> /dev/null
        echo "== CLUSTER_ROWS=2 CLUSTER_SOCKETS=2 CLUSTER_NETNS=$netns scripts/cluster.sh 8 40000 10 (map 4428, bots in 4 processes of 4 threads; open files $(ulimit -n 100000 2> /dev/null; ulimit -n), ports $(cat "$ports_file" 2> /dev/null | tr '\t' ' '))"
        (ulimit -n 100000 2> /dev/null
         CLUSTER_LOG="$out/grid-log" CLUSTER_MAP=4428 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=4 \
           CLUSTER_BOT_PROCESSES=4 CLUSTER_SINGLE=0 \
           CLUSTER_ROWS=2 CLUSTER_SOCKETS=2 CLUSTER_NETNS=$netns \
           timeout 400 bash "$stage/cluster.sh" 8 40000 10) | tail -1 | tee -a "$out/server-sockets.jsonl"
        [[ -n $ports && -w $ports_file ]] && echo "$ports" > "$ports_file" 2> /dev/null
        python3 "$stage/gather-runs.py" server-sockets "$out" "$stage"
      } > "$log" 2>&1 ;;
    server-devices)
      # --device K measured (docs/server.md, CLUSTER_DEVICES under scripts/cluster.sh): 2 zones and 8,000 bots with
      # both zones on GPU 0 (CLUSTER_DEVICES=1), then zone K on GPU K (CLUSTER_DEVICES=2). nvidia-smi
      # samples every GPU's memory in use and utilisation each second of each run, and each run's JSON
      # line gets their peaks ("gpus"): the GPUs the zones held. JSON lines in server-devices.jsonl.
      export PATH="$PATH:$stage"
      : > "$out/server-devices.jsonl"
      {
        gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
        if ((gpus < 2)); then
          echo "server-devices: this machine has $gpus GPU(s); the step needs 2"
          false
        else
          for n in 1 2; do
            echo "== CLUSTER_DEVICES=$n CLUSTER_SOCKETS=2 CLUSTER_BACKEND=cuda scripts/cluster.sh 2 8000 10 (map 1400)"
            nvidia-smi --query-gpu=index,memory.used,utilization.gpu --format=csv,noheader,nounits -l 1 \
              > "$out/devices-$n-gpus.csv" 2>&1 &
            sampler=$!
            CLUSTER_LOG="$out/devices-$n-log" CLUSTER_MAP=1400 CLUSTER_BACKEND=cuda CLUSTER_BOT_THREADS=8 \
              CLUSTER_SINGLE=0 CLUSTER_SOCKETS=2 CLUSTER_DEVICES=$n \
              timeout 200 bash "$stage/cluster.sh" 2 8000 10 | tail -1 > "$out/devices-$n.json"
            kill "$sampler" 2>/dev/null
            wait "$sampler" 2>/dev/null
            python3 - "$out/devices-$n.json" "$out/devices-$n-gpus.csv" <<'PY' | tee -a "$out/server-devices.jsonl"
import json
import sys
run = json.loads(open(sys.argv[1]).read())
peak = {}
for line in open(sys.argv[2]):
    cells = [c.strip() for c in line.split(",")]
    if len(cells) == 3 and all(c.isdigit() for c in cells):
        m, u = peak.get(int(cells[0]), (0, 0))
        peak[int(cells[0])] = (max(m, int(cells[1])), max(u, int(cells[2])))
run["gpus"] = [{"index": i, "peak_memory_mib": m, "peak_utilization_percent": u} for i, (m, u) in sorted(peak.items())]
print(json.dumps(run, separators=(",", ":")))
PY
          done
          python3 "$stage/gather-runs.py" server-devices "$out" "$stage"
        fi
      } > "$log" 2>&1 ;;
    server-kill)
      # scripts/cluster.sh with a zone killed (SIGKILL) and started again from its store (docs/server.md, "A
      # zone crash"): 4 zones and 8,000 bots, zone 1 killed 5 s in; then 2 zones and 2,000 bots at 5% churn,
      # zone 0 exiting right after sending its message for tick 100 (the replay). JSON lines in server-kill.jsonl.
      # The 4-zone run's bots resume after 1,000 ms of silence: the zones that live wait about half a second
      # for the killed one (its restart, device start and restore); at 500 ms 1,871 of their bots too took
      # that for a crash, so that 3,871 resumes from one host came at once and 390 ran past 5 s (docs/server.md).
      export PATH="$PATH:$stage"
      : > "$out/server-kill.jsonl"
      {
        echo "== CLUSTER_KILL_ZONE=1 CLUSTER_KILL_AT=5 CLUSTER_RESUME_AFTER_MS=1000 scripts/cluster.sh 4 8000 12 (map 1980)"
        CLUSTER_LOG="$out/kill-log" CLUSTER_MAP=1980 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=8 CLUSTER_SINGLE=0 \
          CLUSTER_KILL_ZONE=1 CLUSTER_KILL_AT=5 CLUSTER_RESUME_AFTER_MS=1000 \
          timeout 200 bash "$stage/cluster.sh" 4 8000 12 | tail -1 | tee -a "$out/server-kill.jsonl"
        echo "== CLUSTER_KILL_ZONE=0 CLUSTER_KILL_TICK=100 CLUSTER_CHURN=0.05 scripts/cluster.sh 2 2000 12 (map 989)"
        CLUSTER_LOG="$out/kill-tick-log" CLUSTER_MAP=989 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=8 CLUSTER_SINGLE=0 \
          CLUSTER_KILL_ZONE=0 CLUSTER_KILL_TICK=100 CLUSTER_CHURN=0.05 \
          timeout 200 bash "$stage/cluster.sh" 2 2000 12 | tail -1 | tee -a "$out/server-kill.jsonl"
        python3 "$stage/gather-runs.py" server-kill "$out" "$stage"
      } > "$log" 2>&1 ;;
    match-chess|match-chess:*|match-connect6|match-connect6:*)
      # The engines' GPU search (engine 1) against the same program searching on 16 CPU threads, refereed
      # by warpmind-referee, openings paired and colours swapped: chess at 10 s + 100 ms a game, Connect6 at
      # 2 s a turn (100 ms tolerance). The games after the colon (default 40); every game's moves in
      # OUTDIR/<game>-games.txt, the referee's lines in OUTDIR/match-<game>.log.
      game=${step#match-}; games=40
      [[ $game == *:* ]] && { games=${game#*:}; game=${game%%:*}; }
      log="$out/match-$game.log"
      if [[ $game == chess ]]; then
        gpu_side=Search=hybrid,SubtreePlies=3,Backend=cuda; cpu_side=Threads=16; clock=(--time 10000 --inc 100)
      else
        gpu_side=search=hybrid,plies=1,backend=cuda,depth=20; cpu_side=threads=16,depth=20; clock=(--time 2000 --inc 100)
      fi
      echo "== warpmind-referee --game $game --options1 $gpu_side --options2 $cpu_side --games $games ${clock[*]} --seed 1" > "$log"
      ${step_timeout[@]+"${step_timeout[@]}"} "$stage/warpmind-referee" --game "$game" \
        --engine1 "$stage/warpmind-$game 2>/dev/null" --options1 "$gpu_side" \
        --engine2 "$stage/warpmind-$game 2>/dev/null" --options2 "$cpu_side" \
        --games "$games" "${clock[@]}" --seed 1 --log "$out/$game-games.txt" >> "$log" 2>&1 ;;
    label-chess|label-chess:*)
      # Chess games labelled by Stockfish (STOCKFISH: its program) at LABEL_NODES (600) nodes a move on all
      # host threads but 4, for the seconds after the colon (default 500), openings from LABEL_SEED
      # (900000000) on: OUTDIR/games-SEED.wmg.xz for the trainer (docs/training.md).
      secs=${step#label-chess}; secs=${secs#:}; secs=${secs:-500}
      seed=${LABEL_SEED:-900000000}
      { "$stage/warpmind-datagen" chess --engine "${STOCKFISH:?STOCKFISH names the labelling engine}" \
          --nodes "${LABEL_NODES:-600}" --games 100000000 --seconds "$secs" --threads $(( $(nproc) > 5 ? $(nproc) - 4 : 1 )) \
          --seed "$seed" --random-plies 8 --out "$out/games-$seed.wmg" && xz -T4 -f "$out/games-$seed.wmg"; } > "$log" 2>&1 ;;
    match-stockfish|match-stockfish:*)
      # warpmind-chess (its built-in network, or MATCH_OPTIONS1 such as EvalFile=FILE) against Stockfish
      # (STOCKFISH) at UCI_Elo MATCH_ELO (2400), 10 s + 0.1 s, one thread and 64 MB each, by match.sh: one
      # referee per host thread, the games after the colon (default 400) shared among them in pairs. Every
      # game in OUTDIR/stockfish/games-J.txt; the summary of all is the log's end.
      games=${step#match-stockfish}; games=${games#:}; games=${games:-400}
      MATCH_OPPONENT=${STOCKFISH:?STOCKFISH names the opponent} MATCH_ENGINE1="$stage/warpmind-chess" \
        MATCH_REFEREE="$stage/warpmind-referee" MATCH_JOBS=$(nproc) MATCH_OUT="$out/stockfish" \
        ${step_timeout[@]+"${step_timeout[@]}"} bash "$stage/match.sh" "$games" 10000 100 "${MATCH_ELO:-2400}" 1 \
        > "$log" 2>&1 ;;
    bindings)
      # The shared CUDA build that gpu-stage.sh installs into STAGE/prefix (WARPMIND_GPU_SHARED_BUILD_DIR), as
      # a Python or C user of it would take it: the Python module built for this machine's python3 (its
      # headers; pybind11 from PYBIND11_INCLUDE, pip's pybind11 or PyTorch's copy), tests/python on the cpu
      # and cuda backends with a GPU required, the Python examples; then the C and C++ examples configured
      # with CMake against the prefix, built and run; the binding's cost per call on both backends
      # (bindings-overhead.jsonl); the C# NUnit suite on both backends and the C# example where gpu-stage.sh
      # compiled them and a mono is there (WARPMIND_GPU_MONO=1 carries one). The module goes to OUTDIR/python.
      (
        set -e
        prefix="$stage/prefix" src="$stage/src"
        libdir=$(dirname "$(find "$prefix" -name 'libwarpmind_c.so' | head -n 1)")
        pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
        ext=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
        pb=${PYBIND11_INCLUDE:-$(python3 -c 'import pybind11; print(pybind11.get_include())' 2> /dev/null ||
          python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')}
        echo "== the Python module: $(python3 -V 2>&1), headers $pyinc, pybind11 from $pb, libraries $libdir"
        mkdir -p "$out/python/warpmind"
        libs=$(cd "$libdir" && ls libwarpmind_*.so | sed 's/^lib/-l/; s/\.so$//')
        # shellcheck disable=SC2086
        g++ -O2 -std=c++20 -shared -fPIC -fvisibility=hidden -I"$pyinc" -I"$pb" -I"$prefix/include" -I"$src/ai/src" \
          "$src"/ai/bindings/python/*.cpp -L"$libdir" $libs -Wl,-rpath,"$libdir" -o "$out/python/warpmind/_warpmind$ext"
        cp "$src/ai/bindings/python/warpmind/__init__.py" "$out/python/warpmind/"
        echo "== tests/python, WARPMIND_TEST_BACKENDS=cpu,cuda, a GPU required"
        PYTHONPATH="$out/python" WARPMIND_C_LIBRARY="$libdir/libwarpmind_c.so" WARPMIND_TEST_BACKENDS=cpu,cuda \
          WARPMIND_TEST_REQUIRE_GPU=1 python3 -m pytest -v -p no:cacheprovider --junitxml="$out/bindings-pytest.xml" \
          "$src/tests/python"
        echo "== examples/python"
        PYTHONPATH="$out/python" python3 "$src/examples/python/quickstart.py"
        PYTHONPATH="$out/python" python3 "$src/examples/python/heatmap.py" "$out/heatmap.png"
        echo "== the Python binding's cost per call against the C API's (bench/bindings/overhead.py), CPU and cuda"
        for b in cpu cuda; do
          for n in "100000 20" "100 200"; do
            # shellcheck disable=SC2086
            PYTHONPATH="$out/python" WARPMIND_C_LIBRARY="$libdir/libwarpmind_c.so" \
              python3 "$src/bench/bindings/overhead.py" $n "$b"
          done
        done | tee "$out/bindings-overhead.jsonl"
        echo "== the C and C++ examples against the prefix"
        cmake -S "$src/examples" -B "$out/examples-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
        cmake --build "$out/examples-build" -j "$(nproc)" > /dev/null
        for e in rts_loop aoi_server chess_ai connect6_ai c_api; do echo "== $e"; "$out/examples-build/$e"; done
        # C#: the NUnit suite and the example that gpu-stage.sh compiled (STAGE/dotnet), under STAGE/mono's
        # runtime or this machine's mono.
        mono=$(command -v mono || true)
        [[ -x $stage/mono/bin/mono ]] && mono=$stage/mono/bin/mono
        nunit=$(ls "$stage/mono/nunit/nunit-console.exe" /usr/lib/nunit/nunit-console.exe 2> /dev/null | head -n 1 || true)
        if [[ -f $stage/dotnet/WarpmindTests.dll && -n $mono && -n $nunit ]]; then
          echo "== tests/csharp (NUnit under $mono), WARPMIND_TEST_BACKENDS=cpu,cuda, a GPU required"
          mkdir -p "$out/mono-home"
          HOME="$out/mono-home" LD_LIBRARY_PATH="$libdir:$stage/mono/lib:$LD_LIBRARY_PATH" WARPMIND_TEST_BACKENDS=cpu,cuda \
            WARPMIND_TEST_REQUIRE_GPU=1 "$mono" "$nunit" -nologo -xml="$out/bindings-nunit.xml" "$stage/dotnet/WarpmindTests.dll"
          echo "== examples/csharp/GameLoop.cs"
          HOME="$out/mono-home" LD_LIBRARY_PATH="$libdir:$stage/mono/lib:$LD_LIBRARY_PATH" "$mono" "$stage/dotnet/GameLoop.exe"
          echo "bindings: the module, tests/python and tests/csharp on cuda and the examples passed"
        else
          echo "bindings: the module, tests/python on cuda and the examples passed; C# not run (no STAGE/dotnet or no mono)"
        fi
      ) > "$log" 2>&1 ;;
    sass-field)
      # Disassembly of the binned accumulate kernel and its instruction mix.
      cuobjdump -sass "$stage/warpmind" | awk '/Function : .*k_bin_accumulate/{p=1} p&&/Function : /&&!/k_bin_accumulate/{p=0} p' > "$log" 2>&1
      grep -oE "^ +/\*[0-9a-f]+\*/ +[@!A-Z0-9.]+ *[A-Z][A-Z0-9.]*" "$log" | awk '{print $NF}' | sed 's/\..*//' |
        sort | uniq -c | sort -rn | head -25 >> "$log" ;;
    *)
      echo "unknown step $step" > "$log"; false ;;
  esac
  rc=$?
  ((rc == 0)) || status=1
  summary+=("$(printf '%-22s rc=%-3s %5ss  %s' "$step" "$rc" "$(( $(date +%s) - t0 ))" "$(tail -n 1 "$log" | cut -c1-90)")")
done
echo "== gpu-run summary ($(head -n 1 "$out/nvidia-smi.txt" | cut -c1-60))"
printf '%s\n' "${summary[@]}"
exit $status
