// Topology YAML -> validated TopologyConfig (SPEC §2, STYLE "Configuration in
// two layers"). yaml-cpp gives a node tree with marks; the Loader walks it once,
// section by section, with one MapReader per YAML map: the reader rejects keys
// it was not told about, applies the named defaults of config_defaults.h and
// checks each value's range, so every error carries the node's file, line,
// column and key path. Cross-section checks (layout fit) run last.
//
// Overrides are written into the tree before the walk. The nodes they create
// are remembered, so a value that came from --set is reported as "--set" with
// its key path instead of a line of the file.
#include "config/topology_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "config/config_defaults.h"
#include "platform/impl_registry.h"
#include "config/yaml_document.h"

namespace npuvp {
namespace {

namespace dflt = npuvp::defaults;

const char* const kSetFile = "--set";

const std::vector<std::string>& pe_kinds() {
    static const std::vector<std::string> kinds = {
        "pe_cpu", "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm",
        "pe_math", "pe_tcm", "pe_mmu", "pe_ipcq"};
    return kinds;
}

std::vector<std::string> math_ops() {
    std::vector<std::string> ops;
    for (const auto& entry : dflt::kPeMathOpCost) ops.emplace_back(entry.op);
    return ops;
}

bool is_identifier(const std::string& name) {
    if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// Shortest decimal text that reads back to exactly `value`, always with a '.'
// or an exponent so that it reads as a float.
std::string format_double(double value) {
    char buf[64];
    // Fixed notation reads best ("500.0", not "5e+02") where it is short;
    // exponent notation for the rest.
    const double magnitude = std::fabs(value);
    const bool fixed = value == 0.0 || (magnitude >= 1e-4 && magnitude < 1e15);
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, fixed ? "%.*f" : "%.*g", precision, value);
        if (std::strtod(buf, nullptr) == value) break;
    }
    std::string text = buf;
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    return text;
}

// A node of the document with its key path and where it came from. Absent
// (defaulted) items carry their parent's location so that errors about them
// still point somewhere useful.
struct Item {
    YAML::Node node;
    SourceLoc loc;
    bool present = false;
    bool from_set = false;

    Item() = default;
    Item(const Item&) = default;
    // YAML::Node::operator= writes through into the document; rebinding is
    // what a copy of an Item means.
    Item& operator=(const Item& other) {
        node.reset(other.node);
        loc = other.loc;
        present = other.present;
        from_set = other.from_set;
        return *this;
    }
};

enum class Bound { positive, non_negative };

class Loader;

// One YAML map of the schema: rejects unknown and duplicate keys on
// construction, then hands out values with their defaults and range checks.
// An absent or null map reads as empty, so every key takes its default.
class MapReader {
public:
    // `allowed` empty with `any_key` set: every key is accepted (the caller
    // checks them, e.g. component names).
    MapReader(Loader& loader, const Item& item, std::vector<std::string> allowed,
              bool any_key = false);

    const Item& item() const { return m_item; }
    const std::vector<std::pair<std::string, Item>>& entries() const { return m_entries; }
    const SourceLoc& key_loc(const std::string& key) const { return m_key_locs.at(key); }

    Item child(const std::string& key) const;
    Item required(const std::string& key) const;

    double number(const std::string& key, double fallback, Bound bound) const;
    std::optional<double> optional_number(const std::string& key, Bound bound) const;
    long long integer(const std::string& key, long long fallback, long long min) const;
    long long required_integer(const std::string& key, long long min) const;
    // A size in units of 2^shift bytes (20 = MiB), returned in bytes.
    std::uint64_t size(const std::string& key, long long fallback, int shift) const;
    std::string string(const std::string& key, const std::string& fallback) const;

private:
    Loader* m_loader;
    Item m_item;
    std::vector<std::pair<std::string, Item>> m_entries;
    std::map<std::string, SourceLoc> m_key_locs;
};

class Loader {
public:
    Loader(std::string source, const ImplRegistry& impls)
        : m_source(std::move(source)), m_impls(impls) {}

    void apply(YAML::Node& root, const Override& override_);
    TopologyConfig load(const YAML::Node& root);

    Item child_item(const Item& parent, const YAML::Node& node, const std::string& key) const {
        Item item;
        item.node.reset(node);
        item.present = true;
        item.from_set = parent.from_set || is_set_node(node);
        item.loc = loc_of(node, item.from_set, child_path(parent.loc.key_path, key));
        return item;
    }

    SourceLoc key_loc(const Item& parent, const YAML::Node& key, const std::string& path) const {
        return loc_of(key, parent.from_set || key.Mark().is_null(), path);
    }

    // Every scalar read goes through here; its location is kept for the
    // cross-section checks.
    void note(const SourceLoc& loc) { m_locs[loc.key_path] = loc; }
    const SourceLoc& loc_at(const std::string& path) const { return m_locs.at(path); }

    double to_double(const Item& item) const;
    long long to_integer(const Item& item) const;
    std::string to_string(const Item& item) const;

private:
    bool is_set_node(const YAML::Node& node) const {
        // Nodes made by --set have no mark (intermediate maps) or are the
        // parsed override values, which yaml-cpp identifies by reference.
        if (node.Mark().is_null()) return true;
        return std::any_of(m_set_nodes.begin(), m_set_nodes.end(),
                           [&](const YAML::Node& set_node) { return set_node.is(node); });
    }

    SourceLoc loc_of(const YAML::Node& node, bool from_set, const std::string& path) const {
        if (from_set) return SourceLoc{kSetFile, 0, 0, path};
        const YAML::Mark mark = node.Mark();
        return SourceLoc{m_source, mark.line + 1, mark.column + 1, path};
    }

    void check_impl(const std::string& kind, const std::string& impl, const SourceLoc& loc) const;
    MapReader block(const MapReader& parent, const std::string& key, const char* default_impl,
                    std::string& impl, SourceLoc& impl_loc, std::vector<std::string> attr_keys);
    LinkConfig link(const MapReader& reader, double latency_ns, double bw_gbs);
    void read_system(const Item& item, SystemConfig& system);
    void read_cube(const Item& item, CubeConfig& cube);
    void read_pe_template(const Item& item, PeTemplateConfig& tmpl);
    void read_component(const std::string& kind, const std::string& impl, const Item& attrs,
                        PeTemplateConfig& tmpl);
    void check_fit(const TopologyConfig& config) const;
    void check_impls(const TopologyConfig& config) const;

