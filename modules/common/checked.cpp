// The out-of-line halves of modules/common/checked.h: building the message.
#include "modules/common/checked.h"

#include <sstream>

namespace npuvp {

void throw_overflow(const std::string& what) { throw Overflow(what + " overflows 64 bits"); }

}  // namespace npuvp

namespace npuvp::checked_detail {

void overflow(const char* what, const char* op, std::uint64_t a, std::uint64_t b) {
    std::ostringstream s;
    s << what << " overflows 64 bits (" << a << ' ' << op << ' ' << b << ')';
    throw Overflow(s.str());
}

void out_of_range(const char* what, double value, const char* unit) {
    std::ostringstream s;
    s.precision(17);
    s << what << " is out of range: " << value << ' ' << unit
      << " is not a whole number from 0 to 2^64 - 1";
    throw Overflow(s.str());
}

}  // namespace npuvp::checked_detail
