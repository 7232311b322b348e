#include "rtl/rtl_pe_gemm.h"

#include <cmath>
#include <exception>
#include <string>

#include "modules/common/checked.h"
#include "modules/pe/pe_data.h"
#include "modules/pe/tile_token.h"

namespace npuvp {
namespace {

// The worker of rtl.pe_gemm: it clocks the Verilated model until the RTL says
// done, so it blocks in the middle of a stage and runs as a thread
// (docs/speed.md); the slot, trace and busy accounting are the builtin's
// (modules/pe/compute_worker.h).
class RtlGemmWorker final : public BlockingComputeWorker {
public:
    RtlGemmWorker(const std::string& owner_id, StageInboxPort& inboxes, AccelSlotPort& slot,
                  PeData* const& data, GemmRtlDriver& driver, std::uint64_t watchdog, sc_core::sc_time command,
                  TraceSink& trace, RunStatus& status)
        : BlockingComputeWorker(owner_id, StageType::gemm, inboxes, slot, data, command, trace, status),
          m_driver(driver),
          m_watchdog(watchdog) {
        m_driver.set_watchdog(watchdog);
    }

protected:
    void compute(const TileToken& token) override {
        const Stage& stage = token.stage();
        // Built only for a diagnosis (no allocation per tile).
        const auto what = [&] {
            return "command " + token.cmd->command->id + ": GEMM tile " +
                   std::to_string(stage.m) + "x" + std::to_string(stage.k) + "x" +
                   std::to_string(stage.n);
        };
        const std::uint64_t max = GemmRtlDriver::max_dim();
        if (stage.m > max || stage.k > max || stage.n > max) {
            status().fail(owner_id(), what() + " does not fit the RTL's dimension ports (at most " +
                                          std::to_string(max) + ")");
            return;
        }
        const auto m = static_cast<std::uint32_t>(stage.m), k = static_cast<std::uint32_t>(stage.k),
                   n = static_cast<std::uint32_t>(stage.n);
        try {
            // Data mode: the tile's operands from TCM, its result to the
            // register file (a composite's; a simple GEMM carries none).
            PeData* data = this->data();
            if (data != nullptr && PeData::carries(token)) [[unlikely]] {
                GemmOperands ops;
                data->gemm_operands(token, ops.a, ops.b);
                ops.c = data->gemm_result_buffer(token);
                m_driver.run(m, k, n, ops);
                data->gemm_result(token);
            } else {
                m_driver.run(m, k, n);
            }
        } catch (const rtl::RtlAbort& e) {
            // The run's diagnosis: the PE (owner_id), the command, the cycles.
            status().fail(owner_id(), what() + rtl::abort_text(e, m_watchdog,
                                                               gemm_array_cycles(GemmRtlDriver::rows(),
                                                                                 GemmRtlDriver::cols(), m, k, n)));
        } catch (const std::exception& e) {
            status().fail(owner_id(), what() + ": " + e.what());
        }
    }

private:
    GemmRtlDriver& m_driver;
    std::uint64_t m_watchdog;  // attrs.watchdog_cycles
};

}  // namespace

sc_core::sc_time RtlPeGemm::clock_period(double freq_ghz) {
    return sc_core::sc_time::from_value(checked_u64(std::round(1000.0 / freq_ghz), "an RTL clock period", "ps"));
}

RtlPeGemm::RtlPeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config,
                     std::uint64_t watchdog_cycles, bool zero_skip, TraceSink& trace, RunStatus& status)
    : PeGemm(name, config), m_driver("rtl", clock_period(config.freq_ghz)) {
    m_driver.set_zero_skip(zero_skip);
    // A simple command's fixed cost (command_cycles) is the C++ model's, at the same clock.
    const sc_core::sc_time command = sc_core::sc_time::from_value(
        cycles_to_ps(static_cast<std::uint64_t>(config.command_cycles), config.freq_ghz, "a GEMM command's fixed cost"));
    adopt_worker(std::make_unique<RtlGemmWorker>(node_id_ref(), inboxes, accel_slot, data_slot(), m_driver,
                                                 watchdog_cycles, command, trace, status));
}

}  // namespace npuvp
