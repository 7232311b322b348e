#include "sc_main/cli.h"

#include <cstdlib>
#include <filesystem>

#include "config/config_error.h"
#include "report/fst_writer.h"

namespace npuvp {
namespace {

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError({"command line", 0, 0, ""}, message);
}

// "1234.5" ns -> 1234500 ps: digits, optionally a point and up to three
// decimals (ps, the resolution); false for anything else.
bool parse_ns(const std::string& text, std::uint64_t& ps) {
    const std::size_t dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    const std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || whole.size() > 12 || frac.size() > 3 || (dot != std::string::npos && frac.empty()))
        return false;
    for (char c : whole + frac)
        if (c < '0' || c > '9') return false;
    ps = std::stoull(whole) * 1000 + (frac.empty() ? 0 : std::stoull(frac + std::string(3 - frac.size(), '0')));
    return true;
}

// --detail-window FROM_NS:TO_NS; an end left out is the run's start or end.
void parse_detail_window(const std::string& text, obs::DetailOptions& detail) {
    const std::size_t colon = text.find(':');
    auto fail = [&] {
        bad("--detail-window: expected FROM_NS:TO_NS (ns, up to three decimals; an end may be left "
            "out), got '" + text + "'");
    };
    if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) fail();
    const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
    detail.from_ps = 0;
    detail.to_ps = obs::open_end;
    if (!from.empty() && !parse_ns(from, detail.from_ps)) fail();
    if (!to.empty() && !parse_ns(to, detail.to_ps)) fail();
    if (detail.to_ps <= detail.from_ps) bad("--detail-window: the window '" + text + "' is empty (FROM must be below TO)");
}

}  // namespace

