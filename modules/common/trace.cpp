// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/common/trace.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <systemc>

#include "modules/common/json_text.h"

namespace npuvp {

const char* to_string(TraceKind kind) {
    switch (kind) {
    case TraceKind::engine_start: return "engine_start";
    case TraceKind::engine_complete: return "engine_complete";
    case TraceKind::inbox_fill: return "inbox_fill";
    case TraceKind::command_submitted: return "command_submitted";
    case TraceKind::wait_begin: return "wait_begin";
    case TraceKind::wait_end: return "wait_end";
    case TraceKind::bank_violation: return "bank_violation";
    case TraceKind::sub_command_dispatched: return "sub_command_dispatched";
    case TraceKind::tile_ready: return "tile_ready";
    case TraceKind::tcm_in_use: return "tcm_in_use";
    case TraceKind::command_complete: return "command_complete";
    case TraceKind::kernel_start: return "kernel_start";
    case TraceKind::kernel_complete: return "kernel_complete";
    case TraceKind::fanout_start: return "fanout_start";
    case TraceKind::fanout_complete: return "fanout_complete";
    case TraceKind::late_response: return "late_response";
    case TraceKind::request_start: return "request_start";
    case TraceKind::request_complete: return "request_complete";
    case TraceKind::control_delivered: return "control_delivered";
    }
    return "";
}

namespace {

// Orders are spaced this far apart when (re)assigned, so that a name added
// at the end takes one step, and one added between two takes half the gap
// (about 40 between the same two before all are spaced out again).
constexpr std::uint64_t order_step = std::uint64_t{1} << 40;

std::string json_text(const std::string& text) {
    std::ostringstream out;
    write_json_string(out, text);
    return out.str();
}

}  // namespace

TraceNames::TraceNames() : m_names(1, Name{nullptr, {}, 0}), m_slots(64) {
    const auto it = m_sorted.emplace(std::string(), empty_key).first;
    m_names.push_back({&it->first, json_text(it->first), 0});  // key 1, first in order
}

// A string not seen at `address` (or changed there): its key by content,
// a new one if the text is new; `address` remembers it.
std::uint32_t TraceNames::add(const void* address, const char* text, std::size_t size) {
    const std::string_view view(text, size);
    auto it = m_sorted.find(view);
    if (it == m_sorted.end()) {
        const auto key = static_cast<std::uint32_t>(m_names.size());
        it = m_sorted.emplace(std::string(view), key).first;
        // "" is first and keeps order 0: every other text is after it.
        const std::uint64_t before = m_names[std::prev(it)->second].order;
        const auto next = std::next(it);
        const std::uint64_t gap =
            next == m_sorted.end() ? order_step : (m_names[next->second].order - before) / 2;
        m_names.push_back({&it->first, json_text(it->first), before + std::min(gap, order_step)});
        if (gap == 0 || before > ~std::uint64_t{0} - order_step) space_out();
    }
    std::size_t i = probe(address);
    if (m_slots[i].address == nullptr) {
        if (2 * (m_used + 1) > m_slots.size()) {  // at most half full
            std::vector<Slot> old(m_slots.size() * 2);
            old.swap(m_slots);
            for (const Slot& slot : old)
                if (slot.address != nullptr) m_slots[probe(slot.address)] = slot;
            i = probe(address);
        }
        ++m_used;
    }
    m_slots[i] = {address, it->second};
    return it->second;
}

void TraceNames::space_out() {
    const std::uint64_t step = std::min<std::uint64_t>(order_step, (std::uint64_t{1} << 63) / m_sorted.size());
    std::uint64_t order = 0;
    for (const auto& entry : m_sorted) {
        m_names[entry.second].order = order;
        order += step;
    }
}

void TraceSink::Held::set(const TraceEvent& e) {
    event = e;
    if (e.peer) peer.assign(*e.peer);
    if (e.detail) detail.assign(*e.detail);
}

// The event, its peer and detail pointing at the held copies (a slot may
// have moved since it was set, when the list grew).
TraceEvent TraceSink::Held::get() const {
    TraceEvent e = event;
    if (e.peer) e.peer = &peer;
    if (e.detail) e.detail = &detail;
    return e;
}

namespace {

void record(std::vector<RecordedEvent>& log, const TraceEvent& e) {
    RecordedEvent r;
    r.t_ps = e.t_ps;
    r.kind = e.kind;
    if (e.node) r.node = *e.node;
    r.cmd = e.cmd;
    r.tile = e.tile;
    if (e.stage) r.stage = e.stage;
    if (e.cause) r.cause = e.cause;
    r.bytes = e.bytes;
    if (e.peer) r.peer = *e.peer;
    if (e.detail) r.detail = *e.detail;
    log.push_back(std::move(r));
}

void append_json_string(std::string& out, const char* s) {
    // The common case (node ids, stage and kind names) needs no escaping.
    const char* p = s;
    while (*p != 0 && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    if (*p == 0) {
        out += '"';
        out.append(s, p);
        out += '"';
        return;
    }
    std::ostringstream escaped;
    write_json_string(escaped, s);
    out += escaped.str();
}

}  // namespace

// (trace.h) A simple command's dispatch and waits are a lane of their own:
// the dispatch pass is a process of its own beside the feed loop, and their
// events may fall on one instant; a simple command's wait names its
// execution context, a composite's "none".
TraceLane trace_lane(const TraceEvent& e) {
    switch (e.kind) {
    case TraceKind::engine_start:
    case TraceKind::engine_complete:
    case TraceKind::inbox_fill:
        return e.stage != nullptr ? TraceLane::stage : TraceLane::none;
    case TraceKind::sub_command_dispatched:
        return e.detail != nullptr ? TraceLane::simple_commands : TraceLane::none;  // (a composite's tile names no command)
    case TraceKind::wait_begin:
    case TraceKind::wait_end:
    case TraceKind::bank_violation:
        return e.stage != nullptr && std::strcmp(e.stage, "none") != 0 ? TraceLane::simple_commands
                                                                          : TraceLane::none;
    default:
        return TraceLane::none;
    }
}

void TraceSink::write(const TraceEvent& e) {
    if (m_clock != nullptr) {
        // A calendar running ahead: kept until release_ahead(). Its node
        // ids, stage names and peers live as long as the run; a detail may
        // not (a wait's is its command's current wait detail, which a later
        // dispatch pass of the same run ahead rewrites): copied.
        if (m_kept_used == m_kept.size()) m_kept.emplace_back();
        Kept& k = m_kept[m_kept_used++];
        k.event = e;
        if (e.detail) k.detail.assign(*e.detail);
        k.instant = m_clock->trace_instant();
        k.seq = m_kept_seq++;
        return;
    }
    if (m_log != nullptr) record(*m_log, e);
    if (m_out == nullptr && (m_listener == nullptr || m_direct)) return;
    // Outside a running simulation there is no round to sort: straight through.
    const bool hold = m_hold && sc_core::sc_is_running();
    if (!hold) {
        flush();
        deliver(e);
        write_lines();
        return;
    }
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    if (m_held_used != 0 && now != m_held_t) flush();
    m_held_t = now;
    if (m_held_used == 0) {
        if (m_flush_event != nullptr) {
            m_flush_event->notify(sc_core::SC_ZERO_TIME);
        } else {
            start_flusher();
            m_held_event.notify(sc_core::SC_ZERO_TIME);
        }
    }
    if (m_held_used == m_held.size()) m_held.emplace_back();
    m_held[m_held_used].set(e);
    ++m_held_used;
}

// To the listener and the line buffer, in the order they are called.
void TraceSink::deliver(const TraceEvent& e) {
    if (m_listener != nullptr && !m_direct) m_listener->on_trace(e);
    if (m_out == nullptr) return;
    if (m_format == TraceFormat::json_lines) write_line(e);
    else write_record(e);
}

namespace {

constexpr char binary_magic[] = "NPUVPTB1";
constexpr unsigned char name_tag = 0xF0;
constexpr unsigned has_stage = 1, has_cause = 2, has_bytes = 4, has_peer = 8, has_detail = 16;

char* put_varint(char* p, std::uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}
void put_varint(std::string& out, std::uint64_t v) {
    char buffer[10];
    out.append(buffer, put_varint(buffer, v));
}
std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v < 0 ? -1 : 0);
}
std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

}  // namespace

