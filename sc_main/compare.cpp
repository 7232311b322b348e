#include "sc_main/compare.h"

#include <unistd.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "report/atomic_file.h"
#include "sc_main/self_exec.h"
#include "sc_main/sweep_collect.h"

namespace npuvp {
namespace {

struct Variant {
    std::string name;
    std::vector<std::string> args;  // everything after the program name
    int code = -1;
    std::string error;
    double makespan_ns = 0.0;
    double busy[3] = {0, 0, 0};  // main, sub, dma, summed over PEs
    double wait[3] = {0, 0, 0};
    double waits[5] = {0, 0, 0, 0, 0};  // context, dependency, resource, bank, feed
    std::vector<std::string> answers;  // summary_answers(): bound, energy, TFLOPS, ...
    // Per engine kind (DMA_READ, GEMM, ...): utilisation summed over the PEs
    // that ran one, and how many did.
    std::vector<std::pair<std::string, std::pair<double, int>>> engines;
    std::string dump_dir;             // where its relative dumps go (under the temporary folder)
    std::vector<std::string> dumped;  // the relative dump files it wrote
};

std::vector<char> file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Data mode: the dumps the variants wrote, each file once where the workload
// (and --dump-dir) put it when every variant that wrote it wrote the same
// bytes, else once per variant as FILE.vN (N its row in the table). One
// `dump` line per file says which.
void place_dumps(const std::vector<Variant>& variants, const std::string& user_dir, std::ostream& out) {
    std::map<std::string, std::vector<std::size_t>> writers;  // by file name: sorted, deterministic
    for (std::size_t i = 0; i < variants.size(); ++i)
        for (const std::string& f : variants[i].dumped) writers[f].push_back(i);
    for (const auto& [name, who] : writers) {
        const std::filesystem::path target =
            user_dir.empty() ? std::filesystem::path(name) : std::filesystem::path(user_dir) / name;
        std::vector<std::vector<char>> bytes;
        for (std::size_t i : who) bytes.push_back(file_bytes(std::filesystem::path(variants[i].dump_dir) / name));
        const bool same = std::all_of(bytes.begin(), bytes.end(), [&](const auto& b) { return b == bytes.front(); });
        const auto write = [](const std::filesystem::path& path, const std::vector<char>& b) {
            write_file_atomically(path.string(), [&](std::ostream& o) {
                o.write(b.data(), static_cast<std::streamsize>(b.size()));
            });
        };
        if (same) {
            write(target, bytes.front());
            out << "dump     " << target.string() << ": the same bytes from "
                << (who.size() == variants.size() ? "every variant" : std::to_string(who.size()) + " variants")
                << "\n";
            continue;
        }
        std::string agree, differ;
        for (std::size_t k = 0; k < who.size(); ++k) {
            write(target.string() + ".v" + std::to_string(who[k] + 1), bytes[k]);
            std::string& list = bytes[k] == bytes.front() ? agree : differ;
            list += (list.empty() ? "" : ", ") + variants[who[k]].name;
        }
        out << "dump     " << target.string() << ": the variants wrote different bytes (as "
            << variants[who.front()].name << ": " << agree << "; different: " << differ
            << "); each variant's are in " << target.string() << ".vN, N its row above\n";
    }
}

std::string stem(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string first_error(const std::string& log) {
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("npuvp:", 0) == 0) return line;
    return "no summary written";
}

}  // namespace

int run_compare(const CliOptions& options, const std::vector<std::vector<std::string>>& dumps,
                std::ostream& out) {
    std::vector<std::string> common{"--topology", options.topology};
    for (const std::string& s : options.set_texts) {
        common.push_back("--set");
        common.push_back(s);
    }
    std::vector<Variant> variants;
    for (const std::string& w : options.compare) {
        Variant v;
        v.name = stem(w);
        v.args = common;
        v.args.insert(v.args.end(), {"--workload", w});
        variants.push_back(v);
    }
    for (const std::string& text : options.compare_sets) {
        Variant v;
        v.name = text;
        v.args = common;
        std::istringstream words(text);
        for (std::string word; words >> word;) v.args.insert(v.args.end(), {"--set", word});
        v.args.insert(v.args.end(), {"--workload", *options.workload});
        variants.push_back(v);
    }

    char dir_template[] = "/tmp/npuvp-compare-XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) {
        out << "npuvp: run failed: cannot make a temporary directory\n";
        return 1;
    }
    int failures = 0;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        Variant& v = variants[i];
        const std::string summary = std::string(dir) + "/v" + std::to_string(i) + ".json";
        const std::string log = std::string(dir) + "/v" + std::to_string(i) + ".log";
        v.args.insert(v.args.end(), {"--summary", summary});
        // Its relative dumps under a folder of its own (with their subfolders).
        const std::vector<std::string> no_dumps;
        const std::vector<std::string>& files = i < dumps.size() ? dumps[i] : no_dumps;
        v.dump_dir = std::string(dir) + "/d" + std::to_string(i);
        std::error_code made;
        for (const std::string& f : files)
            if (std::filesystem::path(f).is_relative())
                std::filesystem::create_directories(std::filesystem::path(v.dump_dir) / std::filesystem::path(f).parent_path(), made);
        if (!files.empty()) v.args.insert(v.args.end(), {"--dump-dir", v.dump_dir});
        const ChildExit child = run_self(v.args, log);
        v.code = child.started && !child.signal ? child.code : -1;
        try {
            const YAML::Node s = YAML::LoadFile(summary);  // JSON is YAML
            v.makespan_ns = s["makespan_ns"].as<double>();
            for (const auto& c : s["contexts"]) {
                const std::string ctx = c["context"].as<std::string>();
                const int k = ctx == "main" ? 0 : ctx == "sub" ? 1 : 2;
                v.busy[k] += c["busy_ns"].as<double>();
                v.wait[k] += c["wait_ns"].as<double>();
            }
            const char* causes[] = {"context", "dependency", "resource", "bank", "feed"};
            for (int k = 0; k < 5; ++k) v.waits[k] = s["waits_ns"][causes[k]].as<double>();
            if (v.code != 0) v.error = s["error"].as<std::string>();
            v.answers = summary_answers(summary);
            for (const auto& e : s["engines"]) {
                const std::string kind = e["engine"].as<std::string>();
                auto it = std::find_if(v.engines.begin(), v.engines.end(), [&](const auto& x) { return x.first == kind; });
                if (it == v.engines.end()) it = v.engines.insert(v.engines.end(), {kind, {0.0, 0}});
                it->second.first += e["utilisation"].as<double>();
                ++it->second.second;
            }
        } catch (const std::exception&) {
            v.error = first_error(log);
        }
        if (v.code != 0) ++failures;
        for (const std::string& f : files)
            if (std::filesystem::path(f).is_relative() && std::filesystem::exists(std::filesystem::path(v.dump_dir) / f))
                v.dumped.push_back(f);
        std::remove(summary.c_str());
        std::remove(log.c_str());
    }

    auto ns = [](double v) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(3) << v;
        return s.str();
    };
    // The baseline of the ratios is the first variant that ran; the name
    // column is as wide as the longest name.
    const Variant* base = nullptr;
    std::size_t name_w = 10;
    for (const Variant& v : variants) {
        if (!base && v.code == 0 && v.makespan_ns > 0) base = &v;
        name_w = std::max(name_w, v.name.size() + 2);
    }
    const int w = static_cast<int>(name_w);
    const auto answer = [](const Variant& v, const std::string& column) {
        const auto& names = answer_columns();
        const auto at = std::find(names.begin(), names.end(), column) - names.begin();
        return static_cast<std::size_t>(at) < v.answers.size() ? v.answers[static_cast<std::size_t>(at)] : std::string();
    };
    out << "\nvariants (judge a schedule by its makespan, not by source order; ratios against "
        << (base ? base->name : std::string("no variant that ran")) << ")\n"
        << std::left << std::setw(w) << "variant" << std::right << std::setw(15) << "makespan ns"
        << std::setw(9) << "ratio" << std::setw(24) << "main busy/wait" << std::setw(24)
        << "sub busy/wait" << std::setw(24) << "dma busy/wait" << std::setw(13) << "dependency"
        << std::setw(13) << "context" << std::setw(13) << "resource" << std::setw(13) << "bank" << std::setw(13) << "feed"
        << std::setw(12) << "energy µJ" << std::setw(9) << "avg W" << std::setw(9) << "TFLOPS" << std::setw(11)
        << "link util" << std::setw(10) << "mem util" << "  bound\n";
    for (const Variant& v : variants) {
        out << std::left << std::setw(w) << v.name;
        if (v.code != 0) {
            out << std::right << std::setw(15) << "failed" << std::setw(9) << "-" << "  (exit " << v.code
                << "): " << v.error << "\n";
            continue;
        }
        std::ostringstream ratio;
        if (base) ratio << std::fixed << std::setprecision(3) << v.makespan_ns / base->makespan_ns << "x";
        else ratio << "-";
        out << std::right << std::setw(15) << ns(v.makespan_ns) << std::setw(9) << ratio.str();
        for (int k = 0; k < 3; ++k) out << std::setw(24) << ns(v.busy[k]) + "/" + ns(v.wait[k]);
        out << std::setw(13) << ns(v.waits[1]) << std::setw(13) << ns(v.waits[0]) << std::setw(13)
            << ns(v.waits[2]) << std::setw(13) << ns(v.waits[3]) << std::setw(13) << ns(v.waits[4]);
        const std::string pj = answer(v, "energy_pj"), share = answer(v, "bound_share");
        const auto cut = [&](const std::string& column, std::size_t digits) {
            const std::string a = answer(v, column);
            return a.empty() ? std::string("-") : a.substr(0, digits);
        };
        const auto percent = [&](const std::string& column) {
            const std::string a = answer(v, column);
            return a.empty() ? std::string("-") : ns(std::stod(a) * 100.0).substr(0, 5) + "%";
        };
        out << std::setw(12) << (pj.empty() ? "-" : ns(std::stod(pj) / 1e6)) << std::setw(9) << cut("average_w", 7)
            << std::setw(9) << cut("tflops", 7) << std::setw(11) << percent("max_link_util") << std::setw(10)
            << percent("max_memory_util") << "  " << answer(v, "bound");
        if (!share.empty()) out << " " << static_cast<int>(std::stod(share) * 100.0 + 0.5) << "%";
        out << "\n";
    }
    const auto pct = [](double v) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(1) << v << "%";
        return s.str();
    };
    // Engine utilisation per kind, the mean over the PEs that ran one: every
    // kind any variant used, in the order first seen.
    std::vector<std::string> kinds;
    for (const Variant& v : variants)
        for (const auto& e : v.engines)
            if (std::find(kinds.begin(), kinds.end(), e.first) == kinds.end()) kinds.push_back(e.first);
    if (!kinds.empty()) {
        out << "\nengine utilisation (busy / makespan, mean over the PEs that ran the engine)\n"
            << std::left << std::setw(w) << "variant" << std::right;
        for (const std::string& k : kinds) out << std::setw(std::max<int>(11, static_cast<int>(k.size()) + 2)) << k;
        out << "\n";
        for (const Variant& v : variants) {
            if (v.code != 0) continue;
            out << std::left << std::setw(w) << v.name << std::right;
            for (const std::string& k : kinds) {
                const auto it = std::find_if(v.engines.begin(), v.engines.end(), [&](const auto& x) { return x.first == k; });
                const std::string cell = it == v.engines.end() || it->second.second == 0
                                             ? std::string("-")
                                             : pct(100.0 * it->second.first / it->second.second);
                out << std::setw(std::max<int>(11, static_cast<int>(k.size()) + 2)) << cell;
            }
            out << "\n";
        }
    }
    try {
        std::ostringstream lines;
        place_dumps(variants, options.dump_dir.value_or(""), lines);
        if (!lines.str().empty()) out << "\n" << lines.str();
    } catch (const std::exception& e) {
        out << "npuvp: " << e.what() << "\n";
        ++failures;
    }
    std::error_code removed;
    std::filesystem::remove_all(dir, removed);
    return failures ? 1 : 0;
}

}  // namespace npuvp
