// sc_spawn needs the dynamic-process API, which must be asked for before
// the first SystemC header of this translation unit.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/pe/stage_worker.h"

namespace npuvp {

void PipelineContext::complete_tile(TileToken& token) {
    // seed 000 §D6: exactly one complete_tile per token.
    if (token.completed || completed_tiles >= total_tiles) {
        SC_REPORT_ERROR("npuvp/invariant",
                        ("complete_tile() called twice for tile " +
                         std::to_string(token.plan.tile_id) + " of command " +
                         (command ? command->id : std::string("?")))
                            .c_str());
        return;
    }
    token.completed = true;
    ++completed_tiles;
    m_sink->tile_completed(token);
}

void StageWorker::take(TileToken& token) {
    // seed 000 §D6: a token has exactly one owner at a time.
    if (token.owner != nullptr)
        SC_REPORT_ERROR("npuvp/invariant",
                        (m_owner_id + ": took a token that another stage still owns").c_str());
    token.owner = this;
}

void StageWorker::hand_off(TileToken& token) {
    if (token.owner != this)
        SC_REPORT_ERROR("npuvp/invariant",
                        (m_owner_id + ": handed off a token it does not own").c_str());
    token.owner = nullptr;
}

void StageWorker::run() {
    TokenFifo& inbox = *(*m_inboxes)[static_cast<std::size_t>(m_type)];
    for (;;) {
        TileToken* token = inbox.read();
        take(*token);
        for (;;) {
            process(*token);
            if (m_status.failed()) return;  // the run is stopping; leave the token be
            if (++token->stage_idx == token->plan.stages.size()) {
                hand_off(*token);
                token->ctx->complete_tile(*token);
                break;
            }
            const StageType next = token->stage().type;
            if (handles(next)) continue;
            hand_off(*token);
            (*m_inboxes)[static_cast<std::size_t>(next)]->write(token);
            break;
        }
    }
}

void spawn_worker(StageWorker& worker, const char* name) {
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn([&worker] { worker.run(); }, name, &options);
}

void StageWorker::add_traces(sc_core::sc_trace_file* tf, const std::string& prefix) const {
    sc_core::sc_trace(tf, m_active, prefix + ".busy");
    sc_core::sc_trace(tf, m_cmd, prefix + ".cmd");
    sc_core::sc_trace(tf, m_tile, prefix + ".tile");
}

void StageWorker::trace_engine(bool start, const TileToken& token, std::int64_t bytes,
                               const std::string* peer) const {
    const char* ev = start ? "engine_start" : "engine_complete";
    m_active = start;
    m_cmd = m_active ? static_cast<std::int32_t>(token.ctx->seq) : -1;
    m_tile = m_active ? static_cast<std::int32_t>(token.plan.tile_id) : -1;
    m_trace.emit({sc_core::sc_time_stamp().value(), ev, &m_owner_id,
                  static_cast<std::int64_t>(token.ctx->seq),
                  static_cast<std::int64_t>(token.plan.tile_id), to_string(token.stage().type),
                  nullptr, bytes, peer});
}

}  // namespace npuvp
