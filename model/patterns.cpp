#include "model/patterns.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <set>

namespace npuvp::model {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
// A GELU's nodes: 5 in the erf spelling, 8 in the tanh one; a larger
// element-wise group is not searched for.
constexpr std::size_t kGeluMaxNodes = 12;

class Matcher {
public:
    explicit Matcher(const Network& net) : m_net(net) {
        for (std::size_t i = 0; i < net.nodes.size(); ++i) {
            const Node& n = net.nodes[i];
            for (const std::string& in : n.inputs)
                if (!in.empty()) m_users[in].push_back(i);
            for (const std::string& out : n.outputs)
                if (!out.empty()) m_producer[out] = i;
            // Computed at compile time, as the mapper folds them.
            const bool folded = n.op == "Constant" || n.op == "Shape" ||
                                std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& t) { return constant(t); });
            if (folded)
                for (const std::string& out : n.outputs) m_constant.insert(out);
        }
        for (const std::string& out : net.outputs) ++m_graph_outputs[out];
        m_group.assign(net.nodes.size(), kNone);
    }

    Recognised run() {
        for (std::size_t i = 0; i < m_net.nodes.size(); ++i) {
            const std::string& op = m_net.nodes[i].op;
            if (op == "Div") rms_norm(i);
            else if (op == "Add") rotary(i);
        }
        for (std::size_t i = 0; i < m_net.nodes.size(); ++i) {
            const std::string& op = m_net.nodes[i].op;
            if (op == "Erf" || op == "Tanh") gelu(i);
            else if (op == "Sigmoid") silu(i);
        }
        Recognised out;
        for (std::size_t i = 0; i < m_net.nodes.size(); ++i) {
            const std::size_t g = m_group[i];
            if (g == kNone) {
                out.nodes.push_back(m_net.nodes[i]);
                continue;
            }
            const Group& group = m_groups[g];
            if (i != group.last) continue;
            Node n;
            n.name = m_net.nodes[i].name;
            n.op = group.op;
            n.inputs = {group.x};
            n.outputs = {m_net.nodes[i].outputs.front()};
            Recognised::Group r;
            r.pattern = group.pattern;
            for (const std::size_t j : group.nodes)
                if (j != i) r.absorbed.push_back(m_net.nodes[j].name);
            out.groups[n.name] = r;
            out.nodes.push_back(n);
        }
        return out;
    }

