// Drives the RTL GEMM array (rtl/npuvp_gemm_array.sv, Verilated in SystemC
// mode as class V with parameters ROWS, COLS, DIM_W) through the adapter
// pieces (rtl/rtl_adapter.h): command, the A and B operand streams, the C
// result stream, done, a gated clock and a watchdog (docs/rtl.md).
//
// A template over the Verilated class, so that one build can hold arrays of
// several sizes (the platform's, and the randomized tests' 4 × 4 and 16 × 8).
// The includer includes V's header.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include <systemc>

#include "modules/common/checked.h"
#include "rtl/rtl_adapter.h"

namespace npuvp {

// One command's operands, row-major: A is m×k, B is k×n, C is m×n. A null A
// or B streams zeros; a null C drops the results.
struct GemmOperands {
    const std::int8_t* a = nullptr;
    const std::int8_t* b = nullptr;
    std::int32_t* c = nullptr;
};

// The array's cycle count for an m×k×n command with A and B always valid and
// C always ready (docs/rtl.md "Timing"), from the edge that takes the
// command to the edge that raises done:
//   cycles = Σ over the first B−1 blocks of max(k, rows_b) + k + rows_last + COLS,
// and 1 when m, k or n is 0.
inline std::uint64_t gemm_array_cycles(int rows, int cols, std::uint64_t m, std::uint64_t k,
                                       std::uint64_t n) {
    if (m == 0 || k == 0 || n == 0) return 1;
    const std::uint64_t R = static_cast<std::uint64_t>(rows), C = static_cast<std::uint64_t>(cols);
    const std::uint64_t row_blocks = ceil_div(m, R), col_blocks = ceil_div(n, C);
    const std::uint64_t rows_last = m - (row_blocks - 1) * R;
    // Every block but the last: (row_blocks − 1)·col_blocks full-row ones,
    // col_blocks − 1 of the last row of blocks. Saturates (32-bit ports: it
    // cannot overflow for DIM_W < 21; above, a saturated count is only a
    // watchdog limit).
    const std::uint64_t full = sat_mul(sat_mul(row_blocks - 1, col_blocks), std::max(k, R));
    const std::uint64_t edge = sat_mul(col_blocks - 1, std::max(k, rows_last));
    return sat_add(sat_add(full, edge), k + rows_last + C);
}

// The array's cycle count with zero skipping (docs/rtl.md "Zero skipping")
// for an m×k×n command whose A (m×k, row-major) is `a`: a block of column
// block ≥ 1 whose row block's A is all zero takes one (virtual) beat, k_b =
// 1, the others k_b = k; the bubble after block b is max(0, rows_b −
// k_(b+1)), so
//   cycles = k_first + Σ over consecutive blocks (b, b+1) of max(k_(b+1), rows_b) + rows_last + COLS.
inline std::uint64_t gemm_array_cycles_zero_skip(int rows, int cols, std::uint64_t m, std::uint64_t k,
                                                 std::uint64_t n, const std::int8_t* a) {
    if (m == 0 || k == 0 || n == 0) return 1;
    const std::uint64_t R = static_cast<std::uint64_t>(rows), C = static_cast<std::uint64_t>(cols);
    const std::uint64_t row_blocks = ceil_div(m, R), col_blocks = ceil_div(n, C);
    std::uint64_t cycles = 0, prev_rows = 0;
    bool first = true;
    for (std::uint64_t rb = 0; rb < row_blocks; ++rb) {
        const std::uint64_t rows_b = std::min(R, m - rb * R);
        bool zero = true;
        for (std::uint64_t i = rb * R; i < rb * R + rows_b && zero; ++i)
            for (std::uint64_t kk = 0; kk < k && zero; ++kk) zero = a[i * k + kk] == 0;
        for (std::uint64_t cb = 0; cb < col_blocks; ++cb) {
            const std::uint64_t kb = zero && cb > 0 ? 1 : k;
            cycles = sat_add(cycles, first ? kb : std::max(kb, prev_rows));
            first = false;
            prev_rows = rows_b;
        }
    }
    return sat_add(cycles, prev_rows + C);
}

template <class V, int ROWS, int COLS, int DIM_W>
class GemmArray {
    static_assert(ROWS >= 1 && COLS >= 1 && DIM_W >= 1 && DIM_W <= 31,
                  "unsupported RTL GEMM parameters");

public:
    static constexpr int rows = ROWS;
    static constexpr int cols = COLS;
    static constexpr std::uint32_t max_dim() { return (1u << DIM_W) - 1; }
    // The watchdog's limit when none is set: 8 × the command's cycle count
    // without gaps or back-pressure, + 64.
    static std::uint64_t auto_limit(std::uint32_t m, std::uint32_t k, std::uint32_t n) {
        return sat_add(sat_mul(8, gemm_array_cycles(ROWS, COLS, m, k, n)), 64);
    }

