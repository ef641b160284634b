#!/usr/bin/env bash
# Installs Debian 12 packages. Idempotent: apt-get skips what is already installed. CUDA/NCCL
# are never installed here; the build detects them.
#   bash scripts/setup.sh         what configuring the build and running the CLI need (the
#                                 README's first command: the plan prints without the test tools)
#   bash scripts/setup.sh --all   that and the test tools (scripts/test.sh runs this)
# The first set holds every package the CMake configuration looks for (MPI, SimGrid, Google
# Benchmark, GoogleTest, Python), so that the test command reuses the first command's build
# directory unchanged: a package found only on the second configure would change what the
# CLI's libraries compile with and rebuild them.
set -euo pipefail
build_packages=(
  cmake g++ ninja-build ccache pkg-config
  libboost-graph-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  libsimgrid-dev                  # independent max-min simulator: the simulator's cross-check
  python3
)
test_packages=(
  graphviz gnuplot-nox
  clang libclang-rt-14-dev        # libFuzzer for the fuzz targets
  clang-format                    # scripts/check_format.sh (.clang-format: Google's, 100 columns)
  clang-tidy                      # scripts/check_tidy.sh (.clang-tidy)
  iproute2 procps util-linux      # emulated clusters: ip netns, tc, unshare
  python3-torch python3-torchvision  # python/topotune (PyTorch 1.13.1, torchvision 0.14)
  mypy                            # python/topotune's annotations (tests/ddp/types_test.py)
)
case "${1:-}" in
  "") packages=("${build_packages[@]}") ;;
  --all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  *)
    echo "setup: unknown argument '$1' (usage: scripts/setup.sh [--all]; --all adds the test tools)" >&2
    exit 2
    ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # apt's output goes to a log so that the README's first command prints the plan, not pages
  # of package names; the log is shown when apt fails.
  log=$(mktemp /tmp/topotune-setup.XXXXXX.log)
  echo "setup: installing ${#missing[@]} Debian packages (log: $log)" >&2
  if ! { apt-get update -qq && apt-get install -y --no-install-recommends "${missing[@]}"; } \
    >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "setup: apt-get failed (whole log: $log)" >&2
    exit 1
  fi
fi
[ -t 2 ] && echo "setup: all dependencies present" >&2 || true
