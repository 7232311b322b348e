// Reading a YAML input file (SPEC §8), shared by the topology, workload and
// sweep loaders: every failure is a ConfigError naming the file, and the
// line and column where yaml-cpp knows them. The loaders' own readers walk
// the document these return.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/config_error.h"

namespace npuvp {

// The largest input file npuvp reads (docs/limits.md): the largest shipped
// configuration is under 64 KiB.
constexpr std::size_t kMaxInputFileBytes = std::size_t{16} << 20;

// The whole text of the file at `path`; "cannot open file: <reason>" when it
// cannot be read; refused when it is a folder, larger than
// kMaxInputFileBytes (read no further than that) or holds NUL bytes.
std::string read_input_file(const std::string& path);

// Parses `text` (read from `source_name`) as one YAML document that must be a
// map: "malformed YAML: ..." at the parser's mark, "empty document", or "the
// document must be a map of <what>, got ...".
YAML::Node parse_map_document(const std::string& text, const std::string& source_name,
                              const std::string& what);

// `load()`, with a yaml-cpp error that escapes it (not expected once the
// document has parsed) turned into a ConfigError at its mark, so none leaves
// a loader untranslated.
template <class Load>
auto translate_yaml_errors(const std::string& source_name, Load&& load) -> decltype(load()) {
    try {
        return load();
    } catch (const YAML::Exception& e) {
        throw ConfigError(SourceLoc{source_name, e.mark.line + 1, e.mark.column + 1, ""}, e.msg);
    }
}

// For error messages: a node's shape ("null", "a list", "a map", 'scalar').
std::string describe(const YAML::Node& node);
// "a, b, c".
std::string join(const std::vector<std::string>& items);
// parent.key, or key at the root.
std::string child_path(const std::string& parent, const std::string& key);

}  // namespace npuvp
