#include "config/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace npuvp {

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

// ---------------------------------------------------------------- YamlReader

Item YamlReader::root(const YAML::Node& node) const {
    Item item;
    item.node.reset(node);
    item.present = true;
    item.loc = loc_of(node, false, "");
    return item;
}

Item YamlReader::child_item(const Item& parent, const YAML::Node& node,
                            const std::string& key) const {
    Item item;
    item.node.reset(node);
    item.present = true;
    item.from_set = parent.from_set || is_set_node(node);
    item.loc = loc_of(node, item.from_set, child_path(parent.loc.key_path, key));
    return item;
}

Item YamlReader::element(const Item& list, std::size_t index) const {
    Item item = child_item(list, list.node[index], "");
    item.loc.key_path = list.loc.key_path + "[" + std::to_string(index) + "]";
    return item;
}

SourceLoc YamlReader::key_loc(const Item& parent, const YAML::Node& key,
                              const std::string& path) const {
    return loc_of(key, parent.from_set || key.Mark().is_null(), path);
}

bool YamlReader::is_set_node(const YAML::Node& node) const {
    // Nodes made by --set have no mark (intermediate maps) or are the
    // parsed override values, which yaml-cpp identifies by reference.
    if (!m_rules.overrides) return false;
    if (node.Mark().is_null()) return true;
    return std::any_of(m_set_nodes.begin(), m_set_nodes.end(),
                       [&](const YAML::Node& set_node) { return set_node.is(node); });
}

SourceLoc YamlReader::loc_of(const YAML::Node& node, bool from_set, const std::string& path) const {
    if (from_set) return SourceLoc{kSetFile, 0, 0, path};
    const YAML::Mark mark = node.Mark();
    return SourceLoc{m_source, mark.line + 1, mark.column + 1, path};
}