void TraceSink::attach(std::ostream* out, TraceFormat format) {
    flush();
    m_out = out;
    m_format = format;
    update_on();
    if (m_out == nullptr || m_format != TraceFormat::binary) return;
    m_named_nodes.clear();
    m_named_stages.clear();
    m_last_t = 0;
    m_out->write(binary_magic, sizeof binary_magic - 1);
}

// The name record of `key`, once per binary trace (write_name).
void TraceSink::name_record(int table, const TraceNames& names, std::uint32_t key, std::vector<std::uint8_t>& named) {
    if (named.size() <= key) named.resize(key + 1, 0);
    named[key] = 1;
    const std::string& text = names.text(key);
    m_line += static_cast<char>(name_tag);
    m_line += static_cast<char>(table);
    put_varint(m_line, key);
    put_varint(m_line, text.size());
    m_line += text;
}

// Every key first (keying a new name may grow a table, which would move
// the texts a reference taken before it points into); 0 for a name the
// event does not have (its node always has one).
TraceSink::Keys TraceSink::keys_of(const TraceEvent& e) {
    Keys k;
    k.node = e.node_key != 0 ? e.node_key : m_nodes.key(e.node);
    k.stage = e.stage ? (e.stage_key != 0 ? e.stage_key : m_stages.key(e.stage)) : 0;
    k.cause = e.cause ? m_stages.key(e.cause) : 0;
    k.peer = e.peer ? m_nodes.key(e.peer) : 0;
    return k;
}

