// Workload loader (docs/workload.md, SPEC §3 T6, §8): the shipped workloads
// load against default.yaml with the expected commands, defaults are applied,
// and every kind of bad input is a ConfigError naming file, line, column and
// key path. No simulation runs here.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "modules/pe/command.h"
#include "modules/pe/tcm_partition.h"
#include "platform/impl_registry.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"

namespace {

using npuvp::Command;
using npuvp::CommandKind;
using npuvp::ConfigError;
using npuvp::EpilogueScope;
using npuvp::Override;
using npuvp::TopologyConfig;
using npuvp::WorkloadConfig;

std::string source_path(const std::string& relative) {
    return std::string(NPUVP_SOURCE_DIR) + "/" + relative;
}

// The kinds and impls default.yaml names; the factories are never called, so
// this test does not depend on the modules being buildable.
const npuvp::ImplRegistry& test_registry() {
    static const npuvp::ImplRegistry registry = [] {
        npuvp::ImplRegistry reg;
        for (const char* kind : {"io_cpu", "m_cpu", "hbm_ctrl", "shared_sram", "pe_cpu",
                                 "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm", "pe_math",
                                 "pe_tcm", "pe_mmu", "pe_ipcq"})
            reg.add<sc_core::sc_module>(
                kind, std::string("builtin.") + kind,
                [](const sc_core::sc_module_name&, const npuvp::NodeEnv&) {
                    return std::unique_ptr<sc_core::sc_module>();
                });
        reg.add<sc_core::sc_module>(
            "noc", "builtin.mesh_noc", [](const sc_core::sc_module_name&, const npuvp::NodeEnv&) {
                return std::unique_ptr<sc_core::sc_module>();
            });
        return reg;
    }();
    return registry;
}

// default.yaml: 1 SIP × 1 cube, 2 × 4 = 8 PEs, reserved TCM 8 MiB, 64 KiB pages.
TopologyConfig topology(const std::vector<Override>& overrides = {}) {
    return npuvp::load_topology_file(source_path("configs/topologies/default.yaml"), overrides,
                                     test_registry());
}

const TopologyConfig& default_topology() {
    static const TopologyConfig topo = topology();
    return topo;
}

WorkloadConfig load(const std::string& text, const TopologyConfig& topo = default_topology()) {
    return npuvp::load_workload_text(text, "wl.yaml", topo);
}

WorkloadConfig load_shipped(const std::string& name) {
    return npuvp::load_workload_file(source_path("configs/workloads/" + name),
                                     default_topology());
}

WorkloadConfig load_shipped_on(const std::string& name, const std::string& topology_file) {
    const TopologyConfig topo = npuvp::load_topology_file(
        source_path("configs/topologies/" + topology_file), {}, test_registry());
    return npuvp::load_workload_file(source_path("configs/workloads/" + name), topo);
}

ConfigError load_error(const std::string& text, const TopologyConfig& topo = default_topology()) {
    try {
        load(text, topo);
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

void check_loc(const ConfigError& e, int line, int column, const std::string& key_path) {
    BOOST_TEST(e.loc().file == "wl.yaml");
    BOOST_TEST(e.loc().line == line);
    BOOST_TEST(e.loc().column == column);
    BOOST_TEST(e.loc().key_path == key_path);
}

// A small valid workload. Lines and columns (1-based, counted by hand) used
// by the error tests below:
//   1 name: base
//   2 kernels:
//   3   k:
//   4     - dma_read: { id: ld, bytes: 65536 }        dma_read col 7, bytes value col 34
//   5     - composite:                                composite col 7
//   6         id: fc1                                 id value col 13
//   7         gemm: { m: 256, k: 256, n: 256 }
//   8         tile: { m: 128, k: 128, n: 128 }        tile value col 15
//   9         dtype: { in: bf16, out: bf16 }          in value col 22
//  10         epilogues:
//  11           - { op: bias_add, scope: per_k_tile } op value col 19, scope value col 36
//  12     - wait: [ld]                                wait col 7, ld col 14
//  13     - ipcq_send: { peer: 1, bytes: 4096 }       peer value col 26
//  14 launch:
//  15   - { kernel: k, cube: sip0.cube0, pes: [0] }   kernel value col 15, cube value col 24,
//                                                     first pe col 42
const std::string kBase = R"(name: base
kernels:
  k:
    - dma_read: { id: ld, bytes: 65536 }
    - composite:
        id: fc1
        gemm: { m: 256, k: 256, n: 256 }
        tile: { m: 128, k: 128, n: 128 }
        dtype: { in: bf16, out: bf16 }
        epilogues:
          - { op: bias_add, scope: per_k_tile }
    - wait: [ld]
    - ipcq_send: { peer: 1, bytes: 4096 }
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
)";

// kBase with `from` (which must occur exactly once) replaced by `to`; the
// replacements below keep every line where it was.
std::string patched(const std::string& from, const std::string& to) {
    const auto at = kBase.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "patch target not found: " + from);
    BOOST_REQUIRE_MESSAGE(kBase.find(from, at + 1) == std::string::npos,
                          "patch target not unique: " + from);
    std::string text = kBase;
    text.replace(at, from.size(), to);
    return text;
}

}  // namespace

// ---------------------------------------------------------------- shipped files

BOOST_AUTO_TEST_CASE(shipped_workloads_load) {
    // Every file in configs/workloads/, not only the ones named here.
    std::set<std::string> names = {"gemm_bias_relu.yaml", "gemm_all_pes.yaml",
                                   "elementwise_relu.yaml", "simple_commands.yaml",
                                   "ipcq_exchange.yaml", "mmu_va.yaml", "mmu_fault.yaml",
                                   "host_launch.yaml", "host_watchdog.yaml",
                                   "host_two_cubes.yaml"};
    std::size_t listed = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(source_path("configs/workloads")))
        if (entry.path().extension() == ".yaml") {
            listed += names.count(entry.path().filename().string());
            names.insert(entry.path().filename().string());
        }
    BOOST_TEST(listed == 10u);
    for (const std::string& name : names) {
        BOOST_TEST_CONTEXT(name) {
            WorkloadConfig config;
            // host_two_cubes.yaml addresses four cubes: it runs on two_sip.yaml.
            if (name == "host_two_cubes.yaml")
                BOOST_CHECK_NO_THROW(config = load_shipped_on(name, "two_sip.yaml"));
            else
                BOOST_CHECK_NO_THROW(config = load_shipped(name));
            BOOST_TEST(!config.kernels.empty());
            BOOST_TEST((!config.launches.empty() || !config.host.empty()));
        }
    }
}

BOOST_AUTO_TEST_CASE(gemm_bias_relu_fields) {
    const WorkloadConfig config = load_shipped("gemm_bias_relu.yaml");
    BOOST_TEST(config.name == "gemm_bias_relu");
    BOOST_REQUIRE(config.kernels.count("gemm_bias_relu") == 1);
    const auto& commands = config.kernels.at("gemm_bias_relu").commands;
    BOOST_REQUIRE(commands.size() == 1u);
    const Command& c = commands[0];
    BOOST_TEST((c.kind == CommandKind::composite));
    BOOST_TEST(c.id == "fc1");
    BOOST_TEST(c.index == 0u);
    BOOST_TEST(c.wait);
    BOOST_TEST(c.loc.line == 10);  // `- composite:` after 6 comment lines and 3 keys
    BOOST_TEST(c.loc.key_path == "kernels.gemm_bias_relu[0].composite");
    const auto& s = c.composite;
    BOOST_TEST(s.m == 512u);
    BOOST_TEST(s.k == 512u);
    BOOST_TEST(s.n == 512u);
    BOOST_TEST(s.tm == 128u);
    BOOST_TEST(s.tk == 128u);
    BOOST_TEST(s.tn == 128u);
    BOOST_TEST(s.d_in == 2u);
    BOOST_TEST(s.d_out == 2u);
    // No `reuse`: the default keeps an A row panel (A and B save as much).
    BOOST_TEST(!s.reuse_given);
    BOOST_TEST((s.reuse == npuvp::OperandReuse::a_panel));
    BOOST_REQUIRE(s.ops.size() == 3u);
    BOOST_TEST(s.ops[0].kind == "gemm");
    BOOST_TEST(s.ops[1].kind == "math.bias_add");
    BOOST_TEST((s.ops[1].scope == EpilogueScope::per_output_tile));
    BOOST_TEST(s.ops[2].kind == "math.relu");
    BOOST_TEST((s.ops[2].scope == EpilogueScope::per_output_tile));
    BOOST_TEST(c.src.given);
    BOOST_TEST(!c.src.is_va);
    BOOST_TEST(c.src.value == 0u);
    BOOST_TEST(c.dst.given);
    BOOST_TEST(c.dst.value == 0x8000000u);
    // 4 × 4 output tiles × 4 K-steps (T6).
    BOOST_TEST(npuvp::TilePlanner(s).total_tiles() == 64u);

    BOOST_REQUIRE(config.launches.size() == 1u);
    BOOST_TEST(config.launches[0].kernel == "gemm_bias_relu");
    BOOST_TEST(config.launches[0].sip == 0);
    BOOST_TEST(config.launches[0].cube == 0);
    BOOST_TEST(config.launches[0].pes == std::vector<int>{0});
}

