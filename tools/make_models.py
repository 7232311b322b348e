#!/usr/bin/python3
"""Writes the shipped shape-only ONNX models of configs/models/ (docs/models.md).

Uses only Debian's python3-onnx. The weights carry their shapes and no data
(npuvp needs no weights); the small int64 tensors that shape inference reads
(Reshape targets, Split sizes) carry their values. Every node has a fixed name
and nothing depends on the time or the machine, so a rerun writes the same
bytes:

    /usr/bin/python3 tools/make_models.py [OUT_DIR]      # default configs/models (Debian's python3, which has python3-onnx)
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17  # LayerNormalization is in opset 17; onnx 1.12 (Debian 12) knows up to 17
F = TensorProto.FLOAT


class Graph:
    def __init__(self, name):
        self.name, self.nodes, self.inits, self.count = name, [], [], {}

    def weight(self, name, shape):
        """An initializer with its shape and no data."""
        t = TensorProto()
        t.name, t.data_type = name, F
        t.dims.extend(shape)
        self.inits.append(t)
        return name

    def ints(self, name, values):
        self.inits.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def scalar(self, name, value):
        self.inits.append(helper.make_tensor(name, F, [], [value]))
        return name

    def node(self, op, inputs, name, outputs=1, **attrs):
        outs = [f"{name}_out{i}" if outputs > 1 else f"{name}_out" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs if outputs > 1 else outs[0]

    def save(self, path, inputs, outputs):
        g = helper.make_graph(self.nodes, self.name, inputs, outputs, initializer=self.inits)
        m = helper.make_model(g, producer_name="npuvp tools/make_models.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 8
        onnx.save(m, path)


def linear(g, x, name, k, n, bias=True):
    y = g.node("MatMul", [x, g.weight(f"{name}.w", [k, n])], name)
    return g.node("Add", [y, g.weight(f"{name}.b", [n])], f"{name}_bias") if bias else y


def mnist(path):
    g = Graph("mnist_mlp")
    h = g.node("Relu", [linear(g, "x", "fc1", 800, 256)], "relu1")
    y = linear(g, h, "fc2", 256, 16)
    g.save(path, [helper.make_tensor_value_info("x", F, [1, 800])],
           [helper.make_tensor_value_info(y, F, [1, 16])])


def conv_bn(g, x, name, cin, cout, k, stride=1, relu=True, group=1):
    y = g.node("Conv", [x, g.weight(f"{name}.w", [cout, cin // group, k, k])], name,
               kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
    y = g.node("BatchNormalization", [y] + [g.weight(f"{name}.bn.{p}", [cout]) for p in ("scale", "bias", "mean", "var")],
               f"{name}_bn")
    return g.node("Relu", [y], f"{name}_relu") if relu else y


def resnet50(path):
    g = Graph("resnet50")
    x = conv_bn(g, "image", "conv1", 3, 64, 7, 2)
    x = g.node("MaxPool", [x], "pool1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3)), start=2):
        for b in range(blocks):
            name, stride = f"res{stage}{chr(ord('a') + b)}", (2 if stage > 2 and b == 0 else 1)
            y = conv_bn(g, x, f"{name}_1x1a", cin, width, 1)
            y = conv_bn(g, y, f"{name}_3x3", width, width, 3, stride)
            y = conv_bn(g, y, f"{name}_1x1b", width, width * 4, 1, relu=False)
            short = conv_bn(g, x, f"{name}_down", cin, width * 4, 1, stride, relu=False) if b == 0 else x
            x = g.node("Relu", [g.node("Add", [y, short], f"{name}_add")], f"{name}_relu")
            cin = width * 4
    x = g.node("GlobalAveragePool", [x], "gap")
    x = g.node("Flatten", [x], "flatten")
    y = g.node("Gemm", [x, g.weight("fc.w", [2048, 1000]), g.weight("fc.b", [1000])], "fc")
    g.save(path, [helper.make_tensor_value_info("image", F, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(y, F, [1, 1000])])


def attention(g, x, name, seq, hidden, heads, qkv, causal):
    d = hidden // heads
    split = g.ints(f"{name}.heads", [1, seq, heads, d])
    merge = g.ints(f"{name}.merge", [1, seq, hidden])
    q, k, v = qkv
    q = g.node("Transpose", [g.node("Reshape", [q, split], f"{name}_q_split")], f"{name}_q_t", perm=[0, 2, 1, 3])
    k = g.node("Transpose", [g.node("Reshape", [k, split], f"{name}_k_split")], f"{name}_k_t", perm=[0, 2, 3, 1])
    v = g.node("Transpose", [g.node("Reshape", [v, split], f"{name}_v_split")], f"{name}_v_t", perm=[0, 2, 1, 3])
    s = g.node("MatMul", [q, k], f"{name}_scores")
    s = g.node("Div", [s, g.scalar(f"{name}.scale", float(d) ** 0.5)], f"{name}_scale")
    if causal:
        mask = TensorProto()
        mask.name, mask.data_type = f"{name}.mask", F
        mask.dims.extend([1, 1, seq, seq])
        g.inits.append(mask)
        s = g.node("Add", [s, mask.name], f"{name}_mask")
    p = g.node("Softmax", [s], f"{name}_softmax", axis=-1)
    c = g.node("MatMul", [p, v], f"{name}_context")
    c = g.node("Reshape", [g.node("Transpose", [c], f"{name}_c_t", perm=[0, 2, 1, 3]), merge], f"{name}_merge")
    return linear(g, c, f"{name}_out", hidden, hidden)


def layer_norm(g, x, name, hidden):
    return g.node("LayerNormalization", [x, g.weight(f"{name}.g", [hidden]), g.weight(f"{name}.b", [hidden])],
                  name, axis=-1)


def bert_layer(path, seq=128, hidden=768, heads=12, ffn=3072):
    g = Graph("bert_base_layer")
    x = "x"
    qkv = [linear(g, x, f"attn_{p}", hidden, hidden) for p in "qkv"]
    a = attention(g, x, "attn", seq, hidden, heads, qkv, causal=False)
    x = layer_norm(g, g.node("Add", [a, x], "attn_residual"), "ln1", hidden)
    h = linear(g, x, "ffn_in", hidden, ffn)
    # GELU as erf (opset 17 has no Gelu): 0.5 · h · (1 + erf(h / sqrt 2))
    e = g.node("Erf", [g.node("Div", [h, g.scalar("sqrt2", 2 ** 0.5)], "gelu_div")], "gelu_erf")
    e = g.node("Add", [e, g.scalar("one", 1.0)], "gelu_add")
    h = g.node("Mul", [g.node("Mul", [h, e], "gelu_mul"), g.scalar("half", 0.5)], "gelu_half")
    y = layer_norm(g, g.node("Add", [linear(g, h, "ffn_out", ffn, hidden), x], "ffn_residual"), "ln2", hidden)
    g.save(path, [helper.make_tensor_value_info("x", F, [1, seq, hidden])],
           [helper.make_tensor_value_info(y, F, [1, seq, hidden])])


def gpt2_block(path, seq=128, hidden=768, heads=12):
    g = Graph("gpt2_small_block")
    x = "x"
    h = layer_norm(g, x, "ln_1", hidden)
    qkv = linear(g, h, "c_attn", hidden, 3 * hidden)
    qkv = g.node("Split", [qkv, g.ints("c_attn.split", [hidden] * 3)], "qkv_split", outputs=3, axis=-1)
    a = attention(g, h, "attn", seq, hidden, heads, qkv, causal=True)
    x = g.node("Add", [a, x], "attn_residual")
    h = linear(g, layer_norm(g, x, "ln_2", hidden), "c_fc", hidden, 4 * hidden)
    # GELU, GPT-2's tanh form: 0.5 · h · (1 + tanh(0.79788 · (h + 0.044715 · h^3)))
    c = g.node("Mul", [g.node("Pow", [h, g.scalar("three", 3.0)], "gelu_cube"), g.scalar("k", 0.044715)], "gelu_k")
    t = g.node("Tanh", [g.node("Mul", [g.node("Add", [h, c], "gelu_sum"), g.scalar("s", 0.7978845608)], "gelu_s")],
               "gelu_tanh")
    t = g.node("Add", [t, g.scalar("one", 1.0)], "gelu_one")
    h = g.node("Mul", [g.node("Mul", [h, t], "gelu_mul"), g.scalar("half", 0.5)], "gelu_half")
    y = g.node("Add", [linear(g, h, "c_proj", 4 * hidden, hidden), x], "mlp_residual")
    g.save(path, [helper.make_tensor_value_info("x", F, [1, seq, hidden])],
           [helper.make_tensor_value_info(y, F, [1, seq, hidden])])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "configs", "models")
    os.makedirs(out, exist_ok=True)
    for name, make in (("mnist_mlp", mnist), ("resnet50", resnet50), ("bert_base_layer", bert_layer),
                       ("gpt2_small_block", gpt2_block)):
        make(os.path.join(out, name + ".onnx"))
        print(os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
