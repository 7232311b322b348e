#include "model/onnx_import.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "modules/common/checked.h"

namespace npuvp::model {

namespace {

// protobuf refuses messages over 2 GiB; a shape-only model is kilobytes.
constexpr std::uintmax_t kMaxModelBytes = std::uintmax_t{2} << 30;

int elem_bytes(std::int32_t type) {
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
    default: return 8;  // INT64, DOUBLE, UINT64, complex: 8 (or more; only sizes use it)
    }
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

}  // namespace

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

// The model file parsed, or a ModelError naming it: missing, not a regular
// file, beyond protobuf's 2 GiB, unreadable, or not a ModelProto with a graph.
onnx::ModelProto read_model(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw ModelError(path, "", "", std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
    if (std::filesystem::file_size(path, ec) > kMaxModelBytes)
        throw ModelError(path, "", "", "larger than 2 GiB, the protobuf limit of an ONNX file");
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) throw ModelError(path, "", "", "cannot be read");
    onnx::ModelProto m;
    if (bytes.empty() || !m.ParseFromString(bytes) || !m.has_graph() || m.ir_version() <= 0)
        throw ModelError(path, "", "", "not an ONNX model (it does not parse as a ModelProto with a graph: "
                                       "truncated, or another format)");
    return m;
}

}  // namespace

Network import_onnx(const std::string& path, const ImportOptions& options) {
    onnx::ModelProto m = read_model(path);  // batch fixed and shapes inferred in place

    std::set<std::string> initializers;
    for (const auto& init : m.graph().initializer()) initializers.insert(init.name());
    fix_batch(m, path, options, initializers);
    try {
        onnx::shape_inference::InferShapes(m);
    } catch (const std::exception& e) {
        throw ModelError(path, "", "", std::string("ONNX shape inference failed: ") + e.what());
    }

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
        net.tensors[v.name()] = t;
    };
    for (const auto& v : g.input()) add(v);
    for (const auto& v : g.value_info()) add(v);
    for (const auto& v : g.output()) add(v);
    for (const auto& v : g.input())
        if (!initializers.count(v.name())) net.inputs.push_back(v.name());
    for (const auto& v : g.output()) net.outputs.push_back(v.name());

    // Nodes in dependency order (Kahn; ties by file order, so the order is the
    // file's whenever that is a valid one).
    const int count = g.node_size();
    std::vector<Node> nodes(static_cast<std::size_t>(count));
    std::map<std::string, int> producer;
    for (int i = 0; i < count; ++i) {
        const auto& n = g.node(i);
        Node& node = nodes[static_cast<std::size_t>(i)];
        node.op = n.op_type();
        node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
        node.inputs.assign(n.input().begin(), n.input().end());
        node.outputs.assign(n.output().begin(), n.output().end());
        for (const auto& a : n.attribute()) {
            if (a.type() == onnx::AttributeProto::INT) node.ints[a.name()] = {a.i()};
            if (a.type() == onnx::AttributeProto::INTS) node.ints[a.name()].assign(a.ints().begin(), a.ints().end());
            if (a.type() == onnx::AttributeProto::FLOAT) node.floats[a.name()] = a.f();
            if (a.type() == onnx::AttributeProto::STRING) node.strings[a.name()] = a.s();
        }
        const auto& ops = supported_ops();
        if (std::find(ops.begin(), ops.end(), node.op) == ops.end())
            throw ModelError(path, node.name, node.op,
                             "unsupported operator (docs/models.md lists the supported ones)");
        for (const std::string& out : node.outputs)
            if (!out.empty()) producer[out] = i;
    }
    std::vector<int> pending(static_cast<std::size_t>(count), 0);
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        for (const std::string& in_name : nodes[static_cast<std::size_t>(i)].inputs) {
            const auto it = producer.find(in_name);
            if (it == producer.end()) continue;
            ++pending[static_cast<std::size_t>(i)];
            consumers[static_cast<std::size_t>(it->second)].push_back(i);
        }
    std::set<int> ready;
    for (int i = 0; i < count; ++i)
        if (pending[static_cast<std::size_t>(i)] == 0) ready.insert(i);
    while (!ready.empty()) {
        const int i = *ready.begin();
        ready.erase(ready.begin());
        net.nodes.push_back(nodes[static_cast<std::size_t>(i)]);
        for (int c : consumers[static_cast<std::size_t>(i)])
            if (--pending[static_cast<std::size_t>(c)] == 0) ready.insert(c);
    }
    if (static_cast<int>(net.nodes.size()) != count) {
        for (int i = 0; i < count; ++i)
            if (pending[static_cast<std::size_t>(i)] != 0)
                throw ModelError(path, nodes[static_cast<std::size_t>(i)].name, nodes[static_cast<std::size_t>(i)].op,
                                 "the graph has a cycle through this node");
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
