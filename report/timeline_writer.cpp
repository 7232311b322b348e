#include "report/timeline_writer.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>
#include <type_traits>

namespace npuvp {
namespace {

using obs::json_string;
using obs::ps_as_us;

int lane_tid(const std::string& lane, std::map<std::string, int>& extra) {
    const int rank = obs::lane_rank(lane);
    if (rank < obs::known_lane_count()) return rank + 1;
    const auto it = extra.find(lane);
    if (it != extra.end()) return it->second;
    const int id = 100 + static_cast<int>(extra.size());
    extra[lane] = id;
    return id;
}

// One line of the timeline, built in a reused buffer and written to the
// stream in one call when the statement that began it ends: an ostream
// insertion per fragment and per number (a sentry, a locale's num_put each)
// was most of the time --timeline took on a run of 100,000 slices.
class Line {
public:
    Line(std::ostream& out, std::string& buffer) : m_out(&out), m_buffer(&buffer) {}
    Line(Line&& other) noexcept : m_out(other.m_out), m_buffer(other.m_buffer) { other.m_out = nullptr; }
    Line(const Line&) = delete;
    Line& operator=(const Line&) = delete;
    Line& operator=(Line&&) = delete;
    ~Line() {
        if (!m_out) return;
        m_out->write(m_buffer->data(), static_cast<std::streamsize>(m_buffer->size()));
        m_buffer->clear();
    }
    Line& operator<<(const char* text) {
        m_buffer->append(text);
        return *this;
    }
    Line& operator<<(const std::string& text) {
        m_buffer->append(text);
        return *this;
    }
    Line& operator<<(char c) {
        m_buffer->push_back(c);
        return *this;
    }
    template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, char> &&
                                                        !std::is_same_v<Int, bool>>>
    Line& operator<<(Int value) {
        char digits[24];
        const auto r = std::to_chars(digits, digits + sizeof digits, value);
        m_buffer->append(digits, r.ptr);
        return *this;
    }

private:
    std::ostream* m_out;
    std::string* m_buffer;
};

// One trace-event JSON array: each writer below adds one kind of event, one
// per line. pid per group and tid per lane are fixed before the first line.
class Timeline {
public:
    Timeline(std::ostream& out, const obs::RunView& view, const std::vector<LayerResult>& layers,
             const Energy* energy)
        : m_out(out), m_view(view), m_layers(layers), m_energy(energy) { number_lanes(); }

    void write() {
        m_out << "{\"traceEvents\":[";
        names();
        layer_slices();
        engine_slices();
        command_slices();
        node_slices();
        unfinished_slices();
        failure_marker();
        token_flows();
        wait_flows(m_view.commands);
        wait_flows(m_view.unfinished);
        counters();
        power();
        if (!m_view.detail.complete) {
            occupancy();
            counter_maxima();
            detail_markers();
        }
        m_out << "\n],\"displayTimeUnit\":\"ns\"";
        if (!m_view.detail.complete) other_data();
        m_out << "}\n";
    }

private:
    // Groups and lanes in use, in sorted order: pid from 1, tid by lane rank
    // (other lanes from 100 by name).
    void number_lanes() {
        std::set<std::string> groups;
        std::set<std::pair<std::string, std::string>> lanes;
        for (const auto& s : m_view.engines) lanes.insert({s.group, s.lane});
        for (const auto& c : m_view.commands) lanes.insert({c.pe, c.lane});
        for (const auto& n : m_view.nodes) lanes.insert({n.group, n.lane});
        for (const auto& s : m_view.open_engines) lanes.insert({s.group, s.lane});
        for (const auto& c : m_view.unfinished) lanes.insert({c.pe, c.lane});
        for (const auto& n : m_view.open_nodes) lanes.insert({n.group, n.lane});
        for (const auto& c : m_view.tiles_in_flight) groups.insert(c.group);
        for (const auto& c : m_view.counters) groups.insert(c.count.group);
        for (const auto& l : lanes) groups.insert(l.first);
        if (!m_view.detail.complete) {  // the aggregate's tracks
            for (const auto& o : m_view.detail.occupancy) groups.insert(o.group);
            for (const auto& c : m_view.detail.counters) groups.insert(c.group);
        }
        int next_pid = 1;
        for (const std::string& g : groups) m_pid[g] = next_pid++;
        std::map<std::string, int> extra;
        std::set<std::string> extra_names;
        for (const auto& l : lanes)
            if (obs::lane_rank(l.second) >= obs::known_lane_count()) extra_names.insert(l.second);
        for (const std::string& name : extra_names) lane_tid(name, extra);
        for (const auto& l : lanes) m_tid[l] = lane_tid(l.second, extra);
    }

