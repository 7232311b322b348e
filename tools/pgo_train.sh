#!/usr/bin/env bash
# The training run of a profile-guided Release build (tools/pgo.cmake,
# docs/speed.md "Seventh pass"): runs the instrumented programs of the
# training build on shipped workloads and on composite GEMMs, so that the
# hot sources' profile (PROFILE_DIR, where the training build's programs
# write it) is that of an ordinary run, then touches STAMP. Called by the
# build, from the source directory.
#
#   tools/pgo_train.sh TRAIN_BUILD_DIR PROFILE_DIR STAMP
set -euo pipefail
train=$1
profile=$2
stamp=$3

# A fresh profile: the counts of an earlier training would add up with these.
rm -rf "$profile"
mkdir -p "$profile"

run() {
    if ! "$@" > "$profile/.last.log" 2>&1; then
        echo "pgo_train: failed: $*" >&2
        cat "$profile/.last.log" >&2
        exit 1
    fi
}

# What an architect runs: the README's main job and the shipped examples
# (the control path, simple commands, composites with epilogues, a model),
# decoupled and per stage.
for w in host_launch gemm_bias_relu gemm_all_pes mnist_mlp simple_commands double_buffer_pipelined; do
    run "$train/npuvp" --workload "configs/workloads/$w.yaml"
done
run "$train/npuvp" --workload configs/workloads/gemm_bias_relu.yaml --per-stage
# Composite GEMMs long enough for the token path's steady state, on one PE
# and on eight (docs/speed.md "Cases").
run "$train/bench/npuvp_bench" --case one --m 1024 --k 1024 --n 1024
run "$train/bench/npuvp_bench" --case eight --m 1024 --k 1024 --n 1024
rm -f "$profile/.last.log"
touch "$stamp"