    // Built inside the owning module's constructor: the Verilated model is
    // its child "array", the signals "clk", "cmd_valid", ...
    explicit GemmArray(const sc_core::sc_time& period)
        : m_array("array"),
          m_clock(period),
          m_cmd(m_cmd_valid, m_cmd_ready),
          m_a(m_a_valid, m_a_ready, m_a_data, rtl::BeatOrder{0, 1, 2}),
          m_b(m_b_valid, m_b_ready, m_b_data, rtl::BeatOrder{0, 1, 2}),
          m_c(m_c_valid, m_c_ready, m_c_data, rtl::BeatOrder{0, 1, 2}, "C rows"),
          m_skip(m_ab_skip, m_a, m_b, m_k) {
        m_array.clk(m_clock.clk);
        m_array.rst_n(m_clock.rst_n);
        m_array.cmd_valid(m_cmd_valid);
        m_array.cmd_ready(m_cmd_ready);
        m_array.cmd_m(m_cmd_m);
        m_array.cmd_k(m_cmd_k);
        m_array.cmd_n(m_cmd_n);
        m_array.cmd_zskip(m_cmd_zskip);
        m_array.ab_skip(m_ab_skip);
        m_array.a_valid(m_a_valid);
        m_array.a_ready(m_a_ready);
        m_array.a_data(m_a_data);
        m_array.b_valid(m_b_valid);
        m_array.b_ready(m_b_ready);
        m_array.b_data(m_b_data);
        m_array.c_valid(m_c_valid);
        m_array.c_ready(m_c_ready);
        m_array.c_data(m_c_data);
        m_array.done(m_done);
        // The array's beat order (docs/rtl.md "Ports and handshake"): blocks
        // in row-major order (row block, column block); within a block, A
        // and B beats kk = 0 … k−1 and C rows r = 0 … (rows left in m) − 1.
        m_a.set_fill([this](const rtl::BeatOrder& o) -> const AData& {
            m_a_pack.clear();
            const std::uint64_t kk = o.at(2);
            for (int lane = 0; lane < ROWS; ++lane) {
                const std::uint64_t i = o.at(0) * ROWS + lane;
                if (i < m_m)
                    m_a_pack.set(lane, static_cast<std::uint8_t>(m_ops.a[i * m_k + kk]));
            }
            return m_a_pack.value();
        });
        m_b.set_fill([this](const rtl::BeatOrder& o) -> const BData& {
            m_b_pack.clear();
            const std::uint64_t kk = o.at(2);
            for (int lane = 0; lane < COLS; ++lane) {
                const std::uint64_t j = o.at(1) * COLS + lane;
                if (j < m_n)
                    m_b_pack.set(lane, static_cast<std::uint8_t>(m_ops.b[kk * m_n + j]));
            }
            return m_b_pack.value();
        });
        m_c.order().set_present(
            [this](const rtl::BeatOrder& o) { return o.at(0) * ROWS + o.at(2) < m_m; });
        m_c.set_take([this](const rtl::BeatOrder& o, const CData& value) {
            const std::uint64_t i = o.at(0) * ROWS + o.at(2);
            for (int lane = 0; lane < COLS; ++lane) {
                const std::uint64_t j = o.at(1) * COLS + lane;
                if (j < m_n)
                    m_ops.c[i * m_n + j] = static_cast<std::int32_t>(rtl::lane_bits<32>(value, lane));
            }
        });
    }

