#include "model/onnx_import.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <unordered_map>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "modules/common/checked.h"

namespace npuvp::model {

namespace {

// protobuf refuses messages over 2 GiB; a shape-only model is kilobytes.
constexpr std::uintmax_t kMaxModelBytes = ImportLimits::file_bytes;
// Where each bound is explained.
const std::string kLimitsDoc = " (docs/models.md \"Limits\")";

// Bytes of one element of a fixed-size ONNX type; 0 for STRING, UNDEFINED
// and types this libonnx does not know (their data is not checked).
std::uint64_t fixed_size(std::int32_t type) {
    switch (type) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::BOOL: return 1;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16: return 2;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64: return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return 0;
    }
}

// The element size a tensor's bytes are counted with: fixed_size(), and 8
// for the rest (strings, complex128, unknown types: only sizes use it).
int elem_bytes(std::int32_t type) {
    const std::uint64_t bytes = fixed_size(type);
    return bytes == 0 || bytes > 8 ? 8 : static_cast<int>(bytes);
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// The shape of a value_info, or nothing when a dimension is not a number.
bool static_shape(const onnx::ValueInfoProto& v, TensorInfo& info) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
    const auto& t = v.type().tensor_type();
    info.elem_bytes = elem_bytes(t.elem_type());
    info.shape.clear();
    for (const auto& d : t.shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return false;
        info.shape.push_back(d.dim_value());
    }
    return true;
}

// Fixes graph inputs' symbolic first dimension to options.batch; any other
// symbolic dimension is a dynamic shape (an error).
void fix_batch(onnx::ModelProto& m, const std::string& file, const ImportOptions& options,
               const std::set<std::string>& initializers) {
    for (auto& input : *m.mutable_graph()->mutable_input()) {
        if (initializers.count(input.name())) continue;
        if (!input.type().has_tensor_type()) continue;
        auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        for (int i = 0; i < shape->dim_size(); ++i) {
            auto* d = shape->mutable_dim(i);
            if (d->has_dim_value() && d->dim_value() > 0) continue;
            const std::string what = d->has_dim_param() ? "'" + d->dim_param() + "'" : "unknown";
            if (i == 0 && options.batch > 0) {
                d->set_dim_value(options.batch);
                continue;
            }
            throw ModelError(file, "", "",
                             "graph input '" + input.name() + "' has a dynamic dimension " + std::to_string(i) +
                                 " (" + what + ")" +
                                 (i == 0 ? ": give the batch size with --batch N" : ": npuvp needs static shapes"));
        }
    }
}


// "[1, 3, 224, 224]".
template <typename Dims>
std::string dims_text(const Dims& dims) {
    std::string out = "[";
    for (const auto d : dims) out += (out.size() > 1 ? ", " : "") + std::to_string(d);
    return out + "]";
}

// The version of ONNX's operator set the model imports, or -1.
std::int64_t onnx_opset(const onnx::ModelProto& m) {
    std::int64_t opset = -1;
    for (const auto& o : m.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    return opset;
}

// The import's checks of ImportLimits and of the graph's structure, before
// ONNX's schema check and shape inference see the model. `file` names it
// in every error; a node is named by its name, else "<op>_<index>".
class Checks {
public:
    Checks(const onnx::ModelProto& m, const std::string& file) : m_model(m), m_file(file) {}

    void limits() const {
        const auto& g = m_model.graph();
        if (g.node_size() > ImportLimits::nodes)
            fail("", "", "the graph has " + std::to_string(g.node_size()) + " nodes, more than the limit of " +
                             std::to_string(ImportLimits::nodes));
        const std::uint64_t values = static_cast<std::uint64_t>(g.initializer_size()) + g.input_size() +
                                     g.output_size() + g.value_info_size() + g.sparse_initializer_size();
        if (values > static_cast<std::uint64_t>(ImportLimits::values))
            fail("", "", "the graph has " + std::to_string(values) +
                             " initializers, inputs, outputs and value_info entries, more than the limit of " +
                             std::to_string(ImportLimits::values));
        name("", "", "the graph's name", g.name());
        for (const auto& t : g.initializer()) tensor("", "", "initializer '" + ModelError::shown(t.name()) + "'", t);
        for (const auto& v : g.input()) value(v, "graph input");
        for (const auto& v : g.output()) value(v, "graph output");
        for (const auto& v : g.value_info()) value(v, "value_info");
        for (int i = 0; i < g.node_size(); ++i) node(g.node(i), i);
    }

    // Each node's op is one npuvp maps, from ONNX's own domain, without a
    // subgraph, and as ONNX's schema for the model's opset defines it (its
    // inputs, outputs and attributes: OpSchema::Verify, what ONNX's checker
    // runs on a node).
    void operators() const {
        const auto& g = m_model.graph();
        const auto& ops = supported_ops();
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            const std::string who = node_name(n, i);
            if (!n.domain().empty() && n.domain() != "ai.onnx")
                fail(who, n.op_type(), "an operator of domain '" + ModelError::shown(n.domain()) +
                                           "': unsupported (npuvp maps ONNX's own operators, docs/models.md lists them)");
            if (std::find(ops.begin(), ops.end(), n.op_type()) == ops.end())
                fail(who, n.op_type(), "unsupported operator (docs/models.md lists the supported ones)");
            for (const auto& a : n.attribute())
                if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS || a.has_g() ||
                    a.graphs_size() > 0)
                    fail(who, n.op_type(), "attribute '" + ModelError::shown(a.name()) +
                                               "' holds a graph (none of the supported operators takes one)");
        }
        if (g.node_size() == 0) return;
        const std::int64_t opset = onnx_opset(m_model);
        if (opset < 1 || opset > 1000)
            fail("", "", opset < 0 ? "it imports no version of the ONNX operator set (no opset_import of domain \"\")"
                                   : "it imports version " + std::to_string(opset) +
                                         " of the ONNX operator set (versions are 1 to 1000)");
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset), "");
            if (!schema) continue;  // not in this libonnx at that opset (Gelu): shapes come from value_info
            try {
                schema->Verify(n);
            } catch (const std::exception& e) {
                fail(node_name(n, i), n.op_type(), "not a valid " + n.op_type() + " of ONNX opset " +
                                                       std::to_string(opset) + ": " + ModelError::shown(e.what(), 400));
            }
        }
    }

    // Every tensor has one producer: a graph input or initializer, or one
    // node's output; every input a node reads (and every graph output) is
    // one of those.
    void structure() const {
        const auto& g = m_model.graph();
        std::set<std::string> given;
        for (const auto& v : g.input()) given.insert(v.name());
        for (const auto& t : g.initializer()) given.insert(t.name());
        std::map<std::string, int> producer;
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            for (const std::string& out : n.output()) {
                if (out.empty()) continue;
                if (given.count(out))
                    fail(node_name(n, i), n.op_type(), "output '" + ModelError::shown(out) +
                                                           "' is also a graph input or an initializer (each tensor has one producer)");
                const auto [it, fresh] = producer.emplace(out, i);
                if (!fresh)
                    fail(node_name(n, i), n.op_type(),
                         "output '" + ModelError::shown(out) + "' is also an output of node '" +
                             ModelError::shown(node_name(g.node(it->second), it->second)) +
                             "' (each tensor has one producer)");
            }
        }
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            for (const std::string& in : n.input())
                if (!in.empty() && !given.count(in) && !producer.count(in))
                    fail(node_name(n, i), n.op_type(), "input '" + ModelError::shown(in) +
                                                           "' is missing: no node produces it, and it is not a graph "
                                                           "input or an initializer");
        }
        for (const auto& v : g.output())
            if (!given.count(v.name()) && !producer.count(v.name()))
                fail("", "", "graph output '" + ModelError::shown(v.name()) +
                                 "' is missing: no node produces it, and it is not a graph input or an initializer");
    }

    // A shape found by shape inference (or given): at most ImportLimits::rank
    // dimensions and ImportLimits::elements elements.
    static void shape(const std::string& file, const std::string& tensor, const TensorInfo& t) {
        if (t.shape.size() > static_cast<std::size_t>(ImportLimits::rank))
            throw ModelError(file, "", "", "tensor '" + ModelError::shown(tensor) + "' has " +
                                               std::to_string(t.shape.size()) + " dimensions, more than the limit of " +
                                               std::to_string(ImportLimits::rank) + kLimitsDoc);
        std::uint64_t n = 1;
        for (const std::int64_t d : t.shape) n = sat_mul(n, static_cast<std::uint64_t>(d));
        if (n > ImportLimits::elements)
            throw ModelError(file, "", "", "tensor '" + ModelError::shown(tensor) + "' of shape " + dims_text(t.shape) +
                                               " has " + (n == kSaturated ? "2^64 or more" : std::to_string(n)) +
                                               " elements, more than the limit of 2^40" + kLimitsDoc);
    }

    static std::string node_name(const onnx::NodeProto& n, int index) {
        return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    }