// One event as a binary record (the format of the header comment), encoded
// into a buffer on the stack: at most 2 + 9 varints of 10 bytes before the
// detail.
void TraceSink::write_record(const TraceEvent& e) {
    const auto [node, stage, cause, peer] = keys_of(e);
    write_name(0, m_nodes, node, m_named_nodes);
    if (stage) write_name(1, m_stages, stage, m_named_stages);
    if (cause) write_name(1, m_stages, cause, m_named_stages);
    if (peer) write_name(0, m_nodes, peer, m_named_nodes);
    const unsigned flags = (e.stage ? has_stage : 0) | (e.cause ? has_cause : 0) | (e.bytes >= 0 ? has_bytes : 0) |
                           (e.peer ? has_peer : 0) | (e.detail ? has_detail : 0);
    char buffer[2 + 10 * 10];
    char* p = buffer;
    *p++ = static_cast<char>(e.kind);
    *p++ = static_cast<char>(flags);
    p = put_varint(p, zigzag(static_cast<std::int64_t>(e.t_ps - m_last_t)));
    m_last_t = e.t_ps;
    p = put_varint(p, node);
    p = put_varint(p, zigzag(e.cmd));
    p = put_varint(p, zigzag(e.tile));
    if (stage) p = put_varint(p, stage);
    if (cause) p = put_varint(p, cause);
    if (e.bytes >= 0) p = put_varint(p, static_cast<std::uint64_t>(e.bytes));
    if (peer) p = put_varint(p, peer);
    if (e.detail) p = put_varint(p, e.detail->size());
    m_line.append(buffer, p);
    if (e.detail) m_line += *e.detail;
    ++m_events;
}

namespace {

// Reads a binary trace's records (binary_trace_to_json_lines).
class RecordReader {
public:
    explicit RecordReader(std::istream& in) : m_in(in) {}
    bool at_end() { return m_in.peek() == std::char_traits<char>::eof(); }
    unsigned byte() {
        const auto c = m_in.get();
        if (c == std::char_traits<char>::eof()) throw std::runtime_error("it ends inside a record");
        return static_cast<unsigned>(c);
    }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const unsigned b = byte();
            v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
            if (!(b & 0x80)) return v;
        }
        throw std::runtime_error("a number is longer than 64 bits");
    }
    std::string text() {
        const std::uint64_t size = varint();
        if (size > (std::uint64_t{1} << 30)) throw std::runtime_error("a text is longer than 1 GiB");
        std::string t(static_cast<std::size_t>(size), '\0');
        m_in.read(t.data(), static_cast<std::streamsize>(size));
        if (static_cast<std::uint64_t>(m_in.gcount()) != size) throw std::runtime_error("it ends inside a text");
        return t;
    }

