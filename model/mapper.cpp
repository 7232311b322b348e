#include "model/mapper.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "modules/common/saturating.h"

namespace npuvp::model {

namespace {

// The PE GEMM tile the mapper asks for (the array's size, docs/models.md).
constexpr std::uint64_t kTile = 128;
// A MATH or DMA layer's tile: 64 KiB of elements.
constexpr std::uint64_t kVectorTileBytes = 64 * 1024;
// Activations and weights run as bf16 (2 bytes), whatever the model's type.
constexpr std::uint64_t kElem = 2;

bool is_view(const std::string& op) {
    return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
           op == "Identity" || op == "Dropout";
}
bool is_gemm(const std::string& op) { return op == "MatMul" || op == "Gemm" || op == "Conv"; }
bool is_copy(const std::string& op) {
    return op == "Transpose" || op == "Concat" || op == "Split" || op == "Slice" || op == "Gather";
}

// The PE_MATH op an element-wise ONNX op costs as (docs/models.md "Operators").
std::string math_op(const std::string& op, bool constant_operand) {
    if (op == "Relu" || op == "LeakyRelu") return "relu";
    if (op == "Sigmoid" || op == "Tanh" || op == "Sqrt" || op == "Pow") return "exp";
    if (op == "Gelu" || op == "Erf") return "gelu";
    if (op == "Add" || op == "Sub") return constant_operand ? "bias_add" : "add";
    if (op == "Mul" || op == "Div" || op == "BatchNormalization") return "mul";
    if (op == "Softmax" || op == "LayerNormalization") return "softmax";
    if (op == "ReduceMean" || op == "GlobalAveragePool" || op == "AveragePool" || op == "MaxPool") return "reduce";
    if (op == "Cast") return "cast";
    return "";
}
bool fusable_epilogue(const std::string& op) {
    return op == "Relu" || op == "LeakyRelu" || op == "Sigmoid" || op == "Tanh" || op == "Gelu" ||
           op == "Erf" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
}

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return out;
}

std::uint64_t u(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }

struct Layer {
    MappedLayer info;
    std::string body;  // the kernel's commands, YAML lines
    std::vector<std::string> epilogues;
    std::uint64_t gemm_count = 1;  // a grouped Conv: this many GEMMs
    std::uint64_t tm = kTile, tk = kTile, tn = kTile;
    std::uint64_t share_m = 0, share_n = 0;
};

class Greedy {
public:
    Greedy(const Network& net, const TopologyConfig& topo, const MapOptions& options)
        : m_net(net), m_topo(topo), m_options(options), m_pes(topo.pes_per_cube()) {
        for (const Node& node : net.nodes)
            for (const std::string& in : node.inputs) ++m_uses[in];
        for (const std::string& out : net.outputs) ++m_uses[out];
        for (const auto& [name, t] : net.tensors)
            if (t.constant) m_constant.insert(name);
    }

