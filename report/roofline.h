// The roofline (docs/outputs.md "The roofline"; issue 20 point 2): the
// machine's peak compute (per dtype) and peak HBM bandwidth from the
// topology; for the run, each layer of a model and each command (its runs on
// every PE together), the FLOPs, the HBM bytes, the operational intensity
// (FLOPs per HBM byte), the achieved TFLOPS, its roof (min(peak, intensity ·
// bandwidth) of the PEs it ran on) and how far below it the point is.
// `--roofline FILE.svg` draws it; the report and the terminal carry the rows.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/layer_table.h"

namespace npuvp {

struct Roofline {
    // The whole machine (every PE of every cube) and one PE.
    double peak_tflops = 0.0, pe_peak_tflops = 0.0;  // the GEMM array, any dtype
    double hbm_gbs = 0.0, slice_gbs = 0.0;           // every HBM slice; one
    double math_gelems_16 = 0.0, math_gelems_32 = 0.0;  // PE_MATH per PE, 8/16-bit and 32-bit elements

    struct Point {
        std::string name, kind;  // kind: "run", "layer", "command"
        int pes = 0;
        double flops = 0.0, hbm_bytes = 0.0, ns = 0.0;
        double intensity = 0.0;  // FLOPs / HBM byte (0 when it moved none)
        double tflops = 0.0;     // achieved: FLOPs / ns / 1000
        double roof_tflops = 0.0;  // min(its PEs' peak, intensity · their HBM bandwidth)
        double of_roof = 0.0;      // tflops / roof_tflops
        std::string side;          // "memory" (left of the ridge) or "compute"
    };
    std::vector<Point> points;  // the run, then layers, then commands
};

Roofline build_roofline(const WorkloadRun& run, const Platform& platform, const std::vector<LayerResult>& layers);

void print_roofline(std::ostream& out, const Roofline& r);  // the run's point, one line
void write_roofline_json(std::ostream& out, const Roofline& r);
void write_roofline_svg(std::ostream& out, const Roofline& r, const std::string& title);

}  // namespace npuvp
