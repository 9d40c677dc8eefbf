// The fake-quantize modules of ember::quantization as torch 1.13's classes of
// torch.ao.quantization.fake_quantize (_C._quantization), and
// ember.fused_moving_avg_obs_fake_quant. The constructors run torch's Python prologue (the
// observer made from `observer(**observer_kwargs)`, its range asserts) and hand the observer to
// the C++ module.
#include "quantization.h"
#include "quantization_args.h"

namespace ember::python {

namespace {

namespace q = ember::quantization;
using VH = py::detail::value_and_holder;

template <class T, class Parent>
using Cls = py::class_<T, PyFQ<T>, Parent, std::shared_ptr<T>>;

std::pair<int64_t, int64_t> iinfo(ScalarType t) {
  switch (t) {
    case kQUInt8: case kUInt8: return {0, 255};
    case kQInt8: case kInt8: return {-128, 127};
    case kQInt32: case kInt32: return {-(int64_t{1} << 31), (int64_t{1} << 31) - 1};
    case kInt16: return {-32768, 32767};
    case kInt64: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    default: throw py::type_error("iinfo(): dtype must be an integer type");
  }
}

// FakeQuantize.__init__'s prologue: validates the range against the dtype the observer will
// get and makes the observer.
std::shared_ptr<q::ObserverBase> make_observer(py::handle observer, py::handle quant_min, py::handle quant_max,
                                               py::dict observer_kwargs) {
  if (!quant_min.is_none() && !quant_max.is_none()) {
    if (!(quant_min.cast<int64_t>() <= quant_max.cast<int64_t>())) {
      raise_assertion("quant_min must be less than or equal to quant_max");
    }
    py::object dtype = observer_kwargs.contains("dtype") ? py::object(observer_kwargs["dtype"]) : py::cast(kQUInt8);
    if (py::hasattr(observer, "p")) {
      py::object keywords = py::getattr(py::getattr(observer, "p", py::dict()), "keywords", py::dict());
      dtype = keywords.attr("get")("dtype", dtype);
    }
    auto [lo, hi] = iinfo(dtype.cast<ScalarType>());
    if (!(lo <= quant_min.cast<int64_t>())) raise_assertion("quant_min out of bound");
    if (!(quant_max.cast<int64_t>() <= hi)) raise_assertion("quant_max out of bound");
    observer_kwargs["quant_min"] = quant_min;
    observer_kwargs["quant_max"] = quant_max;
  }
  py::object obs = observer(**observer_kwargs);
  auto m = std::dynamic_pointer_cast<q::ObserverBase>(module_from_py(obs));
  EMBER_CHECK_TYPE(m != nullptr, "FakeQuantize: observer() must make an observer (an ObserverBase), got ",
                   Py_TYPE(obs.ptr())->tp_name);
  return m;
}

py::object qparams_to_py(const std::pair<Tensor, Tensor>& p) { return py::make_tuple(p.first, p.second); }

template <class T, class C>
void fq_common(C& cls) {
  bind_own_forward<T>(cls);
  cls.def("calculate_qparams", [](T& self) { return qparams_to_py(self.T::calculate_qparams()); });
}

}  // namespace

void init_quantization_fake_quantize(py::module_& qm) {
  py::class_<q::FakeQuantizeBase, PyFQ<q::FakeQuantizeBase>, nn::Module, std::shared_ptr<q::FakeQuantizeBase>> base(
      qm, "FakeQuantizeBase");
  base.def("__init__", [](VH& v_h) {
             if (!is_subclass_instance(v_h)) {
               throw py::type_error(
                   "Can't instantiate abstract class FakeQuantizeBase with abstract methods calculate_qparams, forward");
             }
             construct_fq<q::FakeQuantizeBase>(v_h, instance_class_name(v_h));
           },
           py::detail::is_new_style_constructor());
  base.def("enable_fake_quant", &q::FakeQuantizeBase::enable_fake_quant, py::arg("enabled") = true)
      .def("disable_fake_quant", &q::FakeQuantizeBase::disable_fake_quant)
      .def("enable_observer", &q::FakeQuantizeBase::enable_observer, py::arg("enabled") = true)
      .def("disable_observer", &q::FakeQuantizeBase::disable_observer)
      .def("calculate_qparams", [](q::FakeQuantizeBase& self) { return qparams_to_py(self.calculate_qparams()); });
  bind_own_forward<q::FakeQuantizeBase>(base);

  Cls<q::FakeQuantize, q::FakeQuantizeBase> fq(qm, "FakeQuantize");
  fq.def("__init__", [qm](VH& v_h, py::args args, py::kwargs kwargs) {
           py::dict extra;
           auto a = bind_args("FakeQuantize.__init__", args, kwargs,
                              {{"observer", qm.attr("MovingAverageMinMaxObserver")},
                               {"quant_min", py::none()},
                               {"quant_max", py::none()}},
                              &extra);
           construct_fq<q::FakeQuantize>(v_h, make_observer(a[0], a[1], a[2], extra), "FakeQuantize");
         },
         py::detail::is_new_style_constructor());
  fq.def_property_readonly("quant_min", &q::FakeQuantize::quant_min)
      .def_property_readonly("quant_max", &q::FakeQuantize::quant_max)
      .def_property_readonly("dtype", [](const q::FakeQuantize& s) { return s.q::FakeQuantize::dtype(); })
      .def_property_readonly("qscheme", [](const q::FakeQuantize& s) { return qscheme_to_py(s.q::FakeQuantize::qscheme()); })
      .def_property_readonly("ch_axis", [](const q::FakeQuantize& s) { return s.q::FakeQuantize::ch_axis(); })
      .def_property_readonly("is_per_channel", &q::FakeQuantize::is_per_channel);
  fq_common<q::FakeQuantize>(fq);

  Cls<q::FixedQParamsFakeQuantize, q::FakeQuantize> fixed(qm, "FixedQParamsFakeQuantize");
  fixed.def("__init__", [qm](VH& v_h, py::args args, py::kwargs kwargs) {
              auto a = bind_args("FixedQParamsFakeQuantize.__init__", args, kwargs, {{"observer", py::object()}});
              py::object obs = a[0]();
              auto fixed_obs = std::dynamic_pointer_cast<q::FixedQParamsObserver>(module_from_py(obs));
              if (!fixed_obs || !py::type::handle_of(obs).is(qm.attr("FixedQParamsObserver"))) {
                raise_assertion("FixedQParamsFakeQuantize's observer must be a FixedQParamsObserver");
              }
              construct_fq<q::FixedQParamsFakeQuantize>(v_h, fixed_obs);
              // torch keeps the constructor it was given.
              py::handle self(reinterpret_cast<PyObject*>(v_h.inst));
              PyObject_GenericSetAttr(self.ptr(), py::str("_observer_ctr").ptr(), a[0].ptr());
            },
            py::detail::is_new_style_constructor());
  fq_common<q::FixedQParamsFakeQuantize>(fixed);

  Cls<q::FusedMovingAvgObsFakeQuantize, q::FakeQuantize> fused(qm, "FusedMovingAvgObsFakeQuantize");
  fused.def("__init__", [qm](VH& v_h, py::args args, py::kwargs kwargs) {
              py::dict extra;
              auto a = bind_args("FusedMovingAvgObsFakeQuantize.__init__", args, kwargs,
                                 {{"observer", qm.attr("MovingAverageMinMaxObserver")},
                                  {"quant_min", py::int_(0)},
                                  {"quant_max", py::int_(255)}},
                                 &extra);
              auto obs = make_observer(a[0], a[1], a[2], extra);
              if (!dynamic_cast<q::MovingAverageMinMaxObserver*>(obs.get()) &&
                  !dynamic_cast<q::MovingAveragePerChannelMinMaxObserver*>(obs.get())) {
                raise_assertion("Fused observer+fake_quant module only works with MovingAverageMinMaxObserver");
              }
              construct_fq<q::FusedMovingAvgObsFakeQuantize>(v_h, obs);
            },
            py::detail::is_new_style_constructor());
  fused.def_property_readonly("is_symmetric_quant", &q::FusedMovingAvgObsFakeQuantize::is_symmetric_quant);
  fq_common<q::FusedMovingAvgObsFakeQuantize>(fused);

  qm.def(
      "fused_moving_avg_obs_fake_quant",
      [](const Tensor& self, const Tensor& observer_on, const Tensor& fake_quant_on, Tensor running_min,
         Tensor running_max, Tensor scale, Tensor zero_point, double averaging_const, int64_t quant_min,
         int64_t quant_max, int64_t ch_axis, bool per_row_fake_quant, bool symmetric_quant) {
        return q::fused_moving_avg_obs_fake_quant(self, observer_on, fake_quant_on, running_min, running_max, scale,
                                                  zero_point, averaging_const, quant_min, quant_max, ch_axis,
                                                  per_row_fake_quant, symmetric_quant);
      },
      py::arg("self"), py::arg("observer_on"), py::arg("fake_quant_on"), py::arg("running_min"),
      py::arg("running_max"), py::arg("scale"), py::arg("zero_point"), py::arg("averaging_const"),
      py::arg("quant_min"), py::arg("quant_max"), py::arg("ch_axis"), py::arg("per_row_fake_quant") = false,
      py::arg("symmetric_quant") = false);
}

}  // namespace ember::python
