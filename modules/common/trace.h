// The one trace sink of a run (SPEC §7, seed 000 §D7). Modules emit events
// through it; the CLI decides whether they are written (--trace FILE). When
// no stream is attached, emit() returns at once: tracing costs one branch.
//
// Format: JSON lines, one event per line, fields in a fixed order, times in
// integer picoseconds, so the same run writes the same bytes every time.
//   {"t_ps":1500,"ev":"engine_start","node":"sip0.cube0.pe3.pe_dma","cmd":7,"tile":2,"stage":"DMA_READ"}
// `cmd` and `tile` are -1 when they do not apply; optional fields (`stage`,
// `cause`, `bytes`, `peer`, `detail`) are written only when set.
//
// Or binary (TraceFormat::binary, --trace-binary FILE): the same events in
// the same order, about a tenth of the bytes, read back into exactly the
// JSON lines above by binary_trace_to_json_lines (npuvp --trace-to-json).
// It starts with the 8 bytes "NPUVPTB1"; then records, each a tag byte:
//   0xF0 name: table (0 node ids and peers, 1 stage and cause names), key,
//        length, the text's bytes; before the first event that uses the key;
//   0..18 (TraceKind) event: a flags byte (1 stage, 2 cause, 4 bytes,
//        8 peer, 16 detail: which optional fields follow), then t_ps minus
//        the previous event's (zigzag), node key, cmd and tile (zigzag),
//        and the fields flagged: stage key, cause key, bytes, peer key,
//        detail (length and bytes).
// Integers are LEB128 varints (7 bits a byte, low first); zigzag maps a
// signed n to 2n or -2n - 1.
#pragma once

#include <cstdint>
#include <cstring>
#include <istream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

namespace npuvp {

// What happened: one kind per event, written as its name in "ev".
enum class TraceKind : std::uint8_t {
    engine_start,            // an engine begins a tile's stage (DMA, FETCH, STORE, GEMM, MATH, IPCQ)
    engine_complete,         // ... and ends it
    inbox_fill,              // a stage inbox's fill level changed
    command_submitted,       // PE_SCHEDULER took a command
    wait_begin,              // a command starts waiting (cause: context, dependency, resource, bank)
    wait_end,                // ... and stops waiting
    bank_violation,          // a command broke the TCM bank access limit
    sub_command_dispatched,  // a tile token fed to its first stage
    tile_ready,              // a composite's tile left its last stage
    tcm_in_use,              // reserved TCM bytes changed
    command_complete,        // PE_SCHEDULER retired a command
    kernel_start,            // PE_CPU starts a kernel
    kernel_complete,         // ... and finishes it
    fanout_start,            // M_CPU fans a host request out to its PEs
    fanout_complete,         // ... and answers it
    late_response,           // a PE answered a fan-out that had timed out
    request_start,           // IO_CPU issues a host request
    request_complete,        // ... and sees it answered
    control_delivered,       // the probe's control message reached a PE_CPU
};
const char* to_string(TraceKind kind);

class TraceSink;

// An emitter's lane named once: its node id and its stage (an engine
// channel, an inbox's label; none for the node's lane ""), strings that stay
// as they are for the run. An event that points to it (TraceEvent::origin)
// takes its keys from it instead of the sink looking its strings up, and a
// listener may keep its own record of the node and of the lane in it,
// marked as its own. Owned by the emitter; lives as long as the run.
struct TraceOrigin {
    TraceOrigin() = default;
    TraceOrigin(const std::string* node_id, const char* stage_name) : node(node_id), stage(stage_name) {}
    TraceOrigin(const TraceOrigin&) = delete;
    TraceOrigin& operator=(const TraceOrigin&) = delete;

