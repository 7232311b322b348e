// ONNX import (docs/models.md): reads a model with Debian's libonnx (the ONNX
// protobuf classes and its shape inference) into a Network: its nodes in
// dependency order, every tensor's static shape and element size. Weights
// are not needed: an initializer may carry its shape only (no data), and a
// weight may be a graph input.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp::model {

// A bad model: the file, and where known the node and its op type. npuvp
// exits 2 on it, as on any bad input.
class ModelError : public std::runtime_error {
public:
    ModelError(const std::string& file, const std::string& node, const std::string& op,
               const std::string& what)
        : std::runtime_error(file + (node.empty() ? "" : ": node '" + node + "' (" + op + ")") + ": " + what) {}
};

struct TensorInfo {
    std::vector<std::int64_t> shape;  // static; a scalar is {}
    int elem_bytes = 2;               // from the ONNX element type (float32 = 4, float16/bfloat16 = 2, ...)
    bool constant = false;            // an initializer (or a graph input that only feeds weights)
    std::uint64_t elements() const;
    std::uint64_t bytes() const;
};

struct Node {
    std::string name;  // the ONNX node name, or "<op>_<index>" when it has none
    std::string op;    // op_type
    std::vector<std::string> inputs;   // tensor names ("" = an omitted optional input)
    std::vector<std::string> outputs;
    std::map<std::string, std::vector<std::int64_t>> ints;  // INT and INTS attributes
    std::map<std::string, double> floats;                   // FLOAT attributes
    std::map<std::string, std::string> strings;             // STRING attributes (Resize's mode, ...)
    std::int64_t attr(const std::string& key, std::int64_t fallback) const;
    std::vector<std::int64_t> attrs(const std::string& key, std::vector<std::int64_t> fallback) const;
    std::string text(const std::string& key, const std::string& fallback) const;
};

struct Network {
    std::string file;
    std::string name;                          // the graph's name, else the file's stem
    std::vector<Node> nodes;                   // in dependency order
    std::map<std::string, TensorInfo> tensors;  // every value with a known shape
    std::vector<std::string> inputs;           // graph inputs that carry activations
    std::vector<std::string> outputs;
    const TensorInfo& tensor(const Node& node, const std::string& name) const;
};

struct ImportOptions {
    // A symbolic (or unknown) batch dimension becomes this; 0 = a symbolic
    // dimension is an error naming it.
    std::int64_t batch = 0;
};

// The operators the mapper lowers (docs/models.md "Operators").
const std::vector<std::string>& supported_ops();

// Reads `path`; throws ModelError for a file that is not ONNX, a truncated
// one, an unsupported op, a dynamic shape, a cycle.
Network import_onnx(const std::string& path, const ImportOptions& options = {});

// Data mode (docs/workload.md "Operand data"): the values of the
// initializer `name` of the model at `path`, as raw little-endian bytes of
// its element type, which must be INT8 (elem_bytes 1) or INT32 (4) and have
// `elements` elements. Data in raw_data or int32_data; external data is not
// read. Throws ModelError naming the file and the initializer.
std::vector<std::uint8_t> onnx_initializer_bytes(const std::string& path, const std::string& name, int elem_bytes,
                                                 std::uint64_t elements);

}  // namespace npuvp::model
