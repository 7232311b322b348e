#!/usr/bin/env bash
# A long libFuzzer run of one harness (docs/fuzzing.md):
#   fuzz/run_long.sh BUILD_DIR HARNESS SECONDS [extra libFuzzer flags]
# HARNESS is topology, workload, sweep, run or model. The corpus grows in
# BUILD_DIR/fuzz/corpus/HARNESS (seeded from BUILD_DIR/fuzz/seeds/HARNESS the
# first time); crashes, timeouts and OOMs go to BUILD_DIR/fuzz/artifacts/HARNESS/,
# exceptions other than ConfigError to BUILD_DIR/fuzz/unexpected/HARNESS/; the
# log to BUILD_DIR/fuzz/HARNESS.log. libFuzzer's ordinary mode: it stops at
# the first finding (fix it, run again: the corpus is kept). NPUVP_FUZZ_FORK=1
# uses fork mode (-fork=1 -ignore_crashes -ignore_timeouts -ignore_ooms),
# which keeps going after a finding, but each of its jobs first re-runs its
# share of the corpus and early jobs last ~10 s, so it mutates far less per
# hour (docs/fuzzing.md "Results"). -print_funcs=0: symbolizing each new
# function for the log costs more than the run of a loader harness.
# Runs at nice 19: it is meant to share the machine (NPUVP_FUZZ_NICE=N for
# another niceness: on a machine loaded by others, nice 19 got fuzz_model
# about 60 executions per second, nice 0 about 800).
set -euo pipefail
build=$(cd "$1" && pwd); harness=$2; seconds=$3; shift 3
fuzz=$build/fuzz
mkdir -p "$fuzz/corpus/$harness" "$fuzz/artifacts/$harness" "$fuzz/unexpected/$harness"
if [ -z "$(ls -A "$fuzz/corpus/$harness")" ]; then cp "$fuzz/seeds/$harness"/* "$fuzz/corpus/$harness/"; fi
max_len=16384
[ "$harness" = run ] || [ "$harness" = model ] && max_len=32768
cd "$fuzz"
mode=(-print_funcs=0)
[ "${NPUVP_FUZZ_FORK:-0}" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
export ASAN_OPTIONS=detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export NPUVP_FUZZ_KEEP="$fuzz/unexpected/$harness"
exec nice -n "${NPUVP_FUZZ_NICE:-19}" "$fuzz/fuzz_$harness" "${mode[@]}" \
  -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2560 -max_len=$max_len \
  -print_final_stats=1 -artifact_prefix="$fuzz/artifacts/$harness/" "$@" \
  "$fuzz/corpus/$harness" > "$fuzz/$harness.log" 2>&1
