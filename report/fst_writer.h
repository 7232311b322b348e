// `--vcd FILE.fst`: the waveforms in GTKWave's own compressed format, FST,
// for long runs (a VCD's text grows with every change; FST compresses them
// in blocks, docs/outputs.md "Waveforms"). It takes the lines of the VCD the
// last pass writes (report/vcd_finish.h), so both formats carry the same
// signals, names and changes, and writes them through GTKWave's FST writer
// (fstapi.c, as Verilator's Debian package ships it; compiled by CMake from
// there, not copied into this tree).
//
// The writer gives no error of its own when a write fails, so the file is
// written to a scratch file beside the target, opened again with the FST
// reader and checked (its variables and end time), then copied into place
// through AtomicOutput: a write that fails fails the run, as for every
// output (docs/cli.md "Outputs").
#pragma once

#include <memory>
#include <string>

namespace npuvp {

// Whether this build writes FST (the FST writer's sources and zlib were
// found when CMake configured it).
bool fst_built();

class FstWriter {
public:
    // Throws std::runtime_error naming `flag` and `path` when FST is not
    // built or the scratch file cannot be made.
    FstWriter(std::string flag, std::string path);
    ~FstWriter();
    FstWriter(const FstWriter&) = delete;
    FstWriter& operator=(const FstWriter&) = delete;

    // One line of the VCD, without its newline.
    void line(const std::string& text);
    // Closes the file, checks it and renames it into place (the scratch file
    // goes however this ends). Throws std::runtime_error naming the flag and
    // path when it cannot be written or reads back wrong.
    void commit();

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

}  // namespace npuvp
