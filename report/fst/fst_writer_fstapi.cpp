// FstWriter through GTKWave's fstapi (report/fst_writer.h). Built when CMake
// finds fstapi.c and zlib; report/fst/fst_writer_off.cpp stands in otherwise.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fstapi.h"
#include "report/atomic_file.h"
#include "report/fst_writer.h"

namespace npuvp {

bool fst_built() { return true; }

struct FstWriter::Impl {
    std::string flag, path, scratch;
    void* fst = nullptr;
    struct Var {
        fstHandle handle;
        std::uint32_t width;
        bool real;
    };
    std::unordered_map<std::string, Var> vars;  // by VCD identifier
    std::uint64_t vars_made = 0, end_ps = 0;
    std::string block;       // $date, $version, $timescale or $comment: its text is gathered to its $end
    std::string block_text;
    std::string bits;        // a vector's value, widened to its width (reused)

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error(flag + ": writing '" + path + "' failed (" + what + ")");
    }
    void close() {
        if (fst != nullptr) fstWriterClose(fst);
        fst = nullptr;
    }
    ~Impl() {
        close();
        std::remove(scratch.c_str());
    }

    const Var& var(const std::string& id) const {
        const auto it = vars.find(id);
        if (it == vars.end()) fail("a change of '" + id + "', which the VCD does not declare");
        return it->second;
    }

    void end_block() {
        // The text between the keyword and $end, without its surrounding blanks.
        const std::size_t from = block_text.find_first_not_of(" \t\n");
        const std::size_t to = block_text.find_last_not_of(" \t\n");
        const std::string text = from == std::string::npos ? "" : block_text.substr(from, to - from + 1);
        if (block == "$date") fstWriterSetDate(fst, text.c_str());
        else if (block == "$version") fstWriterSetVersion(fst, text.c_str());
        else if (block == "$timescale") {
            std::string compact;  // "1 ps" -> "1ps"
            for (char c : text)
                if (c != ' ' && c != '\t') compact += c;
            fstWriterSetTimescaleFromString(fst, compact.c_str());
        }
        block.clear();
        block_text.clear();
    }

    void declaration(const std::string& text) {
        std::istringstream in(text);
        std::string word;
        in >> word;
        if (word == "$scope") {
            std::string kind, name;
            in >> kind >> name;
            fstWriterSetScope(fst, FST_ST_VCD_MODULE, name.c_str(), nullptr);
        } else if (word == "$upscope") {
            fstWriterSetUpscope(fst);
        } else if (word == "$var") {
            std::string type, id, name, range;
            std::uint32_t width = 1;
            in >> type >> width >> id >> name >> range;
            if (range != "$end") name += " " + range;  // GTKWave shows "cmd [31:0]" as cmd[31:0]
            const bool real = type == "real";
            const fstHandle handle = fstWriterCreateVar(fst, real ? FST_VT_VCD_REAL : FST_VT_VCD_WIRE,
                                                        FST_VD_IMPLICIT, width, name.c_str(), 0);
            vars[id] = {handle, width, real};
            ++vars_made;
        } else if (word == "$date" || word == "$version" || word == "$timescale" || word == "$comment") {
            block = word;
            std::getline(in, block_text);  // text on the keyword's own line, if any
            if (block_text.find("$end") != std::string::npos) {
                block_text.erase(block_text.find("$end"));
                end_block();
            }
        } else if (word == "$dumpvars") {
            fstWriterEmitTimeChange(fst, 0);
        }
        // $enddefinitions, $end: nothing to write
    }

    void change(const std::string& text) {
        const char kind = text[0];
        if (kind == '#') {
            end_ps = std::strtoull(text.c_str() + 1, nullptr, 10);
            fstWriterEmitTimeChange(fst, end_ps);
            return;
        }
        if (kind == 'r' || kind == 'R') {
            const std::size_t space = text.find(' ');
            if (space == std::string::npos) fail("a malformed real change '" + text + "'");
            const Var& v = var(text.substr(space + 1));
            const double value = std::strtod(text.c_str() + 1, nullptr);
            fstWriterEmitValueChange(fst, v.handle, &value);
            return;
        }
        if (kind == 'b' || kind == 'B') {
            const std::size_t space = text.find(' ');
            if (space == std::string::npos) fail("a malformed vector change '" + text + "'");
            const Var& v = var(text.substr(space + 1));
            // VCD leaves out leading digits: 0s, or x / z when the first one is.
            const std::size_t given = space - 1;
            if (given > v.width) fail("a value wider than its variable in '" + text + "'");
            const char first = given > 0 ? text[1] : '0';
            const char fill = first == 'x' || first == 'X' || first == 'z' || first == 'Z' ? first : '0';
            bits.assign(v.width - given, fill);
            bits.append(text, 1, given);
            fstWriterEmitValueChange(fst, v.handle, bits.c_str());
            return;
        }
        // A scalar: 0, 1, x or z, then the identifier.
        const Var& v = var(text.substr(1));
        const char value[2] = {kind, '\0'};
        fstWriterEmitValueChange(fst, v.handle, value);
    }
};

FstWriter::FstWriter(std::string flag, std::string path) : m_impl(std::make_unique<Impl>()) {
    Impl& w = *m_impl;
    w.flag = std::move(flag);
    w.path = std::move(path);
    const std::string stem = w.path.size() > 4 ? w.path.substr(0, w.path.size() - 4) : w.path;
    w.scratch = stem + ".tmp." + std::to_string(getpid()) + ".fst";
    w.fst = fstWriterCreate(w.scratch.c_str(), 1);
    if (w.fst == nullptr)
        throw std::runtime_error(w.flag + ": cannot write '" + w.path + "' (its scratch file '" + w.scratch +
                                 "' cannot be made)");
    fstWriterSetFileType(w.fst, FST_FT_VERILOG);
}

FstWriter::~FstWriter() = default;

void FstWriter::line(const std::string& text) {
    Impl& w = *m_impl;
    if (!w.block.empty()) {
        const std::size_t end = text.find("$end");
        w.block_text += (end == std::string::npos ? text : text.substr(0, end)) + "\n";
        if (end != std::string::npos) w.end_block();
        return;
    }
    if (text.empty()) return;
    if (text[0] == '$') w.declaration(text);
    else w.change(text);
}

void FstWriter::commit() {
    Impl& w = *m_impl;
    w.close();
    // The writer's own writes are not checked: read the file back.
    void* reader = fstReaderOpen(w.scratch.c_str());
    if (reader == nullptr) w.fail("it does not read back as FST");
    const std::uint64_t vars = fstReaderGetVarCount(reader), end = fstReaderGetEndTime(reader);
    fstReaderClose(reader);
    if (vars != w.vars_made || end != w.end_ps)
        w.fail("it reads back with " + std::to_string(vars) + " variables to " + std::to_string(end) + " ps, not " +
               std::to_string(w.vars_made) + " to " + std::to_string(w.end_ps) + " ps");
    std::ifstream in(w.scratch, std::ios::binary);
    if (!in) w.fail("its scratch file '" + w.scratch + "' cannot be read");
    AtomicOutput out(w.flag, w.path);
    out.stream() << in.rdbuf();
    out.commit();
}

}  // namespace npuvp
