#include "rtl/rtl_pe_gemm.h"

#include <cmath>
#include <exception>

namespace npuvp {
namespace {

// The worker of rtl.pe_gemm: it clocks the Verilated model until the RTL says
// done, so it blocks in the middle of a stage and runs as a thread
// (docs/speed.md); the slot, trace and busy accounting are the builtin's
// (modules/pe/compute_worker.h).
class RtlGemmWorker final : public BlockingComputeWorker {
public:
    RtlGemmWorker(const std::string& owner_id, StageInboxPort& inboxes, AccelSlotPort& slot,
                  GemmRtlDriver& driver, TraceSink& trace, RunStatus& status)
        : BlockingComputeWorker(owner_id, StageType::gemm, inboxes, slot, trace, status),
          m_driver(driver) {}

protected:
    void compute(const Stage& stage) override {
        const std::uint64_t max = GemmRtlDriver::max_dim();
        if (stage.m > max || stage.k > max || stage.n > max) {
            status().fail(owner_id(), "GEMM tile " + std::to_string(stage.m) + "x" +
                                          std::to_string(stage.k) + "x" +
                                          std::to_string(stage.n) +
                                          " does not fit the RTL's dimension ports (at most " +
                                          std::to_string(max) + ")");
            return;
        }
        try {
            m_driver.run(static_cast<std::uint32_t>(stage.m), static_cast<std::uint32_t>(stage.k),
                         static_cast<std::uint32_t>(stage.n));
        } catch (const std::exception& e) {
            status().fail(owner_id(), e.what());
        }
    }

private:
    GemmRtlDriver& m_driver;
};

}  // namespace

sc_core::sc_time RtlPeGemm::clock_period(double freq_ghz) {
    return sc_core::sc_time::from_value(
        static_cast<sc_dt::uint64>(std::llround(1000.0 / freq_ghz)));
}

RtlPeGemm::RtlPeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config,
                     TraceSink& trace, RunStatus& status)
    : PeGemm(name, config), m_driver("rtl", clock_period(config.freq_ghz)) {
    adopt_worker(std::make_unique<RtlGemmWorker>(node_id_ref(), inboxes, accel_slot, m_driver,
                                                 trace, status));
}

}  // namespace npuvp
