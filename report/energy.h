// Energy and power of a run (docs/outputs.md "Energy and power"; issue 20
// point 3): the run's action counts times the topology's per-action energies
// (`energy:`, EnergyConfig), plus static power over the makespan. Dynamic
// energy: MACs by operand dtype (GEMM), PE_MATH elements times their op's
// `op_cost` cycles, bytes read and written at HBM and shared SRAM (every
// command's DMA by where it lies, and the host's memory requests), bytes
// through each PE's TCM ports, bytes per NoC link crossed (mesh and attach),
// per UCIe and off-chip crossing, and one descriptor per DMA transfer.
// Static: every PE, HBM slice and cube of the topology, for the makespan.
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
    double average_w() const { return makespan_ps ? total_pj / static_cast<double>(makespan_ps) : 0.0; }  // pJ/ps = W
    double edp_js() const { return total_pj * 1e-12 * static_cast<double>(makespan_ps) * 1e-12; }  // J·s
};

Energy measure_energy(const WorkloadRun& run, const Platform& platform);

// The compute energy of one PE's run of a command: its MACs and MATH elements
// (a layer's rows add its memory bytes to it).
double command_compute_pj(const Command& c, const TopologyConfig& topo);

// The energy of bytes read and written at HBM, and at shared SRAM.
struct LevelBytes;
double hbm_pj(const LevelBytes& b, const EnergyConfig& e);
double sram_pj(const LevelBytes& b, const EnergyConfig& e);

void print_energy(std::ostream& out, const Energy& e);
void write_energy_json(std::ostream& out, const Energy& e);

}  // namespace npuvp