    const std::string* node = nullptr;
    const char* stage = nullptr;
    // Set by the sink that keyed them (TraceNames of `sink`).
    const TraceSink* sink = nullptr;
    std::uint32_t node_key = 0, stage_key = 0;
    // A listener's records of the node and of the lane (`stage`), marked by
    // it (a number of its own, never reused: not its address).
    std::uint64_t listener = 0;
    void* node_record = nullptr;
    void* lane_record = nullptr;
};

// One event as emitted: borrowed strings (the emitter's node id, names),
// nothing allocated. Built by the named builders in npuvp::trace below, which
// fill the fields each kind carries.
struct TraceEvent {
    std::uint64_t t_ps = 0;
    TraceKind kind = TraceKind::engine_start;
    const std::string* node = nullptr;  // node id of the emitter
    std::int64_t cmd = -1;
    std::int64_t tile = -1;
    const char* stage = nullptr;    // stage or engine channel
    const char* cause = nullptr;    // for waits: "resource", "dependency", ...
    std::int64_t bytes = -1;
    const std::string* peer = nullptr;  // the other node (a transfer's target, a holder)
    const std::string* detail = nullptr;
    // Set by the sink as the event goes out (TraceSink::listen): `node`'s
    // and `stage`'s keys in the sink's name tables (TraceNames), so that a
    // listener looks a string up once per string, not once per event; 0
    // when not set (an event that did not come through a sink).
    std::uint32_t node_key = 0, stage_key = 0;
    // The emitter's lane, when it names one: `node` is its node, and
    // `stage` is its stage or another (a node's lane "" may emit events
    // that name a stage).
    TraceOrigin* origin = nullptr;
};

namespace trace {

// An engine interval's ends on `node`: command seq `cmd`, `tile`, `stage`;
// `bytes` moved and the `peer` it moved them to or from (-1 / none for compute).
inline TraceEvent engine_start(std::uint64_t t_ps, const std::string& node, std::int64_t cmd,
                               std::int64_t tile, const char* stage, std::int64_t bytes = -1,
                               const std::string* peer = nullptr) {
    return {t_ps, TraceKind::engine_start, &node, cmd, tile, stage, nullptr, bytes, peer, nullptr};
}
inline TraceEvent engine_complete(std::uint64_t t_ps, const std::string& node, std::int64_t cmd,
                                  std::int64_t tile, const char* stage, std::int64_t bytes = -1,
                                  const std::string* peer = nullptr) {
    return {t_ps, TraceKind::engine_complete, &node, cmd, tile, stage, nullptr, bytes, peer, nullptr};
}
// The fill of the inbox labelled `inbox` (written as "stage"; the count as "bytes").
inline TraceEvent inbox_fill(std::uint64_t t_ps, const std::string& node, const char* inbox,
                             std::int64_t fill) {
    return {t_ps, TraceKind::inbox_fill, &node, -1, -1, inbox, nullptr, fill, nullptr, nullptr};
}
// PE_SCHEDULER's command `seq` of `kind` named `id`.
inline TraceEvent command_submitted(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                                    const char* kind, const std::string& id) {
    return {t_ps, TraceKind::command_submitted, &node, seq, -1, kind, nullptr, -1, nullptr, &id};
}
inline TraceEvent command_complete(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                                   const char* kind, const std::string& id) {
    return {t_ps, TraceKind::command_complete, &node, seq, -1, kind, nullptr, -1, nullptr, &id};
}
// Command `seq` on execution `context` waits for `cause`; `detail` says on what.
inline TraceEvent wait_begin(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                             const char* context, const char* cause, const std::string& detail) {
    return {t_ps, TraceKind::wait_begin, &node, seq, -1, context, cause, -1, nullptr, &detail};
}
inline TraceEvent wait_end(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                           const char* context, const char* cause, const std::string& id) {
    return {t_ps, TraceKind::wait_end, &node, seq, -1, context, cause, -1, nullptr, &id};
}
inline TraceEvent bank_violation(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                                 const char* context, const std::string& detail) {
    return {t_ps, TraceKind::bank_violation, &node, seq, -1, context, "bank", -1, nullptr, &detail};
}
// Tile `tile` of command `seq` fed to `stage`; `id` (the command's name) when given.
inline TraceEvent sub_command_dispatched(std::uint64_t t_ps, const std::string& node,
                                         std::int64_t seq, std::int64_t tile, const char* stage,
                                         const std::string* id = nullptr) {
    return {t_ps, TraceKind::sub_command_dispatched, &node, seq, tile, stage, nullptr, -1, nullptr, id};
}
inline TraceEvent tile_ready(std::uint64_t t_ps, const std::string& node, std::int64_t seq,
                             std::int64_t tile) {
    return {t_ps, TraceKind::tile_ready, &node, seq, tile, nullptr, nullptr, -1, nullptr, nullptr};
}
inline TraceEvent tcm_in_use(std::uint64_t t_ps, const std::string& node, std::int64_t bytes) {
    return {t_ps, TraceKind::tcm_in_use, &node, -1, -1, nullptr, nullptr, bytes, nullptr, nullptr};
}
inline TraceEvent kernel_start(std::uint64_t t_ps, const std::string& node, const std::string& kernel) {
    return {t_ps, TraceKind::kernel_start, &node, -1, -1, nullptr, nullptr, -1, nullptr, &kernel};
}
inline TraceEvent kernel_complete(std::uint64_t t_ps, const std::string& node, const std::string& kernel) {
    return {t_ps, TraceKind::kernel_complete, &node, -1, -1, nullptr, nullptr, -1, nullptr, &kernel};
}
// M_CPU's fan-out of host request `request` (of `kind`); `fanout` is a kernel
// launch's fan-out number (-1 otherwise); `bytes` -1 when none move.
inline TraceEvent fanout_start(std::uint64_t t_ps, const std::string& node, std::int64_t fanout,
                               const char* kind, std::int64_t bytes, const std::string& request) {
    return {t_ps, TraceKind::fanout_start, &node, fanout, -1, kind, nullptr, bytes, nullptr, &request};
}
inline TraceEvent fanout_complete(std::uint64_t t_ps, const std::string& node, const char* kind,
                                  bool timed_out, const std::string& request) {
    return {t_ps,    TraceKind::fanout_complete, &node,   -1,      -1, kind, timed_out ? "timeout" : nullptr,
            -1,      nullptr,                    &request};
}
// A response to fan-out `fanout` from `from`, after it timed out.
inline TraceEvent late_response(std::uint64_t t_ps, const std::string& node, std::int64_t fanout,
                                const std::string& from) {
    return {t_ps, TraceKind::late_response, &node, fanout, -1, nullptr, nullptr, -1, &from, nullptr};
}
// IO_CPU's host request number `index` (of `kind`, named `request`).
inline TraceEvent request_start(std::uint64_t t_ps, const std::string& node, std::int64_t index,
                                const char* kind, std::int64_t bytes, const std::string& request) {
    return {t_ps, TraceKind::request_start, &node, index, -1, kind, nullptr, bytes, nullptr, &request};
}
inline TraceEvent request_complete(std::uint64_t t_ps, const std::string& node, std::int64_t index,
                                   const char* kind, bool timed_out, const std::string& request) {
    return {t_ps, TraceKind::request_complete, &node, index, -1, kind, timed_out ? "timeout" : nullptr,
            -1,   nullptr,                     &request};
}
// The probe's control message `leg` from `from` reached `node` (it carries 0 bytes).
inline TraceEvent control_delivered(std::uint64_t t_ps, const std::string& node, std::int64_t leg,
                                    const std::string& from) {
    return {t_ps, TraceKind::control_delivered, &node, leg, -1, nullptr, nullptr, 0, &from, nullptr};
}

}  // namespace trace

// A TraceEvent copied into an in-memory log (TraceSink::record_to): every
// field is owned, so later changes to the emitter's strings cannot alter it.
// Absent optional strings are empty; absent integers are -1.
struct RecordedEvent {
    std::uint64_t t_ps = 0;
    TraceKind kind = TraceKind::engine_start;
    std::string node;
    std::int64_t cmd = -1;
    std::int64_t tile = -1;
    std::string stage;
    std::string cause;
    std::int64_t bytes = -1;
    std::string peer;
    std::string detail;
};

// Receives every event as it is emitted (TraceSink::listen): the strings
// it points to are borrowed for the call only. The observability outputs'
// recorder (report/run_recorder.h) aggregates the run this way while it
// goes, so memory does not grow with the events.
class TraceListener {
public:
    virtual ~TraceListener() = default;
    virtual void on_trace(const TraceEvent& event) = 0;
    // false: the listener puts what it keeps in order itself (T4's order
    // follows from each lane's order, trace_lane(), and the events'
    // times), so the sink hands it every event at once as it is emitted
    // (a decoupled PE's while its calendar runs ahead), keys set, instead
    // of holding events for the instant's sort. Each lane's events still
    // come in the order the trace has them, and an event's t_ps is its
    // instant.
    virtual bool needs_order() const { return true; }
};

// The lane of its node an event is on (SPEC T4's trace order: at one
// instant, events go out by node, then lane, each lane's in emission
// order): an engine channel or an inbox (its stage, ordered by name), on
// PE_SCHEDULER its simple commands' lane (after every other), or the
// node's lane "" (before every other).
enum class TraceLane : std::uint8_t { none, stage, simple_commands };
TraceLane trace_lane(const TraceEvent& event);

// The strings events point to (node ids, stage names), each given a key the
// first time it is seen. Looked up by address and checked by content, so a
// string is hashed and compared once, not once per event (an emitter's
// string that changes gets the key of its new text). Keys count from 1 in
// order of first sight; "" is key 1. Each key also has an order that sorts
// as its text does (byte-wise, as std::string::compare and strcmp), kept as
// strings are added: a new one takes the middle of the gap between its
// neighbours, and all are spaced out again when a gap runs out.
class TraceNames {
public:
    TraceNames();
    std::uint32_t key(const std::string* text) {
        return text ? key_at(text, text->data(), text->size()) : empty_key;
    }
    std::uint32_t key(const char* text) {
        if (text == nullptr) return empty_key;
        const Slot& slot = m_slots[probe(text)];
        if (slot.address == text) {
            // Byte by byte, stopping at the first difference: never past
            // the end of a shorter text.
            const std::string& known = *m_names[slot.key].text;
            std::size_t i = 0;
            while (i < known.size() && known[i] == text[i]) ++i;
            if (i == known.size() && text[i] == '\0') return slot.key;
        }
        return add(text, text, std::strlen(text));
    }
    std::uint64_t order(std::uint32_t key) const { return m_names[key].order; }
    const std::string& text(std::uint32_t key) const { return *m_names[key].text; }
    // The text as a JSON string, quotes included.
    const std::string& json(std::uint32_t key) const { return m_names[key].json; }

