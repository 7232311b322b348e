// The YAML reader every config file goes through (STYLE "Configuration in two
// layers"): an Item is a node with its key path and where it came from, a
// MapReader is one YAML map that rejects unknown and duplicate keys and hands
// out typed, range-checked values with their defaults, and YamlReader turns
// scalars into numbers and strings. Every error is a ConfigError naming file,
// line, column and key path. The field tables of config/schema.h drive it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/config_error.h"
#include "config/yaml_document.h"

namespace npuvp {

// Where a value given on the command line (`--set`) is reported from.
inline constexpr const char* kSetFile = "--set";

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

// Shortest decimal text that reads back to exactly `value`, always with a '.'
// or an exponent so that it reads as a float.
std::string format_double(double value);

// Reads the scalars of one source file and remembers where each value read
// came from (for checks that span sections).
class YamlReader {
public:
    // The rules where the topology and the workload files differ. Overrides:
    // nodes without a mark were made by `--set` (the topology); otherwise a
    // node without a mark is reported at line 0. Null as missing: a required
    // key given an empty value is missing (the workload) rather than an empty
    // map that takes its defaults (the topology).
    // Terse map errors: the sweep file's wording, kept as its tests check it
    // ("expected a map" without what was found, and a null is not an empty
    // map; "unknown key (known: a, b)" with the known keys sorted).
    struct Rules {
        bool overrides = true;
        bool null_is_missing = false;
        bool terse_map_errors = false;
    };

    explicit YamlReader(std::string source) : m_source(std::move(source)) {}
    YamlReader(std::string source, Rules rules) : m_source(std::move(source)), m_rules(rules) {}

    const Rules& rules() const { return m_rules; }

    const std::string& source() const { return m_source; }

    // The document's root map.
    Item root(const YAML::Node& node) const;
    Item child_item(const Item& parent, const YAML::Node& node, const std::string& key) const;
    SourceLoc key_loc(const Item& parent, const YAML::Node& key, const std::string& path) const;
    // Element `index` of a list, named `path[index]`.
    Item element(const Item& list, std::size_t index) const;

    // Nodes made by `--set`: values from them are reported as "--set".
    void add_set_node(const YAML::Node& node) { m_set_nodes.push_back(node); }

    // Every scalar read goes through here; its location is kept for the
    // cross-section checks.
    void note(const SourceLoc& loc) { m_locs[loc.key_path] = loc; }
    const SourceLoc& loc_at(const std::string& path) const { return m_locs.at(path); }
    const std::map<std::string, SourceLoc>& locs() const { return m_locs; }

    double to_double(const Item& item) const;
    long long to_integer(const Item& item) const;
    std::string to_string(const Item& item) const;
    // An integer >= 0 over the whole 64-bit range (addresses, byte counts).
    std::uint64_t to_unsigned(const Item& item) const;
    // `true` or `false`.
    bool to_bool(const Item& item) const;

private:
    bool is_set_node(const YAML::Node& node) const;
    SourceLoc loc_of(const YAML::Node& node, bool from_set, const std::string& path) const;

    std::string m_source;
    Rules m_rules;
    std::vector<YAML::Node> m_set_nodes;
    std::map<std::string, SourceLoc> m_locs;
};

// One YAML map of the schema: rejects unknown and duplicate keys on
// construction, then hands out values with their defaults and range checks.
// An absent or null map reads as empty, so every key takes its default.
class MapReader {
public:
    // `allowed` empty with `any_key` set: every key is accepted (the caller
    // checks them, e.g. component names).
    MapReader(YamlReader& reader, const Item& item, std::vector<std::string> allowed,
              bool any_key = false);
    // `reserved`: keys a later version will take (key -> what for); naming
    // one is an error that says so rather than "unknown key".
    MapReader(YamlReader& reader, const Item& item, std::vector<std::string> allowed,
              const std::map<std::string, std::string>& reserved);

    YamlReader& reader() const { return *m_reader; }
    const Item& item() const { return m_item; }
    const std::vector<std::pair<std::string, Item>>& entries() const { return m_entries; }
    const SourceLoc& key_loc(const std::string& key) const { return m_key_locs.at(key); }

    bool has(const std::string& key) const { return child(key).present; }
    Item child(const std::string& key) const;
    Item required(const std::string& key) const;

    double number(const std::string& key, double fallback, Bound bound) const;
    std::optional<double> optional_number(const std::string& key, Bound bound) const;
    long long integer(const std::string& key, long long fallback, long long min) const;
    long long required_integer(const std::string& key, long long min) const;
    // A size in units of 2^shift bytes (20 = MiB), returned in bytes.
    std::uint64_t size(const std::string& key, long long fallback, int shift) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    // An address: an integer >= 0 (hex with 0x reads best).
    std::uint64_t address(const std::string& key, std::uint64_t fallback) const;

private:
    void open(const std::vector<std::string>& allowed, bool any_key,
              const std::map<std::string, std::string>& reserved);

    YamlReader* m_reader;
    Item m_item;
    std::vector<std::pair<std::string, Item>> m_entries;
    std::map<std::string, SourceLoc> m_key_locs;
};

}  // namespace npuvp
