// libFuzzer harness: `--model` before the run (docs/fuzzing.md). The input
// becomes an ONNX file's bytes, which go through what sc_main/main.cpp's
// load_model() does before simulating: the import (limits, ONNX's schema
// check, shape inference, dependency order), the greedy mapper, and the load
// of the workload it writes, against the default topology. A ModelError or a
// ConfigError is the clean rejection (npuvp's exit 2); an Overflow from the
// import or the mapper is one too, as load_model() turns it into a
// ModelError naming the file. Anything else is a finding (fuzz_common.h).
//
// Two input modes, chosen by the first byte:
//   - 'G': the rest drives a generator (FuzzedDataProvider) that builds a
//     ModelProto which parses, so the fuzzer reaches past the parser: graphs
//     with bad and huge shapes, cycles, missing and duplicated tensors,
//     unknown ops and domains, attributes of the wrong type or size, bad
//     initializer data, opsets out of range, and now and then a graph at the
//     node limit; and it picks --batch, and the topology (default, or
//     two_sip with 1 to 4 cubes for --map-cubes);
//   - anything else: the bytes are the file (a protobuf ModelProto: the
//     seeds are ONNX files). 'G' (0x47) cannot start a ModelProto (field 8,
//     wire type 7 does not exist), so no real file is lost to the generator.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "fuzz/fuzz_common.h"
#include "model/mapper.h"
#include "model/onnx_import.h"
#include "modules/common/checked.h"
#include "platform/impl_registry.h"

NPUVP_FUZZ_SC_MAIN_STUB

namespace {

using npuvp::model::ModelError;

constexpr const char* kFile = "fuzz.onnx";

// What the generator picks from: the values that find edge cases (zero,
// one, powers of two, beyond 32 and 40 bits, the extremes, negatives).
constexpr std::int64_t kInts[] = {0,        1,        2,         3,        4,          7,
                                  8,        16,       64,        128,      224,        1000,
                                  4096,     65536,    1ll << 31, 1ll << 32, 1ll << 40, 1ll << 62,
                                  std::numeric_limits<std::int64_t>::max(), -1, -2,
                                  std::numeric_limits<std::int64_t>::min()};
constexpr std::int64_t kDims[] = {1, 1, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256};
constexpr std::int64_t kBadDims[] = {0, -1, 1ll << 20, 1ll << 31, 1ll << 40, std::numeric_limits<std::int64_t>::max()};
constexpr std::int32_t kTypes[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT, onnx::TensorProto::INT64,
                                   onnx::TensorProto::INT32, onnx::TensorProto::INT8,  onnx::TensorProto::FLOAT16,
                                   onnx::TensorProto::BOOL,  onnx::TensorProto::STRING, onnx::TensorProto::UNDEFINED,
                                   onnx::TensorProto::COMPLEX64, 99};
constexpr const char* kAttributes[] = {
    "axis",      "axes",       "perm",     "group",     "kernel_shape", "strides",   "pads",
    "dilations", "transA",     "transB",   "alpha",     "beta",         "epsilon",   "keepdims",
    "to",        "value",      "split",    "mode",      "auto_pad",     "min",       "max",
    "allowzero", "ceil_mode",  "starts",   "ends",      "value_ints",   "value_float", "approximate",
    "noop_with_empty_axes",   "count_include_pad", "bogus"};
// Operators npuvp does not map, and names no schema has.
constexpr const char* kOtherOps[] = {"Hardmax", "Loop", "If", "Scan", "ConstantOfShape", "Range", "Tile", "NoSuchOp", ""};
constexpr std::int64_t kOpsets[] = {17, 17, 17, 13, 11, 7, 1, 0, -1, 18, 1001, 1ll << 40};

class Generator {
public:
    explicit Generator(FuzzedDataProvider& p) : p(p) {}

    // True once in `n`; false when the bytes have run out (FuzzedDataProvider
    // then gives the range's minimum), so a short input is a plain model
    // and its rare branches take bytes to reach.
    static bool rare(FuzzedDataProvider& p, int n) { return p.ConsumeIntegralInRange<int>(1, n) == n; }
    bool rare(int n) { return rare(p, n); }

