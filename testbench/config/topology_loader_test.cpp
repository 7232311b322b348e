// Topology loader (SPEC §2, §8): the shipped topologies load with the expected
// values, every kind of bad input is a ConfigError naming file, line, column and
// key path, --set overrides go through the same checks, and a dump loads back
// to the same config. No simulation runs here.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "config/config_defaults.h"
#include "platform/impl_registry.h"
#include "config/topology_loader.h"
#include "config/yaml_document.h"

namespace {

using npuvp::ConfigError;
using npuvp::Override;
using npuvp::TopologyConfig;

// The kinds and impls the real registry has; the factories are never called.
const npuvp::ImplRegistry& test_registry() {
    static const npuvp::ImplRegistry registry = [] {
        npuvp::ImplRegistry reg;
        const std::vector<std::pair<std::string, std::string>> impls = {
            {"io_cpu", "builtin.io_cpu"},
            {"m_cpu", "builtin.m_cpu"},
            {"noc", "builtin.mesh_noc"},
            {"hbm_ctrl", "builtin.hbm_ctrl"},
            {"shared_sram", "builtin.shared_sram"},
            {"pe_cpu", "builtin.pe_cpu"},
            {"pe_scheduler", "builtin.pe_scheduler"},
            {"pe_dma", "builtin.pe_dma"},
            {"pe_fetch_store", "builtin.pe_fetch_store"},
            {"pe_gemm", "builtin.pe_gemm"},
            {"pe_math", "builtin.pe_math"},
            {"pe_tcm", "builtin.pe_tcm"},
            {"pe_mmu", "builtin.pe_mmu"},
            {"pe_ipcq", "builtin.pe_ipcq"},
        };
        for (const auto& [kind, impl] : impls)
            reg.add<sc_core::sc_module>(
                kind, impl, [](const sc_core::sc_module_name&, const npuvp::NodeEnv&) {
                    return std::unique_ptr<sc_core::sc_module>();
                });
        return reg;
    }();
    return registry;
}

std::string topology_path(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/" + name;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    BOOST_REQUIRE_MESSAGE(in, "cannot open " + path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The smallest valid topology: only the required keys, everything else takes
// its default. Line numbers (1-based) used by the tests below:
//   1 system:            5 pe_layout:        9 components:
//   2 sips               6 rows             10 pe_cpu        14 pe_gemm   18 pe_ipcq
//   3 cubes_per_sip      7 cols             11 pe_scheduler  15 pe_math
//   4 cube:              8 pe_template:     12 pe_dma        16 pe_tcm
//                                           13 pe_fetch_store 17 pe_mmu
const std::string kMinimal = R"(system:
  sips: 1
  cubes_per_sip: 1
cube:
  pe_layout:
    rows: 2
    cols: 4
  pe_template:
    components:
      pe_cpu:         { kind: pe_cpu,         impl: builtin.pe_cpu }
      pe_scheduler:   { kind: pe_scheduler,   impl: builtin.pe_scheduler }
      pe_dma:         { kind: pe_dma,         impl: builtin.pe_dma }
      pe_fetch_store: { kind: pe_fetch_store, impl: builtin.pe_fetch_store }
      pe_gemm:        { kind: pe_gemm,        impl: builtin.pe_gemm }
      pe_math:        { kind: pe_math,        impl: builtin.pe_math }
      pe_tcm:         { kind: pe_tcm,         impl: builtin.pe_tcm }
      pe_mmu:         { kind: pe_mmu,         impl: builtin.pe_mmu }
      pe_ipcq:        { kind: pe_ipcq,        impl: builtin.pe_ipcq }
)";

// kMinimal with `from` (which must occur exactly once) replaced by `to`.
std::string patched(const std::string& from, const std::string& to) {
    const auto at = kMinimal.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "patch target not found: " + from);
    BOOST_REQUIRE_MESSAGE(kMinimal.find(from, at + 1) == std::string::npos,
                          "patch target not unique: " + from);
    std::string text = kMinimal;
    text.replace(at, from.size(), to);
    return text;
}

TopologyConfig load(const std::string& text, const std::vector<Override>& overrides = {}) {
    return npuvp::load_topology_text(text, "test.yaml", overrides, test_registry());
}

