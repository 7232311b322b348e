// Stands in for rtl/ when npuvp is built without Verilator (NPUVP_RTL=OFF, or
// AUTO with no Verilator found):
// naming an rtl.* impl or --vcd-rtl is a clear error, not an unknown name.
#include "config/config_error.h"
#include "platform/impl_registry.h"
#include "platform/rtl_support.h"

namespace npuvp {

namespace {
const char* const kWhy =
    "it was built without Verilator (install Debian's verilator package and configure again "
    "with NPUVP_RTL=AUTO or ON; docs/rtl.md)";
}

void add_rtl_impls(ImplRegistry& registry) {
    registry.add_unavailable("pe_gemm", "rtl.pe_gemm", kWhy);
    registry.add_unavailable("pe_math", "rtl.pe_math", kWhy);
}

bool rtl_built() { return false; }

std::unique_ptr<RtlWaves> open_rtl_waves(const std::string& path, const std::vector<RtlBlock*>&) {
    throw ConfigError({"command line", 0, 0, ""},
                      "--vcd-rtl " + path + ": this npuvp has no RTL co-simulation: " + kWhy);
}

}  // namespace npuvp
