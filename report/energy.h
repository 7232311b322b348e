// Energy and power of a run (docs/outputs.md "Energy and power"; issue 20
// point 3): the run's action counts times the topology's per-action energies
// (`energy:`, EnergyConfig), plus static power over the makespan. Dynamic
// energy: MACs by operand dtype (GEMM), PE_MATH elements times their op's
// `op_cost` cycles, bytes read and written at HBM and shared SRAM (every
// command's DMA by where it lies, and the host's memory requests), bytes
// through each PE's TCM ports, bytes per NoC link crossed (mesh and attach),
// per UCIe and off-chip crossing, and one descriptor per DMA transfer.
// Static: every PE, HBM slice and cube of the topology, for the makespan.
//
// Power over time (docs/outputs.md "Power over time"): each command's own
// dynamic energy (its MACs, MATH elements and HBM / SRAM bytes) is spread
// evenly over its span, started to finished; the rest — static power, TCM,
// NoC, UCIe, off-chip, DMA descriptors, the host's memory requests, and any
// command that took no time — evenly over the makespan (the background).
// The peak is the highest average power over any window of the given width
// inside the run.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "modules/pe/command.h"
#include "platform/platform.h"
#include "platform/workload_run.h"

namespace npuvp {

struct Energy {
    struct Part {
        std::string name;   // "GEMM MACs", "HBM", "static", ...
        std::string group;  // "compute", "memory", "interconnect", "static"
        double pj = 0.0;
    };
    std::vector<Part> parts;  // in a fixed order (compute, memory, interconnect, static)
    double total_pj = 0.0;
    std::uint64_t makespan_ps = 0;

    // Each command of the run (WorkloadRun::commands() order) and its own
    // dynamic energy: MACs, MATH elements, HBM and SRAM bytes.
    struct Command {
        std::string pe, id;
        std::uint64_t started_ps = 0, finished_ps = 0;
        double pj = 0.0;
    };
    std::vector<Command> commands;
    double background_w = 0.0;  // what is spread over the whole makespan (see above)
    // The power over time: from each step's time to the next one's, `w`
    // watts; the last step is at the makespan, with the power falling to 0.
    struct Step {
        std::uint64_t at_ps = 0;
        double w = 0.0;
    };
    std::vector<Step> power;
    std::uint64_t window_ps = 0;   // the peak's window (--power-window); the makespan when shorter
    double peak_w = 0.0;           // the highest average power over a window of window_ps
    std::uint64_t peak_from_ps = 0;  // where that window starts (the earliest such window)

    double average_w() const { return makespan_ps ? total_pj / static_cast<double>(makespan_ps) : 0.0; }  // pJ/ps = W
    double edp_js() const { return total_pj * 1e-12 * static_cast<double>(makespan_ps) * 1e-12; }  // J·s
};

// The default width of the peak power's window: 1 µs (--power-window NS).
constexpr std::uint64_t default_power_window_ps = 1000000;

Energy measure_energy(const WorkloadRun& run, const Platform& platform,
                      std::uint64_t window_ps = default_power_window_ps);

// The highest average power over a window of `window_ps` of a power
// profile (Energy::power) ending at `makespan_ps`, and where the earliest
// such window starts. A window wider than the run is the run.
struct PeakPower {
    double w = 0.0;
    std::uint64_t from_ps = 0, window_ps = 0;
};
PeakPower peak_power(const std::vector<Energy::Step>& power, std::uint64_t makespan_ps, std::uint64_t window_ps);

// The compute energy of one PE's run of a command: its MACs and MATH elements
// (a layer's rows add its memory bytes to it).
double command_compute_pj(const Command& c, const TopologyConfig& topo);

// The energy of bytes read and written at HBM, and at shared SRAM.
struct LevelBytes;
double hbm_pj(const LevelBytes& b, const EnergyConfig& e);
double sram_pj(const LevelBytes& b, const EnergyConfig& e);

// The commands with the most energy (pj > 0), largest first (ties in run
// order), at most `n`.
std::vector<const Energy::Command*> top_commands(const Energy& e, std::size_t n);

void print_energy(std::ostream& out, const Energy& e);
// "peak 31.20 W over 1 µs from 2.345 µs" (the terminal's power line).
std::string power_peak_text(const Energy& e);
// `detail`: also every command's energy and the power steps (the report;
// the summary puts a command's energy in its command row).
void write_energy_json(std::ostream& out, const Energy& e, bool detail = false);

}  // namespace npuvp