    Mapping run() {
        for (const Node& node : m_net.nodes) place(node);
        order_layers();
        pipeline_over_cubes();
        Mapping out;
        std::ostringstream y;
        y << "# Mapped from " << m_net.file << " by builtin.greedy_mapper (docs/models.md).\n"
          << "name: " << sanitize(m_net.name) << "\nkernels:\n";
        for (const Layer& l : m_layers) {
            // What the policy chose, for a reader of `npuvp map`'s file.
            y << "  # node " << l.info.node << " (" << l.info.op << "): " << l.info.lowering;
            if (l.info.m) y << " " << l.info.m << "x" << l.info.k << "x" << l.info.n;
            y << ", on " << l.info.pes << " PE" << (l.info.pes == 1 ? "" : "s") << " of " << l.info.cube;
            if (l.info.split != "-") y << " split by " << l.info.split;
            if (!l.info.fused.empty()) {
                y << "; fused:";
                for (const std::string& f : l.info.fused) y << " " << f;
            }
            y << "\n  " << l.info.id << ":\n";
            emit_body(y, l);
        }
        for (const Transfer& t : m_transfers)
            y << "  " << t.id << ":\n    - dma_read: { id: xin, bytes: " << t.bytes << ", addr: { pa: " << t.pa
              << " } }\n    - wait: all\n";
        if (m_layers.empty()) {
            // Every node folds (views, constants, empty tensors): nothing to
            // run but an empty kernel, so the run still reports (makespan 0).
            y << "  nothing:\n    - wait: all\nlaunch:\n  - { kernel: nothing, cube: " << cube_name(0)
              << ", pes: [0] }\n";
        } else {
            y << "host:\n";
        }
        for (const Layer& l : m_layers) {
            for (const Transfer& t : m_transfers)
                if (t.consumer == l.info.id)
                    y << "  - kernel_launch: { id: " << t.id << ", kernel: " << t.id << ", cubes: [" << l.info.cube
                      << "], target_pe: [" << t.pe << "], after: [" << t.producer << "] }\n";
            y << "  - kernel_launch: { id: " << l.info.id << ", kernel: " << l.info.id
              << ", cubes: [" << l.info.cube << "], target_pe: " << targets(l.info.pes) << ", after: [";
            for (std::size_t i = 0; i < l.info.after.size(); ++i) y << (i ? ", " : "") << l.info.after[i];
            y << "] }\n";
        }
        out.workload_yaml = y.str();
        for (const Transfer& t : m_transfers) out.transfers.emplace_back(t.id, t.producer);
        for (const Layer& l : m_layers) out.layers.push_back(l.info);
        out.folded = m_folded;
        return out;
    }

private:
    // Host requests may only name earlier ones: a fused residual add can make
    // a layer wait for one created after it, so the layers go out in
    // dependency order (ties in creation order).
    void order_layers() {
        std::vector<Layer> ordered;
        std::set<std::string> placed;
        std::vector<bool> done(m_layers.size(), false);
        while (ordered.size() < m_layers.size()) {
            for (std::size_t i = 0; i < m_layers.size(); ++i) {
                if (done[i]) continue;
                const auto& after = m_layers[i].info.after;
                if (!std::all_of(after.begin(), after.end(), [&](const std::string& id) { return placed.count(id) > 0; }))
                    continue;
                done[i] = true;
                placed.insert(m_layers[i].info.id);
                ordered.push_back(m_layers[i]);
                break;
            }
        }
        m_layers = std::move(ordered);
    }

    // One consumer PE's read of its input share from the cube that wrote it.
    struct Transfer {
        std::string id, consumer, producer;
        int pe = 0;
        std::uint64_t bytes = 0, pa = 0;
    };

    // MapOptions::cubes > 1: contiguous stages of about equal FLOPs (a layer
    // goes to the stage its FLOP midpoint falls in), stage s on the s-th cube
    // in (sip, cube) order. A layer reading a layer of another stage first
    // reads its input: each of its PEs a 1/pes share, from the slice of the
    // same PE index in the producer's cube (the producer's PE j wrote its
    // share there), over UCIe or the SIP link; the layer waits for those reads.
    void pipeline_over_cubes() {
        const int cubes = std::max(1, std::min(m_options.cubes, m_topo.system.sips * m_topo.system.cubes_per_sip));
        for (Layer& l : m_layers) l.info.cube = cube_name(0);
        if (cubes == 1 || m_layers.empty()) return;
        std::uint64_t total = 0;
        for (const Layer& l : m_layers) total = sat_add(total, l.info.flops);
        std::uint64_t before = 0;
        std::map<std::string, int> stage_of;
        for (Layer& l : m_layers) {
            const double mid = static_cast<double>(before) + static_cast<double>(l.info.flops) / 2.0;
            const int stage = total == 0 ? 0
                                         : std::min(cubes - 1, static_cast<int>(mid * cubes / static_cast<double>(total)));
            before = sat_add(before, l.info.flops);
            l.info.cube = cube_name(stage);
            stage_of[l.info.id] = stage;
        }
        const std::uint64_t slice = m_topo.cube.memory_map.hbm_slice_bytes;
        const std::uint64_t cube_bytes = sat_mul(slice, static_cast<std::uint64_t>(m_topo.cube.memory_map.hbm_slices_per_cube));
        for (Layer& l : m_layers) {
            std::vector<std::string> after;
            for (const std::string& p : l.info.after) {
                const int from = stage_of.at(p);
                if (from == stage_of.at(l.info.id)) {
                    after.push_back(p);
                    continue;
                }
                for (int j = 0; j < l.info.pes; ++j) {
                    Transfer t;
                    t.id = "x" + std::to_string(m_transfers.size()) + "_" + l.info.id + "_p" + std::to_string(j);
                    t.consumer = l.info.id, t.producer = p, t.pe = j;
                    t.bytes = std::max<std::uint64_t>(1, ceil_div(l.info.in_bytes, static_cast<std::uint64_t>(l.info.pes)));
                    t.pa = sat_add(sat_mul(cube_bytes, static_cast<std::uint64_t>(from)), sat_mul(slice, static_cast<std::uint64_t>(j)));
                    m_transfers.push_back(t);
                    after.push_back(t.id);
                }
            }
            l.info.after = after;
        }
    }

