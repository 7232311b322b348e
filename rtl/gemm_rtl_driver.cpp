#include "rtl/gemm_rtl_driver.h"

#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>

// Verilator's SystemC model (generated from rtl/npuvp_gemm_array.sv).
#include "Vnpuvp_gemm_array.h"
#include "verilated_vcd_c.h"

namespace npuvp {
namespace {

// From the build (rtl/rtl.cmake), the same values Verilator got as -G.
constexpr int kRows = NPUVP_RTL_GEMM_ROWS;
constexpr int kCols = NPUVP_RTL_GEMM_COLS;
constexpr int kDimBits = NPUVP_RTL_GEMM_DIM_W;
static_assert(kRows >= 1 && kCols >= 1 && kDimBits >= 1 && kDimBits <= 31,
              "unsupported RTL GEMM parameters");

// A port's value type as Verilator chose it: bool, uint32_t (up to 32 bits),
// uint64_t (up to 64) or sc_bv<W>. Operand lanes are packed into 32-bit words
// and moved into the port's type, so the driver fits any array size.
template <class Port>
using value_of = typename std::remove_reference_t<Port>::data_type;

[[maybe_unused]] void set_words(std::uint32_t& value, const std::uint32_t* words) { value = words[0]; }
[[maybe_unused]] void set_words(std::uint64_t& value, const std::uint32_t* words) {
    value = words[0] | static_cast<std::uint64_t>(words[1]) << 32;
}
template <int W>
void set_words(sc_dt::sc_bv<W>& value, const std::uint32_t* words) {
    for (int i = 0; i < (W + 31) / 32; ++i) value.set_word(i, words[i]);
}
[[maybe_unused]] std::uint32_t word(const std::uint32_t& value, int) { return value; }
[[maybe_unused]] std::uint32_t word(const std::uint64_t& value, int i) {
    return static_cast<std::uint32_t>(value >> (32 * i));
}
template <int W>
std::uint32_t word(const sc_dt::sc_bv<W>& value, int i) {
    return value.get_word(i);
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

struct GemmRtlDriver::Rtl {
    Vnpuvp_gemm_array array;
    sc_core::sc_signal<bool> clk, rst_n;
    sc_core::sc_signal<bool> cmd_valid, cmd_ready;
    sc_core::sc_signal<value_of<decltype(array.cmd_m)>> cmd_m, cmd_k, cmd_n;
    sc_core::sc_signal<bool> a_valid, a_ready, b_valid, b_ready, c_valid, c_ready, done;
    using AData = value_of<decltype(array.a_data)>;
    using BData = value_of<decltype(array.b_data)>;
    sc_core::sc_signal<AData> a_data;
    sc_core::sc_signal<BData> b_data;
    sc_core::sc_signal<value_of<decltype(array.c_data)>> c_data;
    // Scratch for the next beat (no allocation per beat, even for sc_bv).
    // One spare word: a 33..64-bit port reads two.
    std::array<std::uint32_t, (kRows + 3) / 4 + 1> a_words{};
    std::array<std::uint32_t, (kCols + 3) / 4 + 1> b_words{};
    AData a_value{};
    BData b_value{};
    bool a_zero = true, b_zero = true;  // what a_data / b_data hold now

    Rtl()
        : array("array"), clk("clk"), rst_n("rst_n"), cmd_valid("cmd_valid"),
          cmd_ready("cmd_ready"), cmd_m("cmd_m"), cmd_k("cmd_k"), cmd_n("cmd_n"),
          a_valid("a_valid"), a_ready("a_ready"), b_valid("b_valid"), b_ready("b_ready"),
          c_valid("c_valid"), c_ready("c_ready"), done("done"), a_data("a_data"),
          b_data("b_data"), c_data("c_data") {
        array.clk(clk);
        array.rst_n(rst_n);
        array.cmd_valid(cmd_valid);
        array.cmd_ready(cmd_ready);
        array.cmd_m(cmd_m);
        array.cmd_k(cmd_k);
        array.cmd_n(cmd_n);
        array.a_valid(a_valid);
        array.a_ready(a_ready);
        array.a_data(a_data);
        array.b_valid(b_valid);
        array.b_ready(b_ready);
        array.b_data(b_data);
        array.c_valid(c_valid);
        array.c_ready(c_ready);
        array.c_data(c_data);
        array.done(done);
    }
};

int GemmRtlDriver::rows() { return kRows; }
int GemmRtlDriver::cols() { return kCols; }
std::uint32_t GemmRtlDriver::max_dim() { return (1u << kDimBits) - 1; }

GemmRtlDriver::GemmRtlDriver(const sc_core::sc_module_name& name, const sc_core::sc_time& period)
    : sc_core::sc_module(name),
      m_rtl(std::make_unique<Rtl>()),
      m_period(period),
      m_low(period - sc_core::sc_time::from_value(period.value() / 2)),
      m_high(sc_core::sc_time::from_value(period.value() / 2)) {
    if (period.value() < 2)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": the RTL clock period must be at least 2 ps");
}

GemmRtlDriver::~GemmRtlDriver() = default;

void GemmRtlDriver::trace_rtl(VerilatedVcdC& vcd) { m_rtl->array.trace(&vcd, 99); }

// rst_n is synchronous: one clock pulse with it low, in delta cycles at the
// current time, so the reset costs no simulated time (the RTL VCD shows rst_n
// falling only when the first command comes).
void GemmRtlDriver::reset() {
    Rtl& r = *m_rtl;
    r.rst_n.write(false);
    r.clk.write(true);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    r.clk.write(false);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    r.rst_n.write(true);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    m_reset_done = true;
}

std::uint64_t GemmRtlDriver::run(std::uint32_t m, std::uint32_t k, std::uint32_t n,
                                 const GemmOperands& ops) {
    if (m > max_dim() || k > max_dim() || n > max_dim())
        throw std::runtime_error("GEMM " + std::to_string(m) + "x" + std::to_string(k) + "x" +
                                 std::to_string(n) + " does not fit the RTL's " +
                                 std::to_string(kDimBits) + "-bit dimension ports (at most " +
                                 std::to_string(max_dim()) + ")");
    if (!m_reset_done) reset();
    Rtl& r = *m_rtl;

    const bool work = m != 0 && k != 0 && n != 0;
    const std::uint64_t row_blocks = work ? ceil_div(m, kRows) : 0;
    const std::uint64_t col_blocks = work ? ceil_div(n, kCols) : 0;
    const std::uint64_t beats = row_blocks * col_blocks * k;
    const std::uint64_t result_rows = col_blocks * m;
    // Handshake watchdog: the RTL needs at most max(k, ROWS) cycles per
    // block plus its pipeline depth (rtl/npuvp_gemm_array.sv), twice that
    // when C is stalled every other cycle or less often; twice more, and
    // something is broken.
    const std::uint64_t max_k_rows = k > static_cast<std::uint32_t>(kRows) ? k : kRows;
    const std::uint64_t limit = 2 * (m_stall_every ? 2 : 1) *
                                    (row_blocks * col_blocks * max_k_rows + kRows + kCols) +
                                16;

    // Where the next beat and the next result row come from / go to:
    // blocks in row-major order over (row block, column block).
    std::uint64_t fed = 0, received = 0;
    std::uint32_t kk = 0, feed_rb = 0, feed_cb = 0;
    std::uint32_t row = 0, res_rb = 0, res_cb = 0;

    const auto present_beat = [&] {
        if (ops.a) {
            r.a_words.fill(0);
            for (int lane = 0; lane < kRows; ++lane) {
                const std::uint64_t i = static_cast<std::uint64_t>(feed_rb) * kRows + lane;
                if (i < m)
                    r.a_words[lane / 4] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(
                                               ops.a[i * k + kk]))
                                           << (8 * (lane % 4));
            }
            set_words(r.a_value, r.a_words.data());
            r.a_data.write(r.a_value);
            r.a_zero = false;
        }
        if (ops.b) {
            r.b_words.fill(0);
            for (int lane = 0; lane < kCols; ++lane) {
                const std::uint64_t j = static_cast<std::uint64_t>(feed_cb) * kCols + lane;
                if (j < n)
                    r.b_words[lane / 4] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(
                                               ops.b[static_cast<std::uint64_t>(kk) * n + j]))
                                           << (8 * (lane % 4));
            }
            set_words(r.b_value, r.b_words.data());
            r.b_data.write(r.b_value);
            r.b_zero = false;
        }
        r.a_valid.write(true);
        r.b_valid.write(true);
    };
    const auto next_beat = [&] {
        if (++kk < k) return;
        kk = 0;
        if (++feed_cb < col_blocks) return;
        feed_cb = 0;
        ++feed_rb;
    };
    const auto take_row = [&] {
        if (received == result_rows)
            throw std::runtime_error("the RTL sent more C rows than the command has");
        const std::uint64_t i = static_cast<std::uint64_t>(res_rb) * kRows + row;
        if (ops.c) {
            const auto& c = r.c_data.read();
            for (int lane = 0; lane < kCols; ++lane) {
                const std::uint64_t j = static_cast<std::uint64_t>(res_cb) * kCols + lane;
                if (j < n) ops.c[i * n + j] = static_cast<std::int32_t>(word(c, lane));
            }
        }
        ++received;
        const std::uint64_t rows_in_block = m - static_cast<std::uint64_t>(res_rb) * kRows;
        if (++row < rows_in_block && row < static_cast<std::uint32_t>(kRows)) return;
        row = 0;
        if (++res_cb < col_blocks) return;
        res_cb = 0;
        ++res_rb;
    };

