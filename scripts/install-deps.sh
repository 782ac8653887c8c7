#!/usr/bin/env bash
# Installs everything libelastic needs on Debian 12, idempotently:
#   * Debian packages (compilers (clang with libFuzzer for tests/fuzz), lp_solve, hwloc,
#     GoogleTest/Benchmark, JSON/TOML/CLI/logging libs, clang-format, gnuplot, the Fashion-MNIST dataset,
#     LibTorch and gloo (elastic::torch, example 04), Slurm and munge for the box's real Slurm:
#     installed with every service start refused, so that no slurmctld, slurmd or munged runs on
#     the machine);
#   * Open MPI 5.0.7 with ULFM, built from Debian trixie's *source* package into a cache prefix
#     (never trixie binaries: they would replace libc), with the patches and MCA parameter files in
#     scripts/openmpi/ (README.md there: which bug each fixes). The prefix name carries a hash of
#     that folder, so a changed patch rebuilds. An MPI given by MPI_HOME is used instead when it
#     has ULFM (it then lacks our fixes for spawning across hosts unless it was built here).
# Prints the MPI prefix as its last line ("MPI_HOME=<prefix>"). Safe to re-run; skips what is there.
set -euo pipefail

OMPI_VERSION=5.0.7
CACHE=${ELASTIC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libelastic}
PATCHES=$(cd "$(dirname "$0")/openmpi" && pwd)
PATCH_KEY=$(cat "$PATCHES"/*.patch "$PATCHES"/*.conf | sha256sum | cut -c1-10)
PREFIX=${ELASTIC_MPI_PREFIX:-$CACHE/openmpi-$OMPI_VERSION-ulfm-$PATCH_KEY}
JOBS=${JOBS:-$(nproc)}

say() { printf '[install-deps] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

PACKAGES=(
  build-essential cmake ninja-build pkgconf git ca-certificates xz-utils
  clang libclang-rt-14-dev
  liblpsolve55-dev libhwloc-dev libevent-dev zlib1g-dev flex
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libabsl-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev libspdlog-dev clang-format
  gnuplot-nox dataset-fashion-mnist libtorch-dev libgloo-dev procps python3 patch iproute2 util-linux gdb
  munge slurmctld slurmd slurm-client
)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then say "Debian packages: all present"; return; fi
  say "Debian packages: installing ${missing[*]}"
  as_root apt-get update -qq
  # invoke-rc.d (and deb-systemd-invoke) ask policy-rc.d whether a package may start its service;
  # 101 = no. A policy the machine already has is put aside for the install and then restored.
  # Restored also when the install is interrupted (Ctrl-C): a policy left behind would keep every
  # later package from starting its service.
  local policy=/usr/sbin/policy-rc.d saved rc=0
  saved=$(mktemp)
  if [ -e "$policy" ]; then as_root cp -p "$policy" "$saved"; else rm -f "$saved"; fi
  restore_policy() { if [ -e "$saved" ]; then as_root mv "$saved" "$policy"; else as_root rm -f "$policy"; fi; }
  trap restore_policy EXIT
  trap 'exit 130' INT TERM
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod 755 "$policy"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || rc=$?
  trap - EXIT INT TERM
  restore_policy
  [ "$rc" = 0 ] || { say "apt-get install failed ($rc)"; exit "$rc"; }
}

has_ulfm() { [ -x "$1/bin/mpicc" ] && [ -f "$1/include/mpi-ext.h" ] && grep -rqs MPIX_Comm_revoke "$1/include"; }

# MCA defaults the patched build needs, in the prefix's own parameter files, so that any mpirun of
# this install (a user's too) gets them.
install_params() {
  local f
  for f in openmpi-mca-params.conf pmix-mca-params.conf prte-mca-params.conf; do
    grep -qs '^# libelastic' "$1/etc/$f" || cat "$PATCHES/$f" >> "$1/etc/$f"
  done
}

build_openmpi() {
  if [ -n "${MPI_HOME:-}" ] && has_ulfm "$MPI_HOME"; then
    say "Open MPI: using MPI_HOME=$MPI_HOME (has ULFM)"; PREFIX=$MPI_HOME; return
  fi
  # Our own prefix counts only once its build finished (the marker is written last): a build that
  # was cut off mid-install leaves a prefix that looks complete and is not.
  if has_ulfm "$PREFIX" && [ -f "$PREFIX/.libelastic-complete" ]; then
    say "Open MPI: cached at $PREFIX"; return
  fi
  case $PREFIX in "$CACHE"/*) rm -rf "$PREFIX" ;; esac  # never a prefix outside our cache
  say "Open MPI $OMPI_VERSION: fetching Debian trixie source package (deb-src only)"
  local work=$CACHE/src lists=$CACHE/apt-trixie-src
  mkdir -p "$work" "$lists/lists/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    > "$lists/sources.list"
  # A private source list and list directory: the system's apt sources are never touched.
  local opts=(-o "Dir::Etc::SourceList=$lists/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$lists/lists" -o APT::Sandbox::User=root)
  if [ ! -f "$work/openmpi_$OMPI_VERSION.orig.tar.xz" ]; then
    apt-get "${opts[@]}" update -qq >&2
    (cd "$work" && apt-get "${opts[@]}" source --download-only "openmpi=$OMPI_VERSION-1" >&2)
  fi
  rm -rf "$work/openmpi-$OMPI_VERSION"
  tar -C "$work" -xf "$work/openmpi_$OMPI_VERSION.orig.tar.xz"
  local p
  for p in "$PATCHES"/*.patch; do
    say "Open MPI: applying $(basename "$p")"
    patch -d "$work/openmpi-$OMPI_VERSION" -p1 --forward --quiet < "$p" >&2 ||
      { say "Open MPI: $(basename "$p") does not apply to $OMPI_VERSION"; exit 1; }
  done
  say "Open MPI: configuring (--with-ft=ulfm, internal PMIx/PRRTE) into $PREFIX"
  cd "$work/openmpi-$OMPI_VERSION"
  ./configure --prefix="$PREFIX" --with-ft=ulfm --with-pmix=internal --with-prrte=internal \
    --with-hwloc=external --with-libevent=external --disable-mpi-fortran --disable-oshmem \
    --enable-mpi-ext=ftmpi --without-ucx --without-ofi --without-cuda \
    > "$CACHE/openmpi-configure.log" 2>&1 || { tail -40 "$CACHE/openmpi-configure.log" >&2; exit 1; }
  say "Open MPI: building with $JOBS jobs (about 7 minutes on 2 cores; log: $CACHE/openmpi-build.log)"
  make -j"$JOBS" > "$CACHE/openmpi-build.log" 2>&1 || { tail -40 "$CACHE/openmpi-build.log" >&2; exit 1; }
  make install >> "$CACHE/openmpi-build.log" 2>&1 || { tail -40 "$CACHE/openmpi-build.log" >&2; exit 1; }
  install_params "$PREFIX"
  cd - >/dev/null
  rm -rf "$work/openmpi-$OMPI_VERSION"
  has_ulfm "$PREFIX" || { say "Open MPI: build finished but ULFM headers are missing in $PREFIX"; exit 1; }
  touch "$PREFIX/.libelastic-complete"
  say "Open MPI: installed at $PREFIX"
}

install_packages
build_openmpi
echo "MPI_HOME=$PREFIX"
