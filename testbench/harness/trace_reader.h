// Reads a JSON-lines trace (modules/common/trace.h) back for whole-platform
// tests: one struct per line, and engine busy intervals built by pairing each
// engine_start with its engine_complete. Only the fixed field set the sink
// writes is understood; this is not a general JSON parser.
#pragma once

#include <algorithm>
#include <cstdint>
#include <istream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace npuvp::test {

struct TraceLine {
    std::size_t index = 0;  // position in the trace, from 0
    std::uint64_t t_ps = 0;
    std::string ev, node, stage, peer;
    std::int64_t cmd = -1, tile = -1, bytes = -1;
};

// One engine busy interval: engine_start .. engine_complete of one stage of
// one token on one node.
struct EngineInterval {
    std::string node, stage;
    std::int64_t cmd = -1, tile = -1, bytes = -1;
    std::uint64_t start_ps = 0, end_ps = 0;
    std::size_t start_index = 0;  // trace position of the engine_start

    bool overlaps(const EngineInterval& o) const {
        return start_ps < o.end_ps && o.start_ps < end_ps;
    }
};

namespace detail {

inline std::size_t field_at(const std::string& line, const std::string& key) {
    const std::string pattern = "\"" + key + "\":";
    const std::size_t at = line.find(pattern);
    return at == std::string::npos ? at : at + pattern.size();
}

inline std::string string_field(const std::string& line, const std::string& key) {
    std::size_t at = field_at(line, key);
    if (at == std::string::npos) return {};
    if (line.at(at) != '"') throw std::runtime_error("trace: " + key + " is not a string: " + line);
    std::string out;
    for (++at; at < line.size() && line[at] != '"'; ++at) {
        if (line[at] == '\\') ++at;
        out += line.at(at);
    }
    return out;
}

inline std::int64_t int_field(const std::string& line, const std::string& key, std::int64_t dflt) {
    const std::size_t at = field_at(line, key);
    if (at == std::string::npos) return dflt;
    return std::stoll(line.substr(at));
}

}  // namespace detail

inline std::vector<TraceLine> parse_trace(const std::string& text) {
    std::vector<TraceLine> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        TraceLine t;
        t.index = out.size();
        t.t_ps = static_cast<std::uint64_t>(detail::int_field(line, "t_ps", 0));
        t.ev = detail::string_field(line, "ev");
        t.node = detail::string_field(line, "node");
        t.cmd = detail::int_field(line, "cmd", -1);
        t.tile = detail::int_field(line, "tile", -1);
        t.stage = detail::string_field(line, "stage");
        t.bytes = detail::int_field(line, "bytes", -1);
        t.peer = detail::string_field(line, "peer");
        out.push_back(std::move(t));
    }
    return out;
}

// Pairs engine_start / engine_complete per (node, stage, cmd, tile), first in
// first out, so repeated stages of one token (two MATH epilogues) pair in
// order. Sorted by start time, then trace position. Throws on a complete
// without a start or a start never completed.
inline std::vector<EngineInterval> engine_intervals(const std::vector<TraceLine>& trace) {
    using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
    std::map<Key, std::vector<const TraceLine*>> open;
    std::vector<EngineInterval> out;
    for (const TraceLine& t : trace) {
        const Key key{t.node, t.stage, t.cmd, t.tile};
        if (t.ev == "engine_start") {
            open[key].push_back(&t);
        } else if (t.ev == "engine_complete") {
            auto& starts = open[key];
            if (starts.empty())
                throw std::runtime_error("trace: engine_complete without start at line " +
                                         std::to_string(t.index));
            const TraceLine& s = *starts.front();
            starts.erase(starts.begin());
            out.push_back({t.node, t.stage, t.cmd, t.tile, s.bytes, s.t_ps, t.t_ps, s.index});
        }
    }
    for (const auto& [key, starts] : open)
        if (!starts.empty()) throw std::runtime_error("trace: engine_start never completed");
    std::sort(out.begin(), out.end(), [](const EngineInterval& a, const EngineInterval& b) {
        return std::tie(a.start_ps, a.start_index) < std::tie(b.start_ps, b.start_index);
    });
    return out;
}

// The intervals with `stage` (and, when given, `node`).
inline std::vector<EngineInterval> with_stage(const std::vector<EngineInterval>& all,
                                              const std::string& stage,
                                              const std::string& node = {}) {
    std::vector<EngineInterval> out;
    for (const EngineInterval& i : all)
        if (i.stage == stage && (node.empty() || i.node == node)) out.push_back(i);
    return out;
}

}  // namespace npuvp::test
