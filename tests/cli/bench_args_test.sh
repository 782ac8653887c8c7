#!/usr/bin/env bash
# The benchmark programs' command lines: what they cannot take is refused with exit 2 and a
# message, before anything runs (exit_code.h: CLI parse errors exit 2).
#   bench_args_test.sh CASE PROGRAM
set -uo pipefail
case_name=$1 program=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/expect.sh"

case $case_name in
solver_bench)
  # Google Benchmark leaves what it does not know in argv: it was dropped, and the run went on
  # with the defaults (--profiles in the space form: the default profiles; a typo'd filter: every
  # benchmark). --benchmark_list_tests keeps a build that lets them through from running them.
  expect_rc 2 timeout 60 "$program" --profiles /nonexistent --benchmark_list_tests=true
  contains "$err" "unrecognized command-line flag: --profiles"
  contains "$err" "usage: solver_bench [--profiles=PATH]"
  expect_rc 2 timeout 60 "$program" --benchmark_filtr=dp --benchmark_list_tests=true
  contains "$err" "unrecognized command-line flag: --benchmark_filtr=dp"
  expect_rc 2 timeout 60 "$program" --profiles=/nonexistent --benchmark_list_tests=true
  contains "$err" "/nonexistent: cannot open the scalability profiles"
  ;;
replay_bench)
  # A missing data file was a bare abort() (exit 134, no message).
  expect_rc 2 timeout 120 "$program" --data="$tmp/none" --benchmark_filter=Summit2d/equal-share
  contains "$err" "replay_bench: $tmp/none/"
  contains "$err" "No such file or directory"
  expect_rc 2 timeout 60 "$program" --benchmark_filtr=dp --benchmark_list_tests=true
  contains "$err" "unrecognized command-line flag: --benchmark_filtr=dp"
  ;;
rescale_trainer)
  # CLI11_PARSE returned CLI11's own codes (109, 106, 105).
  expect_rc 0 "$program" --help
  contains "$out" "--state-mb"
  expect_rc 2 timeout 60 "$program" --bogus
  contains "$err" "--bogus"
  expect_rc 2 timeout 60 "$program" --steps abc
  contains "$err" "--steps"
  # inf MB made the model's size (a size_t cast) undefined.
  expect_rc 2 timeout 60 "$program" --state-mb inf
  contains "$err" "--state-mb: must be a finite number, got inf"
  expect_rc 2 timeout 60 "$program" --warm-up-mb 1e300
  contains "$err" "--warm-up-mb: must be at most 1e6 MB (about 1 TB), got 1e300"
  ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
[ "$failures" = 0 ] || { echo "$case_name: $failures failure(s)" >&2; exit 1; }
echo "$case_name: ok"
