// Drives the RTL vector unit (rtl/npuvp_math_unit.sv, Verilated in SystemC
// mode as class V with parameters LANES, LEN_W) through the adapter pieces
// (rtl/rtl_adapter.h): command, the x and y operand streams, the z result
// stream, done, a gated clock and a watchdog (docs/rtl.md "rtl.pe_math").
//
// A template over the Verilated class, so that one build can hold units of
// several widths (the platform's and the randomized tests'). The includer
// includes V's header.
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

// The unit's op codes (cmd_op).
enum class MathUnitOp : std::uint8_t { add = 0, mul = 1, relu = 2, pass = 3 };

// PE_MATH's op names the unit runs, and its op for each: add and bias_add
// add y (the bias), mul multiplies, relu clamps at 0, cast copies. false
// for any other op.
inline bool math_unit_op(const std::string& name, MathUnitOp& op) {
    if (name == "add" || name == "bias_add") op = MathUnitOp::add;
    else if (name == "mul") op = MathUnitOp::mul;
    else if (name == "relu") op = MathUnitOp::relu;
    else if (name == "cast") op = MathUnitOp::pass;
    else return false;
    return true;
}
inline const char* math_unit_ops_text() { return "add, bias_add, mul, relu, cast"; }

// Whether an op streams y.
inline bool math_unit_needs_y(MathUnitOp op) { return op == MathUnitOp::add || op == MathUnitOp::mul; }

// One command's operands: x and y of `len` int32 elements, z the results. A
// null x or y streams zeros; a null z drops the results.
struct MathOperands {
    const std::int32_t* x = nullptr;
    const std::int32_t* y = nullptr;
    std::int32_t* z = nullptr;
};

// The unit's cycle count for `len` elements with x and y always valid and z
// always ready: ceil(len / LANES) + 3, and 1 when len is 0.
inline std::uint64_t math_unit_cycles(int lanes, std::uint64_t len) {
    return len == 0 ? 1 : sat_add(ceil_div(len, static_cast<std::uint64_t>(lanes)), 3);
}

template <class V, int LANES, int LEN_W>
class MathUnit {
    static_assert(LANES >= 1 && LEN_W >= 1 && LEN_W <= 32, "unsupported RTL MATH parameters");

public:
    static constexpr int lanes = LANES;
    static constexpr std::uint64_t max_len() { return (std::uint64_t{1} << LEN_W) - 1; }
    // The watchdog's limit when none is set: 8 × the unpaced cycles + 64.
    static std::uint64_t auto_limit(std::uint64_t len) {
        return sat_add(sat_mul(8, math_unit_cycles(LANES, len)), 64);
    }

    // Built inside the owning module's constructor: the Verilated model is
    // its child "unit".
    explicit MathUnit(const sc_core::sc_time& period)
        : m_unit("unit"),
          m_clock(period),
          m_cmd(m_cmd_valid, m_cmd_ready),
          m_x(m_x_valid, m_x_ready, m_x_data, rtl::BeatOrder{0}),
          m_y(m_y_valid, m_y_ready, m_y_data, rtl::BeatOrder{0}),
          m_z(m_z_valid, m_z_ready, m_z_data, rtl::BeatOrder{0}, "z beats") {
        m_unit.clk(m_clock.clk);
        m_unit.rst_n(m_clock.rst_n);
        m_unit.cmd_valid(m_cmd_valid);
        m_unit.cmd_ready(m_cmd_ready);
        m_unit.cmd_op(m_cmd_op);
        m_unit.cmd_len(m_cmd_len);
        m_unit.x_valid(m_x_valid);
        m_unit.x_ready(m_x_ready);
        m_unit.x_data(m_x_data);
        m_unit.y_valid(m_y_valid);
        m_unit.y_ready(m_y_ready);
        m_unit.y_data(m_y_data);
        m_unit.z_valid(m_z_valid);
        m_unit.z_ready(m_z_ready);
        m_unit.z_data(m_z_data);
        m_unit.done(m_done);
        // Beat b, lane l: element b·LANES + l (docs/rtl.md "rtl.pe_math").
        m_x.set_fill([this](const rtl::BeatOrder& o) -> const Data& { return pack(m_ops.x, o.at(0)); });
        m_y.set_fill([this](const rtl::BeatOrder& o) -> const Data& { return pack(m_ops.y, o.at(0)); });
        m_z.set_take([this](const rtl::BeatOrder& o, const Data& value) {
            const std::uint64_t base = o.at(0) * LANES;
            for (int l = 0; l < LANES && base + l < m_len; ++l)
                m_ops.z[base + l] = static_cast<std::int32_t>(rtl::lane_bits<32>(value, l));
        });
    }

