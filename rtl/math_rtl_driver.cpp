#include "rtl/math_rtl_driver.h"

#include <string>

// Verilator's SystemC model (generated from rtl/npuvp_math_unit.sv).
#include "Vnpuvp_math_unit.h"
#include "verilated_vcd_c.h"

namespace npuvp {

// From the build (rtl/rtl.cmake), the same values Verilator got as -G.
struct MathRtlDriver::Rtl : MathUnit<Vnpuvp_math_unit, NPUVP_RTL_MATH_LANES, 32> {
    using MathUnit::MathUnit;
};

int MathRtlDriver::lanes() { return Rtl::lanes; }
std::uint64_t MathRtlDriver::max_len() { return Rtl::max_len(); }

MathRtlDriver::MathRtlDriver(const sc_core::sc_module_name& name, const sc_core::sc_time& period)
    : sc_core::sc_module(name) {
    if (period.value() < 2)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": the RTL clock period must be at least 2 ps");
    m_rtl = std::make_unique<Rtl>(period);
}

MathRtlDriver::~MathRtlDriver() = default;

std::uint64_t MathRtlDriver::run(MathUnitOp op, std::uint64_t len, const MathOperands& ops) {
    return m_rtl->run(op, len, ops);
}
void MathRtlDriver::pace(rtl::Pacing x, rtl::Pacing y, rtl::Pacing z) { m_rtl->pace(x, y, z); }
void MathRtlDriver::set_watchdog(std::uint64_t limit) { m_rtl->set_watchdog(limit); }
const sc_core::sc_time& MathRtlDriver::period() const { return m_rtl->period(); }
std::uint64_t MathRtlDriver::commands() const { return m_rtl->commands(); }
std::uint64_t MathRtlDriver::cycles() const { return m_rtl->cycles(); }
void MathRtlDriver::trace_rtl(VerilatedVcdC& vcd) { m_rtl->model().trace(&vcd, 99); }

}  // namespace npuvp