    static constexpr std::uint32_t empty_key = 1;

private:
    std::uint32_t key_at(const void* address, const char* text, std::size_t size) {
        const Slot& slot = m_slots[probe(address)];
        if (slot.address == address) {
            const std::string& known = *m_names[slot.key].text;
            if (known.size() == size && same(known.data(), text, size)) return slot.key;
        }
        return add(address, text, size);
    }
    // memcmp(a, b, n) == 0 inline, a word at a time: node ids are short.
    static bool same(const char* a, const char* b, std::size_t n) {
        for (; n >= 8; a += 8, b += 8, n -= 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            if (x != y) return false;
        }
        for (; n != 0; --n)
            if (*a++ != *b++) return false;
        return true;
    }
    std::size_t probe(const void* address) const {
        const std::size_t mask = m_slots.size() - 1;
        std::size_t i = static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(address) >> 3) *
                                                 0x9E3779B97F4A7C15ull >> 20) & mask;
        while (m_slots[i].address != nullptr && m_slots[i].address != address) i = (i + 1) & mask;
        return i;
    }
    std::uint32_t add(const void* address, const char* text, std::size_t size);
    void space_out();

    struct Name {
        const std::string* text;  // the key in m_sorted
        std::string json;
        std::uint64_t order;
    };
    struct Slot {
        const void* address = nullptr;
        std::uint32_t key = 0;
    };
    std::vector<Name> m_names;  // by key (0 unused)
    std::map<std::string, std::uint32_t, std::less<>> m_sorted;
    std::vector<Slot> m_slots;  // open addressing by address, a power of two
    std::size_t m_used = 0;
};