    std::string m_source;
    const ImplRegistry& m_impls;
    std::vector<YAML::Node> m_set_nodes;
    std::map<std::string, SourceLoc> m_locs;
};

// ---------------------------------------------------------------- MapReader

MapReader::MapReader(Loader& loader, const Item& item, std::vector<std::string> allowed,
                     bool any_key)
    : m_loader(&loader), m_item(item) {
    if (!item.present || item.node.IsNull()) return;
    if (!item.node.IsMap())
        throw ConfigError(item.loc, "expected a map, got " + describe(item.node));
    for (auto it = item.node.begin(); it != item.node.end(); ++it) {
        if (!it->first.IsScalar())
            throw ConfigError(loader.key_loc(item, it->first, item.loc.key_path),
                              "keys must be plain names, got " + describe(it->first));
        const std::string key = it->first.Scalar();
        const SourceLoc loc = loader.key_loc(item, it->first, child_path(item.loc.key_path, key));
        if (!any_key && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            throw ConfigError(loc, "unknown key '" + key + "' (allowed: " + join(allowed) + ")");
        if (m_key_locs.count(key))
            throw ConfigError(loc, "duplicate key '" + key + "'");
        m_key_locs[key] = loc;
        m_entries.emplace_back(key, loader.child_item(item, it->second, key));
    }
}

Item MapReader::child(const std::string& key) const {
    for (const auto& entry : m_entries)
        if (entry.first == key) return entry.second;
    Item absent;
    absent.loc = m_item.loc;
    absent.loc.key_path = child_path(m_item.loc.key_path, key);
    absent.from_set = m_item.from_set;
    return absent;
}

Item MapReader::required(const std::string& key) const {
    Item item = child(key);
    // Points at the parent map: there is no node to point at.
    if (!item.present) throw ConfigError(item.loc, "missing required key '" + key + "'");
    return item;
}

double MapReader::number(const std::string& key, double fallback, Bound bound) const {
    const std::optional<double> value = optional_number(key, bound);
    if (!value) m_loader->note(child(key).loc);
    return value ? *value : fallback;
}

std::optional<double> MapReader::optional_number(const std::string& key, Bound bound) const {
    const Item item = child(key);
    if (!item.present) return std::nullopt;
    const double value = m_loader->to_double(item);
    if (bound == Bound::positive && !(value > 0.0))
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    if (bound == Bound::non_negative && value < 0.0)
        throw ConfigError(item.loc, "must be >= 0 (got " + item.node.Scalar() + ")");
    m_loader->note(item.loc);
    return value;
}

long long MapReader::integer(const std::string& key, long long fallback, long long min) const {
    const Item item = child(key);
    m_loader->note(item.loc);
    if (!item.present) return fallback;
    const long long value = m_loader->to_integer(item);
    if (value < min)
        throw ConfigError(item.loc, "must be >= " + std::to_string(min) + " (got " +
                                        item.node.Scalar() + ")");
    if (value > std::numeric_limits<int>::max())
        throw ConfigError(item.loc, "too large (got " + item.node.Scalar() + ")");
    return value;
}

long long MapReader::required_integer(const std::string& key, long long min) const {
    required(key);
    return integer(key, 0, min);
}

std::uint64_t MapReader::size(const std::string& key, long long fallback, int shift) const {
    const Item item = child(key);
    m_loader->note(item.loc);
    const long long value = item.present ? m_loader->to_integer(item) : fallback;
    if (value <= 0)
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    if (static_cast<std::uint64_t>(value) > (std::numeric_limits<std::uint64_t>::max() >> shift))
        throw ConfigError(item.loc, "too large (got " + item.node.Scalar() + ")");
    return static_cast<std::uint64_t>(value) << shift;
}

std::string MapReader::string(const std::string& key, const std::string& fallback) const {
    const Item item = child(key);
    m_loader->note(item.loc);
    return item.present ? m_loader->to_string(item) : fallback;
}

// ---------------------------------------------------------------- scalars

double Loader::to_double(const Item& item) const {
    const YAML::Node& node = item.node;
    if (!node.IsScalar()) throw ConfigError(item.loc, "expected a number, got " + describe(node));
    const std::string& text = node.Scalar();
    // A quoted scalar is a string even when it looks like a number.
    if (node.Tag() == "!")
        throw ConfigError(item.loc, "expected a number, got the string '" + text + "'");
    char* end = nullptr;
    errno = 0;
    const double value = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || *end != '\0')
        throw ConfigError(item.loc, "expected a number (got '" + text + "')");
    if (!std::isfinite(value) || errno == ERANGE)
        throw ConfigError(item.loc, "must be a finite number (got " + text + ")");
    return value;
}

long long Loader::to_integer(const Item& item) const {
    const YAML::Node& node = item.node;
    if (!node.IsScalar())
        throw ConfigError(item.loc, "expected an integer, got " + describe(node));
    const std::string& text = node.Scalar();
    if (node.Tag() == "!")
        throw ConfigError(item.loc, "expected an integer, got the string '" + text + "'");
    // Decimal, or hex with 0x (addresses); never octal, so that "010" is 10.
    std::size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    int base = 10;
    if (text.size() > start + 2 && text[start] == '0' && (text[start + 1] == 'x' || text[start + 1] == 'X'))
        base = 16;
    const bool digits_only = text.size() > start && !std::isspace(static_cast<unsigned char>(text[start]));
    char* end = nullptr;
    errno = 0;
    const long long value = digits_only ? std::strtoll(text.c_str(), &end, base) : 0;
    if (!digits_only || *end != '\0')
        throw ConfigError(item.loc, "expected an integer (got '" + text + "')");
    if (errno == ERANGE) throw ConfigError(item.loc, "too large (got " + text + ")");
    return value;
}

std::string Loader::to_string(const Item& item) const {
    if (!item.node.IsScalar())
        throw ConfigError(item.loc, "expected a string, got " + describe(item.node));
    return item.node.Scalar();
}

// ---------------------------------------------------------------- overrides

std::vector<std::string> split_key_path(const std::string& key_path) {
    std::vector<std::string> segments;
    std::string::size_type start = 0;
    while (true) {
        const auto dot = key_path.find('.', start);
        segments.push_back(key_path.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return segments;
}

YAML::Node parse_override_value(const Override& override_) {
    try {
        return YAML::Load(override_.value);
    } catch (const YAML::ParserException& e) {
        throw ConfigError(SourceLoc{kSetFile, 0, 0, override_.key_path},
                          "malformed value '" + override_.value + "': " + e.msg);
    }
}

void Loader::apply(YAML::Node& root, const Override& override_) {
    const std::vector<std::string> segments = split_key_path(override_.key_path);
    const YAML::Node value = parse_override_value(override_);
    m_set_nodes.push_back(value);

    YAML::Node current(root);
    std::string path;
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        path = child_path(path, segments[i]);
        YAML::Node next;
        bool found = false;
        // Look up through iteration: operator[] on a non-const node inserts.
        for (auto it = current.begin(); it != current.end(); ++it) {
            if (it->first.IsScalar() && it->first.Scalar() == segments[i]) {
                next.reset(it->second);
                found = true;
                break;
            }
        }
        if (!found || next.IsNull()) {
            const YAML::Node fresh(YAML::NodeType::Map);
            current[segments[i]] = fresh;
            m_set_nodes.push_back(fresh);
            next.reset(fresh);
        } else if (!next.IsMap()) {
            throw ConfigError(SourceLoc{kSetFile, 0, 0, override_.key_path},
                              "cannot set a key inside '" + path + "', which is " +
                                  describe(next) + ", not a map");
        }
        current.reset(next);
    }
    current[segments.back()] = value;
}

// ---------------------------------------------------------------- sections

void Loader::check_impl(const std::string& kind, const std::string& impl,
                        const SourceLoc& loc) const {
    if (m_impls.knows(kind, impl)) return;
    if (const std::string* reason = m_impls.unavailable(kind, impl))
        throw ConfigError(loc, "impl '" + impl + "' is not in this build of npuvp: " + *reason);
    const std::vector<std::string> known = m_impls.impls_of(kind);
    throw ConfigError(loc, "unknown impl '" + impl + "' for kind '" + kind + "' (" +
                               (known.empty() ? "no impl of this kind is registered"
                                              : "known: " + join(known)) +
                               ")");
}

// A block whose kind is its key (io_cpu and the cube-level blocks):
// `{ kind?, impl, attrs }`. Returns the reader of its attrs.
MapReader Loader::block(const MapReader& parent, const std::string& key, const char* default_impl,
                        std::string& impl, SourceLoc& impl_loc,
                        std::vector<std::string> attr_keys) {
    MapReader entry(*this, parent.child(key), {"kind", "impl", "attrs"});
    const Item kind = entry.child("kind");
    if (kind.present && to_string(kind) != key)
        throw ConfigError(kind.loc, "kind must be '" + key + "' (got '" + to_string(kind) + "')");
    const Item impl_item = entry.child("impl");
    impl = impl_item.present ? to_string(impl_item) : std::string(default_impl);
    impl_loc = impl_item.loc;
    check_impl(key, impl, impl_loc);
    return MapReader(*this, entry.child("attrs"), std::move(attr_keys));
}

LinkConfig Loader::link(const MapReader& reader, double latency_ns, double bw_gbs) {
    LinkConfig link;
    link.latency_ns = reader.number("latency_ns", latency_ns, Bound::non_negative);
    link.bw_gbs = reader.number("bw_gbs", bw_gbs, Bound::positive);
    return link;
}

void Loader::read_system(const Item& item, SystemConfig& system) {
    MapReader sys(*this, item,
                  {"sips", "cubes_per_sip", "io_cpu", "io_link", "ucie", "sip_link"});
    system.sips = static_cast<int>(sys.required_integer("sips", 1));
    system.cubes_per_sip = static_cast<int>(sys.required_integer("cubes_per_sip", 1));

    const MapReader io_cpu = block(sys, "io_cpu", dflt::kIoCpuImpl, system.io_cpu.impl,
                                   system.io_cpu_impl_loc, {"overhead_ns"});
    system.io_cpu.overhead_ns =
        io_cpu.number("overhead_ns", dflt::kIoCpuOverheadNs, Bound::non_negative);

    system.io_link = link(MapReader(*this, sys.child("io_link"), {"latency_ns", "bw_gbs"}),
                          dflt::kIoLinkLatencyNs, dflt::kIoLinkBwGbs);
    const MapReader ucie(*this, sys.child("ucie"), {"latency_ns", "bw_gbs", "router"});
    system.ucie.link = link(ucie, dflt::kUcieLatencyNs, dflt::kUcieBwGbs);
    system.ucie.router = static_cast<int>(ucie.integer("router", dflt::kUcieRouter, 0));
    system.sip_link = link(MapReader(*this, sys.child("sip_link"), {"latency_ns", "bw_gbs"}),
                           dflt::kSipLinkLatencyNs, dflt::kSipLinkBwGbs);
}

void Loader::read_cube(const Item& item, CubeConfig& cube) {
    MapReader reader(*this, item,
                     {"m_cpu", "noc", "hbm_ctrl", "shared_sram", "memory_map", "pe_layout",
                      "pe_template"});

    const MapReader m_cpu = block(reader, "m_cpu", dflt::kMCpuImpl, cube.m_cpu.impl,
                                  cube.impl_loc["m_cpu"],
                                  {"overhead_ns", "router", "response_timeout_ns"});
    cube.m_cpu.overhead_ns = m_cpu.number("overhead_ns", dflt::kMCpuOverheadNs, Bound::non_negative);
    cube.m_cpu.router = static_cast<int>(m_cpu.integer("router", dflt::kMCpuRouter, 0));
    // No default: absent means the fan-out watchdog is off.
    cube.m_cpu.response_timeout_ns = m_cpu.optional_number("response_timeout_ns", Bound::positive);

    const MapReader noc = block(reader, "noc", dflt::kNocImpl, cube.noc.impl, cube.impl_loc["noc"],
                                {"link_bw_gbs", "router_latency_ns", "attach_latency_ns",
                                 "attach_bw_gbs"});
    cube.noc.link_bw_gbs = noc.number("link_bw_gbs", dflt::kNocLinkBwGbs, Bound::positive);
    cube.noc.router_latency_ns =
        noc.number("router_latency_ns", dflt::kNocRouterLatencyNs, Bound::non_negative);
    cube.noc.attach.latency_ns =
        noc.number("attach_latency_ns", dflt::kNocAttachLatencyNs, Bound::non_negative);
    cube.noc.attach.bw_gbs = noc.optional_number("attach_bw_gbs", Bound::positive);

    const MapReader hbm = block(reader, "hbm_ctrl", dflt::kHbmCtrlImpl, cube.hbm_ctrl.impl,
                                cube.impl_loc["hbm_ctrl"], {"bw_gbs", "latency_ns"});
    cube.hbm_ctrl.bw_gbs = hbm.number("bw_gbs", dflt::kHbmCtrlBwGbs, Bound::positive);
    cube.hbm_ctrl.latency_ns = hbm.number("latency_ns", dflt::kHbmCtrlLatencyNs, Bound::non_negative);

    const MapReader sram = block(reader, "shared_sram", dflt::kSharedSramImpl,
                                 cube.shared_sram.impl, cube.impl_loc["shared_sram"],
                                 {"size_mb", "bw_gbs", "latency_ns", "router"});
    cube.shared_sram.size_bytes = sram.size("size_mb", dflt::kSharedSramSizeMb, 20);
    cube.shared_sram.bw_gbs = sram.number("bw_gbs", dflt::kSharedSramBwGbs, Bound::positive);
    cube.shared_sram.latency_ns =
        sram.number("latency_ns", dflt::kSharedSramLatencyNs, Bound::non_negative);
    cube.shared_sram.router = static_cast<int>(sram.integer("router", dflt::kSharedSramRouter, 0));

    const MapReader map(*this, reader.child("memory_map"),
                        {"hbm_slices_per_cube", "hbm_slice_gb", "sram_base"});
    cube.memory_map.hbm_slices_per_cube =
        static_cast<int>(map.integer("hbm_slices_per_cube", dflt::kHbmSlicesPerCube, 1));
    cube.memory_map.hbm_slice_bytes = map.size("hbm_slice_gb", dflt::kHbmSliceGb, 30);
    const Item sram_base = map.child("sram_base");
    note(sram_base.loc);
    if (sram_base.present) {
        const long long base = to_integer(sram_base);
        if (base < 0) throw ConfigError(sram_base.loc, "must be >= 0 (got " + sram_base.node.Scalar() + ")");
        cube.memory_map.sram_base = static_cast<std::uint64_t>(base);
    } else {
        cube.memory_map.sram_base = dflt::kSramBase;
    }

    const MapReader layout(*this, reader.required("pe_layout"), {"rows", "cols", "pitch_mm"});
    cube.pe_layout.rows = static_cast<int>(layout.required_integer("rows", 1));
    cube.pe_layout.cols = static_cast<int>(layout.required_integer("cols", 1));
    cube.pe_layout.pitch_mm = layout.number("pitch_mm", dflt::kPePitchMm, Bound::non_negative);
    note(layout.item().loc);

    read_pe_template(reader.required("pe_template"), cube.pe_template);
}

void Loader::read_pe_template(const Item& item, PeTemplateConfig& tmpl) {
    const MapReader reader(*this, item, {"components", "links"});
    const MapReader components(*this, reader.required("components"), {}, /*any_key=*/true);

    for (const auto& [name, entry_item] : components.entries()) {
        if (!is_identifier(name))
            throw ConfigError(components.key_loc(name),
                              "component name must match [a-z][a-z0-9_]*");
        const MapReader entry(*this, entry_item, {"kind", "impl", "attrs"});
        const Item kind_item = entry.required("kind");
        const std::string kind = to_string(kind_item);
        if (std::find(pe_kinds().begin(), pe_kinds().end(), kind) == pe_kinds().end())
            throw ConfigError(kind_item.loc, "unknown component kind '" + kind +
                                                 "' (known kinds: " + join(pe_kinds()) + ")");
        if (tmpl.names.count(kind))
            throw ConfigError(kind_item.loc, "kind '" + kind + "' given twice (components '" +
                                                 tmpl.names[kind] + "' and '" + name + "')");
        tmpl.names[kind] = name;
        const Item impl_item = entry.required("impl");
        const std::string impl = to_string(impl_item);
        check_impl(kind, impl, impl_item.loc);
        tmpl.impl_loc[kind] = impl_item.loc;
        read_component(kind, impl, entry.child("attrs"), tmpl);
    }
    for (const auto& kind : pe_kinds())
        if (!tmpl.names.count(kind))
            throw ConfigError(components.item().loc, "missing component of kind '" + kind +
                                                         "' (exactly one of each: " +
                                                         join(pe_kinds()) + ")");

    const MapReader links(*this, reader.child("links"),
                          {"cpu_to_scheduler_mm", "scheduler_to_dma_mm",
                           "scheduler_to_fetch_store_mm", "scheduler_to_gemm_mm",
                           "scheduler_to_math_mm", "dma_to_fetch_store_mm",
                           "fetch_store_to_gemm_mm", "fetch_store_to_math_mm",
                           "gemm_to_fetch_store_mm", "gemm_to_math_mm", "math_to_fetch_store_mm",
                           "fetch_store_to_dma_mm", "fetch_store_to_tcm_bw_gbs"});
    PeLinksConfig& l = tmpl.links;
    const auto mm = [&](const char* key) {
        return links.number(key, dflt::kPeLinkMm, Bound::non_negative);
    };
    l.cpu_to_scheduler_mm = mm("cpu_to_scheduler_mm");
    l.scheduler_to_dma_mm = mm("scheduler_to_dma_mm");
    l.scheduler_to_fetch_store_mm = mm("scheduler_to_fetch_store_mm");
    l.scheduler_to_gemm_mm = mm("scheduler_to_gemm_mm");
    l.scheduler_to_math_mm = mm("scheduler_to_math_mm");
    l.dma_to_fetch_store_mm = mm("dma_to_fetch_store_mm");
    l.fetch_store_to_gemm_mm = mm("fetch_store_to_gemm_mm");
    l.fetch_store_to_math_mm = mm("fetch_store_to_math_mm");
    l.gemm_to_fetch_store_mm = mm("gemm_to_fetch_store_mm");
    l.gemm_to_math_mm = mm("gemm_to_math_mm");
    l.math_to_fetch_store_mm = mm("math_to_fetch_store_mm");
    l.fetch_store_to_dma_mm = mm("fetch_store_to_dma_mm");
    l.fetch_store_to_tcm_bw_gbs =
        links.number("fetch_store_to_tcm_bw_gbs", dflt::kPeFetchStoreToTcmBwGbs, Bound::positive);
}

void Loader::read_component(const std::string& kind, const std::string& impl, const Item& attrs,
                            PeTemplateConfig& tmpl) {
    const auto shared_resource = [&](const MapReader& reader) {
        const Item item = reader.child("shared_resource");
        const std::string value = reader.string("shared_resource", dflt::kAccelSlot);
        if (value != dflt::kAccelSlot)
            throw ConfigError(item.loc, std::string("must be '") + dflt::kAccelSlot + "' (got '" +
                                            value + "')");
        return value;
    };
    const auto as_int = [](long long value) { return static_cast<int>(value); };

    if (kind == "pe_cpu") {
        const MapReader a(*this, attrs, {"overhead_ns"});
        tmpl.cpu.impl = impl;
        tmpl.cpu.overhead_ns = a.number("overhead_ns", dflt::kPeCpuOverheadNs, Bound::non_negative);
    } else if (kind == "pe_scheduler") {
        const MapReader a(*this, attrs, {"overhead_ns", "inbox_depth", "bank_policy", "bank_limit"});
        tmpl.scheduler.impl = impl;
        tmpl.scheduler.overhead_ns =
            a.number("overhead_ns", dflt::kPeSchedulerOverheadNs, Bound::non_negative);
        tmpl.scheduler.inbox_depth = as_int(a.integer("inbox_depth", dflt::kPeSchedulerInboxDepth, 1));
        const std::string policy = a.string("bank_policy", dflt::kPeSchedulerBankPolicy);
        if (policy == "serialize")
            tmpl.scheduler.bank_policy = BankPolicy::serialize;
        else if (policy == "detect")
            tmpl.scheduler.bank_policy = BankPolicy::detect;
        else
            throw ConfigError(a.child("bank_policy").loc,
                              "must be 'serialize' or 'detect' (got '" + policy + "')");
        tmpl.scheduler.bank_limit = as_int(a.integer("bank_limit", dflt::kPeSchedulerBankLimit, 1));
    } else if (kind == "pe_dma") {
        const MapReader a(*this, attrs,
                          {"rd_engines", "wr_engines", "setup_ns", "bw_gbs", "banks_per_transfer"});
        tmpl.dma.impl = impl;
        tmpl.dma.rd_engines = as_int(a.integer("rd_engines", dflt::kPeDmaRdEngines, 1));
        tmpl.dma.wr_engines = as_int(a.integer("wr_engines", dflt::kPeDmaWrEngines, 1));
        tmpl.dma.setup_ns = a.number("setup_ns", dflt::kPeDmaSetupNs, Bound::non_negative);
        tmpl.dma.bw_gbs = a.number("bw_gbs", dflt::kPeDmaBwGbs, Bound::positive);
        // <= pe_tcm banks is checked in check_fit (the components come in any order).
        tmpl.dma.banks_per_transfer =
            as_int(a.integer("banks_per_transfer", dflt::kPeDmaBanksPerTransfer, 1));
    } else if (kind == "pe_fetch_store") {
        const MapReader a(*this, attrs, {"latency_ns"});
        tmpl.fetch_store.impl = impl;
        tmpl.fetch_store.latency_ns =
            a.number("latency_ns", dflt::kPeFetchStoreLatencyNs, Bound::non_negative);
    } else if (kind == "pe_gemm") {
        const MapReader a(*this, attrs, {"shared_resource", "rows", "cols", "freq_ghz", "fill_cycles"});
        tmpl.gemm.impl = impl;
        tmpl.gemm.shared_resource = shared_resource(a);
        tmpl.gemm.rows = as_int(a.integer("rows", dflt::kPeGemmRows, 1));
        tmpl.gemm.cols = as_int(a.integer("cols", dflt::kPeGemmCols, 1));
        tmpl.gemm.freq_ghz = a.number("freq_ghz", dflt::kPeGemmFreqGhz, Bound::positive);
        tmpl.gemm.fill_cycles = as_int(a.integer("fill_cycles", dflt::kPeGemmFillCycles, 0));
    } else if (kind == "pe_math") {
        const MapReader a(*this, attrs, {"shared_resource", "lanes", "freq_ghz", "fill_cycles", "op_cost"});
        tmpl.math.impl = impl;
        tmpl.math.shared_resource = shared_resource(a);
        tmpl.math.lanes = as_int(a.integer("lanes", dflt::kPeMathLanes, 1));
        tmpl.math.freq_ghz = a.number("freq_ghz", dflt::kPeMathFreqGhz, Bound::positive);
        tmpl.math.fill_cycles = as_int(a.integer("fill_cycles", dflt::kPeMathFillCycles, 0));
        // Ops left out keep their default cost, so a topology may tune one op.
        const MapReader costs(*this, a.child("op_cost"), math_ops());
        tmpl.math.op_cost.clear();
        for (const auto& entry : dflt::kPeMathOpCost)
            tmpl.math.op_cost[entry.op] = costs.number(entry.op, entry.cycles, Bound::non_negative);
    } else if (kind == "pe_tcm") {
        const MapReader a(*this, attrs,
                          {"size_mb", "reserved_mb", "read_bw_gbs", "write_bw_gbs", "latency_ns",
                           "banks", "bank_interleave_bytes"});
        tmpl.tcm.impl = impl;
        tmpl.tcm.size_bytes = a.size("size_mb", dflt::kPeTcmSizeMb, 20);
        tmpl.tcm.reserved_bytes = a.size("reserved_mb", dflt::kPeTcmReservedMb, 20);
        tmpl.tcm.read_bw_gbs = a.number("read_bw_gbs", dflt::kPeTcmReadBwGbs, Bound::positive);
        tmpl.tcm.write_bw_gbs = a.number("write_bw_gbs", dflt::kPeTcmWriteBwGbs, Bound::positive);
        tmpl.tcm.latency_ns = a.number("latency_ns", dflt::kPeTcmLatencyNs, Bound::non_negative);
        tmpl.tcm.banks = as_int(a.integer("banks", dflt::kPeTcmBanks, 1));
        tmpl.tcm.bank_interleave_bytes = static_cast<std::uint64_t>(
            a.integer("bank_interleave_bytes", dflt::kPeTcmBankInterleaveBytes, 1));
        // Checked here rather than in check_fit: the component's name is in the path.
        if (tmpl.tcm.reserved_bytes >= tmpl.tcm.size_bytes)
            throw ConfigError(a.child("reserved_mb").loc,
                              "must be < size_mb (got " + std::to_string(tmpl.tcm.reserved_bytes >> 20) +
                                  " >= " + std::to_string(tmpl.tcm.size_bytes >> 20) + ")");
    } else if (kind == "pe_mmu") {
        const MapReader a(*this, attrs, {"page_kb", "translate_ns"});
        tmpl.mmu.impl = impl;
        tmpl.mmu.page_bytes = a.size("page_kb", dflt::kPeMmuPageKb, 10);
        tmpl.mmu.translate_ns = a.number("translate_ns", dflt::kPeMmuTranslateNs, Bound::non_negative);
    } else if (kind == "pe_ipcq") {
        const MapReader a(*this, attrs, {"slots", "slot_kb"});
        tmpl.ipcq.impl = impl;
        tmpl.ipcq.slots = as_int(a.integer("slots", dflt::kPeIpcqSlots, 1));
        tmpl.ipcq.slot_bytes = a.size("slot_kb", dflt::kPeIpcqSlotKb, 10);
    }
}

void Loader::check_fit(const TopologyConfig& config) const {
    const SystemConfig& sys = config.system;
    const long long cubes = static_cast<long long>(sys.sips) * sys.cubes_per_sip;
    if (cubes > dflt::kMaxCubes)
        throw ConfigError(loc_at("system.cubes_per_sip"),
                          "sips × cubes_per_sip = " + std::to_string(cubes) + " exceeds " +
                              std::to_string(dflt::kMaxCubes) + " cubes");

    const CubeConfig& cube = config.cube;
    const long long pes = static_cast<long long>(cube.pe_layout.rows) * cube.pe_layout.cols;
    if (pes > dflt::kMaxPesPerCube)
        throw ConfigError(loc_at("cube.pe_layout"),
                          "rows × cols = " + std::to_string(pes) + " PEs exceeds " +
                              std::to_string(dflt::kMaxPesPerCube));
    const std::string mesh = std::to_string(cube.pe_layout.rows) + " × " +
                             std::to_string(cube.pe_layout.cols);
    if (cube.memory_map.hbm_slices_per_cube != pes)
        throw ConfigError(loc_at("cube.memory_map.hbm_slices_per_cube"),
                          "must equal pe_layout rows × cols = " + std::to_string(pes) +
                              " (one HBM slice per PE; got " +
                              std::to_string(cube.memory_map.hbm_slices_per_cube) + ")");

    const auto check_router = [&](const std::string& path, int router) {
        if (router >= pes)
            throw ConfigError(loc_at(path), "must be a router of the " + mesh + " mesh, in [0, " +
                                                std::to_string(pes) + ") (got " +
                                                std::to_string(router) + ")");
    };
    check_router("cube.m_cpu.attrs.router", cube.m_cpu.router);
    check_router("cube.shared_sram.attrs.router", cube.shared_sram.router);
    check_router("system.ucie.router", sys.ucie.router);

    const PeTemplateConfig& tmpl = cube.pe_template;
    if (tmpl.dma.banks_per_transfer > tmpl.tcm.banks) {
        const std::string components = "cube.pe_template.components.";
        throw ConfigError(loc_at(components + tmpl.names.at("pe_dma") + ".attrs.banks_per_transfer"),
                          "must be <= pe_tcm banks = " + std::to_string(tmpl.tcm.banks) +
                              " (got " + std::to_string(tmpl.dma.banks_per_transfer) + ")");
    }
}

// What an impl checks beyond its kind's schema (ImplRegistry::add_check),
// for every block of the topology.
void Loader::check_impls(const TopologyConfig& config) const {
    const PeTemplateConfig& t = config.cube.pe_template;
    const std::pair<const char*, const std::string*> blocks[] = {
        {"io_cpu", &config.system.io_cpu.impl}, {"m_cpu", &config.cube.m_cpu.impl},
        {"noc", &config.cube.noc.impl},         {"hbm_ctrl", &config.cube.hbm_ctrl.impl},
        {"shared_sram", &config.cube.shared_sram.impl},
        {"pe_cpu", &t.cpu.impl},                {"pe_scheduler", &t.scheduler.impl},
        {"pe_dma", &t.dma.impl},                {"pe_fetch_store", &t.fetch_store.impl},
        {"pe_gemm", &t.gemm.impl},              {"pe_math", &t.math.impl},
        {"pe_tcm", &t.tcm.impl},                {"pe_mmu", &t.mmu.impl},
        {"pe_ipcq", &t.ipcq.impl}};
    const ImplRegistry::Where where = [this](const std::string& path) {
        auto it = m_locs.find(path);
        return it != m_locs.end() ? it->second : SourceLoc{m_source, 0, 0, path};
    };
    for (const auto& [kind, impl] : blocks) m_impls.check(kind, *impl, config, where);
}

TopologyConfig Loader::load(const YAML::Node& root) {
    Item top_item;
    top_item.node.reset(root);
    top_item.present = true;
    top_item.loc = loc_of(root, false, "");
    const MapReader top(*this, top_item, {"name", "wire", "system", "cube"});

    TopologyConfig config;
    config.source = m_source;
    config.name = top.string("name", dflt::kTopologyName);
    const MapReader wire(*this, top.child("wire"), {"ns_per_mm"});
    config.wire.ns_per_mm = wire.number("ns_per_mm", dflt::kWireNsPerMm, Bound::non_negative);
    read_system(top.required("system"), config.system);
    read_cube(top.required("cube"), config.cube);
    check_fit(config);
    check_impls(config);
    return config;
}

}  // namespace

// ---------------------------------------------------------------- public API

Override parse_override(const std::string& arg) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos)
        throw ConfigError(SourceLoc{kSetFile, 0, 0, ""},
                          "expected key.path=value (got '" + arg + "')");
    Override result{arg.substr(0, eq), arg.substr(eq + 1)};
    if (result.key_path.empty())
        throw ConfigError(SourceLoc{kSetFile, 0, 0, ""}, "empty key path in '" + arg + "'");
    for (const auto& segment : split_key_path(result.key_path))
        if (segment.empty() || segment.find_first_of(" \t") != std::string::npos)
            throw ConfigError(SourceLoc{kSetFile, 0, 0, result.key_path},
                              "malformed key path (want dotted names, e.g. cube.noc.attrs.link_bw_gbs)");
    parse_override_value(result);  // reject bad YAML now, before any file is read
    return result;
}

