// RTL co-simulation as the rest of npuvp sees it (docs/rtl.md). The
// implementations live in rtl/ and are built when the CMake option NPUVP_RTL
// is on (Verilator found); otherwise rtl/rtl_off.cpp stands in, so that a
// topology naming rtl.* or a --vcd-rtl gets a clear error instead.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "modules/common/rtl_block.h"
#include "platform/platform.h"

namespace npuvp {

class ImplRegistry;

// Registers the rtl.* factories (or, without Verilator, names them as
// unavailable). Called once, by builtin_registry().
void add_rtl_impls(ImplRegistry& registry);

// Whether this build has the RTL co-simulation (NPUVP_RTL).
bool rtl_built();

// The platform's blocks whose model is Verilated RTL, in node-id order.
inline std::vector<RtlBlock*> rtl_blocks(const Platform& platform) {
    std::vector<RtlBlock*> blocks;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes)
                for (RtlBlock* b : pe->rtl_blocks()) blocks.push_back(b);
    return blocks;
}

// --vcd-rtl FILE: one VCD of every RTL block's internal signals (Verilator
// tracing), its time in ps as the platform's --vcd. Create it before
// sc_start(); it opens the file when the simulation starts (Verilator traces
// only elaborated models) and closes it when destroyed. Throws ConfigError
// if `blocks` is empty or the file cannot be written.
class RtlWaves {
public:
    virtual ~RtlWaves() = default;
};
std::unique_ptr<RtlWaves> open_rtl_waves(const std::string& path,
                                         const std::vector<RtlBlock*>& blocks);

}  // namespace npuvp
