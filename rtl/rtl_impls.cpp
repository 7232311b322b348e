// The rtl.* factories (docs/rtl.md): a Verilog block swapped in for a
// block's C++ model by naming another impl, plus what each checks of the
// topology at load time. Adding a block is one more add() here.
#include <cmath>
#include <string>

#include "config/config_error.h"
#include "config/schema.h"
#include "platform/impl_registry.h"
#include "platform/rtl_support.h"
#include "rtl/rtl_pe_gemm.h"
#include "rtl/rtl_pe_math.h"

namespace npuvp {

bool rtl_built() { return true; }

namespace {

// The attrs every rtl.* engine brings beside its kind's (docs/rtl.md
// "Watchdog"), accepted in its block's attrs only with that impl.
struct RtlEngineAttrs {
    std::uint64_t watchdog_cycles = 0;
};

// rtl.pe_gemm's: the watchdog, and zero skipping (docs/rtl.md "Zero skipping").
struct RtlGemmAttrs {
    std::uint64_t watchdog_cycles = 0;
    bool zero_skip = false;
};

schema::Table<RtlGemmAttrs> rtl_gemm_attrs() {
    using F = schema::Fields<RtlGemmAttrs>;
    return {{F::integer("watchdog_cycles", &RtlGemmAttrs::watchdog_cycles, 0, 0, "cycles",
                        "the most RTL cycles one command may take before the run stops with exit 1 "
                        "naming the PE, command and cycles (the RTL is reset); 0: 8 x the "
                        "command's cycles without gaps or back-pressure + 64"),
             F::leaf("zero_skip", {"", "bool", "", "`false`", "`true` or `false`",
                                   "the RTL array skips the blocks of a row block whose A is all zero "
                                   "(docs/rtl.md \"Zero skipping\"): a cycle count that depends on the data"},
                     [](const MapReader& r, RtlGemmAttrs& a) {
                         if (r.has("zero_skip")) a.zero_skip = r.reader().to_bool(r.child("zero_skip"));
                     },
                     [](YAML::Emitter& out, const RtlGemmAttrs& a) {
                         out << YAML::Key << "zero_skip" << YAML::Value << a.zero_skip;
                     })}};
}

schema::Table<RtlEngineAttrs> rtl_engine_attrs() {
    using F = schema::Fields<RtlEngineAttrs>;
    return {{F::integer("watchdog_cycles", &RtlEngineAttrs::watchdog_cycles, 0, 0, "cycles",
                        "the most RTL cycles one command may take before the run stops with exit 1 "
                        "naming the PE, command and cycles (the RTL is reset); 0: 8 x the "
                        "command's cycles without gaps or back-pressure + 64")}};
}

}  // namespace

void add_rtl_impls(ImplRegistry& registry) {
    registry.add<PeGemm>(
        "pe_gemm", "rtl.pe_gemm",
        [](const sc_core::sc_module_name& name, const NodeEnv& env) {
            const RtlGemmAttrs attrs = ImplRegistry::attrs<RtlGemmAttrs>(env.topo, "pe_gemm");
            return std::make_unique<RtlPeGemm>(name, env.topo.cube.pe_template.gemm, attrs.watchdog_cycles,
                                               attrs.zero_skip, env.trace, env.status);
        });
    registry.add_attrs<RtlGemmAttrs>("pe_gemm", "rtl.pe_gemm", rtl_gemm_attrs());
    // The array's size is a Verilog parameter, fixed when npuvp is built:
    // the topology must say the same, so that what it says is what runs.
    registry.add_check(
        "pe_gemm", "rtl.pe_gemm", [](const TopologyConfig& topo, const ImplRegistry::Where& where) {
            const PeTemplateConfig& t = topo.cube.pe_template;
            const std::string attrs =
                "cube.pe_template.components." + t.names.at("pe_gemm") + ".attrs.";
            const std::string size = std::to_string(GemmRtlDriver::rows()) + " x " +
                                     std::to_string(GemmRtlDriver::cols());
            const auto must_be = [&](const char* key, int want, int got) {
                if (want != got)
                    throw ConfigError(
                        where(attrs + key),
                        "rtl.pe_gemm is the " + size +
                            " RTL array (Verilog parameters ROWS, COLS, set when npuvp is built: "
                            "NPUVP_RTL_GEMM_ROWS, NPUVP_RTL_GEMM_COLS); " + key + " must be " +
                            std::to_string(want) + " (got " + std::to_string(got) + ")");
            };
            must_be("rows", GemmRtlDriver::rows(), t.gemm.rows);
            must_be("cols", GemmRtlDriver::cols(), t.gemm.cols);
            if (RtlPeGemm::clock_period(t.gemm.freq_ghz).value() < 2)
                throw ConfigError(where(attrs + "freq_ghz"),
                                  "the RTL clock needs a period of at least 2 ps (freq_ghz <= 666)");
        });

    registry.add<PeMath>(
        "pe_math", "rtl.pe_math",
        [](const sc_core::sc_module_name& name, const NodeEnv& env) {
            return std::make_unique<RtlPeMath>(
                name, env.topo.cube.pe_template.math,
                ImplRegistry::attrs<RtlEngineAttrs>(env.topo, "pe_math").watchdog_cycles, env.trace,
                env.status);
        });
    registry.add_attrs<RtlEngineAttrs>("pe_math", "rtl.pe_math", rtl_engine_attrs());
    // The unit's lane count is a Verilog parameter, fixed when npuvp is
    // built; every element takes one 32-bit lane, whatever its size.
    registry.add_check(
        "pe_math", "rtl.pe_math", [](const TopologyConfig& topo, const ImplRegistry::Where& where) {
            const PeTemplateConfig& t = topo.cube.pe_template;
            const std::string attrs =
                "cube.pe_template.components." + t.names.at("pe_math") + ".attrs.";
            const int lanes = MathRtlDriver::lanes();
            const auto must_be = [&](const char* key, int got) {
                if (got != lanes)
                    throw ConfigError(
                        where(attrs + key),
                        "rtl.pe_math is the " + std::to_string(lanes) +
                            "-lane RTL vector unit (Verilog parameter LANES, set when npuvp is "
                            "built: NPUVP_RTL_MATH_LANES; every element takes one 32-bit lane); " +
                            key + " must be " + std::to_string(lanes) + " (got " +
                            std::to_string(got) + ")");
            };
            must_be("lanes", t.math.lanes);
            must_be("lanes_32bit", t.math.lanes_32bit);
            if (RtlPeGemm::clock_period(t.math.freq_ghz).value() < 2)
                throw ConfigError(where(attrs + "freq_ghz"),
                                  "the RTL clock needs a period of at least 2 ps (freq_ghz <= 666)");
        });
}

}  // namespace npuvp
