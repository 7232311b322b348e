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
#include <vector>

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

// A TraceEvent copied into an in-memory log (TraceSink::record_to): every
// field is owned, so later changes to the emitter's strings cannot alter it.
// Absent optional strings are empty; absent integers are -1.
struct RecordedEvent {
    std::uint64_t t_ps = 0;
    std::string ev;
    std::string node;
    std::int64_t cmd = -1;
    std::int64_t tile = -1;
    std::string stage;
    std::string cause;
    std::int64_t bytes = -1;
    std::string peer;
    std::string detail;
};

class TraceSink {
public:
    TraceSink() = default;

    explicit TraceSink(std::ostream* out) : m_out(out), m_on(out != nullptr) {}

    void attach(std::ostream* out) {
        m_out = out;
        m_on = m_out != nullptr || m_log != nullptr;
    }
    // Also (or only) append every event to `log` (nullptr: stop recording);
    // the observability writers (timeline, SVG, report) read it after the run.
    void record_to(std::vector<RecordedEvent>* log) {
        m_log = log;
        m_on = m_out != nullptr || m_log != nullptr;
    }
    bool enabled() const { return m_on; }
    std::uint64_t events() const { return m_events; }  // lines written to the stream

    void emit(const TraceEvent& event) {
        if (m_on) write(event);
    }

private:
    void write(const TraceEvent& event);

    std::ostream* m_out = nullptr;
    std::vector<RecordedEvent>* m_log = nullptr;
    bool m_on = false;
    std::uint64_t m_events = 0;
};

}  // namespace npuvp
