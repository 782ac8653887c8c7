#!/bin/bash
# Usage: box_mpirun.sh MPIRUN NP PROGRAM [ARGS...]
# Runs an MPI program with one rank on each of the box's hosts h1..hNP (scripts/box.sh), mpirun on
# the head host h0 with ULFM, so that a test's ranks are on distinct hosts as on a cluster.
# Exits 77 (skipped) when this machine cannot build a box.
set -u
MPIRUN=$1 NP=$2
shift 2
BOX=$(cd "$(dirname "$0")/../.." && pwd)/scripts/box.sh
"$BOX" check || { echo "SKIP: no cluster in a box on this machine"; exit 77; }
"$BOX" up "${BOX_HOSTS:-8}" >/dev/null || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mapfile -t args < <("$BOX" mpirun-args)
hosts=$(seq -s, -f 'h%g:1' 1 "$NP")
"$BOX" exec h0 "$MPIRUN" --with-ft ulfm "${args[@]}" --host "$hosts" -n "$NP" --bind-to none "$@"
rc=$?
"$BOX" kill-all
exit $rc
