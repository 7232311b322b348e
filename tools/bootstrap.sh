#!/usr/bin/env bash
# Installs what npuvp needs to build and test, from Debian's packages, and only
# what is missing (idempotent). Runs apt-get as root, or through sudo.
set -euo pipefail

packages=(g++ make cmake pkg-config libsystemc-dev libyaml-cpp-dev libboost-test-dev gtkwave
          zlib1g-dev              # --vcd FILE.fst: the FST writer (Verilator's fstapi.c) needs zlib
          xvfb xauth              # cli_gtkwave_test: GTKWave opens the waves headless (xvfb-run)
          python3 python3-simpy3  # python3-simpy3: bench/ SimPy baseline
          parallel slurm-wlm munge   # `npuvp sweep` backends (docs/sweep.md) and their tests
          verilator               # rtl/: RTL co-simulation (docs/rtl.md)
          libonnx-dev libprotobuf-dev python3-onnx libonnx-testdata  # model/: ONNX import (docs/models.md)
          libnlopt-dev nlohmann-json3-dev)  # `npuvp calibrate`: the fit and the runs' summaries (docs/validation.md)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
