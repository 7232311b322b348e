// What an impl adds to load-time validation (platform/impl_registry.h): a
// check on the validated topology whose error points at the offending key's
// file line, and an impl this build leaves out, named with the reason. Built
// with or without the RTL co-simulation (NPUVP_RTL).
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.h"
#include "platform/impl_registry.h"
#include "platform/rtl_support.h"
#include "config/topology_loader.h"

using namespace npuvp;

namespace {

// Every kind with one builtin.* impl, plus a "test.pe_gemm" that checks the
// topology as rtl.pe_gemm does; no factory is ever called.
ImplRegistry registry_with_check() {
    ImplRegistry reg;
    for (const char* kind : {"io_cpu", "m_cpu", "noc", "hbm_ctrl", "shared_sram", "pe_cpu",
                             "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm", "pe_math",
                             "pe_tcm", "pe_mmu", "pe_ipcq"}) {
        const std::string impl = std::string("builtin.") + (std::string(kind) == "noc"
                                                                ? "mesh_noc"
                                                                : kind);
        reg.add<sc_core::sc_module>(kind, impl, [](const sc_core::sc_module_name&,
                                                   const NodeEnv&) {
            return std::unique_ptr<sc_core::sc_module>();
        });
    }
    reg.add<sc_core::sc_module>("pe_gemm", "test.pe_gemm",
                                [](const sc_core::sc_module_name&, const NodeEnv&) {
                                    return std::unique_ptr<sc_core::sc_module>();
                                });
    reg.add_check("pe_gemm", "test.pe_gemm",
                  [](const TopologyConfig& topo, const ImplRegistry::Where& where) {
                      if (topo.cube.pe_template.gemm.rows != 4)
                          throw ConfigError(
                              where("cube.pe_template.components.mm.attrs.rows"),
                              "test.pe_gemm has 4 rows");
                  });
    reg.add_unavailable("pe_math", "test.pe_math", "it was left out of this build");
    return reg;
}

// Line 9: "mm:" (the pe_gemm component, named mm); line 12: its rows; line 17: pe_math.
const std::string kTopology = R"(system:
  sips: 1
  cubes_per_sip: 1
cube:
  pe_layout: { rows: 1, cols: 1 }
  memory_map: { hbm_slices_per_cube: 1 }
  pe_template:
    components:
      mm:
        kind: pe_gemm
        impl: test.pe_gemm
        attrs: { rows: 8 }
      pe_cpu:         { kind: pe_cpu,         impl: builtin.pe_cpu }
      pe_scheduler:   { kind: pe_scheduler,   impl: builtin.pe_scheduler }
      pe_dma:         { kind: pe_dma,         impl: builtin.pe_dma }
      pe_fetch_store: { kind: pe_fetch_store, impl: builtin.pe_fetch_store }
      pe_math:        { kind: pe_math,        impl: builtin.pe_math }
      pe_tcm:         { kind: pe_tcm,         impl: builtin.pe_tcm }
      pe_mmu:         { kind: pe_mmu,         impl: builtin.pe_mmu }
      pe_ipcq:        { kind: pe_ipcq,        impl: builtin.pe_ipcq }
)";

std::string load_error(const std::string& text, const std::vector<Override>& overrides = {}) {
    try {
        load_topology_text(text, "t.yaml", overrides, registry_with_check());
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(impl_check_errors_point_at_the_key) {
    // rows: 8 is on line 12, its value 8 at column 24.
    BOOST_CHECK_EQUAL(load_error(kTopology),
                      "t.yaml:12:24: cube.pe_template.components.mm.attrs.rows: test.pe_gemm has 4 rows");
    // The same value from --set names --set.
    BOOST_CHECK_EQUAL(
        load_error(kTopology, {parse_override("cube.pe_template.components.mm.attrs.rows=5")}),
        "--set: cube.pe_template.components.mm.attrs.rows: test.pe_gemm has 4 rows");
    // What the check wants loads; another impl of the kind is not checked.
    BOOST_CHECK_EQUAL(
        load_error(kTopology, {parse_override("cube.pe_template.components.mm.attrs.rows=4")}),
        "(no error)");
    BOOST_CHECK_EQUAL(
        load_error(kTopology, {parse_override("cube.pe_template.components.mm.impl=builtin.pe_gemm")}),
        "(no error)");
}

BOOST_AUTO_TEST_CASE(impl_left_out_of_the_build_says_why) {
    std::string text = kTopology;
    text.replace(text.find("impl: builtin.pe_math"), 21, "impl: test.pe_math   ");
    BOOST_CHECK_EQUAL(load_error(text),
                      "t.yaml:17:53: cube.pe_template.components.pe_math.impl: impl "
                      "'test.pe_math' is not in this build of npuvp: it was left out of this "
                      "build");
}

BOOST_AUTO_TEST_CASE(rtl_pe_gemm_is_registered_or_explained) {
    // Both RTL engines: registered with their watchdog attr, or explained.
    const ImplRegistry& reg = builtin_registry();
    for (const auto& [kind, impl] : {std::pair<std::string, std::string>{"pe_gemm", "rtl.pe_gemm"},
                                     {"pe_math", "rtl.pe_math"}}) {
        BOOST_TEST_CONTEXT(impl) {
            if (rtl_built()) {
                BOOST_CHECK(reg.knows(kind, impl));
                BOOST_CHECK(reg.unavailable(kind, impl) == nullptr);
                BOOST_REQUIRE(reg.attrs_spec(kind, impl) != nullptr);
                // rtl.pe_gemm also brings zero_skip (docs/rtl.md "Zero skipping").
                const std::vector<std::string> keys =
                    kind == "pe_gemm" ? std::vector<std::string>{"watchdog_cycles", "zero_skip"}
                                      : std::vector<std::string>{"watchdog_cycles"};
                BOOST_CHECK(reg.attrs_spec(kind, impl)->keys == keys);
            } else {
                BOOST_CHECK(!reg.knows(kind, impl));
                BOOST_REQUIRE(reg.unavailable(kind, impl) != nullptr);
                BOOST_CHECK(reg.unavailable(kind, impl)->find("without Verilator") !=
                            std::string::npos);
            }
        }
    }
}