    std::string model(npuvp::model::ImportOptions& import) {
        onnx::ModelProto m;
        m.set_ir_version(rare(16) ? p.ConsumeIntegralInRange<std::int64_t>(-1, 12) : 8);
        if (!rare(16)) {
            auto* op = m.add_opset_import();
            op->set_domain(rare(8) ? "ai.onnx" : "");
            op->set_version(p.PickValueInArray(kOpsets));
        }
        onnx::GraphProto* g = m.mutable_graph();
        g->set_name(name_text("g"));
        const int inputs = p.ConsumeIntegralInRange<int>(0, 4);
        for (int i = 0; i < inputs; ++i) value(g->add_input(), "x" + std::to_string(i), true);
        const int weights = p.ConsumeIntegralInRange<int>(0, 5);
        for (int i = 0; i < weights; ++i) {
            auto* t = g->add_initializer();
            tensor(t);
            t->set_name("w" + std::to_string(i));
            names.push_back(t->name());
            // Now and then a weight that is also a graph input (ONNX allows it).
            if (rare(8)) value(g->add_input(), t->name(), false);
        }
        const int nodes = rare(256) ? big_count() : p.ConsumeIntegralInRange<int>(0, 24);
        const bool chain = nodes > 24;
        for (int i = 0; i < nodes; ++i) {
            if (chain) {
                // A long chain of one cheap op: the node limit and the cost
                // of mapping and loading a large network.
                auto* n = g->add_node();
                n->set_op_type("Relu");
                n->add_input(i == 0 ? (names.empty() ? "x0" : names.front()) : "c" + std::to_string(i - 1));
                n->add_output("c" + std::to_string(i));
                continue;
            }
            node(g->add_node(), i, nodes);
        }
        if (chain && nodes > 0) names.push_back("c" + std::to_string(nodes - 1));
        const int infos = p.ConsumeIntegralInRange<int>(0, 3);
        for (int i = 0; i < infos; ++i) value(g->add_value_info(), some_name(), true);
        const int outputs = p.ConsumeIntegralInRange<int>(0, 3);
        for (int i = 0; i < outputs; ++i) value(g->add_output(), some_name(), p.ConsumeBool());
        const int batch = p.ConsumeIntegralInRange<int>(0, 3);
        import.batch = batch == 0 ? 0 : batch == 1 ? 1 : batch == 2 ? 4 : p.PickValueInArray(kInts);
        std::string bytes;
        m.SerializeToString(&bytes);
        // Now and then cut short: a truncated file.
        if (rare(32) && !bytes.empty())
            bytes.resize(p.ConsumeIntegralInRange<std::size_t>(0, bytes.size() - 1));
        return bytes;
    }

private:
    // One beyond the node limit (refused before anything else), or a long
    // chain inside it. Not the limit itself: a 10 000-node model maps and
    // loads in seconds under the sanitizers, and the mutants of one such
    // input kept the fuzzer at a few executions per second (and its memory
    // at its peak); bad_input_test and model_import_test run it once. The
    // chain stops at 100 nodes: mapping and loading a chain is one loop per
    // layer, so a longer one reaches no new code, and chains of up to 1,000
    // (a 300 KB mapped workload, 0.8 s under the sanitizers) were an eighth
    // of the corpus and all but its whole cost (docs/fuzzing.md, run 14).
    int big_count() {
        return rare(4) ? npuvp::model::ImportLimits::nodes + 1 : p.ConsumeIntegralInRange<int>(25, 100);
    }

    std::int64_t some_int() {
        if (p.ConsumeBool()) return p.PickValueInArray(kInts);
        const std::int64_t v = p.ConsumeIntegralInRange<std::int64_t>(0, 304);
        return v <= 300 ? v + 1 : 300 - v;  // 1 ... 301, then -1 ... -4
    }
    std::int64_t some_dim() {
        if (rare(8)) return p.PickValueInArray(kBadDims);
        return rare(4) ? some_int() : p.PickValueInArray(kDims);
    }