    // Input gaps on A and B, back-pressure on C (tests; the platform keeps
    // Pacing::none()).
    void pace(rtl::Pacing a, rtl::Pacing b, rtl::Pacing c) {
        m_a.pace(a);
        m_b.pace(b);
        m_c.pace(c);
    }
    // Zero skipping (the RTL's cmd_zskip) for the next commands.
    void set_zero_skip(bool on) { m_zero_skip = on; }
    // Blocks the RTL skipped, in all.
    std::uint64_t skipped_blocks() const { return m_skipped_blocks; }
    // The watchdog's limit in cycles per command; 0: auto_limit().
    void set_watchdog(std::uint64_t limit) { m_watchdog = limit; }
    std::uint64_t watchdog_limit(std::uint32_t m, std::uint32_t k, std::uint32_t n) const {
        return m_watchdog ? m_watchdog : auto_limit(m, k, n);
    }

    // Runs one m×k×n command; from an SC_THREAD. Returns the RTL's cycles
    // (gemm_array_cycles() without gaps or back-pressure), after exactly that
    // many periods of simulated time. With k = 0 (and m, n > 0) C is m×n
    // zeros: the array moves no data and raises done on the command's edge,
    // and the driver writes the zeros. Throws std::runtime_error if a
    // dimension exceeds max_dim() or the RTL breaks its handshake, and
    // rtl::RtlAbort when the watchdog fires (the RTL is reset by then).
    std::uint64_t run(std::uint32_t m, std::uint32_t k, std::uint32_t n, const GemmOperands& ops) {
        if (m > max_dim() || k > max_dim() || n > max_dim())
            throw std::runtime_error("GEMM " + std::to_string(m) + "x" + std::to_string(k) + "x" +
                                     std::to_string(n) + " does not fit the RTL's " +
                                     std::to_string(DIM_W) + "-bit dimension ports (at most " +
                                     std::to_string(max_dim()) + ")");
        m_m = m;
        m_k = k;
        m_n = n;
        m_ops = ops;
        const bool work = m != 0 && k != 0 && n != 0;
        const std::uint64_t row_blocks = work ? (m + ROWS - 1) / ROWS : 0;
        const std::uint64_t col_blocks = work ? (n + COLS - 1) / COLS : 0;
        m_a.carry_data(ops.a != nullptr);
        m_b.carry_data(ops.b != nullptr);
        m_c.collect(ops.c != nullptr);
        m_a.order().start({row_blocks, col_blocks, k});
        m_b.order().start({row_blocks, col_blocks, k});
        m_c.order().start({row_blocks, col_blocks, static_cast<std::uint64_t>(ROWS)});
        if (ops.c && k == 0)
            std::fill(ops.c, ops.c + static_cast<std::uint64_t>(m) * n, 0);
        m_cmd_m.write(m);
        m_cmd_k.write(k);
        m_cmd_n.write(n);
        m_cmd_zskip.write(m_zero_skip);
        m_skip.reset();
        const std::array<rtl::Handshake*, 5> parts{&m_cmd, &m_a, &m_b, &m_c, &m_skip};
        const std::uint64_t cycles = rtl::clocked_run(m_clock, parts, m_done, watchdog_limit(m, k, n));
        const std::uint64_t beats = row_blocks * col_blocks * k, result_rows = col_blocks * m;
        if (m_a.moved() + m_a.skipped() != beats || m_b.moved() + m_b.skipped() != beats ||
            m_c.moved() != result_rows)
            throw std::runtime_error("the RTL raised done after " + std::to_string(m_a.moved()) +
                                     (m_a.skipped() ? " (and " + std::to_string(m_a.skipped()) + " skipped)" : "") +
                                     " of " + std::to_string(beats) + " beats and " +
                                     std::to_string(m_c.moved()) + " of " +
                                     std::to_string(result_rows) + " C rows");
        ++m_commands;
        m_cycles += cycles;
        m_skipped_blocks += m_skip.blocks();
        return cycles;
    }