// Loads `text`, which must fail, and returns the error.
ConfigError load_error(const std::string& text, const std::vector<Override>& overrides = {}) {
    try {
        load(text, overrides);
    } catch (const ConfigError& e) {
        BOOST_TEST_MESSAGE("error: " << e.what());
        return e;
    }
    BOOST_FAIL("expected a ConfigError");
    throw std::logic_error("unreachable");
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

void check_loc(const ConfigError& e, const std::string& file, int line, int column,
               const std::string& key_path) {
    BOOST_TEST(e.loc().file == file);
    BOOST_TEST(e.loc().line == line);
    BOOST_TEST(e.loc().column == column);
    BOOST_TEST(e.loc().key_path == key_path);
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_yaml_loads_with_expected_values) {
    const std::string path = topology_path("default.yaml");
    const TopologyConfig c = npuvp::load_topology_file(path, {}, test_registry());

    BOOST_TEST(c.source == path);
    BOOST_TEST(c.name == "default");
    BOOST_TEST(c.wire.ns_per_mm == 0.1);
    BOOST_TEST(c.system.sips == 1);
    BOOST_TEST(c.system.cubes_per_sip == 1);
    BOOST_TEST(c.system.io_cpu.impl == "builtin.io_cpu");
    BOOST_TEST(*c.system.io_link.bw_gbs == 64.0);
    BOOST_TEST(c.system.ucie.link.latency_ns == 2.0);
    BOOST_TEST(c.pes_per_cube() == 8);
    BOOST_TEST(c.cube.pe_layout.rows == 2);
    BOOST_TEST(c.cube.pe_layout.cols == 4);
    BOOST_TEST(c.cube.m_cpu.impl == "builtin.m_cpu");
    BOOST_TEST(c.cube.m_cpu.overhead_ns == 5.0);  // seed 001 D9
    BOOST_TEST(c.cube.noc.impl == "builtin.mesh_noc");
    BOOST_TEST(!c.cube.noc.attach.bw_gbs.has_value());  // unlimited
    BOOST_TEST(c.cube.hbm_ctrl.bw_gbs == 192.0);
    BOOST_TEST(c.cube.shared_sram.size_bytes == 64ull << 20);
    BOOST_TEST(c.cube.memory_map.hbm_slices_per_cube == 8);
    BOOST_TEST(c.cube.memory_map.hbm_slice_bytes == 6ull << 30);
    BOOST_TEST(c.cube.memory_map.sram_base == 0x1000000000000ull);

    const npuvp::PeTemplateConfig& t = c.cube.pe_template;
    BOOST_TEST(t.dma.rd_engines == 1);
    BOOST_TEST(t.dma.setup_ns == 500.0);
    BOOST_TEST(t.dma.bw_gbs == 256.0);
    BOOST_TEST(t.gemm.rows == 128);
    BOOST_TEST(t.gemm.shared_resource == "accel_slot");
    BOOST_TEST(t.math.lanes == 512);
    BOOST_TEST(t.math.op_cost.size() == 11u);  // nine arithmetic ops, transpose, switch
    BOOST_TEST(t.math.op_cost.at("softmax") == 6.0);
    BOOST_TEST(t.tcm.size_bytes == 32ull << 20);
    BOOST_TEST(t.tcm.reserved_bytes == 8ull << 20);
    BOOST_TEST(t.tcm.read_bw_gbs == 8192.0);
    BOOST_TEST(t.mmu.page_bytes == 64ull << 10);
    BOOST_TEST(t.ipcq.slot_bytes == 4ull << 10);
    BOOST_TEST(t.links.scheduler_to_dma_mm == 0.0);
    BOOST_TEST(t.links.fetch_store_to_tcm_bw_gbs == 2048.0);
    BOOST_TEST(t.names.size() == 9u);
    BOOST_TEST(t.names.at("pe_gemm") == "pe_gemm");

    // Seed 002 / CALIBRATION bank model.
    BOOST_TEST((t.scheduler.bank_policy == npuvp::BankPolicy::serialize));
    BOOST_TEST(t.scheduler.bank_limit == 64);
    BOOST_TEST(t.dma.banks_per_transfer == 16);
    BOOST_TEST(t.tcm.banks == 16);
    BOOST_TEST(t.tcm.bank_interleave_bytes == 8u);
    // DMA patterns (docs/timing.md): CALIBRATION 64 slices at 128 B/cycle; 45 ns per descriptor.
    BOOST_TEST(t.tcm.slices == 64);
    BOOST_TEST(t.tcm.slice_bw_gbs == 128.0);
    BOOST_TEST(t.dma.chunk_ns == 45.0);
    BOOST_TEST(t.cpu.kernel_start_ns == 0.0);

    // impl locations point into the file; default.yaml names pe_gemm's impl on line 94.
    const npuvp::SourceLoc& gemm_impl = t.impl_loc.at("pe_gemm");
    BOOST_TEST(gemm_impl.file == path);
    BOOST_TEST(gemm_impl.line == 94);
    BOOST_TEST(gemm_impl.key_path == "cube.pe_template.components.pe_gemm.impl");
    BOOST_TEST(c.cube.impl_loc.at("m_cpu").key_path == "cube.m_cpu.impl");
    BOOST_TEST(c.system.io_cpu_impl_loc.key_path == "system.io_cpu.impl");
}

BOOST_AUTO_TEST_CASE(two_sip_yaml_loads) {
    const TopologyConfig c =
        npuvp::load_topology_file(topology_path("two_sip.yaml"), {}, test_registry());
    BOOST_TEST(c.name == "two_sip");
    BOOST_TEST(c.system.sips == 2);
    BOOST_TEST(c.system.cubes_per_sip == 2);
    BOOST_TEST(c.pes_per_cube() == 8);
}

BOOST_AUTO_TEST_CASE(default_yaml_spells_out_the_named_defaults) {
    // kMinimal takes every default from config_defaults.h; default.yaml writes
    // them out. Equal dumps (but for the name) mean the two agree.
    TopologyConfig minimal = load(kMinimal);
    BOOST_TEST(minimal.name == npuvp::defaults::kTopologyName);
    BOOST_TEST(minimal.cube.pe_template.dma.setup_ns == npuvp::defaults::kPeDmaSetupNs);
    BOOST_TEST(minimal.cube.m_cpu.impl == npuvp::defaults::kMCpuImpl);
    minimal.name = "default";
    const TopologyConfig shipped =
        npuvp::load_topology_file(topology_path("default.yaml"), {}, test_registry());
    BOOST_TEST(npuvp::dump_topology_yaml(minimal) == npuvp::dump_topology_yaml(shipped));
}

BOOST_AUTO_TEST_CASE(lanes_32bit_follows_lanes) {
    // Issue 39 point 8: left out, lanes_32bit is lanes / 2 (a 32-bit element
    // takes two 16-bit lanes; default.yaml: 512 -> 256); given, it may not
    // exceed lanes. kMinimal gives neither: 512 and 256.
    BOOST_TEST(load(kMinimal).cube.pe_template.math.lanes_32bit == 256);
    const TopologyConfig narrow =
        load(patched("impl: builtin.pe_math }", "impl: builtin.pe_math, attrs: { lanes: 64 } }"));
    BOOST_TEST(narrow.cube.pe_template.math.lanes == 64);
    BOOST_TEST(narrow.cube.pe_template.math.lanes_32bit == 32);
    const TopologyConfig one =
        load(patched("impl: builtin.pe_math }", "impl: builtin.pe_math, attrs: { lanes: 1 } }"));
    BOOST_TEST(one.cube.pe_template.math.lanes_32bit == 1);
    // Equal is allowed (an RTL unit that gives every element one lane).
    BOOST_TEST(load(patched("impl: builtin.pe_math }",
                            "impl: builtin.pe_math, attrs: { lanes: 16, lanes_32bit: 16 } }"))
                   .cube.pe_template.math.lanes_32bit == 16);
    const ConfigError wider = load_error(
        patched("impl: builtin.pe_math }", "impl: builtin.pe_math, attrs: { lanes: 64, lanes_32bit: 256 } }"));
    BOOST_TEST(wider.loc().key_path == "cube.pe_template.components.pe_math.attrs.lanes_32bit");
    BOOST_TEST(contains(wider.what(), "lanes_32bit 256 is more than lanes 64"), wider.what());
}

BOOST_AUTO_TEST_CASE(slices_and_dma_banks_follow_what_they_derive_from) {
    // Issue 39 point 8, the other keys of lanes_32bit's kind:
    // - memory_map.hbm_slices_per_cube must equal rows × cols (one HBM slice
    //   per PE). kMinimal leaves it out: its 2 × 4 layout gives 8, a 4 × 4
    //   one 16 (the old fixed default, 8, made every other layout an error
    //   about a key the file never wrote).
    BOOST_TEST(load(kMinimal).cube.memory_map.hbm_slices_per_cube == 8);
    const TopologyConfig square = load(patched("    rows: 2\n    cols: 4", "    rows: 4\n    cols: 4"));
    BOOST_TEST(square.cube.memory_map.hbm_slices_per_cube == 16);
    // - pe_dma.banks_per_transfer may not exceed pe_tcm.banks; left out it
    //   is seed 002's 16, or every bank of a TCM with fewer (8 here).
    BOOST_TEST(load(kMinimal).cube.pe_template.dma.banks_per_transfer == 16);
    const TopologyConfig few = load(patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { banks: 8 } }"));
    BOOST_TEST(few.cube.pe_template.dma.banks_per_transfer == 8);
    const TopologyConfig many = load(patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { banks: 32 } }"));
    BOOST_TEST(many.cube.pe_template.dma.banks_per_transfer == 16);
    // Given, a contradiction is still an error at the key.
    const ConfigError wide =
        load_error(patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { banks: 8 } }"),
                   {Override{"cube.pe_template.components.pe_dma.attrs.banks_per_transfer", "16"}});
    BOOST_TEST(contains(wide.what(), "must be <= pe_tcm banks = 8 (got 16)"), wide.what());
    const ConfigError slices = load_error(patched("    rows: 2\n    cols: 4", "    rows: 2\n    cols: 4\n  memory_map: { hbm_slices_per_cube: 16 }"));
    BOOST_TEST(contains(slices.what(), "must equal pe_layout rows × cols = 8"), slices.what());
}

