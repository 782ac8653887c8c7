#!/usr/bin/env bash
# A cluster in a box: N distinct hosts on this machine, for the tests, the demo and the benchmarks.
#
#   box.sh up N          hosts h0 (head) .. hN, idempotent (an existing box of another size is
#                        torn down first)
#   box.sh down          kill every process on every host, remove the namespaces (idempotent)
#   box.sh exec HOST CMD run CMD on HOST (its hostname, network, /etc/hosts, /tmp, /dev/shm)
#   box.sh kill HOST     SIGKILL every process on HOST (its PRRTE daemon included): a node loss
#   box.sh kill-all      the same on every host (what a test leaves behind), keeping the box up
#                        and its Slurm daemons, if any
#   box.sh vanish HOST   a node lost without a word (power loss, a cut cable): HOST's cable is cut
#                        and its processes stopped (SIGSTOP), so that nothing of it reaches a peer:
#                        no reset of a connection, no exit seen by the launch agent (which, like
#                        the ssh client of a real cluster, would otherwise report the daemon's end);
#                        revive and kill-all kill them and mend the cable (up mends it too)
#   box.sh revive HOST   HOST back after vanish, as after a reboot: its processes killed, its
#                        cable mended
#   box.sh pids HOST     the pids of the processes on HOST
#   box.sh agent HOST CMD...   PRRTE's launch agent (plm_ssh_agent): runs CMD on HOST as ssh would
#   box.sh mpirun-args [--no-agent]
#                        the mpirun options that make PRRTE use the box (one per line); without
#                        the launch agent for a launcher that brings its own (elastic up --slurm-steps)
#   box.sh hosts         the hosts of the box, one per line (h0 first)
#   box.sh check         exit 0 if this machine can build a box, else print why and exit 77
#   box.sh slurm-up | slurm-down | slurm CMD... | slurm-conf | slurm-logs
#                        a real Slurm on the box's hosts (scripts/box_slurm.sh says how)
#
# Each host is a network namespace (ELASTIC_BOX_PREFIX-hK, default elbox-hK) with a veth into a
# bridge that lives in a namespace of its own, so nothing is added to the machine's own network:
# traffic flows only between the box's hosts, on ELASTIC_BOX_NET (default 10.213.47, a private /24;
# hK has .(10+K), MAC 02:00:<the address's bytes>; every host has the others' as permanent
# neighbour entries, see static_neighbours). Processes run under `unshare --uts --mount` with the
# host's own hostname, the box's /etc/hosts, a private tmpfs on /dev/shm and on /tmp. What hosts share, as a cluster shares
# its parallel file system: everything outside /tmp, and the paths under /tmp listed in
# ELASTIC_BOX_SHARE (colon-separated; the repository is added when it lives under /tmp).
# PIDs are not isolated: `kill HOST` finds a host's processes by their network namespace.
set -euo pipefail

PREFIX=${ELASTIC_BOX_PREFIX:-elbox}
NET=${ELASTIC_BOX_NET:-10.213.47}
RUN=/run/$PREFIX
LAYOUT=2  # what `up` builds; a box built to an older layout is rebuilt (2: static neighbours)
SELF=$(readlink -f "$0")
REPO=$(cd "$(dirname "$SELF")/.." && pwd)

. "$(dirname "$SELF")/box_slurm.sh"

die() { printf 'box: %s\n' "$*" >&2; exit "${2:-1}"; }
ns() { printf '%s-%s' "$PREFIX" "$1"; }
bridge_ns() { printf '%s-net' "$PREFIX"; }
host_index() {  # hK or the address of hK -> K
  case $1 in
    h[0-9]*) echo "${1#h}" ;;
    "$NET".*) echo $((${1##*.} - 10)) ;;
    *) return 1 ;;
  esac
}
size() { [ -f "$RUN/size" ] && cat "$RUN/size" || echo -1; }

check() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, mounts); run the box tests as root" 77
  for t in ip unshare mount; do command -v $t >/dev/null || die "'$t' not found (apt-get install iproute2 util-linux)" 77; done
  local probe
  probe=$(ns probe$$)
  ip netns add "$probe" 2>/dev/null || die "cannot create a network namespace here (ip netns add failed)" 77
  ip netns del "$probe"
  unshare --uts --mount true 2>/dev/null || die "cannot create UTS/mount namespaces here (unshare failed)" 77
}

