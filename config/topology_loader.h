// Topology YAML -> validated TopologyConfig (SPEC §2, STYLE "Configuration in
// two layers"). Every bad input throws ConfigError naming file, line, column
// and key path: malformed YAML, unknown keys, unknown kinds or impls, missing
// required keys, non-positive bandwidths / frequencies / sizes, a layout that
// does not fit. Overrides (`--set key.path=value`) are applied to the parsed
// document before validation, so they pass through exactly the same checks.
#pragma once

#include <string>
#include <vector>

#include "config/config_error.h"
#include "modules/common/config.h"

namespace npuvp {

class ImplRegistry;

struct Override {
    std::string key_path;  // dotted, e.g. "cube.noc.link_bw_gbs"
    std::string value;     // YAML scalar or flow text, e.g. "64" or "[1, 2]"
};

// Parses "key.path=value"; throws ConfigError (file "--set") when malformed.
Override parse_override(const std::string& arg);

// Loads and validates a topology file. `impls` is asked whether each `impl:`
// names a registered factory of the right kind.
TopologyConfig load_topology_file(const std::string& path,
                                  const std::vector<Override>& overrides,
                                  const ImplRegistry& impls);

// Same, from text; `source_name` stands in for the file name in errors.
TopologyConfig load_topology_text(const std::string& text,
                                  const std::string& source_name,
                                  const std::vector<Override>& overrides,
                                  const ImplRegistry& impls);

// A complete topology YAML with every key explicit (nothing left to a default),
// which loads back to an equal config: for the round-trip test and for
// `npuvp --list --dump-config`. noc.attrs.attach_bw_gbs is left out when it is
// unlimited, as absence is how the schema says unlimited.
std::string dump_topology_yaml(const TopologyConfig& config);

// The reference tables of every topology key (key, type, unit, default,
// bound, meaning) as markdown, generated from the loader's field tables: the
// "Keys" part of docs/schema.md, which a test keeps equal to it.
std::string topology_schema_markdown();

}  // namespace npuvp
