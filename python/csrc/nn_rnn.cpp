// The recurrent layers and cells of ember::nn as ember.nn classes (torch 1.13's constructors and
// attributes), their forwards over tensors and PackedSequences, and the packing functions of
// torch.nn.utils.rnn (ember/nn/utils/rnn.py builds the PackedSequence class on them).
#include "ember/nn/modules/rnn.h"
#include "ember/nn/utils/rnn.h"
#include "ember/warning.h"
#include "nn_seq.h"

namespace ember::python {

namespace {

using namespace ember::nn;
namespace R = ember::nn::utils::rnn;
using VH = py::detail::value_and_holder;

template <class T, class Base = Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

py::object to_py(const Tensor& t) { return py::reinterpret_steal<py::object>(wrap(t)); }

// RNNBase's dropout check: a number (not a bool) in [0, 1].
double dropout_arg(py::handle d) {
  const bool number = (PyFloat_Check(d.ptr()) || PyLong_Check(d.ptr())) && !PyBool_Check(d.ptr());
  EMBER_CHECK_VALUE(number && d.cast<double>() >= 0 && d.cast<double>() <= 1,
                    "dropout should be a number in range [0, 1] representing the probability of "
                    "an element being zeroed");
  return d.cast<double>();
}

RNNOptions options(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
                   bool batch_first, py::handle dropout, bool bidirectional, int64_t proj_size,
                   const py::object& device, const py::object& dtype) {
  return RNNOptions(input_size, hidden_size)
      .num_layers(num_layers)
      .bias(bias)
      .batch_first(batch_first)
      .dropout(dropout_arg(dropout))
      .bidirectional(bidirectional)
      .proj_size(proj_size)
      .options(tensor_options(device, dtype));
}

std::optional<Tensor> opt_tensor(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return unpack(o.ptr());
}

void bind_rnn_base(py::module_& m) {
  py::class_<RNNBase, Module, std::shared_ptr<RNNBase>> base(m, "RNNBase");
  base.def("reset_parameters", &RNNBase::reset_parameters)
      .def("flatten_parameters", &RNNBase::flatten_parameters)
      .def("extra_repr", [](const RNNBase& self) { return self.extra_repr(); })
      .def_readwrite("mode", &RNNBase::mode)
      .def_readwrite("input_size", &RNNBase::input_size)
      .def_readwrite("hidden_size", &RNNBase::hidden_size)
      .def_readwrite("num_layers", &RNNBase::num_layers)
      .def_readwrite("bias", &RNNBase::bias)
      .def_readwrite("batch_first", &RNNBase::batch_first)
      .def_readwrite("dropout", &RNNBase::dropout)
      .def_readwrite("bidirectional", &RNNBase::bidirectional)
      .def_readwrite("proj_size", &RNNBase::proj_size)
      .def_property_readonly("_all_weights", &RNNBase::all_weight_names)
      .def_property_readonly("_flat_weights_names", [](const RNNBase& self) {
        std::vector<std::string> out;
        for (const auto& l : self.all_weight_names()) out.insert(out.end(), l.begin(), l.end());
        return out;
      })
      .def_property_readonly("_flat_weights", [](RNNBase& self) {
        py::list l;
        for (const auto& t : self.flat_weights()) l.append(to_py(t));
        return l;
      })
      .def_property_readonly("all_weights", [](RNNBase& self) {
        py::list out;
        for (const auto& names : self.all_weight_names()) {
          py::list l;
          for (const auto& n : names) l.append(to_py(self.parameter(n)));
          out.append(l);
        }
        return out;
      });
}

// forward(input, hx=None) of RNN and GRU: tensors or a PackedSequence.
template <class T, class Cls>
void bind_single_forward(Cls& cls) {
  cls.def("forward", [](T& self, py::object input, py::object hx) -> py::object {
    if (py::isinstance(input, packed_class())) {
      auto [out, h] = self.forward_packed(packed_from(input), opt_tensor(hx));
      return py::make_tuple(packed_to(out), to_py(h));
    }
    EMBER_CHECK_TYPE(is_tensor(input.ptr()), "forward(): input must be a Tensor or a PackedSequence");
    auto [out, h] = self.forward(unpack(input.ptr()), opt_tensor(hx));
    return py::make_tuple(to_py(out), to_py(h));
  }, py::arg("input"), py::arg("hx") = none);
  cls.def("extra_repr", [](const T& self) { return self.T::extra_repr(); });
}

void bind_rnns(py::module_& m) {
  bind_rnn_base(m);
  Class<nn::RNN, RNNBase> rnn(m, "RNN");
  rnn.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, int64_t num_layers,
             const std::string& nonlinearity, bool bias, bool batch_first, py::object dropout,
             bool bidirectional, int64_t proj_size, py::object device, py::object dtype) {
            construct_layer<nn::RNN>(v_h, options(input_size, hidden_size, num_layers, bias,
                                                  batch_first, dropout, bidirectional, proj_size,
                                                  device, dtype)
                                              .nonlinearity(nonlinearity));
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("num_layers") = 1, py::arg("nonlinearity") = "tanh", py::arg("bias") = true,
          py::arg("batch_first") = false, py::arg("dropout") = 0.0,
          py::arg("bidirectional") = false, py::kw_only(), py::arg("proj_size") = 0,
          py::arg("device") = none, py::arg("dtype") = none)
      .def_readwrite("nonlinearity", &nn::RNN::nonlinearity);
  bind_single_forward<nn::RNN>(rnn);