    // A name: usually `base`, sometimes empty, very long, or with control bytes.
    std::string name_text(const std::string& base) {
        switch (p.ConsumeIntegralInRange<int>(0, 31)) {
        case 31: return "";
        case 30: return std::string(npuvp::model::ImportLimits::name_bytes + 1, 'n');
        case 29: return base + "\n- {evil: yaml}\r\t\x01";
        case 28: return base + " (" + base + ")'";
        default: return base;
        }
    }

    // A tensor name a node or output refers to: one that exists, an output
    // of a later node (a cycle, or just out of order), one nothing makes, or
    // none (an omitted optional input).
    std::string some_name() {
        const int what = p.ConsumeIntegralInRange<int>(0, 15);
        if (what == 15) return "";
        if (what == 14) return "missing" + std::to_string(p.ConsumeIntegralInRange<int>(0, 2));
        if (what == 13) return "t" + std::to_string(p.ConsumeIntegralInRange<int>(0, 30)) + "_0";
        if (names.empty()) return "x0";
        return names[p.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)];
    }

    void shape(onnx::TypeProto_Tensor* t) {
        auto* s = t->mutable_shape();
        const int rank = rare(64) ? p.ConsumeIntegralInRange<int>(30, 40)
                                                                  : p.ConsumeIntegralInRange<int>(0, 5);
        for (int d = 0; d < rank; ++d) {
            auto* dim = s->add_dim();
            switch (p.ConsumeIntegralInRange<int>(0, 15)) {
            case 15: dim->set_dim_param(d == 0 ? "N" : "S" + std::to_string(d)); break;
            case 14: break;  // neither: unknown
            default: dim->set_dim_value(some_dim());
            }
        }
    }

    void value(onnx::ValueInfoProto* v, const std::string& name, bool keep) {
        v->set_name(name);
        if (keep) names.push_back(name);
        if (rare(16)) return;  // no type
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(rare(4) ? p.PickValueInArray(kTypes) : onnx::TensorProto::FLOAT);
        if (!rare(8)) shape(t);
    }

    void tensor(onnx::TensorProto* t) {
        t->set_data_type(p.ConsumeIntegralInRange<int>(0, 2) == 0 ? onnx::TensorProto::INT64 : p.PickValueInArray(kTypes));
        const int rank = rare(64) ? 33 : p.ConsumeIntegralInRange<int>(0, 4);
        std::uint64_t elements = 1;
        for (int d = 0; d < rank; ++d) {
            const std::int64_t dim = some_dim();
            t->add_dims(dim);
            elements = npuvp::sat_mul(elements, dim < 0 ? 0 : static_cast<std::uint64_t>(dim));
        }
        switch (p.ConsumeIntegralInRange<int>(0, 5)) {
        case 0: break;  // shape only
        case 1:         // one int64 per element (a Reshape's target, Split's sizes), or a wrong count
        {
            const std::uint64_t count = p.ConsumeBool() && elements <= 16 ? elements : p.ConsumeIntegralInRange<int>(0, 8);
            for (std::uint64_t i = 0; i < count; ++i) t->add_int64_data(some_int());
            break;
        }
        case 2: {  // as many bytes as the dims need, or any number
            const std::uint64_t need = npuvp::sat_mul(elements, 8);
            const std::size_t n = !rare(4) && need <= 256 ? need : p.ConsumeIntegralInRange<std::size_t>(0, 64);
            std::string raw = p.ConsumeBytesAsString(n);
            raw.resize(n, '\x01');
            // The data type's element size, when the dims fit 256 bytes of int64.
            if (n == need) raw.resize(n / 8 * (t->data_type() == onnx::TensorProto::INT64 ? 8 : t->data_type() == onnx::TensorProto::FLOAT ? 4 : 1));
            t->set_raw_data(raw);
            break;
        }
        case 3: {
            const std::uint64_t count = p.ConsumeBool() && elements <= 16 ? elements : p.ConsumeIntegralInRange<int>(0, 8);
            for (std::uint64_t i = 0; i < count; ++i) t->add_float_data(p.ConsumeFloatingPoint<float>());
            break;
        }
        case 4: t->set_data_location(onnx::TensorProto::EXTERNAL); break;
        default: t->add_string_data("s");
        }
    }