// Where a decoupled PE's calendar is while it runs ahead of the kernel
// (modules/pe/pipeline_calendar.h): its local instant, the place its events
// take in the trace (TraceSink::run_ahead_of).
class TraceClock {
public:
    virtual std::uint64_t trace_instant() const = 0;

protected:
    ~TraceClock() = default;
};

enum class TraceFormat : std::uint8_t { json_lines, binary };

// Reads a binary trace from `in` and writes to `out` the JSON lines that
// --trace writes for the same run, byte for byte. Returns "" or what is
// wrong with the input (the lines before it are written).
std::string binary_trace_to_json_lines(std::istream& in, std::ostream& out);

class TraceSink {
public:
    TraceSink() = default;

    explicit TraceSink(std::ostream* out, TraceFormat format = TraceFormat::json_lines) { attach(out, format); }
    ~TraceSink() { flush(); }
    TraceSink(const TraceSink&) = delete;
    TraceSink& operator=(const TraceSink&) = delete;

    // Writes the events to `out` (nullptr: stop) in `format`; a binary
    // trace's first bytes at once.
    void attach(std::ostream* out, TraceFormat format = TraceFormat::json_lines);
    // Writes the events held back for the last instant (below) to the
    // stream and the listener. The first event of a later instant does it;
    // whoever reads what was written once sc_start() has returned calls it
    // (the CLI, the bench), and attach() and the destructor do.
    void flush();
    // The run is stopping (sc_stop(): no later delta will flush): writes the
    // held events and every later one straight through.
    void stopping() {
        release_ahead(~std::uint64_t{0});
        m_hold = false;
    }
    // Also (or only) append every event to `log` (nullptr: stop recording),
    // as it is emitted (a decoupled PE's, when its calendar's run is
    // released); tests read it.
    void record_to(std::vector<RecordedEvent>* log) {
        m_log = log;
        update_on();
    }
    // Also (or only) hand every event to `listener` (nullptr: stop), in the
    // stream's order (the observability writers' recorder).
    void listen(TraceListener* listener) {
        m_listener = listener;
        update_on();
    }
    bool enabled() const { return m_on; }
    // Events are held for the instant's sort (a stream, a log or a listener
    // that needs order is attached): a calendar running ahead must then let
    // its kept events go out in windows (the Decoupler).
    bool ordering() const { return m_ordering; }
    std::uint64_t events() const { return m_events; }  // events written to the stream