    const sc_core::sc_time& period() const { return m_clock.period(); }
    std::uint64_t commands() const { return m_commands; }
    std::uint64_t cycles() const { return m_cycles; }
    V& model() { return m_array; }

private:
    using Dim = rtl::value_of<decltype(std::declval<V&>().cmd_m)>;
    using AData = rtl::value_of<decltype(std::declval<V&>().a_data)>;
    using BData = rtl::value_of<decltype(std::declval<V&>().b_data)>;
    using CData = rtl::value_of<decltype(std::declval<V&>().c_data)>;

    V m_array;
    rtl::GatedClock m_clock;
    sc_core::sc_signal<bool> m_cmd_valid{"cmd_valid"}, m_cmd_ready{"cmd_ready"};
    sc_core::sc_signal<Dim> m_cmd_m{"cmd_m"}, m_cmd_k{"cmd_k"}, m_cmd_n{"cmd_n"};
    sc_core::sc_signal<bool> m_a_valid{"a_valid"}, m_a_ready{"a_ready"};
    sc_core::sc_signal<AData> m_a_data{"a_data"};
    sc_core::sc_signal<bool> m_b_valid{"b_valid"}, m_b_ready{"b_ready"};
    sc_core::sc_signal<BData> m_b_data{"b_data"};
    sc_core::sc_signal<bool> m_c_valid{"c_valid"}, m_c_ready{"c_ready"};
    sc_core::sc_signal<CData> m_c_data{"c_data"};
    sc_core::sc_signal<bool> m_done{"done"};
    sc_core::sc_signal<bool> m_cmd_zskip{"cmd_zskip"}, m_ab_skip{"ab_skip"};
    rtl::LanePacker<AData, ROWS, 8> m_a_pack;
    rtl::LanePacker<BData, COLS, 8> m_b_pack;
    rtl::CommandPort m_cmd;
    rtl::StreamSource<AData> m_a;
    rtl::StreamSource<BData> m_b;
    rtl::StreamSink<CData> m_c;

    // Zero skipping: on an edge with ab_skip high, A and B drop the block's
    // k beats (the RTL takes none of them).
    class BlockSkip final : public rtl::Handshake {
    public:
        BlockSkip(const sc_core::sc_signal<bool>& skip, rtl::StreamSource<AData>& a, rtl::StreamSource<BData>& b,
                  const std::uint64_t& k)
            : m_skip(skip), m_a(a), m_b(b), m_k(k) {}
        void reset() { m_blocks = 0; }
        std::uint64_t blocks() const { return m_blocks; }
        void begin() override {}
        void before_edge() override { m_skips = m_skip.read(); }
        void after_edge(std::uint64_t edge) override {
            if (!m_skips) return;
            m_a.skip(m_k, edge);
            m_b.skip(m_k, edge);
            ++m_blocks;
        }
        void idle() override {}

    private:
        const sc_core::sc_signal<bool>& m_skip;
        rtl::StreamSource<AData>& m_a;
        rtl::StreamSource<BData>& m_b;
        const std::uint64_t& m_k;
        bool m_skips = false;
        std::uint64_t m_blocks = 0;
    };

    GemmOperands m_ops;
    std::uint64_t m_m = 0, m_k = 0, m_n = 0;
    std::uint64_t m_watchdog = 0;
    std::uint64_t m_commands = 0, m_cycles = 0;
    bool m_zero_skip = false;
    std::uint64_t m_skipped_blocks = 0;
    BlockSkip m_skip;  // after m_a, m_b, m_k: it refers to them
};

}  // namespace npuvp
