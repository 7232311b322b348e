// TileToken and InflightCommand (seed 000 §D6; SPEC §5): a token carries its
// plan through the PE's stages; each stage does its work and hands the token
// to the next stage's inbox; the last stage calls complete_tile() exactly
// once. The scheduler sees only the feed and the completion.
//
// A simple command (DmaRead, DmaWrite, Gemm, Math, IPCQ send / receive) is a
// one-token command whose plan has one stage, so one mechanism serves both
// dispatch modes. Tokens are pooled by PE_SCHEDULER: none is allocated per
// tile in steady state.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "modules/pe/command.h"
#include "modules/pe/tile_plan.h"

namespace npuvp {

class InflightCommand;
class PipelineSignal;

// Why a command is not running yet (SPEC §6: every wait has a recorded cause).
// `feed`: a composite queued behind another composite whose tiles the feed
// loop is still feeding (one command's tiles at a time, seed 000 D3.2).
enum class WaitCause : std::uint8_t { none, context, dependency, resource, bank, feed };
constexpr std::size_t wait_cause_count = 6;
const char* to_string(WaitCause cause);

struct TileToken {
    InflightCommand* cmd = nullptr;
    TilePlan plan;
    std::uint32_t stage_idx = 0;
    std::uint64_t in_buf = 0;   // reserved-TCM input buffer (valid if plan.in_bytes)
    std::uint64_t out_buf = 0;  // reserved-TCM output buffer (valid if plan.out_bytes)
    std::uint64_t panel_buf = 0;  // the operand panel it uses (freed by the panel_last token)
    // With more than one read channel a later token's DMA_READ may end
    // before the one that loads its panel tile (seed 000 D3.2, D5.1;
    // docs/timing.md "Operand reuse"). PE_SCHEDULER then sets, for a token
    // of a panel: the panel (freed after its last token completes, whatever
    // the order), and for a loader the flag its DMA_READ's end sets, for a
    // user the flag its FETCH waits for, with the signal that wakes it.
    void* panel = nullptr;
    std::uint8_t* panel_loaded = nullptr;
    const std::uint8_t* panel_ready = nullptr;
    PipelineSignal* panel_signal = nullptr;
    const void* owner = nullptr;  // the stage worker holding it; nullptr in a FIFO
    bool completed = false;

    const Stage& stage() const { return plan.stages[stage_idx]; }
};

// Where completed tiles go: PE_SCHEDULER, the only writer of completion state.
class CompletionSink {
public:
    virtual void tile_completed(TileToken& token) = 0;
    // A stage of `token` waits for the engine `resource`, which another token
    // holds (seed 002: every wait has a cause); then, with cmd->awaits_engine
    // set, its engine begins it.
    virtual void stage_waits(TileToken& token, const char* resource) {}
    virtual void stage_granted(TileToken& token) {}

protected:
    ~CompletionSink() = default;
};

// What a wait's detail says (WaitInfo, modules/pe/context_scheduler.h) as
// values, so that a wait checked again, unchanged, is compared without
// making its text: which form of words, and what they name.
struct WaitKey {
    enum class Form : std::uint8_t { text, raw, war, waw, in_order, busy_with, held_by, feed_behind };
    Form form = Form::text;                   // text: the detail is WaitInfo::text itself
    const InflightCommand* other = nullptr;   // the command the words name
    MemRange range{};                         // raw, war, waw: the overlap
    ExecContext context = ExecContext::none;  // in_order, busy_with
    const std::string* name = nullptr;        // held_by: the resource
    bool operator==(const WaitKey& o) const {
        return form == o.form && other == o.other && range.space == o.range.space && range.base == o.range.base &&
               range.bytes == o.range.bytes && context == o.context && name == o.name;
    }
};

// One per submitted command, from its arrival at PE_SCHEDULER to its
// completion: counts its tiles (what seed 000 §D6 calls PipelineContext;
// "context" in npuvp means only an execution context, main / sub / dma, seed 002).
class InflightCommand {
public:
    const Command* command = nullptr;
    std::uint64_t seq = 0;            // dispatch sequence number within the PE (trace `cmd`)
    std::uint64_t total_tiles = 0;
    std::uint64_t completed_tiles = 0;
    // The memory side of its DMA_READ and DMA_WRITE stages (PA or VA).
    MemAddress read_addr;
    MemAddress write_addr;
    MemAddress read_b_addr;  // a composite's B when it has its own place (src_b)
    // What it reads and writes, for hazards (seed 002): the command's
    // `reads` / `writes`, and for a composite on physical addresses also its
    // operands [src, + A and B) and its output [dst, + C).
    std::vector<MemRange> reads;
    std::vector<MemRange> writes;
    // Timing record, written by the scheduler.
    sc_core::sc_time submitted;
    sc_core::sc_time started;
    sc_core::sc_time finished;
    bool done = false;
    bool dispatched = false;
    // A simple command dispatched to an engine that is not free: it has a
    // `resource` wait and starts when its engine begins its stage.
    bool awaits_engine = false;
    // Its (first) engine has begun: from here on it uses its TCM banks.
    bool begun = false;

    // Schedule semantics (seed 002): the command's TCM bank runs (bank,
    // consecutive same-bank accesses), its current wait and the time it has
    // waited, by cause.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> bank_runs;
    WaitCause wait_cause = WaitCause::none;
    std::string wait_detail;
    WaitKey wait_key;  // what wait_detail says, as values (WaitInfo)
    sc_core::sc_time wait_since;
    sc_core::sc_time waited[wait_cause_count];
    // The last thing it waited for before it started (critical path).
    WaitCause gated_cause = WaitCause::none;
    const InflightCommand* gated_by = nullptr;

    void reset(CompletionSink& sink) {
        m_sink = &sink;
        completed_tiles = 0;
        done = false;
    }

    ExecContext context() const { return command->context; }

    // Called by the last stage of each token, exactly once per token. A second
    // call for the same token is an invariant violation, reported (SPEC §8).
    void complete_tile(TileToken& token);
    // A stage of `token` waits for an engine held by another token; its engine begins.
    void stage_waits(TileToken& token, const char* resource) { m_sink->stage_waits(token, resource); }
    void stage_granted(TileToken& token) { m_sink->stage_granted(token); }

private:
    CompletionSink* m_sink = nullptr;
};

}  // namespace npuvp
