// The one trace sink of a run (SPEC §7, seed 000 §D7). Modules emit events
// through it; the CLI decides whether they are written (--trace FILE). When
// no stream is attached, emit() returns at once: tracing costs one branch.
//
// Format: JSON lines, one event per line, fields in a fixed order, times in
// integer picoseconds, so the same run writes the same bytes every time.
//   {"t_ps":1500,"ev":"engine_start","node":"sip0.cube0.pe3.pe_dma","cmd":7,"tile":2,"stage":"DMA_READ"}
// `cmd` and `tile` are -1 when they do not apply; optional fields (`stage`,
// `cause`, `bytes`, `peer`, `detail`) are written only when set.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace npuvp {

struct TraceEvent {
    std::uint64_t t_ps = 0;
    const char* ev = "";            // event name, e.g. "engine_start"
    const std::string* node = nullptr;  // node id of the emitter
    std::int64_t cmd = -1;
    std::int64_t tile = -1;
    const char* stage = nullptr;    // stage or engine channel
    const char* cause = nullptr;    // for waits: "resource", "dependency", ...
    std::int64_t bytes = -1;
    const std::string* peer = nullptr;  // the other node (a transfer's target, a holder)
    const std::string* detail = nullptr;
};

class TraceSink {
public:
    TraceSink() = default;
    explicit TraceSink(std::ostream* out) : m_out(out) {}

    void attach(std::ostream* out) { m_out = out; }
    bool enabled() const { return m_out != nullptr; }
    std::uint64_t events() const { return m_events; }

    void emit(const TraceEvent& event) {
        if (m_out != nullptr) write(event);
    }

private:
    void write(const TraceEvent& event);

    std::ostream* m_out = nullptr;
    std::uint64_t m_events = 0;
};

}  // namespace npuvp
