// An ONNX model built in a test with the ONNX protobuf classes (Debian's
// libonnx-dev): float tensors, opset 17, IR version 8. Used by the model
// import tests (testbench/model/) and the bad-input suite
// (testbench/sc_main/bad_input_test.cpp).
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace npuvp::test {

struct OnnxBuilder {
    onnx::ModelProto m;
    onnx::GraphProto* g;
    OnnxBuilder() : g(m.mutable_graph()) {
        m.set_ir_version(8);
        auto* op = m.add_opset_import();
        op->set_domain("");
        op->set_version(17);
        g->set_name("t");
    }
    static void shape(onnx::ValueInfoProto* v, const std::string& name, const std::vector<std::int64_t>& dims,
                      const std::string& symbolic = "") {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        auto* s = t->mutable_shape();
        if (!symbolic.empty()) s->add_dim()->set_dim_param(symbolic);
        for (std::int64_t d : dims) s->add_dim()->set_dim_value(d);
    }
    OnnxBuilder& input(const std::string& name, const std::vector<std::int64_t>& dims, const std::string& symbolic = "") {
        shape(g->add_input(), name, dims, symbolic);
        return *this;
    }
    OnnxBuilder& output(const std::string& name, const std::vector<std::int64_t>& dims, const std::string& symbolic = "") {
        shape(g->add_output(), name, dims, symbolic);
        return *this;
    }
    // A weight with its shape and no data.
    OnnxBuilder& weight(const std::string& name, const std::vector<std::int64_t>& dims) {
        auto* w = g->add_initializer();
        w->set_name(name);
        w->set_data_type(onnx::TensorProto::FLOAT);
        for (std::int64_t d : dims) w->add_dims(d);
        return *this;
    }
    // An int64 tensor with its values (a Reshape's or an Expand's shape).
    OnnxBuilder& int64s(const std::string& name, const std::vector<std::int64_t>& values) {
        auto* w = g->add_initializer();
        w->set_name(name);
        w->set_data_type(onnx::TensorProto::INT64);
        w->add_dims(static_cast<std::int64_t>(values.size()));
        for (std::int64_t v : values) w->add_int64_data(v);
        return *this;
    }
    onnx::NodeProto* node(const std::string& op, const std::string& name, const std::vector<std::string>& in,
                          const std::vector<std::string>& out) {
        auto* n = g->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const auto& i : in) n->add_input(i);
        for (const auto& o : out) n->add_output(o);
        return n;
    }
    static void ints(onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& values) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (std::int64_t v : values) a->add_ints(v);
    }
    static void attr(onnx::NodeProto* n, const std::string& name, std::int64_t value) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(value);
    }
    std::string bytes() const {
        std::string out;
        BOOST_REQUIRE(m.SerializeToString(&out));
        return out;
    }
    std::string save(const std::string& file) const {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        BOOST_REQUIRE(m.SerializeToOstream(&out));
        return file;
    }
};

}  // namespace npuvp::test
