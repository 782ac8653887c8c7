#!/usr/bin/env bash
# Packs what the GPU checks (scripts/device/gpu_checks.sh) need on a lent GPU machine that has CUDA,
# a driver and a libnccl (e.g. PyTorch's) but no package registry, no Open MPI and none of our other
# dependencies: the GPU tests, benchmarks and examples of a build made here with CUDA
# (ELASTIC_HAVE_CUDA), every CTestTestfile of that build (ctest -L gpu runs there against the same absolute paths), the patched Open MPI
# prefix, the shared libraries those programs load that are neither glibc, libstdc++ nor CUDA's
# (absl, hwloc, libevent, ...: the target machine's own CUDA libraries and libnccl are used, since
# libnccl alone is 200 MB), and the Fashion-MNIST files. Output: OUT_DIR/bundle.tar.gz (about 40 MB).
#
#   scripts/device/bundle.sh [BUILD_DIR=build/ci] [OUT_DIR=.device]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/ci}
out=${2:-.device}
deps_env=$(scripts/install-deps.sh | tail -n 1) || { echo "bundle: scripts/install-deps.sh failed" >&2; exit 1; }
eval "$deps_env"  # MPI_HOME
data=/usr/share/datasets/fashion-mnist
programs=(
  tests/collectives/gpu/nccl_test
  examples/03_gpu/gpu_mlp_test
  examples/03_gpu/gpu_fashion_mnist
  examples/02_fashion_mnist/fashion_mnist
  bench/collectives/bench_collectives
  bench/collectives/gpu/bench_nccl
  bench/collectives/gpu/bench_nccl_rebuild
  bench/collectives/gpu/bench_mnist_gpu
)
for p in "${programs[@]}"; do
  [ -x "$build/$p" ] || { echo "bundle: $build/$p is missing: build it first (cmake --build $build)" >&2; exit 2; }
done
[ -d "$data" ] || { echo "bundle: $data is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The build subset, under the build's own absolute path (ctest files name it).
abs_build=$(realpath "$build")
mkdir -p "$stage/root$abs_build"
# The ctest files and the gtest_discover_tests lists they include.
(cd "$build" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) -print0 |
  xargs -0 cp --parents -t "$stage/root$abs_build")
for p in "${programs[@]}"; do
  mkdir -p "$(dirname "$stage/root$abs_build/$p")"
  strip --strip-debug -o "$stage/root$abs_build/$p" "$build/$p"
done
# Open MPI without its manuals and headers.
mkdir -p "$stage/root$MPI_HOME"
cp -a "$MPI_HOME"/{bin,etc,lib} "$stage/root$MPI_HOME/"
mkdir -p "$stage/root$MPI_HOME/share"
for d in "$MPI_HOME"/share/*; do
  case $(basename "$d") in man | doc) ;; *) cp -a "$d" "$stage/root$MPI_HOME/share/" ;; esac
done
find "$stage/root$MPI_HOME/lib" -name '*.so*' -type f -exec strip --strip-debug {} + 2>/dev/null || true
# The libraries the programs and Open MPI load, less glibc, the compiler's runtime and CUDA's.
mkdir -p "$stage/root/opt/elastic-device/lib"
{
  for p in "${programs[@]}"; do ldd "$build/$p"; done
  find "$MPI_HOME/bin" "$MPI_HOME/lib" -type f -perm -u+x -exec ldd {} \; 2>/dev/null
} | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libnccl|libnvidia[^/]*)\.so' |
  grep -v -F "$MPI_HOME/" |
  while read -r lib; do cp -L "$lib" "$stage/root/opt/elastic-device/lib/"; done
printf 'BUILD=%s\nMPI_HOME=%s\n' "$abs_build" "$MPI_HOME" >"$stage/root/opt/elastic-device/manifest"
mkdir -p "$stage/root$data"
cp "$data"/*.gz "$stage/root$data/"
mkdir -p "$out"
tar -C "$stage/root" -czf "$out/bundle.tar.gz" .
echo "bundle: $out/bundle.tar.gz ($(du -h "$out/bundle.tar.gz" | cut -f1)), build $abs_build, MPI_HOME $MPI_HOME"
