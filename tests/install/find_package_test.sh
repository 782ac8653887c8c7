#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then configures, builds and runs a separate
# project that uses find_package(elastic): `consumer` (allocator) and, when the package has the
# MPI runtime, `consumer_control` and `consumer_worker` (a one-process Session, no mpirun); its
# build also compiles every installed header on its own. The consumer is configured without
# MPI_HOME: the package must find the Open MPI it was built with by itself.
# Arguments: BUILD_DIR SOURCE_DIR EXPECTED [CXX_FLAGS]. EXPECTED: the programs' output, exactly.
# The consumer is compiled with the package's CXX_FLAGS: the libraries are static, so a sanitized
# package (the debug preset) needs the sanitizers' runtime where it is linked, as it does in any
# user's project.
set -euo pipefail
build=$1 source=$2 expected=$3 cxx_flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
env -u MPI_HOME cmake -S "$source/tests/install/consumer" -B "$work/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$cxx_flags" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
grep 'installed headers:' "$work/configure.log"
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
out=$("$work/build/consumer")
if [[ -x "$work/build/consumer_control" ]]; then out+=$'\n'$("$work/build/consumer_control"); fi
if [[ -x "$work/build/consumer_worker" ]]; then out+=$'\n'$("$work/build/consumer_worker"); fi
echo "$out"
[[ "$out" == "$expected" ]] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
echo PASS