BOOST_AUTO_TEST_CASE(round_trip_dump_loads_back_equal) {
    const TopologyConfig original =
        npuvp::load_topology_file(topology_path("default.yaml"), {}, test_registry());
    const std::string dumped = npuvp::dump_topology_yaml(original);
    BOOST_TEST_MESSAGE(dumped);
    const TopologyConfig reloaded = load(dumped);
    BOOST_TEST(npuvp::dump_topology_yaml(reloaded) == dumped);

    BOOST_TEST(reloaded.name == original.name);
    BOOST_TEST(reloaded.wire.ns_per_mm == original.wire.ns_per_mm);
    BOOST_TEST(reloaded.cube.memory_map.sram_base == original.cube.memory_map.sram_base);
    BOOST_TEST(reloaded.cube.pe_template.tcm.size_bytes == original.cube.pe_template.tcm.size_bytes);
    BOOST_TEST(reloaded.cube.pe_template.math.op_cost == original.cube.pe_template.math.op_cost);
    BOOST_TEST(reloaded.cube.noc.attach.bw_gbs.has_value() == false);

    // Values that do not print short, a bounded attach link and renamed
    // components survive too.
    const TopologyConfig odd =
        load(patched("pe_gemm:        { kind: pe_gemm,",
                     "gemm0:          { kind: pe_gemm,"),
             {{"wire.ns_per_mm", "0.123456789012345"},
              {"cube.noc.attrs.attach_bw_gbs", "1e3"}});
    const TopologyConfig odd_back = load(npuvp::dump_topology_yaml(odd));
    BOOST_TEST(odd_back.wire.ns_per_mm == 0.123456789012345);
    BOOST_TEST(*odd_back.cube.noc.attach.bw_gbs == 1000.0);
    BOOST_TEST(odd_back.cube.pe_template.names.at("pe_gemm") == "gemm0");
    BOOST_TEST(npuvp::dump_topology_yaml(odd_back) == npuvp::dump_topology_yaml(odd));
}