    void attribute(onnx::AttributeProto* a) {
        a->set_name(p.PickValueInArray(kAttributes));
        const int type = p.ConsumeIntegralInRange<int>(0, 8);
        switch (type) {
        case 0: a->set_type(onnx::AttributeProto::INT); a->set_i(some_int()); break;
        case 1:
        case 2: {
            a->set_type(onnx::AttributeProto::INTS);
            const int n = rare(64) ? npuvp::model::ImportLimits::attribute_values + 1
                                                                   : p.ConsumeIntegralInRange<int>(0, 8);
            for (int i = 0; i < n; ++i) a->add_ints(i < 8 ? some_int() : 1);
            break;
        }
        case 3: a->set_type(onnx::AttributeProto::FLOAT); a->set_f(p.ConsumeFloatingPoint<float>()); break;
        case 4: a->set_type(onnx::AttributeProto::STRING); a->set_s(p.PickValueInArray(kAttributes)); break;
        case 5: a->set_type(onnx::AttributeProto::TENSOR); tensor(a->mutable_t()); break;
        case 6: {
            a->set_type(onnx::AttributeProto::GRAPH);
            auto* sub = a->mutable_g();
            sub->set_name("sub");
            sub->add_node()->set_op_type("Relu");
            break;
        }
        case 7: a->set_type(onnx::AttributeProto::INT); break;  // declared, no value set
        default: a->set_i(some_int()); break;                    // a value, no type
        }
    }

    void node(onnx::NodeProto* n, int index, int count) {
        const auto& ops = npuvp::model::supported_ops();
        const bool other = rare(16);
        const std::string op = other ? p.PickValueInArray(kOtherOps) : ops[p.ConsumeIntegralInRange<std::size_t>(0, ops.size() - 1)];
        n->set_op_type(op);
        if (rare(32)) n->set_domain(p.ConsumeBool() ? "com.example" : "ai.onnx");
        if (p.ConsumeBool()) n->set_name(name_text(op + std::to_string(index)));
        const int ins = rare(16) ? p.ConsumeIntegralInRange<int>(0, 6)
                                                                  : (op == "Conv" || op == "MatMul" || op == "Gemm" || op == "Add" ||
                                                                     op == "Mul" || op == "Reshape" || op == "Expand")
                                                                        ? 2 + p.ConsumeIntegralInRange<int>(0, 1)
                                                                        : 1;
        for (int i = 0; i < ins; ++i) {
            // Mostly the latest tensors (a chain), so deep graphs arise.
            if (!names.empty() && !rare(4))
                n->add_input(names[names.size() - 1 - p.ConsumeIntegralInRange<std::size_t>(0, std::min<std::size_t>(2, names.size() - 1))]);
            else
                n->add_input(some_name());
        }
        const int outs = rare(16) ? p.ConsumeIntegralInRange<int>(0, 3) : 1;
        for (int i = 0; i < outs; ++i) {
            // Usually a fresh name; sometimes one that exists (a second producer).
            const std::string out = rare(16) ? some_name()
                                                                              : "t" + std::to_string(index) + "_" + std::to_string(i);
            n->add_output(out);
            names.push_back(out);
        }
        const int attrs = p.ConsumeIntegralInRange<int>(0, 3);
        for (int i = 0; i < attrs; ++i) attribute(n->add_attribute());
        (void)count;
    }

    FuzzedDataProvider& p;
    std::vector<std::string> names;
};

