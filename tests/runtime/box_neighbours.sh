#!/bin/bash
# The box's hosts keep reaching each other while the kernel's neighbour table is full.
#
# The kernel keeps one neighbour (ARP) table for all network namespaces, with one limit on its
# dynamic entries (net.ipv4.neigh.default.gc_thresh3). A box that resolved its hosts with ARP
# needed (N+1) x N of them, and at 32 hosts TCP connections between hosts that got no entry
# stalled for 10-60 s (scripts/box.sh, static_neighbours). This test causes the fault: it fills
# the table from a scratch namespace until the kernel refuses one more dynamic entry, then opens a
# TCP connection from every host to h0. Entries the kernel adds in the last 5 s are not reclaimed,
# so the connections are made within that window. Exits 77 (skipped) where no box can be built.
set -u
BOX=$(cd "$(dirname "$0")/../.." && pwd)/scripts/box.sh
"$BOX" check || { echo "SKIP: no cluster in a box on this machine"; exit 77; }
"$BOX" up "${BOX_HOSTS:-8}" >/dev/null || exit 1
NET=${ELASTIC_BOX_NET:-10.213.47}
FILL=${ELASTIC_BOX_PREFIX:-elbox}-nbfill
PORT=7411
hosts=$("$BOX" hosts | tail -n +2)

BOX_ERR=$(mktemp)
cleanup() {
  rm -f "$BOX_ERR"
  ip netns del "$FILL" 2>/dev/null
  "$BOX" kill-all
}
trap cleanup EXIT

# A listener on h0 that accepts connections until it is killed.
"$BOX" exec h0 python3 -c "
import socket
s = socket.create_server(('', $PORT), backlog=64)
while True:
    s.accept()[0].close()" &
disown
for _ in $(seq 50); do
  "$BOX" exec h1 python3 -c "import socket; socket.create_connection(('h0', $PORT), 1)" 2>/dev/null && break
  sleep 0.1
done

# Without this the hosts keep the entries they made so far and the test proves nothing: a host
# flushes its dynamic entries (permanent ones stay).
for h in $hosts h0; do "$BOX" exec "$h" ip neigh flush dev eth0 2>/dev/null || true; done

# Fill: 254 dynamic entries a device (this box's own addresses, never sent to) until one is refused.
ip netns del "$FILL" 2>/dev/null  # left by a run that was killed
ip netns add "$FILL" || exit 1
full=0
for d in $(seq 0 99); do
  ip -n "$FILL" link add "f$d" type veth peer name "g$d" || exit 1
  ip -n "$FILL" link set "f$d" up
  for a in $(seq 1 254); do
    printf 'neigh replace %s.%d lladdr 02:00:00:00:%02x:%02x dev f%d nud reachable\n' "$NET" "$a" "$d" "$a" "$d"
  done | ip -n "$FILL" -batch - 2> "$BOX_ERR" && continue
  # Only the kernel's refusal of one more entry counts as full (ENOBUFS); anything else is a failure.
  grep -q "No buffer space available" "$BOX_ERR" || { echo "FAIL: filling: $(cat "$BOX_ERR")"; exit 1; }
  full=1
  break
done
[ "$full" = 1 ] || { echo "FAIL: the neighbour table took 25400 entries and never filled"; exit 1; }
echo "neighbour table full after $(ip -n "$FILL" neigh show | wc -l) entries of the scratch namespace"

failed=0
for h in $hosts; do
  if ! "$BOX" exec "$h" python3 -c "import socket; socket.create_connection(('h0', $PORT), 2)" 2>/dev/null; then
    echo "FAIL: $h could not connect to h0 while the neighbour table was full"
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "every host reached h0 with the neighbour table full"
exit $failed