const char* cli_usage() {
    return "usage: npuvp [options]\n"
           "       npuvp sweep run|collect|point|task ...   (design-space sweeps: npuvp sweep --help)\n"
           "       npuvp map MODEL.onnx --out FILE [--topology T] [--set K=V] [--batch N] [--mapper M]\n"
           "       npuvp trace-to-json TRACE.bin --out FILE   (a --trace-binary trace as --trace's JSON lines)\n"
           "       npuvp calibrate MEASUREMENTS.csv --fit KEY=LO:HI... --out FILE   (fit keys to measured ns;\n"
           "                        npuvp calibrate --help)\n"
           "       npuvp serve SCENARIO.yaml [--topology T] [--exact] [--csv F] [--summary F]   (serve a\n"
           "                        language model to requests: npuvp serve --help)\n"
           "\n"
           "Runs the npuvp virtual platform on a topology and prints its summary.\n"
           "\n"
           "options:\n"
           "  --topology FILE       topology YAML (default: configs/topologies/default.yaml)\n"
           "  --set KEY.PATH=VALUE  override one topology attribute (repeatable), e.g.\n"
           "                        --set cube.noc.attrs.link_bw_gbs=128\n"
           "  --workload FILE       run a workload YAML (kernels launched on PEs); without\n"
           "                        it, npuvp runs the platform probe\n"
           "  --model FILE.onnx     map an ONNX model onto the topology and run it\n"
           "                        (docs/models.md); npuvp map MODEL --out FILE writes\n"
           "                        the mapped workload\n"
           "  --batch N             a model's symbolic batch dimension; with --llm, the\n"
           "                        sequences of the step (default 1)\n"
           "  --llm FILE.yaml       run one step of a language model (docs/llm.md):\n"
           "                        --phase decode|prefill|mixed (default decode), --context N\n"
           "                        (decode: tokens already cached; prefill: the prompt;\n"
           "                        default 128), --llm-layers N (the first N layers only),\n"
           "                        mixed: --batch sequences decoding at --context and a\n"
           "                        prefill chunk: --chunk N tokens of --chunk-prompts K\n"
           "                        prompts (default 1) with --chunk-past P cached (default 0),\n"
           "                        --tensor-parallel N (the weights split over N cards,\n"
           "                        all-reduces between them: --all-reduce ring|tree)\n"
           "  --mapper NAME         the mapping policy (default builtin.greedy_mapper)\n"
           "  --map-cubes N         pipeline the model's layers over N cubes (default 1)\n"
           "  --no-patterns         map every node as the model spells it: no GELU, SiLU,\n"
           "                        RMSNorm or rotary recognised as one op (docs/models.md)\n"
           "  --launch host|device|compiled\n"
           "                        how a mapped model's layers are launched (default host:\n"
           "                        each when its inputs' responses are back at the host;\n"
           "                        device: all at once, each cube's M_CPU holding a layer\n"
           "                        until its inputs are written; compiled: one kernel per\n"
           "                        PE holding every layer, PEs meeting at a barrier between\n"
           "                        layers, one cube; docs/models.md)\n"
           "  --no-prefetch         a compiled kernel reads each GEMM's weights per token\n"
           "                        instead of prefetching them into TCM (docs/models.md)\n"
           "  --trace FILE          write trace events as JSON lines to FILE\n"
           "  --trace-binary FILE   write the same events in a compact binary form to FILE\n"
           "                        (a tenth of the bytes; npuvp trace-to-json converts it)\n"
           "  --summary FILE        write the run's summary as JSON to FILE\n"
           "  --timeline FILE       with --workload: write a Chrome trace-event timeline\n"
           "                        (open in ui.perfetto.dev or chrome://tracing)\n"
           "  --svg FILE            with --workload: write the schedule as an SVG picture\n"
           "  --roofline FILE       with --workload or --model: write the roofline (SVG), the run,\n"
           "                        each layer and each command against their roofs\n"
           "  --report FILE         with --workload: write the report as JSON (.json) or\n"
           "                        Markdown (.md)\n"
           "  --detail-window FROM_NS:TO_NS\n"
           "                        keep tile detail (a slice per engine interval) in the\n"
           "                        outputs only for this window (either end may be left\n"
           "                        out); the whole run is aggregated per engine anyway\n"
           "  --detail-slices N     keep at most N engine intervals as tile detail\n"
           "                        (default 100000; 0: none); past it, the window ends\n"
           "  --max-tokens N        stop the run once N tiles have been fed (a partial\n"
           "                        report, exit 1)\n"
           "  --max-sim-time NS     stop the run at this simulated time (a partial report,\n"
           "                        exit 1; default 2^62 ps)\n"
           "  --power-window NS     the window of the peak power the run reports (ns, up to\n"
           "                        three decimals; default 1000)\n"
           "  --vcd FILE            write waveforms (ps time base) for GTKWave: VCD, or FST\n"
           "                        (compressed, for long runs) for a FILE ending in .fst;\n"
           "                        and a save file FILE.gtkw beside it, with a filter\n"
           "                        file per PE naming its commands\n"
           "  --vcd-filter GLOB     trace only nodes whose id matches GLOB (repeatable),\n"
           "                        e.g. 'sip0.cube0.pe0*'\n"
           "  --vcd-rtl FILE        write the RTL blocks' internal signals (impl: rtl.*,\n"
           "                        Verilator tracing; VCD, ps time base as --vcd)\n"
           "  --dump-dir DIR        write a data-mode workload's relative `dump` files under\n"
           "                        DIR (an existing folder) instead of the current one\n"
           "  --compare W1 W2 ...   run each workload as a variant (same topology and\n"
           "                        --set) and print makespans and per-context busy /\n"
           "                        wait side by side\n"
           "  --compare-set \"K=V ...\"  a variant of --workload with these extra --set\n"
           "                        overrides (repeatable; compared side by side)\n"
           "  --list                print the elaborated tree: every node and link, then exit\n"
           "  --route FROM TO       print the route between two node ids (repeatable)\n"
           "  --probe-bytes N       bytes each PE moves in the platform probe (default 4194304)\n"
           "  --per-stage           run every PE's pipeline as kernel processes, one event\n"
           "                        per stage (same times; slower): no decoupled pipeline\n"
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
    // A signed integer option's value in [low, high]; else "FLAG: expected
    // WHAT, got 'TEXT'" (WHAT says the range).
    auto integer = [&](int& i, const std::string& flag, long long low, long long high, const std::string& what) {
        const std::string text = value(i, flag);
        char* end = nullptr;
        const long long n = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || n < low || n > high) bad(flag + ": expected " + what + ", got '" + text + "'");
        return n;
    };
    std::string llm_only;  // an option that means something with --llm only
    bool launch_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            options.help = true;
        } else if (arg == "--version") {
            options.version = true;
        } else if (arg == "--topology") {
            options.topology = value(i, arg);
        } else if (arg == "--set") {
            options.set_texts.push_back(value(i, arg));
            options.overrides.push_back(parse_override(options.set_texts.back()));
        } else if (arg == "--workload") {
            options.workload = value(i, arg);
        } else if (arg == "--model") {
            options.model = value(i, arg);
        } else if (arg == "--llm") {
            options.model = value(i, arg);
            options.llm = true;
        } else if (arg == "--phase") {
            llm_only = arg;
            const std::string text = value(i, arg);
            if (text != "decode" && text != "prefill" && text != "mixed")
                bad("--phase: expected decode, prefill or mixed, got '" + text + "'");
            options.prefill = text == "prefill";
            options.mixed = text == "mixed";
        } else if (arg == "--chunk") {
            llm_only = arg;
            options.chunk = static_cast<std::uint64_t>(integer(i, arg, 1, 1ll << 24, "tokens in [1, 16777216]"));
        } else if (arg == "--chunk-prompts") {
            llm_only = arg;
            options.chunk_prompts = static_cast<std::uint64_t>(integer(i, arg, 1, 1ll << 20, "prompts in [1, 2^20]"));
        } else if (arg == "--chunk-past") {
            llm_only = arg;
            options.chunk_past = static_cast<std::uint64_t>(integer(i, arg, 0, 1ll << 24, "tokens in [0, 16777216]"));
        } else if (arg == "--context") {
            llm_only = arg;
            options.context = static_cast<std::uint64_t>(integer(i, arg, 0, 1ll << 24, "tokens in [0, 16777216]"));
        } else if (arg == "--tensor-parallel") {
            llm_only = arg;
            options.tensor_parallel = static_cast<int>(integer(i, arg, 1, 4096, "a card count in [1, 4096]"));
        } else if (arg == "--all-reduce") {
            llm_only = arg;
            const std::string text = value(i, arg);
            if (text != "ring" && text != "tree") bad("--all-reduce: expected ring or tree, got '" + text + "'");
            options.all_reduce_tree = text == "tree";
        } else if (arg == "--llm-layers") {
            llm_only = arg;
            options.llm_layers = static_cast<int>(integer(i, arg, 1, 4096, "layers in [1, 4096]"));
        } else if (arg == "--batch") {
            options.batch = integer(i, arg, 1, 1ll << 20, "a batch size in [1, 2^20]");
        } else if (arg == "--mapper") {
            options.mapper = value(i, arg);
        } else if (arg == "--map-cubes") {
            options.map_cubes = static_cast<int>(integer(i, arg, 1, 4096, "a cube count in [1, 4096]"));
        } else if (arg == "--no-patterns") {
            options.patterns = false;
        } else if (arg == "--no-prefetch") {
            options.prefetch = false;
        } else if (arg == "--launch") {
            const std::string text = value(i, arg);
            if (text != "host" && text != "device" && text != "compiled")
                bad("--launch: expected host, device or compiled, got '" + text + "'");
            options.device_queue = text == "device";
            options.compiled = text == "compiled";
            launch_given = true;
        } else if (arg == "--vcd") {
            options.vcd = value(i, arg);
            const std::string ext = options.vcd->size() < 5 ? "" : options.vcd->substr(options.vcd->size() - 4);
            if (ext != ".vcd" && ext != ".fst")
                bad("--vcd: the file name must end in .vcd or .fst, got '" + *options.vcd + "'");
            if (ext == ".fst" && !fst_built())
                bad("--vcd: this npuvp was built without FST (install verilator and zlib1g-dev, "
                    "tools/bootstrap.sh, and configure again), so '" + *options.vcd + "' cannot be written");
        } else if (arg == "--vcd-filter") {
            options.vcd_filter.push_back(value(i, arg));
        } else if (arg == "--vcd-rtl") {
            options.vcd_rtl = value(i, arg);
            if (options.vcd_rtl->size() < 5 ||
                options.vcd_rtl->substr(options.vcd_rtl->size() - 4) != ".vcd")
                bad("--vcd-rtl: the file name must end in .vcd, got '" + *options.vcd_rtl + "'");
        } else if (arg == "--dump-dir") {
            options.dump_dir = value(i, arg);
            if (!std::filesystem::is_directory(*options.dump_dir))
                bad("--dump-dir: the folder '" + *options.dump_dir + "' does not exist");
        } else if (arg == "--summary") {
            options.summary = value(i, arg);
        } else if (arg == "--compare") {
            while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0)
                options.compare.push_back(argv[++i]);
            if (options.compare.size() < 2) bad("--compare needs at least two workload files");
        } else if (arg == "--compare-set") {
            const std::string text = value(i, arg);
            std::size_t start = 0;
            while (start < text.size()) {  // every word must be a valid override
                const std::size_t end = text.find(' ', start);
                const std::string word = text.substr(start, end - start);
                if (!word.empty()) parse_override(word);
                if (end == std::string::npos) break;
                start = end + 1;
            }
            options.compare_sets.push_back(text);
        } else if (arg == "--timeline") {
            options.timeline = value(i, arg);
        } else if (arg == "--svg") {
            options.svg = value(i, arg);
        } else if (arg == "--roofline") {
            options.roofline = value(i, arg);
        } else if (arg == "--report") {
            options.report = value(i, arg);
            const std::string& r = *options.report;
            auto ends = [&](const std::string& x) {
                return r.size() >= x.size() && r.compare(r.size() - x.size(), x.size(), x) == 0;
            };
            if (!ends(".json") && !ends(".md"))
                bad("--report: '" + r + "' must end in .json or .md (the format)");
        } else if (arg == "--detail-window") {
            parse_detail_window(value(i, arg), options.detail);
        } else if (arg == "--max-tokens") {
            const std::string text = value(i, arg);
            char* end = nullptr;
            const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || text[0] == '-' || text.size() > 18 || n == 0)
                bad("--max-tokens: expected a count of tiles in [1, 10^18), got '" + text + "'");
            options.max_tokens = n;
        } else if (arg == "--max-sim-time") {
            const std::string text = value(i, arg);
            if (!parse_ns(text, options.max_sim_ps) || options.max_sim_ps == 0 ||
                options.max_sim_ps > kLongestRunPs)
                bad("--max-sim-time: expected a time in ns above 0 and at most 2^62 ps (up to three decimals), got '" +
                    text + "'");
            options.max_sim_given = true;
        } else if (arg == "--power-window") {
            const std::string text = value(i, arg);
            if (!parse_ns(text, options.power_window_ps) || options.power_window_ps == 0)
                bad("--power-window: expected a window in ns above 0 (up to three decimals), got '" + text + "'");
        } else if (arg == "--detail-slices") {
            const std::string text = value(i, arg);
            char* end = nullptr;
            const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || text[0] == '-' || text.size() > 18)
                bad("--detail-slices: expected a count of engine intervals (0 or more), got '" + text + "'");
            options.detail.max_slices = n;
        } else if (arg == "--trace") {
            options.trace = value(i, arg);
        } else if (arg == "--trace-binary") {
            options.trace_binary = value(i, arg);
        } else if (arg == "--list") {
            options.list = true;
        } else if (arg == "--per-stage") {
            options.per_stage = true;
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
    if (options.model && options.workload) bad(std::string("give --workload or ") + (options.llm ? "--llm" : "--model") + ", not both");
    if (!llm_only.empty() && !options.llm) bad(llm_only + " applies to --llm runs only (docs/llm.md)");
    if (!options.patterns && !options.model) bad("--no-patterns applies to --model and --llm runs (and npuvp map)");
    if (!options.prefetch && !options.compiled)
        bad("--no-prefetch applies to compiled kernels (--launch compiled with --model or --llm, and npuvp map)");
    if (launch_given && !options.model) bad("--launch applies to --model and --llm runs (and npuvp map)");
    if (options.mixed != (options.chunk > 0))
        bad(options.mixed ? "--phase mixed needs --chunk N (the prefill chunk's tokens a prompt)"
                          : "--chunk applies to --phase mixed (a decode step with a prefill chunk)");
    if (options.tensor_parallel > 1 && options.map_cubes > 1)
        bad("--tensor-parallel with --map-cubes: pipeline and tensor parallelism together are not built "
            "(docs/llm.md \"Several cards\")");
    if (options.trace && options.trace_binary)
        bad("give --trace or --trace-binary, not both (npuvp trace-to-json turns the binary into the JSON lines)");
    if (options.model && (!options.compare.empty() || !options.compare_sets.empty()))
        bad("--compare runs workload files: map the model first (npuvp map MODEL --out FILE)");
    if (!options.compare_sets.empty() && !options.workload)
        bad("--compare-set varies --workload: give one");
    if (options.compare_sets.size() == 1) bad("--compare-set needs at least two variants");
    return options;
}

}  // namespace npuvp
