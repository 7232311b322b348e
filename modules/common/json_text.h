// JSON string escaping, once for every JSON npuvp writes: the trace's lines
// (streamed on the hot path, nothing allocated) and the report/ writers.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace npuvp {

// Writes `text` quoted, with '"', '\\', newline, tab and other control
// characters escaped.
void write_json_string(std::ostream& out, std::string_view text);
// The same, appended to `out`.
void append_json_string(std::string& out, std::string_view text);

}  // namespace npuvp