private:
    [[noreturn]] void fail(const std::string& node, const std::string& op, const std::string& what) const {
        throw ModelError(m_file, node, op, what + (what.find("the limit") != std::string::npos ? kLimitsDoc : ""));
    }

    void name(const std::string& node, const std::string& op, const std::string& what, const std::string& text) const {
        if (text.size() > ImportLimits::name_bytes)
            fail(node, op, what + " '" + ModelError::shown(text) + "' is " + std::to_string(text.size()) +
                               " bytes long, more than the limit of " + std::to_string(ImportLimits::name_bytes));
    }

    template <typename Repeated>
    void count(const std::string& node, const std::string& op, const std::string& what, const Repeated& r) const {
        if (r.size() > ImportLimits::attribute_values)
            fail(node, op, what + " has " + std::to_string(r.size()) + " values, more than the limit of " +
                               std::to_string(ImportLimits::attribute_values));
    }

    // An initializer or a Constant's tensor: its name, rank, dimensions
    // (none negative), elements, and data as long as its dimensions say
    // (raw_data, or one typed value per element; none at all is a shape-only
    // weight).
    void tensor(const std::string& node, const std::string& op, const std::string& what,
                const onnx::TensorProto& t) const {
        name(node, op, what + ": its name", t.name());
        if (t.dims_size() > ImportLimits::rank)
            fail(node, op, what + " has " + std::to_string(t.dims_size()) + " dimensions, more than the limit of " +
                               std::to_string(ImportLimits::rank));
        std::uint64_t n = 1;
        for (const std::int64_t d : t.dims()) {
            if (d < 0) fail(node, op, what + " has a negative dimension: " + dims_text(t.dims()));
            n = sat_mul(n, static_cast<std::uint64_t>(d));
        }
        if (n > ImportLimits::elements)
            fail(node, op, what + " of dims " + dims_text(t.dims()) + " has " +
                               (n == kSaturated ? "2^64 or more" : std::to_string(n)) +
                               " elements, more than the limit of 2^40");
        if (t.data_location() == onnx::TensorProto::EXTERNAL) return;
        const std::uint64_t size = fixed_size(t.data_type());
        if (size == 0) return;
        if (!t.raw_data().empty() && t.raw_data().size() != n * size)
            fail(node, op, what + " has " + std::to_string(t.raw_data().size()) + " bytes of raw data; its dims " +
                               dims_text(t.dims()) + " of " + std::to_string(size) + "-byte elements need " +
                               std::to_string(n * size));
        const bool complex = t.data_type() == onnx::TensorProto::COMPLEX64 || t.data_type() == onnx::TensorProto::COMPLEX128;
        const std::uint64_t values = static_cast<std::uint64_t>(t.float_data_size()) + t.int32_data_size() +
                                     t.int64_data_size() + t.double_data_size() + t.uint64_data_size();
        if (values != 0 && values != n * (complex ? 2 : 1))
            fail(node, op, what + " has " + std::to_string(values) + " data values; its dims " + dims_text(t.dims()) +
                               " need " + std::to_string(n * (complex ? 2 : 1)));
    }

    // A graph input, output or value_info: its name, and a tensor type's
    // rank, symbolic names and static elements.
    void value(const onnx::ValueInfoProto& v, const std::string& kind) const {
        const std::string what = kind + " '" + ModelError::shown(v.name()) + "'";
        name("", "", what + ": its name", v.name());
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
        const auto& shape = v.type().tensor_type().shape();
        if (shape.dim_size() > ImportLimits::rank)
            fail("", "", what + " has " + std::to_string(shape.dim_size()) + " dimensions, more than the limit of " +
                             std::to_string(ImportLimits::rank));
        std::uint64_t n = 1;
        std::vector<std::int64_t> dims;
        for (const auto& d : shape.dim()) {
            name("", "", what + ": a symbolic dimension", d.dim_param());
            dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
            if (d.has_dim_value() && d.dim_value() > 0) n = sat_mul(n, static_cast<std::uint64_t>(d.dim_value()));
        }
        if (n > ImportLimits::elements)
            fail("", "", what + " of shape " + dims_text(dims) + " has " +
                             (n == kSaturated ? "2^64 or more" : std::to_string(n)) +
                             " elements, more than the limit of 2^40");
    }

    void node(const onnx::NodeProto& n, int index) const {
        const std::string who = node_name(n, index);
        // The node's own strings first: the messages below show them.
        name("", "", "node " + std::to_string(index) + ": its name", n.name());
        name("", "", "node " + std::to_string(index) + ": its op type", n.op_type());
        name(who, n.op_type(), "its domain", n.domain());
        if (n.input_size() > ImportLimits::node_edges || n.output_size() > ImportLimits::node_edges ||
            n.attribute_size() > ImportLimits::node_edges)
            fail(who, n.op_type(), "it has " + std::to_string(n.input_size()) + " inputs, " +
                                       std::to_string(n.output_size()) + " outputs and " +
                                       std::to_string(n.attribute_size()) +
                                       " attributes; each is more than the limit of " +
                                       std::to_string(ImportLimits::node_edges));
        for (const std::string& in : n.input()) name(who, n.op_type(), "an input", in);
        for (const std::string& out : n.output()) name(who, n.op_type(), "an output", out);
        for (const auto& a : n.attribute()) {
            const std::string what = "attribute '" + ModelError::shown(a.name()) + "'";
            name(who, n.op_type(), "an attribute's name", a.name());
            name(who, n.op_type(), what + ": its string", a.s());
            count(who, n.op_type(), what, a.ints());
            count(who, n.op_type(), what, a.floats());
            count(who, n.op_type(), what, a.strings());
            count(who, n.op_type(), what, a.tensors());
            for (const std::string& s : a.strings()) name(who, n.op_type(), what + ": a string", s);
            if (a.has_t()) tensor(who, n.op_type(), what, a.t());
            for (const auto& t : a.tensors()) tensor(who, n.op_type(), what, t);
        }
    }

    const onnx::ModelProto& m_model;
    const std::string& m_file;
};

}  // namespace

