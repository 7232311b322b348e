#include "report/run_outputs.h"

#include "report/roofline.h"

#include <fstream>
#include <iomanip>
#include <stdexcept>

#include "config/config_error.h"
#include "report/atomic_file.h"
#include "report/report_writer.h"
#include "report/run_view.h"
#include "report/svg_writer.h"
#include "report/timeline_writer.h"

namespace npuvp {

void write_outputs(const OutputFiles& files, const WorkloadRun& run, const Platform& platform,
                   const obs::RunRecorder& recorder, const std::string& name, bool print, std::ostream& out,
                   const std::vector<LayerResult>& layers, const obs::RunView* given,
                   const RunAnswers* answers) {
    std::optional<obs::RunView> built;
    if (given == nullptr) built = obs::build_view(run, platform, recorder);
    const obs::RunView& view = given != nullptr ? *given : *built;
    std::optional<RunAnswers> own;
    if (answers == nullptr) answers = &own.emplace(answer_run(run, platform, view, layers));
    Report report = build_report(run, platform, view, name, answers);
    // The power tracks only for a finished run: a failed one's would stop mid-command.
    const Energy* power = view.failed ? nullptr : &answers->energy;
    report.layers = layers;
    if (print) print_report(out, report);
    // Each file is written beside itself and renamed over it (AtomicOutput).
    auto write = [&](const std::string& flag, const std::string& path, auto&& body) {
        AtomicOutput file(flag, path);
        body(file.stream());
        file.commit();
        out << std::left << std::setw(9) << flag.substr(2) << path << "\n";
    };
    if (files.timeline)
        write("--timeline", *files.timeline, [&](std::ostream& o) { write_timeline(o, view, layers, power); });
    if (files.svg) write("--svg", *files.svg, [&](std::ostream& o) { write_svg(o, view, name, power); });
    if (files.roofline)
        write("--roofline", *files.roofline, [&](std::ostream& o) { write_roofline_svg(o, report.roofline, name); });
    if (files.report)
        write("--report", *files.report, [&](std::ostream& o) { write_report(o, report, *files.report); });
    if (files.any() && !view.detail.complete) out << "note     " << obs::detail_note(view.detail) << "\n";
}

}  // namespace npuvp
