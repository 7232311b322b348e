// The sweep file's field tables (config/sweep_file.h): they read the shipped
// example into the file's structs, and docs/sweep.md's key reference is
// generated from them. The errors of a whole sweep (and their wording) are
// pinned by testbench/sc_main/cli_sweep_test.cpp.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "config/sweep_file.h"
#include "testbench/harness/generated_doc.h"

namespace {

// A file in the tests' working directory (the build directory).
std::string written(const std::string& name, const std::string& text) {
    std::ofstream(name) << text;
    return name;
}

std::string error_of(const std::string& path) {
    try {
        npuvp::read_sweep_file(path);
    } catch (const npuvp::ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(sweep_md_keys_are_the_field_tables) {
    npuvp::test::check_generated_doc("docs/sweep.md", "sweep_schema_markdown()", npuvp::sweep_schema_markdown());
}

BOOST_AUTO_TEST_CASE(shipped_example_reads_into_the_file_structs) {
    const std::string path = std::string(NPUVP_SOURCE_DIR) + "/configs/sweeps/gemm_tcm_dma_tile.yaml";
    const npuvp::SweepFile file = npuvp::read_sweep_file(path);
    BOOST_TEST(file.name == "gemm_tcm_dma_tile");
    // Kept as written: the plan resolves them against the sweep file's directory.
    BOOST_TEST(file.topology.text == "../topologies/default.yaml");
    BOOST_TEST(file.workload.text == "gemm_tiles/tile_128.yaml");
    BOOST_TEST(file.set.empty());
    BOOST_REQUIRE_EQUAL(file.axes.size(), 3u);
    const npuvp::SweepFileParam& tcm = file.axes[0].params.at(0);
    BOOST_TEST(tcm.key == "cube.pe_template.components.pe_tcm.attrs.reserved_mb");
    BOOST_TEST(tcm.name == "reserved_mb");  // the key's last segment
    BOOST_TEST(tcm.values == (std::vector<std::string>{"1", "2", "4"}), boost::test_tools::per_element());
    // range: { from: 64, to: 256, factor: 2 }
    BOOST_TEST(file.axes[1].params.at(0).values == (std::vector<std::string>{"64", "128", "256"}),
               boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(file.axes[2].params.size(), 2u);  // the zip
    BOOST_TEST(file.axes[2].params[0].key == "workload");
    BOOST_TEST(file.axes[2].params[1].key == "");  // a label
    BOOST_TEST(file.axes[2].params[1].name == "tile");
    BOOST_TEST(file.axes[2].params[1].values == (std::vector<std::string>{"128", "256", "512"}),
               boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(file.constraints.size(), 1u);
    BOOST_TEST(file.constraints[0].text == "tile * tile * 6 <= reserved_mb * 1048576");
    BOOST_TEST(file.constraints[0].loc.key_path == "constraints[0]");
}

BOOST_AUTO_TEST_CASE(keys_and_checks_come_from_the_tables) {
    const std::string head = "topology: t.yaml\nworkload: w.yaml\n";
    // The allowed keys of each map are its table's (the sweep's terse
    // wording: sorted, without the key).
    BOOST_TEST(error_of(written("sweep_file_test_top.yaml", head + "axis: []\n")) ==
               "sweep_file_test_top.yaml:3:1: axis: unknown key (known: axes, constraints, name, set, topology, workload)");
    BOOST_TEST(error_of(written("sweep_file_test_range.yaml", head + "axes:\n  - { name: a, range: { from: 1, to: 2, by: 1 } }\n")) ==
               "sweep_file_test_range.yaml:4:41: axes[0].range.by: unknown key (known: factor, from, step, to)");
    // A row's bound and a table's check across its fields.
    BOOST_TEST(error_of(written("sweep_file_test_step.yaml", head + "axes:\n  - { name: a, range: { from: 1, to: 2, step: 0 } }\n")) ==
               "sweep_file_test_step.yaml:4:47: axes[0].range.step: must be > 0");
    BOOST_TEST(error_of(written("sweep_file_test_both.yaml", head + "axes:\n  - { name: a }\n")) ==
               "sweep_file_test_both.yaml:4:5: axes[0]: give exactly one of 'values' and 'range'");
    // The document names the top-level keys in the table's order.
    BOOST_TEST(error_of(written("sweep_file_test_list.yaml", "- a\n")) ==
               "sweep_file_test_list.yaml:1:1: the document must be a map of sweep keys "
               "(name, topology, workload, set, axes, constraints), got a list");
}