BOOST_AUTO_TEST_CASE(gemm_all_pes_launches_every_pe) {
    const WorkloadConfig config = load_shipped("gemm_all_pes.yaml");
    BOOST_REQUIRE(config.launches.size() == 1u);
    BOOST_TEST(config.launches[0].pes == (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    const Command& c = config.kernels.at("gemm_bias_relu").commands.at(0);
    BOOST_TEST(!c.src.given);
    BOOST_TEST(!c.dst.given);
}

BOOST_AUTO_TEST_CASE(elementwise_relu_is_legacy) {
    const WorkloadConfig config = load_shipped("elementwise_relu.yaml");
    const Command& c = config.kernels.at("relu").commands.at(0);
    BOOST_TEST((c.kind == CommandKind::composite));
    BOOST_TEST(c.composite.ops.empty());
    BOOST_TEST(c.composite.legacy_op == "relu");
    BOOST_TEST(c.composite.total_bytes == 4194304u);
    BOOST_TEST(c.composite.tile_bytes == 65536u);
    BOOST_TEST(c.composite.d_in == 2u);
    BOOST_TEST(c.composite.d_out == 2u);
    BOOST_TEST(npuvp::TilePlanner(c.composite).total_tiles() == 64u);  // 4 MiB / 64 KiB
}

BOOST_AUTO_TEST_CASE(simple_commands_waits) {
    const WorkloadConfig config = load_shipped("simple_commands.yaml");
    const auto& c = config.kernels.at("simple").commands;
    BOOST_REQUIRE(c.size() == 8u);
    BOOST_TEST((c[0].kind == CommandKind::dma_read));
    BOOST_TEST(c[0].bytes == 32768u);
    BOOST_TEST(c[1].addr.value == 0x8000u);
    BOOST_TEST((c[2].kind == CommandKind::wait));
    BOOST_TEST(c[2].id == "c2");
    BOOST_TEST(c[2].wait_for == (std::vector<std::uint32_t>{0, 1}));
    BOOST_TEST((c[3].kind == CommandKind::gemm));
    BOOST_TEST(c[3].m == 128u);
    BOOST_TEST(c[4].wait_for == (std::vector<std::uint32_t>{3}));
    BOOST_TEST((c[5].kind == CommandKind::math));
    BOOST_TEST(c[5].op == "relu");
    BOOST_TEST(c[5].elements == 16384u);
    BOOST_TEST((c[6].kind == CommandKind::wait));
    BOOST_TEST(c[6].wait_for.empty());  // `wait: all`
    BOOST_TEST((c[7].kind == CommandKind::dma_write));
    BOOST_TEST(c[7].wait);
    BOOST_TEST(!c[0].wait);
    for (std::size_t i = 0; i < c.size(); ++i) BOOST_TEST(c[i].index == i);
}

BOOST_AUTO_TEST_CASE(ipcq_exchange_peers) {
    const WorkloadConfig config = load_shipped("ipcq_exchange.yaml");
    const auto& to_pe1 = config.kernels.at("to_pe1").commands;
    BOOST_TEST((to_pe1.at(0).kind == CommandKind::ipcq_send));
    BOOST_TEST(to_pe1.at(0).peer == 1);
    BOOST_TEST(to_pe1.at(0).bytes == 65536u);
    BOOST_TEST((to_pe1.at(1).kind == CommandKind::ipcq_recv));
    BOOST_TEST(to_pe1.at(1).bytes == 65536u);
    BOOST_TEST(config.kernels.at("to_pe0").commands.at(0).peer == 0);
    BOOST_REQUIRE(config.launches.size() == 2u);
    BOOST_TEST(config.launches[1].pes == std::vector<int>{1});
}

BOOST_AUTO_TEST_CASE(mmu_mappings) {
    const WorkloadConfig va = load_shipped("mmu_va.yaml");
    BOOST_REQUIRE(va.mmu.size() == 1u);
    BOOST_TEST(va.mmu[0].va == 0x40000000u);
    BOOST_TEST(va.mmu[0].pa == 0u);
    BOOST_TEST(va.mmu[0].bytes == 0x200000u);
    BOOST_TEST(va.mmu[0].pes == std::vector<int>{0});
    const Command& ld = va.kernels.at("read_va").commands.at(0);
    BOOST_TEST(ld.addr.given);
    BOOST_TEST(ld.addr.is_va);
    BOOST_TEST(ld.addr.value == 0x40010000u);

    const WorkloadConfig fault = load_shipped("mmu_fault.yaml");
    const Command& bad = fault.kernels.at("read_unmapped").commands.at(0);
    BOOST_TEST(bad.addr.is_va);
    BOOST_TEST(bad.addr.value == 0x80000000u);
}

// ---------------------------------------------------------------- defaults

BOOST_AUTO_TEST_CASE(defaults_applied) {
    const WorkloadConfig config = load(R"(kernels:
  k:
    - dma_read: { bytes: 4096 }
    - composite:
        gemm: { m: 64, k: 64, n: 64 }
        tile: { m: 32, k: 32, n: 32 }
        epilogues:
          - { op: relu }
    - composite: { op: relu, bytes: 4096, tile_bytes: 1024 }
    - wait: all
launch:
  - { kernel: k }
)");
    BOOST_TEST(config.name.empty());
    BOOST_TEST(config.mmu.empty());
    const auto& c = config.kernels.at("k").commands;
    BOOST_REQUIRE(c.size() == 4u);
    BOOST_TEST(c[0].id == "c0");
    BOOST_TEST(c[1].id == "c1");
    BOOST_TEST(c[3].id == "c3");
    BOOST_TEST(!c[0].addr.given);
    BOOST_TEST(!c[0].wait);
    BOOST_TEST(!c[1].src.given);
    BOOST_TEST(!c[1].dst.given);
    BOOST_TEST(c[1].composite.d_in == 2u);   // bf16
    BOOST_TEST(c[1].composite.d_out == 2u);  // bf16
    BOOST_REQUIRE(c[1].composite.ops.size() == 2u);
    BOOST_TEST((c[1].composite.ops[1].scope == EpilogueScope::per_output_tile));
    BOOST_TEST(c[2].composite.d_in == 2u);
    BOOST_TEST(c[3].wait_for.empty());
    const auto& launch = config.launches.at(0);
    BOOST_TEST(launch.sip == 0);
    BOOST_TEST(launch.cube == 0);
    BOOST_TEST(launch.pes == (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    BOOST_TEST(launch.loc.line == 12);
    BOOST_TEST(launch.loc.key_path == "launch[0]");
}

BOOST_AUTO_TEST_CASE(base_loads_with_locations) {
    const WorkloadConfig config = load(kBase);
    const auto& c = config.kernels.at("k").commands;
    BOOST_REQUIRE(c.size() == 4u);
    BOOST_TEST(c[1].loc.line == 5);
    BOOST_TEST(c[1].loc.column == 7);
    BOOST_TEST(c[1].loc.key_path == "kernels.k[1].composite");
    BOOST_TEST((c[1].composite.ops.at(1).scope == EpilogueScope::per_k_tile));
    BOOST_TEST(c[2].wait_for == std::vector<std::uint32_t>{0});
    BOOST_TEST(c[3].peer == 1);
}

BOOST_AUTO_TEST_CASE(hex_and_pes_forms) {
    const WorkloadConfig config = load(patched("pes: [0] }", "pes: 3 }"));
    BOOST_TEST(config.launches.at(0).pes == std::vector<int>{3});
    // On every PE, pe1 would be its own ipcq peer: receive instead.
    std::string text = patched("pes: [0] }", "pes: all }");
    const std::string send = "ipcq_send: { peer: 1, bytes: 4096 }";
    text.replace(text.find(send), send.size(), "ipcq_recv: { bytes: 4096 }");
    const WorkloadConfig all = load(text);
    BOOST_TEST(all.launches.at(0).pes.size() == 8u);
    BOOST_TEST(load_error(patched("pes: [0] }", "pes: all }")).loc().key_path ==
               "kernels.k[3].ipcq_send.peer");
    const WorkloadConfig hex = load(patched("bytes: 65536 }", "bytes: 0x10000 }"));
    BOOST_TEST(hex.kernels.at("k").commands.at(0).bytes == 65536u);
}

// ---------------------------------------------------------------- errors

BOOST_AUTO_TEST_CASE(error_malformed_yaml) {
    // Line 4: the flow map is never closed; yaml-cpp reports the error where
    // it gives up, so only the line is pinned, with an empty key path.
    const ConfigError e = load_error(patched("bytes: 65536 }", "bytes: 65536"));
    BOOST_TEST(e.loc().file == "wl.yaml");
    BOOST_TEST(e.loc().line >= 4);
    BOOST_TEST(e.loc().key_path.empty());
    BOOST_TEST(contains(e.what(), "malformed YAML"));
}

BOOST_AUTO_TEST_CASE(error_unknown_key) {
    // Line 4: `byts` starts at col 27 of "    - dma_read: { id: ld, byts: 65536 }".
    const ConfigError e = load_error(patched("bytes: 65536 }", "byts: 65536 }"));
    check_loc(e, 4, 27, "kernels.k[0].dma_read.byts");
    BOOST_TEST(contains(e.what(), "unknown key 'byts' (allowed: id, bytes, addr, pattern, chunks, "
                                  "copies, stride, wait, reads, writes, context, resources, access)"));
}

BOOST_AUTO_TEST_CASE(error_unknown_top_key) {
    // Line 1: `nam:` at col 1.
    const ConfigError e = load_error(patched("name: base", "nam: base"));
    check_loc(e, 1, 1, "nam");
    BOOST_TEST(contains(e.what(), "allowed: name, kernels, launch, mmu"));
}

BOOST_AUTO_TEST_CASE(formerly_reserved_keys_are_accepted) {
    // context, reads and writes were reserved until SPEC §6 gave them meaning.
    const WorkloadConfig w = load(patched(
        "bytes: 65536 }",
        "bytes: 65536, context: dma, reads: [{ hbm: 0, bytes: 64 }], writes: [{ tcm: 0x800000, bytes: 64 }] }"));
    const Command& c = w.kernels.at("k").commands[0];
    BOOST_TEST(c.context_given);
    BOOST_TEST(c.reads.size() == 1u);
    BOOST_TEST(c.writes.size() == 1u);
}

BOOST_AUTO_TEST_CASE(error_unknown_command_type) {
    // Line 4: `dma_reed` at col 7.
    const ConfigError e = load_error(patched("dma_read:", "dma_reed:"));
    check_loc(e, 4, 7, "kernels.k[0].dma_reed");
    BOOST_TEST(contains(e.what(), "unknown command type 'dma_reed'"));
    BOOST_TEST(contains(e.what(), "ipcq_recv"));
}

BOOST_AUTO_TEST_CASE(error_wrong_type) {
    // Line 4: the value of bytes (col 34) is a list.
    const ConfigError e = load_error(patched("bytes: 65536 }", "bytes: [1] }"));
    check_loc(e, 4, 34, "kernels.k[0].dma_read.bytes");
    BOOST_TEST(contains(e.what(), "expected an integer, got a list"));
    // Line 4: a quoted number is a string.
    const ConfigError quoted = load_error(patched("bytes: 65536 }", "bytes: \"65536\" }"));
    check_loc(quoted, 4, 34, "kernels.k[0].dma_read.bytes");
    // Line 12: `wait` wants `all` or a list; col 13 is its value.
    const ConfigError wait = load_error(patched("- wait: [ld]", "- wait: ld  "));
    check_loc(wait, 12, 13, "kernels.k[2].wait");
}

BOOST_AUTO_TEST_CASE(error_missing_required) {
    // Line 4: no bytes; the error points at the dma_read map (col 17).
    const ConfigError e = load_error(patched("{ id: ld, bytes: 65536 }", "{ id: ld }"));
    check_loc(e, 4, 17, "kernels.k[0].dma_read.bytes");
    BOOST_TEST(contains(e.what(), "missing required key 'bytes'"));
    // Neither launch nor host: nothing to run, at the document (line 1, col 1).
    const ConfigError launch = load_error(patched("launch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n", ""));
    check_loc(launch, 1, 1, "");
    BOOST_TEST(contains(launch.what(), "wl.yaml:1:1: nothing to run"));
    // An empty `launch:` is the same as none.
    const ConfigError null_launch =
        load_error(patched("launch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n", "launch:\n"));
    BOOST_TEST(contains(null_launch.what(), "nothing to run"));
}

BOOST_AUTO_TEST_CASE(error_non_positive_size) {
    const ConfigError e = load_error(patched("bytes: 65536 }", "bytes: 0 }"));
    check_loc(e, 4, 34, "kernels.k[0].dma_read.bytes");
    BOOST_TEST(contains(e.what(), "must be > 0"));
    // Line 7: gemm m (col 20) negative.
    const ConfigError neg = load_error(patched("gemm: { m: 256", "gemm: { m: -25"));
    check_loc(neg, 7, 20, "kernels.k[1].composite.gemm.m");
    BOOST_TEST(contains(neg.what(), "must be > 0 (got -25)"));
}

BOOST_AUTO_TEST_CASE(error_unknown_kernel_in_launch) {
    // Line 15: kernel value at col 15.
    const ConfigError e = load_error(patched("kernel: k,", "kernel: q,"));
    check_loc(e, 15, 15, "launch[0].kernel");
    BOOST_TEST(contains(e.what(), "unknown kernel 'q' (kernels: k)"));
}

BOOST_AUTO_TEST_CASE(error_cube_out_of_range) {
    // Line 15: cube value at col 24; default.yaml has one SIP and one cube.
    const ConfigError sip = load_error(patched("sip0.cube0", "sip1.cube0"));
    check_loc(sip, 15, 24, "launch[0].cube");
    BOOST_TEST(contains(sip.what(), "SIP 1 out of range"));
    const ConfigError cube = load_error(patched("sip0.cube0", "sip0.cube2"));
    check_loc(cube, 15, 24, "launch[0].cube");
    BOOST_TEST(contains(cube.what(), "cube 2 out of range"));
    const ConfigError bad = load_error(patched("sip0.cube0", "cube0.sip0"));
    check_loc(bad, 15, 24, "launch[0].cube");
    BOOST_TEST(contains(bad.what(), "sipS.cubeC"));
}

BOOST_AUTO_TEST_CASE(error_pe_out_of_range) {
    // Line 15: first list entry at col 42; the cube has 8 PEs.
    const ConfigError e = load_error(patched("pes: [0] }", "pes: [8] }"));
    check_loc(e, 15, 42, "launch[0].pes[0]");
    BOOST_TEST(contains(e.what(), "PE 8 out of range"));
}

BOOST_AUTO_TEST_CASE(error_unknown_dtype) {
    // Line 9: `in` value at col 22.
    const ConfigError e = load_error(patched("in: bf16", "in: fp64"));
    check_loc(e, 9, 22, "kernels.k[1].composite.dtype.in");
    BOOST_TEST(contains(e.what(), "unknown dtype 'fp64' (known: int8, int32, bf16, fp32)"));
}

BOOST_AUTO_TEST_CASE(error_unknown_epilogue_scope) {
    // Line 11: scope value at col 36.
    const ConfigError e = load_error(patched("scope: per_k_tile", "scope: per_tile  "));
    check_loc(e, 11, 36, "kernels.k[1].composite.epilogues[0].scope");
    BOOST_TEST(contains(e.what(), "unknown epilogue scope 'per_tile'"));
}

BOOST_AUTO_TEST_CASE(error_unknown_math_op) {
    // Line 11: op value at col 19; ops come from default.yaml's pe_math.op_cost.
    const ConfigError e = load_error(patched("op: bias_add", "op: tanh    "));
    check_loc(e, 11, 19, "kernels.k[1].composite.epilogues[0].op");
    BOOST_TEST(contains(e.what(), "unknown math op 'tanh'"));
    BOOST_TEST(contains(e.what(), "bias_add"));
}

BOOST_AUTO_TEST_CASE(error_wait_unknown_or_later_id) {
    // Line 12: the id in the list at col 14.
    const ConfigError unknown = load_error(patched("- wait: [ld]", "- wait: [xx]"));
    check_loc(unknown, 12, 14, "kernels.k[2].wait[0]");
    BOOST_TEST(contains(unknown.what(), "no command 'xx' in kernel 'k'"));
    // c3 is the ipcq_send on line 13, after the wait (index 2).
    const ConfigError later = load_error(patched("- wait: [ld]", "- wait: [c3]"));
    check_loc(later, 12, 14, "kernels.k[2].wait[0]");
    BOOST_TEST(contains(later.what(), "does not come before this wait"));
    // A wait naming itself is not earlier either.
    const ConfigError self = load_error(patched("- wait: [ld]", "- wait: [c2]"));
    check_loc(self, 12, 14, "kernels.k[2].wait[0]");
}

BOOST_AUTO_TEST_CASE(error_ipcq_peer) {
    // Line 13: peer value at col 26.
    const ConfigError range = load_error(patched("peer: 1,", "peer: 8,"));
    check_loc(range, 13, 26, "kernels.k[3].ipcq_send.peer");
    BOOST_TEST(contains(range.what(), "peer 8 out of range"));
    // Launched on pe0, peer 0 is the sender itself.
    const ConfigError self = load_error(patched("peer: 1,", "peer: 0,"));
    check_loc(self, 13, 26, "kernels.k[3].ipcq_send.peer");
    BOOST_TEST(contains(self.what(), "the sending PE itself"));
    BOOST_TEST(contains(self.what(), "wl.yaml:15:5"));  // the launch map
}

BOOST_AUTO_TEST_CASE(error_duplicate_command_id) {
    // Line 6: fc1 renamed to ld, which command 0 already has; points at the
    // second command's type key (line 5, col 7).
    const ConfigError e = load_error(patched("id: fc1", "id: ld "));
    check_loc(e, 5, 7, "kernels.k[1].composite");
    BOOST_TEST(contains(e.what(), "duplicate command id 'ld'"));
    // An explicit id equal to another command's default id collides too.
    const ConfigError dflt = load_error(patched("id: fc1", "id: c2 "));
    check_loc(dflt, 12, 7, "kernels.k[2].wait");
}

BOOST_AUTO_TEST_CASE(error_bad_command_id) {
    // Line 6: id value at col 13.
    const ConfigError e = load_error(patched("id: fc1", "id: 1fc"));
    check_loc(e, 6, 13, "kernels.k[1].composite.id");
}

BOOST_AUTO_TEST_CASE(error_invalid_composite_spec) {
    // 4097 bytes is not a whole number of bf16 elements: TilePlanner rejects
    // it, reported at the composite (line 4, col 7).
    const ConfigError e = load_error(patched(
        "dma_read: { id: ld, bytes: 65536 }",
        "composite: { id: ld, op: relu, bytes: 4097, tile_bytes: 1024 }"));
    check_loc(e, 4, 7, "kernels.k[0].composite");
    BOOST_TEST(contains(e.what(), "multiples of d_in"));
}

BOOST_AUTO_TEST_CASE(error_tile_does_not_fit_reserved_tcm) {
    // reserved_mb=1 through --set: 1048576 bytes of SchedulerReservedTCM.
    const TopologyConfig small =
        topology({Override{"cube.pe_template.components.pe_tcm.attrs.reserved_mb", "1"}});
    BOOST_REQUIRE(small.cube.pe_template.tcm.reserved_bytes == 1048576u);
    // 128³ bf16 fits: (128·128 + 128·128)·2 + 128·128·2 = 98304 bytes.
    BOOST_CHECK_NO_THROW(load(kBase, small));
    // 512³ bf16: in (512·512 + 512·512)·2 = 1048576, out 512·512·2 = 524288,
    // sum 1572864 > 1048576. Line 8: the tile value at col 15.
    const std::string big = patched("tile: { m: 128, k: 128, n: 128 }", "tile: { m: 512, k: 512, n: 512 }");
    const std::string big_gemm = [&] {
        std::string text = big;
        text.replace(text.find("gemm: { m: 256, k: 256, n: 256 }"), 32, "gemm: { m: 512, k: 512, n: 512 }");
        return text;
    }();
    const ConfigError e = load_error(big_gemm, small);
    check_loc(e, 8, 15, "kernels.k[1].composite.tile");
    BOOST_TEST(contains(e.what(), "1572864"));
    BOOST_TEST(contains(e.what(), "1048576"));
    // The same file fits default.yaml's 8 MiB.
    BOOST_CHECK_NO_THROW(load(big_gemm));
    // The tile is clipped to the matrix: 512³ tiles over a 256³ GEMM are
    // 256³, 256·256·2·2 + 256·256·2 = 393216 bytes, which fit.
    BOOST_CHECK_NO_THROW(load(big, small));

    // Legacy: 2 · 1 MiB tile > 1 MiB. Line 4: tile_bytes value at col 66.
    const ConfigError legacy = load_error(
        patched("dma_read: { id: ld, bytes: 65536 }",
                "composite: { id: ld, op: relu, bytes: 4194304, tile_bytes: 1048576 }"),
        small);
    check_loc(legacy, 4, 66, "kernels.k[0].composite.tile_bytes");
    BOOST_TEST(contains(legacy.what(), "2097152"));
    BOOST_TEST(contains(legacy.what(), "1048576"));
}

BOOST_AUTO_TEST_CASE(error_mmu_misaligned) {
    // Lines 16-17 appended after the launch: pa 0x1000 (line 17, col 27) is
    // not a multiple of the 64 KiB page.
    const ConfigError e = load_error(kBase + "mmu:\n  - { va: 0x40000000, pa: 0x1000, bytes: 0x10000 }\n");
    check_loc(e, 17, 27, "mmu[0].pa");
    BOOST_TEST(contains(e.what(), "65536"));
}

// ---------------------------------------------------------------- host section

namespace {

using npuvp::HostRequest;
using npuvp::HostRequestKind;

// One request of each kind. Lines and columns (1-based) used below:
//   4  ipcq_send peer value col 26
//   5  host:                                         `host` col 1, its value col 7
//   6  memory_write: kind col 5, map col 19, id value col 25, pa value col 33,
//                    bytes key col 38, bytes value col 45
//   7  memory_read:  map col 18, `after` list col 49, its first id col 50
//   8  mmu_map:      cubes list col 23, target_pe value col 48, va value col 57,
//                    pa value col 73
//   9  mmu_unmap:    map col 16, target_pe list col 50, va value col 62
//  10  kernel_launch: map col 20, kernel value col 38, cubes list col 48,
//                    first cube col 49, target_pe list col 73, its second PE
//                    col 77, target_start_ns value col 98
const std::string kHost = R"(kernels:
  k:
    - gemm: { m: 64, k: 64, n: 64 }
    - ipcq_send: { peer: 7, bytes: 4096 }
host:
  - memory_write: { id: w0, pa: 0x0, bytes: 0x400000 }
  - memory_read: { pa: 0x0, bytes: 4096, after: [w0] }
  - mmu_map: { cubes: [sip0.cube0], target_pe: all, va: 0x40000000, pa: 0x0, bytes: 0x200000 }
  - mmu_unmap: { cubes: [sip0.cube0], target_pe: [0, 1], va: 0x40000000, bytes: 0x200000 }
  - kernel_launch: { id: go, kernel: k, cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns: 100.0 }
)";

// kHost with `from` (which must occur exactly once) replaced by `to`.
std::string host_patched(const std::string& from, const std::string& to) {
    const auto at = kHost.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "patch target not found: " + from);
    BOOST_REQUIRE_MESSAGE(kHost.find(from, at + 1) == std::string::npos,
                          "patch target not unique: " + from);
    std::string text = kHost;
    text.replace(at, from.size(), to);
    return text;
}

// kHost's kernels with `host` replaced by `host_text` (which starts on line 5).
std::string host_section(const std::string& host_text) {
    return kHost.substr(0, kHost.find("host:")) + host_text;
}

// kHost with `from` -> `to` must fail at (line, column, key_path) with `part`.
void expect_host_error(const std::string& from, const std::string& to, int line, int column,
                       const std::string& key_path, const std::string& part) {
    BOOST_TEST_CONTEXT(from << " -> " << to) {
        const ConfigError e = load_error(host_patched(from, to));
        check_loc(e, line, column, key_path);
        BOOST_TEST(contains(e.what(), part), e.what() << " lacks: " << part);
    }
}

std::vector<int> all_pes() { return {0, 1, 2, 3, 4, 5, 6, 7}; }

}  // namespace

BOOST_AUTO_TEST_CASE(host_section_fields) {
    const WorkloadConfig config = load(kHost);
    BOOST_TEST(config.launches.empty());
    BOOST_REQUIRE(config.host.size() == 5u);
    const auto& h = config.host;
    for (std::size_t i = 0; i < h.size(); ++i) BOOST_TEST(h[i].index == i);

    BOOST_TEST((h[0].kind == HostRequestKind::memory_write));
    BOOST_TEST(h[0].id == "w0");
    BOOST_TEST(!h[0].explicit_after);
    BOOST_TEST(h[0].after.empty());
    BOOST_TEST(h[0].pa == 0u);
    BOOST_TEST(h[0].bytes == 0x400000u);
    BOOST_TEST(h[0].loc.line == 6);
    BOOST_TEST(h[0].loc.column == 5);
    BOOST_TEST(h[0].loc.key_path == "host[0].memory_write");

    BOOST_TEST((h[1].kind == HostRequestKind::memory_read));
    BOOST_TEST(h[1].id == "r1");  // default id
    BOOST_TEST(h[1].explicit_after);
    BOOST_TEST(h[1].after == std::vector<std::uint32_t>{0});
    BOOST_TEST(h[1].bytes == 4096u);

    BOOST_TEST((h[2].kind == HostRequestKind::mmu_map));
    BOOST_TEST(h[2].id == "r2");
    BOOST_REQUIRE(h[2].cubes.size() == 1u);
    BOOST_TEST(h[2].cubes[0].sip == 0);
    BOOST_TEST(h[2].cubes[0].cube == 0);
    BOOST_TEST(h[2].target_all);
    BOOST_TEST(h[2].target_pe == all_pes());  // all = hbm_slices_per_cube PEs
    BOOST_TEST(h[2].va == 0x40000000u);
    BOOST_TEST(h[2].pa == 0u);
    BOOST_TEST(h[2].bytes == 0x200000u);

    BOOST_TEST((h[3].kind == HostRequestKind::mmu_unmap));
    BOOST_TEST(!h[3].target_all);
    BOOST_TEST(h[3].target_pe == (std::vector<int>{0, 1}));
    BOOST_TEST(h[3].va == 0x40000000u);
    BOOST_TEST(h[3].bytes == 0x200000u);

    BOOST_TEST((h[4].kind == HostRequestKind::kernel_launch));
    BOOST_TEST(h[4].id == "go");
    BOOST_TEST(h[4].kernel == "k");
    BOOST_TEST(h[4].target_pe == (std::vector<int>{0, 1}));
    BOOST_REQUIRE(h[4].target_start_ns.has_value());
    BOOST_TEST(*h[4].target_start_ns == 100.0);
    BOOST_TEST(h[4].loc.key_path == "host[4].kernel_launch");
    BOOST_TEST(std::string(npuvp::to_string(h[4].kind)) == "kernel_launch");
}

BOOST_AUTO_TEST_CASE(host_defaults) {
    const WorkloadConfig config = load(R"(kernels:
  k:
    - gemm: { m: 64, k: 64, n: 64 }
host:
  - kernel_launch: { kernel: k }
  - mmu_unmap: { va: 0x0, bytes: 0x10000 }
  - memory_read: { pa: 0x0, bytes: 1, after: [] }
  - memory_write: { pa: 0x10, bytes: 1, after: [r0, r1, r0] }
)");
    BOOST_REQUIRE(config.host.size() == 4u);
    const HostRequest& launch = config.host[0];
    BOOST_TEST(launch.id == "r0");
    BOOST_TEST(!launch.explicit_after);
    BOOST_REQUIRE(launch.cubes.size() == 1u);  // sip0.cube0
    BOOST_TEST(launch.cubes[0].sip == 0);
    BOOST_TEST(launch.cubes[0].cube == 0);
    BOOST_TEST(launch.target_all);             // target_pe absent = all
    BOOST_TEST(launch.target_pe == all_pes());
    BOOST_TEST(!launch.target_start_ns.has_value());  // IO_CPU stamps it
    BOOST_TEST(config.host[1].target_all);
    BOOST_TEST(config.host[1].id == "r1");
    // `after: []`: explicit, no predecessor (starts at once).
    BOOST_TEST(config.host[2].explicit_after);
    BOOST_TEST(config.host[2].after.empty());
    // Repeats are kept once, in order of first mention.
    BOOST_TEST(config.host[3].after == (std::vector<std::uint32_t>{0, 1}));
    // `target_pe: 3` (an int) and a target_start_ns of 0.
    const WorkloadConfig one = load(host_patched(
        "target_pe: [0, 1], target_start_ns: 100.0", "target_pe: 3, target_start_ns: 0"));
    BOOST_TEST(one.host[4].target_pe == std::vector<int>{3});
    BOOST_TEST(!one.host[4].target_all);
    BOOST_TEST(*one.host[4].target_start_ns == 0.0);
}

BOOST_AUTO_TEST_CASE(host_launch_shipped) {
    const WorkloadConfig config = load_shipped("host_launch.yaml");
    BOOST_TEST(config.launches.empty());
    BOOST_REQUIRE(config.host.size() == 4u);
    const auto& h = config.host;
    BOOST_TEST((h[0].kind == HostRequestKind::memory_write));
    // The write spans the pe0 / pe1 slice boundary at 6 GiB.
    const std::uint64_t boundary = 6ull << 30;
    BOOST_TEST(h[0].pa == boundary - (1u << 20));
    BOOST_TEST(h[0].bytes == 2u << 20);
    BOOST_TEST((h[1].kind == HostRequestKind::mmu_map));
    BOOST_TEST(h[1].target_all);
    BOOST_TEST(h[1].pa == h[0].pa);
    BOOST_TEST((h[2].kind == HostRequestKind::kernel_launch));
    BOOST_TEST(h[2].kernel == "small_gemm");
    BOOST_TEST(h[2].target_all);
    BOOST_TEST(h[2].target_pe == all_pes());
    BOOST_TEST(!h[2].target_start_ns.has_value());
    BOOST_TEST(config.kernels.at("small_gemm").commands.at(0).composite.m == 128u);
    BOOST_TEST((h[3].kind == HostRequestKind::memory_read));
    BOOST_TEST(h[3].pa == boundary);
    for (const HostRequest& r : h) BOOST_TEST(!r.explicit_after);
}

BOOST_AUTO_TEST_CASE(host_two_cubes_shipped) {
    const WorkloadConfig config = load_shipped_on("host_two_cubes.yaml", "two_sip.yaml");
    BOOST_REQUIRE(config.host.size() == 2u);
    const HostRequest& both = config.host[0];
    BOOST_REQUIRE(both.cubes.size() == 2u);
    BOOST_TEST(both.cubes[0].sip == 0);
    BOOST_TEST(both.cubes[0].cube == 0);
    BOOST_TEST(both.cubes[1].sip == 0);
    BOOST_TEST(both.cubes[1].cube == 1);
    BOOST_TEST(both.target_pe == (std::vector<int>{0, 3}));
    const HostRequest& later = config.host[1];
    BOOST_REQUIRE(later.cubes.size() == 1u);
    BOOST_TEST(later.cubes[0].sip == 1);
    BOOST_TEST(later.cubes[0].cube == 0);
    BOOST_TEST(later.target_pe == std::vector<int>{0});
    BOOST_TEST(later.explicit_after);
    BOOST_TEST(later.after == std::vector<std::uint32_t>{0});
    // default.yaml has one cube: sip0.cube1 is out of range there.
    BOOST_CHECK_THROW(load_shipped("host_two_cubes.yaml"), ConfigError);
}

BOOST_AUTO_TEST_CASE(host_watchdog_shipped) {
    const WorkloadConfig config = load_shipped("host_watchdog.yaml");
    BOOST_REQUIRE(config.host.size() == 2u);
    const HostRequest& hang = config.host[1];
    BOOST_TEST((hang.kind == HostRequestKind::kernel_launch));
    BOOST_TEST(hang.target_pe == std::vector<int>{2});
    const auto& commands = config.kernels.at(hang.kernel).commands;
    BOOST_TEST((commands.back().kind == CommandKind::ipcq_recv));
    // No PE of the kernel sends: nothing will ever arrive.
    for (const Command& c : commands) BOOST_TEST((c.kind != CommandKind::ipcq_send));
    // The recipe in its header comment works.
    const TopologyConfig watched =
        topology({npuvp::parse_override("cube.m_cpu.attrs.response_timeout_ns=100000")});
    BOOST_TEST(*watched.cube.m_cpu.response_timeout_ns == 100000.0);
    BOOST_CHECK_NO_THROW(npuvp::load_workload_file(
        source_path("configs/workloads/host_watchdog.yaml"), watched));
}

BOOST_AUTO_TEST_CASE(host_and_direct_launch_may_share_a_pe) {
    // kBase launches k on pe0 directly; the host launches it there again.
    const WorkloadConfig config =
        load(kBase + "host:\n  - kernel_launch: { kernel: k, target_pe: [0] }\n");
    BOOST_TEST(config.launches.size() == 1u);
    BOOST_REQUIRE(config.host.size() == 1u);
    BOOST_TEST(config.host[0].target_pe == config.launches[0].pes);
}

BOOST_AUTO_TEST_CASE(host_memory_window_follows_the_topology) {
    // default.yaml: 1 × 1 cube × 8 slices × 6 GiB = 48 GiB = 0xC00000000.
    BOOST_CHECK_NO_THROW(load(host_patched("pa: 0x0, bytes: 0x400000", "pa: 0xBFFC00000, bytes: 0x400000")));
    const ConfigError past = load_error(host_patched("pa: 0x0, bytes: 0x400000", "pa: 0xC00000000, bytes: 0x400000"));
    check_loc(past, 6, 33, "host[0].memory_write.pa");
    BOOST_TEST(contains(past.what(), "outside the HBM window [0, 51539607552)"));
    // two_sip.yaml: 2 × 2 cubes: 192 GiB.
    const TopologyConfig two = npuvp::load_topology_file(
        source_path("configs/topologies/two_sip.yaml"), {}, test_registry());
    BOOST_CHECK_NO_THROW(load(host_patched("pa: 0x0, bytes: 0x400000", "pa: 0xC00000000, bytes: 0x400000"), two));
}

BOOST_AUTO_TEST_CASE(error_host_shape) {
    // `host` not a list / empty: at its value (line 5, col 7).
    const ConfigError scalar = load_error(host_section("host: 5\n"));
    check_loc(scalar, 5, 7, "host");
    BOOST_TEST(contains(scalar.what(), "expected a list"));
    const ConfigError empty = load_error(host_section("host: []\n"));
    check_loc(empty, 5, 7, "host");
    BOOST_TEST(contains(empty.what(), "must not be empty"));
    // An entry that is not a one-key map: at the entry (col 5).
    expect_host_error("- memory_write: { id: w0, pa: 0x0, bytes: 0x400000 }", "- memory_write",
                      6, 5, "host[0]", "a host request is a map with one key, its kind");
    expect_host_error("- memory_write: { id: w0, pa: 0x0, bytes: 0x400000 }",
                      "- { memory_write: {}, memory_read: {} }", 6, 5, "host[0]", "with 2 keys");
    // Unknown kind: at the kind key.
    expect_host_error("memory_write:", "memory_writ: ", 6, 5, "host[0].memory_writ",
                      "unknown host request kind 'memory_writ' (known: memory_write, memory_read, "
                      "mmu_map, mmu_unmap, kernel_launch)");
    // Fields that are not a map, or left out.
    expect_host_error("{ id: w0, pa: 0x0, bytes: 0x400000 }", "[w0]", 6, 19,
                      "host[0].memory_write", "expected a map, got a list");
    // Unknown field: at the key, listing the kind's fields.
    expect_host_error("bytes: 0x400000", "bytez: 0x400000", 6, 38, "host[0].memory_write.bytez",
                      "unknown key 'bytez' (allowed: id, after, pa, bytes)");
    expect_host_error("va: 0x40000000, bytes: 0x200000 }", "pa: 0x40000000, bytes: 0x200000 }", 9,
                      58, "host[3].mmu_unmap.pa",
                      "unknown key 'pa' (allowed: id, after, cubes, target_pe, va, bytes)");
    expect_host_error("target_start_ns: 100.0", "start_ns: 100.0      ", 10, 81,
                      "host[4].kernel_launch.start_ns",
                      "allowed: id, after, kernel, cubes, target_pe, target_start_ns");
}

BOOST_AUTO_TEST_CASE(error_host_null_fields) {
    const ConfigError e = load_error(
        host_patched("- memory_write: { id: w0, pa: 0x0, bytes: 0x400000 }", "- memory_write:"));
    check_loc(e, 6, 5, "host[0].memory_write");  // at the kind key
    BOOST_TEST(contains(e.what(), "expected a map of the request's fields (id, after, pa, bytes)"));
}

BOOST_AUTO_TEST_CASE(error_host_ids_and_after) {
    expect_host_error("id: w0", "id: 0w", 6, 25, "host[0].memory_write.id",
                      "id '0w' must match [A-Za-z_][A-Za-z0-9_]*");
    // An explicit id that is another request's default id: at the later request.
    expect_host_error("id: go", "id: r1", 10, 5, "host[4].kernel_launch",
                      "duplicate host request id 'r1' (request 1 has it");
    expect_host_error("after: [w0]", "after: [wx]", 7, 50, "host[1].memory_read.after[0]",
                      "no host request 'wx'");
    expect_host_error("after: [w0]", "after: [go]", 7, 50, "host[1].memory_read.after[0]",
                      "host request 'go' (index 4) does not come before this one (index 1)");
    expect_host_error("after: [w0]", "after: [r1]", 7, 50, "host[1].memory_read.after[0]",
                      "does not come before");
    expect_host_error("after: [w0]", "after: w0  ", 7, 49, "host[1].memory_read.after",
                      "expected a list, got 'w0'");
}

BOOST_AUTO_TEST_CASE(error_host_memory) {
    // pa + bytes past the 48 GiB window: at bytes (col 45 + 8 longer pa).
    expect_host_error("pa: 0x0, bytes: 0x400000", "pa: 0xBFFFF0000, bytes: 0x400000", 6, 53,
                      "host[0].memory_write.bytes", "runs past the end of the HBM window");
    expect_host_error("bytes: 0x400000", "bytes: 0", 6, 45, "host[0].memory_write.bytes",
                      "must be > 0");
    expect_host_error("pa: 0x0, bytes: 0x400000", "pa: -1, bytes: 0x400000", 6, 33,
                      "host[0].memory_write.pa", "must be >= 0");
    // Missing: at the request's map.
    expect_host_error("id: w0, pa: 0x0, bytes", "id: w0, bytes", 6, 19, "host[0].memory_write.pa",
                      "missing required key 'pa'");
    expect_host_error("{ pa: 0x0, bytes: 4096, after", "{ pa: 0x0, after", 7, 18,
                      "host[1].memory_read.bytes", "missing required key 'bytes'");
}

BOOST_AUTO_TEST_CASE(error_host_mmu) {
    expect_host_error("va: 0x40000000, pa: 0x0", "va: 0x40001000, pa: 0x0", 8, 57,
                      "host[2].mmu_map.va", "must be a multiple of the PE_MMU page size 65536");
    expect_host_error("pa: 0x0, bytes: 0x200000", "pa: 0x100, bytes: 0x200000", 8, 73,
                      "host[2].mmu_map.pa", "page size 65536");
    expect_host_error("va: 0x40000000, bytes: 0x200000 }", "va: 0x40000000, bytes: 0x200100 }", 9,
                      81, "host[3].mmu_unmap.bytes", "page size 65536");
    expect_host_error("va: 0x40000000, bytes: 0x200000 }", "bytes: 0x200000 }", 9, 16,
                      "host[3].mmu_unmap.va", "missing required key 'va'");
    expect_host_error("target_pe: all, va: 0x40000000, pa: 0x0", "target_pe: all, va: 0x40000000",
                      8, 14, "host[2].mmu_map.pa", "missing required key 'pa'");
}

BOOST_AUTO_TEST_CASE(error_host_cubes) {
    expect_host_error("cubes: [sip0.cube0], target_pe: all", "cubes: sip0.cube0, target_pe: all", 8,
                      23, "host[2].mmu_map.cubes", "expected a list of cubes as sipS.cubeC");
    expect_host_error("cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns",
                      "cubes: [sip0.cubeX], target_pe: [0, 1], target_start_ns", 10, 49,
                      "host[4].kernel_launch.cubes[0]", "expected a cube as sipS.cubeC");
    expect_host_error("cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns",
                      "cubes: [sip1.cube0], target_pe: [0, 1], target_start_ns", 10, 49,
                      "host[4].kernel_launch.cubes[0]", "SIP 1 out of range: the topology has 1 SIPs");
    expect_host_error("cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns",
                      "cubes: [sip0.cube1], target_pe: [0, 1], target_start_ns", 10, 49,
                      "host[4].kernel_launch.cubes[0]", "cube 1 out of range");
    expect_host_error("cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns",
                      "cubes: [sip0.cube0, sip0.cube0], target_pe: [0, 1], target_start_ns", 10,
                      61, "host[4].kernel_launch.cubes[1]", "cube 'sip0.cube0' listed twice");
    expect_host_error("cubes: [sip0.cube0], target_pe: [0, 1], target_start_ns",
                      "cubes: [], target_pe: [0, 1], target_start_ns", 10, 48,
                      "host[4].kernel_launch.cubes", "must not be empty");
}

BOOST_AUTO_TEST_CASE(error_host_target_pe) {
    expect_host_error("target_pe: [0, 1], target_start_ns", "target_pe: [0, 8], target_start_ns",
                      10, 77, "host[4].kernel_launch.target_pe[1]",
                      "PE 8 out of range: the cube has 8 PEs, [0, 8)");
    expect_host_error("target_pe: [0, 1], target_start_ns", "target_pe: [0, 0], target_start_ns",
                      10, 77, "host[4].kernel_launch.target_pe[1]", "PE 0 listed twice");
    expect_host_error("target_pe: [0, 1], va", "target_pe: {a: 1}, va", 9, 50,
                      "host[3].mmu_unmap.target_pe", "expected a PE index, a list of them or 'all'");
    expect_host_error("target_pe: all,", "target_pe: al, ", 8, 48, "host[2].mmu_map.target_pe",
                      "expected an integer (got 'al')");
    expect_host_error("target_pe: [0, 1], target_start_ns", "target_pe: [], target_start_ns", 10,
                      73, "host[4].kernel_launch.target_pe", "must not be empty");
}

BOOST_AUTO_TEST_CASE(error_host_kernel_launch) {
    expect_host_error("kernel: k,", "kernel: q,", 10, 38, "host[4].kernel_launch.kernel",
                      "unknown kernel 'q' (kernels: k)");
    expect_host_error("kernel: k, ", "", 10, 20, "host[4].kernel_launch.kernel",
                      "missing required key 'kernel'");
    expect_host_error("target_start_ns: 100.0", "target_start_ns: -10.0", 10, 98,
                      "host[4].kernel_launch.target_start_ns", "must be >= 0 (got -10.0)");
    expect_host_error("target_start_ns: 100.0", "target_start_ns: \"100\"", 10, 98,
                      "host[4].kernel_launch.target_start_ns",
                      "expected a number, got the string '100'");
    expect_host_error("target_start_ns: 100.0", "target_start_ns: 1e999", 10, 98,
                      "host[4].kernel_launch.target_start_ns", "must be a finite number");
    expect_host_error("target_start_ns: 100.0", "target_start_ns: soon", 10, 98,
                      "host[4].kernel_launch.target_start_ns", "expected a number (got 'soon')");
    // k sends to pe7: launching it on pe7 (listed, or through `all`) is an
    // error at the peer (line 4, col 26) naming the host request.
    expect_host_error("target_pe: [0, 1], target_start_ns", "target_pe: [0, 7], target_start_ns",
                      4, 26, "kernels.k[1].ipcq_send.peer",
                      "is launched on pe7 by host[4].kernel_launch (wl.yaml:10:5)");
    expect_host_error("target_pe: [0, 1], target_start_ns", "target_pe: all, target_start_ns", 4,
                      26, "kernels.k[1].ipcq_send.peer", "is the sending PE itself");
}

// ---------------------------------------------------------------- schedule keys (SPEC §6)

namespace {

// A workload of one command on line 4; the command text starts at column 7.
//   1 name: s
//   2 kernels:
//   3   k:
//   4     - <command>
//   5 launch:
//   6   - { kernel: k, pes: [0] }
std::string one_command(const std::string& command) {
    return "name: s\nkernels:\n  k:\n    - " + command + "\nlaunch:\n  - { kernel: k, pes: [0] }\n";
}

// 1-based column on line 4 of one_command(command) where `token` starts.
int col4(const std::string& command, const std::string& token) {
    const auto at = command.find(token);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "token not found: " + token);
    BOOST_REQUIRE_MESSAGE(command.find(token, at + 1) == std::string::npos,
                          "token not unique: " + token);
    return 7 + static_cast<int>(at);
}

// Loads one_command(command), which must fail at `token` on line 4 with
// `key_path` and a message containing `message`.
void expect_error(const std::string& command, const std::string& token,
                  const std::string& key_path, const std::string& message) {
    BOOST_TEST_CONTEXT(command) {
        const ConfigError e = load_error(one_command(command));
        check_loc(e, 4, col4(command, token), key_path);
        BOOST_TEST(contains(e.what(), message), e.what());
    }
}

const std::uint64_t kTcmBytes = 32ull << 20;             // default.yaml pe_tcm size_mb 32
const std::uint64_t kTcmReserved = 8ull << 20;           // default.yaml pe_tcm reserved_mb 8
const std::uint64_t kHbmEnd = 8ull * (6ull << 30);       // 1 × 1 × 8 slices × 6 GiB
const std::uint64_t kSramBase = 0x1000000000000ull;      // default.yaml sram_base
const std::uint64_t kSramEnd = kSramBase + (64ull << 20);  // one cube × 64 MiB

}  // namespace

BOOST_AUTO_TEST_CASE(every_command_gets_its_context) {
    const WorkloadConfig w = load(R"(name: ctx
kernels:
  k:
    - dma_read: { bytes: 64 }
    - dma_write: { bytes: 64 }
    - gemm: { m: 8, k: 8, n: 8 }
    - math: { op: relu, elements: 64 }
    - fetch: { bytes: 64 }
    - store: { id: st, bytes: 128 }
    - ipcq_send: { peer: 1, bytes: 64 }
    - ipcq_recv: { bytes: 64 }
    - composite: { op: relu, bytes: 4096, tile_bytes: 1024 }
    - wait: all
    - gemm: { m: 8, k: 8, n: 8, context: sub }
    - fetch: { bytes: 64, context: main }
    - dma_read: { bytes: 64, context: dma }
launch:
  - { kernel: k, pes: [0] }
)");
    const std::vector<Command>& c = w.kernels.at("k").commands;
    BOOST_REQUIRE(c.size() == 13u);
    using npuvp::ExecContext;
    const std::vector<std::pair<ExecContext, bool>> expected = {
        {ExecContext::dma, false},  {ExecContext::dma, false},  {ExecContext::main, false},
        {ExecContext::main, false}, {ExecContext::sub, false},  {ExecContext::sub, false},
        {ExecContext::dma, false},  {ExecContext::none, false}, {ExecContext::none, false},
        {ExecContext::none, false}, {ExecContext::sub, true},   {ExecContext::main, true},
        {ExecContext::dma, true}};
    for (std::size_t i = 0; i < c.size(); ++i) {
        BOOST_TEST_CONTEXT("command " << i) {
            BOOST_TEST((c[i].context == expected[i].first));
            BOOST_TEST(c[i].context_given == expected[i].second);
            if (!c[i].context_given) BOOST_TEST((c[i].context == npuvp::default_context(c[i].kind)));
        }
    }
    BOOST_TEST((c[4].kind == CommandKind::fetch));
    BOOST_TEST(c[4].bytes == 64u);
    BOOST_TEST((c[5].kind == CommandKind::store));
    BOOST_TEST(c[5].id == "st");
    BOOST_TEST(c[5].bytes == 128u);
    // No schedule keys: nothing read, written, held or patterned.
    BOOST_TEST(c[0].reads.empty());
    BOOST_TEST(c[0].writes.empty());
    BOOST_TEST(c[0].resources.empty());
    BOOST_TEST(!c[0].access.given);
}

BOOST_AUTO_TEST_CASE(schedule_keys_are_read) {
    const WorkloadConfig w = load(R"(name: sched
kernels:
  k:
    - dma_read:
        bytes: 4096
        reads: [{ hbm: 0x1000, bytes: 4096 }]
        writes: [{ tcm: 0x800000, bytes: 4096 }]
    - fetch:
        id: f0
        bytes: 4096
        context: sub
        reads: [{ tcm: 0x800000, bytes: 2048 }, { tcm: 0x800800, bytes: 2048 }]
        resources: [vector_engine, trf0]
        access: { base: 0x800040, stride: 128, count: 32, elem_bytes: 8 }
    - math:
        op: relu
        elements: 1024
        access: { base: 0x800000, count: 16, elem_bytes: 32 }
        writes: []
        resources: []
    - dma_write:
        bytes: 64
        reads: [{ tcm: 33554368, bytes: 64 }]
        writes: [{ sram: 0x1000000000000, bytes: 64 }]
    - composite:
        op: relu
        bytes: 4096
        tile_bytes: 1024
        reads: [{ hbm: 0, bytes: 4096 }]
        writes: [{ sram: 0x1000003FFF000, bytes: 4096 }]
launch:
  - { kernel: k, pes: [0] }
)");
    using npuvp::MemSpace;
    const std::vector<Command>& c = w.kernels.at("k").commands;
    BOOST_REQUIRE(c.size() == 5u);
    BOOST_REQUIRE(c[0].reads.size() == 1u);
    BOOST_TEST((c[0].reads[0].space == MemSpace::hbm));
    BOOST_TEST(c[0].reads[0].base == 0x1000u);
    BOOST_TEST(c[0].reads[0].bytes == 4096u);
    BOOST_REQUIRE(c[0].writes.size() == 1u);
    BOOST_TEST((c[0].writes[0].space == MemSpace::tcm));
    BOOST_TEST(c[0].writes[0].base == kTcmReserved);  // the first byte of AllocatableTCM

    BOOST_TEST((c[1].context == npuvp::ExecContext::sub));
    BOOST_TEST(c[1].context_given);
    BOOST_REQUIRE(c[1].reads.size() == 2u);
    BOOST_TEST(c[1].reads[1].base == kTcmReserved + 2048);
    BOOST_TEST(c[1].reads[1].bytes == 2048u);
    BOOST_TEST(c[1].reads[0].overlaps(c[0].writes[0]));
    BOOST_TEST((c[1].resources == std::vector<std::string>{"vector_engine", "trf0"}));
    BOOST_TEST(c[1].access.given);
    BOOST_TEST(c[1].access.base == 0x800040u);
    BOOST_TEST(c[1].access.stride == 128u);
    BOOST_TEST(c[1].access.count == 32u);
    BOOST_TEST(c[1].access.elem_bytes == 8u);

    // stride defaults to elem_bytes (contiguous); empty lists are allowed.
    BOOST_TEST(c[2].access.given);
    BOOST_TEST(c[2].access.stride == 32u);
    BOOST_TEST(c[2].writes.empty());
    BOOST_TEST(c[2].resources.empty());

    // The last bytes of the TCM and the first of the SRAM window.
    BOOST_TEST(c[3].reads[0].base == kTcmBytes - 64);
    BOOST_TEST((c[3].writes[0].space == MemSpace::sram));
    BOOST_TEST(c[3].writes[0].base == kSramBase);

    // Composites keep their ranges (hazards apply to simple commands only, for now).
    BOOST_TEST((c[4].context == npuvp::ExecContext::none));
    BOOST_TEST(c[4].reads.size() == 1u);
    BOOST_TEST(c[4].writes[0].base + c[4].writes[0].bytes == kSramEnd);
}

BOOST_AUTO_TEST_CASE(error_fetch_store_fields) {
    expect_error("fetch: { id: f }", "{", "kernels.k[0].fetch.bytes", "missing required key 'bytes'");
    expect_error("store: { bytes: 0 }", "0", "kernels.k[0].store.bytes", "must be > 0");
    expect_error("fetch: { bytes: 64, op: relu }", "op", "kernels.k[0].fetch.op",
                 "unknown key 'op' (allowed: id, bytes, wait, reads, writes, context, resources, access)");
    const ConfigError e = load_error(one_command("fetch: 64"));
    check_loc(e, 4, 14, "kernels.k[0].fetch");
    BOOST_TEST(contains(e.what(), "expected a map"));
}

BOOST_AUTO_TEST_CASE(error_context) {
    expect_error("gemm: { m: 8, k: 8, n: 8, context: vector }", "vector",
                 "kernels.k[0].gemm.context", "unknown context 'vector' (known: main, sub, dma)");
    expect_error("gemm: { m: 8, k: 8, n: 8, context: [main] }", "[main]",
                 "kernels.k[0].gemm.context", "expected a string, got a list");
    expect_error("composite: { op: relu, bytes: 4096, tile_bytes: 1024, context: main }", "context",
                 "kernels.k[0].composite.context",
                 "'context' is not allowed on composite: it is not run in an execution context");
    expect_error("ipcq_recv: { bytes: 64, context: dma }", "context", "kernels.k[0].ipcq_recv.context",
                 "'context' is not allowed on ipcq_recv");
    // wait has no field map at all.
    expect_error("wait: { context: main }", "{", "kernels.k[0].wait",
                 "expected 'all' or a list of command ids");
}

BOOST_AUTO_TEST_CASE(error_resources_and_access_where_not_scheduled) {
    expect_error("composite: { op: relu, bytes: 4096, tile_bytes: 1024, resources: [x] }",
                 "resources", "kernels.k[0].composite.resources", "'resources' is not allowed on composite");
    expect_error("ipcq_recv: { bytes: 64, access: { base: 0x800000, count: 1, elem_bytes: 8 } }", "access",
                 "kernels.k[0].ipcq_recv.access", "'access' is not allowed on ipcq_recv");
    // reads / writes are fine on both.
    const WorkloadConfig w = load(one_command("ipcq_recv: { bytes: 64, writes: [{ tcm: 0x800000, bytes: 64 }] }"));
    BOOST_TEST(w.kernels.at("k").commands[0].writes.size() == 1u);
}

BOOST_AUTO_TEST_CASE(error_ranges) {
    const std::string k = "kernels.k[0].dma_read.";
    expect_error("dma_read: { bytes: 64, reads: { tcm: 0x800000, bytes: 64 } }", "{ tcm", k + "reads",
                 "expected a list, got a map");
    expect_error("dma_read: { bytes: 64, reads: [{ tcm: 0x800000, hbm: 0, bytes: 64 }] }", "{ tcm",
                 k + "reads[0]", "give exactly one of 'tcm', 'hbm' or 'sram' (got 2)");
    expect_error("dma_read: { bytes: 64, writes: [{ tcm: 0x800000, bytes: 64 }, { bytes: 64 }] }",
                 "{ bytes: 64 }", k + "writes[1]", "give exactly one of 'tcm', 'hbm' or 'sram' (got 0)");
    expect_error("dma_read: { bytes: 64, reads: [{ tcm: 0x800000 }] }", "{ tcm", k + "reads[0].bytes",
                 "missing required key 'bytes'");
    expect_error("dma_read: { bytes: 64, reads: [{ tcm: 0x800000, bytes: 0 }] }", "0 }", k + "reads[0].bytes",
                 "must be > 0");
    expect_error("dma_read: { bytes: 64, reads: [{ tcm: 0x800000, bytes: 8, size: 1 }] }", "size",
                 k + "reads[0].size", "unknown key 'size' (allowed: tcm, hbm, sram, bytes)");
    expect_error("dma_read: { bytes: 64, reads: [{ tcm: -8, bytes: 8 }] }", "-8", k + "reads[0].tcm",
                 "must be >= 0");
    expect_error("dma_read: { bytes: 64, writes: [{ tcm: 33554432, bytes: 8 }] }", "33554432",
                 k + "writes[0].tcm", "tcm 33554432 is outside the PE's allocatable TCM [8388608, 33554432)");
    expect_error("dma_read: { bytes: 64, writes: [{ tcm: 33554430, bytes: 8 }] }", "8 }",
                 k + "writes[0].bytes",
                 "tcm + bytes runs past the end of the PE's allocatable TCM [8388608, 33554432) "
                 "(tcm 33554430, bytes 8)");
    expect_error("dma_read: { bytes: 64, reads: [{ hbm: 51539607552, bytes: 8 }] }", "51539607552",
                 k + "reads[0].hbm", "is outside the HBM window [0, 51539607552)");
    expect_error("dma_read: { bytes: 64, reads: [{ hbm: 51539607544, bytes: 9 }] }", "9 }",
                 k + "reads[0].bytes", "hbm + bytes runs past the end of the HBM window");
    expect_error("dma_read: { bytes: 64, reads: [{ sram: 0, bytes: 8 }] }", "0,", k + "reads[0].sram",
                 "sram 0 is outside the shared SRAM window [281474976710656, 281475043819520)");
}

// Issue 15 B (seed 000 D5.1): [0, reserved_mb) of the TCM holds PE_SCHEDULER's
// tile buffers; data placed by DMA and the host lives in AllocatableTCM,
// [reserved_mb, size_mb). The issue's reproducer: a GEMM composite whose tiles
// the scheduler places in the reserved region, then a DMA writing to tcm 0.
// Line 5 is the dma_read; its tcm value `0` is at column 49.
BOOST_AUTO_TEST_CASE(error_tcm_range_in_scheduler_reserved_region) {
    const ConfigError e = load_error(R"(name: r
kernels:
  k:
    - composite: { gemm: { m: 512, k: 128, n: 512 }, tile: { m: 128, k: 128, n: 128 } }
    - dma_read: { bytes: 65536, writes: [{ tcm: 0, bytes: 65536 }] }
launch:
  - { kernel: k, pes: [0] }
)");
    check_loc(e, 5, 49, "kernels.k[1].dma_read.writes[0].tcm");
    BOOST_TEST(contains(e.what(),
                        "tcm 0 lies in the scheduler's reserved tile buffers [0, 8388608) (seed 000 D5.1); "
                        "workload data goes in the allocatable TCM [8388608, 33554432)"),
               e.what());
}

BOOST_AUTO_TEST_CASE(error_tcm_range_at_the_reserved_boundary) {
    const std::string k = "kernels.k[0].";
    const std::string in_reserved = "lies in the scheduler's reserved tile buffers [0, 8388608)";
    // The last 64 bytes of the reserved region: [8388544, 8388608) ends exactly
    // at reserved_bytes. An error at its tcm key, in reads as in writes.
    expect_error("dma_write: { bytes: 64, reads: [{ tcm: 8388544, bytes: 64 }] }", "8388544",
                 k + "dma_write.reads[0].tcm", "tcm 8388544 " + in_reserved);
    expect_error("fetch: { bytes: 64, writes: [{ tcm: 0x7fffff, bytes: 1 }] }", "0x7fffff",
                 k + "fetch.writes[0].tcm", "tcm 0x7fffff " + in_reserved);
    // Starting in the reserved region and crossing into AllocatableTCM: the
    // start is the fault, so the error is at tcm, not at bytes. The second
    // range is the bad one here: the error names its index.
    expect_error("gemm: { m: 8, k: 8, n: 8, reads: [{ tcm: 0x800000, bytes: 64 }, "
                 "{ tcm: 0x7fffc0, bytes: 128 }] }",
                 "0x7fffc0", k + "gemm.reads[1].tcm", "tcm 0x7fffc0 " + in_reserved);
    // The first byte of AllocatableTCM is fine, and so is its last.
    const WorkloadConfig w = load(one_command(
        "dma_read: { bytes: 64, writes: [{ tcm: 8388608, bytes: 64 }, { tcm: 33554431, bytes: 1 }] }"));
    BOOST_TEST(w.kernels.at("k").commands[0].writes[0].base == kTcmReserved);
}

// The window follows the topology: with reserved_mb=1 AllocatableTCM starts at
// 1 MiB, the bound PeMemAllocator gets from the same config.
BOOST_AUTO_TEST_CASE(tcm_range_window_follows_reserved_mb) {
    const TopologyConfig small =
        topology({Override{"cube.pe_template.components.pe_tcm.attrs.reserved_mb", "1"}});
    BOOST_TEST(npuvp::allocatable_region(small.cube.pe_template.tcm).base == 1048576u);
    const WorkloadConfig w =
        load(one_command("dma_read: { bytes: 64, writes: [{ tcm: 0x100000, bytes: 64 }] }"), small);
    BOOST_TEST(w.kernels.at("k").commands[0].writes[0].base == 0x100000u);
    const std::string command = "dma_read: { bytes: 64, writes: [{ tcm: 0xfffc0, bytes: 64 }] }";
    const ConfigError e = load_error(one_command(command), small);
    check_loc(e, 4, col4(command, "0xfffc0"), "kernels.k[0].dma_read.writes[0].tcm");
    BOOST_TEST(contains(e.what(), "tcm 0xfffc0 lies in the scheduler's reserved tile buffers [0, 1048576) "
                                  "(seed 000 D5.1); workload data goes in the allocatable TCM "
                                  "[1048576, 33554432)"),
               e.what());
}

// seed 002 (issue 15 G): tensor-unit operations read and write on-chip
// memory only, so an HBM or SRAM range on gemm, math, fetch or store is an
// error at its space key; DMA commands may name them.
BOOST_AUTO_TEST_CASE(error_tensor_unit_ranges_off_chip) {
    expect_error("gemm: { m: 128, k: 128, n: 128, reads: [{ hbm: 0x10000, bytes: 16 }] }", "0x10000",
                 "kernels.k[0].gemm.reads[0].hbm",
                 "'hbm' is not allowed in a gemm's reads: tensor-unit operations");
    expect_error("math: { op: relu, elements: 64, writes: [{ tcm: 0x800000, bytes: 8 }, { sram: 281474976710656, bytes: 8 }] }",
                 "281474976710656", "kernels.k[0].math.writes[1].sram", "'sram' is not allowed in a math's writes");
    expect_error("fetch: { bytes: 64, reads: [{ hbm: 0, bytes: 64 }] }", "0, bytes",
                 "kernels.k[0].fetch.reads[0].hbm", "'hbm' is not allowed in a fetch's reads");
    expect_error("store: { bytes: 64, writes: [{ hbm: 0, bytes: 64 }] }", "0, bytes",
                 "kernels.k[0].store.writes[0].hbm", "'hbm' is not allowed in a store's writes");
    // A DMA moves data between HBM and TCM: both are fine there.
    const WorkloadConfig w = load(one_command(
        "dma_read: { bytes: 64, reads: [{ hbm: 0, bytes: 64 }], writes: [{ tcm: 0x800000, bytes: 64 }] }"));
    BOOST_TEST(w.kernels.at("k").commands[0].reads.size() == 1u);
}

BOOST_AUTO_TEST_CASE(error_resources) {
    const std::string k = "kernels.k[0].math.";
    expect_error("math: { op: relu, elements: 8, resources: vector_engine }", "vector_engine",
                 k + "resources", "expected a list");
    expect_error("math: { op: relu, elements: 8, resources: [Vector] }", "Vector", k + "resources[0]",
                 "resource 'Vector' must match [a-z][a-z0-9_]*");
    expect_error("math: { op: relu, elements: 8, resources: [ve, 1x] }", "1x", k + "resources[1]",
                 "must match");
    expect_error("math: { op: relu, elements: 8, resources: [ve, trf, ve ] }", "ve ]",
                 k + "resources[2]", "resource 've' listed twice");
}

BOOST_AUTO_TEST_CASE(error_access) {
    const std::string k = "kernels.k[0].gemm.access";
    const std::string g = "gemm: { m: 8, k: 8, n: 8, access: ";
    expect_error(g + "[0] }", "[0]", k, "expected a map, got a list");
    expect_error(g + "{ count: 4, elem_bytes: 8 } }", "{ count", k + ".base", "missing required key 'base'");
    expect_error(g + "{ base: 0x800000, elem_bytes: 8 } }", "{ base", k + ".count", "missing required key 'count'");
    expect_error(g + "{ base: 0x800000, count: 4 } }", "{ base", k + ".elem_bytes",
                 "missing required key 'elem_bytes'");
    expect_error(g + "{ base: 33554432, count: 4, elem_bytes: 8 } }", "33554432", k + ".base",
                 "base 33554432 is outside the PE's TCM [0, 33554432)");
    // Issue 39 point 2 (seed 000 D5.1): SchedulerReservedTCM, [0, 8 MiB) on
    // default.yaml, holds the tile buffers; an access pattern may not point
    // there (its ranges may not either).
    expect_error(g + "{ base: 0x7ffff8, count: 1, elem_bytes: 8 } }", "0x7ffff8", k + ".base",
                 "base 0x7ffff8 lies in the scheduler's reserved tile buffers [0, 8388608) (seed 000 D5.1); an "
                 "access pattern addresses the allocatable TCM [8388608, 33554432)");
    expect_error(g + "{ base: 0, count: 4, elem_bytes: 8 } }", "0, c", k + ".base",
                 "lies in the scheduler's reserved tile buffers");
    expect_error(g + "{ base: 0x800000, count: 0, elem_bytes: 8 } }", "0, e", k + ".count", "must be > 0");
    expect_error(g + "{ base: 0x800000, count: 4, elem_bytes: 3 } }", "3 }", k + ".elem_bytes",
                 "must be one of 1, 2, 4, 8, 16, 32, 64 (got 3)");
    expect_error(g + "{ base: 0x800000, count: 4, elem_bytes: 128 } }", "128", k + ".elem_bytes",
                 "must be one of");
    expect_error(g + "{ base: 0x800000, stride: -8, count: 4, elem_bytes: 8 } }", "-8", k + ".stride",
                 "must be >= 0");
    expect_error(g + "{ base: 0x800000, stride: 8, count: 4, elem_bytes: 8, step: 1 } }", "step",
                 k + ".step", "unknown key 'step' (allowed: base, stride, count, elem_bytes)");
    // The last access, at 33554400 + 8 · 3 = 33554424, ends at 33554432: fits.
    const WorkloadConfig ok =
        load(one_command(g + "{ base: 33554400, stride: 8, count: 4, elem_bytes: 8 } }"));
    BOOST_TEST(ok.kernels.at("k").commands[0].access.count == 4u);
    // One more and it runs past the end.
    expect_error(g + "{ base: 33554400, stride: 8, count: 5, elem_bytes: 8 } }", "{ base", k,
                 "the accesses run past the end of the PE's TCM");
    // stride 0: every access at base (one bank, the longest run).
    const WorkloadConfig same =
        load(one_command(g + "{ base: 0x800000, stride: 0, count: 63, elem_bytes: 8 } }"));
    BOOST_TEST(same.kernels.at("k").commands[0].access.stride == 0u);
}

// `{ own: int }`: an offset into the running PE's own HBM slice (6 GiB on
// default.yaml); one of pa / own / va, exactly; an offset past the slice is
// an error at the key.
BOOST_AUTO_TEST_CASE(own_slice_addresses) {
    const std::string base = R"(name: own
kernels:
  k:
    - dma_read: { id: ld, bytes: 4096, addr: ADDR }
launch:
  - { kernel: k, cube: sip0.cube0, pes: all }
)";
    const auto with = [&](const std::string& addr) {
        std::string t = base;
        return t.replace(t.find("ADDR"), 4, addr);
    };
    const WorkloadConfig w = load(with("{ own: 4096 }"));
    const Command& ld = w.kernels.at("k").commands.at(0);
    BOOST_TEST(ld.addr.given);
    BOOST_TEST(ld.addr.is_own);
    BOOST_TEST(!ld.addr.is_va);
    BOOST_TEST(ld.addr.value == 4096u);
    BOOST_TEST(ld.addr.resolve(3 * 6442450944ull) == 3 * 6442450944ull + 4096u);  // pe3's slice
    const ConfigError past = load_error(with("{ own: 6442450944 }"));
    BOOST_TEST(contains(past.what(), "below its 6442450944 bytes (got 6442450944)"));
    BOOST_TEST(past.loc().line == 4);
    const ConfigError two = load_error(with("{ own: 0, pa: 0 }"));
    BOOST_TEST(contains(two.what(), "give exactly one of 'pa', 'own' or 'va'"));
}

