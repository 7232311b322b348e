#include "modules/common/time_text.h"

#include <charconv>

namespace npuvp {
namespace obs {

namespace {

// `ps` / 10^digits, a point, then the remainder in `digits` digits. With
// std::to_chars: an ostringstream per number (a locale and a stream each)
// was most of the time the timeline and the SVG took to write.
std::string decimal(std::uint64_t ps, std::uint64_t scale, int digits) {
    char buf[32];
    char* end = std::to_chars(buf, buf + 21, ps / scale).ptr;
    *end++ = '.';
    std::uint64_t rest = ps % scale;
    for (int i = digits - 1; i >= 0; --i) {
        end[i] = static_cast<char>('0' + rest % 10);
        rest /= 10;
    }
    return std::string(buf, end + digits);
}

}  // namespace

std::string ps_as_us(std::uint64_t ps) { return decimal(ps, 1000000, 6); }

std::string ps_as_ns(std::uint64_t ps) { return decimal(ps, 1000, 3); }

}  // namespace obs
}  // namespace npuvp
