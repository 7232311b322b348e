// A GTKWave save file (.gtkw) for a VCD that npuvp wrote (SPEC §7): the
// signals grouped per PE and, inside it, per node (engine), so
// `gtkwave run.vcd run.gtkw` opens a readable view at once. The signal list
// is read back from the VCD's own header, so it always matches the file.
#pragma once

#include <ostream>
#include <string>

namespace npuvp {

// Throws std::runtime_error when the VCD cannot be read.
void write_gtkw(const std::string& vcd_path, std::ostream& out);

}  // namespace npuvp