# Runs inside a host's namespaces (see agent/exec): private hostname, /etc/hosts, /dev/shm, /tmp.
init_host() {
  local host=$1
  shift
  hostname "$host"
  mount --make-rprivate /
  mount --bind "$RUN/hosts" /etc/hosts
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm
  # The machine's /tmp stays reachable under $RUN/$host/oldtmp (rbind: a plain bind lost the
  # launch agent's view of paths under it), then /tmp becomes private and the shared paths come back.
  mount --rbind /tmp "$RUN/$host/oldtmp"
  mount -t tmpfs -o mode=1777 tmpfs /tmp
  local p
  IFS=: read -r -a shared < "$RUN/share"
  for p in "${shared[@]}"; do
    [ -n "$p" ] && [ -e "$RUN/$host/oldtmp/${p#/tmp/}" ] || continue
    mkdir -p "$p"
    mount --rbind "$RUN/$host/oldtmp/${p#/tmp/}" "$p"
  done
  exec "$@"
}

in_host() {  # in_host HOST CMD... (no environment cleaning)
  local host=$1 k
  shift
  k=$(host_index "$host") || die "unknown host '$host' (hosts are h0..h$(size))"
  [ "$k" -ge 0 ] && [ "$k" -le "$(size)" ] || die "unknown host '$host' (box has h0..h$(size))"
  exec ip netns exec "$(ns "h$k")" unshare --uts --mount "$SELF" __init "h$k" "$@"
}

host_mac() {  # host_mac K: hK's own MAC address (locally administered, from its IP address)
  local a b c
  IFS=. read -r a b c <<< "$NET"
  printf '02:00:%02x:%02x:%02x:%02x' "$a" "$b" "$c" $((10 + $1))
}

# Every host knows every other host's MAC address from the start (permanent neighbour entries), so
# the box never resolves addresses with ARP. The kernel keeps one neighbour table for all network
# namespaces, and its limit on dynamic entries (net.ipv4.neigh.default.gc_thresh3, 1024 by default)
# counts every namespace's: a 32-host box needs 33 x 32 = 1056 of them. Past the limit, a host
# could not add the entry for a peer ("neighbor table overflow!" in the kernel log), and TCP
# connections between such a pair stalled, in both directions, for 10-60 s (measured: PRRTE's
# launch message for a spawned job reached six daemons only after their parents' connect had given
# up, docs/runtime.md). Permanent entries do not count against that limit.
static_neighbours() {  # static_neighbours K N
  local k=$1 n=$2 j
  for ((j = 0; j <= n; j++)); do
    [ "$j" -eq "$k" ] || echo "neigh replace $NET.$((10 + j)) lladdr $(host_mac "$j") dev eth0 nud permanent"
  done | ip -n "$(ns "h$k")" -batch -
}

