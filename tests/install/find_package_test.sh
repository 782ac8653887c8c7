#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then configures, builds and runs a separate
# project that uses find_package(elastic): `consumer` (allocator) and, when the package has the
# MPI runtime, `consumer_control` and `consumer_worker` (a one-process Session, no mpirun).
# Arguments: BUILD_DIR SOURCE_DIR MPI_HOME [CXX_FLAGS]. The consumer is compiled with the package's
# CXX_FLAGS: the libraries are static, so a sanitized package (the debug preset) needs the
# sanitizers' runtime where it is linked, as it does in any user's project.
set -euo pipefail
build=$1 source=$2 mpi_home=$3 cxx_flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/tests/install/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMPI_HOME="$mpi_home" -DCMAKE_CXX_FLAGS="$cxx_flags" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/build/consumer"
if [[ -x "$work/build/consumer_control" ]]; then "$work/build/consumer_control"; fi
if [[ -x "$work/build/consumer_worker" ]]; then "$work/build/consumer_worker"; fi
