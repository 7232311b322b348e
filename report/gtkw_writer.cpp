#include "report/gtkw_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "modules/pe/engine_kinds.h"

namespace npuvp {
namespace {

// GTKWave trace flags (gtkwave's TR_* bits).
constexpr unsigned kHex = 0x2, kRightJustify = 0x20, kDecimal = 0x4, kBinary = 0x8, kSigned = 0x400,
                   kBlank = 0x200, kFileFilter = 0x2000, kAnalogStep = 0x8000, kAnalogBlankStretch = 0x20000,
                   kReal = 0x40000, kClosed = 0x400000, kGroupBegin = 0x800000, kGroupEnd = 0x1000000;

// A signal of the save file: `node` is its scope (the node id, after the
// kernel's top scope), `group` its PE's (group_of), `filter` the filter file
// its value goes through.
struct Signal {
    const WaveSignal* wave;
    std::string node, group;
    std::string filter;
};

// A command number (idle_is_z, and not a tile): a block's `cmd`, the
// scheduler's `<context>_cmd`.
bool is_cmd(const WaveSignal& s) {
    const std::string leaf = s.name.substr(s.name.rfind('.') + 1);
    return s.idle_is_z && leaf.compare(0, 5, "tile[") != 0;
}

// The PE id of a group (SystemC.sip0.cube0.pe0 -> sip0.cube0.pe0): the group
// without the kernel's top scope.
std::string pe_of(const std::string& group) {
    const std::size_t dot = group.find('.');
    return dot == std::string::npos ? group : group.substr(dot + 1);
}

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

std::size_t rank(const Signal& sig) {
    const std::vector<std::string>& order = signal_order();
    for (std::size_t i = 0; i < order.size(); ++i)
        if (sig.node.find(order[i]) != std::string::npos) return i;
    return order.size();
}

std::string flags(unsigned f) {
    std::ostringstream s;
    s << "@" << std::hex << f << "\n";
    return s.str();
}

// The signals in collapsible groups: one per PE (or node group), and inside
// it one per node; `closed` writes every group folded.
void write_groups(std::ostream& out, const std::vector<Signal>& signals, bool closed) {
    const unsigned fold = closed ? kClosed : 0;
    std::string open_group, open_node;
    auto close_node = [&] {
        if (open_node.empty()) return;
        out << flags(kGroupEnd | kBlank | fold) << "-" << open_node << "\n";
        open_node.clear();
    };
    auto close_group = [&] {
        close_node();
        if (open_group.empty()) return;
        out << flags(kGroupEnd | kBlank | fold) << "-" << open_group << "\n";
        open_group.clear();
    };
    for (const Signal& s : signals) {
        const std::string& group = s.group;
        if (group != open_group) {
            close_group();
            out << flags(kGroupBegin | kBlank | fold) << "-" << group << "\n";
            open_group = group;
        }
        if (s.node != open_node && s.node != group) {
            close_node();
            out << flags(kGroupBegin | kBlank | fold) << "-" << s.node << "\n";
            open_node = s.node;
        }
        const WaveSignal& w = *s.wave;
        if (w.real) {  // drawn as a step curve, three rows high
            out << flags(kRightJustify | kReal | kAnalogStep) << w.name << "\n";
            for (int row = 0; row < 2; ++row)
                out << flags(kRightJustify | kReal | kAnalogStep | kAnalogBlankStretch) << "-\n";
            continue;
        }
        if (!s.filter.empty()) {  // hex: the text the filter's lines match
            out << flags(kRightJustify | kHex | kFileFilter) << "^1 " << s.filter << "\n" << w.name << "\n";
            continue;
        }
        out << flags(w.width == 1 ? (kRightJustify | kBinary) : (kRightJustify | kDecimal | kSigned)) << w.name
            << "\n";
    }
    close_group();
}

}  // namespace

std::string gtkw_path(const std::string& dump_path) { return dump_path.substr(0, dump_path.size() - 4) + ".gtkw"; }

std::string gtkw_filter_path(const std::string& dump_path, const std::string& pe) {
    return dump_path.substr(0, dump_path.size() - 4) + "." + pe + ".filter";
}

std::string gtkw_filter_text(const std::string& pe, const std::map<std::uint64_t, std::string>& labels) {
    std::ostringstream out;
    out << "# npuvp: " << pe << "'s commands by dispatch sequence number, as its cmd signals show it (hex)\n";
    for (const auto& [seq, label] : labels) {
        char key[24];
        std::snprintf(key, sizeof key, "%08llx", static_cast<unsigned long long>(seq & 0xffffffffu));
        std::string text = label;
        for (char& c : text)
            if (static_cast<unsigned char>(c) < 0x20) c = '?';  // one line per command
        out << key << " " << text << "\n";
    }
    return out.str();
}

std::vector<GtkwFile> gtkw_files(const std::string& dump_path, const WaveContents& waves,
                                 const CommandLabels& labels) {
    // The power first; then the groups with a busy signal, busiest first (by
    // the sum of their signals' busy time; ties in the file's order), each
    // engines first; then every never-busy signal.
    std::vector<Signal> top, busy, idle;
    std::map<std::string, std::size_t> place;  // each group's place in the file
    std::map<std::string, std::uint64_t> group_busy_ps;
    for (const WaveSignal& w : waves.signals) {
        Signal s{&w, w.scope, group_of(w.scope), ""};
        if (w.real) {
            top.push_back(s);
            continue;
        }
        place.emplace(s.group, place.size());
        if (w.busy_ps == 0) {
            idle.push_back(s);
            continue;
        }
        group_busy_ps[s.group] += w.busy_ps;
        busy.push_back(s);
    }
    std::stable_sort(busy.begin(), busy.end(), [&](const Signal& a, const Signal& b) {
        if (a.group != b.group) {
            const std::uint64_t ba = group_busy_ps[a.group], bb = group_busy_ps[b.group];
            return ba != bb ? ba > bb : place[a.group] < place[b.group];
        }
        return rank(a) < rank(b);
    });
    std::stable_sort(idle.begin(), idle.end(), [&](const Signal& a, const Signal& b) {
        return a.group != b.group ? place[a.group] < place[b.group] : rank(a) < rank(b);
    });

    // A filter file for each PE whose busy cmd signals show, busiest first,
    // as many as GTKWave keeps.
    std::vector<GtkwFile> files(1);
    std::map<std::string, std::string> filter_of;  // by group
    for (Signal& s : busy) {
        if (!is_cmd(*s.wave)) continue;
        auto it = filter_of.find(s.group);
        if (it == filter_of.end()) {
            const auto pe = labels.find(pe_of(s.group));
            std::string path;
            if (pe != labels.end() && !pe->second.empty() && files.size() <= gtkw_max_filters) {
                path = gtkw_filter_path(dump_path, pe->first);
                files.push_back({path, gtkw_filter_text(pe->first, pe->second)});
            }
            it = filter_of.emplace(s.group, path).first;
        }
        s.filter = it->second;
    }

    std::ostringstream out;
    const std::string save = gtkw_path(dump_path);
    out << "[*] GTKWave save file written by npuvp: gtkwave " << dump_path << " " << save << "\n"
        << "[dumpfile] \"" << dump_path << "\"\n"
        // Where it was written: GTKWave finds the filter files relative to
        // it when the files are opened from another folder.
        << "[savefile] \"" << save << "\"\n"
        << "[timestart] 0\n"
        << "*" << zoom_to_fit(waves.end_ps)
        << ".000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
        << "[size] 1600 1000\n"
        << "[sst_expanded] 1\n"
        << "[signals_width] 360\n";
    write_groups(out, top, false);
    write_groups(out, busy, false);
    if (!idle.empty()) {
        const std::string fold = "never busy (" + std::to_string(idle.size()) + " signals)";
        out << flags(kGroupBegin | kBlank | kClosed) << "-" << fold << "\n";
        write_groups(out, idle, true);
        out << flags(kGroupEnd | kBlank | kClosed) << "-" << fold << "\n";
    }
    files[0] = {save, out.str()};
    return files;
}

}  // namespace npuvp
