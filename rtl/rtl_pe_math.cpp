#include "rtl/rtl_pe_math.h"

#include <exception>
#include <string>

#include "modules/pe/pe_data.h"
#include "modules/pe/tile_token.h"
#include "rtl/rtl_pe_gemm.h"

namespace npuvp {
namespace {

// The worker of rtl.pe_math: a thread, as rtl.pe_gemm's (docs/speed.md).
class RtlMathWorker final : public BlockingComputeWorker {
public:
    RtlMathWorker(const std::string& owner_id, StageInboxPort& inboxes, AccelSlotPort& slot,
                  PeData* const& data, MathRtlDriver& driver, std::uint64_t watchdog, sc_core::sc_time command,
                  TraceSink& trace, RunStatus& status)
        : BlockingComputeWorker(owner_id, StageType::math, inboxes, slot, data, command, trace, status),
          m_driver(driver),
          m_watchdog(watchdog) {
        m_driver.set_watchdog(watchdog);
    }

protected:
    void compute(const TileToken& token) override {
        const Stage& stage = token.stage();
        // Built only for a diagnosis (no allocation per tile).
        const auto what = [&] {
            return "command " + token.cmd->command->id + ": MATH " + stage.op + " over " +
                   std::to_string(stage.elements) + " elements";
        };
        MathUnitOp op{};
        if (!math_unit_op(stage.op, op)) {
            status().fail(owner_id(), what() + ": rtl.pe_math runs only " +
                                          math_unit_ops_text() + " (docs/rtl.md)");
            return;
        }
        if (stage.elements > MathRtlDriver::max_len()) {
            status().fail(owner_id(), what() + " do not fit the RTL's length port (at most " +
                                          std::to_string(MathRtlDriver::max_len()) + ")");
            return;
        }
        try {
            // Data mode: x is the register file's tile, y the epilogue's
            // operand from TCM; z goes back to the register file.
            PeData* data = this->data();
            if (data != nullptr && PeData::carries(token)) [[unlikely]] {
                DataMathOp data_op{};
                MathOperands ops;
                std::uint64_t len = 0;
                data->math_operands(token, data_op, ops.x, ops.y, len);
                ops.z = data->math_result_buffer();
                m_driver.run(op, len, ops);
                data->math_result(token);
            } else {
                m_driver.run(op, stage.elements);
            }
        } catch (const rtl::RtlAbort& e) {
            status().fail(owner_id(), what() + rtl::abort_text(e, m_watchdog,
                                                               math_unit_cycles(MathRtlDriver::lanes(),
                                                                                stage.elements)));
        } catch (const std::exception& e) {
            status().fail(owner_id(), what() + ": " + e.what());
        }
    }

private:
    MathRtlDriver& m_driver;
    std::uint64_t m_watchdog;  // attrs.watchdog_cycles
};

}  // namespace

RtlPeMath::RtlPeMath(const sc_core::sc_module_name& name, const PeMathConfig& config,
                     std::uint64_t watchdog_cycles, TraceSink& trace, RunStatus& status)
    : PeMath(name, config), m_driver("rtl", RtlPeGemm::clock_period(config.freq_ghz)) {
    // A simple command's fixed cost (command_cycles) is the C++ model's, at the same clock.
    const sc_core::sc_time command = sc_core::sc_time::from_value(
        cycles_to_ps(static_cast<std::uint64_t>(config.command_cycles), config.freq_ghz, "a MATH command's fixed cost"));
    adopt_worker(std::make_unique<RtlMathWorker>(node_id_ref(), inboxes, accel_slot, data_slot(), m_driver,
                                                 watchdog_cycles, command, trace, status));
}

}  // namespace npuvp