std::string ModelError::shown(const std::string& name, std::size_t max) {
    std::string out;
    for (std::size_t i = 0; i < name.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (c >= 0x20 && c != 0x7f) {
            out += static_cast<char>(c);
            continue;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
    }
    if (name.size() > max) out += "... (" + std::to_string(name.size()) + " bytes)";
    return out;
}

std::uint64_t TensorInfo::elements() const {
    std::uint64_t n = 1;
    for (std::int64_t d : shape) n = checked_mul(n, static_cast<std::uint64_t>(d), "a tensor's size");
    return n;
}

std::uint64_t TensorInfo::bytes() const { return checked_mul(elements(), static_cast<std::uint64_t>(elem_bytes), "a tensor's size"); }

std::int64_t Node::attr(const std::string& key, std::int64_t fallback) const {
    const auto it = ints.find(key);
    return it == ints.end() || it->second.empty() ? fallback : it->second.front();
}

std::vector<std::int64_t> Node::attrs(const std::string& key, std::vector<std::int64_t> fallback) const {
    const auto it = ints.find(key);
    return it == ints.end() ? fallback : it->second;
}

std::string Node::text(const std::string& key, const std::string& fallback) const {
    const auto it = strings.find(key);
    return it == strings.end() ? fallback : it->second;
}

const TensorInfo& Network::tensor(const Node& node, const std::string& name) const {
    const auto it = tensors.find(name);
    if (it == tensors.end())
        throw ModelError(file, node.name, node.op, "tensor '" + name + "' has no static shape (dynamic shape)");
    return it->second;
}

const std::vector<std::string>& supported_ops() {
    static const std::vector<std::string> ops = {
        "Add", "AveragePool", "BatchNormalization", "Concat", "Constant", "Conv", "Div", "Dropout",
        "Erf", "Flatten", "Gather", "Gelu", "Gemm", "GlobalAveragePool", "Identity",
        "LayerNormalization", "LeakyRelu", "MatMul", "MaxPool", "Mul", "ReduceMean", "Relu",
        "Reshape", "Sigmoid", "Slice", "Softmax", "Split", "Sqrt", "Squeeze", "Sub", "Tanh",
        "Transpose", "Unsqueeze", "Pow", "Cast", "Shape",
        // issue 39 point 9: what MobileNet, EfficientNet and decoder layers add
        "Clip", "Neg", "HardSigmoid", "HardSwish", "Max", "Min", "Where", "ReduceSum", "ReduceMax", "Expand",
        "Pad", "Resize", "ConvTranspose", "TopK"};
    return ops;
}

namespace {

// The model parsed from its bytes, or a ModelError naming `file`: beyond
// protobuf's 2 GiB, or not a ModelProto with a graph.
onnx::ModelProto parse_model(const std::string& bytes, const std::string& file) {
    if (bytes.size() > kMaxModelBytes)
        throw ModelError(file, "", "", "larger than 2 GiB, the protobuf limit of an ONNX file");
    onnx::ModelProto m;
    if (bytes.empty() || !m.ParseFromString(bytes) || !m.has_graph() || m.ir_version() <= 0)
        throw ModelError(file, "", "", "not an ONNX model (it does not parse as a ModelProto with a graph: "
                                       "truncated, or another format)");
    return m;
}

// The model file's bytes, or a ModelError naming it: missing, not a regular
// file, beyond protobuf's 2 GiB, unreadable.
std::string read_bytes(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw ModelError(path, "", "", std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
    if (std::filesystem::file_size(path, ec) > kMaxModelBytes)
        throw ModelError(path, "", "", "larger than 2 GiB, the protobuf limit of an ONNX file");
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) throw ModelError(path, "", "", "cannot be read");
    return bytes;
}

onnx::ModelProto read_model(const std::string& path) { return parse_model(read_bytes(path), path); }

// The nodes' indices in dependency order (Kahn; ties by file order), or a
// ModelError naming a node on a cycle.
std::vector<int> dependency_order(const onnx::GraphProto& g, const std::string& path) {
    const int count = g.node_size();
    std::map<std::string, int> producer;
    for (int i = 0; i < count; ++i)
        for (const std::string& out : g.node(i).output())
            if (!out.empty()) producer[out] = i;
    std::vector<int> pending(static_cast<std::size_t>(count), 0);
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        for (const std::string& in : g.node(i).input()) {
            const auto it = producer.find(in);
            if (it == producer.end()) continue;
            ++pending[static_cast<std::size_t>(i)];
            consumers[static_cast<std::size_t>(it->second)].push_back(i);
        }
    std::set<int> ready;
    for (int i = 0; i < count; ++i)
        if (pending[static_cast<std::size_t>(i)] == 0) ready.insert(i);
    std::vector<int> order;
    while (!ready.empty()) {
        const int i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (int c : consumers[static_cast<std::size_t>(i)])
            if (--pending[static_cast<std::size_t>(c)] == 0) ready.insert(c);
    }
    for (int i = 0; i < count && static_cast<int>(order.size()) != count; ++i)
        if (pending[static_cast<std::size_t>(i)] != 0)
            throw ModelError(path, Checks::node_name(g.node(i), i), g.node(i).op_type(),
                             "the graph has a cycle through this node");
    return order;
}

// The rank of a typed, shaped input, or -1.
int rank_of(const onnx::TypeProto* t) {
    if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
    return t->tensor_type().shape().dim_size();
}

// Whether ONNX's inference function of `n` may be run with these input
// types. libonnx 1.12's functions trust what they are given: a Conv whose X
// has fewer dimensions than its W read past X's dimensions and crashed
// (fuzz_model: SEGV in onnx::convPoolShapeInference), and several read an
// input's type without checking there is one. So: every input is typed,
// a convolution's or pool's X, W and spatial attributes agree in rank, and
// its kernel, strides and dilations are at least 1 and its pads at least 0;
// else a ModelError naming the node.
bool may_infer(const onnx::NodeProto& n, int index, const std::vector<const onnx::TypeProto*>& in,
               const std::unordered_map<std::string, const onnx::TensorProto*>& data, const std::string& path) {
    for (std::size_t i = 0; i < in.size(); ++i)
        if (!n.input(static_cast<int>(i)).empty() && !in[i]) return false;  // its outputs stay unknown
    const std::string who = Checks::node_name(n, index);
    const std::string& op = n.op_type();
    auto fail = [&](const std::string& what) { throw ModelError(path, who, op, what); };
    // A shape, axes, sizes, pads or split input: libonnx reads its values
    // into a shape, one dimension object each, or, when they are not data,
    // makes a shape of as many unknown dimensions as it has values (an
    // Expand whose shape input was a graph input of 2^40 values took 2.6 GB:
    // fuzz_model's third finding). Such an input has at most a value per
    // edge a node may have (ImportLimits::node_edges), far above any rank,
    // whether its values are data or only its shape is known.
    const bool reads_values = op == "Reshape" || op == "Expand" || op == "Resize" || op == "Slice" || op == "Pad" ||
                              op == "Squeeze" || op == "Unsqueeze" || op == "Split" || op == "ReduceMean" ||
                              op == "ReduceSum" || op == "ReduceMax" || op == "TopK" || op == "Clip";
    for (int i = 1; reads_values && i < n.input_size(); ++i) {
        // Its values by its dims (saturating; a negative or unknown dim
        // counts for nothing: the shape checks reject those elsewhere).
        std::uint64_t values = 1;
        auto times = [&](std::int64_t d) {
            if (d >= 0 && __builtin_mul_overflow(values, static_cast<std::uint64_t>(d), &values)) values = UINT64_MAX;
        };
        const auto it = data.find(n.input(i));
        if (it != data.end()) {
            for (const std::int64_t d : it->second->dims()) times(d);
        } else if (static_cast<std::size_t>(i) < in.size() && rank_of(in[static_cast<std::size_t>(i)]) >= 0) {
            for (const auto& d : in[static_cast<std::size_t>(i)]->tensor_type().shape().dim())
                if (d.has_dim_value()) times(d.dim_value());
        } else {
            continue;
        }
        if (values > static_cast<std::uint64_t>(ImportLimits::node_edges))
            fail("input " + std::to_string(i) + " ('" + ModelError::shown(n.input(i)) + "') holds " +
                 (values == UINT64_MAX ? std::string("2^64 or more") : std::to_string(values)) +
                 " values: a shape, axes, sizes, pads or split input holds at most " +
                 std::to_string(ImportLimits::node_edges) + " (docs/models.md \"Limits\")");
    }
    if (op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool") {
        const int rank = in.empty() ? -1 : rank_of(in[0]);
        if (rank < 0) return false;
        if (rank < 3) fail("input X has " + std::to_string(rank) + " dimensions: it needs N x C x at least one spatial one");
        if ((op == "Conv" || op == "ConvTranspose") && in.size() > 1 && rank_of(in[1]) != rank)
            fail("weight W has " + std::to_string(rank_of(in[1])) + " dimensions, input X " + std::to_string(rank) +
                 ": they must agree");
        for (const auto& a : n.attribute()) {
            const int want = a.name() == "pads" ? 2 * (rank - 2)
                             : (a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations" ||
                                a.name() == "output_padding" || a.name() == "output_shape")
                                 ? rank - 2
                                 : -1;
            if (want < 0) continue;
            if (a.ints_size() != want)
                fail("attribute '" + a.name() + "' has " + std::to_string(a.ints_size()) + " values; X's " +
                     std::to_string(rank - 2) + " spatial dimensions need " + std::to_string(want));
            // libonnx divides by strides (a stride of 0 was a SIGFPE,
            // fuzz_model's second finding) and sums the rest in int64.
            const std::int64_t low = a.name() == "pads" || a.name() == "output_padding" ? 0 : 1;
            for (const std::int64_t v : a.ints())
                if (v < low || v > (std::int64_t{1} << 31))
                    fail("attribute '" + a.name() + "' " + dims_text(a.ints()) + ": each value must be in [" +
                         std::to_string(low) + ", 2^31]");
        }
    }
    if (op == "LayerNormalization" && !in.empty() && rank_of(in[0]) >= 0) {
        // libonnx 1.12 reads X's dimension at the axis without a bound: a
        // scalar X, or an axis below -rank, read before the shape's start
        // (fuzz_model's fourth finding, a SEGV).
        const int rank = rank_of(in[0]);
        std::int64_t axis = -1;
        for (const auto& a : n.attribute())
            if (a.name() == "axis") axis = a.i();
        if (rank == 0) fail("input X is a scalar: it needs at least one dimension to normalise over");
        if (axis < -rank || axis >= rank)
            fail("attribute 'axis' " + std::to_string(axis) + " is outside X's " + std::to_string(rank) + " dimensions [" +
                 std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
    }
    if (op == "Transpose" && !in.empty() && rank_of(in[0]) >= 0) {
        const int rank = rank_of(in[0]);
        for (const auto& a : n.attribute()) {
            if (a.name() != "perm") continue;
            std::vector<bool> seen(static_cast<std::size_t>(rank), false);
            bool ok = a.ints_size() == rank;
            for (const std::int64_t p : a.ints()) {
                ok = ok && p >= 0 && p < rank && !seen[static_cast<std::size_t>(p)];
                if (ok) seen[static_cast<std::size_t>(p)] = true;
            }
            if (!ok) fail("attribute 'perm' " + dims_text(a.ints()) + " is not a permutation of X's " + std::to_string(rank) +
                          " dimensions");
        }
    }
    return true;
}

// ONNX's shape inference, node by node in dependency order, as
// onnx::shape_inference::InferShapes does it (a node's inference error
// leaves its outputs as declared, as InferShapes' default error mode does;
// a Constant's value is data for the nodes after it), but with npuvp's
// checks of each node's inputs first (may_infer), which InferShapes cannot
// be given.
void infer_shapes(onnx::ModelProto& m, const std::vector<int>& order, const std::string& path) {
    onnx::GraphProto& g = *m.mutable_graph();
    const int opset = static_cast<int>(std::max<std::int64_t>(1, onnx_opset(m)));
    std::unordered_map<std::string, onnx::TypeProto*> types;
    std::unordered_map<std::string, const onnx::TensorProto*> data;
    std::deque<onnx::TypeProto> owned;
    for (auto& v : *g.mutable_input())
        if (v.has_type()) types[v.name()] = v.mutable_type();
    for (const auto& t : g.initializer()) {
        data[t.name()] = &t;
        if (types.count(t.name())) continue;
        onnx::TypeProto& type = owned.emplace_back();
        type.mutable_tensor_type()->set_elem_type(t.data_type());
        auto* shape = type.mutable_tensor_type()->mutable_shape();
        for (const std::int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
        types[t.name()] = &type;
    }
    // What the file declares of the other values: inference merges into it.
    std::unordered_map<std::string, onnx::TypeProto*> declared;
    for (auto& v : *g.mutable_value_info())
        if (v.has_type()) declared[v.name()] = v.mutable_type();
    for (auto& v : *g.mutable_output())
        if (v.has_type()) declared[v.name()] = v.mutable_type();
    const std::unordered_map<std::string, const onnx::SparseTensorProto*> no_sparse;
    for (const int i : order) {
        onnx::NodeProto& n = *g.mutable_node(i);
        std::vector<const onnx::TypeProto*> in;
        for (const std::string& name : n.input()) {
            const auto it = types.find(name);
            in.push_back(it == types.end() ? nullptr : it->second);
        }
        const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "");
        if (schema && schema->has_type_and_shape_inference_function() && may_infer(n, i, in, data, path)) {
            onnx::shape_inference::InferenceContextImpl ctx(n, types, data, no_sparse);
            bool inferred = true;
            try {
                schema->GetTypeAndShapeInferenceFunction()(ctx);
            } catch (const std::exception&) {
                inferred = false;
            }
            for (int j = 0; inferred && j < n.output_size(); ++j) {
                const std::string& name = n.output(j);
                const onnx::TypeProto* type = ctx.getOutputType(static_cast<std::size_t>(j));
                if (name.empty() || !type || type->value_case() == onnx::TypeProto::VALUE_NOT_SET) continue;
                const auto d = declared.find(name);
                if (d == declared.end()) {
                    onnx::ValueInfoProto* v = g.add_value_info();
                    v->set_name(name);
                    *v->mutable_type() = *type;
                    declared[name] = v->mutable_type();
                    continue;
                }
                try {
                    onnx::shape_inference::mergeShapesAndTypes(*type, d->second);
                } catch (const std::exception&) {
                    // As InferShapes: the declared type stands.
                }
            }
        }
        for (const std::string& name : n.output()) {
            const auto d = declared.find(name);
            if (!name.empty() && d != declared.end()) types[name] = d->second;
        }
        if (n.op_type() == "Constant" && n.output_size() == 1)
            for (const auto& a : n.attribute())
                if (a.name() == "value" && a.has_t()) data[n.output(0)] = &a.t();
    }
}

}  // namespace

Network import_onnx(const std::string& path, const ImportOptions& options) {
    return import_onnx_bytes(read_bytes(path), path, options);
}

Network import_onnx_bytes(const std::string& bytes, const std::string& path, const ImportOptions& options) {
    onnx::ModelProto m = parse_model(bytes, path);  // batch fixed and shapes inferred in place
    // No node of a supported (ONNX-domain) operator calls a model-local
    // function: shape inference need not read them.
    m.clear_functions();
    {
        const Checks checks(m, path);
        checks.limits();
        checks.operators();
        checks.structure();
    }

    std::set<std::string> initializers;
    for (const auto& init : m.graph().initializer()) initializers.insert(init.name());
    fix_batch(m, path, options, initializers);
    // Nodes in dependency order (ties by file order, so the order is the
    // file's whenever that is a valid one): for inference and the Network.
    const std::vector<int> order = dependency_order(m.graph(), path);
    infer_shapes(m, order, path);

    Network net;
    net.file = path;
    net.name = m.graph().name().empty() ? stem(path) : m.graph().name();
    const auto& g = m.graph();
    for (const auto& init : g.initializer()) {
        TensorInfo t;
        t.elem_bytes = elem_bytes(init.data_type());
        t.shape.assign(init.dims().begin(), init.dims().end());
        t.constant = true;
        net.tensors[init.name()] = t;
    }
    auto add = [&](const onnx::ValueInfoProto& v) {
        TensorInfo t;
        if (!static_shape(v, t) || net.tensors.count(v.name())) return;
        Checks::shape(path, v.name(), t);  // as inferred: a Reshape, Expand or Pad can make it larger
        net.tensors[v.name()] = t;
    };
    for (const auto& v : g.input()) add(v);
    for (const auto& v : g.value_info()) add(v);
    for (const auto& v : g.output()) add(v);
    for (const auto& v : g.input())
        if (!initializers.count(v.name())) net.inputs.push_back(v.name());
    for (const auto& v : g.output()) net.outputs.push_back(v.name());

    for (const int i : order) {
        const auto& n = g.node(i);
        Node& node = net.nodes.emplace_back();
        node.op = n.op_type();
        node.name = Checks::node_name(n, i);
        node.inputs.assign(n.input().begin(), n.input().end());
        node.outputs.assign(n.output().begin(), n.output().end());
        for (const auto& a : n.attribute()) {
            if (a.type() == onnx::AttributeProto::INT) node.ints[a.name()] = {a.i()};
            if (a.type() == onnx::AttributeProto::INTS) node.ints[a.name()].assign(a.ints().begin(), a.ints().end());
            if (a.type() == onnx::AttributeProto::FLOAT) node.floats[a.name()] = a.f();
            if (a.type() == onnx::AttributeProto::STRING) node.strings[a.name()] = a.s();
        }
    }
    // Constants are weights; every other output needs a static shape.
    for (const Node& node : net.nodes) {
        for (const std::string& out : node.outputs) {
            if (out.empty()) continue;
            if (node.op == "Constant") {
                net.tensors[out].constant = true;
                continue;
            }
            (void)net.tensor(node, out);
        }
    }
    return net;
}

std::vector<std::uint8_t> onnx_initializer_bytes(const std::string& path, const std::string& name, int bytes_per,
                                                 std::uint64_t elements) {
    const onnx::ModelProto m = read_model(path);
    const onnx::TensorProto* found = nullptr;
    std::vector<std::string> names;
    for (const auto& init : m.graph().initializer()) {
        if (init.name() == name) found = &init;
        names.push_back(init.name());
    }
    const std::string what = "initializer '" + name + "'";
    if (!found) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        throw ModelError(path, "", "", "no " + what + " (initializers: " + (list.empty() ? "none" : list) + ")");
    }
    const onnx::TensorProto& t = *found;
    const std::int32_t want = bytes_per == 1 ? onnx::TensorProto::INT8 : onnx::TensorProto::INT32;
    if (t.data_type() != want)
        throw ModelError(path, "", "", what + " is not " + (bytes_per == 1 ? "INT8" : "INT32") +
                                           " (ONNX data type " + std::to_string(t.data_type()) + ")");
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
        throw ModelError(path, "", "", what + " keeps its data in an external file, which npuvp does not read");
    std::uint64_t count = 1;
    for (const auto d : t.dims()) count = checked_mul(count, static_cast<std::uint64_t>(d < 0 ? 0 : d), "an initializer's elements");
    if (count != elements)
        throw ModelError(path, "", "", what + " has " + std::to_string(count) + " elements, the entry declares " +
                                           std::to_string(elements));
    std::vector<std::uint8_t> out;
    if (!t.raw_data().empty()) {
        if (t.raw_data().size() != checked_mul(elements, static_cast<std::uint64_t>(bytes_per), "an initializer's bytes"))
            throw ModelError(path, "", "", what + " has " + std::to_string(t.raw_data().size()) +
                                               " bytes of raw data for " + std::to_string(elements) + " elements");
        out.assign(t.raw_data().begin(), t.raw_data().end());
        return out;
    }
    // INT8 and INT32 values kept one per int32_data entry.
    if (static_cast<std::uint64_t>(t.int32_data_size()) != elements)
        throw ModelError(path, "", "", what + " has " + std::to_string(t.int32_data_size()) + " values for " +
                                           std::to_string(elements) + " elements (no data: a shape-only model)");
    for (const std::int32_t v : t.int32_data())
        for (int b = 0; b < bytes_per; ++b) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * b)));
    return out;
}

}  // namespace npuvp::model
