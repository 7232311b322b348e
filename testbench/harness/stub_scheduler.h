// A stub of PE_SCHEDULER for the pipeline-block benches (SPEC §5; seed 000
// §D6): it owns the PE's eight stage inboxes, feeds hand-made tokens into the
// inbox of each token's first stage at a given time (blocking while that
// inbox is full, as the feed loop does, but with no overhead, no TCM and no
// tiling), and is the CompletionSink that records every complete_tile().
// The block under test runs its real stage workers on these inboxes.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "modules/common/trace.h"
#include "modules/pe/context_scheduler.h"
#include "modules/pe/stage_inboxes.h"
#include "modules/pe/tile_token.h"
#include "testbench/harness/stub_nodes.h"

namespace npuvp::test {

// One stage of a hand-made plan.
inline Stage stage(StageType type, std::uint64_t bytes = 0) {
    Stage s;
    s.type = type;
    s.bytes = bytes;
    return s;
}
inline Stage gemm_stage(std::uint64_t m, std::uint64_t k, std::uint64_t n) {
    Stage s;
    s.type = StageType::gemm;
    s.m = m;
    s.k = k;
    s.n = n;
    return s;
}
inline Stage math_stage(const std::string& op, std::uint64_t elements) {
    Stage s;
    s.type = StageType::math;
    s.op = op;
    s.elements = elements;
    return s;
}

class StubScheduler : public sc_core::sc_module, public CompletionSink {
public:
    struct Completion {
        std::string command;
        std::uint64_t tile = 0;
        ps_t t_ps = 0;
    };
    struct FedToken {
        std::string command;
        std::uint64_t tile = 0;
        ps_t t_ps = 0;  // when the token went into its first inbox
    };
    std::vector<Completion> completions;
    std::vector<FedToken> fed;

    StubScheduler(const sc_core::sc_module_name& name, int inbox_depth, TraceSink& trace)
        : sc_module(name), m_inboxes(this->name(), inbox_depth, trace) {
        SC_HAS_PROCESS(StubScheduler);
        SC_THREAD(feed_loop);
    }

    // The PE's inboxes, as the PE owns them (what a block's `inboxes` binds to).
    StageInboxes& inboxes() { return m_inboxes; }
    TokenFifo& inbox(StageType type) { return m_inboxes.inbox(type); }

    // A command whose tokens (one per plan, tile ids 0, 1, ...) are fed at
    // `at_ps`, after every earlier command's. Returns its context, to set the
    // memory sides of its DMA stages (read_addr / write_addr) or bank runs.
    InflightCommand& command(ps_t at_ps, Command cmd, const std::vector<std::vector<Stage>>& plans) {
        Command& c = m_commands.emplace_back(std::move(cmd));
        InflightCommand& ctx = m_contexts.emplace_back();
        ctx.command = &c;
        ctx.seq = m_contexts.size() - 1;
        ctx.total_tiles = plans.size();
        ctx.reset(*this);
        Feed& feed = m_feeds.emplace_back();
        feed.at_ps = at_ps;
        for (std::size_t i = 0; i < plans.size(); ++i) {
            TileToken& token = m_tokens.emplace_back();
            token.cmd = &ctx;
            token.plan.tile_id = i;
            token.plan.last_tile = i + 1 == plans.size();
            token.plan.stages = plans[i];
            feed.tokens.push_back(&token);
        }
        return ctx;
    }
    // A one-token command with the given stages.
    InflightCommand& command(ps_t at_ps, Command cmd, std::vector<Stage> stages) {
        return command(at_ps, std::move(cmd), std::vector<std::vector<Stage>>{std::move(stages)});
    }

    void tile_completed(TileToken& token) override {
        completions.push_back({token.cmd->command->id, token.plan.tile_id, now_ps()});
        if (token.cmd->completed_tiles == token.cmd->total_tiles) token.cmd->done = true;
    }

    // The completion time of (command, tile); 0 if it never completed.
    ps_t completed_at(const std::string& command, std::uint64_t tile = 0) const {
        for (const Completion& c : completions)
            if (c.command == command && c.tile == tile) return c.t_ps;
        return 0;
    }

private:
    struct Feed {
        ps_t at_ps = 0;
        std::vector<TileToken*> tokens;
    };

    void feed_loop() {
        for (const Feed& feed : m_feeds) {
            wait_until(feed.at_ps);
            for (TileToken* token : feed.tokens) {
                inbox(token->stage().type).write(token);
                fed.push_back({token->cmd->command->id, token->plan.tile_id, now_ps()});
            }
        }
    }

    StageInboxes m_inboxes;
    std::deque<Command> m_commands;
    std::deque<InflightCommand> m_contexts;
    std::deque<TileToken> m_tokens;
    std::deque<Feed> m_feeds;
};

// A stub of the scheduler's BankMonitor (seed 002: main starves sub): the
// bench says when a running main command shares a sub command's bank.
class StubBankMonitor : public BankMonitor {
public:
    bool sub_stalled(const InflightCommand&) const override { return m_stalled; }
    const sc_core::sc_event& bank_event() const override { return m_event; }
    // From a bench thread: the bank is (no longer) shared from now on.
    void set_stalled(bool stalled) {
        m_stalled = stalled;
        m_event.notify(sc_core::SC_ZERO_TIME);
    }

private:
    bool m_stalled = false;
    sc_core::sc_event m_event;
};

// A command of `kind` named `id` (what a token's context points at).
inline Command make_command(const std::string& id, CommandKind kind) {
    Command c;
    c.id = id;
    c.kind = kind;
    c.context = default_context(kind);
    return c;
}

}  // namespace npuvp::test
