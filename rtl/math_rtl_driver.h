// The platform's RTL vector unit: rtl/npuvp_math_unit.sv as built (CMake
// NPUVP_RTL_MATH_LANES; LEN_W 32), driven through the adapter pieces
// (rtl/math_unit.h, rtl/rtl_adapter.h; docs/rtl.md "rtl.pe_math").
//
// A module, so that the Verilated unit is sip0.cube0.peX.pe_math.rtl.unit;
// its Verilated class stays out of this header (only math_rtl_driver.cpp
// includes it).
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>

#include "rtl/math_unit.h"
#include "rtl/rtl_adapter.h"

class VerilatedVcdC;

namespace npuvp {

class MathRtlDriver : public sc_core::sc_module {
public:
    // Parameters of the RTL as built (the Verilog parameters LANES, LEN_W).
    static int lanes();
    static std::uint64_t max_len();  // most elements one command carries

    // `period`: the RTL clock period, at least 2 ps.
    MathRtlDriver(const sc_core::sc_module_name& name, const sc_core::sc_time& period);
    ~MathRtlDriver() override;

    // Runs one command of `len` elements through the RTL; from an SC_THREAD.
    // Returns the RTL's cycles (ceil(len / LANES) + 3; 1 for len 0), after
    // that many periods. Throws as MathUnit::run (RtlAbort: the watchdog).
    std::uint64_t run(MathUnitOp op, std::uint64_t len, const MathOperands& ops = {});

    // Input gaps on x and y, back-pressure on z (tests; default none).
    void pace(rtl::Pacing x, rtl::Pacing y, rtl::Pacing z);
    // The watchdog's limit per command in cycles; 0 (default): 8 × the
    // command's cycles without gaps or back-pressure + 64.
    void set_watchdog(std::uint64_t limit);

    const sc_core::sc_time& period() const;
    std::uint64_t commands() const;
    std::uint64_t cycles() const;

    // --vcd-rtl: registers the Verilated unit's signals (every level).
    void trace_rtl(VerilatedVcdC& vcd);

private:
    struct Rtl;  // MathUnit<the Verilated unit, LANES, LEN_W>
    std::unique_ptr<Rtl> m_rtl;
};

}  // namespace npuvp