BOOST_AUTO_TEST_CASE(malformed_yaml_reports_line_and_column) {
    // Line 7 becomes "    cols: 4: 5"; the second ':' (column 12, after the
    // 4 spaces and "cols: 4") is where yaml-cpp finds an illegal map value.
    const ConfigError e = load_error(patched("cols: 4\n", "cols: 4: 5\n"));
    BOOST_TEST(contains(e.what(), "test.yaml:7:12: malformed YAML: illegal map value"));
    check_loc(e, "test.yaml", 7, 12, "");

    // A flow map closed by ']' on line 12: the ']' is the line's last
    // character, column 68 (6 + 7 "pe_dma:" + 9 + 15 "{ kind: pe_dma," + 9
    // + 22 "impl: builtin.pe_dma ]").
    const ConfigError flow = load_error(patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma ]"));
    BOOST_TEST(contains(flow.what(), "illegal flow end"));
    check_loc(flow, "test.yaml", 12, 68, "");
}

BOOST_AUTO_TEST_CASE(missing_file_empty_document_and_non_map_root_are_errors) {
    try {
        npuvp::load_topology_file("/nonexistent/topology.yaml", {}, test_registry());
        BOOST_FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        BOOST_TEST(e.loc().file == "/nonexistent/topology.yaml");
        BOOST_TEST(contains(e.what(), "cannot open"));
    }
    BOOST_TEST(contains(load_error("").what(), "empty document"));
    BOOST_TEST(contains(load_error("# only a comment\n").what(), "empty document"));
    const ConfigError list = load_error("- 1\n- 2\n");
    BOOST_TEST(contains(list.what(), "must be a map"));
    BOOST_TEST(list.loc().line == 1);
}

BOOST_AUTO_TEST_CASE(unknown_key_reports_line_and_key_path) {
    // "colz" is inserted as line 8, indented 4 spaces (column 5).
    const ConfigError e = load_error(patched("    cols: 4\n", "    cols: 4\n    colz: 4\n"));
    check_loc(e, "test.yaml", 8, 5, "cube.pe_layout.colz");
    BOOST_TEST(contains(e.what(), "test.yaml:8:5: cube.pe_layout.colz: unknown key 'colz'"));
    BOOST_TEST(contains(e.what(), "allowed: rows, cols, pitch_mm"));

    // An unknown attribute inside a component's flow map on line 12.
    const ConfigError attr = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { bw_gb: 1 } }"));
    BOOST_TEST(attr.loc().line == 12);
    BOOST_TEST(attr.loc().key_path == "cube.pe_template.components.pe_dma.attrs.bw_gb");
    BOOST_TEST(contains(attr.what(), "setup_ns"));

    // At the top level, line 1.
    const ConfigError top = load_error("sytem: 1\n" + kMinimal);
    check_loc(top, "test.yaml", 1, 1, "sytem");
}

BOOST_AUTO_TEST_CASE(duplicate_key_is_rejected) {
    // The second "rows" is line 7.
    const ConfigError e = load_error(patched("    rows: 2\n", "    rows: 2\n    rows: 3\n"));
    check_loc(e, "test.yaml", 7, 5, "cube.pe_layout.rows");
    BOOST_TEST(contains(e.what(), "duplicate key"));
}

BOOST_AUTO_TEST_CASE(unknown_component_kind_is_rejected) {
    // pe_mmu's kind on line 17; "kind:" value at column 31 (after the 25
    // characters of "      pe_mmu:         { " and "kind: ").
    const ConfigError e = load_error(patched("kind: pe_mmu,", "kind: pe_mmx,"));
    check_loc(e, "test.yaml", 17, 31, "cube.pe_template.components.pe_mmu.kind");
    BOOST_TEST(contains(e.what(), "unknown component kind 'pe_mmx'"));
    BOOST_TEST(contains(e.what(), "pe_ipcq"));  // the list of known kinds
}

BOOST_AUTO_TEST_CASE(component_kind_given_twice_or_missing_is_rejected) {
    const ConfigError twice =
        load_error(patched("{ kind: pe_mmu,         impl: builtin.pe_mmu }",
                           "{ kind: pe_tcm,         impl: builtin.pe_tcm }"));
    BOOST_TEST(twice.loc().line == 17);
    BOOST_TEST(contains(twice.what(), "kind 'pe_tcm' given twice (components 'pe_tcm' and 'pe_mmu')"));

    // Without pe_ipcq the error points at the components map, whose first key
    // (pe_cpu) is on line 10, column 7.
    const ConfigError missing =
        load_error(patched("      pe_ipcq:        { kind: pe_ipcq,        impl: builtin.pe_ipcq }\n", ""));
    check_loc(missing, "test.yaml", 10, 7, "cube.pe_template.components");
    BOOST_TEST(contains(missing.what(), "missing component of kind 'pe_ipcq'"));

    const ConfigError bad_name = load_error(patched("pe_cpu:         {", "PeCpu:          {"));
    BOOST_TEST(bad_name.loc().key_path == "cube.pe_template.components.PeCpu");
    BOOST_TEST(contains(bad_name.what(), "component name must match"));
}

BOOST_AUTO_TEST_CASE(unknown_impl_lists_known_impls) {
    const ConfigError e = load_error(patched("impl: builtin.pe_gemm", "impl: rtl.pe_gemm"));
    BOOST_TEST(e.loc().line == 14);
    BOOST_TEST(e.loc().key_path == "cube.pe_template.components.pe_gemm.impl");
    BOOST_TEST(contains(e.what(), "unknown impl 'rtl.pe_gemm' for kind 'pe_gemm' (known: builtin.pe_gemm)"));

    // A cube-level block: its kind is its key. Inserted as line 5.
    const ConfigError noc = load_error(patched("cube:\n", "cube:\n  noc: { impl: fancy_noc }\n"));
    check_loc(noc, "test.yaml", 5, 16, "cube.noc.impl");
    BOOST_TEST(contains(noc.what(), "known: builtin.mesh_noc"));

    const ConfigError kind = load_error(patched("cube:\n", "cube:\n  noc: { kind: mesh }\n"));
    BOOST_TEST(kind.loc().key_path == "cube.noc.kind");
    BOOST_TEST(contains(kind.what(), "kind must be 'noc'"));
}

