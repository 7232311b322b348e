// The longest simulated time a run reaches (docs/limits.md "Long runs"):
// every run stops there at the latest (sc_main, the default of
// --max-sim-time and its bound), and a gemm or math command whose one stage
// takes longer is refused at load (config/workload_loader.cpp), so a time
// plus one stage's time stays inside 64-bit ps.
#pragma once

#include <cstdint>

namespace npuvp {

inline constexpr std::uint64_t kLongestRunPs = std::uint64_t{1} << 62;

}  // namespace npuvp