up() {
  local n=$1 k
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "up N: N must be 1..200, got '$n'" 2
  check
  if [ "$(size)" = "$n" ] && ip netns list | grep -qw "$(ns "h$n")" &&
    [ "$(cat "$RUN/layout" 2>/dev/null)" = "$LAYOUT" ]; then
    for ((k = 0; k <= n; k++)); do cable "h$k" up; done
    return 0
  fi
  down
  mkdir -p "$RUN"
  ip netns add "$(bridge_ns)"
  ip -n "$(bridge_ns)" link add br0 type bridge
  ip -n "$(bridge_ns)" link set br0 up
  {
    echo "127.0.0.1 localhost"
    for ((k = 0; k <= n; k++)); do echo "$NET.$((10 + k)) h$k"; done
  } > "$RUN/hosts"
  local share=${ELASTIC_BOX_SHARE:-}
  case $REPO in /tmp/*) share="$share:$REPO:$(dirname "$REPO")/shared" ;; esac
  echo "$share" > "$RUN/share"
  for ((k = 0; k <= n; k++)); do
    ip netns add "$(ns "h$k")"
    ip -n "$(bridge_ns)" link add "v$k" type veth peer name eth0 netns "$(ns "h$k")"
    ip -n "$(bridge_ns)" link set "v$k" master br0 up
    ip -n "$(ns "h$k")" link set eth0 address "$(host_mac "$k")"
    ip -n "$(ns "h$k")" addr add "$NET.$((10 + k))/24" dev eth0
    ip -n "$(ns "h$k")" link set eth0 up
    ip -n "$(ns "h$k")" link set lo up
    mkdir -p "$RUN/h$k/oldtmp"
  done
  for ((k = 0; k <= n; k++)); do static_neighbours "$k" "$n"; done
  echo "$n" > "$RUN/size"
  echo "$LAYOUT" > "$RUN/layout"
  echo "box: up with hosts h0..h$n on $NET.0/24" >&2
}

host_pids() {  # host_pids HOST [PIDS TO SPARE]: the processes on HOST, one per line
  local k
  k=$(host_index "$1") || die "unknown host '$1'"
  ip netns pids "$(ns "h$k")" 2>/dev/null | grep -vxF -e "${2:-}" -e '' || true
}

kill_host() {  # kill_host HOST [PIDS TO SPARE]
  local pids
  # Repeat: a dying process may still fork (prted reaping, an agent starting a daemon).
  for _ in 1 2 3 4 5; do
    pids=$(host_pids "$1" "${2:-}")
    [ -z "$pids" ] && return 0
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
}

vanish_host() {  # the cable first, so that nothing the stopped processes still had sent gets out
  local pids
  cable "$1" down
  pids=$(host_pids "$1")
  [ -z "$pids" ] || kill -STOP $pids 2>/dev/null || true
}

# A cut cable: the bridge's end of HOST's veth goes down, and the bridge drops what is sent to HOST.
cable() {  # cable HOST up|down
  local k
  k=$(host_index "$1") || die "unknown host '$1'"
  ip -n "$(bridge_ns)" link set "v$k" "$2"
}

down() {
  local k n
  n=$(size)
  slurm_down
  for k in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX-h[0-9]+$" | sed "s/^$PREFIX-//"); do
    kill_host "$k"
    ip netns del "$(ns "$k")" 2>/dev/null || true
  done
  ip netns del "$(bridge_ns)" 2>/dev/null || true
  if [ -d "$RUN" ]; then
    for k in "$RUN"/h*/oldtmp; do umount -l "$k" 2>/dev/null || true; done
    rm -rf "$RUN"
  fi
  [ "$n" = -1 ] || echo "box: down" >&2
}

# PRRTE calls its ssh agent as `AGENT [ssh options] HOST COMMAND`; COMMAND is a shell command line.
# Like ssh, the agent first connects to the host over the box's network (port 22, where nothing
# listens, so a host that is up answers at once with a reset), from the caller's host (the head's
# when called from outside the box): a host whose cable is cut (vanish) keeps it waiting until the
# kernel gives the connection up (about 130 s), and it then fails as ssh does (exit 255). It waits
# in the process group PRRTE made for it, so that PRRTE can end the wait (patch 0031).
# Like ssh, the command gets a fresh environment (PATH and library path kept: one shared install).
# The sanitizers' options pass, as a site passes them with ssh's SendEnv: without them the ranks of
# the other hosts ran without `scripts/test.sh --sanitize`'s suppressions of Open MPI's leaks.
# Like sshd, which starts each remote command in a session of its own, the agent then runs it in one
# (setsid -w: PRRTE waits on it as on ssh). The kernel's autogroups share the cores equally between
# sessions, so each host's launch, daemon and ranks are one group, as on a machine of their own.
# Without it a grow's launches ran in the head host's session, one group against each training
# host's: with 8 hosts training, 8 new daemons took 9 s to report instead of 2-3 s, and a grow from
# 8 to 16 hosts 12-15 s instead of 8-9 s (docs/runtime.md, "16 and 32").
agent() {
  local args=("$@") host k why via=()
  while [ $# -gt 0 ] && [[ $1 == -* ]]; do shift; done
  host=$1
  shift
  if [ -z "${ELASTIC_BOX_AGENT_SESSION:-}" ]; then
    k=$(host_index "$host") || die "unknown host '$host'" 255
    [[ $(ip netns identify $$ 2>/dev/null) == "$PREFIX"-h* ]] || via=(ip netns exec "$(ns h0)")
    why=$("${via[@]}" bash -c "exec 3<>/dev/tcp/$NET.$((10 + k))/22" 2>&1) || true
    case $why in
      '' | *"Connection refused"*) ;;  # connected (something listens there) or reset: it answers
      *) printf 'ssh: connect to host %s port 22: %s\n' "$host" "${why##*: }" >&2; exit 255 ;;
    esac
    ELASTIC_BOX_AGENT_SESSION=1 exec setsid -w "$SELF" agent "${args[@]}"
  fi
  in_host "$host" /usr/bin/env -i PATH="$PATH" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" \
    HOME="${HOME:-/root}" USER="${USER:-root}" LANG=C.UTF-8 \
    ${OMPI_ALLOW_RUN_AS_ROOT:+OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1} \
    ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS"} ${LSAN_OPTIONS:+"LSAN_OPTIONS=$LSAN_OPTIONS"} \
    ${UBSAN_OPTIONS:+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
    /bin/sh -c "$*"
}