BOOST_AUTO_TEST_CASE(missing_required_key_points_at_parent_map) {
    // Without "rows" the pe_layout map starts at "cols", now line 6, column 5.
    const ConfigError rows = load_error(patched("    rows: 2\n", ""));
    check_loc(rows, "test.yaml", 6, 5, "cube.pe_layout.rows");
    BOOST_TEST(contains(rows.what(), "missing required key 'rows'"));

    // A component without impl: the flow map on line 10 opens at column 23.
    const ConfigError impl =
        load_error(patched("{ kind: pe_cpu,         impl: builtin.pe_cpu }", "{ kind: pe_cpu }"));
    check_loc(impl, "test.yaml", 10, 23, "cube.pe_template.components.pe_cpu.impl");

    // No system at all: the root map (line 1, column 1).
    const ConfigError system =
        load_error(patched("system:\n  sips: 1\n  cubes_per_sip: 1\n", ""));
    check_loc(system, "test.yaml", 1, 1, "system");
}

BOOST_AUTO_TEST_CASE(non_positive_bandwidth_is_rejected) {
    // Inserted as line 5; the 0 of "bw_gbs: 0" is at column 32.
    const ConfigError zero =
        load_error(patched("cube:\n", "cube:\n  hbm_ctrl: { attrs: { bw_gbs: 0 } }\n"));
    check_loc(zero, "test.yaml", 5, 32, "cube.hbm_ctrl.attrs.bw_gbs");
    BOOST_TEST(contains(zero.what(), "must be > 0 (got 0)"));

    const ConfigError negative = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { bw_gbs: -256.0 } }"));
    BOOST_TEST(negative.loc().key_path == "cube.pe_template.components.pe_dma.attrs.bw_gbs");
    BOOST_TEST(contains(negative.what(), "must be > 0 (got -256.0)"));
}

BOOST_AUTO_TEST_CASE(zero_frequency_is_rejected) {
    const ConfigError e = load_error(
        patched("impl: builtin.pe_gemm }", "impl: builtin.pe_gemm, attrs: { freq_ghz: 0.0 } }"));
    BOOST_TEST(e.loc().line == 14);
    BOOST_TEST(e.loc().key_path == "cube.pe_template.components.pe_gemm.attrs.freq_ghz");
    BOOST_TEST(contains(e.what(), "must be > 0 (got 0.0)"));
}

BOOST_AUTO_TEST_CASE(negative_or_infinite_latency_is_rejected) {
    const ConfigError negative = load_error(
        patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { latency_ns: -1 } }"));
    BOOST_TEST(contains(negative.what(), "must be >= 0 (got -1)"));
    const ConfigError inf = load_error(patched("system:\n", "wire: { ns_per_mm: inf }\nsystem:\n"));
    check_loc(inf, "test.yaml", 1, 20, "wire.ns_per_mm");
    BOOST_TEST(contains(inf.what(), "must be a finite number"));
}

BOOST_AUTO_TEST_CASE(wrong_type_is_rejected) {
    const ConfigError text = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { setup_ns: fast } }"));
    BOOST_TEST(text.loc().key_path == "cube.pe_template.components.pe_dma.attrs.setup_ns");
    BOOST_TEST(contains(text.what(), "expected a number (got 'fast')"));

    const ConfigError quoted = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { setup_ns: \"500\" } }"));
    BOOST_TEST(contains(quoted.what(), "expected a number, got the string '500'"));

    // "rows: 2.5" stays on line 6; the value starts at column 11.
    const ConfigError fraction = load_error(patched("rows: 2\n", "rows: 2.5\n"));
    check_loc(fraction, "test.yaml", 6, 11, "cube.pe_layout.rows");
    BOOST_TEST(contains(fraction.what(), "expected an integer (got '2.5')"));

    const ConfigError map = load_error(patched("sips: 1", "sips: { n: 1 }"));
    BOOST_TEST(contains(map.what(), "expected an integer, got a map"));

    const ConfigError list = load_error("wire: [1]\n" + kMinimal);
    BOOST_TEST(contains(list.what(), "expected a map, got a list"));

    const ConfigError zero_count = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { rd_engines: 0 } }"));
    BOOST_TEST(contains(zero_count.what(), "must be >= 1 (got 0)"));

    const ConfigError resource = load_error(patched(
        "impl: builtin.pe_math }", "impl: builtin.pe_math, attrs: { shared_resource: own_slot } }"));
    BOOST_TEST(contains(resource.what(), "must be 'accel_slot' (got 'own_slot')"));
}

BOOST_AUTO_TEST_CASE(hbm_slices_must_equal_pe_count) {
    // Inserted as line 5; the value 6 is at column 38.
    const ConfigError e =
        load_error(patched("cube:\n", "cube:\n  memory_map: { hbm_slices_per_cube: 6 }\n"));
    check_loc(e, "test.yaml", 5, 38, "cube.memory_map.hbm_slices_per_cube");
    BOOST_TEST(contains(e.what(), "must equal pe_layout rows × cols = 8"));

    // Growing the layout alone: the slices follow it (issue 39 point 8; it
    // used to leave the default 8 slices for 16 PEs, an error).
    BOOST_TEST(load(patched("rows: 2\n", "rows: 4\n")).cube.memory_map.hbm_slices_per_cube == 16);

    const ConfigError huge = load_error(patched("rows: 2\n", "rows: 100\n"));
    BOOST_TEST(contains(huge.what(), "exceeds 256"));
}