    Line begin() {
        m_line.append(m_first ? "\n" : ",\n");
        m_first = false;
        return Line(m_out, m_line);
    }
    int pid(const std::string& group) const { return m_pid.at(group); }
    int tid(const std::string& group, const std::string& lane) const { return m_tid.at({group, lane}); }

    void names() {
        for (const auto& [g, pid] : m_pid) {
            begin() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
                    << ",\"tid\":0,\"args\":{\"name\":" << json_string(g) << "}}";
            begin() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
                    << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
        }
        for (const auto& [l, tid] : m_tid) {
            const int pid = m_pid.at(l.first);
            const std::string name = obs::is_context_lane(l.second) ? "ctx " + l.second : l.second;
            begin() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
                    << ",\"args\":{\"name\":" << json_string(name) << "}}";
            begin() << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid
                    << ",\"tid\":" << tid << ",\"args\":{\"sort_index\":" << tid << "}}";
        }
    }

    void engine_slices() {
        for (const auto& s : m_view.engines)
            begin() << "{\"ph\":\"X\",\"cat\":\"engine\",\"name\":" << json_string(s.label)
                    << ",\"pid\":" << pid(s.group) << ",\"tid\":" << tid(s.group, s.lane)
                    << ",\"ts\":" << ps_as_us(s.start_ps) << ",\"dur\":" << ps_as_us(s.end_ps - s.start_ps)
                    << ",\"args\":{\"cmd\":" << s.cmd << ",\"tile\":" << s.tile << ",\"stage\":"
                    << json_string(s.lane) << ",\"bytes\":" << s.bytes << "}}";
    }

    // Command slices on their context lanes (started -> finished).
    void command_slices() {
        for (const auto& c : m_view.commands)
            begin() << "{\"ph\":\"X\",\"cat\":\"command\",\"name\":" << json_string(c.id)
                    << ",\"pid\":" << pid(c.pe) << ",\"tid\":" << tid(c.pe, c.lane)
                    << ",\"ts\":" << ps_as_us(c.started_ps)
                    << ",\"dur\":" << ps_as_us(c.finished_ps - c.started_ps) << ",\"args\":{\"cmd\":"
                    << c.seq << ",\"kind\":" << json_string(c.kind) << ",\"tiles\":" << c.tiles
                    << ",\"submitted_ns\":" << obs::ps_as_ns(c.submitted_ps)
                    << ",\"waited_ns\":" << obs::ps_as_ns(c.started_ps - c.submitted_ps)
                    << ",\"cause\":" << json_string(c.main_cause()) << "}}";
    }

    void node_slices() {
        for (const auto& n : m_view.nodes)
            begin() << "{\"ph\":\"X\",\"cat\":" << json_string(n.lane) << ",\"name\":"
                    << json_string(n.label) << ",\"pid\":" << pid(n.group)
                    << ",\"tid\":" << tid(n.group, n.lane) << ",\"ts\":" << ps_as_us(n.start_ps)
                    << ",\"dur\":" << ps_as_us(n.end_ps - n.start_ps) << ",\"args\":{\"cmd\":" << n.cmd
                    << "}}";
    }

    // A failed run: what was open at the stop, as a slice up to the stop
    // (cat "unfinished", name suffixed "(unfinished)"); the caller closes args.
    Line unfinished(const std::string& name, const std::string& group, const std::string& lane,
                    std::uint64_t t0) {
        Line line = begin();
        line << "{\"ph\":\"X\",\"cat\":\"unfinished\",\"name\":" << json_string(name + " (unfinished)")
             << ",\"pid\":" << pid(group) << ",\"tid\":" << tid(group, lane) << ",\"ts\":" << ps_as_us(t0)
             << ",\"dur\":" << ps_as_us(m_view.stopped_ps - std::min(t0, m_view.stopped_ps))
             << ",\"args\":{\"unfinished\":true";
        return line;
    }

