// A block whose model is Verilated RTL (impl: rtl.*, docs/rtl.md), as the
// platform sees it: its cycle count for statistics, and its internal signals
// for --vcd-rtl. Verilator's types stay out of every header but rtl/'s.
#pragma once

#include <cstdint>

class VerilatedVcdC;

namespace npuvp {

class RtlBlock {
public:
    virtual ~RtlBlock() = default;
    // RTL clock cycles run so far (every command, from the edge that takes
    // it to the edge that moves its last result).
    virtual std::uint64_t rtl_cycles() const = 0;
    // Registers the RTL's signals with a Verilator trace file that is not
    // open yet; called after elaboration (Verilator's rule).
    virtual void trace_rtl(VerilatedVcdC& vcd) = 0;
};

}  // namespace npuvp
