#include "report/vcd_finish.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "report/atomic_file.h"
#include "report/fst_writer.h"
#include "report/run_view.h"

namespace npuvp {

namespace {

// The kernel's files not yet taken by finish_vcd(): removed at exit.
struct KernelFiles {
    std::vector<std::string> paths;
    ~KernelFiles() {
        for (const std::string& p : paths) std::remove(p.c_str());
    }
    void taken(const std::string& p) { paths.erase(std::remove(paths.begin(), paths.end(), p), paths.end()); }
};
KernelFiles& kernel_files() {
    static KernelFiles files;
    return files;
}

}  // namespace

std::string vcd_kernel_path(const std::string& path) {
    const std::string stem = path.size() > 4 ? path.substr(0, path.size() - 4) : path;
    std::string kernel = stem + ".tmp." + std::to_string(getpid()) + ".vcd";
    KernelFiles& files = kernel_files();
    if (std::find(files.paths.begin(), files.paths.end(), kernel) == files.paths.end())
        files.paths.push_back(kernel);
    return kernel;
}

bool is_fst_path(const std::string& path) { return path.size() > 4 && path.compare(path.size() - 4, 4, ".fst") == 0; }

bool idle_is_z(const std::string& var_name) {
    const std::size_t n = var_name.size();
    return var_name == "cmd" || var_name == "tile" || (n > 4 && var_name.compare(n - 4, 4, "_cmd") == 0);
}

namespace {

// Where the finished lines go: VCD text, or the FST writer.
class WaveOutput {
public:
    explicit WaveOutput(const std::string& path) {
        if (is_fst_path(path)) m_fst.emplace("--vcd", path);
        else m_vcd.emplace("--vcd", path);
    }
    void line(const std::string& text) {
        if (m_fst) m_fst->line(text);
        else m_vcd->stream() << text << '\n';
    }
    void commit() {
        if (m_fst) m_fst->commit();
        else m_vcd->commit();
    }

private:
    std::optional<AtomicOutput> m_vcd;
    std::optional<FstWriter> m_fst;
};

// How long each signal is away from its idle value, from the changes the
// pass writes: z for a command or tile number (0 is a number), else 0.
class BusyMeter {
public:
    explicit BusyMeter(std::vector<WaveSignal>& signals) : m_signals(signals) {}
    void declare(const std::string& id, std::size_t index) {
        m_index.emplace(id, index);
        if (m_busy_since.size() <= index) m_busy_since.resize(index + 1, kIdle);
    }
    void time(std::uint64_t t) { m_now = t; }
    // `value`: a scalar's digit, or a vector's bits.
    void change(const std::string& id, const char* value, std::size_t length) {
        const auto it = m_index.find(id);
        if (it == m_index.end()) return;
        const bool zero_is_idle = !m_signals[it->second].idle_is_z;
        bool busy = false;
        for (std::size_t i = 0; i < length && !busy; ++i)
            busy = value[i] != 'z' && value[i] != 'Z' && (value[i] != '0' || !zero_is_idle);
        std::uint64_t& since = m_busy_since[it->second];
        if (busy && since == kIdle) since = m_now;
        if (!busy && since != kIdle) {
            m_signals[it->second].busy_ps += m_now - since;
            since = kIdle;
        }
    }
    void end(std::uint64_t end_ps) {
        for (std::size_t i = 0; i < m_busy_since.size(); ++i)
            if (m_busy_since[i] != kIdle) m_signals[i].busy_ps += end_ps - m_busy_since[i];
    }

private:
    static constexpr std::uint64_t kIdle = UINT64_MAX;
    std::vector<WaveSignal>& m_signals;
    std::unordered_map<std::string, std::size_t> m_index;  // by VCD identifier
    std::vector<std::uint64_t> m_busy_since;               // kIdle while idle
    std::uint64_t m_now = 0;
};

}  // namespace

WaveContents finish_vcd(const std::string& path, const Energy* energy) {
    const std::string from = vcd_kernel_path(path);
    // Removed however this ends (written, or failed half-way).
    struct Remove {
        const std::string& path;
        ~Remove() {
            std::remove(path.c_str());
            kernel_files().taken(path);
        }
    } remove_after{from};
    std::ifstream in(from, std::ios::binary);
    if (!in) throw std::runtime_error("--vcd: cannot read the kernel's '" + from + "' back");
    const bool power = energy != nullptr && !energy->power.empty();
    WaveContents contents;
    BusyMeter meter(contents.signals);
    std::unordered_map<std::string, std::size_t> z_width;  // idle-is-z signals: their width, by identifier
    WaveOutput out(path);
    std::string line;
    bool in_date = false, dated = false, declared = false, body = false;
    std::vector<std::string> scope;
    std::size_t next = 0;  // the next power step to write
    auto value = [&](const Energy::Step& s) { out.line("r" + obs::fixed(s.w, 6) + " " + vcd_power_id); };
    auto at = [&](std::uint64_t t) {
        out.line("#" + std::to_string(t));
        contents.end_ps = t;
        meter.time(t);
    };
    // Every step before time t, each at its own time.
    auto steps_before = [&](std::uint64_t t) {
        for (; next < energy->power.size() && energy->power[next].at_ps < t; ++next)
            at(energy->power[next].at_ps), value(energy->power[next]);
    };
    while (std::getline(in, line)) {
        if (!dated && line.rfind("$date", 0) == 0) {
            in_date = true;
            out.line("$date");
            out.line("     (npuvp: no wall-clock date, so identical runs give identical files)");
            continue;
        }
        if (in_date) {
            if (line.rfind("$end", 0) == 0) {
                in_date = false;
                dated = true;
                out.line(line);
            }
            continue;
        }
        if (!body && line.rfind("$scope", 0) == 0) {
            if (power && !declared) {
                out.line("$scope module npuvp $end");
                out.line(std::string("$var real 64 ") + vcd_power_id + " power_w $end");
                out.line("$upscope $end");
                contents.signals.push_back({"npuvp", "npuvp.power_w", 64, true, false, 0});
                declared = true;
            }
            std::istringstream words(line);
            std::string keyword, kind, name;
            words >> keyword >> kind >> name;
            scope.push_back(name);
        } else if (!body && line.rfind("$upscope", 0) == 0) {
            if (!scope.empty()) scope.pop_back();
        } else if (!body && line.rfind("$var", 0) == 0) {
            std::istringstream words(line);
            std::string keyword, type, id, name, range;
            int width = 1;
            words >> keyword >> type >> width >> id >> name >> range;
            WaveSignal s;
            for (const std::string& part : scope) s.scope += (s.scope.empty() ? "" : ".") + part;
            s.name = s.scope + "." + name + (range != "$end" ? range : "");
            s.width = width;
            s.real = type == "real";
            s.idle_is_z = !s.real && width > 1 && idle_is_z(name);
            if (s.idle_is_z) z_width.emplace(id, static_cast<std::size_t>(width));
            meter.declare(id, contents.signals.size());
            contents.signals.push_back(std::move(s));
        } else if (line.rfind("$dumpvars", 0) == 0) {
            body = true;
            out.line(line);
            if (power) {
                value(energy->power[0]);  // power[0] is at time 0
                next = 1;
            }
            continue;
        } else if (body && !line.empty() && line[0] == '#') {
            const std::uint64_t t = std::stoull(line.substr(1));
            if (power) steps_before(t);
            at(t);
            if (power && next < energy->power.size() && energy->power[next].at_ps == t) value(energy->power[next++]);
            continue;
        } else if (body && !line.empty() && (line[0] == 'b' || line[0] == 'B')) {
            const std::size_t space = line.find(' ');
            if (space != std::string::npos) {
                const std::string id = line.substr(space + 1);
                const auto z = z_width.find(id);
                // -1, idle: all ones at the full width (SystemC writes every bit of it).
                if (z != z_width.end() && space - 1 == z->second &&
                    line.find_first_not_of('1', 1) == space) {
                    line = "bz " + id;
                    meter.change(id, "z", 1);
                } else {
                    meter.change(id, line.c_str() + 1, space - 1);
                }
            }
        } else if (body && !line.empty() && (line[0] == '0' || line[0] == '1' || line[0] == 'x' || line[0] == 'z')) {
            meter.change(line.substr(1), line.c_str(), 1);
        }
        out.line(line);
    }
    if (power && body) steps_before(UINT64_MAX);
    meter.end(contents.end_ps);
    out.commit();
    return contents;
}

}  // namespace npuvp