    void unfinished_slices() {
        for (const auto& s : m_view.open_engines)
            unfinished(s.label, s.group, s.lane, s.start_ps)
                << ",\"cmd\":" << s.cmd << ",\"tile\":" << s.tile << ",\"stage\":" << json_string(s.lane)
                << ",\"bytes\":" << s.bytes << "}}";
        for (const auto& c : m_view.unfinished) {
            std::uint64_t waited = 0;
            for (std::size_t i = 1; i < wait_cause_count; ++i) waited += c.waited_ps[i];
            unfinished(c.started ? c.id : c.id + " waiting", c.pe, c.lane,
                       c.started ? c.started_ps : c.submitted_ps)
                << ",\"cmd\":" << c.seq << ",\"kind\":" << json_string(c.kind) << ",\"tiles\":" << c.tiles
                << ",\"tiles_done\":" << c.tiles_done << ",\"submitted_ns\":" << obs::ps_as_ns(c.submitted_ps)
                << ",\"waited_ns\":" << obs::ps_as_ns(waited) << ",\"cause\":" << json_string(c.main_cause())
                << "}}";
        }
        for (const auto& n : m_view.open_nodes)
            unfinished(n.label, n.group, n.lane, n.start_ps) << ",\"cmd\":" << n.cmd << "}}";
    }

    // A failed run: a global instant marking the stop, with the diagnosis.
    void failure_marker() {
        if (!m_view.failed || m_pid.empty()) return;
        begin() << "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"run\",\"name\":\"run failed\",\"pid\":"
                << m_pid.begin()->second << ",\"tid\":0,\"ts\":" << ps_as_us(m_view.stopped_ps)
                << ",\"args\":{\"diagnosis\":" << json_string(m_view.failure) << "}}";
    }

    // An arrow leaves from the last picosecond of its source slice (the "s"
    // binds to the slice that encloses it in both Perfetto and
    // chrome://tracing, and chrome://tracing draws the arrow from the "s"
    // time): it reads "A ends, then B starts".
    static std::uint64_t last_ps(std::uint64_t start, std::uint64_t end) {
        return end > start ? end - 1 : start;
    }
    void flow(const char* cat, const std::string& name, const std::string& g0, const std::string& l0,
              std::uint64_t t0, const std::string& g1, const std::string& l1, std::uint64_t t1) {
        begin() << "{\"ph\":\"s\",\"cat\":\"" << cat << "\",\"name\":" << json_string(name)
                << ",\"id\":" << m_flow_id << ",\"pid\":" << pid(g0) << ",\"tid\":" << tid(g0, l0)
                << ",\"ts\":" << ps_as_us(t0) << "}";
        begin() << "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"" << cat << "\",\"name\":"
                << json_string(name) << ",\"id\":" << m_flow_id << ",\"pid\":" << pid(g1)
                << ",\"tid\":" << tid(g1, l1) << ",\"ts\":" << ps_as_us(t1) << "}";
        ++m_flow_id;
    }

    // A token's consecutive stages (same PE, command and tile), in time order.
    void token_flows() {
        std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::vector<const obs::EngineSlice*>>
            tokens;
        for (const auto& s : m_view.engines) tokens[{s.group, s.cmd, s.tile}].push_back(&s);
        for (auto& [key, path] : tokens) {
            std::stable_sort(path.begin(), path.end(), [](const auto* a, const auto* b) {
                return std::tie(a->start_ps, a->end_ps) < std::tie(b->start_ps, b->end_ps);
            });
            for (std::size_t i = 1; i < path.size(); ++i)
                flow("token", path[i]->label, path[i - 1]->group, path[i - 1]->lane,
                     last_ps(path[i - 1]->start_ps, path[i - 1]->end_ps), path[i]->group,
                     path[i]->lane, path[i]->start_ps);
        }
    }

