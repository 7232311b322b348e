// Stub engines for the PE_SCHEDULER bench: one thread-mode StageWorker per
// stage type on the PE's inboxes (bound to `inboxes`, as an engine block's
// port), each stage taking a fixed time set by the
// bench, recorded as an interval. They chain and complete tokens through the
// real StageWorker loop (seed 000 §D6), so the scheduler sees exactly what
// real engines would show it: tokens taken from inboxes and complete_tile().
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/stage_worker.h"
#include "testbench/harness/stub_nodes.h"

namespace npuvp::test {

class StubEngines : public sc_core::sc_module {
public:
    struct Interval {
        StageType type;
        std::string command;
        std::uint64_t tile;
        ps_t start_ps;
        ps_t end_ps;
        MemAddress read_addr;   // the context's DMA sides, as the scheduler set them
        MemAddress write_addr;
    };
    std::vector<Interval> intervals;
    std::array<double, stage_type_count> stage_ns{};  // time of one stage, by type

    // Ports: the PE's stage inboxes, shared by every stub worker
    StageInboxPort inboxes;

    StubEngines(const sc_core::sc_module_name& name, TraceSink& trace, RunStatus& status)
        : sc_module(name), inboxes("inboxes"), m_id(this->name()) {
        for (std::size_t i = 0; i < stage_type_count; ++i) {
            m_workers[i] = std::make_unique<Worker>(*this, static_cast<StageType>(i), trace, status);
            m_workers[i]->spawn((std::string("worker_") + std::to_string(i)).c_str());
        }
    }

    // The interval of (command, tile, stage type); nullptr if it never ran.
    const Interval* find(const std::string& command, std::uint64_t tile, StageType type) const {
        for (const Interval& i : intervals)
            if (i.command == command && i.tile == tile && i.type == type) return &i;
        return nullptr;
    }

private:
    class Worker : public ThreadStageWorker {
    public:
        Worker(StubEngines& owner, StageType type, TraceSink& trace, RunStatus& status)
            : ThreadStageWorker(owner.m_id, type, owner.inboxes, trace, status), m_owner(owner) {}

    protected:
        void process(TileToken& token) override {
            const ps_t start = now_ps();
            sc_core::wait(sc_core::sc_time::from_value(
                ns_to_ps(m_owner.stage_ns[static_cast<std::size_t>(token.stage().type)], "a stub stage's time")));
            m_owner.intervals.push_back(
                {token.stage().type, token.cmd->command->id, token.plan.tile_id, start, now_ps(),
                 token.cmd->read_addr, token.cmd->write_addr});
        }

    private:
        StubEngines& m_owner;
    };

    std::string m_id;
    std::array<std::unique_ptr<Worker>, stage_type_count> m_workers;
};

}  // namespace npuvp::test
