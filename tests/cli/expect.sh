# Assertions of the command-line tests (sourced by tests/cli/bench_args_test.sh and
# tests/runtime/control/cli_test.sh; the caller sets $tmp). Each failure is counted in $failures
# and the case goes on; the caller exits 1 at the end when any failed.
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect_rc WANT CMD...: runs CMD, keeps stdout in $out and stderr in $err.
expect_rc() {
  local want=$1; shift
  out=$("$@" 2>"$tmp/err"); local rc=$?
  err=$(cat "$tmp/err")
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want (stderr: $(head -c 600 <<<"$err"))"
}
contains() { case "$1" in *"$2"*) ;; *) fail "expected '$2' in: $(head -c 600 <<<"$1")" ;; esac; }
lacks() { case "$1" in *"$2"*) fail "did not expect '$2' in: $(head -c 600 <<<"$1")" ;; esac; }
