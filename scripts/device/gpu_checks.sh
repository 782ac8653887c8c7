#!/usr/bin/env bash
# The GPU checks, run ON a lent GPU machine from the repository root, after scripts/device/bundle.sh
# made .device/bundle.tar.gz here (docs/collectives.md, "On a GPU"). Unpacks the bundle, finds that
# machine's CUDA libraries and libnccl, and runs, each with its own time limit and log in $OUT:
#   env.log          GPU, driver, CUDA/NCCL libraries found, unresolved libraries (should be none)
#   gpu_ctest.log    ctest -L gpu (tests needing more GPUs than the machine has report SKIPPED;
#                    collectives_nccl_np2_hostid runs two ranks on one GPU as two NCCL hosts)
#   bench_nccl.log   elastic::coll NCCL allreduce vs ncclAllReduce, 1 KiB - 256 MiB on 1 rank (where
#                    NCCL's in-place allreduce moves nothing: our fixed cost per call) and 1 KiB -
#                    64 MiB on 2 ranks as two NCCL hosts (NCCL_HOSTID, below)
#   mnist.log        bench_mnist_gpu, and example 03 (GPU, 1 rank) vs example 02 (CPU, one rank per
#                    core) samples/s
#   cpu_coll.log     bench_collectives at 2 and 8 ranks on the machine's cores (fusion, MPI ratio)
#   rebuild.log      bench_nccl_rebuild: new NCCL communicator vs ncclCommShrink, 1 rank, and 3
#                    ranks on the one GPU as three NCCL hosts (NCCL_HOSTID) with a rank killed
# Each step's result is printed as it ends; a failing step does not stop the others, and the script
# exits 1 when any failed. STEPS picks
# steps (default: ctest nccl mnist cpu rebuild); ELASTIC_NCCL_LIB picks a libnccl (default: the
# newest on the machine).
#
#   OUT=/tmp/out [STEPS="ctest nccl"] scripts/device/gpu_checks.sh
set -uo pipefail
out=${OUT:-/tmp/gpu-checks}
mkdir -p "$out"
say() { echo "[gpu-checks $(date +%T)] $*"; }
failed=0
step() {  # step NAME LOG LIMIT_S CMD...: appends CMD's output to LOG, prints how it ended
  local name=$1 log=$2 limit=$3
  shift 3
  echo "\$ $*" >>"$out/$log"
  local t0=$SECONDS
  timeout -k 5 "$limit" "$@" >>"$out/$log" 2>&1
  local rc=$?
  say "$name: exit $rc after $((SECONDS - t0)) s (log $log)"
  [ "$rc" = 0 ] || failed=$((failed + 1))
  return $rc
}
# Whether the loader finds library $1 on its own. ldconfig -p starts each line with a tab, and awk
# reads all of it (grep -q would end the pipe early: SIGPIPE fails it under pipefail).
system_has() { ldconfig -p | awk -v so="$1" '$1 == so { found = 1 } END { exit !found }'; }

[ -f .device/bundle.tar.gz ] || { say "no .device/bundle.tar.gz: run scripts/device/bundle.sh first"; exit 2; }
tar -xzf .device/bundle.tar.gz -C / --no-overwrite-dir
build=$(sed -n 's/^BUILD=//p' /opt/elastic-device/manifest)
mpi_home=$(sed -n 's/^MPI_HOME=//p' /opt/elastic-device/manifest)
# The bundle fills gaps only: a library the machine has itself is not shadowed by ours.
for lib in /opt/elastic-device/lib/*; do
  if system_has "$(basename "$lib")"; then rm -f "$lib"; fi
done
# CUDA's runtime and cuBLAS from the toolkit, libnccl wherever the machine has one (e.g. PyTorch's).
# Never a system directory in LD_LIBRARY_PATH: the loader searches those anyway, and there they
# would come before the programs' RUNPATH, so a distribution's Open MPI 4 (same soname,
# libmpi.so.40) would be loaded instead of ours. Our Open MPI's lib comes first for the same reason.
libdirs=$mpi_home/lib:/opt/elastic-device/lib
for so in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
  system_has "$so" && continue
  found=$(find /usr/local/cuda/lib64/ /usr/local/cuda/lib/ -maxdepth 1 -name "$so" 2>/dev/null | head -1)
  [ -n "$found" ] || found=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "$so" -print 2>/dev/null | head -1)
  [ -n "$found" ] && case :$libdirs: in *:"$(dirname "$found")":*) ;; *) libdirs="$libdirs:$(dirname "$found")" ;; esac
done
# The newest libnccl on the machine (ncclCommRevoke needs 2.28.7): a system one, PyTorch's, ...
nccl_version() { python3 -c 'import ctypes, sys
v = ctypes.c_int(); ctypes.CDLL(sys.argv[1]).ncclGetVersion(ctypes.byref(v)); print(v.value)' "$1" 2>/dev/null || echo 0; }
best_nccl= best_version=0
while read -r lib; do
  v=$(nccl_version "$lib")
  echo "libnccl $lib: version code $v" >>"$out/env.log"
  if [ "$v" -gt "$best_version" ]; then best_version=$v best_nccl=$lib; fi
done < <(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libnccl.so.2' -print 2>/dev/null)
# ELASTIC_NCCL_LIB=/path/libnccl.so.2 picks one instead.
if [ -n "${ELASTIC_NCCL_LIB:-}" ]; then best_nccl=$ELASTIC_NCCL_LIB best_version=$(nccl_version "$best_nccl"); fi
if [ -n "$best_nccl" ]; then
  case $(dirname "$best_nccl") in
    /usr/lib/x86_64-linux-gnu | /lib/x86_64-linux-gnu | /usr/lib | /lib) ;;
    *) libdirs="$mpi_home/lib:$(dirname "$best_nccl"):${libdirs#"$mpi_home/lib:"}" ;;
  esac
fi
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_DEBUG=${NCCL_DEBUG:-WARN}
# PRRTE's ssh launcher needs an agent to exist even when every process is local.
command -v ssh >/dev/null || export PRTE_MCA_plm_ssh_agent=true
mpirun=$mpi_home/bin/mpirun
cores=$(nproc)
# One CPU rank per hardware thread the machine has (a VM's vCPUs may be hyperthreads of fewer cores).
cpu_map=(--use-hwthread-cpus --bind-to hwthread)
{
  say "build $build, MPI_HOME $mpi_home, $cores cores, libnccl $best_nccl ($best_version), LD_LIBRARY_PATH $LD_LIBRARY_PATH"
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  cat /etc/os-release | head -2
  env | grep -E '^(OMPI|OPAL|PRTE|PMIX)_' || true
  ldconfig -p | grep -E 'libmpi\.so|libnccl\.so' || true
  for p in "$build"/tests/collectives/gpu/nccl_test "$build"/bench/collectives/gpu/* "$build"/examples/0[23]*/*; do
    [ -x "$p" ] && [ -f "$p" ] && ldd "$p" | grep -E "not found|nccl|cudart|cublas|libmpi|open-pal" | sed "s|^|$(basename "$p"): |"
  done | sort -u
} >>"$out/env.log" 2>&1
cat "$out/env.log"