    std::string cube_name(int index) const {
        const int per_sip = m_topo.system.cubes_per_sip;
        return "sip" + std::to_string(index / per_sip) + ".cube" + std::to_string(index % per_sip);
    }

    // Layers that produce the activations `node` reads.
    std::vector<std::string> producers(const Node& node) const {
        std::vector<std::string> after;
        for (const std::string& in : node.inputs) {
            const auto it = m_producer.find(in);
            if (it == m_producer.end()) continue;
            for (const std::string& id : it->second)
                if (std::find(after.begin(), after.end(), id) == after.end()) after.push_back(id);
        }
        return after;
    }
    bool constant(const std::string& tensor) const { return tensor.empty() || m_constant.count(tensor); }
    bool all_constant(const Node& node) const {
        return std::all_of(node.inputs.begin(), node.inputs.end(), [&](const std::string& t) { return constant(t); });
    }
    void alias(const Node& node, const std::vector<std::string>& ids) {
        for (const std::string& out : node.outputs) m_producer[out] = ids;
    }
    std::uint64_t out_elements(const Node& node) const { return m_net.tensor(node, node.outputs.front()).elements(); }

    void place(const Node& node) {
        if (node.op == "Shape" || all_constant(node)) {
            // Computed at compile time (shape arithmetic, constant folding).
            for (const std::string& out : node.outputs) m_constant.insert(out);
            m_folded.push_back(node.name);
            return;
        }
        if (is_view(node.op)) {
            alias(node, producers(node));
            m_folded.push_back(node.name);
            return;
        }
        if (std::all_of(node.outputs.begin(), node.outputs.end(), [&](const std::string& out) {
                return out.empty() || m_net.tensor(node, out).elements() == 0;
            })) {
            // An empty result (a slice past the end, a zero-size split): nothing moves.
            alias(node, producers(node));
            m_folded.push_back(node.name);
            return;
        }
        if (fold_into_producer(node)) return;
        Layer l;
        l.info.node = node.name;
        l.info.op = node.op;
        l.info.id = "l" + std::to_string(m_layers.size()) + "_" + sanitize(node.name);
        l.info.after = producers(node);
        if (is_gemm(node.op)) gemm_layer(node, l);
        else if (is_copy(node.op)) copy_layer(node, l);
        else vector_layer(node, l);
        m_layers.push_back(l);
        m_layer_of_output[node.outputs.front()] = m_layers.size() - 1;
        alias(node, {l.info.id});
    }

    // An epilogue (a bias, an activation, a residual add) or a batch norm
    // right after a GEMM layer that nothing else reads: it becomes that
    // layer's epilogue (SPEC T6 per_output_tile), or folds into its weights.
    bool fold_into_producer(const Node& node) {
        const bool bn = node.op == "BatchNormalization";
        if (!bn && !fusable_epilogue(node.op)) return false;
        int from = -1;
        for (std::size_t i = 0; i < node.inputs.size(); ++i) {
            const auto it = m_layer_of_output.find(node.inputs[i]);
            if (it == m_layer_of_output.end()) continue;
            if (!is_gemm(m_layers[it->second].info.op) || m_uses[node.inputs[i]] != 1) continue;
            from = static_cast<int>(i);
            break;
        }
        if (from < 0) return false;
        Layer& l = m_layers[m_layer_of_output.at(node.inputs[static_cast<std::size_t>(from)])];
        bool constant_operand = true;
        for (std::size_t i = 0; i < node.inputs.size(); ++i)
            if (static_cast<int>(i) != from && !constant(node.inputs[i])) {
                constant_operand = false;
                for (const std::string& id : producers(Node{"", "", {node.inputs[i]}, {}, {}, {}}))
                    if (id != l.info.id && std::find(l.info.after.begin(), l.info.after.end(), id) == l.info.after.end())
                        l.info.after.push_back(id);
            }
        if (!bn) l.epilogues.push_back(math_op(node.op, constant_operand));
        l.info.fused.push_back(node.name);
        m_layer_of_output.erase(node.inputs[static_cast<std::size_t>(from)]);
        m_layer_of_output[node.outputs.front()] = static_cast<std::size_t>(&l - m_layers.data());
        alias(node, {l.info.id});
        return true;
    }

