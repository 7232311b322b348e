// Simulated time as exact decimal text (integers underneath, no floating
// point): what the run report, the diagnosis, the timeline and the summary
// print. Shared by platform/ (the run's diagnosis) and report/ (every output).
#pragma once

#include <cstdint>
#include <string>

namespace npuvp {
namespace obs {

std::string ps_as_us(std::uint64_t ps);  // 1234567 -> "1.234567"
std::string ps_as_ns(std::uint64_t ps);  // 1234567 -> "1234.567"

}  // namespace obs
}  // namespace npuvp
