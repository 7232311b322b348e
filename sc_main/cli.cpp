#include "sc_main/cli.h"

#include <cstdlib>

#include "platform/config_error.h"

namespace npuvp {
namespace {

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError({"command line", 0, 0, ""}, message);
}

}  // namespace

const char* cli_usage() {
    return "usage: npuvp [options]\n"
           "\n"
           "Runs the npuvp virtual platform on a topology and prints its summary.\n"
           "\n"
           "options:\n"
           "  --topology FILE       topology YAML (default: configs/topologies/default.yaml)\n"
           "  --set KEY.PATH=VALUE  override one topology attribute (repeatable), e.g.\n"
           "                        --set cube.noc.attrs.link_bw_gbs=128\n"
           "  --workload FILE       run a workload YAML (kernels launched on PEs); without\n"
           "                        it, npuvp runs the platform probe\n"
           "  --trace FILE          write trace events as JSON lines to FILE\n"
           "  --list                print the elaborated tree: every node and link, then exit\n"
           "  --route FROM TO       print the route between two node ids (repeatable)\n"
           "  --probe-bytes N       bytes each PE moves in the platform probe (default 4194304)\n"
           "  --help                this text\n"
           "  --version             the npuvp version\n"
           "\n"
           "exit codes: 0 success, 1 the run failed, 2 bad input, 3 internal error\n";
}

CliOptions parse_cli(int argc, const char* const* argv, const std::string& default_topology) {
    CliOptions options;
    options.topology = default_topology;
    auto value = [&](int& i, const std::string& flag) -> std::string {
        if (i + 1 >= argc) bad(flag + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            options.help = true;
        } else if (arg == "--version") {
            options.version = true;
        } else if (arg == "--topology") {
            options.topology = value(i, arg);
        } else if (arg == "--set") {
            options.overrides.push_back(parse_override(value(i, arg)));
        } else if (arg == "--workload") {
            options.workload = value(i, arg);
        } else if (arg == "--trace") {
            options.trace = value(i, arg);
        } else if (arg == "--list") {
            options.list = true;
        } else if (arg == "--route") {
            const std::string from = value(i, arg);
            options.routes.emplace_back(from, value(i, arg));
        } else if (arg == "--probe-bytes") {
            const std::string text = value(i, arg);
            char* end = nullptr;
            const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || text[0] == '-' || n == 0 || n > (1ull << 40))
                bad("--probe-bytes: expected a byte count in [1, 2^40], got '" + text + "'");
            options.probe_bytes = n;
        } else {
            bad("unknown option '" + arg + "' (see --help)");
        }
    }
    return options;
}

}  // namespace npuvp