private:
    std::istream& m_in;
};

}  // namespace

std::string binary_trace_to_json_lines(std::istream& in, std::ostream& out) {
    char magic[sizeof binary_magic - 1] = {};
    in.read(magic, sizeof magic);
    if (in.gcount() != static_cast<std::streamsize>(sizeof magic) ||
        std::memcmp(magic, binary_magic, sizeof magic) != 0)
        return "not a binary npuvp trace (it does not start with \"NPUVPTB1\")";
    // The names by table and key; a deque keeps each text where it is.
    std::deque<std::string> texts;
    std::vector<const std::string*> names[2];
    const auto name = [&](int table, std::uint64_t key) -> const std::string* {
        if (key >= names[table].size() || names[table][key] == nullptr)
            throw std::runtime_error("an event uses a name not defined before it");
        return names[table][key];
    };
    TraceSink sink(&out);  // outside a simulation: every event straight through, in this order
    RecordReader r(in);
    std::uint64_t t = 0, records = 0;
    std::string detail;
    try {
        for (; !r.at_end(); ++records) {
            const unsigned tag = r.byte();
            if (tag == name_tag) {
                const unsigned table = r.byte();
                if (table > 1) throw std::runtime_error("a name's table is " + std::to_string(table));
                const std::uint64_t key = r.varint();
                if (key > (std::uint64_t{1} << 32)) throw std::runtime_error("a name's key is too large");
                texts.push_back(r.text());
                if (names[table].size() <= key) names[table].resize(static_cast<std::size_t>(key) + 1, nullptr);
                names[table][static_cast<std::size_t>(key)] = &texts.back();
                continue;
            }
            if (tag > static_cast<unsigned>(TraceKind::control_delivered))
                throw std::runtime_error("unknown record tag " + std::to_string(tag));
            TraceEvent e;
            e.kind = static_cast<TraceKind>(tag);
            const unsigned flags = r.byte();
            if (flags >= 32) throw std::runtime_error("unknown event flags " + std::to_string(flags));
            t += static_cast<std::uint64_t>(unzigzag(r.varint()));
            e.t_ps = t;
            e.node = name(0, r.varint());
            e.cmd = unzigzag(r.varint());
            e.tile = unzigzag(r.varint());
            if (flags & has_stage) e.stage = name(1, r.varint())->c_str();
            if (flags & has_cause) e.cause = name(1, r.varint())->c_str();
            if (flags & has_bytes) e.bytes = static_cast<std::int64_t>(r.varint());
            if (flags & has_peer) e.peer = name(0, r.varint());
            if (flags & has_detail) {
                detail = r.text();
                e.detail = &detail;
            }
            sink.emit(e);
        }
    } catch (const std::runtime_error& error) {
        sink.flush();
        return std::string(error.what()) + " (record " + std::to_string(records + 1) + ")";
    }
    sink.flush();
    if (in.bad()) return "reading it failed";
    return "";
}

void TraceSink::write_lines() {
    if (m_out == nullptr || m_line.empty()) return;
    m_out->write(m_line.data(), static_cast<std::streamsize>(m_line.size()));
    m_line.clear();
}

namespace {

// Each kind's fixed text from "ev" to the node's value.
struct KindPrefix {
    std::string text[static_cast<int>(TraceKind::control_delivered) + 1];
    KindPrefix() {
        for (int k = 0; k <= static_cast<int>(TraceKind::control_delivered); ++k)
            text[k] = std::string(",\"ev\":\"") + to_string(static_cast<TraceKind>(k)) + "\",\"node\":";
    }
};

char* put(char* p, const char* s, std::size_t n) {
    std::memcpy(p, s, n);
    return p + n;
}
char* put(char* p, const std::string& s) { return put(p, s.data(), s.size()); }
template <std::size_t N>
char* put_literal(char* p, const char (&s)[N]) {
    return put(p, s, N - 1);
}
char* put_int(char* p, std::int64_t v) { return std::to_chars(p, p + 24, v).ptr; }

}  // namespace

