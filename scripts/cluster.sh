#!/usr/bin/env bash
# scripts/cluster.sh ZONES BOTS SECONDS — a warpmind-server cluster on this machine, loopback only
# (docs/server.md, "Zones"): starts nats-server, ZONES zone servers (the map cut into CLUSTER_ROWS rows
# of ZONES / CLUSTER_ROWS columns; one row, the default: strips along x) and one warpmind-bots process whose bots connect round-robin to the zones and walk across the
# borders; then the same bots (same seed, same script) against one server. Prints each run's bot
# summary and, last, one JSON object: players lost, players duplicated and inconsistencies for the
# cluster and for the single server (all 0 when both are right). Exit status 0 when they are.
#
# Environment: WARPMIND_BIN_DIR (the programs; default build/bin), CLUSTER_MAP (default: 150 a zone,
# at least 300), CLUSTER_AOI (20), CLUSTER_SHAPE (square), CLUSTER_BACKEND (cpu), CLUSTER_SEED (1),
# CLUSTER_ATTACK_SHARE (0.2), CLUSTER_LOSE_SHARE (0: the share of States the bots act as if lost),
# CLUSTER_BOT_THREADS (1), CLUSTER_BOT_PROCESSES (1: the bots in P processes, for more bots than one
# process may open sockets; their records are checked together, warpmind-bots --record and
# --check-records), CLUSTER_FORGE (0: a stranger's N forged bus messages, below), CLUSTER_SINGLE (1; 0 skips the single-server run,
# which is skipped anyway above 4,000 bots, one server's limit), CLUSTER_LOG (a folder for the logs;
# default a temporary one), CLUSTER_STORE (1: every zone keeps its state in NATS JetStream, --zone-store;
# 0: not), CLUSTER_KILL_ZONE and CLUSTER_KILL_AT (kill zone K with SIGKILL S seconds into the bots' run
# and start it again at once with --restore; its bots resume after CLUSTER_RESUME_AFTER_MS of silence,
# default 500), CLUSTER_KILL_TICK (instead of CLUSTER_KILL_AT: zone K exits as if killed right after
# sending its message for tick T, --crash-at-tick, so that it comes back to replay that tick; with
# CLUSTER_KILL_POINT=relays, once the tick has run and its relays are out, before its state is stored),
# CLUSTER_MAX_OUTAGE_MS (2000: the longest the bots may go without a State, with a kill), CLUSTER_CHURN
# (0: the bots' --churn, leaving and joining again or restarting and resuming), CLUSTER_ROWS (1: the
# zones' grid, --zone-rows), CLUSTER_SOCKETS (1: each zone's --sockets, for more than 4,000 bots a
# zone), CLUSTER_STAGGER_MS (0: each zone started that long after the one before it, so that the first
# zones publish their first tick before the later ones are on the bus), CLUSTER_TLS (0; 1: the bus over
# TLS with client certificates, made for the run with openssl — below), CLUSTER_NETNS (0; 1: every zone
# in a network namespace of its own, on its own address, needs
# root and iproute2 — below), CLUSTER_BIND (none: the bots' warpmind-bots --bind, e.g. 127.0.10.0/24 so
# that the zones see them from many addresses as on a network; not with CLUSTER_NETNS), CLUSTER_DEVICES
# (0: every zone on its backend's default GPU; N: zone K on GPU K mod N, --device, for the GPUs of one
# host), CLUSTER_RECORD (0; 1: a reader of the whole bus records it while the bots play — below).
#
# CLUSTER_RECORD=1: a NATS user "reader" that may subscribe to every subject of the cluster and publish
# nothing records every message on the bus (tick messages, relays, stored states) while the bots play,
# and the bots write every session token they were given (warpmind-bots --tokens-out). No token may be
# in the recording, in either byte order: a reader of the bus cannot take over a player. Not with
# CLUSTER_TLS or CLUSTER_BOT_PROCESSES.
#
# CLUSTER_NETNS=1: the script makes a bridge (10.231.X.1/24, X from its process id) and, per zone, a
# network namespace with a veth pair into the bridge, the zone's address 10.231.X.(10 + K); the NATS
# server listens on the bridge's address, the zones in their namespaces, the bots in the script's own
# one reach them through the bridge. Nothing is routed beyond it: the traffic stays on this machine. All
# of it is removed at the end, whatever the outcome. Exit 3 when the namespaces cannot be made.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: scripts/cluster.sh ZONES BOTS SECONDS" >&2
  exit 2
