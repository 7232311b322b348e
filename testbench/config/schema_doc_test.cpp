// docs/schema.md against the loader's field tables (issue 14 point 1): the key
// reference of the docs is generated from the tables, so a parameter added to
// a table but not to the docs (or the other way round) fails here.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/topology_loader.h"
#include "platform/impl_registry.h"
#include "testbench/harness/generated_doc.h"

BOOST_AUTO_TEST_CASE(schema_md_keys_are_the_field_tables) {
    npuvp::test::check_generated_doc("docs/schema.md", "topology_schema_markdown()",
                                     npuvp::topology_schema_markdown());
}

// The leaf keys of a YAML tree, with the path of each.
void leaves(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.IsMap()) {
        out.push_back(path);
        return;
    }
    for (const auto& entry : node)
        leaves(entry.second, path.empty() ? entry.first.Scalar() : path + "." + entry.first.Scalar(), out);
}

BOOST_AUTO_TEST_CASE(every_dumped_key_is_documented) {
    // The dump of default.yaml writes every key the loader reads; each must
    // have a row in the generated reference (its last segment ends a row key),
    // so a field whose dump and docs parts disagree fails here. `kind` is the
    // block convention of the prose, and op_cost's ops share one row.
    const auto config = npuvp::load_topology_file(
        std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml", {},
        npuvp::builtin_registry());
    std::vector<std::string> paths;
    leaves(YAML::Load(npuvp::dump_topology_yaml(config)), "", paths);
    const std::string markdown = npuvp::topology_schema_markdown();
    BOOST_TEST(paths.size() > 80u);
    for (const auto& path : paths) {
        std::string leaf = path.substr(path.rfind('.') + 1);
        if (leaf == "kind") continue;
        if (path.find(".op_cost.") != std::string::npos) leaf = "<op>";
        const bool documented = markdown.find("`" + leaf + "` |") != std::string::npos ||
                                markdown.find("." + leaf + "` |") != std::string::npos;
        BOOST_TEST(documented, path << " has no row in the generated reference");
    }
    BOOST_TEST(markdown.find("| `wire.ns_per_mm` | number | ns/mm | 0.1 | >= 0, <= 1e6 |") != std::string::npos);
    BOOST_TEST(markdown.find("| `memory_map.sram_base` | int | bytes | `0x1000000000000` | >= 0 |") !=
               std::string::npos);
}