    // (Events are taken by value and keyed in place: a builder's event is
    // made where the parameter lives, where a copy of what the emitter has
    // just written would wait for its stores.)
    void emit(TraceEvent event) {
        if (m_on) take(event);
    }
    // `event` from the lane `origin` (TraceOrigin).
    void emit(TraceEvent event, TraceOrigin& origin) {
        if (m_on) {
            event.origin = &origin;
            take(event);
        }
    }

    // Decoupled PEs (docs/speed.md "The decoupled pipeline"): while a
    // calendar runs ahead of the kernel (`clock` set), its events are kept
    // with its instant (nullptr: the kernel's own again). They go out where
    // the kernel would have put them: release_ahead(before) puts out the
    // held instant and every kept event of an instant before `before` (the
    // next time anything may happen), by instant and node; one of a later
    // instant waits, and goes out with that instant's held events.
    void run_ahead_of(const TraceClock* clock) { m_clock = clock; }
    void release_ahead(std::uint64_t before);

    // Who flushes an instant's held events once the instant is over
    // (nothing else pending at it): by default a method of the sink's own,
    // spawned at the first event held; `flusher` instead (the Decoupler,
    // which must see the instant over before it runs ahead anyway) is
    // notified a delta after the first event of an instant is held.
    void flush_by(sc_core::sc_event* flusher) { m_flush_event = flusher; }
    bool holding() const { return m_held_used != 0; }

private:
    // Keys `e`, hands it at once to a listener that takes events as they
    // come (needs_order() false), and to write() when a stream, a log or a
    // listener wants the trace's order.
    void take(TraceEvent& e) {
        key(e);
        if (m_direct) {
            m_listener->on_trace(e);
            if (!m_ordering) return;
        }
        write(e);
    }
    // A keyed event, for the trace's order: kept (a calendar running ahead),
    // held for its instant's sort, or straight through.
    void write(const TraceEvent& e);
    // `e`'s node and stage keys: from its origin, or looked up.
    void key(TraceEvent& e) {
        if (TraceOrigin* o = e.origin) {
            if (o->sink != this) {
                o->sink = this;
                o->node_key = m_nodes.key(o->node);
                o->stage_key = m_stages.key(o->stage);
            }
            e.node_key = o->node_key;
            e.stage_key = e.stage == o->stage ? o->stage_key : m_stages.key(e.stage);
            return;
        }
        e.node_key = m_nodes.key(e.node);
        e.stage_key = m_stages.key(e.stage);
    }
    void deliver(const TraceEvent& event);
    void write_line(const TraceEvent& event);
    void write_record(const TraceEvent& event);  // TraceFormat::binary
    // An event's names' keys in m_nodes / m_stages (write_line(), write_record()).
    struct Keys {
        std::uint32_t node, stage, cause, peer;
    };
    Keys keys_of(const TraceEvent& event);
    void write_name(int table, const TraceNames& names, std::uint32_t key, std::vector<std::uint8_t>& named) {
        if (key >= named.size() || !named[key]) name_record(table, names, key, named);
    }
    void name_record(int table, const TraceNames& names, std::uint32_t key, std::vector<std::uint8_t>& named);
    void write_lines();  // the formatted lines (or records) to the stream
    void update_on() {
        m_direct = m_listener != nullptr && !m_listener->needs_order();
        m_ordering = m_out != nullptr || m_log != nullptr || (m_listener != nullptr && !m_direct);
        m_on = m_ordering || m_direct;
    }