const npuvp::TopologyConfig& topology(const std::string& name) {
    using namespace npuvp;
    static const TopologyConfig default_topo =
        load_topology_file(fuzz::source_dir() + "/configs/topologies/default.yaml", {}, builtin_registry());
    static const TopologyConfig two_sip =
        load_topology_file(fuzz::source_dir() + "/configs/topologies/two_sip.yaml", {}, builtin_registry());
    return name == "two_sip" ? two_sip : default_topo;
}

// What sc_main/main.cpp's load_model() does with --model before the run.
void import_map_load(const std::string& bytes, const npuvp::model::ImportOptions& import,
                     const npuvp::TopologyConfig& topo, int cubes) {
    using namespace npuvp;
    model::Network net;
    try {
        net = model::import_onnx_bytes(bytes, kFile, import);
    } catch (const Overflow& e) {
        throw ModelError(kFile, "", "", e.what());
    }
    model::MapOptions options;
    options.cubes = cubes;
    model::Mapping mapping;
    try {
        mapping = model::mappers().at("builtin.greedy_mapper")(net, topo, options);
    } catch (const Overflow& e) {
        throw ModelError(kFile, "", "", e.what());
    }
    (void)load_workload_text(mapping.workload_yaml, std::string(kFile) + " (mapped by builtin.greedy_mapper)", topo);
}

// NPUVP_FUZZ_MODEL_STATS=1: at exit, how the inputs ended (mapped and
// loaded, or the start of the rejection's message), per mode, to stderr: is
// the generator reaching the mapper, or stopping at the first checks?
struct Stats {
    bool on = std::getenv("NPUVP_FUZZ_MODEL_STATS") != nullptr;
    std::map<std::string, std::uint64_t> ends;
    void add(bool generated, const std::string& end) {
        if (!on) return;
        std::string key = end;
        // The message without the file, node names and numbers: its kind.
        if (key.rfind(kFile, 0) == 0) key = key.substr(std::strlen(kFile));
        const std::size_t node = key.find("): ");
        if (key.rfind(": node '", 0) == 0 && node != std::string::npos) key = key.substr(node + 3);
        std::string kind;
        for (char c : key.substr(0, 48)) kind += std::isdigit(static_cast<unsigned char>(c)) ? '#' : c;
        ++ends[std::string(generated ? "G " : "raw ") + kind];
    }
    ~Stats() {
        if (!on) return;
        std::vector<std::pair<std::uint64_t, std::string>> sorted;
        for (const auto& [k, n] : ends) sorted.emplace_back(n, k);
        std::sort(sorted.rbegin(), sorted.rend());
        for (const auto& [n, k] : sorted) std::fprintf(stderr, "%10llu  %s\n", static_cast<unsigned long long>(n), k.c_str());
    }
};
Stats stats;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace npuvp;
    std::string bytes;
    model::ImportOptions import;
    const TopologyConfig* topo = &topology("default");
    int cubes = 1;
    if (size > 0 && data[0] == 'G') {  // as `generated` below
        FuzzedDataProvider p(data + 1, size - 1);
        if (Generator::rare(p, 8)) {
            topo = &topology("two_sip");
            cubes = p.ConsumeIntegralInRange<int>(1, topo->system.sips * topo->system.cubes_per_sip);
        }
        bytes = Generator(p).model(import);
    } else {
        bytes.assign(reinterpret_cast<const char*>(data), size);
    }
    const bool generated = size > 0 && data[0] == 'G';
    // NPUVP_FUZZ_MODEL_SAVE=FILE: the ONNX bytes the input became, to read
    // a generated model with ONNX's tools (reproducing a finding).
    if (const char* save = std::getenv("NPUVP_FUZZ_MODEL_SAVE")) {
        std::ofstream out(save, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    fuzz::guarded("model", data, size, [&] {
        try {
            import_map_load(bytes, import, *topo, cubes);
            stats.add(generated, "mapped and loaded");
        } catch (const model::ModelError& e) {
            stats.add(generated, e.what());
        } catch (const ConfigError& e) {
            stats.add(generated, std::string("ConfigError: ") + e.what());
            throw;
        }
    });
    return 0;
}
