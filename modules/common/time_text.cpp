#include "modules/common/time_text.h"

#include <iomanip>
#include <sstream>

namespace npuvp {
namespace obs {

std::string ps_as_us(std::uint64_t ps) {
    std::ostringstream out;
    out << ps / 1000000 << '.' << std::setw(6) << std::setfill('0') << ps % 1000000;
    return out.str();
}

std::string ps_as_ns(std::uint64_t ps) {
    std::ostringstream out;
    out << ps / 1000 << '.' << std::setw(3) << std::setfill('0') << ps % 1000;
    return out.str();
}

}  // namespace obs
}  // namespace npuvp