    // Splits `tiles` row (or column) tiles of `dim` over the PEs: each PE an
    // equal share of whole tiles; returns the share and sets the PE count.
    std::uint64_t split(std::uint64_t dim, int& pes) const {
        const std::uint64_t tiles = ceil_div(dim, kTile);
        const std::uint64_t p = std::min<std::uint64_t>(tiles, static_cast<std::uint64_t>(m_pes));
        const std::uint64_t share = ceil_div(tiles, p) * kTile;
        pes = static_cast<int>(ceil_div(dim, share));
        return std::min(share, dim);
    }

    void gemm_layer(const Node& node, Layer& l) {
        std::uint64_t M = 0, K = 0, N = 0;
        const TensorInfo& out = m_net.tensor(node, node.outputs.front());
        if (node.op == "Conv") {
            const TensorInfo& x = m_net.tensor(node, node.inputs[0]);
            const TensorInfo& w = m_net.tensor(node, node.inputs[1]);
            if (x.shape.size() < 3 || w.shape.size() < 3 || out.shape.size() < 3)
                throw ModelError(m_net.file, node.name, node.op, "expects N x C x spatial... tensors");
            const std::uint64_t group = u(node.attr("group", 1));
            std::uint64_t spatial = 1, kernel = 1;
            for (std::size_t i = 2; i < out.shape.size(); ++i) spatial = sat_mul(spatial, u(out.shape[i]));
            for (std::size_t i = 2; i < w.shape.size(); ++i) kernel = sat_mul(kernel, u(w.shape[i]));
            const std::uint64_t cin = u(x.shape[1]), cout = u(out.shape[1]);
            if (group > 1 && group == cin && group == cout) {
                // Depthwise: every output element is a kernel-sized dot
                // product of one channel, a vector op (docs/models.md).
                l.info.lowering = "math mul (depthwise)";
                return vector_work(l, "mul", sat_mul(out.elements(), kernel));
            }
            M = sat_mul(u(out.shape[0]), spatial);
            K = sat_mul(cin / std::max<std::uint64_t>(group, 1), kernel);
            N = cout / std::max<std::uint64_t>(group, 1);
            l.gemm_count = std::max<std::uint64_t>(group, 1);
            if (node.inputs.size() > 2 && !node.inputs[2].empty()) l.epilogues.push_back("bias_add");
        } else {
            const TensorInfo& a = m_net.tensor(node, node.inputs[0]);
            const TensorInfo& b = m_net.tensor(node, node.inputs[1]);
            if (a.shape.empty() || b.shape.empty())
                throw ModelError(m_net.file, node.name, node.op, "a scalar operand");
            const bool ta = node.attr("transA", 0) != 0, tb = node.attr("transB", 0) != 0;
            const std::size_t ar = a.shape.size(), br = b.shape.size();
            K = u(ta && ar >= 2 ? a.shape[ar - 2] : a.shape[ar - 1]);
            N = br >= 2 ? u(tb ? b.shape[br - 2] : b.shape[br - 1]) : 1;
            M = K == 0 ? 0 : a.elements() / K;  // batch dims fold into M
            if (node.op == "Gemm" && node.inputs.size() > 2 && !node.inputs[2].empty()) l.epilogues.push_back("bias_add");
        }
        if (M == 0 || K == 0 || N == 0) throw ModelError(m_net.file, node.name, node.op, "an empty GEMM");
        l.info.in_bytes = sat_mul(sat_mul(M, K), sat_mul(kElem, l.gemm_count));
        l.info.m = M, l.info.k = K, l.info.n = N;
        l.info.flops = sat_mul(sat_mul(sat_mul(2, M), sat_mul(K, N)), l.gemm_count);
        l.info.lowering = l.gemm_count > 1 ? "gemm x" + std::to_string(l.gemm_count) + " (groups)" : "gemm";
        // Split: by M when it has a tile row for every PE, else by N, else
        // over as many PEs as the larger dimension has tiles.
        const std::uint64_t mt = ceil_div(M, kTile), nt = ceil_div(N, kTile);
        const std::uint64_t pes = static_cast<std::uint64_t>(m_pes);
        const bool by_m = mt >= pes || (nt < pes && mt >= nt);
        l.share_m = M, l.share_n = N;
        if (by_m) l.share_m = split(M, l.info.pes);
        else l.share_n = split(N, l.info.pes);
        l.info.split = l.info.pes == 1 ? "-" : by_m ? "M" : "N";
        l.tm = std::min(kTile, l.share_m), l.tk = std::min(kTile, K), l.tn = std::min(kTile, l.share_n);
        l.info.k = K;
    }