BOOST_AUTO_TEST_CASE(resolve_after_device_waits_only_for_kernel_launches) {
    // Launches resolved on the device: the flag and its place.
    const WorkloadConfig config = load(host_section(R"(host:
  - kernel_launch: { id: a, kernel: k, target_pe: [0] }
  - kernel_launch: { id: b, kernel: k, target_pe: [1], resolve_after: device }
  - kernel_launch: { id: c, kernel: k, target_pe: [2], after: [a, b], resolve_after: host }
)"));
    BOOST_REQUIRE(config.host.size() == 3u);
    BOOST_TEST(!config.host[0].device_after);
    BOOST_TEST(config.host[1].device_after);
    BOOST_TEST(config.host[1].device_after_loc.line == 7);
    BOOST_TEST(!config.host[2].device_after);
    // A value other than host or device, at the value.
    expect_host_error("target_start_ns: 100.0 }", "target_start_ns: 100.0, resolve_after: sideways }", 10, 120,
                      "host[4].kernel_launch.resolve_after", "expected host or device, got 'sideways'");
    // The launch waits (by default) for the mmu_unmap before it, which no
    // M_CPU sees complete as a fan-out: an error at the key.
    expect_host_error("target_start_ns: 100.0 }", "target_start_ns: 100.0, resolve_after: device }", 10, 120,
                      "host[4].kernel_launch.resolve_after",
                      "resolve_after: device, but it waits for host request 'r3' (mmu_unmap): the device resolves "
                      "only kernel launches");
}

BOOST_AUTO_TEST_CASE(nested_lists_of_commands_are_taken_in_place) {
    // A body written once with an anchor and named again with an alias
    // (docs/workload.md "Nested lists"): k1 is [a, b, c], k2 [a, b, d].
    const WorkloadConfig w = load(R"(name: nested
kernels:
  k1:
    - &body
      - dma_read: { id: a, bytes: 64 }
      - [ { wait: all } ]
    - dma_write: { id: c, bytes: 64 }
  k2:
    - *body
    - dma_write: { id: d, bytes: 64 }
launch:
  - { kernel: k1, cube: sip0.cube0, pes: [0] }
  - { kernel: k2, cube: sip0.cube0, pes: [1] }
)");
    const npuvp::Kernel& k1 = w.kernels.at("k1");
    const npuvp::Kernel& k2 = w.kernels.at("k2");
    BOOST_REQUIRE_EQUAL(k1.commands.size(), 3u);
    BOOST_REQUIRE_EQUAL(k2.commands.size(), 3u);
    BOOST_CHECK_EQUAL(k1.commands[0].id, "a");
    BOOST_CHECK(k1.commands[1].kind == npuvp::CommandKind::wait);
    BOOST_CHECK_EQUAL(k1.commands[2].id, "c");
    BOOST_CHECK_EQUAL(k1.commands[2].index, 2u);
    BOOST_CHECK_EQUAL(k2.commands[2].id, "d");
    // Key paths follow the nesting; an aliased command's line is the anchor's.
    BOOST_CHECK_EQUAL(k1.commands[0].loc.key_path, "kernels.k1[0][0].dma_read");
    BOOST_CHECK_EQUAL(k2.commands[0].loc.key_path, "kernels.k2[0][0].dma_read");
    BOOST_CHECK_EQUAL(k2.commands[0].loc.line, 5);
}

BOOST_AUTO_TEST_CASE(nested_lists_are_bounded) {
    // Eight levels: the kernel's list and seven nested lists are allowed;
    // the eighth nested one is refused at its entry.
    std::string deep = "[ { wait: all } ]";
    for (int i = 0; i < 6; ++i) deep = "[ " + deep + " ]";
    const std::string run = "\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n";
    BOOST_CHECK_EQUAL(load("kernels:\n  k:\n    - " + deep + run).kernels.at("k").commands.size(), 1u);
    const ConfigError too_deep = load_error("kernels:\n  k:\n    - [ " + deep + " ]" + run);
    BOOST_TEST(contains(too_deep.what(), "lists of commands nest at most 8 deep"), too_deep.what());
    // Aliases of aliases: 2 · 20^5 = 6,400,000 commands in the last of six
    // lines (each names the one before twenty times; six levels nest within
    // the limit), past the 2^20 a kernel may hold: refused when the count
    // passes it, before any command is read.
    std::string bomb = "kernels:\n  k:\n    - &l0 [ { wait: all }, { wait: all } ]\n";
    for (int i = 1; i < 6; ++i) {
        bomb += "    - &l" + std::to_string(i) + " [ ";
        for (int j = 0; j < 20; ++j) bomb += (j ? ", *l" : "*l") + std::to_string(i - 1);
        bomb += " ]\n";
    }
    const ConfigError too_many = load_error(bomb + run);
    BOOST_TEST(contains(too_many.what(), "a kernel holds at most 1048576 commands"), too_many.what());
}
