// FstWriter in a build without GTKWave's FST writer (CMake found no fstapi.c
// or no zlib): asking for FST is an error that says how to get it.
#include <stdexcept>

#include "report/fst_writer.h"

namespace npuvp {

bool fst_built() { return false; }

struct FstWriter::Impl {};

FstWriter::FstWriter(std::string flag, std::string path) {
    throw std::runtime_error(flag + ": cannot write '" + path +
                             "': this npuvp was built without FST (install verilator and zlib1g-dev, "
                             "tools/bootstrap.sh, and configure again)");
}

FstWriter::~FstWriter() = default;
void FstWriter::line(const std::string&) {}
void FstWriter::commit() {}

}  // namespace npuvp