# Several ranks on the one GPU: NCCL refuses two ranks of one host on one GPU, so each rank gets
# its own NCCL host id (NCCL_HOSTID) and NCCL connects them over its socket transport on loopback.
hostid='export NCCL_HOSTID=gpuhost$OMPI_COMM_WORLD_RANK; exec "$0" "$@"'
nccl_net=(--oversubscribe -x NCCL_SOCKET_IFNAME=lo -x NCCL_IB_DISABLE=1 -x LD_LIBRARY_PATH -x NCCL_DEBUG)
gpu=$build/bench/collectives/gpu

run_ctest() {
  step gpu_ctest gpu_ctest.log 300 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 240
  tail -n 12 "$out/gpu_ctest.log"
}
run_nccl() {
  step "bench_nccl np1" bench_nccl.log 150 "$mpirun" -n 1 "$gpu/bench_nccl" 256 30 1
  step "bench_nccl np2 hostid" bench_nccl.log 150 "$mpirun" -n 2 "${nccl_net[@]}" bash -c "$hostid" \
    "$gpu/bench_nccl" 64 10 1
  cat "$out/bench_nccl.log"
}
run_mnist() {
  step bench_mnist_gpu mnist.log 120 "$mpirun" -n 1 "$gpu/bench_mnist_gpu" 400
  for hb in "128 64" "128 1024" "1024 64" "1024 1024"; do
    set -- $hb
    step "example 03 gpu hidden $1 batch $2" mnist.log 90 "$mpirun" -n 1 \
      "$build/examples/03_gpu/gpu_fashion_mnist" --epochs 2 --hidden "$1" --batch "$2"
    step "example 02 cpu x$cores hidden $1 batch $2/rank" mnist.log 120 "$mpirun" -n "$cores" \
      "${cpu_map[@]}" "$build/examples/02_fashion_mnist/fashion_mnist" --epochs 2 --hidden "$1" --batch "$2"
  done
  grep -E "^\\$|samples/s|^ *[0-9]+ +[0-9]+ |^#" "$out/mnist.log"
}
run_cpu() {
  for np in 2 8; do
    step "bench_collectives np$np" cpu_coll.log 200 "$mpirun" -n $np "${cpu_map[@]}" \
      "$build/bench/collectives/bench_collectives"
  done
  cat "$out/cpu_coll.log"
}
run_rebuild() {
  step "bench_nccl_rebuild np1" rebuild.log 120 "$mpirun" -n 1 "$gpu/bench_nccl_rebuild" 10
  step "bench_nccl_rebuild np3 hostid (the last rank killed)" rebuild.log 150 "$mpirun" --with-ft ulfm -n 3 \
    "${nccl_net[@]}" bash -c "$hostid" "$gpu/bench_nccl_rebuild" 5
  grep -v "NCCL INFO" "$out/rebuild.log"
}

for s in ${STEPS:-ctest nccl mnist cpu rebuild}; do
  say "step $s"
  "run_$s"
done
say "done: $failed step(s) failed"
[ "$failed" = 0 ]
