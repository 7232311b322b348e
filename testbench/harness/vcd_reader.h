// Reads the value changes of one scalar variable back from a VCD, for the
// waveform tests: SystemC's writer (--vcd) and Verilator's (--vcd-rtl) alike.
// A variable's full name is its scopes and name joined with '.', without its
// bit range.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace npuvp::test {

// Reads the header of the VCD in `in` up to $enddefinitions and returns the
// identifier code of the variable `wanted` (a test failure when it has none).
inline std::string vcd_var_code(std::istream& in, const std::string& wanted) {
    std::vector<std::string> scope;
    std::string id, word;
    while (in >> word && word != "$enddefinitions") {
        if (word == "$scope") {
            std::string kind, name;
            in >> kind >> name;
            scope.push_back(name);
        } else if (word == "$upscope") {
            scope.pop_back();
        } else if (word == "$var") {
            std::string type, code, name;
            int width;
            in >> type >> width >> code >> name;
            std::string path;
            for (const auto& s : scope) path += s + ".";
            if (path + name == wanted) id = code;
        }
    }
    BOOST_REQUIRE_MESSAGE(!id.empty(), "no VCD variable " << wanted);
    return id;
}

// (time, '0' or '1') for every change of `wanted`, the initial dump included.
inline std::vector<std::pair<std::uint64_t, char>> vcd_scalar_changes(const std::string& vcd,
                                                                      const std::string& wanted) {
    std::istringstream in(vcd);
    const std::string id = vcd_var_code(in, wanted);
    std::vector<std::pair<std::uint64_t, char>> changes;
    std::uint64_t now = 0;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') now = std::stoull(line.substr(1));
        else if ((line[0] == '0' || line[0] == '1') && line.substr(1) == id)
            changes.emplace_back(now, line[0]);
    }
    return changes;
}

// (time, bits) for every change of the vector variable `wanted` (`b0101
// <code>` lines), the initial dump included.
inline std::vector<std::pair<std::uint64_t, std::string>> vcd_vector_changes(const std::string& vcd,
                                                                             const std::string& wanted) {
    std::istringstream in(vcd);
    const std::string id = vcd_var_code(in, wanted);
    std::vector<std::pair<std::uint64_t, std::string>> changes;
    std::uint64_t now = 0;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            now = std::stoull(line.substr(1));
        } else if (line[0] == 'b') {
            const std::size_t space = line.find(' ');
            if (space != std::string::npos && line.substr(space + 1) == id)
                changes.emplace_back(now, line.substr(1, space - 1));
        }
    }
    return changes;
}

}  // namespace npuvp::test