    const obs::CommandSpan* find_command(const std::string& pe, std::int64_t seq) const {
        for (const auto* list : {&m_view.commands, &m_view.unfinished})
            for (const auto& b : *list)
                if (b.pe == pe && static_cast<std::int64_t>(b.seq) == seq) return &b;
        return nullptr;
    }

    // From a blocking command to the one that waited for it. (A command in
    // flight at a failed run's stop counts too: its slice begins at its
    // start, or at its submission while it still waits.)
    void wait_flows(const std::vector<obs::CommandSpan>& waiters) {
        for (const auto& c : waiters) {
            if (c.gated_by < 0) continue;
            const obs::CommandSpan* blocker = find_command(c.pe, c.gated_by);
            if (!blocker) continue;
            const auto& b = *blocker;
            flow("wait", c.gated_cause + ": " + c.id + " waits for " + b.id, b.pe, b.lane,
                 last_ps(b.started ? b.started_ps : b.submitted_ps, b.finished_ps), c.pe, c.lane,
                 c.started ? c.started_ps : c.submitted_ps);
        }
    }

    // Counters: tiles in flight per PE, then the named ones.
    // The power over time: its own process, after every group and "layers",
    // one sample per step (the last, at the makespan, 0 W).
    void power() {
        if (m_energy == nullptr || m_energy->power.empty()) return;
        const int pid = static_cast<int>(m_pid.size()) + 2;
        begin() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"name\":\"power\"}}";
        begin() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
        for (const Energy::Step& s : m_energy->power)
            begin() << "{\"ph\":\"C\",\"name\":\"power (W)\",\"pid\":" << pid << ",\"tid\":0,\"ts\":"
                    << ps_as_us(s.at_ps) << ",\"args\":{\"W\":" << obs::fixed(s.w, 6) << "}}";
    }

    void counters() {
        for (const auto& c : m_view.tiles_in_flight)
            begin() << "{\"ph\":\"C\",\"name\":\"tiles in flight\",\"pid\":" << pid(c.group)
                    << ",\"tid\":0,\"ts\":" << ps_as_us(c.t_ps) << ",\"args\":{\"tiles\":" << c.value
                    << "}}";
        for (const auto& c : m_view.counters)
            begin() << "{\"ph\":\"C\",\"name\":" << json_string(c.name) << ",\"pid\":"
                    << pid(c.count.group) << ",\"tid\":0,\"ts\":" << ps_as_us(c.count.t_ps)
                    << ",\"args\":{\"value\":" << c.count.value << "}}";
    }

    // Tile detail not complete (RunView::Detail): the whole run's aggregate.
    // Per engine lane a counter "<LANE> busy": the engine's busy time in each
    // bin over the bin's width (2.000: two channels busy all the bin), one
    // sample per change.
    void occupancy() {
        const obs::RunView::Detail& d = m_view.detail;
        for (const auto& o : d.occupancy) {
            std::string last;
            for (std::size_t b = 0; b < d.bins; ++b) {
                const std::string value = obs::fraction_text(b < o.busy_ps.size() ? o.busy_ps[b] : 0, d.bin_ps);
                if (value == last) continue;
                last = value;
                begin() << "{\"ph\":\"C\",\"name\":" << json_string(o.lane + " busy") << ",\"pid\":"
                        << pid(o.group) << ",\"tid\":0,\"ts\":" << ps_as_us(b * d.bin_ps)
                        << ",\"args\":{\"busy\":" << value << "}}";
            }
        }
    }

    // Per counter track "<name> (bin max)": the largest sample in each bin
    // that has one, then the last sample's value where the next bin has none.
    void counter_maxima() {
        const obs::RunView::Detail& d = m_view.detail;
        for (const auto& c : d.counters) {
            const std::string name = json_string(c.name + " (bin max)");
            auto sample = [&](std::size_t bin, std::int64_t value) {
                begin() << "{\"ph\":\"C\",\"name\":" << name << ",\"pid\":" << pid(c.group)
                        << ",\"tid\":0,\"ts\":" << ps_as_us(bin * d.bin_ps) << ",\"args\":{\"value\":" << value
                        << "}}";
            };
            for (std::size_t b = 0; b < c.bins.size(); ++b) {
                if (!c.bins[b].seen) continue;
                sample(b, c.bins[b].max);
                const bool next_seen = b + 1 < c.bins.size() && c.bins[b + 1].seen;
                if (!next_seen && b + 1 < d.bins && c.bins[b].last != c.bins[b].max) sample(b + 1, c.bins[b].last);
            }
        }
    }