BOOST_AUTO_TEST_CASE(router_out_of_range_is_rejected) {
    // 8 PEs have routers 0..7. Inserted as line 5; the 8 is at column 29.
    const ConfigError e = load_error(patched("cube:\n", "cube:\n  m_cpu: { attrs: { router: 8 } }\n"));
    check_loc(e, "test.yaml", 5, 29, "cube.m_cpu.attrs.router");
    BOOST_TEST(contains(e.what(), "in [0, 8) (got 8)"));

    const ConfigError ucie =
        load_error(patched("  cubes_per_sip: 1\n", "  cubes_per_sip: 1\n  ucie: { router: 9 }\n"));
    BOOST_TEST(ucie.loc().key_path == "system.ucie.router");
    const ConfigError negative =
        load_error(patched("cube:\n", "cube:\n  shared_sram: { attrs: { router: -1 } }\n"));
    BOOST_TEST(contains(negative.what(), "must be >= 0"));
}

BOOST_AUTO_TEST_CASE(reserved_tcm_must_be_smaller_than_tcm) {
    const ConfigError e = load_error(patched(
        "impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { size_mb: 16, reserved_mb: 16 } }"));
    BOOST_TEST(e.loc().line == 16);
    BOOST_TEST(e.loc().key_path == "cube.pe_template.components.pe_tcm.attrs.reserved_mb");
    BOOST_TEST(contains(e.what(), "must be < size_mb (got 16 >= 16)"));
}

BOOST_AUTO_TEST_CASE(bank_keys_default_when_left_out) {
    const npuvp::PeTemplateConfig t = load(kMinimal).cube.pe_template;
    BOOST_TEST((t.scheduler.bank_policy == npuvp::BankPolicy::serialize));
    BOOST_TEST(t.scheduler.bank_limit == npuvp::defaults::kPeSchedulerBankLimit);
    BOOST_TEST(t.dma.banks_per_transfer == npuvp::defaults::kPeDmaBanksPerTransfer);
    BOOST_TEST(t.tcm.banks == npuvp::defaults::kPeTcmBanks);
    BOOST_TEST(t.tcm.bank_interleave_bytes ==
               static_cast<std::uint64_t>(npuvp::defaults::kPeTcmBankInterleaveBytes));
}

BOOST_AUTO_TEST_CASE(bank_keys_are_read_and_round_trip) {
    const std::string text =
        patched("impl: builtin.pe_scheduler }",
                "impl: builtin.pe_scheduler, attrs: { bank_policy: detect, bank_limit: 32 } }");
    const std::string text2 =
        text.substr(0, text.find("impl: builtin.pe_dma }")) +
        "impl: builtin.pe_dma, attrs: { banks_per_transfer: 4 } }" +
        text.substr(text.find("impl: builtin.pe_dma }") + std::string("impl: builtin.pe_dma }").size());
    const std::string text3 =
        text2.substr(0, text2.find("impl: builtin.pe_tcm }")) +
        "impl: builtin.pe_tcm, attrs: { banks: 8, bank_interleave_bytes: 64 } }" +
        text2.substr(text2.find("impl: builtin.pe_tcm }") + std::string("impl: builtin.pe_tcm }").size());
    const TopologyConfig c = load(text3);
    const npuvp::PeTemplateConfig& t = c.cube.pe_template;
    BOOST_TEST((t.scheduler.bank_policy == npuvp::BankPolicy::detect));
    BOOST_TEST(t.scheduler.bank_limit == 32);
    BOOST_TEST(t.dma.banks_per_transfer == 4);
    BOOST_TEST(t.tcm.banks == 8);
    BOOST_TEST(t.tcm.bank_interleave_bytes == 64u);
    const std::string dumped = npuvp::dump_topology_yaml(c);
    const TopologyConfig back = load(dumped);
    BOOST_TEST((back.cube.pe_template.scheduler.bank_policy == npuvp::BankPolicy::detect));
    BOOST_TEST(back.cube.pe_template.scheduler.bank_limit == 32);
    BOOST_TEST(back.cube.pe_template.dma.banks_per_transfer == 4);
    BOOST_TEST(back.cube.pe_template.tcm.banks == 8);
    BOOST_TEST(back.cube.pe_template.tcm.bank_interleave_bytes == 64u);
    BOOST_TEST(npuvp::dump_topology_yaml(back) == dumped);
}