# The box's hosts share this machine's cores, which Open MPI cannot see (each host reports its
# own slots): mpi_yield_when_idle tells it that they are oversubscribed, as mpirun does by itself
# when it oversubscribes one node, so that a rank waiting in MPI hands the core to the peer it
# waits for (OMPI_MCA_ variables reach spawned jobs too). At 8 hosts it took shrink on notice from
# 408-517 ms to 94-104 ms (docs/runtime.md, "Rescale latency"); the hand-over is a nanosleep (the
# prefix's openmpi-mca-params.conf, scripts/openmpi/). coll/han is left out for the same reason:
# with 2 ranks a host it builds intra- and inter-node communicators of its own inside the first
# collective on every new communicator, and on cores shared by 16 ranks that took shrink on notice
# at 8 hosts from 56-87 ms to 103-179 ms (docs/runtime.md). Elsewhere Open MPI's default stands.
# PRRTE splits plm_ssh_agent at spaces and colons: from a repository whose path holds one, the
# agent is reached through a link in the box's run folder.
agent_path() {
  case $SELF in
    *[[:space:]:]*) mkdir -p "$RUN" && ln -sfn "$SELF" "$RUN/agent" && echo "$RUN/agent" ;;
    *) echo "$SELF" ;;
  esac
}
mpirun_args() {  # mpirun_args [--no-agent]
  [ "${1:-}" = --no-agent ] || printf '%s\n' --prtemca plm_ssh_agent "$(agent_path) agent"
  printf '%s\n' --prtemca oob_tcp_if_include "$NET.0/24" \
    --mca btl tcp,self --mca btl_tcp_if_include "$NET.0/24" --mca mpi_yield_when_idle 1 \
    --mca coll ^han
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
  up) [ $# -eq 1 ] || die "usage: box.sh up N" 2; up "$1" ;;
  down) down ;;
  exec) [ $# -ge 2 ] || die "usage: box.sh exec HOST CMD..." 2; in_host "$@" ;;
  kill) [ $# -eq 1 ] || die "usage: box.sh kill HOST" 2; kill_host "$1" ;;
  vanish) [ $# -eq 1 ] || die "usage: box.sh vanish HOST" 2; vanish_host "$1" ;;
  revive) [ $# -eq 1 ] || die "usage: box.sh revive HOST" 2; kill_host "$1"; cable "$1" up ;;
  kill-all) spare=$(slurm_daemons)
    for ((k = 0; k <= $(size); k++)); do kill_host "h$k" "$spare"; cable "h$k" up; done ;;
  pids) [ $# -eq 1 ] || die "usage: box.sh pids HOST" 2; host_pids "$1" ;;
  agent) agent "$@" ;;
  mpirun-args) [ $# -eq 0 ] || [ "$1" = --no-agent ] || die "usage: box.sh mpirun-args [--no-agent]" 2
    mpirun_args "$@" ;;
  hosts) for ((k = 0; k <= $(size); k++)); do echo "h$k"; done ;;
  check) check ;;
  slurm-up) [ $# -eq 0 ] || die "usage: box.sh slurm-up" 2; slurm_up ;;
  slurm-down) slurm_down ;;
  slurm) [ $# -ge 1 ] || die "usage: box.sh slurm CMD..." 2; slurm_client "$@" ;;
  slurm-conf) echo "$SLURM_CONF_FILE" ;;
  slurm-logs) echo "$SLURM_DIR/log" ;;
  __init) init_host "$@" ;;
  -h|--help|help|'') sed -n '2,/^set -e/p' "$SELF" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "unknown command '$cmd' (box.sh --help)" 2 ;;
esac
