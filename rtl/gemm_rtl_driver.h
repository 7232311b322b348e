// Drives the RTL GEMM array (rtl/npuvp_gemm_array.sv, Verilated in SystemC
// mode) through its handshake — command, A and B operand streams, C result
// stream, done — and clocks it (docs/rtl.md).
//
// The clock is gated: the thread that calls run() toggles `clk` itself, one
// period per RTL cycle, only while a command is in the array. npuvp runs
// sc_start() until no activity is left, which a free-running sc_clock would
// never allow; between commands the RTL's clock stands still, as a gated
// clock in silicon does. A cycle is a low half, at whose start the inputs
// change, then a high half: the RTL takes its inputs on the rising edge in the
// middle, and the driver reads what the RTL offers just before that edge.
//
// Shared by the rtl.pe_gemm wrapper (tokens carry no data: it streams
// zeros) and the bit-exact tests (int8 matrices in, int32 results out).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>

#include <systemc>

class VerilatedVcdC;

namespace npuvp {

// One command's operands, row-major: A is m×k, B is k×n, C is m×n. A null A
// or B streams zeros; a null C drops the results.
struct GemmOperands {
    const std::int8_t* a = nullptr;
    const std::int8_t* b = nullptr;
    std::int32_t* c = nullptr;
};

class GemmRtlDriver : public sc_core::sc_module {
public:
    // Parameters of the RTL as built (CMake NPUVP_RTL_GEMM_ROWS, _COLS; the
    // Verilog parameters ROWS, COLS, DIM_W).
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
    // done), after exactly that many periods of simulated time. Throws
    // std::runtime_error if a dimension exceeds max_dim() or the RTL breaks
    // its handshake (a result too many, or no done in time).
    std::uint64_t run(std::uint32_t m, std::uint32_t k, std::uint32_t n,
                      const GemmOperands& ops = {});

    // For tests of the C handshake: hold c_ready low in every `every`-th
    // cycle (0: never, the default; the array must then hold still).
    void stall_results(std::uint32_t every) {
        if (every == 1) throw std::invalid_argument("stall_results(1) would never take a row");
        m_stall_every = every;
    }

    const sc_core::sc_time& period() const { return m_period; }
    // Statistics: commands run and RTL cycles clocked, in all.
    std::uint64_t commands() const { return m_commands; }
    std::uint64_t cycles() const { return m_cycles; }

    // --vcd-rtl: registers the Verilated array's signals (every level).
    void trace_rtl(VerilatedVcdC& vcd);

private:
    struct Rtl;  // the Verilated array and the signals bound to its ports
    void reset();

    std::unique_ptr<Rtl> m_rtl;
    sc_core::sc_time m_period, m_low, m_high;
    bool m_reset_done = false;
    std::uint32_t m_stall_every = 0;
    std::uint64_t m_commands = 0;
    std::uint64_t m_cycles = 0;
};

}  // namespace npuvp