  Class<GRU, RNNBase> gru(m, "GRU");
  gru.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
             bool batch_first, py::object dropout, bool bidirectional, int64_t proj_size,
             py::object device, py::object dtype) {
            construct_layer<GRU>(v_h, options(input_size, hidden_size, num_layers, bias,
                                              batch_first, dropout, bidirectional, proj_size,
                                              device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("num_layers") = 1, py::arg("bias") = true, py::arg("batch_first") = false,
          py::arg("dropout") = 0.0, py::arg("bidirectional") = false, py::kw_only(),
          py::arg("proj_size") = 0, py::arg("device") = none, py::arg("dtype") = none);
  bind_single_forward<GRU>(gru);

  Class<LSTM, RNNBase> lstm(m, "LSTM");
  lstm.def("__init__",
           [](VH& v_h, int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
              bool batch_first, py::object dropout, bool bidirectional, int64_t proj_size,
              py::object device, py::object dtype) {
             construct_layer<LSTM>(v_h, options(input_size, hidden_size, num_layers, bias,
                                                batch_first, dropout, bidirectional, proj_size,
                                                device, dtype));
           },
           py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
           py::arg("num_layers") = 1, py::arg("bias") = true, py::arg("batch_first") = false,
           py::arg("dropout") = 0.0, py::arg("bidirectional") = false, py::arg("proj_size") = 0,
           py::arg("device") = none, py::arg("dtype") = none);
  lstm.def("forward", [](LSTM& self, py::object input, py::object hx) -> py::object {
    std::optional<LSTM::State> state;
    if (!hx.is_none()) {
      auto seq = py::reinterpret_borrow<py::sequence>(hx);
      EMBER_CHECK_TYPE(seq.size() == 2, "LSTM: hx must be a tuple (h_0, c_0)");
      state = LSTM::State{unpack(py::object(seq[0]).ptr()), unpack(py::object(seq[1]).ptr())};
    }
    if (py::isinstance(input, packed_class())) {
      auto [out, hc] = self.forward_packed(packed_from(input), state);
      return py::make_tuple(packed_to(out),
                            py::make_tuple(to_py(std::get<0>(hc)), to_py(std::get<1>(hc))));
    }
    EMBER_CHECK_TYPE(is_tensor(input.ptr()), "forward(): input must be a Tensor or a PackedSequence");
    auto [out, hc] = self.forward(unpack(input.ptr()), state);
    return py::make_tuple(to_py(out), py::make_tuple(to_py(std::get<0>(hc)), to_py(std::get<1>(hc))));
  }, py::arg("input"), py::arg("hx") = none);
  lstm.def("extra_repr", [](const LSTM& self) { return self.LSTM::extra_repr(); });
}

void bind_cells(py::module_& m) {
  py::class_<RNNCellBase, Module, std::shared_ptr<RNNCellBase>> base(m, "RNNCellBase");
  base.def("reset_parameters", &RNNCellBase::reset_parameters)
      .def_readwrite("input_size", &RNNCellBase::input_size)
      .def_readwrite("hidden_size", &RNNCellBase::hidden_size)
      .def_readwrite("bias", &RNNCellBase::bias);

  Class<RNNCell, RNNCellBase> rnn(m, "RNNCell");
  rnn.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias,
             const std::string& nonlinearity, py::object device, py::object dtype) {
            construct_layer<RNNCell>(v_h, input_size, hidden_size, bias, nonlinearity,
                                     tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("bias") = true, py::arg("nonlinearity") = "tanh", py::arg("device") = none,
          py::arg("dtype") = none)
      .def_readwrite("nonlinearity", &RNNCell::nonlinearity);
  bind_kw_forward<RNNCell>(rnn, {"input", "hx"}, 1, {none});

  Class<GRUCell, RNNCellBase> gru(m, "GRUCell");
  gru.def("__init__",
          [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias, py::object device,
             py::object dtype) {
            construct_layer<GRUCell>(v_h, input_size, hidden_size, bias,
                                     tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
          py::arg("bias") = true, py::arg("device") = none, py::arg("dtype") = none);
  bind_kw_forward<GRUCell>(gru, {"input", "hx"}, 1, {none});

  Class<LSTMCell, RNNCellBase> lstm(m, "LSTMCell");
  lstm.def("__init__",
           [](VH& v_h, int64_t input_size, int64_t hidden_size, bool bias, py::object device,
              py::object dtype) {
             construct_layer<LSTMCell>(v_h, input_size, hidden_size, bias,
                                       tensor_options(device, dtype));
           },
           py::detail::is_new_style_constructor(), py::arg("input_size"), py::arg("hidden_size"),
           py::arg("bias") = true, py::arg("device") = none, py::arg("dtype") = none);
  bind_kw_forward<LSTMCell>(lstm, {"input", "hx"}, 1, {none});
}

void bind_rnn_utils(py::module_& m) {
  m.def("_pack_padded_sequence_full",
        [](const Tensor& input, const Tensor& lengths, bool batch_first, bool enforce_sorted) {
          auto p = R::pack_padded_sequence(input, lengths, batch_first, enforce_sorted);
          return py::make_tuple(to_py(p.data), to_py(p.batch_sizes), to_py(p.sorted_indices),
                                to_py(p.unsorted_indices));
        });
  m.def("_pad_packed_sequence_full",
        [](py::handle seq, bool batch_first, double padding_value, std::optional<int64_t> total) {
          auto [padded, lengths] = R::pad_packed_sequence(packed_from(seq), batch_first,
                                                          padding_value, total);
          return py::make_tuple(to_py(padded), to_py(lengths));
        });
  m.def("pad_sequence", &R::pad_sequence, py::arg("sequences"), py::arg("batch_first") = false,
        py::arg("padding_value") = 0.0);
  m.def("_pack_padded_sequence", &R::_pack_padded_sequence, py::arg("input"), py::arg("lengths"),
        py::arg("batch_first"));
  m.def("_pad_packed_sequence", &R::_pad_packed_sequence, py::arg("data"),
        py::arg("batch_sizes"), py::arg("batch_first"), py::arg("padding_value"),
        py::arg("total_length"));
}

}  // namespace

py::object packed_class() {
  return py::module_::import("ember.nn.utils.rnn").attr("PackedSequence");
}

R::PackedSequence packed_from(py::handle p) {
  auto field = [&](const char* n) {
    py::object o = p.attr(n);
    return o.is_none() ? Tensor() : unpack(o.ptr());
  };
  return R::PackedSequence{field("data"), field("batch_sizes"), field("sorted_indices"),
                           field("unsorted_indices")};
}

py::object packed_to(const R::PackedSequence& p) {
  return packed_class()(to_py(p.data), to_py(p.batch_sizes), to_py(p.sorted_indices),
                        to_py(p.unsorted_indices));
}

void init_nn_rnn(py::module_& parent) {
  py::module_ m = parent.attr("_nn");
  bind_rnns(m);
  bind_cells(m);
  bind_rnn_utils(m);
}

}  // namespace ember::python
