// Recognised patterns (docs/models.md "Recognised patterns"): the
// element-wise spellings an ONNX export gives of one operation, each turned
// into one node before mapping, as a compiler's pattern matcher would:
//
//   GELU     x·Φ(x) spelled with Erf (x / √2 → Erf → + 1 → · x → · ½) or
//            Tanh (x + 0.044715 x³ → · √(2/π) → Tanh → + 1 → · x → · ½)
//            -> Gelu (x)
//   SiLU     Sigmoid(x) · x                                -> Silu (x)
//   RMSNorm  x / Sqrt(ReduceMean(x²) + ε) [· w]            -> RMSNormalization (x)
//   rotary   x·cos + Concat(−x₂, x₁)·sin, x₁ x₂ the halves -> RotaryEmbedding (x)
//
// Each group's intermediate values are read only inside it, so nothing else
// needs them in memory; the group's node takes the name of its last node and
// its place in the order, and reads x. The mapper then lowers the new node
// as one layer, or as an epilogue of the GEMM that produced x when x is
// read by nothing else (SPEC T6): so a GELU or a SiLU, which read x twice
// or three times, fuse where the single ops could not.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/onnx_import.h"

namespace npuvp::model {

struct Recognised {
    std::vector<Node> nodes;  // the network's, each group as one node, in dependency order
    // For a group's node: the pattern ("GELU (erf)", "GELU (tanh)", "SiLU",
    // "RMSNorm", "rotary") and the other nodes of the file it replaced.
    struct Group {
        std::string pattern;
        std::vector<std::string> absorbed;
    };
    std::map<std::string, Group> groups;
};

Recognised recognise_patterns(const Network& net);

}  // namespace npuvp::model