private:
    struct Group {
        std::string op, pattern, x;
        std::vector<std::size_t> nodes;  // ascending
        std::size_t last = 0;
    };

    bool constant(const std::string& t) const {
        if (t.empty() || m_constant.count(t)) return true;
        const auto it = m_net.tensors.find(t);
        return it != m_net.tensors.end() && it->second.constant;
    }
    const std::vector<std::size_t>& readers(const std::string& t) const {
        static const std::vector<std::size_t> none;
        const auto it = m_users.find(t);
        return it == m_users.end() ? none : it->second;
    }
    std::size_t uses(const std::string& t) const {
        const auto u = m_users.find(t);
        const auto g = m_graph_outputs.find(t);
        return (u == m_users.end() ? 0 : u->second.size()) + (g == m_graph_outputs.end() ? 0 : g->second);
    }
    // The node that writes `t` when it is free (in no group yet) and of
    // `op`, else kNone.
    std::size_t producer(const std::string& t, const std::string& op) const {
        const auto it = m_producer.find(t);
        if (it == m_producer.end() || m_group[it->second] != kNone || m_net.nodes[it->second].op != op) return kNone;
        return it->second;
    }
    // The one reader of `t` (which is read once and is no graph output)
    // when it is free and of `op`, else kNone.
    std::size_t only_reader(const std::string& t, const std::string& op) const {
        if (uses(t) != 1) return kNone;
        const auto it = m_users.find(t);
        if (it == m_users.end()) return kNone;
        const std::size_t i = it->second.front();
        return m_group[i] == kNone && m_net.nodes[i].op == op ? i : kNone;
    }
    const std::string& out(std::size_t i) const { return m_net.nodes[i].outputs.front(); }
    bool one_output(std::size_t i) const {
        const Node& n = m_net.nodes[i];
        return !n.outputs.empty() && !n.outputs.front().empty() &&
               std::all_of(n.outputs.begin() + 1, n.outputs.end(), [](const std::string& o) { return o.empty(); });
    }
    // A two-input node's activation input when its other one is constant.
    std::string with_constant(std::size_t i) const {
        const Node& n = m_net.nodes[i];
        if (n.inputs.size() != 2) return {};
        if (constant(n.inputs[1]) && !constant(n.inputs[0])) return n.inputs[0];
        if (constant(n.inputs[0]) && !constant(n.inputs[1])) return n.inputs[1];
        return {};
    }
    bool used_once(std::size_t i) const { return one_output(i) && uses(out(i)) == 1; }

    void add(std::string op, std::string pattern, std::string x, std::vector<std::size_t> nodes) {
        std::sort(nodes.begin(), nodes.end());
        Group g{std::move(op), std::move(pattern), std::move(x), nodes, nodes.back()};
        for (const std::size_t i : nodes) m_group[i] = m_groups.size();
        m_groups.push_back(std::move(g));
    }

    // x / Sqrt(ReduceMean(Pow(x, 2)) + ε) [· w], the Div at `d`.
    void rms_norm(std::size_t d) {
        const Node& div = m_net.nodes[d];
        if (m_group[d] != kNone || div.inputs.size() != 2 || !one_output(d)) return;
        const std::string& x = div.inputs[0];
        const std::size_t q = producer(div.inputs[1], "Sqrt");
        if (q == kNone || !used_once(q)) return;
        const std::size_t a = producer(m_net.nodes[q].inputs.front(), "Add");
        if (a == kNone || !used_once(a)) return;
        const std::size_t r = producer(with_constant(a), "ReduceMean");
        if (r == kNone || !used_once(r)) return;
        const std::size_t p = producer(m_net.nodes[r].inputs.front(), "Pow");
        if (p == kNone || !used_once(p) || with_constant(p) != x || m_net.nodes[p].inputs[0] != x) return;
        // The mean is over the last axis, one value a row.
        const TensorInfo* mean = find(out(r));
        const TensorInfo* in = find(x);
        if (!mean || !in || in->shape.empty() || mean->shape.size() != in->shape.size() || mean->shape.back() != 1)
            return;
        std::vector<std::size_t> nodes = {p, r, a, q, d};
        if (uses(out(d)) == 1) {
            const std::size_t w = only_reader(out(d), "Mul");
            if (w != kNone && one_output(w) && with_constant(w) == out(d)) nodes.push_back(w);
        }
        add("RMSNormalization", "RMSNorm", x, nodes);
    }

    // x·cos + Concat(Neg(x₂), x₁)·sin, the Add at `s`: x₁ and x₂ Slices of x.
    void rotary(std::size_t s) {
        const Node& sum = m_net.nodes[s];
        if (m_group[s] != kNone || sum.inputs.size() != 2 || !one_output(s)) return;
        for (int first = 0; first < 2; ++first) {
            const std::size_t m1 = producer(sum.inputs[first], "Mul");
            const std::size_t m2 = producer(sum.inputs[1 - first], "Mul");
            if (m1 == kNone || m2 == kNone || m1 == m2 || !used_once(m1) || !used_once(m2)) continue;
            const std::string x = with_constant(m1);
            const std::size_t c = producer(with_constant(m2), "Concat");
            if (x.empty() || c == kNone || !used_once(c) || m_net.nodes[c].inputs.size() != 2) continue;
            const std::size_t neg = producer(m_net.nodes[c].inputs[0], "Neg");
            const std::size_t x1 = producer(m_net.nodes[c].inputs[1], "Slice");
            if (neg == kNone || x1 == kNone || !used_once(neg) || !used_once(x1)) continue;
            const std::size_t x2 = producer(m_net.nodes[neg].inputs.front(), "Slice");
            if (x2 == kNone || x2 == x1 || !used_once(x2)) continue;
            if (m_net.nodes[x1].inputs.front() != x || m_net.nodes[x2].inputs.front() != x) continue;
            // The concatenation is x's shape again (the halves swapped).
            const TensorInfo* in = find(x);
            const TensorInfo* rot = find(out(c));
            if (!in || !rot || in->shape != rot->shape) continue;
            add("RotaryEmbedding", "rotary", x, {x1, x2, neg, c, m1, m2, s});
            return;
        }
    }

    static bool gelu_op(const std::string& op) {
        return op == "Div" || op == "Mul" || op == "Add" || op == "Sub" || op == "Pow";
    }

    // x·Φ(x) around the Erf or Tanh at `e`.
    void gelu(std::size_t e) {
        if (m_group[e] != kNone || !one_output(e)) return;
        // x: the nearest value before e that is read more than once, on
        // every path back through element-wise nodes read once.
        std::string x;
        std::vector<std::string> back = {m_net.nodes[e].inputs.front()};
        std::size_t seen = 0;
        while (!back.empty()) {
            const std::string t = back.back();
            back.pop_back();
            if (constant(t)) continue;
            if (uses(t) > 1) {
                if (!x.empty() && x != t) return;
                x = t;
                continue;
            }
            const auto it = m_producer.find(t);
            if (it == m_producer.end() || m_group[it->second] != kNone || !gelu_op(m_net.nodes[it->second].op) ||
                ++seen > kGeluMaxNodes)
                return;
            for (const std::string& in : m_net.nodes[it->second].inputs) back.push_back(in);
        }
        if (x.empty()) return;
        // The group: every element-wise node reading only x, constants and
        // the group's values, in order from x's first reader.
        std::set<std::string> values = {x};
        std::vector<std::size_t> nodes;
        std::set<std::size_t> next(readers(x).begin(), readers(x).end());
        while (!next.empty() && nodes.size() < kGeluMaxNodes) {
            const std::size_t i = *next.begin();
            next.erase(next.begin());
            const Node& n = m_net.nodes[i];
            if (m_group[i] != kNone || !one_output(i) || !(gelu_op(n.op) || i == e)) continue;
            if (!std::all_of(n.inputs.begin(), n.inputs.end(),
                             [&](const std::string& t) { return constant(t) || values.count(t); }))
                continue;
            nodes.push_back(i);
            values.insert(out(i));
            next.insert(readers(out(i)).begin(), readers(out(i)).end());
        }
        // The longest prefix that holds e, reads x at least twice (x·Φ(x))
        // and whose one value read outside it is its last node's.
        for (std::size_t len = nodes.size(); len > 0; --len) {
            const std::vector<std::size_t> g(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(len));
            if (std::find(g.begin(), g.end(), e) == g.end()) continue;
            std::size_t x_reads = 0;
            for (const std::size_t i : g)
                x_reads += static_cast<std::size_t>(std::count(m_net.nodes[i].inputs.begin(), m_net.nodes[i].inputs.end(), x));
            if (x_reads < 2) continue;
            const std::set<std::size_t> in(g.begin(), g.end());
            bool closed = true;
            for (const std::size_t i : g) {
                const std::string& v = out(i);
                const bool read_outside =
                    m_graph_outputs.count(v) ||
                    std::any_of(readers(v).begin(), readers(v).end(), [&](std::size_t r) { return !in.count(r); });
                if (read_outside != (i == g.back())) closed = false;
            }
            if (!closed) continue;
            add("Gelu", m_net.nodes[e].op == "Erf" ? "GELU (erf)" : "GELU (tanh)", x, g);
            return;
        }
    }

    // Sigmoid(x) · x, the Sigmoid at `s`.
    void silu(std::size_t s) {
        if (m_group[s] != kNone || !used_once(s)) return;
        const std::string& x = m_net.nodes[s].inputs.front();
        const std::size_t m = only_reader(out(s), "Mul");
        if (m == kNone || !one_output(m) || m_net.nodes[m].inputs.size() != 2) return;
        const std::vector<std::string>& in = m_net.nodes[m].inputs;
        if (!((in[0] == x && in[1] == out(s)) || (in[1] == x && in[0] == out(s)))) return;
        add("Silu", "SiLU", x, {s, m});
    }

    const TensorInfo* find(const std::string& t) const {
        const auto it = m_net.tensors.find(t);
        return it == m_net.tensors.end() ? nullptr : &it->second;
    }

    const Network& m_net;
    std::map<std::string, std::vector<std::size_t>> m_users;
    std::map<std::string, std::size_t> m_graph_outputs;
    std::map<std::string, std::size_t> m_producer;
    std::set<std::string> m_constant;
    std::vector<std::size_t> m_group;  // per node: its group, or kNone
    std::vector<Group> m_groups;
};

}  // namespace

Recognised recognise_patterns(const Network& net) { return Matcher(net).run(); }

}  // namespace npuvp::model