BOOST_AUTO_TEST_CASE(bad_bank_keys_are_rejected_with_line_and_key_path) {
    const std::string sched = "impl: builtin.pe_scheduler }";
    const std::string policy_text =
        patched(sched, "impl: builtin.pe_scheduler, attrs: { bank_policy: foo } }");
    const ConfigError policy = load_error(policy_text);
    const std::string line11 = "      pe_scheduler:   { kind: pe_scheduler,   impl: builtin.pe_scheduler, attrs: { bank_policy: ";
    check_loc(policy, "test.yaml", 11, static_cast<int>(line11.size()) + 1,
              "cube.pe_template.components.pe_scheduler.attrs.bank_policy");
    BOOST_TEST(contains(policy.what(), "must be 'serialize' or 'detect' (got 'foo')"));

    const ConfigError limit =
        load_error(patched(sched, "impl: builtin.pe_scheduler, attrs: { bank_limit: 0 } }"));
    BOOST_TEST(limit.loc().line == 11);
    BOOST_TEST(limit.loc().key_path == "cube.pe_template.components.pe_scheduler.attrs.bank_limit");
    BOOST_TEST(contains(limit.what(), "must be >= 1"));

    const ConfigError banks =
        load_error(patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { banks: 0 } }"));
    BOOST_TEST(banks.loc().line == 16);
    BOOST_TEST(banks.loc().key_path == "cube.pe_template.components.pe_tcm.attrs.banks");
    const ConfigError interleave = load_error(
        patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { bank_interleave_bytes: 0 } }"));
    BOOST_TEST(interleave.loc().line == 16);
    BOOST_TEST(interleave.loc().key_path ==
               "cube.pe_template.components.pe_tcm.attrs.bank_interleave_bytes");

    const ConfigError zero = load_error(
        patched("impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { banks_per_transfer: 0 } }"));
    BOOST_TEST(zero.loc().line == 12);
    BOOST_TEST(contains(zero.what(), "must be >= 1"));

    // banks_per_transfer > banks: a cross-component check; pe_dma comes before
    // pe_tcm in the file and the error still points at pe_dma's value.
    const std::string over_text = patched(
        "impl: builtin.pe_dma }", "impl: builtin.pe_dma, attrs: { banks_per_transfer: 17 } }");
    const ConfigError over = load_error(over_text);
    const std::string line12 = "      pe_dma:         { kind: pe_dma,         impl: builtin.pe_dma, attrs: { banks_per_transfer: ";
    check_loc(over, "test.yaml", 12, static_cast<int>(line12.size()) + 1,
              "cube.pe_template.components.pe_dma.attrs.banks_per_transfer");
    BOOST_TEST(contains(over.what(), "must be <= pe_tcm banks = 16 (got 17)"));

    // Fewer TCM banks and banks_per_transfer left out: it follows them (issue
    // 39 point 8; it used to be an error about a key the file never wrote).
    BOOST_TEST(load(patched("impl: builtin.pe_tcm }", "impl: builtin.pe_tcm, attrs: { banks: 8 } }"))
                   .cube.pe_template.dma.banks_per_transfer == 8);

    // --set goes through the same check.
    const ConfigError set = load_error(
        kMinimal, {Override{"cube.pe_template.components.pe_scheduler.attrs.bank_policy", "fast"}});
    BOOST_TEST(set.loc().file == "--set");
    BOOST_TEST(set.loc().key_path == "cube.pe_template.components.pe_scheduler.attrs.bank_policy");
}

BOOST_AUTO_TEST_CASE(too_many_cubes_is_rejected) {
    const ConfigError e =
        load_error(patched("  sips: 1\n  cubes_per_sip: 1\n", "  sips: 8\n  cubes_per_sip: 9\n"));
    check_loc(e, "test.yaml", 3, 18, "system.cubes_per_sip");
    BOOST_TEST(contains(e.what(), "= 72 exceeds 64"));
}

BOOST_AUTO_TEST_CASE(override_changes_the_value) {
    const std::string text = read_text(topology_path("default.yaml"));
    const TopologyConfig c = load(text, {npuvp::parse_override("cube.noc.attrs.link_bw_gbs=128"),
                                         npuvp::parse_override("system.sips=2")});
    BOOST_TEST(c.cube.noc.link_bw_gbs == 128.0);
    BOOST_TEST(c.system.sips == 2);

    // Into sections the file leaves out: intermediate maps are created, and a
    // flow map replaces a whole subtree (other ops keep their defaults).
    const TopologyConfig m = load(
        kMinimal, {npuvp::parse_override("cube.noc.attrs.attach_bw_gbs=64"),
                   npuvp::parse_override("cube.pe_template.components.pe_math.attrs.op_cost={exp: 3}")});
    BOOST_TEST(*m.cube.noc.attach.bw_gbs == 64.0);
    BOOST_TEST(m.cube.pe_template.math.op_cost.at("exp") == 3.0);
    BOOST_TEST(m.cube.pe_template.math.op_cost.at("gelu") == 8.0);

    // The impl location of an overridden impl is "--set".
    const TopologyConfig r =
        load(kMinimal, {npuvp::parse_override("cube.m_cpu.impl=builtin.m_cpu")});
    BOOST_TEST(r.cube.impl_loc.at("m_cpu").file == "--set");
}

BOOST_AUTO_TEST_CASE(override_creating_unknown_key_is_rejected) {
    const ConfigError e =
        load_error(kMinimal, {npuvp::parse_override("cube.noc.attrs.nonsense=1")});
    check_loc(e, "--set", 0, 0, "cube.noc.attrs.nonsense");
    BOOST_TEST(contains(e.what(), "--set: cube.noc.attrs.nonsense: unknown key 'nonsense'"));

    const ConfigError top = load_error(kMinimal, {npuvp::parse_override("bogus.key=1")});
    check_loc(top, "--set", 0, 0, "bogus");

    // Setting through a scalar.
    const ConfigError through = load_error(kMinimal, {npuvp::parse_override("system.sips.x=1")});
    BOOST_TEST(through.loc().file == "--set");
    BOOST_TEST(contains(through.what(), "'system.sips', which is '1', not a map"));
}

