#include "report/run_answers.h"

namespace npuvp {

RunAnswers answer_run(const WorkloadRun& run, const Platform& platform, const obs::RunView& view,
                      const std::vector<LayerResult>& layers, std::uint64_t window_ps) {
    RunAnswers a;
    a.critical_path = critical_path(view);
    const std::uint64_t makespan = view.failed ? view.stopped_ps : run.makespan_ps();
    a.bound = find_bottleneck(run, a.critical_path, makespan);
    a.bound.unused = unused_parts(run, platform);
    a.roofline = build_roofline(run, platform, layers);
    a.energy = measure_energy(run, platform, window_ps);
    return a;
}

}  // namespace npuvp
