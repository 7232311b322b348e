// impl: rtl.pe_math (docs/rtl.md "rtl.pe_math") — PE_MATH whose engine is
// the RTL vector unit (rtl/npuvp_math_unit.sv), Verilated in SystemC mode, in
// the same run as the rest of the machine's C++ models (and beside an
// rtl.pe_gemm: the two share the PE's accel_slot as the builtins do).
//
// It takes the same tile tokens as builtin.pe_math from the same inbox and
// holds accel_slot the same way (a BlockingComputeWorker); its compute time is
// the RTL's: the worker runs the stage's op over its elements through the unit,
// clocked at the PE's math freq_ghz, until the RTL raises done. Without data
// mode x and y carry zeros; in data mode (docs/workload.md "Operand data")
// x is the register file's tile and y the epilogue's operand from TCM, and
// z goes back to the register file. The cycle count does not depend on the
// values.
#pragma once

#include <cstdint>

#include "modules/common/rtl_block.h"
#include "modules/pe/pe_math.h"
#include "rtl/math_rtl_driver.h"

namespace npuvp {

class RtlPeMath : public PeMath, public RtlBlock {
public:
    // Parameters: config.lanes / lanes_32bit must be the RTL's LANES (checked
    // at load, rtl/rtl_impls.cpp); config.freq_ghz sets the clock;
    // fill_cycles and op_cost are not used (the RTL has its own timing);
    // `watchdog_cycles` (the impl's attrs.watchdog_cycles) is the watchdog's
    // limit per command, 0 automatic.
    RtlPeMath(const sc_core::sc_module_name& name, const PeMathConfig& config,
              std::uint64_t watchdog_cycles, TraceSink& trace, RunStatus& status);

    RtlBlock* rtl() override { return this; }
    std::uint64_t rtl_cycles() const override { return m_driver.cycles(); }
    void trace_rtl(VerilatedVcdC& vcd) override { m_driver.trace_rtl(vcd); }

    const MathRtlDriver& driver() const { return m_driver; }

private:
    MathRtlDriver m_driver;  // the Verilated unit, sip0.cube0.peX.pe_math.rtl.unit
};

}  // namespace npuvp
