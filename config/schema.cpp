#include "config/schema.h"

#include <iomanip>
#include <map>
#include <sstream>

namespace npuvp::schema {

std::string one_of(const std::vector<std::string>& names) {
    std::string text = "must be ";
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
    return text;
}

std::string bound_text(Bound bound) { return bound == Bound::positive ? "> 0" : ">= 0"; }

std::string int_text(long long value) { return std::to_string(value); }

const UnitLimit* unit_limit(const std::string& unit) {
    // docs/limits.md gives each row's reason at length.
    static const std::map<std::string, UnitLimit> limits = {
        {"ns", {0.0, 1e9, "a latency of 1 s is beyond any block of an NPU; 10^12 ps, and sums of millions of them, stay far inside 64-bit ps"}},
        {"ns/mm", {0.0, 1e6, "1 ms per mm is a million times any wire"}},
        {"mm", {0.0, 1e6, "1 km: any distance on a package; times ns/mm stays within the ns limit's range"}},
        {"GB/s", {1e-3, 1e6, "1 MB/s to 1 PB/s: beyond any link or memory; bytes/s stay exact 64-bit integers and a transfer's time >= 1 ps per KB"}},
        {"GHz", {1e-3, 1e3, "1 MHz to 1 THz: a cycle of 1 ps (the time resolution) to 1 µs"}},
        {"cycles", {0.0, 1e9, "a second of cycles at 1 GHz per op or fill"}},
        {"tokens", {0.0, 65536.0, "an inbox of 65536 tiles: far above any hardware queue; each slot is memory"}},
        {"accesses", {0.0, 1e9, "a count of TCM accesses per second at 1 GHz"}},
        {"banks", {0.0, 65536.0, "the TCM's bank count's order"}},
        {"bytes", {0.0, 1073741824.0, "1 GiB per cycle or interleave: beyond any datapath"}},
        {"", {0.0, 65536.0, "counts of engines, lanes, banks, slots, rows: each is a block or a table entry in memory"}},
        {"base", {0.0, 1e15, "a rotary embedding's base: any a model uses (10^4 to 10^7); it changes no time"}},
        {"elements", {0.0, 16777216.0, "2^24: a language model's width, heads, layers, vocabulary or context (docs/llm.md); its sizes multiply a few of them and stay inside 64 bits"}},
        {"KiB", {0.0, 1048576.0, "1 GiB: a page or an IPCQ slot"}},
        {"MiB", {0.0, 1048576.0, "1 TiB of TCM or shared SRAM"}},
        {"GiB", {0.0, 16384.0, "16 TiB per HBM slice; the HBM window of 64 cubes of 256 slices stays inside 64-bit addresses"}},
        {"pJ", {0.0, 1e9, "1 mJ per action"}},
        {"pJ/B", {0.0, 1e9, "1 mJ per byte"}},
        {"mW", {0.0, 1e9, "1 MW per block"}},
    };
    const auto it = limits.find(unit);
    return it == limits.end() ? nullptr : &it->second;
}

namespace {
std::string limit_number(double v) {
    if (v >= 1e6 && v == static_cast<double>(static_cast<long long>(v)) &&
        (static_cast<long long>(v) & (static_cast<long long>(v) - 1)) != 0) {
        std::ostringstream s;
        s << v;  // 1e+09
        std::string t = s.str();
        const std::size_t e = t.find("e+");  // "1e+09" -> "1e9"
        if (e != std::string::npos) {
            std::size_t digits = e + 2;
            while (digits + 1 < t.size() && t[digits] == '0') ++digits;
            t = t.substr(0, e + 1) + t.substr(digits);
        }
        return t;
    }
    std::ostringstream s;
    s << std::setprecision(12) << v;
    return s.str();
}
}  // namespace

void check_unit_limit(const Item& item, double value, const std::string& unit) {
    const UnitLimit* limit = unit_limit(unit);
    if (limit == nullptr) return;
    if (value > limit->max || (limit->min > 0.0 && value < limit->min))
        throw ConfigError(item.loc, "must be in [" + limit_number(limit->min) + ", " + limit_number(limit->max) +
                                        "]" + (unit.empty() ? std::string() : " " + unit) + " (got " +
                                        item.node.Scalar() + "): " + limit->why + " (docs/limits.md)");
}

std::string bound_text(Bound bound, const std::string& unit) {
    const UnitLimit* limit = unit_limit(unit);
    if (limit == nullptr) return bound_text(bound);
    if (limit->min > 0.0) return ">= " + limit_number(limit->min) + ", <= " + limit_number(limit->max);
    return bound_text(bound) + ", <= " + limit_number(limit->max);
}

std::string int_bound_text(long long min, const std::string& unit) {
    const UnitLimit* limit = unit_limit(unit);
    const std::string low = min == 1 ? "> 0" : ">= " + int_text(min);
    return limit == nullptr ? low : low + ", <= " + limit_number(limit->max);
}

std::vector<Item> list_items(const MapReader& reader, const std::string& key, const ListRule& rule) {
    const Item list = reader.child(key);
    if (!list.present) {
        if (rule.required) throw ConfigError(list.loc, rule.expected);
        return {};
    }
    if (!list.node.IsSequence() || list.node.size() < rule.min) throw ConfigError(list.loc, rule.expected);
    std::vector<Item> items;
    for (std::size_t i = 0; i < list.node.size(); ++i) items.push_back(reader.reader().element(list, i));
    return items;
}

std::string markdown(const Docs& docs) {
    std::string out;
    for (const auto& section : docs) {
        out += section.title.empty() ? std::string("### Top level\n\n") : "### `" + section.title + "`\n\n";
        out += "| key | type | unit | default | constraint | meaning |\n";
        out += "| --- | --- | --- | --- | --- | --- |\n";
        for (const auto& row : section.rows)
            out += "| `" + row.key + "` | " + row.type + " | " + row.unit + " | " + row.fallback +
                   " | " + row.constraint + " | " + row.doc + " |\n";
        out += "\n";
    }
    return out;
}

}  // namespace npuvp::schema
