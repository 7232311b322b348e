#include "rtl/gemm_rtl_driver.h"

#include <string>

// Verilator's SystemC model (generated from rtl/npuvp_gemm_array.sv).
#include "Vnpuvp_gemm_array.h"
#include "verilated_vcd_c.h"

namespace npuvp {

// From the build (rtl/rtl.cmake), the same values Verilator got as -G.
struct GemmRtlDriver::Rtl : GemmArray<Vnpuvp_gemm_array, NPUVP_RTL_GEMM_ROWS,
                                      NPUVP_RTL_GEMM_COLS, NPUVP_RTL_GEMM_DIM_W> {
    using GemmArray::GemmArray;
};

int GemmRtlDriver::rows() { return Rtl::rows; }
int GemmRtlDriver::cols() { return Rtl::cols; }
std::uint32_t GemmRtlDriver::max_dim() { return Rtl::max_dim(); }

GemmRtlDriver::GemmRtlDriver(const sc_core::sc_module_name& name, const sc_core::sc_time& period)
    : sc_core::sc_module(name) {
    if (period.value() < 2)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": the RTL clock period must be at least 2 ps");
    m_rtl = std::make_unique<Rtl>(period);
}

GemmRtlDriver::~GemmRtlDriver() = default;

std::uint64_t GemmRtlDriver::run(std::uint32_t m, std::uint32_t k, std::uint32_t n,
                                 const GemmOperands& ops) {
    return m_rtl->run(m, k, n, ops);
}
void GemmRtlDriver::pace(rtl::Pacing a, rtl::Pacing b, rtl::Pacing c) { m_rtl->pace(a, b, c); }
void GemmRtlDriver::set_watchdog(std::uint64_t limit) { m_rtl->set_watchdog(limit); }
void GemmRtlDriver::set_zero_skip(bool on) { m_rtl->set_zero_skip(on); }
std::uint64_t GemmRtlDriver::skipped_blocks() const { return m_rtl->skipped_blocks(); }
std::uint64_t GemmRtlDriver::watchdog_limit(std::uint32_t m, std::uint32_t k,
                                            std::uint32_t n) const {
    return m_rtl->watchdog_limit(m, k, n);
}
const sc_core::sc_time& GemmRtlDriver::period() const { return m_rtl->period(); }
std::uint64_t GemmRtlDriver::commands() const { return m_rtl->commands(); }
std::uint64_t GemmRtlDriver::cycles() const { return m_rtl->cycles(); }
void GemmRtlDriver::trace_rtl(VerilatedVcdC& vcd) { m_rtl->model().trace(&vcd, 99); }

}  // namespace npuvp
