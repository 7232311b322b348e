#!/usr/bin/python3
"""Shape-only ONNX models of the best-known network families, and how many npuvp imports.

Issue 39 point 9 asks how much of what architects run npuvp's importer takes.
This writes, with Debian's python3-onnx only, the shapes of public networks as
their papers and reference implementations give them (no weights: npuvp
needs none), each with a fixed name so a rerun writes the same bytes:

    vision    ResNet-18/34/50/101, MobileNetV2, MobileNetV3-Small/Large,
              EfficientNet-B0/B1, ViT-Ti/S/B-16, a U-Net decoder (ConvTranspose,
              Resize), an FPN neck (Resize nearest and linear)
    language  BERT-base/large encoder layers, GPT-2 small/medium/large blocks
              and the small LM head with its top-k, Llama decoder layers
              (Llama-3.2-1B, Llama-3.1-8B and 70B: RMSNorm, rotary
              embedding, grouped-query attention, SwiGLU, a Where mask)

Each family is written the way its ONNX export spells it (RMSNorm as
Pow/ReduceMean/Add/Sqrt/Div, SiLU as Sigmoid·Mul, GELU as Erf, ReLU6 as
Clip); that is what the importer meets.

    /usr/bin/python3 tools/model_zoo.py OUT_DIR                 # write the models
    /usr/bin/python3 tools/model_zoo.py OUT_DIR --npuvp NPUVP   # and run each: npuvp --model

With --npuvp it runs each model on the default topology and prints, per
model, its family, nodes and operators, the layers it mapped to, its makespan
and what bound it, then the count that import, map and run; it exits 1 when
any does not (the CTest `model_zoo_coverage` runs it so).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import F, Graph, conv_bn, layer_norm, linear, attention  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402


def value(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def const_float(g, name, values):
    g.inits.append(helper.make_tensor(name, F, [len(values)], values))
    return name


def relu6(g, x, name):
    zero = g.scalar("relu6.lo", 0.0) if "relu6.lo" not in {t.name for t in g.inits} else "relu6.lo"
    six = g.scalar("relu6.hi", 6.0) if "relu6.hi" not in {t.name for t in g.inits} else "relu6.hi"
    return g.node("Clip", [x, zero, six], name)


def conv(g, x, name, cin, cout, k, stride=1, group=1, bias=False):
    inputs = [x, g.weight(f"{name}.w", [cout, cin // group, k, k])]
    if bias:
        inputs.append(g.weight(f"{name}.b", [cout]))
    return g.node("Conv", inputs, name, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)


def bn(g, x, name, c):
    return g.node("BatchNormalization", [x] + [g.weight(f"{name}.{p}", [c]) for p in ("scale", "bias", "mean", "var")],
                  name)


def act(g, x, name, kind):
    if kind == "relu":
        return g.node("Relu", [x], name)
    if kind == "relu6":
        return relu6(g, x, name)
    if kind == "hswish":
        return g.node("HardSwish", [x], name)
    if kind == "silu":
        return g.node("Mul", [x, g.node("Sigmoid", [x], f"{name}_sigmoid")], name)
    return x


def classifier(g, x, name, cin, classes=1000):
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], f"{name}_gap")], f"{name}_flatten")
    return g.node("Gemm", [x, g.weight(f"{name}.w", [cin, classes]), g.weight(f"{name}.b", [classes])], name)


def image(g, size):
    return value("image", [1, 3, size, size])


# --- vision -------------------------------------------------------------------

def resnet(path, depth):
    """ResNet v1.5 (torchvision): basic blocks for 18/34, bottlenecks for 50/101."""
    blocks = {18: (2, 2, 2, 2), 34: (3, 4, 6, 3), 50: (3, 4, 6, 3), 101: (3, 4, 23, 3)}[depth]
    bottleneck = depth >= 50
    g = Graph(f"resnet{depth}")
    x = conv_bn(g, "image", "conv1", 3, 64, 7, 2)
    x = g.node("MaxPool", [x], "pool1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, count) in enumerate(zip((64, 128, 256, 512), blocks), start=2):
        cout = width * 4 if bottleneck else width
        for b in range(count):
            name, stride = f"res{stage}_{b}", (2 if stage > 2 and b == 0 else 1)
            if bottleneck:
                y = conv_bn(g, x, f"{name}_1x1a", cin, width, 1)
                y = conv_bn(g, y, f"{name}_3x3", width, width, 3, stride)
                y = conv_bn(g, y, f"{name}_1x1b", width, cout, 1, relu=False)
            else:
                y = conv_bn(g, x, f"{name}_3x3a", cin, width, 3, stride)
                y = conv_bn(g, y, f"{name}_3x3b", width, width, 3, relu=False)
            short = conv_bn(g, x, f"{name}_down", cin, cout, 1, stride, relu=False) if (stride != 1 or cin != cout) else x
            x = g.node("Relu", [g.node("Add", [y, short], f"{name}_add")], f"{name}_relu")
            cin = cout
    y = classifier(g, x, "fc", cin)
    g.save(path, [image(g, 224)], [value(y, [1, 1000])])


def mobilenet_v2(path):
    """MobileNetV2 1.0, 224 (Sandler et al. 2018, table 2): inverted residuals, ReLU6 as Clip."""
    g = Graph("mobilenet_v2")
    x = act(g, bn(g, conv(g, "image", "stem", 3, 32, 3, 2), "stem_bn", 32), "stem_relu6", "relu6")
    cin = 32
    for i, (t, c, n, s) in enumerate(((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                                      (6, 160, 3, 2), (6, 320, 1, 1))):
        for b in range(n):
            x = inverted_residual(g, x, f"b{i}_{b}", cin, cin * t, c, 3, s if b == 0 else 1, "relu6")
            cin = c
    x = act(g, bn(g, conv(g, x, "head", cin, 1280, 1), "head_bn", 1280), "head_relu6", "relu6")
    y = classifier(g, x, "fc", 1280)
    g.save(path, [image(g, 224)], [value(y, [1, 1000])])


def make_divisible(v, divisor=8):
    return max(divisor, int(v + divisor / 2) // divisor * divisor)


def squeeze_excite(g, x, name, c, squeezed, gate):
    s = g.node("GlobalAveragePool", [x], f"{name}_pool")
    inner = "relu" if gate == "hsigmoid" else "silu"
    s = act(g, conv(g, s, f"{name}_reduce", c, squeezed, 1, bias=True), f"{name}_act", inner)
    s = conv(g, s, f"{name}_expand", squeezed, c, 1, bias=True)
    s = g.node("HardSigmoid", [s], f"{name}_gate") if gate == "hsigmoid" else g.node("Sigmoid", [s], f"{name}_gate")
    return g.node("Mul", [x, s], f"{name}_scale")


def inverted_residual(g, x, name, cin, hidden, cout, k, stride, nl, se=None):
    """MobileNet's and EfficientNet's block: a 1x1 expansion to `hidden` (none when hidden == cin), a k x k
    depthwise conv, an optional squeeze-excite (its squeezed width and gate), a 1x1 projection, and the
    residual add when the shape stays."""
    y = x
    if hidden != cin:
        y = act(g, bn(g, conv(g, y, f"{name}_expand", cin, hidden, 1), f"{name}_expand_bn", hidden),
                f"{name}_expand_act", nl)
    y = act(g, bn(g, conv(g, y, f"{name}_dw", hidden, hidden, k, stride, group=hidden), f"{name}_dw_bn", hidden),
            f"{name}_dw_act", nl)
    if se:
        y = squeeze_excite(g, y, f"{name}_se", hidden, se[0], se[1])
    y = bn(g, conv(g, y, f"{name}_project", hidden, cout, 1), f"{name}_project_bn", cout)
    return g.node("Add", [y, x], f"{name}_add") if stride == 1 and cin == cout else y


MOBILENET_V3 = {
    # kernel, expanded, out, squeeze-excite, activation, stride (Howard et al. 2019, tables 1 and 2)
    "large": ((3, 16, 16, 0, "relu", 1), (3, 64, 24, 0, "relu", 2), (3, 72, 24, 0, "relu", 1),
              (5, 72, 40, 1, "relu", 2), (5, 120, 40, 1, "relu", 1), (5, 120, 40, 1, "relu", 1),
              (3, 240, 80, 0, "hswish", 2), (3, 200, 80, 0, "hswish", 1), (3, 184, 80, 0, "hswish", 1),
              (3, 184, 80, 0, "hswish", 1), (3, 480, 112, 1, "hswish", 1), (3, 672, 112, 1, "hswish", 1),
              (5, 672, 160, 1, "hswish", 2), (5, 960, 160, 1, "hswish", 1), (5, 960, 160, 1, "hswish", 1)),
    "small": ((3, 16, 16, 1, "relu", 2), (3, 72, 24, 0, "relu", 2), (3, 88, 24, 0, "relu", 1),
              (5, 96, 40, 1, "hswish", 2), (5, 240, 40, 1, "hswish", 1), (5, 240, 40, 1, "hswish", 1),
              (5, 120, 48, 1, "hswish", 1), (5, 144, 48, 1, "hswish", 1), (5, 288, 96, 1, "hswish", 2),
              (5, 576, 96, 1, "hswish", 1), (5, 576, 96, 1, "hswish", 1)),
}


def mobilenet_v3(path, size):
    g = Graph(f"mobilenet_v3_{size}")
    x = act(g, bn(g, conv(g, "image", "stem", 3, 16, 3, 2), "stem_bn", 16), "stem_hswish", "hswish")
    cin = 16
    for i, (k, hidden, c, se, nl, s) in enumerate(MOBILENET_V3[size]):
        x = inverted_residual(g, x, f"b{i}", cin, hidden, c, k, s, nl,
                              (make_divisible(hidden // 4), "hsigmoid") if se else None)
        cin = c
    last, features = (960, 1280) if size == "large" else (576, 1024)
    x = act(g, bn(g, conv(g, x, "head", cin, last, 1), "head_bn", last), "head_hswish", "hswish")
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "gap")], "flatten")
    x = act(g, linear(g, x, "pre_logits", last, features), "pre_logits_hswish", "hswish")
    y = linear(g, x, "fc", features, 1000)
    g.save(path, [image(g, 224)], [value(y, [1, 1000])])


def efficientnet(path, variant):
    """EfficientNet-B0/B1 (Tan and Le 2019, table 1; B1: depth x1.1, 240 px): MBConv, SiLU, SE 0.25."""
    depth, size = {"b0": (1.0, 224), "b1": (1.1, 240)}[variant]
    g = Graph(f"efficientnet_{variant}")
    x = act(g, bn(g, conv(g, "image", "stem", 3, 32, 3, 2), "stem_bn", 32), "stem_silu", "silu")
    cin = 32
    for i, (t, k, c, n, s) in enumerate(((1, 3, 16, 1, 1), (6, 3, 24, 2, 2), (6, 5, 40, 2, 2), (6, 3, 80, 3, 2),
                                         (6, 5, 112, 3, 1), (6, 5, 192, 4, 2), (6, 3, 320, 1, 1))):
        repeats = -(-int(n * depth * 10) // 10)  # ceil(n · depth)
        for b in range(repeats):
            x = inverted_residual(g, x, f"b{i}_{b}", cin, cin * t, c, k, s if b == 0 else 1, "silu",
                                  (max(1, cin // 4), "sigmoid"))
            cin = c
    x = act(g, bn(g, conv(g, x, "head", cin, 1280, 1), "head_bn", 1280), "head_silu", "silu")
    y = classifier(g, x, "fc", 1280)
    g.save(path, [image(g, size)], [value(y, [1, 1000])])


def gelu_erf(g, h, name):
    e = g.node("Erf", [g.node("Div", [h, g.scalar(f"{name}.sqrt2", 2 ** 0.5)], f"{name}_div")], f"{name}_erf")
    e = g.node("Add", [e, g.scalar(f"{name}.one", 1.0)], f"{name}_add")
    return g.node("Mul", [g.node("Mul", [h, e], f"{name}_mul"), g.scalar(f"{name}.half", 0.5)], f"{name}_half")


def vit(path, variant):
    """ViT-{Ti,S,B}/16 at 224 (Dosovitskiy et al. 2020; DeiT for Ti and S): 196 patches + class token."""
    hidden, heads = {"ti": (192, 3), "s": (384, 6), "b": (768, 12)}[variant]
    layers, seq, ffn = 12, 197, 4 * hidden
    g = Graph(f"vit_{variant}_16")
    x = g.node("Conv", ["image", g.weight("patch.w", [hidden, 3, 16, 16]), g.weight("patch.b", [hidden])], "patch",
               kernel_shape=[16, 16], strides=[16, 16])
    x = g.node("Reshape", [x, g.ints("patch.flat", [1, hidden, 196])], "patch_flat")
    x = g.node("Transpose", [x], "patch_t", perm=[0, 2, 1])
    x = g.node("Concat", [g.weight("cls_token", [1, 1, hidden]), x], "cls_concat", axis=1)
    x = g.node("Add", [x, g.weight("pos_embed", [1, seq, hidden])], "pos_add")
    for i in range(layers):
        name = f"blk{i}"
        h = layer_norm(g, x, f"{name}_ln1", hidden)
        qkv = [linear(g, h, f"{name}_{p}", hidden, hidden) for p in "qkv"]
        x = g.node("Add", [attention(g, h, f"{name}_attn", seq, hidden, heads, qkv, causal=False), x], f"{name}_res1")
        h = linear(g, gelu_erf(g, linear(g, layer_norm(g, x, f"{name}_ln2", hidden), f"{name}_fc1", hidden, ffn),
                               f"{name}_gelu"), f"{name}_fc2", ffn, hidden)
        x = g.node("Add", [h, x], f"{name}_res2")
    x = layer_norm(g, x, "ln_final", hidden)
    cls = g.node("Slice", [x, g.ints("cls.start", [0]), g.ints("cls.end", [1]), g.ints("cls.axis", [1])], "cls_slice")
    cls = g.node("Reshape", [cls, g.ints("cls.flat", [1, hidden])], "cls_flat")
    y = linear(g, cls, "head", hidden, 1000)
    g.save(path, [image(g, 224)], [value(y, [1, 1000])])


def unet_decoder(path):
    """A U-Net decoder (Ronneberger et al. 2015, at 1/4 width): 2x2 stride-2 ConvTranspose up-convolutions,
    skip Concat, 3x3 convs; and a bilinear Resize of the logits back to the input size."""
    g = Graph("unet_decoder")
    widths, size = (256, 128, 64, 32, 16), 16  # bottleneck 256 channels at 16x16; skips at 32..256
    x, inputs = "bottleneck", [value("bottleneck", [1, widths[0], size, size])]
    for i, (cin, cout) in enumerate(zip(widths, widths[1:])):
        size *= 2
        up = g.node("ConvTranspose", [x, g.weight(f"up{i}.w", [cin, cout, 2, 2]), g.weight(f"up{i}.b", [cout])],
                    f"up{i}", kernel_shape=[2, 2], strides=[2, 2])
        skip = f"skip{i}"
        inputs.append(value(skip, [1, cout, size, size]))
        x = g.node("Concat", [up, skip], f"cat{i}", axis=1)
        x = g.node("Relu", [conv(g, x, f"dec{i}a", 2 * cout, cout, 3, bias=True)], f"dec{i}a_relu")
        x = g.node("Relu", [conv(g, x, f"dec{i}b", cout, cout, 3, bias=True)], f"dec{i}b_relu")
    x = conv(g, x, "logits", widths[-1], 2, 1, bias=True)
    y = g.node("Resize", [x, "", const_float(g, "logits.scales", [1.0, 1.0, 2.0, 2.0])], "logits_up", mode="linear")
    g.save(path, inputs, [value(y, [1, 2, 2 * size, 2 * size])])


def fpn_neck(path):
    """A feature-pyramid neck (Lin et al. 2017) over ResNet-50's C3..C5 at 640 px: 1x1 laterals,
    top-down nearest Resize x2 and Add, 3x3 outputs; P6 as a strided conv; and a bilinear mask up-sampling."""
    g = Graph("fpn_neck")
    levels = ((512, 80), (1024, 40), (2048, 20))  # C3, C4, C5: channels, side
    inputs = [value(f"c{i + 3}", [1, c, s, s]) for i, (c, s) in enumerate(levels)]
    laterals = [conv(g, f"c{i + 3}", f"lateral{i + 3}", c, 256, 1, bias=True) for i, (c, s) in enumerate(levels)]
    scales = const_float(g, "up.scales", [1.0, 1.0, 2.0, 2.0])
    top = laterals[-1]
    outs = [conv(g, top, "p5", 256, 256, 3, bias=True)]
    for i in (1, 0):
        up = g.node("Resize", [top, "", scales], f"top_down{i + 3}")  # mode nearest (the default)
        top = g.node("Add", [laterals[i], up], f"merge{i + 3}")
        outs.insert(0, conv(g, top, f"p{i + 3}", 256, 256, 3, bias=True))
    outs.append(conv(g, outs[-1], "p6", 256, 256, 3, 2, bias=True))
    mask = g.node("Resize", [outs[0], "", scales], "mask_up", mode="linear")
    sides = (80, 40, 20, 10)
    g.save(path, inputs, [value(o, [1, 256, s, s]) for o, s in zip(outs, sides)] + [value(mask, [1, 256, 160, 160])])


# --- language -----------------------------------------------------------------

def bert(path, variant, seq):
    """One BERT encoder layer (Devlin et al. 2018): base 768/12/3072, large 1024/16/4096."""
    hidden, heads = {"base": (768, 12), "large": (1024, 16)}[variant]
    g = Graph(f"bert_{variant}_layer_s{seq}")
    qkv = [linear(g, "x", f"attn_{p}", hidden, hidden) for p in "qkv"]
    x = layer_norm(g, g.node("Add", [attention(g, "x", "attn", seq, hidden, heads, qkv, causal=False), "x"], "res1"),
                   "ln1", hidden)
    h = linear(g, gelu_erf(g, linear(g, x, "ffn_in", hidden, 4 * hidden), "gelu"), "ffn_out", 4 * hidden, hidden)
    y = layer_norm(g, g.node("Add", [h, x], "res2"), "ln2", hidden)
    g.save(path, [value("x", [1, seq, hidden])], [value(y, [1, seq, hidden])])


def gpt2(path, variant, seq=128):
    """One GPT-2 block (Radford et al. 2019): small 768/12, medium 1024/16, large 1280/20; tanh GELU."""
    hidden, heads = {"small": (768, 12), "medium": (1024, 16), "large": (1280, 20)}[variant]
    g = Graph(f"gpt2_{variant}_block")
    h = layer_norm(g, "x", "ln_1", hidden)
    qkv = g.node("Split", [linear(g, h, "c_attn", hidden, 3 * hidden), g.ints("c_attn.split", [hidden] * 3)],
                 "qkv_split", outputs=3, axis=-1)
    x = g.node("Add", [attention(g, h, "attn", seq, hidden, heads, qkv, causal=True), "x"], "attn_residual")
    h = linear(g, layer_norm(g, x, "ln_2", hidden), "c_fc", hidden, 4 * hidden)
    c = g.node("Mul", [g.node("Pow", [h, g.scalar("three", 3.0)], "gelu_cube"), g.scalar("k", 0.044715)], "gelu_k")
    t = g.node("Tanh", [g.node("Mul", [g.node("Add", [h, c], "gelu_sum"), g.scalar("s", 0.7978845608)], "gelu_s")],
               "gelu_tanh")
    h = g.node("Mul", [g.node("Mul", [h, g.node("Add", [t, g.scalar("one", 1.0)], "gelu_one")], "gelu_mul"),
                       g.scalar("half", 0.5)], "gelu_half")
    y = g.node("Add", [linear(g, h, "c_proj", 4 * hidden, hidden), x], "mlp_residual")
    g.save(path, [value("x", [1, seq, hidden])], [value(y, [1, seq, hidden])])


def gpt2_head(path, seq=128, hidden=768, vocab=50257, k=50):
    """GPT-2 small's sampling head: the final norm, the last token's logits (tied embedding), its top 50."""
    g = Graph("gpt2_small_head")
    x = layer_norm(g, "x", "ln_f", hidden)
    last = g.node("Slice", [x, g.ints("last.start", [seq - 1]), g.ints("last.end", [seq]), g.ints("last.axis", [1])],
                  "last_token")
    logits = g.node("MatMul", [g.node("Reshape", [last, g.ints("last.flat", [1, hidden])], "last_flat"),
                               g.weight("wte_t", [hidden, vocab])], "lm_head")
    values, _ = g.node("TopK", [logits, g.ints("k", [k])], "top_k", outputs=2, axis=-1)
    g.save(path, [value("x", [1, seq, hidden])], [value(values, [1, k])])


def rms_norm(g, x, name, hidden):
    """RMSNorm as a Llama export writes it: x / sqrt(mean(x^2) + eps) * w."""
    ms = g.node("ReduceMean", [g.node("Pow", [x, g.scalar(f"{name}.two", 2.0)], f"{name}_sq")], f"{name}_mean",
                axes=[-1], keepdims=1)
    r = g.node("Sqrt", [g.node("Add", [ms, g.scalar(f"{name}.eps", 1e-5)], f"{name}_eps")], f"{name}_sqrt")
    return g.node("Mul", [g.node("Div", [x, r], f"{name}_div"), g.weight(f"{name}.w", [hidden])], name)


def rotary(g, x, name, seq, d):
    """Rotary embedding (the rotate-half form): x·cos + concat(-x2, x1)·sin, over [1, heads, seq, d]."""
    x1 = g.node("Slice", [x, g.ints(f"{name}.lo0", [0]), g.ints(f"{name}.lo1", [d // 2]), g.ints(f"{name}.ax", [-1])],
                f"{name}_x1")
    x2 = g.node("Slice", [x, g.ints(f"{name}.hi0", [d // 2]), g.ints(f"{name}.hi1", [d]), f"{name}.ax"], f"{name}_x2")
    rot = g.node("Concat", [g.node("Neg", [x2], f"{name}_neg"), x1], f"{name}_rot", axis=-1)
    cos, sin = g.weight(f"{name}.cos", [seq, d]), g.weight(f"{name}.sin", [seq, d])
    return g.node("Add", [g.node("Mul", [x, cos], f"{name}_cos"), g.node("Mul", [rot, sin], f"{name}_sin")], name)


def llama_layer(path, variant, seq=128):
    """One Llama decoder layer, prefill of `seq` tokens (the models' config.json): RMSNorm, rotary
    embedding, grouped-query attention (KV heads repeated by Expand), a causal Where mask, SwiGLU."""
    hidden, heads, kv, ffn = {"3.2-1b": (2048, 32, 8, 8192), "3.1-8b": (4096, 32, 8, 14336),
                              "3.1-70b": (8192, 64, 8, 28672)}[variant]
    d, group = hidden // heads, heads // kv
    g = Graph(f"llama_{variant.replace('.', '_').replace('-', '_')}_layer")
    h = rms_norm(g, "x", "input_norm", hidden)

    def heads_of(t, name, n):
        t = g.node("Reshape", [t, g.ints(f"{name}.split", [1, seq, n, d])], f"{name}_split")
        return g.node("Transpose", [t], f"{name}_t", perm=[0, 2, 1, 3])

    q = rotary(g, heads_of(linear(g, h, "q_proj", hidden, heads * d, bias=False), "q", heads), "q_rope", seq, d)
    k = rotary(g, heads_of(linear(g, h, "k_proj", hidden, kv * d, bias=False), "k", kv), "k_rope", seq, d)
    v = heads_of(linear(g, h, "v_proj", hidden, kv * d, bias=False), "v", kv)

    def repeat_kv(t, name):
        t = g.node("Unsqueeze", [t, g.ints(f"{name}.axis", [2])], f"{name}_unsq")
        t = g.node("Expand", [t, g.ints(f"{name}.shape", [1, kv, group, seq, d])], f"{name}_expand")
        return g.node("Reshape", [t, g.ints(f"{name}.merge", [1, heads, seq, d])], f"{name}_merge")

    k, v = repeat_kv(k, "k_rep"), repeat_kv(v, "v_rep")
    kt = g.node("Transpose", [k], "k_tt", perm=[0, 1, 3, 2])
    s = g.node("Div", [g.node("MatMul", [q, kt], "scores"), g.scalar("scale", float(d) ** 0.5)], "scaled")
    mask = TensorProto()
    mask.name, mask.data_type = "causal", TensorProto.BOOL
    mask.dims.extend([1, 1, seq, seq])
    g.inits.append(mask)
    s = g.node("Where", ["causal", s, g.scalar("neg_inf", -1e4)], "masked")
    c = g.node("MatMul", [g.node("Softmax", [s], "softmax", axis=-1), v], "context")
    c = g.node("Reshape", [g.node("Transpose", [c], "c_t", perm=[0, 2, 1, 3]), g.ints("c.merge", [1, seq, hidden])],
               "c_merge")
    x = g.node("Add", [linear(g, c, "o_proj", hidden, hidden, bias=False), "x"], "attn_residual")
    h = rms_norm(g, x, "post_norm", hidden)
    gate = act(g, linear(g, h, "gate_proj", hidden, ffn, bias=False), "silu", "silu")
    up = linear(g, h, "up_proj", hidden, ffn, bias=False)
    y = g.node("Add", [linear(g, g.node("Mul", [gate, up], "swiglu"), "down_proj", ffn, hidden, bias=False), x],
               "mlp_residual")
    g.save(path, [value("x", [1, seq, hidden])], [value(y, [1, seq, hidden])])


# family, file name, maker
ZOO = [
    ("ResNet", "resnet18", lambda p: resnet(p, 18)),
    ("ResNet", "resnet34", lambda p: resnet(p, 34)),
    ("ResNet", "resnet50", lambda p: resnet(p, 50)),
    ("ResNet", "resnet101", lambda p: resnet(p, 101)),
    ("MobileNet", "mobilenet_v2", mobilenet_v2),
    ("MobileNet", "mobilenet_v3_small", lambda p: mobilenet_v3(p, "small")),
    ("MobileNet", "mobilenet_v3_large", lambda p: mobilenet_v3(p, "large")),
    ("EfficientNet", "efficientnet_b0", lambda p: efficientnet(p, "b0")),
    ("EfficientNet", "efficientnet_b1", lambda p: efficientnet(p, "b1")),
    ("ViT", "vit_ti_16", lambda p: vit(p, "ti")),
    ("ViT", "vit_s_16", lambda p: vit(p, "s")),
    ("ViT", "vit_b_16", lambda p: vit(p, "b")),
    ("segmentation", "unet_decoder", unet_decoder),
    ("detection", "fpn_neck", fpn_neck),
    ("BERT", "bert_base_layer_s128", lambda p: bert(p, "base", 128)),
    ("BERT", "bert_base_layer_s512", lambda p: bert(p, "base", 512)),
    ("BERT", "bert_large_layer_s128", lambda p: bert(p, "large", 128)),
    ("GPT-2", "gpt2_small_block", lambda p: gpt2(p, "small")),
    ("GPT-2", "gpt2_medium_block", lambda p: gpt2(p, "medium")),
    ("GPT-2", "gpt2_large_block", lambda p: gpt2(p, "large")),
    ("GPT-2", "gpt2_small_head", gpt2_head),
    ("Llama", "llama_3_2_1b_layer", lambda p: llama_layer(p, "3.2-1b")),
    ("Llama", "llama_3_1_8b_layer", lambda p: llama_layer(p, "3.1-8b")),
    ("Llama", "llama_3_1_70b_layer", lambda p: llama_layer(p, "3.1-70b")),
]


def main():
    args = sys.argv[1:]
    npuvp = None
    if "--npuvp" in args:
        i = args.index("--npuvp")
        npuvp = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    mapped = 0
    for family, name, make in ZOO:
        path = os.path.join(out, name + ".onnx")
        make(path)
        if npuvp is None:
            print(path)
            continue
        model = onnx.load(path)
        ops = sorted({n.op_type for n in model.graph.node})
        run = subprocess.run([npuvp, "--model", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = run.stdout.splitlines()
        said = {key: next((l[len(key):].strip() for l in lines if l.startswith(key + " ")), "")
                for key in ("model", "makespan", "bound")}
        ok = run.returncode == 0 and said["makespan"] != ""
        mapped += ok
        print(f"{family}  {name}  ({len(model.graph.node)} nodes; {' '.join(ops)})")
        if ok:
            layers = said["model"].split(": ", 1)[-1].split(" by ")[0]
            print(f"    runs: {layers}; makespan {said['makespan']}\n    bound {said['bound']}")
        else:
            print(f"    FAILS (exit {run.returncode}): " + (lines[-1] if lines else ""))
    if npuvp is not None:
        print(f"{mapped} of {len(ZOO)} models import, map and run")
        sys.exit(0 if mapped == len(ZOO) else 1)


if __name__ == "__main__":
    main()