// One JSON line (the format of the header comment), formatted by hand into
// the line buffer: the node's, stage's and peer's JSON texts are the name
// tables', made once per string; no stream state, no allocation once the
// buffer has grown. Lines reach the stream in batches (write_lines()).
void TraceSink::write_line(const TraceEvent& e) {
    static const KindPrefix prefix;
    const std::string& kind = prefix.text[static_cast<int>(e.kind)];
    const auto [node_key, stage_key, cause_key, peer_key] = keys_of(e);
    const std::string& node = m_nodes.json(node_key);
    const std::string* stage = e.stage ? &m_stages.json(stage_key) : nullptr;
    const std::string* cause = e.cause ? &m_stages.json(cause_key) : nullptr;
    const std::string* peer = e.peer ? &m_nodes.json(peer_key) : nullptr;
    // Numbers, the fixed text and the names: an upper bound of the line.
    std::size_t size = 160 + kind.size() + node.size() + (stage ? stage->size() : 0) + (peer ? peer->size() : 0);
    if (cause) size += cause->size();
    const std::size_t at = m_line.size();
    m_line.resize(at + size);
    char* p = &m_line[at];
    p = put_literal(p, "{\"t_ps\":");
    p = put_int(p, static_cast<std::int64_t>(e.t_ps));
    p = put(p, kind);
    p = put(p, node);
    p = put_literal(p, ",\"cmd\":");
    p = put_int(p, e.cmd);
    p = put_literal(p, ",\"tile\":");
    p = put_int(p, e.tile);
    if (stage) {
        p = put_literal(p, ",\"stage\":");
        p = put(p, *stage);
    }
    if (cause) {
        p = put_literal(p, ",\"cause\":");
        p = put(p, *cause);
    }
    if (e.bytes >= 0) {
        p = put_literal(p, ",\"bytes\":");
        p = put_int(p, e.bytes);
    }
    if (peer) {
        p = put_literal(p, ",\"peer\":");
        p = put(p, *peer);
    }
    m_line.resize(static_cast<std::size_t>(p - m_line.data()));
    if (e.detail) {
        m_line += ",\"detail\":";
        append_json_string(m_line, e.detail->c_str());
    }
    m_line += "}\n";
    ++m_events;
}

void TraceSink::start_flusher() {
    if (m_flusher) return;
    m_flusher = true;
    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.set_sensitivity(&m_held_event);
    options.dont_initialize();
    sc_core::sc_spawn([this] { flush_when_over(); }, sc_core::sc_gen_unique_name("npuvp_trace_flush"),
                      &options);
}

// The sink's own flusher: once nothing else is pending at this instant.
void TraceSink::flush_when_over() {
    if (sc_core::sc_pending_activity_at_current_time()) {
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);
        return;
    }
    flush();
}

void TraceSink::flush() {
    if (m_held_used != 0) put_out(m_held_t, true);
}

void TraceSink::release_ahead(std::uint64_t before) {
    flush();
    if (m_kept_used != 0) put_out(before, false);
}

TraceSink::Out TraceSink::out_entry(const TraceEvent& e, std::uint64_t instant, std::uint64_t order,
                                    std::uint32_t index) const {
    // Lane "" sorts first; the simple commands' lane after it (PE_SCHEDULER
    // has no other).
    const TraceLane lane = trace_lane(e);
    const std::uint64_t lane_order = lane == TraceLane::stage             ? m_stages.order(e.stage_key)
                                     : lane == TraceLane::simple_commands ? ~std::uint64_t{0}
                                                                     : 0;
    return {instant, order, m_nodes.order(e.node_key), lane_order, index};
}