double YamlReader::to_double(const Item& item) const {
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

namespace {

// The text of an integer scalar; a map, a list or a quoted string is an error.
const std::string& integer_scalar(const Item& item) {
    const YAML::Node& node = item.node;
    if (!node.IsScalar())
        throw ConfigError(item.loc, "expected an integer, got " + describe(node));
    if (node.Tag() == "!")
        throw ConfigError(item.loc, "expected an integer, got the string '" + node.Scalar() + "'");
    return node.Scalar();
}

// Decimal, or hex with 0x (addresses); never octal, so that "010" is 10.
int integer_base(const std::string& text, std::size_t start) {
    const bool hex = text.size() > start + 2 && text[start] == '0' &&
                     (text[start + 1] == 'x' || text[start + 1] == 'X');
    return hex ? 16 : 10;
}

}  // namespace

long long YamlReader::to_integer(const Item& item) const {
    const std::string& text = integer_scalar(item);
    std::size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    const int base = integer_base(text, start);
    const bool digits_only = text.size() > start && !std::isspace(static_cast<unsigned char>(text[start]));
    char* end = nullptr;
    errno = 0;
    const long long value = digits_only ? std::strtoll(text.c_str(), &end, base) : 0;
    if (!digits_only || *end != '\0')
        throw ConfigError(item.loc, "expected an integer (got '" + text + "')");
    if (errno == ERANGE) throw ConfigError(item.loc, "too large (got " + text + ")");
    return value;
}

std::string YamlReader::to_string(const Item& item) const {
    if (!item.node.IsScalar())
        throw ConfigError(item.loc, "expected a string, got " + describe(item.node));
    return item.node.Scalar();
}

std::uint64_t YamlReader::to_unsigned(const Item& item) const {
    const std::string& text = integer_scalar(item);
    if (!text.empty() && text[0] == '-')
        throw ConfigError(item.loc, "must be >= 0 (got " + text + ")");
    const std::size_t start = (!text.empty() && text[0] == '+') ? 1 : 0;
    const int base = integer_base(text, start);
    const bool digits =
        text.size() > start && std::isxdigit(static_cast<unsigned char>(text[start]));
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = digits ? std::strtoull(text.c_str() + start, &end, base) : 0;
    if (!digits || *end != '\0')
        throw ConfigError(item.loc, "expected an integer (got '" + text + "')");
    if (errno == ERANGE) throw ConfigError(item.loc, "too large (got " + text + ")");
    return value;
}

bool YamlReader::to_bool(const Item& item) const {
    if (item.node.IsScalar() && item.node.Tag() != "!") {
        if (item.node.Scalar() == "true") return true;
        if (item.node.Scalar() == "false") return false;
    }
    throw ConfigError(item.loc, "expected true or false, got " + describe(item.node));
}

// ---------------------------------------------------------------- MapReader

namespace {

std::vector<std::string> sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

MapReader::MapReader(YamlReader& reader, const Item& item, std::vector<std::string> allowed,
                     bool any_key)
    : m_reader(&reader), m_item(item) {
    open(allowed, any_key, {});
}

MapReader::MapReader(YamlReader& reader, const Item& item, std::vector<std::string> allowed,
                     const std::map<std::string, std::string>& reserved)
    : m_reader(&reader), m_item(item) {
    open(allowed, false, reserved);
}

void MapReader::open(const std::vector<std::string>& allowed, bool any_key,
                     const std::map<std::string, std::string>& reserved) {
    YamlReader& reader = *m_reader;
    const Item& item = m_item;
    const bool terse = reader.rules().terse_map_errors;
    if (!item.present || (item.node.IsNull() && !terse)) return;
    if (!item.node.IsMap())
        throw ConfigError(item.loc, terse ? "expected a map" : "expected a map, got " + describe(item.node));
    for (auto it = item.node.begin(); it != item.node.end(); ++it) {
        if (!it->first.IsScalar())
            throw ConfigError(reader.key_loc(item, it->first, item.loc.key_path),
                              "keys must be plain names, got " + describe(it->first));
        const std::string key = it->first.Scalar();
        const SourceLoc loc = reader.key_loc(item, it->first, child_path(item.loc.key_path, key));
        const auto res = reserved.find(key);
        if (res != reserved.end())
            throw ConfigError(loc, "key '" + key + "' is reserved for a later version (" +
                                       res->second + ") and not supported yet");
        if (!any_key && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            throw ConfigError(loc, terse ? "unknown key (known: " + join(sorted(allowed)) + ")"
                                         : "unknown key '" + key + "' (allowed: " + join(allowed) + ")");
        if (m_key_locs.count(key))
            throw ConfigError(loc, "duplicate key '" + key + "'");
        m_key_locs[key] = loc;
        m_entries.emplace_back(key, reader.child_item(item, it->second, key));
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
    if (!item.present || (m_reader->rules().null_is_missing && item.node.IsNull()))
        throw ConfigError(item.loc, "missing required key '" + key + "'");
    return item;
}

double MapReader::number(const std::string& key, double fallback, Bound bound) const {
    const std::optional<double> value = optional_number(key, bound);
    if (!value) m_reader->note(child(key).loc);
    return value ? *value : fallback;
}

std::optional<double> MapReader::optional_number(const std::string& key, Bound bound) const {
    const Item item = child(key);
    if (!item.present) return std::nullopt;
    const double value = m_reader->to_double(item);
    if (bound == Bound::positive && !(value > 0.0))
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    if (bound == Bound::non_negative && value < 0.0)
        throw ConfigError(item.loc, "must be >= 0 (got " + item.node.Scalar() + ")");
    m_reader->note(item.loc);
    return value;
}

long long MapReader::integer(const std::string& key, long long fallback, long long min) const {
    const Item item = child(key);
    m_reader->note(item.loc);
    if (!item.present) return fallback;
    const long long value = m_reader->to_integer(item);
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
    m_reader->note(item.loc);
    const long long value = item.present ? m_reader->to_integer(item) : fallback;
    if (value <= 0)
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    if (static_cast<std::uint64_t>(value) > (std::numeric_limits<std::uint64_t>::max() >> shift))
        throw ConfigError(item.loc, "too large (got " + item.node.Scalar() + ")");
    return static_cast<std::uint64_t>(value) << shift;
}

std::string MapReader::string(const std::string& key, const std::string& fallback) const {
    const Item item = child(key);
    m_reader->note(item.loc);
    return item.present ? m_reader->to_string(item) : fallback;
}

std::uint64_t MapReader::address(const std::string& key, std::uint64_t fallback) const {
    const Item item = child(key);
    m_reader->note(item.loc);
    if (!item.present) return fallback;
    const long long value = m_reader->to_integer(item);
    if (value < 0) throw ConfigError(item.loc, "must be >= 0 (got " + item.node.Scalar() + ")");
    return static_cast<std::uint64_t>(value);
}

}  // namespace npuvp
