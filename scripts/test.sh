#!/usr/bin/env bash
# Runs every test: installs dependencies (cached), configures, builds, runs ctest.
# With CI=true the "ci" preset is used (warnings are errors). Extra arguments go to ctest.
# --sanitize (first argument): the "debug" preset instead, ASan + UBSan over the whole suite (MPI
# and end-to-end tests included), with the options and suppressions of scripts/sanitizers/ (each
# says why it is there); slower, so not in the default CI run (docs/testing.md).
# Failed tests are re-run once to report whether they are flaky; any failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
# Its last line is MPI_HOME=...; `eval "$(...)"` alone would go on after a failed install.
deps_env=$(scripts/install-deps.sh | tail -n 1) || { echo "[test] scripts/install-deps.sh failed" >&2; exit 1; }
eval "$deps_env"
export MPI_HOME
# Open MPI refuses to run as root unless told; CI machines run as root.
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
preset=default
[ "${CI:-}" = "true" ] && preset=ci
if [ "${1:-}" = "--sanitize" ]; then
  shift
  preset=debug  # its test preset sets ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS
fi
echo "[test] configure + build (preset $preset, MPI_HOME=$MPI_HOME)" >&2
cmake --preset "$preset" -DMPI_HOME="$MPI_HOME" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
# Tests labelled open-bug reproduce a product bug that is not fixed yet (each is described where
# its component is documented: docs/collectives.md, "GPU tests", for the NCCL one). They are not
# run here, and never silently: they are listed, and `ctest --preset PRESET -L open-bug` runs them.
open_bugs=$(ctest --preset "$preset" -N -L open-bug | sed -n 's/^ *Test *#[0-9]*: //p')
if [ -n "$open_bugs" ]; then
  echo "[test] NOT RUN, open bugs (docs/collectives.md, GPU tests): $open_bugs" >&2
fi
# ctest takes a test out only when it matches every -LE given: the caller's -LE joins ours in one
# pattern (two would exclude just the tests that match both).
exclude=open-bug
args=()
while [ $# -gt 0 ]; do
  case $1 in
    -LE | --label-exclude)
      [ $# -ge 2 ] || { echo "[test] $1 needs a label pattern" >&2; exit 2; }
      exclude="$exclude|$2"
      shift 2
      ;;
    *) args+=("$1"); shift ;;
  esac
done
echo "[test] ctest (labels excluded: $exclude)" >&2
if ! ctest --preset "$preset" -j "$(nproc)" -LE "$exclude" ${args[@]+"${args[@]}"}; then
  # A failed test fails the run. It is re-run once, for the report only: a test that passes on
  # the re-run is flaky, which is a bug too (the end-to-end runtime tests drive real mpirun jobs on
  # distinct hosts with timing-dependent events), and CI must not be green because of a re-run.
  echo "[test] re-running the failed tests once, to tell flaky from deterministic failures" >&2
  if ctest --preset "$preset" --rerun-failed --output-on-failure -LE "$exclude"; then
    echo "[test] FAILED: the tests above failed once and passed on the re-run (flaky)" >&2
  else
    echo "[test] FAILED: the tests above failed twice" >&2
  fi
  exit 1
fi