// Delivers, in order: every kept event of a calendar's run ahead
// (run_ahead_of) of an instant before `before`, by instant, node and lane;
// then, `with_held`, the held events of the instant `before` (m_held_t)
// with the kept ones of that instant, by node and lane (a lane's kept
// events first: they were emitted before the kernel reached the instant).
// Each lane's events keep their emitted order.
void TraceSink::put_out(std::uint64_t before, bool with_held) {
    const auto goes_out = [&](const Kept& k) { return k.instant < before || (with_held && k.instant == before); };
    m_out_list.clear();
    bool kept_out = false;
    for (std::size_t i = 0; i < m_kept_used; ++i) {
        const Kept& k = m_kept[i];
        if (goes_out(k)) {
            m_out_list.push_back(out_entry(k.event, k.instant, k.seq, static_cast<std::uint32_t>(i)));
            kept_out = true;
        }
    }
    constexpr std::uint64_t held_bit = std::uint64_t{1} << 63;
    if (with_held)
        for (std::size_t i = 0; i < m_held_used; ++i)
            m_out_list.push_back(out_entry(m_held[i].event, m_held_t, held_bit | i, static_cast<std::uint32_t>(i)));
    if (m_out_list.empty()) return;
    sort_out();
    for (const Out& o : m_out_list) {
        if (o.order & held_bit) {
            deliver(m_held[o.index].get());
        } else {
            TraceEvent e = m_kept[o.index].event;
            if (e.detail) e.detail = &m_kept[o.index].detail;
            if (m_log != nullptr) record(*m_log, e);  // (held ones were, when emitted)
            deliver(e);
        }
    }
    write_lines();
    if (with_held) m_held_used = 0;
    if (kept_out) {
        // The kept events not put out stay, in emission order.
        std::size_t to = 0;
        for (std::size_t from = 0; from < m_kept_used; ++from)
            if (!goes_out(m_kept[from])) {
                if (to != from) std::swap(m_kept[to], m_kept[from]);  // (strings keep their room)
                ++to;
            }
        m_kept_used = to;
    }
}

// Sorts m_out_list by instant, then kept before held, then emission; then
// each instant's events by node and lane, stably. The list comes as a few
// runs already in instant order (each calendar's run ahead, the held
// events), so runs are merged, not sorted; an instant holds a handful of
// events, sorted by insertion.
void TraceSink::sort_out() {
    const auto emitted_before = [](const Out& x, const Out& y) {
        return x.instant != y.instant ? x.instant < y.instant : x.order < y.order;
    };
    std::vector<Out>& list = m_out_list;
    m_runs.clear();
    m_runs.push_back(0);
    for (std::size_t i = 1; i < list.size(); ++i)
        if (emitted_before(list[i], list[i - 1])) m_runs.push_back(i);
    m_runs.push_back(list.size());
    while (m_runs.size() > 2) {  // pairs of neighbouring runs merged, until one is left
        m_merged.resize(list.size());
        std::size_t kept = 0;
        for (std::size_t r = 0; r + 1 < m_runs.size(); r += 2) {
            const std::size_t a = m_runs[r], b = m_runs[r + 1];
            const std::size_t c = r + 2 < m_runs.size() ? m_runs[r + 2] : b;
            std::merge(list.begin() + static_cast<std::ptrdiff_t>(a), list.begin() + static_cast<std::ptrdiff_t>(b),
                       list.begin() + static_cast<std::ptrdiff_t>(b), list.begin() + static_cast<std::ptrdiff_t>(c),
                       m_merged.begin() + static_cast<std::ptrdiff_t>(a), emitted_before);
            m_runs[kept++] = a;
        }
        m_runs[kept++] = list.size();
        m_runs.resize(kept);
        list.swap(m_merged);
    }
    const auto before_in_instant = [](const Out& x, const Out& y) {
        // A node with several lanes (PE_DMA's read and write channels, a
        // PE's inboxes): each lane's events keep their order, one lane's
        // after another's by its name.
        return x.node != y.node ? x.node < y.node : x.lane < y.lane;
    };
    for (std::size_t first = 0; first < list.size();) {
        std::size_t last = first + 1;
        while (last < list.size() && list[last].instant == list[first].instant) ++last;
        if (last - first > 64) {
            std::stable_sort(list.begin() + static_cast<std::ptrdiff_t>(first),
                             list.begin() + static_cast<std::ptrdiff_t>(last), before_in_instant);
        } else {
            for (std::size_t i = first + 1; i < last; ++i) {
                if (!before_in_instant(list[i], list[i - 1])) continue;
                const Out x = list[i];
                std::size_t j = i;
                for (; j > first && before_in_instant(x, list[j - 1]); --j) list[j] = list[j - 1];
                list[j] = x;
            }
        }
        first = last;
    }
}

}  // namespace npuvp
