// The platform's RTL GEMM array: rtl/npuvp_gemm_array.sv as built (CMake
// NPUVP_RTL_GEMM_ROWS, _COLS, _DIM_W), driven through the adapter pieces
// (rtl/gemm_array.h, rtl/rtl_adapter.h) — command, A and B operand
// streams, C result stream, done, the gated clock, the watchdog (docs/rtl.md).
//
// A module, so that the Verilated array is sip0.cube0.peX.pe_gemm.rtl.array;
// its Verilated class stays out of this header (only gemm_rtl_driver.cpp
// includes it).
//
// Shared by the rtl.pe_gemm wrapper (zeros, or in data mode the tile's
// operands) and the bit-exact tests (int8 matrices in, int32 results out).
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>

#include "rtl/gemm_array.h"
#include "rtl/rtl_adapter.h"

class VerilatedVcdC;

namespace npuvp {

class GemmRtlDriver : public sc_core::sc_module {
public:
    // Parameters of the RTL as built (the Verilog parameters ROWS, COLS, DIM_W).
    static int rows();
    static int cols();
    static std::uint32_t max_dim();  // largest m, k or n the command ports carry

    // `period`: the RTL clock period, at least 2 ps; the clock is low for the
    // first period − period/2 and high for period/2 (whole ps).
    GemmRtlDriver(const sc_core::sc_module_name& name, const sc_core::sc_time& period);
    ~GemmRtlDriver() override;

    // Runs one m×k×n command through the RTL; call from an SC_THREAD (it
    // waits). Returns the RTL's cycle count, from the edge that takes the
    // command to the edge that moves its last C row (the edge that raises
    // done), after exactly that many periods of simulated time. k = 0 writes
    // m×n zeros to C. Throws std::runtime_error if a dimension exceeds
    // max_dim() or the RTL breaks its handshake, rtl::RtlAbort when the
    // watchdog fires (the RTL has been reset: the next command runs).
    std::uint64_t run(std::uint32_t m, std::uint32_t k, std::uint32_t n,
                      const GemmOperands& ops = {});

    // Zero skipping (docs/rtl.md "Zero skipping"): the RTL's cmd_zskip for
    // the next commands (default off); blocks it skipped, in all.
    void set_zero_skip(bool on);
    std::uint64_t skipped_blocks() const;

    // Input gaps on A and B, back-pressure on C (tests; default none).
    void pace(rtl::Pacing a, rtl::Pacing b, rtl::Pacing c);
    // The watchdog's limit per command in cycles; 0 (default): 8 × the
    // command's cycles without gaps or back-pressure + 64.
    void set_watchdog(std::uint64_t limit);
    std::uint64_t watchdog_limit(std::uint32_t m, std::uint32_t k, std::uint32_t n) const;

    const sc_core::sc_time& period() const;
    // Statistics: commands run and RTL cycles clocked, in all.
    std::uint64_t commands() const;
    std::uint64_t cycles() const;

    // --vcd-rtl: registers the Verilated array's signals (every level).
    void trace_rtl(VerilatedVcdC& vcd);

private:
    struct Rtl;  // GemmArray<the Verilated array, ROWS, COLS, DIM_W>
    std::unique_ptr<Rtl> m_rtl;
};

}  // namespace npuvp