    // Input gaps on x and y, back-pressure on z (tests; the platform keeps
    // Pacing::none()).
    void pace(rtl::Pacing x, rtl::Pacing y, rtl::Pacing z) {
        m_x.pace(x);
        m_y.pace(y);
        m_z.pace(z);
    }
    // The watchdog's limit in cycles per command; 0: auto_limit().
    void set_watchdog(std::uint64_t limit) { m_watchdog = limit; }
    std::uint64_t watchdog_limit(std::uint64_t len) const {
        return m_watchdog ? m_watchdog : auto_limit(len);
    }

    // Runs one command of `len` elements; from an SC_THREAD. Returns the
    // RTL's cycles (math_unit_cycles() without gaps or back-pressure), after
    // exactly that many periods of simulated time. Throws std::runtime_error
    // if len exceeds max_len() or the RTL breaks its handshake, and
    // rtl::RtlAbort when the watchdog fires (the RTL is reset by then).
    std::uint64_t run(MathUnitOp op, std::uint64_t len, const MathOperands& ops) {
        if (len > max_len())
            throw std::runtime_error(std::to_string(len) + " elements do not fit the RTL's " +
                                     std::to_string(LEN_W) + "-bit length port (at most " +
                                     std::to_string(max_len()) + ")");
        m_len = len;
        m_ops = ops;
        const std::uint64_t beats = ceil_div(len, LANES);
        const bool y = math_unit_needs_y(op);
        m_x.carry_data(ops.x != nullptr);
        m_y.carry_data(y && ops.y != nullptr);
        m_z.collect(ops.z != nullptr);
        m_x.order().start({beats});
        m_y.order().start({y ? beats : 0});
        m_z.order().start({beats});
        m_cmd_op.write(static_cast<std::uint32_t>(op));
        m_cmd_len.write(static_cast<Len>(len));
        const std::array<rtl::Handshake*, 4> parts{&m_cmd, &m_x, &m_y, &m_z};
        const std::uint64_t cycles = rtl::clocked_run(m_clock, parts, m_done, watchdog_limit(len));
        if (m_x.moved() != beats || m_y.moved() != (y ? beats : 0) || m_z.moved() != beats)
            throw std::runtime_error("the RTL raised done after " + std::to_string(m_x.moved()) +
                                     " of " + std::to_string(beats) + " x beats and " +
                                     std::to_string(m_z.moved()) + " of " + std::to_string(beats) +
                                     " z beats");
        ++m_commands;
        m_cycles += cycles;
        return cycles;
    }

    const sc_core::sc_time& period() const { return m_clock.period(); }
    std::uint64_t commands() const { return m_commands; }
    std::uint64_t cycles() const { return m_cycles; }
    V& model() { return m_unit; }

private:
    using Op = rtl::value_of<decltype(std::declval<V&>().cmd_op)>;
    using Len = rtl::value_of<decltype(std::declval<V&>().cmd_len)>;
    using Data = rtl::value_of<decltype(std::declval<V&>().x_data)>;

    const Data& pack(const std::int32_t* v, std::uint64_t beat) {
        m_pack.clear();
        const std::uint64_t base = beat * LANES;
        for (int l = 0; l < LANES && base + l < m_len; ++l)
            m_pack.set(l, static_cast<std::uint32_t>(v[base + l]));
        return m_pack.value();
    }

    V m_unit;
    rtl::GatedClock m_clock;
    sc_core::sc_signal<bool> m_cmd_valid{"cmd_valid"}, m_cmd_ready{"cmd_ready"};
    sc_core::sc_signal<Op> m_cmd_op{"cmd_op"};
    sc_core::sc_signal<Len> m_cmd_len{"cmd_len"};
    sc_core::sc_signal<bool> m_x_valid{"x_valid"}, m_x_ready{"x_ready"};
    sc_core::sc_signal<Data> m_x_data{"x_data"};
    sc_core::sc_signal<bool> m_y_valid{"y_valid"}, m_y_ready{"y_ready"};
    sc_core::sc_signal<Data> m_y_data{"y_data"};
    sc_core::sc_signal<bool> m_z_valid{"z_valid"}, m_z_ready{"z_ready"};
    sc_core::sc_signal<Data> m_z_data{"z_data"};
    sc_core::sc_signal<bool> m_done{"done"};
    rtl::LanePacker<Data, LANES, 32> m_pack;
    rtl::CommandPort m_cmd;
    rtl::StreamSource<Data> m_x;
    rtl::StreamSource<Data> m_y;
    rtl::StreamSink<Data> m_z;

    MathOperands m_ops;
    std::uint64_t m_len = 0;
    std::uint64_t m_watchdog = 0;
    std::uint64_t m_commands = 0, m_cycles = 0;
};

}  // namespace npuvp
