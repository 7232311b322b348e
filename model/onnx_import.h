// ONNX import (docs/models.md): reads a model with Debian's libonnx (the ONNX
// protobuf classes and its shape inference) into a Network: its nodes in
// dependency order, every tensor's static shape and element size. Weights
// are not needed: an initializer may carry its shape only (no data), and a
// weight may be a graph input.
#pragma once

#include <cstddef>
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
        : std::runtime_error(file + (node.empty() ? "" : ": node '" + shown(node) + "' (" + shown(op) + ")") + ": " +
                             what) {}
    // A name from the file as a message shows it: control bytes escaped
    // (\xNN), at most `max` bytes, then "... (N bytes)".
    static std::string shown(const std::string& name, std::size_t max = 200);
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

// What the importer accepts (docs/models.md "Limits"): an ONNX file is
// untrusted input, and each bound keeps what npuvp derives from it (and what
// ONNX's own checks and shape inference are given) small and inside 64 bits.
// Every one is a ModelError naming the file, the node or tensor, and the bound.
struct ImportLimits {
    static constexpr std::uint64_t file_bytes = std::uint64_t{2} << 30;  // protobuf's own limit
    static constexpr int nodes = 10000;           // nodes in the graph
    static constexpr int values = 100000;         // initializers + graph inputs + outputs + value_info
    static constexpr int node_edges = 4096;       // a node's inputs, and its outputs
    static constexpr int attribute_values = 65536;  // the ints (floats, strings, ...) of one attribute
    static constexpr std::size_t name_bytes = 4096;  // any name, op type, domain or string attribute
    static constexpr int rank = 32;               // dimensions of a tensor
    static constexpr std::uint64_t elements = std::uint64_t{1} << 40;  // elements of a tensor
};

struct ImportOptions {
    // A symbolic (or unknown) batch dimension becomes this; 0 = a symbolic
    // dimension is an error naming it.
    std::int64_t batch = 0;
};

// The operators the mapper lowers (docs/models.md "Operators").
const std::vector<std::string>& supported_ops();

// Reads `path`; throws ModelError for a file that is not ONNX, a truncated
// one, an unsupported op, a node ONNX's schema rejects, a missing input, a
// tensor produced twice, a dynamic shape, a cycle, anything beyond
// ImportLimits.
Network import_onnx(const std::string& path, const ImportOptions& options = {});

// The same from the file's bytes; `file` names it in errors (the fuzzer's
// entry point, fuzz/fuzz_model.cpp).
Network import_onnx_bytes(const std::string& bytes, const std::string& file, const ImportOptions& options = {});

// Data mode (docs/workload.md "Operand data"): the values of the
// initializer `name` of the model at `path`, as raw little-endian bytes of
// its element type, which must be INT8 (elem_bytes 1) or INT32 (4) and have
// `elements` elements. Data in raw_data or int32_data; external data is not
// read. Throws ModelError naming the file and the initializer.
std::vector<std::uint8_t> onnx_initializer_bytes(const std::string& path, const std::string& name, int elem_bytes,
                                                 std::uint64_t elements);

}  // namespace npuvp::model
