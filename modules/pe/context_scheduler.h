// The schedule semantics of seed 002 (SPEC §6) for a PE's simple commands:
// the decision, given what is running and what is waiting, whether a command
// may start now, and if not, why. Pure bookkeeping: PE_SCHEDULER's dispatch
// process asks it, and records waits and dispatches.
//
// A command may start when, in this order of reporting:
//  1. dependency: no earlier command (program order) still in flight has a
//     read-after-write, write-after-read or write-after-write overlap with it
//     (same memory space, overlapping ranges);
//  2. context: its context (main / sub / dma) is free and no earlier command
//     of the context is still waiting (in order, one at a time);
//  3. resource: none of its scheduling resources is held by a running command;
//  4. bank: with a DMA among the commands that would run at once, no TCM bank's
//     sum of consecutive same-bank access runs reaches bank_limit (the DMA
//     would starve: a NoC timeout on hardware). Under `serialize` the command
//     waits; under `detect` it starts and the violation is reported.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "modules/common/config.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

// Why a command waits: its cause, and what the trace's detail says ("RAW on
// tcm [0x800000, +0x640) with ld_x"): kept as values (`key`, whose `other`
// is the command waited for, if one), or as `text` for the rarer forms, and
// made into words only when the wait is new (detail()): a dispatch pass
// checks every waiting command again and most still wait for the same thing.
struct WaitInfo {
    WaitCause cause = WaitCause::none;
    std::string text;  // the detail, for WaitKey::Form::text
    WaitKey key{};
    std::string detail() const;
};

// What a sub-context engine asks while it runs (main starves sub); the
// interface of PE_FETCH_STORE's `banks` port.
class BankMonitor : public virtual sc_core::sc_interface {
public:
    virtual bool sub_stalled(const InflightCommand& sub) const = 0;
    // Notified whenever the set of running commands changes.
    virtual const sc_core::sc_event& bank_event() const = 0;
};

class ContextScheduler {
public:
    ContextScheduler(const PeSchedulerConfig& scheduler, const PeTcmConfig& tcm,
                     const PeDmaConfig& dma)
        : m_scheduler(scheduler), m_tcm(tcm), m_dma(dma) {}

    // The command's per-bank consecutive access runs: from its access
    // pattern, or for a DMA without one, 1 on each of banks_per_transfer banks.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> bank_runs(const Command& command) const;

    // Why `x` cannot start now, or cause none. `inflight` is every command
    // submitted and not complete; `waiting_before` the commands still
    // waiting that come before `x`.
    WaitInfo blocked(const InflightCommand& x, const std::vector<InflightCommand*>& inflight,
                     const std::vector<InflightCommand*>& waiting_before) const;

    // Why `x` must wait for an earlier command in flight (RAW, WAR, WAW on its
    // ranges), or cause none: step 1 of blocked(), also asked for a composite.
    WaitInfo hazard(const InflightCommand& x, const std::vector<InflightCommand*>& inflight) const;

    // A wait whose detail names `other` in `form`.
    static WaitInfo wait_on(WaitCause cause, WaitKey::Form form, const InflightCommand* other, MemRange range = {},
                            ExecContext context = ExecContext::none, const std::string* name = nullptr);

    // Under `detect`: the bank violation starting `x` would cause, if any
    // (`inflight` as for blocked(): its running composites' DMA counts).
    std::optional<std::string> violation(const InflightCommand& x,
                                         const std::vector<InflightCommand*>& inflight) const;

    // A composite about to feed its first tile: the limit its DMA stages
    // would break beside the running commands, if any (the bank rule counts
    // every engine running at once).
    std::optional<std::string> composite_over_limit(const InflightCommand& composite,
                                                    const std::vector<InflightCommand*>& inflight) const;

    void start(InflightCommand& cmd) { m_running.push_back(&cmd); }
    void finish(InflightCommand& cmd);
    const std::vector<InflightCommand*>& running() const { return m_running; }
    const InflightCommand* running_in(ExecContext context) const;

    // Main starves sub (seed 002): a running sub command makes no progress
    // while a running main command whose engine has begun uses one of its banks.
    bool sub_stalled(const InflightCommand& sub) const;

private:
    // Sum per bank over the running commands (+ `extra`), split by context,
    // with whether a DMA is among them; the first bank at or over the limit,
    // if any. A composite of `inflight` whose tiles run (begun, not done)
    // has its DMA stages running: it counts as a DMA, 1 on each of
    // banks_per_transfer banks (seed 002: every engine running at once).
    std::optional<std::string> over_limit(const InflightCommand* extra,
                                          const std::vector<InflightCommand*>& inflight) const;

    const PeSchedulerConfig& m_scheduler;
    const PeTcmConfig& m_tcm;
    const PeDmaConfig& m_dma;
    std::vector<InflightCommand*> m_running;
    // over_limit()'s sums per bank (by context) and the banks it touched,
    // kept between calls: a check allocates nothing once they have grown.
    mutable std::vector<std::array<std::uint64_t, exec_context_count>> m_sums;
    mutable std::vector<std::uint32_t> m_touched;
};

}  // namespace npuvp
