#include "report/gtkw_writer.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "modules/pe/engine_kinds.h"

namespace npuvp {
namespace {

// GTKWave trace flags (gtkwave's TR_* bits).
constexpr unsigned kRightJustify = 0x20, kDecimal = 0x4, kBinary = 0x8, kSigned = 0x400,
                   kBlank = 0x200, kAnalogStep = 0x8000, kAnalogBlankStretch = 0x20000, kReal = 0x40000,
                   kGroupBegin = 0x800000, kGroupEnd = 0x1000000;

struct Signal {
    std::string node;  // the node id: the scope path up to the signal's owner
    std::string name;  // full name as GTKWave shows it
    int width;
    bool real = false;  // a `real` variable (the run's power, report/vcd_finish.h)
};

std::string group_of(const std::string& node) {
    // sip0.cube0.pe3.pe_dma.rd0 -> sip0.cube0.pe3; sip0.cube0.m_cpu -> sip0.cube0
    const std::size_t pe = node.find(".pe");
    if (pe != std::string::npos) {
        const std::size_t end = node.find('.', pe + 1);
        return node.substr(0, end);
    }
    const std::size_t last = node.rfind('.');
    return last == std::string::npos ? node : node.substr(0, last);
}

// The VCD's signals, from its definitions, and the time of its last change.
struct VcdHeader {
    std::vector<Signal> signals;
    std::uint64_t end_ps = 0;
};

VcdHeader read_vcd(const std::string& vcd_path) {
    std::ifstream vcd(vcd_path);
    if (!vcd) throw std::runtime_error("cannot read '" + vcd_path + "'");
    VcdHeader header;
    std::vector<std::string> scope;
    std::string word;
    while (vcd >> word) {
        if (word == "$enddefinitions") break;
        if (word == "$scope") {
            std::string kind, name;
            vcd >> kind >> name;
            scope.push_back(name);
        } else if (word == "$upscope") {
            if (!scope.empty()) scope.pop_back();
        } else if (word == "$var") {
            std::string type, id, name, next;
            int width = 1;
            vcd >> type >> width >> id >> name >> next;
            std::string path;
            for (const std::string& s : scope) path += (path.empty() ? "" : ".") + s;
            std::string full = path + "." + name;
            if (next != "$end") full += next;  // the [31:0] range of a vector
            header.signals.push_back({path, full, width, type == "real"});
        }
    }
    for (std::string line; std::getline(vcd, line);)
        if (!line.empty() && line[0] == '#') header.end_ps = std::stoull(line.substr(1));
    return header;
}

// The order of a PE's signals: its engine blocks first (the busy lanes an
// architect looks at; each block once, in engine_kinds order), then the
// scheduler, the slot and the inbox fill levels. Each is a part of the node
// path.
const std::vector<std::string>& signal_order() {
    static const std::vector<std::string> order = [] {
        std::vector<std::string> out;
        for (const EngineKind& kind : engine_kinds) {
            const std::string block = std::string(".") + kind.block;
            if (std::find(out.begin(), out.end(), block) == out.end()) out.push_back(block);
        }
        for (const char* other : {".pe_scheduler", ".accel_slot", "_inbox"}) out.push_back(other);
        return out;
    }();
    return order;
}

// Signals by signal_order(), stable within a rank.
void sort_signals(std::vector<Signal>& signals) {
    auto rank = [](const Signal& sig) {
        const std::vector<std::string>& order = signal_order();
        for (std::size_t i = 0; i < order.size(); ++i)
            if (sig.node.find(order[i]) != std::string::npos) return i;
        return order.size();
    };
    std::stable_sort(signals.begin(), signals.end(), [&](const Signal& a, const Signal& b) {
        const std::string ga = group_of(a.node), gb = group_of(b.node);
        if (ga != gb) return false;  // keep the PEs in the VCD's order
        return rank(a) < rank(b);
    });
}

// Zoom so the whole run fits about 1000 pixels. Measured on GTKWave 3.3 with
// this 1 ps time base: zoom -13 shows about 47 ps per pixel, and each step
// down doubles it.
int zoom_to_fit(std::uint64_t end_ps) {
    int zoom = -13;
    for (double ps_per_pixel = 47.0; ps_per_pixel * 1000.0 < static_cast<double>(end_ps);
         ps_per_pixel *= 2.0)
        --zoom;
    return zoom;
}

// The signals in collapsible groups: one per PE (or node group), and inside
// it one per node.
void write_groups(std::ostream& out, const std::vector<Signal>& signals) {
    std::string open_group, open_node;
    auto close_node = [&] {
        if (open_node.empty()) return;
        out << "@" << std::hex << (kGroupEnd | kBlank) << std::dec << "\n-" << open_node << "\n";
        open_node.clear();
    };
    auto close_group = [&] {
        close_node();
        if (open_group.empty()) return;
        out << "@" << std::hex << (kGroupEnd | kBlank) << std::dec << "\n-" << open_group << "\n";
        open_group.clear();
    };
    for (const Signal& s : signals) {
        const std::string group = group_of(s.node);
        if (group != open_group) {
            close_group();
            out << "@" << std::hex << (kGroupBegin | kBlank) << std::dec << "\n-" << group << "\n";
            open_group = group;
        }
        if (s.node != open_node && s.node != group) {
            close_node();
            out << "@" << std::hex << (kGroupBegin | kBlank) << std::dec << "\n-" << s.node << "\n";
            open_node = s.node;
        }
        if (s.real) {  // drawn as a step curve, three rows high
            out << "@" << std::hex << (kRightJustify | kReal | kAnalogStep) << std::dec << "\n" << s.name << "\n";
            for (int row = 0; row < 2; ++row)
                out << "@" << std::hex << (kRightJustify | kReal | kAnalogStep | kAnalogBlankStretch) << std::dec
                    << "\n-\n";
            continue;
        }
        const unsigned flags = s.width == 1 ? (kRightJustify | kBinary)
                                            : (kRightJustify | kDecimal | kSigned);
        out << "@" << std::hex << flags << std::dec << "\n" << s.name << "\n";
    }
    close_group();
}

}  // namespace

void write_gtkw(const std::string& vcd_path, std::ostream& out) {
    VcdHeader vcd = read_vcd(vcd_path);
    sort_signals(vcd.signals);
    out << "[*] GTKWave save file written by npuvp: gtkwave " << vcd_path << " <this file>\n"
        << "[dumpfile] \"" << vcd_path << "\"\n"
        << "[timestart] 0\n"
        << "*" << zoom_to_fit(vcd.end_ps)
        << ".000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
        << "[size] 1600 1000\n"
        << "[sst_expanded] 1\n"
        << "[signals_width] 360\n";
    write_groups(out, vcd.signals);
}

}  // namespace npuvp