    void vector_work(Layer& l, const std::string& op, std::uint64_t elements) {
        l.epilogues = {op};
        l.info.flops = elements;
        const std::uint64_t per_pe = ceil_div(elements, static_cast<std::uint64_t>(m_pes));
        l.info.pes = static_cast<int>(std::min<std::uint64_t>(ceil_div(elements, std::max<std::uint64_t>(per_pe, 1)), m_pes));
        l.info.split = l.info.pes > 1 ? "elements" : "-";
        l.share_m = per_pe;
    }

    void vector_layer(const Node& node, Layer& l) {
        const bool constant_operand = std::any_of(node.inputs.begin() + (node.inputs.empty() ? 0 : 1), node.inputs.end(),
                                                  [&](const std::string& t) { return constant(t) && !t.empty(); });
        const std::string op = math_op(node.op, constant_operand);
        if (op.empty()) throw ModelError(m_net.file, node.name, node.op, "no lowering for this operator");
        // Pools and reductions read every input element; the rest produce one per output element.
        const bool reads_all = op == "reduce";
        const std::uint64_t elements = reads_all ? m_net.tensor(node, node.inputs[0]).elements() : out_elements(node);
        l.info.lowering = "math " + op;
        vector_work(l, op, elements);
        l.info.in_bytes = sat_mul(m_net.tensor(node, node.inputs[0]).elements(), kElem);
    }

    void copy_layer(const Node& node, Layer& l) {
        std::uint64_t bytes = 0;
        for (const std::string& out : node.outputs)
            if (!out.empty()) bytes = sat_add(bytes, sat_mul(m_net.tensor(node, out).elements(), kElem));
        l.info.lowering = "dma copy";
        const std::uint64_t per_pe = ceil_div(bytes, static_cast<std::uint64_t>(m_pes));
        l.info.pes = static_cast<int>(ceil_div(bytes, std::max<std::uint64_t>(per_pe, 1)));
        l.info.split = l.info.pes > 1 ? "bytes" : "-";
        l.share_m = per_pe;
        l.info.flops = 0;
        l.info.in_bytes = bytes;
    }

    std::string targets(int pes) const {
        if (pes >= m_pes) return "all";
        std::string s = "[";
        for (int i = 0; i < pes; ++i) s += (i ? ", " : "") + std::to_string(i);
        return s + "]";
    }

    void emit_body(std::ostringstream& y, const Layer& l) const {
        if (l.info.lowering == "dma copy") {
            // A layout change: each PE reads its share and writes it back, re-laid.
            y << "    - dma_read: { id: rd, bytes: " << l.share_m << " }\n"
              << "    - dma_write: { id: wr, bytes: " << l.share_m << " }\n"
              << "    - wait: all\n";
            return;
        }
        if (l.info.m == 0) {
            const std::uint64_t bytes = sat_mul(l.share_m, kElem);
            y << "    - composite: { id: " << sanitize(l.info.node) << ", op: " << l.epilogues.front()
              << ", bytes: " << bytes << ", tile_bytes: " << std::min(bytes, kVectorTileBytes) << " }\n"
              << "    - wait: all\n";
            return;
        }
        for (std::uint64_t g = 0; g < l.gemm_count; ++g) {
            y << "    - composite:\n"
              << "        id: " << sanitize(l.info.node) << (l.gemm_count > 1 ? "_g" + std::to_string(g) : "") << "\n"
              << "        gemm: { m: " << l.share_m << ", k: " << l.info.k << ", n: " << l.share_n << " }\n"
              << "        tile: { m: " << l.tm << ", k: " << l.tk << ", n: " << l.tn << " }\n";
            if (!l.epilogues.empty()) {
                y << "        epilogues:\n";
                for (const std::string& e : l.epilogues) y << "          - { op: " << e << ", scope: per_output_tile }\n";
            }
        }
        y << "    - wait: all\n";
    }

    const Network& m_net;
    const TopologyConfig& m_topo;
    const MapOptions& m_options;
    std::vector<Transfer> m_transfers;
    const int m_pes;
    std::map<std::string, int> m_uses;
    std::set<std::string> m_constant;
    std::map<std::string, std::vector<std::string>> m_producer;  // tensor -> layers that wrote it
    std::map<std::string, std::size_t> m_layer_of_output;        // a GEMM layer's (fused) output
    std::vector<Layer> m_layers;
    std::vector<std::string> m_folded;
};

}  // namespace

Mapping greedy_map(const Network& net, const TopologyConfig& topo, const MapOptions& options) {
    return Greedy(net, topo, options).run();
}

const std::map<std::string, Mapper>& mappers() {
    static const std::map<std::string, Mapper> registry = {{"builtin.greedy_mapper", greedy_map}};
    return registry;
}

}  // namespace npuvp::model