    // SPEC T4: events of one instant go out sorted by node and lane (stable:
    // one lane's events keep their order), so the trace depends neither on the
    // order the kernel ran an instant's processes in nor on how an
    // instant's work is cut into delta cycles (a decoupled PE's calendar
    // cuts it into rounds of its own). An event is held back until a later
    // instant begins. A held event
    // owns copies of its peer and detail (the emitter's strings may change
    // before it goes out); the slots are reused, so holding allocates
    // nothing once they have grown.
    struct Held {
        void set(const TraceEvent& e);
        TraceEvent get() const;
        TraceEvent event;  // its peer and detail: as emitted (get() points them here)
        std::string peer, detail;
    };
    std::vector<Held> m_held;
    std::size_t m_held_used = 0;
    std::uint64_t m_held_t = 0;
    // Kept from calendars' runs ahead (run_ahead_of): node ids, stage names
    // and peers borrowed (they live as long as the run), the detail copied
    // (a wait's changes as the run goes; the event's pointer is set to the
    // copy when it goes out: the slots move as the vector grows).
    struct Kept {
        TraceEvent event;
        std::string detail;
        std::uint64_t instant = 0, seq = 0;
    };
    std::vector<Kept> m_kept;
    std::size_t m_kept_used = 0;
    std::uint64_t m_kept_seq = 0;
    // put_out()'s list, reused: integers only, so that sorting it moves
    // and compares no strings. `order` is a kept event's seq, or a held
    // one's index with the top bit set (after every kept one).
    struct Out {
        std::uint64_t instant, order, node, lane;  // node and lane: TraceNames orders
        std::uint32_t index;                       // in m_kept or m_held
    };
    std::vector<Out> m_out_list, m_merged;
    std::vector<std::size_t> m_runs;
    void put_out(std::uint64_t before, bool with_held);
    void sort_out();
    Out out_entry(const TraceEvent& e, std::uint64_t instant, std::uint64_t order, std::uint32_t index) const;
    TraceNames m_nodes, m_stages;  // node ids and peers; stage and cause names
    const TraceClock* m_clock = nullptr;
    std::string m_line;  // formatted lines (or records) not yet written to the stream
    TraceFormat m_format = TraceFormat::json_lines;
    std::vector<std::uint8_t> m_named_nodes, m_named_stages;  // keys a binary trace has named
    std::uint64_t m_last_t = 0;                      // the binary trace's last event's t_ps
    bool m_hold = true;
    void start_flusher();
    void flush_when_over();
    bool m_flusher = false;
    sc_core::sc_event m_held_event;
    sc_core::sc_event* m_flush_event = nullptr;

    std::ostream* m_out = nullptr;
    std::vector<RecordedEvent>* m_log = nullptr;
    TraceListener* m_listener = nullptr;
    bool m_on = false;
    bool m_direct = false;    // m_listener takes events as they are emitted
    bool m_ordering = false;  // events are held and sorted (see ordering())
    std::uint64_t m_events = 0;
};

}  // namespace npuvp