BOOST_AUTO_TEST_CASE(override_with_bad_value_names_set_and_key_path) {
    const ConfigError e =
        load_error(kMinimal, {npuvp::parse_override("cube.noc.attrs.link_bw_gbs=-1")});
    BOOST_TEST(std::string(e.what()) == "--set: cube.noc.attrs.link_bw_gbs: must be > 0 (got -1)");

    // Replacing a value the file sets, and a bad value inside a flow map.
    const ConfigError rows = load_error(kMinimal, {npuvp::parse_override("cube.pe_layout.rows=two")});
    BOOST_TEST(std::string(rows.what()) ==
               "--set: cube.pe_layout.rows: expected an integer (got 'two')");
    const ConfigError nested = load_error(
        kMinimal, {npuvp::parse_override("cube.hbm_ctrl.attrs={bw_gbs: 100, latency: 3}")});
    check_loc(nested, "--set", 0, 0, "cube.hbm_ctrl.attrs.latency");
}

BOOST_AUTO_TEST_CASE(malformed_override_syntax_is_rejected) {
    const auto error_of = [](const std::string& arg) -> ConfigError {
        try {
            npuvp::parse_override(arg);
        } catch (const ConfigError& e) {
            BOOST_TEST_MESSAGE("error: " << e.what());
            return e;
        }
        BOOST_FAIL("expected a ConfigError for " + arg);
        throw std::logic_error("unreachable");
    };
    BOOST_TEST(contains(error_of("cube.noc.attrs.link_bw_gbs").what(), "expected key.path=value"));
    BOOST_TEST(error_of("=5").loc().file == "--set");
    BOOST_TEST(contains(error_of("=5").what(), "empty key path"));
    BOOST_TEST(contains(error_of("cube..noc=1").what(), "malformed key path"));
    BOOST_TEST(contains(error_of("cube.noc.=1").what(), "malformed key path"));
    const ConfigError value = error_of("cube.noc.attrs={link_bw_gbs: 1");
    BOOST_TEST(value.loc().key_path == "cube.noc.attrs");
    BOOST_TEST(contains(value.what(), "malformed value"));

    const Override ok = npuvp::parse_override("name=a=b");
    BOOST_TEST(ok.key_path == "name");
    BOOST_TEST(ok.value == "a=b");
}

BOOST_AUTO_TEST_CASE(m_cpu_response_timeout_is_optional_positive_and_round_trips) {
    // Absent: the watchdog is off, and the dump does not mention it.
    const TopologyConfig off = load(kMinimal);
    BOOST_TEST(!off.cube.m_cpu.response_timeout_ns.has_value());
    BOOST_TEST(!contains(npuvp::dump_topology_yaml(off), "response_timeout_ns"));

    // Given in the file: read, dumped and read back.
    const TopologyConfig on =
        load(patched("cube:\n", "cube:\n  m_cpu: { attrs: { response_timeout_ns: 2500.5 } }\n"));
    BOOST_REQUIRE(on.cube.m_cpu.response_timeout_ns.has_value());
    BOOST_TEST(*on.cube.m_cpu.response_timeout_ns == 2500.5);
    const std::string dumped = npuvp::dump_topology_yaml(on);
    BOOST_TEST(contains(dumped, "response_timeout_ns: 2500.5"));
    const TopologyConfig back = load(dumped);
    BOOST_TEST(*back.cube.m_cpu.response_timeout_ns == 2500.5);
    BOOST_TEST(npuvp::dump_topology_yaml(back) == dumped);

    // Given with --set on a file that leaves it out (host_watchdog.yaml's recipe).
    const TopologyConfig set = load(read_text(topology_path("default.yaml")),
                                    {npuvp::parse_override("cube.m_cpu.attrs.response_timeout_ns=100000")});
    BOOST_TEST(*set.cube.m_cpu.response_timeout_ns == 100000.0);

    // 0, negative and non-finite values are rejected at the value.
    const ConfigError zero =
        load_error(patched("cube:\n", "cube:\n  m_cpu: { attrs: { response_timeout_ns: 0 } }\n"));
    check_loc(zero, "test.yaml", 5, 42, "cube.m_cpu.attrs.response_timeout_ns");
    BOOST_TEST(contains(zero.what(), "test.yaml:5:42: cube.m_cpu.attrs.response_timeout_ns"));
    BOOST_TEST(contains(zero.what(), "must be > 0 (got 0)"));
    const ConfigError negative =
        load_error(patched("cube:\n", "cube:\n  m_cpu: { attrs: { response_timeout_ns: -1 } }\n"));
    check_loc(negative, "test.yaml", 5, 42, "cube.m_cpu.attrs.response_timeout_ns");
    const ConfigError inf =
        load_error(patched("cube:\n", "cube:\n  m_cpu: { attrs: { response_timeout_ns: 1e999 } }\n"));
    check_loc(inf, "test.yaml", 5, 42, "cube.m_cpu.attrs.response_timeout_ns");
    BOOST_TEST(contains(inf.what(), "must be a finite number"));
}

BOOST_AUTO_TEST_CASE(reading_a_small_file_costs_its_size_not_the_limit) {
    // docs/limits.md: an input file is read up to 16 MiB and no further. A
    // file of a few kilobytes must not cost a buffer of the limit (it did:
    // 16 MiB zero-filled and kept per file read, about 15 ms of every run's
    // start-up). default.yaml is a few kilobytes: its text, exactly, in a
    // string of about that capacity.
    const std::string path = topology_path("default.yaml");
    const std::string whole = read_text(path);
    const std::string text = npuvp::read_input_file(path);
    BOOST_REQUIRE_LT(whole.size(), std::size_t{64} << 10);
    BOOST_CHECK(text == whole);
    BOOST_CHECK_LT(text.capacity(), std::size_t{1} << 20);
}