TopologyConfig load_topology_file(const std::string& path, const std::vector<Override>& overrides,
                                  const ImplRegistry& impls) {
    return load_topology_text(read_input_file(path), path, overrides, impls);
}

TopologyConfig load_topology_text(const std::string& text, const std::string& source_name,
                                  const std::vector<Override>& overrides,
                                  const ImplRegistry& impls) {
    YAML::Node root = parse_map_document(text, source_name, "topology keys");
    Loader loader(source_name, impls);
    return translate_yaml_errors(source_name, [&] {
        for (const auto& override_ : overrides) loader.apply(root, override_);
        return loader.load(root);
    });
}

// ---------------------------------------------------------------- dump

namespace {

void emit(YAML::Emitter& out, const char* key, double value) {
    out << YAML::Key << key << YAML::Value << format_double(value);
}
void emit(YAML::Emitter& out, const char* key, int value) {
    out << YAML::Key << key << YAML::Value << value;
}
void emit(YAML::Emitter& out, const char* key, const std::string& value) {
    out << YAML::Key << key << YAML::Value << value;
}
// Sizes are stored in bytes and written in the key's unit (2^shift bytes).
void emit_size(YAML::Emitter& out, const char* key, std::uint64_t bytes, int shift) {
    out << YAML::Key << key << YAML::Value << (bytes >> shift);
}

void emit_link(YAML::Emitter& out, const char* key, const LinkConfig& link) {
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
    emit(out, "latency_ns", link.latency_ns);
    if (link.bw_gbs) emit(out, "bw_gbs", *link.bw_gbs);
    out << YAML::EndMap;
}

// `key: { impl: ..., attrs: { ... } }` for a block whose kind is its key;
// the caller writes the attrs and closes both maps.
void begin_block(YAML::Emitter& out, const std::string& key, const std::string& kind,
                 const std::string& impl) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    emit(out, "kind", kind);
    emit(out, "impl", impl);
    out << YAML::Key << "attrs" << YAML::Value << YAML::Flow << YAML::BeginMap;
}
void end_block(YAML::Emitter& out) { out << YAML::EndMap << YAML::EndMap; }

}  // namespace

