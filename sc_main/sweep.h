// `npuvp sweep ...`: design-space sweeps (SPEC §9, docs/sweep.md). A sweep
// file expands into points (sc_main/sweep_plan.h); each point is one
// independent npuvp process, run by one of three engines: local worker
// processes, GNU parallel (also over ssh), or a Slurm job array. Points that
// finished are skipped on a re-run; `collect` merges the points' summaries
// into one CSV and draws SVG plots (sc_main/sweep_collect.h).
#pragma once

namespace npuvp {

// argv[0] is "sweep". Returns the exit code (sc_main/cli.h).
int run_sweep(int argc, char* argv[]);

}  // namespace npuvp
