// The recipes of docs/architecture.md, followed as written: "How to add a
// parameter" (one line in a field table; for a workload key, one row in a
// key table) and "How to add an impl" (a factory plus, when the impl has
// parameters of its own, its attrs table in the registry). Each must load,
// reject unknown keys with file:line:column: key, dump (the topology) and
// document what it adds, without touching the loader.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include <systemc>

#include "config/key_table.h"
#include "config/schema.h"
#include "config/topology_loader.h"
#include "config/yaml_reader.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "platform/impl_registry.h"

using namespace npuvp;

namespace {

// ---------------------------------------------------------------- a parameter

// A toy config section as a block would have it; `burst_bytes` is the
// parameter the recipe adds: the member below and one line in the table.
struct ToyConfig {
    double setup_ns = 0.0;
    int engines = 0;
    std::uint64_t burst_bytes = 0;  // added by the recipe
};

constexpr double kToySetupNs = 500.0;        // assumed, for the test
constexpr int kToyEngines = 1;               // assumed, for the test
constexpr long long kToyBurstKb = 4;         // assumed, for the test

schema::Table<ToyConfig> toy_table() {
    using F = schema::Fields<ToyConfig>;
    return {{
        F::number("setup_ns", &ToyConfig::setup_ns, kToySetupNs, Bound::non_negative, "ns", "per transfer"),
        F::integer("engines", &ToyConfig::engines, kToyEngines, 1, "", "channels"),
        F::size("burst_kb", &ToyConfig::burst_bytes, kToyBurstKb, 10, "KiB", "largest burst"),  // the new line
    }};
}

ToyConfig load_toy(const std::string& text) {
    YamlReader yaml("toy.yaml");
    ToyConfig toy;
    schema::read_map(yaml, yaml.root(parse_map_document(text, "toy.yaml", "toy keys")), toy_table(), toy);
    return toy;
}

std::string toy_error(const std::string& text) {
    try {
        load_toy(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

// ---------------------------------------------------------------- a workload key

// A toy command kind as the workload loader reads one, with the scope its
// keys read with (the loader's carries the topology); `burst` is the key the
// recipe adds: the member below and one row in the key table.
struct ToyCommand {
    std::uint64_t bytes = 0;
    bool wait = false;
    std::uint64_t burst = 0;  // added by the recipe
};
struct ToyScope {};

schema::KeyTable<ToyCommand, ToyScope> toy_command_keys() {
    using K = schema::Keys<ToyCommand, ToyScope>;
    return {"ToyCommand",
            {
                K::size("bytes", &ToyCommand::bytes, "bytes", "bytes", "how many bytes it moves"),
                K::flag("wait", &ToyCommand::wait, "wait", "PE_CPU waits for it"),
                K::size("burst", &ToyCommand::burst, "burst", "bytes", "largest burst"),  // the new row
            }};
}

ToyCommand load_toy_command(const std::string& text) {
    YamlReader yaml("cmd.yaml");
    ToyCommand cmd;
    schema::read_key_map(yaml, yaml.root(parse_map_document(text, "cmd.yaml", "command keys")), toy_command_keys(),
                         cmd, ToyScope{});
    return cmd;
}

std::string toy_command_error(const std::string& text) {
    try {
        load_toy_command(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

// ---------------------------------------------------------------- an impl

// The parameters a toy DMA variant brings beyond pe_dma's own.
struct ToyDmaAttrs {
    int queue_depth = 0;
    double burst_ns = 0.0;
};

// The toy variant: a module that keeps the queue depth its factory gave it.
struct ToyDma : sc_core::sc_module {
    ToyDma(const sc_core::sc_module_name& name, int queue_depth)
        : sc_core::sc_module(name), queue_depth(queue_depth) {}
    const int queue_depth;
};

// What the toy factory saw, recorded for the assertions (the factory runs at
// elaboration, outside any SC_THREAD).
int g_factory_queue_depth = -1;

ImplRegistry registry_with_toy_impl() {
    ImplRegistry reg;
    for (const char* kind : {"io_cpu", "m_cpu", "noc", "hbm_ctrl", "shared_sram", "pe_cpu",
                             "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm", "pe_math",
                             "pe_tcm", "pe_mmu", "pe_ipcq"}) {
        const std::string impl =
            std::string("builtin.") + (std::string(kind) == "noc" ? "mesh_noc" : kind);
        reg.add<sc_core::sc_module>(kind, impl, [](const sc_core::sc_module_name&, const NodeEnv&) {
            return std::unique_ptr<sc_core::sc_module>();
        });
    }
    // The recipe: a factory under a new impl name of an existing kind ...
    reg.add<sc_core::sc_module>("pe_dma", "toy.pe_dma",
                                [](const sc_core::sc_module_name& name,
                                   const NodeEnv& ctx) -> std::unique_ptr<sc_core::sc_module> {
                                    g_factory_queue_depth =
                                        ImplRegistry::attrs<ToyDmaAttrs>(ctx.topo, "pe_dma").queue_depth;
                                    return std::make_unique<ToyDma>(name, g_factory_queue_depth);
                                });
    // ... and the table of its own attrs.
    using F = schema::Fields<ToyDmaAttrs>;
    reg.add_attrs<ToyDmaAttrs>("pe_dma", "toy.pe_dma",
                               {{F::integer("queue_depth", &ToyDmaAttrs::queue_depth, 2, 1, "", "descriptors"),
                                 F::number("burst_ns", &ToyDmaAttrs::burst_ns, 8.0, Bound::non_negative, "ns", "")}});
    return reg;
}

// Line 12 is the toy DMA's attrs: `{` at column 16, its first key at 18.
std::string topology(const std::string& dma_impl, const std::string& dma_attrs) {
    return R"(system:
  sips: 1
  cubes_per_sip: 1
cube:
  pe_layout: { rows: 1, cols: 1 }
  memory_map: { hbm_slices_per_cube: 1 }
  pe_template:
    components:
      pe_dma:
        kind: pe_dma
        impl: )" + dma_impl + R"(
        attrs: )" + dma_attrs + R"(
      pe_cpu:         { kind: pe_cpu,         impl: builtin.pe_cpu }
      pe_scheduler:   { kind: pe_scheduler,   impl: builtin.pe_scheduler }
      pe_fetch_store: { kind: pe_fetch_store, impl: builtin.pe_fetch_store }
      pe_gemm:        { kind: pe_gemm,        impl: builtin.pe_gemm }
      pe_math:        { kind: pe_math,        impl: builtin.pe_math }
      pe_tcm:         { kind: pe_tcm,         impl: builtin.pe_tcm }
      pe_mmu:         { kind: pe_mmu,         impl: builtin.pe_mmu }
      pe_ipcq:        { kind: pe_ipcq,        impl: builtin.pe_ipcq }
)";
}

std::string topology_error(const std::string& text, const ImplRegistry& reg) {
    try {
        load_topology_text(text, "t.yaml", {}, reg);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(add_a_parameter_recipe) {
    // Loads, with its default when left out and its unit applied when given.
    BOOST_TEST(load_toy("setup_ns: 1.0\n").burst_bytes == 4u * 1024u);
    BOOST_TEST(load_toy("burst_kb: 16\n").burst_bytes == 16u * 1024u);
    // Checked by its bound, at file:line:column: key.
    BOOST_TEST(toy_error("engines: 2\nburst_kb: 0\n") == "toy.yaml:2:11: burst_kb: must be > 0 (got 0)");
    // A misspelling is an unknown key that lists the new one.
    BOOST_TEST(toy_error("burst_kB: 16\n") ==
               "toy.yaml:1:1: burst_kB: unknown key 'burst_kB' (allowed: setup_ns, engines, burst_kb)");
    // Dumped in its unit.
    YAML::Emitter out;
    out << YAML::BeginMap;
    schema::dump_fields(out, toy_table(), load_toy("burst_kb: 16\n"));
    out << YAML::EndMap;
    BOOST_TEST(std::string(out.c_str()) == "setup_ns: 500.0\nengines: 1\nburst_kb: 16");
    // Documented: the table's row is in the generated reference.
    schema::Docs docs{{"toy", {}}};
    schema::document(toy_table(), "", docs, 0);
    BOOST_TEST(schema::markdown(docs).find("| `burst_kb` | int | KiB | 4 | > 0, <= 1048576 | largest burst |") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(add_a_workload_key_recipe) {
    // Loads into its member.
    BOOST_TEST(load_toy_command("bytes: 64\nburst: 16\n").burst == 16u);
    // Required, and checked by its bound, at file:line:column: key.
    BOOST_TEST(toy_command_error("bytes: 64\n") == "cmd.yaml:1:1: burst: missing required key 'burst'");
    BOOST_TEST(toy_command_error("bytes: 64\nburst: 0\n") == "cmd.yaml:2:8: burst: must be > 0 (got 0)");
    // A misspelling is an unknown key that lists the new one.
    BOOST_TEST(toy_command_error("bytes: 64\nbrust: 16\n") ==
               "cmd.yaml:2:1: brust: unknown key 'brust' (allowed: bytes, wait, burst)");
    // Documented: the table's row, with the member it fills, is in the
    // generated reference.
    schema::KeyDocs docs{{"`toy`", "", {}}};
    schema::document_keys(toy_command_keys(), "", docs, 0);
    BOOST_TEST(schema::key_markdown(docs).find(
                   "| `burst` | size | bytes | **required** | > 0, <= 2^40 | `ToyCommand::burst` | largest burst |") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(add_an_impl_recipe) {
    const ImplRegistry reg = registry_with_toy_impl();

    // Its attrs load beside the kind's, with their defaults.
    const TopologyConfig topo =
        load_topology_text(topology("toy.pe_dma", "{ rd_engines: 2, queue_depth: 4 }"), "t.yaml", {}, reg);
    BOOST_TEST(topo.cube.pe_template.dma.rd_engines == 2);
    BOOST_TEST(ImplRegistry::attrs<ToyDmaAttrs>(topo, "pe_dma").queue_depth == 4);
    BOOST_TEST(ImplRegistry::attrs<ToyDmaAttrs>(topo, "pe_dma").burst_ns == 8.0);

    // An unknown key is still an error at file:line:column: key, listing
    // the kind's attrs and then the impl's.
    BOOST_TEST(topology_error(topology("toy.pe_dma", "{ queue_dept: 4 }"), reg) ==
               "t.yaml:12:18: cube.pe_template.components.pe_dma.attrs.queue_dept: unknown key "
               "'queue_dept' (allowed: rd_engines, wr_engines, setup_ns, bw_gbs, "
               "banks_per_transfer, chunk_ns, copy_ns, piece_ns, queue_depth, burst_ns)");
    // Checked by the impl's bound.
    BOOST_TEST(topology_error(topology("toy.pe_dma", "{ queue_depth: 0 }"), reg) ==
               "t.yaml:12:31: cube.pe_template.components.pe_dma.attrs.queue_depth: must be >= 1 (got 0)");
    // Another impl of the kind does not take them.
    BOOST_TEST(topology_error(topology("builtin.pe_dma", "{ queue_depth: 4 }"), reg).find(
                   "t.yaml:12:18: cube.pe_template.components.pe_dma.attrs.queue_depth: unknown key") == 0u);

    // The dump writes them, and loads back equal.
    const std::string dumped = dump_topology_yaml(topo);
    BOOST_TEST(dumped.find("queue_depth: 4, burst_ns: 8.0") != std::string::npos);
    const TopologyConfig back = load_topology_text(dumped, "dump", {}, reg);
    BOOST_TEST(ImplRegistry::attrs<ToyDmaAttrs>(back, "pe_dma").queue_depth == 4);
    BOOST_TEST(dump_topology_yaml(back) == dumped);

    // The factory receives them.
    TraceSink trace;
    RunStatus status;
    const auto module = reg.create<sc_core::sc_module>("pe_dma", "toy.pe_dma", "toy_dma",
                                                       NodeEnv{topo, {}, trace, status});
    BOOST_TEST(g_factory_queue_depth == 4);
    const auto* toy = dynamic_cast<const ToyDma*>(module.get());  // test only: which factory ran
    BOOST_TEST((toy != nullptr && toy->queue_depth == 4));
}