std::string dump_topology_yaml(const TopologyConfig& c) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    emit(out, "name", c.name);
    out << YAML::Key << "wire" << YAML::Value << YAML::BeginMap;
    emit(out, "ns_per_mm", c.wire.ns_per_mm);
    out << YAML::EndMap;

    const SystemConfig& s = c.system;
    out << YAML::Key << "system" << YAML::Value << YAML::BeginMap;
    emit(out, "sips", s.sips);
    emit(out, "cubes_per_sip", s.cubes_per_sip);
    begin_block(out, "io_cpu", "io_cpu", s.io_cpu.impl);
    emit(out, "overhead_ns", s.io_cpu.overhead_ns);
    end_block(out);
    emit_link(out, "io_link", s.io_link);
    out << YAML::Key << "ucie" << YAML::Value << YAML::Flow << YAML::BeginMap;
    emit(out, "latency_ns", s.ucie.link.latency_ns);
    if (s.ucie.link.bw_gbs) emit(out, "bw_gbs", *s.ucie.link.bw_gbs);
    emit(out, "router", s.ucie.router);
    out << YAML::EndMap;
    emit_link(out, "sip_link", s.sip_link);
    out << YAML::EndMap;

    const CubeConfig& cube = c.cube;
    out << YAML::Key << "cube" << YAML::Value << YAML::BeginMap;
    begin_block(out, "m_cpu", "m_cpu", cube.m_cpu.impl);
    emit(out, "overhead_ns", cube.m_cpu.overhead_ns);
    emit(out, "router", cube.m_cpu.router);
    if (cube.m_cpu.response_timeout_ns)
        emit(out, "response_timeout_ns", *cube.m_cpu.response_timeout_ns);
    end_block(out);
    begin_block(out, "noc", "noc", cube.noc.impl);
    emit(out, "link_bw_gbs", cube.noc.link_bw_gbs);
    emit(out, "router_latency_ns", cube.noc.router_latency_ns);
    emit(out, "attach_latency_ns", cube.noc.attach.latency_ns);
    if (cube.noc.attach.bw_gbs) emit(out, "attach_bw_gbs", *cube.noc.attach.bw_gbs);
    end_block(out);
    begin_block(out, "hbm_ctrl", "hbm_ctrl", cube.hbm_ctrl.impl);
    emit(out, "bw_gbs", cube.hbm_ctrl.bw_gbs);
    emit(out, "latency_ns", cube.hbm_ctrl.latency_ns);
    end_block(out);
    begin_block(out, "shared_sram", "shared_sram", cube.shared_sram.impl);
    emit_size(out, "size_mb", cube.shared_sram.size_bytes, 20);
    emit(out, "bw_gbs", cube.shared_sram.bw_gbs);
    emit(out, "latency_ns", cube.shared_sram.latency_ns);
    emit(out, "router", cube.shared_sram.router);
    end_block(out);

    out << YAML::Key << "memory_map" << YAML::Value << YAML::Flow << YAML::BeginMap;
    emit(out, "hbm_slices_per_cube", cube.memory_map.hbm_slices_per_cube);
    emit_size(out, "hbm_slice_gb", cube.memory_map.hbm_slice_bytes, 30);
    char base[32];
    std::snprintf(base, sizeof base, "0x%llx",
                  static_cast<unsigned long long>(cube.memory_map.sram_base));
    emit(out, "sram_base", std::string(base));
    out << YAML::EndMap;

    out << YAML::Key << "pe_layout" << YAML::Value << YAML::Flow << YAML::BeginMap;
    emit(out, "rows", cube.pe_layout.rows);
    emit(out, "cols", cube.pe_layout.cols);
    emit(out, "pitch_mm", cube.pe_layout.pitch_mm);
    out << YAML::EndMap;

    const PeTemplateConfig& t = cube.pe_template;
    const auto name_of = [&](const std::string& kind) {
        const auto it = t.names.find(kind);
        return it != t.names.end() ? it->second : kind;
    };
    out << YAML::Key << "pe_template" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "components" << YAML::Value << YAML::BeginMap;
    begin_block(out, name_of("pe_cpu"), "pe_cpu", t.cpu.impl);
    emit(out, "overhead_ns", t.cpu.overhead_ns);
    end_block(out);
    begin_block(out, name_of("pe_scheduler"), "pe_scheduler", t.scheduler.impl);
    emit(out, "overhead_ns", t.scheduler.overhead_ns);
    emit(out, "inbox_depth", t.scheduler.inbox_depth);
    emit(out, "bank_policy",
         std::string(t.scheduler.bank_policy == BankPolicy::detect ? "detect" : "serialize"));
    emit(out, "bank_limit", t.scheduler.bank_limit);
    end_block(out);
    begin_block(out, name_of("pe_dma"), "pe_dma", t.dma.impl);
    emit(out, "rd_engines", t.dma.rd_engines);
    emit(out, "wr_engines", t.dma.wr_engines);
    emit(out, "setup_ns", t.dma.setup_ns);
    emit(out, "bw_gbs", t.dma.bw_gbs);
    emit(out, "banks_per_transfer", t.dma.banks_per_transfer);
    end_block(out);
    begin_block(out, name_of("pe_fetch_store"), "pe_fetch_store", t.fetch_store.impl);
    emit(out, "latency_ns", t.fetch_store.latency_ns);
    end_block(out);
    begin_block(out, name_of("pe_gemm"), "pe_gemm", t.gemm.impl);
    emit(out, "shared_resource", t.gemm.shared_resource);
    emit(out, "rows", t.gemm.rows);
    emit(out, "cols", t.gemm.cols);
    emit(out, "freq_ghz", t.gemm.freq_ghz);
    emit(out, "fill_cycles", t.gemm.fill_cycles);
    end_block(out);
    begin_block(out, name_of("pe_math"), "pe_math", t.math.impl);
    emit(out, "shared_resource", t.math.shared_resource);
    emit(out, "lanes", t.math.lanes);
    emit(out, "freq_ghz", t.math.freq_ghz);
    emit(out, "fill_cycles", t.math.fill_cycles);
    out << YAML::Key << "op_cost" << YAML::Value << YAML::BeginMap;
    for (const auto& [op, cycles] : t.math.op_cost) emit(out, op.c_str(), cycles);
    out << YAML::EndMap;
    end_block(out);
    begin_block(out, name_of("pe_tcm"), "pe_tcm", t.tcm.impl);
    emit_size(out, "size_mb", t.tcm.size_bytes, 20);
    emit_size(out, "reserved_mb", t.tcm.reserved_bytes, 20);
    emit(out, "read_bw_gbs", t.tcm.read_bw_gbs);
    emit(out, "write_bw_gbs", t.tcm.write_bw_gbs);
    emit(out, "latency_ns", t.tcm.latency_ns);
    emit(out, "banks", t.tcm.banks);
    emit(out, "bank_interleave_bytes", static_cast<int>(t.tcm.bank_interleave_bytes));
    end_block(out);
    begin_block(out, name_of("pe_mmu"), "pe_mmu", t.mmu.impl);
    emit_size(out, "page_kb", t.mmu.page_bytes, 10);
    emit(out, "translate_ns", t.mmu.translate_ns);
    end_block(out);
    begin_block(out, name_of("pe_ipcq"), "pe_ipcq", t.ipcq.impl);
    emit(out, "slots", t.ipcq.slots);
    emit_size(out, "slot_kb", t.ipcq.slot_bytes, 10);
    end_block(out);
    out << YAML::EndMap;  // components

    const PeLinksConfig& l = t.links;
    out << YAML::Key << "links" << YAML::Value << YAML::BeginMap;
    emit(out, "cpu_to_scheduler_mm", l.cpu_to_scheduler_mm);
    emit(out, "scheduler_to_dma_mm", l.scheduler_to_dma_mm);
    emit(out, "scheduler_to_fetch_store_mm", l.scheduler_to_fetch_store_mm);
    emit(out, "scheduler_to_gemm_mm", l.scheduler_to_gemm_mm);
    emit(out, "scheduler_to_math_mm", l.scheduler_to_math_mm);
    emit(out, "dma_to_fetch_store_mm", l.dma_to_fetch_store_mm);
    emit(out, "fetch_store_to_gemm_mm", l.fetch_store_to_gemm_mm);
    emit(out, "fetch_store_to_math_mm", l.fetch_store_to_math_mm);
    emit(out, "gemm_to_fetch_store_mm", l.gemm_to_fetch_store_mm);
    emit(out, "gemm_to_math_mm", l.gemm_to_math_mm);
    emit(out, "math_to_fetch_store_mm", l.math_to_fetch_store_mm);
    emit(out, "fetch_store_to_dma_mm", l.fetch_store_to_dma_mm);
    emit(out, "fetch_store_to_tcm_bw_gbs", l.fetch_store_to_tcm_bw_gbs);
    out << YAML::EndMap;  // links
    out << YAML::EndMap;  // pe_template
    out << YAML::EndMap;  // cube
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

}  // namespace npuvp