    // A model's layers: their own process after every group, one slice per
    // layer (its first command's start to its last one's finish).
    void layer_slices() {
        if (m_layers.empty()) return;
        const int pid = static_cast<int>(m_pid.size()) + 1;
        begin() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"name\":\"layers\"}}";
        begin() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"sort_index\":0}}";
        for (const LayerResult& l : m_layers)
            begin() << "{\"ph\":\"X\",\"cat\":\"layer\",\"name\":" << json_string(l.id) << ",\"pid\":" << pid
                    << ",\"tid\":1,\"ts\":" << ps_as_us(l.start_ps) << ",\"dur\":" << ps_as_us(l.end_ps - l.start_ps)
                    << ",\"args\":{\"node\":" << json_string(l.node) << ",\"op\":" << json_string(l.op)
                    << ",\"pes\":" << l.pes << ",\"cube\":" << json_string(l.cube) << ",\"flops\":" << l.flops
                    << ",\"bound\":" << json_string(l.bound) << ",\"critical\":" << (l.critical ? "true" : "false")
                    << "}}";
    }

    // Global instants where the tile detail begins and ends, with the note.
    void detail_markers() {
        const obs::RunView::Detail& d = m_view.detail;
        if (m_pid.empty()) return;
        const std::string note = json_string(obs::detail_note(d));
        auto instant = [&](const char* name, std::uint64_t t_ps) {
            begin() << "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"detail\",\"name\":\"" << name
                    << "\",\"pid\":" << m_pid.begin()->second << ",\"tid\":0,\"ts\":" << ps_as_us(t_ps)
                    << ",\"args\":{\"note\":" << note << "}}";
        };
        if (d.to_ps <= d.from_ps) {
            instant("no tile detail", 0);
            return;
        }
        if (d.from_ps > 0) instant("tile detail begins", d.from_ps);
        if (d.to_ps != obs::open_end) instant("tile detail ends", d.to_ps);
    }

    // The trace-event format's place for metadata: what the tile detail covers.
    void other_data() {
        const obs::RunView::Detail& d = m_view.detail;
        m_out << ",\"otherData\":{\"tile_detail\":\"partial\",\"detail_from_ns\":" << obs::ps_as_ns(d.from_ps)
              << ",\"detail_to_ns\":" << (d.to_ps == obs::open_end ? std::string("null") : obs::ps_as_ns(d.to_ps))
              << ",\"detail_cut_by_cap\":" << (d.cut ? "true" : "false") << ",\"detail_slices\":" << d.max_slices
              << ",\"engine_intervals\":" << d.slices << ",\"engine_intervals_in_detail\":" << d.slices_kept
              << ",\"counter_samples\":" << d.samples << ",\"counter_samples_in_detail\":" << d.samples_kept
              << ",\"bin_ns\":" << obs::ps_as_ns(d.bin_ps) << ",\"bins\":" << d.bins
              << ",\"note\":" << json_string(obs::detail_note(d)) << "}";
    }

    std::ostream& m_out;
    std::string m_line;  // the line being built (Line)
    const obs::RunView& m_view;
    const std::vector<LayerResult>& m_layers;
    const Energy* m_energy;
    std::map<std::string, int> m_pid;                                // group -> pid
    std::map<std::pair<std::string, std::string>, int> m_tid;        // (group, lane) -> tid
    bool m_first = true;
    std::uint64_t m_flow_id = 1;
};

}  // namespace

void write_timeline(std::ostream& out, const obs::RunView& view, const std::vector<LayerResult>& layers,
                    const Energy* energy) {
    Timeline(out, view, layers, energy).write();
}

}  // namespace npuvp
