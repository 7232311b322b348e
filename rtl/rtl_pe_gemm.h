// impl: rtl.pe_gemm (docs/rtl.md) — PE_GEMM whose engine is the RTL GEMM
// array (rtl/npuvp_gemm_array.sv), Verilated in SystemC mode, in the same run
// as the rest of the machine's C++ models.
//
// It takes the same tile tokens as builtin.pe_gemm from the same inbox and
// holds accel_slot the same way — its worker is a BlockingComputeWorker, so the slot,
// engine_start / engine_complete, busy time and the VCD shadow signals are
// the builtin's code — but its compute time is the RTL's: the worker runs the
// tile's m×k×n command through the array, clocked at the PE's gemm freq_ghz,
// until the RTL raises done. Without data mode the operand streams carry
// zeros; in data mode (docs/workload.md "Operand data") they carry the
// tile's int8 operands from TCM and the int32 results go to the PE's
// register file (modules/pe/pe_data.h). The cycle count depends on the
// values only with zero skipping (`zero_skip`, docs/rtl.md).
//
// This is the wrapper to copy for another Verilog block (docs/rtl.md,
// "Adapter contract").
#pragma once

#include <cstdint>

#include "modules/common/rtl_block.h"
#include "modules/pe/pe_gemm.h"
#include "rtl/gemm_rtl_driver.h"

namespace npuvp {

class RtlPeGemm : public PeGemm, public RtlBlock {
public:
    // Parameters: config.rows / cols must be the RTL's (checked at load,
    // rtl/rtl_impls.cpp); config.freq_ghz sets the clock; fill_cycles is
    // not used (the RTL has its own latency); `watchdog_cycles` (the impl's
    // attrs.watchdog_cycles) is the watchdog's limit per command, 0 automatic;
    // `zero_skip` (attrs.zero_skip) turns on the RTL's zero skipping.
    RtlPeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config,
              std::uint64_t watchdog_cycles, bool zero_skip, TraceSink& trace, RunStatus& status);

    // The RTL clock period at `freq_ghz`: 1000 / freq_ghz ps to the nearest
    // whole ps (the kernel's resolution).
    static sc_core::sc_time clock_period(double freq_ghz);

    RtlBlock* rtl() override { return this; }
    std::uint64_t rtl_cycles() const override { return m_driver.cycles(); }
    void trace_rtl(VerilatedVcdC& vcd) override { m_driver.trace_rtl(vcd); }

    const GemmRtlDriver& driver() const { return m_driver; }

private:
    GemmRtlDriver m_driver;  // the Verilated array, sip0.cube0.peX.pe_gemm.rtl.array
};

}  // namespace npuvp