fi
zones=$1 bots=$2 seconds=$3
[[ "$zones" =~ ^[0-9]+$ && "$zones" -ge 1 && "$zones" -le 64 ]] || { echo "cluster: ZONES must be 1..64" >&2; exit 2; }
[[ "$bots" =~ ^[0-9]+$ && "$bots" -ge 1 && "$bots" -le 100000 ]] || { echo "cluster: BOTS must be 1..100000" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "cluster: SECONDS must be a number" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${WARPMIND_BIN_DIR:-$root/build/bin}
nats_server=$(command -v nats-server || true)
for p in /usr/sbin/nats-server "$bin/nats-server"; do [[ -z "$nats_server" && -x $p ]] && nats_server=$p; done
for p in "$bin/warpmind-server" "$bin/warpmind-bots" "$nats_server"; do
  [[ -n "$p" && -x "$p" ]] || { echo "cluster: missing ${p:-nats-server} (scripts/setup.sh, scripts/build.sh)" >&2; exit 2; }
done
tls=${CLUSTER_TLS:-0}
[[ "$tls" == 0 || "$tls" == 1 ]] || { echo "cluster: CLUSTER_TLS must be 0 or 1" >&2; exit 2; }
((tls == 0)) || command -v openssl > /dev/null || { echo "cluster: CLUSTER_TLS=1 needs openssl (scripts/setup.sh)" >&2; exit 2; }
record=${CLUSTER_RECORD:-0}
[[ "$record" == 0 || "$record" == 1 ]] || { echo "cluster: CLUSTER_RECORD must be 0 or 1" >&2; exit 2; }
rows=${CLUSTER_ROWS:-1}
[[ "$rows" =~ ^[1-9][0-9]*$ ]] && ((zones % rows == 0)) || { echo "cluster: CLUSTER_ROWS must divide ZONES" >&2; exit 2; }
columns=$((zones / rows))
side=$((columns > rows ? columns : rows))
map=${CLUSTER_MAP:-$((side * 150 > 300 ? side * 150 : 300))}
aoi=${CLUSTER_AOI:-20}
shape=${CLUSTER_SHAPE:-square}
backend=${CLUSTER_BACKEND:-cpu}
seed=${CLUSTER_SEED:-1}
attack=${CLUSTER_ATTACK_SHARE:-0.2}
threads=${CLUSTER_BOT_THREADS:-1}
lose=${CLUSTER_LOSE_SHARE:-0}
single=${CLUSTER_SINGLE:-1}
((bots <= 4000)) || single=0
processes=${CLUSTER_BOT_PROCESSES:-1}
[[ "$processes" =~ ^[1-9][0-9]*$ ]] && ((processes <= 64 && processes <= bots)) ||
  { echo "cluster: CLUSTER_BOT_PROCESSES must be 1..64 and at most BOTS" >&2; exit 2; }
log=${CLUSTER_LOG:-$(mktemp -d)}
keep_log=${CLUSTER_LOG:+yes}
mkdir -p "$log"
sockets=${CLUSTER_SOCKETS:-1}
[[ "$sockets" =~ ^[1-8]$ ]] || { echo "cluster: CLUSTER_SOCKETS must be 1..8" >&2; exit 2; }
devices=${CLUSTER_DEVICES:-0}
[[ "$devices" =~ ^[0-9]+$ ]] && ((devices <= 64)) || { echo "cluster: CLUSTER_DEVICES must be 0..64" >&2; exit 2; }
per_zone=$(((bots + zones - 1) / zones + 16))
((per_zone <= 4000 * sockets)) ||
  { echo "cluster: more than 4,000 bots a zone and socket (ENet's limit): more zones, or CLUSTER_SOCKETS" >&2; exit 2; }
# Every server stops by itself after this, in case the script is gone; normally its TERM stops them once the
# bots are done, whose check can take minutes after a large run.
limit=$(awk -v s="$seconds" 'BEGIN { printf "%d", s + 900 }')
store=${CLUSTER_STORE:-1}
kill_zone=${CLUSTER_KILL_ZONE:-}
kill_at=${CLUSTER_KILL_AT:-2}
kill_tick=${CLUSTER_KILL_TICK:-}
resume_after=${CLUSTER_RESUME_AFTER_MS:-500}
max_outage=${CLUSTER_MAX_OUTAGE_MS:-2000}
if [[ -n "$kill_zone" ]]; then
  [[ "$kill_zone" =~ ^[0-9]+$ && "$kill_zone" -lt "$zones" ]] || { echo "cluster: CLUSTER_KILL_ZONE must be below ZONES" >&2; exit 2; }
  [[ "$kill_at" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "cluster: CLUSTER_KILL_AT must be a number of seconds" >&2; exit 2; }
  [[ -z "$kill_tick" || "$kill_tick" =~ ^[1-9][0-9]*$ ]] || { echo "cluster: CLUSTER_KILL_TICK must be a tick (1 or more)" >&2; exit 2; }
  ((store)) || { echo "cluster: CLUSTER_KILL_ZONE needs CLUSTER_STORE=1 (the zone comes back from its store)" >&2; exit 2; }
fi

netns=${CLUSTER_NETNS:-0}
pids=()
namespaces=()
bridge=""
cleanup() {
  for p in "${pids[@]}"; do { kill -KILL "$p" && wait "$p"; } 2>/dev/null || true; done  # quietly: no "Killed" line
  for ((k = 0; k < ${#namespaces[@]}; ++k)); do
    ip link del "wm$$v$k" 2>/dev/null || true  # both ends of the pair
    ip netns del "${namespaces[$k]}" 2>/dev/null || true
  done
  [[ -n "$bridge" ]] && ip link del "$bridge" 2>/dev/null || true
}
trap cleanup EXIT

# Where the NATS server and zone K listen, and what zone K is started under (zone_ns K sets `ns`, a
# command prefix that execs in place, so that $! stays the server's own process): loopback, or
# (CLUSTER_NETNS) the bridge and the zone's own namespace.
nats_host=127.0.0.1
zone_host() { echo 127.0.0.1; }
zone_ns() { ns=(); }
if ((netns)); then
  subnet="10.231.$(($$ % 250 + 1))"
  bridge="wm$$br"
  ip link add "$bridge" type bridge 2>/dev/null && ip addr add "$subnet.1/24" dev "$bridge" &&
    ip link set "$bridge" up || { echo "cluster: cannot make a bridge (CLUSTER_NETNS needs root and iproute2)" >&2; exit 3; }
  for ((k = 0; k < zones; ++k)); do
    ns="wm$$z$k"
    ip netns add "$ns" || { echo "cluster: cannot make network namespace $ns" >&2; exit 3; }
    namespaces+=("$ns")
    ip link add "wm$$v$k" type veth peer name "wm$$p$k" &&
      ip link set "wm$$p$k" netns "$ns" &&
      ip link set "wm$$v$k" master "$bridge" up &&
      ip -n "$ns" link set lo up &&
      ip -n "$ns" addr add "$subnet.$((10 + k))/24" dev "wm$$p$k" &&
      ip -n "$ns" link set "wm$$p$k" up || { echo "cluster: cannot wire namespace $ns" >&2; exit 3; }
  done
  nats_host="$subnet.1"
  zone_host() { echo "$subnet.$((10 + $1))"; }
  zone_ns() { ns=(ip netns exec "wm$$z$1"); }
fi

# Waits (at most 20 s) until file $1 has "$2" followed by a number and then "$3" (so the number is
# whole, not a line still being written); prints the number.
wait_for() {
  local file=$1 pattern=$2 after=$3 i
  for ((i = 0; i < 400; ++i)); do
    if grep -q "$pattern[0-9][0-9]*$after" "$file" 2>/dev/null; then
      grep -o "$pattern[0-9][0-9]*$after" "$file" | head -1 | sed "s/$pattern//; s/$after\$//"
      return 0
    fi
    sleep 0.05
  done
  echo "cluster: timed out waiting for '$pattern' in $file" >&2
  return 1
}

# A number from a one-line JSON object: the first "key":value.
field() { sed -n "s/.*\"$2\":\([-0-9.e]*\).*/\1/p" <<<"$1" | head -1; }

server_args=(--port 0 --map "$map" --aoi "$aoi" --shape "$shape" --backend "$backend" --json --seconds "$limit")

# ---- The cluster: its bus authenticated (docs/server.md, "The zone bus"). A random cluster key signs
# every zone's messages; each zone is a NATS user of its own with a random password (the NATS config file
# and the credentials files are readable by this user alone, so nothing secret travels on a command line),
# allowed only what a zone does: publish tick messages, relays to any zone and its own stored state;
# subscribe to tick messages and its own relays; of JetStream's API, make, read and look up the cluster's
# two streams. No zone may write another's stored state, and none may delete or purge a stream.
prefix="warpmind.cluster.$$"
echo "$prefix" > "$log/nats.prefix"  # what the users' permissions name (a zone started by hand needs it)
stream_base=${prefix//./_}
(
  umask 077
  od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$log/cluster.key"
  echo >> "$log/cluster.key"
  od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$log/server.key"  # the zones' key pair's seed (--key-file)
  echo >> "$log/server.key"
  js=""
  for s in "${stream_base}_TICKS" "${stream_base}_STATE"; do
    for api in CREATE INFO MSG.GET; do js+=", \"\$JS.API.STREAM.$api.$s\""; done
  done
  printf 'authorization {\n  users = [\n' > "$log/nats.conf"
  for ((k = 0; k < zones; ++k)); do
    password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    echo "zone$k:$password" > "$log/zone$k.credentials"
    printf '    {user: "zone%d", password: "%s", permissions: {\n' "$k" "$password" >> "$log/nats.conf"
    printf '      publish: {allow: ["%s.tick", "%s.relay.*", "%s.state.%d"%s]}\n' "$prefix" "$prefix" "$prefix" "$k" \
      "$js" >> "$log/nats.conf"
    printf '      subscribe: {allow: ["%s.tick", "%s.relay.%d", "_INBOX.>"]}}}\n' "$prefix" "$prefix" "$k" >> "$log/nats.conf"
  done
  reader=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  echo "reader:$reader" > "$log/reader.credentials"
  printf '    {user: "reader", password: "%s", permissions: {publish: {deny: [">"]}, subscribe: {allow: ["%s.>"]}}}\n' \
    "$reader" "$prefix" >> "$log/nats.conf"
  printf '  ]\n}\nmax_payload: 8388608\n' >> "$log/nats.conf"
)
# CLUSTER_TLS=1: the bus over TLS (docs/server.md, "Trust: the zone bus"). A CA made for this run signs
# the NATS server's certificate (named warpmind-nats, which the zones check: --nats-tls-name) and one
# client certificate the zones present (--nats-ca-file, --nats-cert-file, --nats-key-file); the NATS
# server requires TLS and a client certificate (verify), so a client without them is refused before it
# can say anything, credentials or not.
tls_args=()
if ((tls)); then
  (
    umask 077
    cd "$log"
    curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${curve[@]}" -days 2 -subj "/CN=warpmind cluster CA" -keyout ca.key -out ca.pem
    for who in nats zone; do
      openssl req "${curve[@]}" -subj "/CN=warpmind $who" -keyout "$who.key" -out "$who.csr"
      printf 'subjectAltName=IP:%s,DNS:localhost,DNS:warpmind-%s\n' "$nats_host" "$who" > "$who.ext"
      openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile "$who.ext" -out "$who.pem"
    done
  ) > "$log/tls.log" 2>&1 || { echo "cluster: cannot make the TLS certificates (see $log/tls.log)" >&2; exit 1; }
  printf 'tls {\n  cert_file: "%s"\n  key_file: "%s"\n  ca_file: "%s"\n  verify: true\n  timeout: 5\n}\n' \
    "$log/nats.pem" "$log/nats.key" "$log/ca.pem" >> "$log/nats.conf"
  tls_args=(--nats-ca-file "$log/ca.pem" --nats-cert-file "$log/zone.pem" --nats-key-file "$log/zone.key"
            --nats-tls-name warpmind-nats)
fi
# JetStream (-js) holds the zones' stored states and tick messages, in memory (docs/server.md, "A zone crash").
"$nats_server" -a "$nats_host" -p -1 -js -sd "$log/jetstream" -c "$log/nats.conf" >"$log/nats.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 400; ++i)); do  # "Server is ready" comes after the port's line
  grep -q "Server is ready" "$log/nats.log" 2>/dev/null && break
  sleep 0.05
done
nats_port=$(wait_for "$log/nats.log" "client connections on $nats_host:" "$")
# Whether a NATS server's reply holds a PONG line (not "PONG" inside the INFO: a server's random id can
# spell it).
pong() { local r=${1//$'\r'/}; [[ $'\n'$r$'\n' == *$'\nPONG\n'* ]]; }
# With TLS, a client in clear gets nothing from the NATS server, the cluster's credentials and all: no PONG.
tls_json=null
if ((tls)); then
  plain=refused
  if exec 3<>"/dev/tcp/$nats_host/$nats_port"; then
    printf 'CONNECT {"verbose":false,"pedantic":false,"name":"plain","user":"%s","pass":"%s"}\r\nPING\r\n' \
      "$(cut -d: -f1 "$log/zone0.credentials")" "$(cut -d: -f2 "$log/zone0.credentials")" >&3 2> /dev/null || true
    pong "$(timeout 3 cat <&3 2> /dev/null || true)" && plain=admitted
    exec 3>&-
  fi
  tls_json="{\"plain_client\":\"$plain\"}"
fi
servers=""
zone_pids=()
zone_ports=()
cluster_start=$(date +%s%N)
store_args=()
((store)) && store_args=(--zone-store)
zone_args() {  # zone $1's flags, into the array `zone`
  zone=(--host "$(zone_host "$1")" --sockets "$sockets" --max-clients "$per_zone" --zones "$zones" --zone-rows "$rows" --zone "$1"
    --nats "nats://$nats_host:$nats_port"
    --nats-prefix "$prefix" --cluster-key-file "$log/cluster.key" --key-file "$log/server.key" --nats-credentials-file "$log/zone$1.credentials"
    "${store_args[@]}" "${tls_args[@]}")
  # In namespaces every bot reaches the zones from the bridge's one address, as players behind one NAT
  # do: a zone's per-address caps are raised to all its players (docs/server.md, "Flags").
  if ((netns)); then
    local cap=$((per_zone < 65535 ? per_zone : 65535))
    zone+=(--max-sessions-per-address "$cap" --max-unjoined "$cap")
  fi
  ((devices == 0)) || zone+=(--device "$(($1 % devices))")
}
stagger_ms=${CLUSTER_STAGGER_MS:-0}
[[ "$stagger_ms" =~ ^[0-9]+$ ]] || { echo "cluster: CLUSTER_STAGGER_MS must be a whole number" >&2; exit 2; }
for ((k = 0; k < zones; ++k)); do
  ((k > 0 && stagger_ms > 0)) && sleep "$(awk -v m="$stagger_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
  crash=()
  [[ "$k" == "$kill_zone" && -n "$kill_tick" ]] && crash=(--crash-at-tick "$kill_tick" --crash-point "${CLUSTER_KILL_POINT:-message}")
  zone_args "$k"
  zone_ns "$k"
  "${ns[@]}" "$bin/warpmind-server" "${server_args[@]}" "${zone[@]}" "${crash[@]}" >"$log/zone$k.json" \
    2>"$log/zone$k.err" &
  pids+=($!)
  zone_pids+=($!)
done
for ((k = 0; k < zones; ++k)); do
  port=$(wait_for "$log/zone$k.err" "listening on $(zone_host "$k"):" ",")
  zone_ports+=("$port")
  servers+="${servers:+,}$(zone_host "$k"):$port"
done
# The zones' public key (one seed, one key): the bots check every zone's Keys against it (--server-key).
server_key=$(grep -o "public key [0-9a-f]*" "$log/zone0.err" | head -1 | cut -d' ' -f3)
[[ ${#server_key} -eq 64 ]] || { echo "cluster: zone 0 printed no public key" >&2; exit 1; }
# CLUSTER_FORGE=N: while the bots play, a stranger on the bus. It tries the NATS server without
# credentials (it must be refused), then with zone 0's — as if they had leaked — publishes N messages the
# zones must drop for their tags: random bytes of up to 1 MB on the tick subject and on zone 0's relay
# subject, and well-sized messages with a wrong tag. The zones count them (bad_tags). Then, with zone 1's,
# it tries to overwrite zone 0's stored state and to delete and purge the store: NATS must refuse all three.
forge() {
  local n=$1 i size
  exec 3<>"/dev/tcp/$nats_host/$nats_port" || return 1
  printf 'CONNECT {"verbose":false,"pedantic":false,"name":"stranger"}\r\nPING\r\n' >&3
  anonymous=refused
  pong "$(timeout 3 cat <&3 2> /dev/null || true)" && anonymous=admitted
  exec 3>&-
  echo "$anonymous" > "$log/forge-anonymous"
  exec 3<>"/dev/tcp/$nats_host/$nats_port" || return 1
  printf 'CONNECT {"verbose":false,"pedantic":false,"name":"forger","user":"%s","pass":"%s"}\r\n' \
    "$(cut -d: -f1 "$log/zone0.credentials")" "$(cut -d: -f2 "$log/zone0.credentials")" >&3
  for ((i = 0; i < n; ++i)); do
    size=$(( i % 10 == 0 ? 1000000 : 64 + (i * 97) % 4000 ))
    head -c "$size" /dev/urandom > "$log/forged.bin"
    local subject="$prefix.tick"
    (( i % 4 == 3 )) && subject="$prefix.relay.0"
    { printf 'PUB %s %d\r\n' "$subject" "$size"; cat "$log/forged.bin"; printf '\r\n'; } >&3
    sleep 0.01
  done
  printf 'PING\r\n' >&3
  timeout 3 cat <&3 > /dev/null || true
  exec 3>&-
  echo "$n" > "$log/forge-sent"
  exec 3<>"/dev/tcp/$nats_host/$nats_port" || return 1
  printf 'CONNECT {"verbose":false,"pedantic":false,"name":"forger","user":"%s","pass":"%s"}\r\n' \
    "$(cut -d: -f1 "$log/zone1.credentials")" "$(cut -d: -f2 "$log/zone1.credentials")" >&3
  printf 'PUB %s.state.0 4\r\nWMS2\r\n' "$prefix" >&3
  printf 'PUB $JS.API.STREAM.DELETE.%s_STATE 0\r\n\r\n' "$stream_base" >&3
  printf 'PUB $JS.API.STREAM.PURGE.%s_STATE 0\r\n\r\n' "$stream_base" >&3
  printf 'PING\r\n' >&3
  timeout 3 cat <&3 > "$log/forge-store-reply" || true
  grep -c "Permissions Violation for Publish" "$log/forge-store-reply" > "$log/forge-store-refused" || true
  exec 3>&-
}

# CLUSTER_RECORD=1: the reader subscribes to the cluster's subjects and writes what NATS sends it.
record_pid=""
if ((record)); then
  ((tls == 0 && processes == 1)) || { echo "cluster: CLUSTER_RECORD is not for CLUSTER_TLS or CLUSTER_BOT_PROCESSES" >&2; exit 2; }
  (
    exec 4<>"/dev/tcp/$nats_host/$nats_port"
    printf 'CONNECT {"verbose":false,"pedantic":false,"name":"reader","user":"reader","pass":"%s"}\r\nSUB %s.> 1\r\n' \
      "$(cut -d: -f2 "$log/reader.credentials")" "$prefix" >&4
    exec cat <&4 > "$log/bus.raw"
  ) &
  record_pid=$!
  pids+=("$record_pid")
fi
echo "cluster: $zones zones ($rows x $columns) on $servers (NATS $nats_host:$nats_port), map $map, AOI $aoi, $bots bots for $seconds s" >&2
forge_n=${CLUSTER_FORGE:-0}
forge_pid=""
if ((forge_n > 0)); then
  (sleep 1; forge "$forge_n") &
  forge_pid=$!
fi
# CLUSTER_KILL_ZONE: the zone killed while the bots play, and started again at once on its port from
# its stored state; how long that took (kill to listening) goes to the log.
kill_pid=""
bot_args=(--churn "${CLUSTER_CHURN:-0}" --server-key "$server_key")
((record)) && bot_args+=(--tokens-out "$log/tokens.txt")
[[ -n ${CLUSTER_BIND:-} ]] && bot_args+=(--bind "$CLUSTER_BIND")
if [[ -n "$kill_zone" ]]; then
  bot_args+=(--resume-after-ms "$resume_after")
  alive() { [[ -r /proc/$1/stat && $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != Z ]]; }  # zombies are dead
  (
    victim=${zone_pids[$kill_zone]}
    if [[ -n "$kill_tick" ]]; then  # it exits by itself (--crash-at-tick)
      while alive "$victim"; do sleep 0.005; done
      t0=$(date +%s%N)
    else
      sleep "$kill_at"
      t0=$(date +%s%N)
      kill -KILL "$victim" 2>/dev/null || true
      while alive "$victim"; do sleep 0.005; done
    fi
    zone_args "$kill_zone"  # the same life as the others: it stops when they do
    zone_ns "$kill_zone"
    "${ns[@]}" "$bin/warpmind-server" "${server_args[@]}" "${zone[@]}" --restore --port "${zone_ports[$kill_zone]}" \
      --seconds "$((limit - (t0 - cluster_start) / 1000000000))" \
      >"$log/zone$kill_zone.restarted.json" 2>"$log/zone$kill_zone.restarted.err" &
    echo $! > "$log/restarted.pid"
    wait_for "$log/zone$kill_zone.restarted.err" "listening on $(zone_host "$kill_zone"):" "," > /dev/null || true
    echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$log/restart-ms"
    wait
  ) &
  kill_pid=$!
fi
set +e
if ((processes == 1)); then
  "$bin/warpmind-bots" --server "$servers" --bots "$bots" --seconds "$seconds" --seed "$seed" \
    --attack-share "$attack" --lose-share "$lose" --threads "$threads" "${bot_args[@]}" --json \
    >"$log/cluster-bots.json" 2>"$log/cluster-bots.err"
else
  # CLUSTER_BOT_PROCESSES=P: the bots split over P processes, their records checked together
  # (scripts/bot-processes.sh); one summary adds the processes' counts to the check.
  WARPMIND_BIN_DIR="$bin" bash "$(dirname "${BASH_SOURCE[0]}")/bot-processes.sh" "$processes" "$bots" "$seed" "$log/bots" -- \
    --server "$servers" --seconds "$seconds" --attack-share "$attack" --lose-share "$lose" --threads "$threads" \
    "${bot_args[@]}" >"$log/cluster-bots.json" 2>"$log/cluster-bots.err"
fi
set -e
[[ -n "$forge_pid" ]] && { wait "$forge_pid" 2>/dev/null || true; }
if [[ -n "$kill_pid" && -f "$log/restarted.pid" ]]; then
  zone_pids[$kill_zone]=$(cat "$log/restarted.pid")
  pids+=("${zone_pids[$kill_zone]}")
fi
for p in "${zone_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${zone_pids[@]}"; do wait "$p" 2>/dev/null || true; done
[[ -n "$kill_pid" ]] && { wait "$kill_pid" 2>/dev/null || true; }
cluster_bots=$(tail -1 "$log/cluster-bots.json")
echo "$cluster_bots"
timeouts=0 bad=0 relayed=0 tick_p99=0 missing=0 bad_tags=0 summaries=0 resumes_relayed=0
count() { local v; v=$(field "$1" "$2"); echo "${v:-0}"; }  # a zone's counter, 0 when it has none
for ((k = 0; k < zones; ++k)); do
  z=$(tail -1 "$log/zone$k.json" 2>/dev/null || true)
  [[ "$k" == "$kill_zone" ]] && z=$(tail -1 "$log/zone$k.restarted.json" 2>/dev/null || true)
  [[ $z == *'"program":"warpmind-server"'* ]] && summaries=$((summaries + 1))
  timeouts=$((timeouts + $(count "$z" timeouts)))
  bad=$((bad + $(count "$z" bad_messages)))
  relayed=$((relayed + $(count "$z" relayed_in)))
  missing=$((missing + $(count "$z" views_missing)))
  bad_tags=$((bad_tags + $(count "$z" bad_tags)))
  resumes_relayed=$((resumes_relayed + $(count "$z" resumes_relayed)))
  p99=$(sed -n 's/.*"tick_ms":{[^}]*"p99":\([0-9.]*\).*/\1/p' <<<"$z")
  tick_p99=$(awk -v a="$tick_p99" -v b="${p99:-0}" 'BEGIN { print (b > a ? b : a) }')
done

# CLUSTER_RECORD: the recording ends with the zones; each token the bots were given looked for in it
# as 8 bytes, little- and big-endian. It must hold something, and the bots must have had tokens.
bus_json=null
if [[ -n "$record_pid" ]]; then
  kill -TERM "$record_pid" 2>/dev/null || true
  wait "$record_pid" 2>/dev/null || true
  bus_json=$(python3 - "$log/bus.raw" "$log/tokens.txt" "$resumes_relayed" <<'EOF_PY'
import sys
raw = open(sys.argv[1], "rb").read()
tokens = {int(line, 16) for line in open(sys.argv[2]) if line.strip()}
found = sum(1 for t in tokens for order in ("little", "big") if t.to_bytes(8, order) in raw)
print('{"bytes":%d,"messages":%d,"tokens":%d,"tokens_found":%d,"resumes_relayed":%s}'
      % (len(raw), raw.count(b"\r\nMSG ") + raw.startswith(b"MSG "), len(tokens), found, sys.argv[3]))
EOF_PY
) || bus_json='{"bytes":0,"messages":0,"tokens":0,"tokens_found":-1}'
fi

# ---- One server, the same bots.
single_bots=""
if ((single)); then
"$bin/warpmind-server" "${server_args[@]}" --host 127.0.0.1 --max-clients "$((bots + 16))" >"$log/single.json" 2>"$log/single.err" &
single_pid=$!
pids+=($single_pid)
port=$(wait_for "$log/single.err" "listening on 127.0.0.1:" ",")
set +e
"$bin/warpmind-bots" --server "127.0.0.1:$port" --bots "$bots" --seconds "$seconds" --seed "$seed" \
  --attack-share "$attack" --lose-share "$lose" --threads "$threads" --json >"$log/single-bots.json" 2>"$log/single-bots.err"
set -e
kill -TERM "$single_pid" 2>/dev/null || true
wait "$single_pid" 2>/dev/null || true
single_bots=$(tail -1 "$log/single-bots.json")
echo "$single_bots"
fi

summary() {  # the counts of one run's bot summary (null where the bots wrote none: they failed to start)
  local j=$1 k v out=
  for k in joined players_lost players_duplicated inconsistencies ticks_checked states_checked catch_ups_behind snapshots; do
    v=$(field "$j" "$k")
    out+="${out:+,}\"$k\":${v:-null}"
  done
  printf '{%s}' "$out"
}
ok=true
for j in "$cluster_bots" ${single_bots:+"$single_bots"}; do
  for k in players_lost players_duplicated inconsistencies; do
    [[ "$(field "$j" "$k")" == "0" ]] || ok=false
  done
  [[ "$(field "$j" joined)" == "$bots" ]] || ok=false
  [[ "$(field "$j" ticks_checked)" =~ ^[1-9] ]] || ok=false
done
[[ $timeouts -eq 0 && $bad -eq 0 && $missing -eq 0 && $summaries -eq $zones ]] || ok=false  # every zone stopped well
# The stranger: refused without credentials, and every forged message dropped by every zone it reached
# (a tick message by each zone, a relay by zone 0).
forge_json=null
if ((forge_n > 0)); then
  anonymous=$(cat "$log/forge-anonymous" 2>/dev/null || echo unknown)
  sent=$(cat "$log/forge-sent" 2>/dev/null || echo 0)
  relays=$(( (forge_n + 1) / 4 ))
  expected=$(( (forge_n - relays) * zones + relays ))
  store_refused=$(cat "$log/forge-store-refused" 2>/dev/null || echo 0)
  [[ $anonymous == refused && $sent -eq $forge_n && $bad_tags -eq $expected && $store_refused -eq 3 ]] || ok=false
  forge_json=$(printf '{"anonymous":"%s","forged":%d,"bad_tags":%d,"expected_bad_tags":%d,"store_writes_refused":%d}' \
    "$anonymous" "$sent" "$bad_tags" "$expected" "$store_refused")
else
  [[ $bad_tags -eq 0 ]] || ok=false
fi
# The kill: the zone came back from its store (its summary says at which tick), and the bots' longest
# wait for a State (the outage, detection included) within CLUSTER_MAX_OUTAGE_MS.
kill_json=null
if [[ -n "$kill_zone" ]]; then
  zr=$(tail -1 "$log/zone$kill_zone.restarted.json" 2>/dev/null || true)
  restored=$(count "$zr" restored_tick)
  restore_ms=$(field "$zr" restore_ms)
  restart_ms=$(cat "$log/restart-ms" 2>/dev/null || echo -1)
  outage=$(field "$cluster_bots" longest_state_gap_ms)
  crash_resumes=$(field "$cluster_bots" crash_resumes)
  [[ $restored -gt 0 ]] || ok=false
  awk -v o="${outage:-1e9}" -v m="$max_outage" 'BEGIN { exit !(o <= m) }' || ok=false
  kill_json=$(printf '{"zone":%d,"at_s":%s,"at_tick":%s,"restart_ms":%s,"restored_tick":%s,"restore_ms":%s,"outage_ms":%s,"crash_resumes":%s,"max_outage_ms":%s}' \
    "$kill_zone" "$([[ -n "$kill_tick" ]] && echo null || echo "$kill_at")" "${kill_tick:-null}" "$restart_ms" "$restored" "${restore_ms:-null}" "${outage:-null}" "${crash_resumes:-0}" "$max_outage")
fi
[[ $tls_json == *admitted* ]] && ok=false
[[ $bus_json == null ]] || [[ $(field "$bus_json" messages) -gt 0 && $(field "$bus_json" tokens) -gt 0 &&
  $(field "$bus_json" tokens_found) -eq 0 ]] || ok=false
# The logs stay where CLUSTER_LOG says, or (in a temporary folder) when something was wrong.
if [[ $ok == true && -z "$keep_log" ]]; then
  rm -rf "$log"
  logs=null
else
  logs="\"$log\""
fi
single_summary=null
[[ -n "$single_bots" ]] && single_summary=$(summary "$single_bots")
# The bots' last words where they wrote no summary (they could not start, e.g. out of sockets).
bots_error=null
if [[ -z "$(field "$cluster_bots" joined)" ]]; then
  e=$(tail -1 "$log/cluster-bots.err" 2>/dev/null | tr -d '\000-\037' | sed 's/[\\"]/\\&/g')
  bots_error="\"${e:-no summary}\""
fi
printf '{"program":"cluster","zones":%d,"rows":%d,"netns":%s,"devices":%d,"bots":%d,"seconds":%s,"map":%s,"aoi":%s,"shape":"%s","cluster":%s,"bots_error":%s,"zone_timeouts":%d,"bad_zone_messages":%d,"views_missing":%d,"relayed":%d,"zone_tick_p99_ms":%s,"store":%s,"tls":%s,"forge":%s,"kill":%s,"bus":%s,"single":%s,"ok":%s,"logs":%s}\n' \
  "$zones" "$rows" "$([[ $netns == 1 ]] && echo true || echo false)" "$devices" "$bots" "$seconds" "$map" "$aoi" "$shape" "$(summary "$cluster_bots")" "$bots_error" "$timeouts" "$bad" "$missing" "$relayed" \
  "$tick_p99" "$([[ $store == 1 ]] && echo true || echo false)" "$tls_json" "$forge_json" "$kill_json" "$bus_json" "$single_summary" "$ok" "$logs"
[[ $ok == true ]]
