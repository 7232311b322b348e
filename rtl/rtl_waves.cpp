// --vcd-rtl (docs/rtl.md, docs/cli.md): Verilator's own VCD writer in its
// SystemC form (VerilatedVcdSc), which the kernel calls at the end of every
// time step with sc_time_stamp() in the kernel's resolution, 1 ps: the file's
// timescale and times are those of the platform's --vcd. Verilator writes
// FILE.tmp.<pid> beside FILE; closing renames it over FILE (docs/cli.md
// "Outputs": every output file is whole or absent).
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "config/config_error.h"
#include "platform/rtl_support.h"

#include "verilated.h"
#include "verilated_vcd_sc.h"

namespace npuvp {
namespace {

class VerilatorWaves final : public RtlWaves, public sc_core::sc_module {
public:
    VerilatorWaves(const std::string& path, std::vector<RtlBlock*> blocks)
        : sc_core::sc_module(sc_core::sc_module_name("rtl_waves")),
          m_path(path),
          m_tmp(path + ".tmp." + std::to_string(getpid())),
          m_blocks(std::move(blocks)) {
        // Verilator computes the signals only traces need from the first
        // evaluation on, so this comes before sc_start().
        Verilated::traceEverOn(true);
    }
    ~VerilatorWaves() override {
        if (!m_vcd) return;
        m_vcd->close();
        std::rename(m_tmp.c_str(), m_path.c_str());
    }

private:
    // Verilator traces only elaborated models.
    void start_of_simulation() override {
        // The kernel keeps the trace file in its list and calls it every time
        // step for as long as it lives, and VerilatedVcdSc offers no way off
        // that list: it is the kernel's from here on (a closed one writes
        // nothing).
        m_vcd = new VerilatedVcdSc;
        for (RtlBlock* block : m_blocks) block->trace_rtl(*m_vcd);
        m_vcd->open(m_tmp.c_str());
    }

    std::string m_path, m_tmp;
    std::vector<RtlBlock*> m_blocks;
    VerilatedVcdSc* m_vcd = nullptr;
};

}  // namespace

std::unique_ptr<RtlWaves> open_rtl_waves(const std::string& path,
                                         const std::vector<RtlBlock*>& blocks) {
    const SourceLoc where{"command line", 0, 0, ""};
    if (blocks.empty())
        throw ConfigError(where, "--vcd-rtl " + path +
                                     ": the topology has no RTL block (name one with impl: "
                                     "rtl.*, e.g. --set "
                                     "cube.pe_template.components.pe_gemm.impl=rtl.pe_gemm)");
    // Verilator only warns when it cannot open the file; find out now (the
    // folder was checked before the run, check_output_path()).
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    if (!std::ofstream(tmp, std::ios::binary | std::ios::trunc))
        throw ConfigError(where, "--vcd-rtl: cannot write '" + path + "' (cannot create '" + tmp + "')");
    return std::make_unique<VerilatorWaves>(path, blocks);
}

}  // namespace npuvp