    // Without operands the streams carry zeros (not the last command's data).
    if (!ops.a && !r.a_zero) {
        r.a_words.fill(0);
        set_words(r.a_value, r.a_words.data());
        r.a_data.write(r.a_value);
        r.a_zero = true;
    }
    if (!ops.b && !r.b_zero) {
        r.b_words.fill(0);
        set_words(r.b_value, r.b_words.data());
        r.b_data.write(r.b_value);
        r.b_zero = true;
    }
    r.cmd_m.write(m);
    r.cmd_k.write(k);
    r.cmd_n.write(n);
    r.cmd_valid.write(true);
    if (beats) present_beat();

    std::uint64_t cycles = 0;
    const auto set_c_ready = [&] {
        r.c_ready.write(m_stall_every == 0 || (cycles + 1) % m_stall_every != 0);
    };
    set_c_ready();
    for (;;) {
        // Low half: the inputs settle; just before the rising edge, note
        // which handshakes the edge completes.
        sc_core::wait(m_low);
        const bool cmd_moves = r.cmd_valid.read() && r.cmd_ready.read();
        // a_ready already says b_valid and c_ready (A and B move together,
        // and the array holds while C is held).
        const bool beat_moves = r.a_valid.read() && r.a_ready.read();
        if (r.c_valid.read() && r.c_ready.read()) take_row();
        r.clk.write(true);
        ++cycles;
        // High half; at its end the falling edge starts the next cycle.
        sc_core::wait(m_high);
        r.clk.write(false);
        if (cmd_moves) r.cmd_valid.write(false);
        if (beat_moves) {
            if (++fed < beats) {
                next_beat();
                present_beat();
            } else {
                r.a_valid.write(false);
                r.b_valid.write(false);
            }
        }
        if (r.done.read()) break;
        set_c_ready();
        if (cycles > limit)
            throw std::runtime_error("the RTL did not raise done within " + std::to_string(limit) +
                                     " cycles of a " + std::to_string(m) + "x" +
                                     std::to_string(k) + "x" + std::to_string(n) + " command");
    }
    if (fed != beats || received != result_rows)
        throw std::runtime_error("the RTL raised done after " + std::to_string(fed) + " of " +
                                 std::to_string(beats) + " beats and " +
                                 std::to_string(received) + " of " +
                                 std::to_string(result_rows) + " C rows");
    ++m_commands;
    m_cycles += cycles;
    return cycles;
}

}  // namespace npuvp
