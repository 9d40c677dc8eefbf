// The observers of ember::quantization as torch 1.13's classes of
// torch.ao.quantization.observer (_C._quantization; python/ember/ao/quantization/observer.py
// re-exports them and adds what torch writes in Python: with_args, the default observers).
// Constructors take torch's keyword names and defaults; its asserts raise AssertionError.
#include "quantization.h"
#include "quantization_args.h"
#include "quantization/observer_utils.h"

namespace ember::python {

namespace {

namespace q = ember::quantization;
using VH = py::detail::value_and_holder;

template <class T, class Parent>
using Cls = py::class_<T, PyObs<T>, Parent, std::shared_ptr<T>>;

const py::object none = py::none();

py::object eps_default() { return py::float_(static_cast<double>(FLT_EPSILON)); }

// dtype, qscheme, reduce_range, quant_min, quant_max, (factory_kwargs,) eps → ObserverOptions.
q::ObserverOptions options(py::handle dtype, py::handle qscheme, py::handle reduce_range,
                           py::handle quant_min, py::handle quant_max, py::handle eps) {
  q::ObserverOptions o;
  o.dtype = dtype.cast<ScalarType>();
  o.qscheme = to_qscheme(qscheme);
  o.reduce_range = truthy(reduce_range);
  o.quant_min = opt_int(quant_min);
  o.quant_max = opt_int(quant_max);
  o.eps = to_double(eps);
  return o;
}

py::object qparams_to_py(const std::pair<Tensor, Tensor>& p) { return py::make_tuple(p.first, p.second); }

// torch's abstract-class check: ObserverBase itself, or a subclass missing forward or
// calculate_qparams, cannot be instantiated.
void check_not_abstract(VH& v_h) {
  py::handle cls(reinterpret_cast<PyObject*>(Py_TYPE(reinterpret_cast<PyObject*>(v_h.inst))));
  py::handle base(reinterpret_cast<PyObject*>(v_h.type->type));
  std::vector<std::string> missing;
  for (const char* name : {"calculate_qparams", "forward"}) {
    if (cls.attr(name).is(base.attr(name))) missing.emplace_back(name);
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
  throw py::type_error("Can't instantiate abstract class " + instance_class_name(v_h) +
                       " with abstract methods " + list);
}

template <class T, class C>
void common(C& cls) {
  bind_own_forward<T>(cls);
  cls.def("calculate_qparams", [](T& self) { return qparams_to_py(self.T::calculate_qparams()); });
}

// Only the observers torch gives a `qscheme` attribute have one.
template <class C>
void qscheme_property(C& cls) {
  cls.def_property(
      "qscheme", [](const q::ObserverBase& s) { return qscheme_to_py(s.q::ObserverBase::qscheme()); },
      [](q::ObserverBase& s, py::handle v) { s.set_qscheme(to_qscheme(v)); });
}

template <class T, class C>
void min_max_members(C& cls) {
  cls.def("reset_min_max_vals", [](T& self) { self.T::reset_min_max_vals(); });
}

}  // namespace

void init_quantization_observers(py::module_& qm) {
  // ObserverBase(dtype)
  py::class_<q::ObserverBase, PyObs<q::ObserverBase>, nn::Module, std::shared_ptr<q::ObserverBase>> base(
      qm, "ObserverBase");
  base.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
             auto a = bind_args("ObserverBase.__init__", args, kwargs, {{"dtype", py::object()}});
             check_not_abstract(v_h);
             construct_obs<q::ObserverBase>(v_h, instance_class_name(v_h), a[0].cast<ScalarType>());
           },
           py::detail::is_new_style_constructor());
  base.def_property("dtype", &q::ObserverBase::dtype, &q::ObserverBase::set_dtype);
  base.def("calculate_qparams", [](q::ObserverBase& self) { return qparams_to_py(self.calculate_qparams()); });
  bind_own_forward<q::ObserverBase>(base);

  // UniformQuantizationObserverBase(dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps)
  Cls<q::UniformQuantizationObserverBase, q::ObserverBase> uq(qm, "UniformQuantizationObserverBase");
  qscheme_property(uq);
  uq.def_readwrite("quant_min", &q::UniformQuantizationObserverBase::quant_min)
      .def_readwrite("quant_max", &q::UniformQuantizationObserverBase::quant_max)
      .def_readwrite("reduce_range", &q::UniformQuantizationObserverBase::reduce_range)
      .def_readwrite("has_customized_qrange", &q::UniformQuantizationObserverBase::has_customized_qrange)
      .def("_calculate_qparams", [](q::UniformQuantizationObserverBase& self, const Tensor& mn, const Tensor& mx) {
        return qparams_to_py(self.calculate_qparams_from(mn, mx));
      })
      .def("_validate_qmin_qmax", [](q::UniformQuantizationObserverBase&, int64_t qmin, int64_t qmax) {
        if (!(qmin <= 0 && 0 <= qmax)) raise_assertion("Used-specified quantization range must include 0.");
        if (!(qmin < qmax)) raise_assertion("qmin must be strictly less than qmax for user-specified quantization range.");
      })
      .def("reset_min_max_vals", [](q::UniformQuantizationObserverBase&) {
        PyErr_SetString(PyExc_NotImplementedError, "Cannot reset min/max values in the given observer.");
        throw py::error_already_set();
      });

  const std::vector<Param> minmax_params = {
      {"dtype", py::cast(kQUInt8)}, {"qscheme", qscheme_to_py(QScheme::PerTensorAffine)},
      {"reduce_range", py::bool_(false)}, {"quant_min", none}, {"quant_max", none},
      {"factory_kwargs", none}, {"eps", eps_default()}};

  uq.def("__init__", [minmax_params](VH& v_h, py::args args, py::kwargs kwargs) {
           // A Python observer of one's own on torch's common base (it defines forward and
           // calculate_qparams, calling self._calculate_qparams(min, max)).
           auto a = bind_args("UniformQuantizationObserverBase.__init__", args, kwargs, minmax_params);
           check_not_abstract(v_h);
           construct_obs<q::UniformQuantizationObserverBase>(v_h, instance_class_name(v_h),
                                                             options(a[0], a[1], a[2], a[3], a[4], a[6]));
         },
         py::detail::is_new_style_constructor());

  Cls<q::MinMaxObserver, q::UniformQuantizationObserverBase> minmax(qm, "MinMaxObserver");
  minmax.def("__init__", [minmax_params](VH& v_h, py::args args, py::kwargs kwargs) {
               auto a = bind_args("MinMaxObserver.__init__", args, kwargs, minmax_params);
               construct_obs<q::MinMaxObserver>(v_h, options(a[0], a[1], a[2], a[3], a[4], a[6]), "MinMaxObserver");
             },
             py::detail::is_new_style_constructor());
  common<q::MinMaxObserver>(minmax);
  min_max_members<q::MinMaxObserver>(minmax);

  Cls<q::MovingAverageMinMaxObserver, q::MinMaxObserver> ma(qm, "MovingAverageMinMaxObserver");
  ma.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
           py::dict extra;
           auto a = bind_args("MovingAverageMinMaxObserver.__init__", args, kwargs,
                              {{"averaging_constant", py::float_(0.01)}, {"dtype", py::cast(kQUInt8)},
                               {"qscheme", qscheme_to_py(QScheme::PerTensorAffine)}, {"reduce_range", py::bool_(false)},
                               {"quant_min", none}, {"quant_max", none}, {"eps", eps_default()}},
                              &extra);
           // **kwargs go to MinMaxObserver.__init__, which takes factory_kwargs only.
           for (auto item : extra) {
             if (item.first.cast<std::string>() != "factory_kwargs") {
               throw py::type_error("MinMaxObserver.__init__() got an unexpected keyword argument '" +
                                    item.first.cast<std::string>() + "'");
             }
           }
           construct_obs<q::MovingAverageMinMaxObserver>(v_h, to_double(a[0]), options(a[1], a[2], a[3], a[4], a[5], a[6]));
         },
         py::detail::is_new_style_constructor());
  ma.def_readwrite("averaging_constant", &q::MovingAverageMinMaxObserver::averaging_constant);
  bind_own_forward<q::MovingAverageMinMaxObserver>(ma);

  Cls<q::PerChannelMinMaxObserver, q::UniformQuantizationObserverBase> pc(qm, "PerChannelMinMaxObserver");
  pc.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
           auto a = bind_args("PerChannelMinMaxObserver.__init__", args, kwargs,
                              {{"ch_axis", py::int_(0)}, {"dtype", py::cast(kQUInt8)},
                               {"qscheme", qscheme_to_py(QScheme::PerChannelAffine)}, {"reduce_range", py::bool_(false)},
                               {"quant_min", none}, {"quant_max", none}, {"factory_kwargs", none}, {"eps", eps_default()}});
           construct_obs<q::PerChannelMinMaxObserver>(v_h, a[0].cast<int64_t>(), options(a[1], a[2], a[3], a[4], a[5], a[7]),
                                                      "PerChannelMinMaxObserver");
         },
         py::detail::is_new_style_constructor());
  pc.def_property("ch_axis", [](const q::PerChannelMinMaxObserver& s) { return s.q::PerChannelMinMaxObserver::ch_axis(); },
                  &q::PerChannelMinMaxObserver::set_ch_axis);
  common<q::PerChannelMinMaxObserver>(pc);
  min_max_members<q::PerChannelMinMaxObserver>(pc);

  Cls<q::MovingAveragePerChannelMinMaxObserver, q::PerChannelMinMaxObserver> mapc(qm, "MovingAveragePerChannelMinMaxObserver");
  mapc.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
             py::dict extra;
             auto a = bind_args("MovingAveragePerChannelMinMaxObserver.__init__", args, kwargs,
                                {{"averaging_constant", py::float_(0.01)}, {"ch_axis", py::int_(0)},
                                 {"dtype", py::cast(kQUInt8)}, {"qscheme", qscheme_to_py(QScheme::PerChannelAffine)},
                                 {"reduce_range", py::bool_(false)}, {"quant_min", none}, {"quant_max", none},
                                 {"eps", eps_default()}},
                                &extra);
             for (auto item : extra) {
               if (item.first.cast<std::string>() != "factory_kwargs") {
                 throw py::type_error("PerChannelMinMaxObserver.__init__() got an unexpected keyword argument '" +
                                      item.first.cast<std::string>() + "'");
               }
             }
             construct_obs<q::MovingAveragePerChannelMinMaxObserver>(
                 v_h, to_double(a[0]), a[1].cast<int64_t>(), options(a[2], a[3], a[4], a[5], a[6], a[7]));
           },
           py::detail::is_new_style_constructor());
  mapc.def_readwrite("averaging_constant", &q::MovingAveragePerChannelMinMaxObserver::averaging_constant);
  bind_own_forward<q::MovingAveragePerChannelMinMaxObserver>(mapc);

  Cls<q::HistogramObserver, q::UniformQuantizationObserverBase> hist(qm, "HistogramObserver");
  hist.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
             auto a = bind_args("HistogramObserver.__init__", args, kwargs,
                                {{"bins", py::int_(2048)}, {"upsample_rate", py::int_(128)},
                                 {"dtype", py::cast(kQUInt8)}, {"qscheme", qscheme_to_py(QScheme::PerTensorAffine)},
                                 {"reduce_range", py::bool_(false)}, {"quant_min", none}, {"quant_max", none},
                                 {"factory_kwargs", none}, {"eps", eps_default()}});
             construct_obs<q::HistogramObserver>(v_h, a[0].cast<int64_t>(), a[1].cast<int64_t>(),
                                                 options(a[2], a[3], a[4], a[5], a[6], a[8]));
           },
           py::detail::is_new_style_constructor());
  hist.def_readwrite("bins", &q::HistogramObserver::bins)
      .def_readwrite("upsample_rate", &q::HistogramObserver::upsample_rate)
      .def_readwrite("dst_nbins", &q::HistogramObserver::dst_nbins)
      .def_readwrite("truncate_histc_range", &q::HistogramObserver::truncate_histc_range)
      .def("_non_linear_param_search", [](q::HistogramObserver& s) {
        auto [a, b] = s.non_linear_param_search();
        return py::make_tuple(a, b);
      })
      .def("_compute_quantization_error", &q::HistogramObserver::compute_quantization_error);
  common<q::HistogramObserver>(hist);
  qm.def("_set_histogram_observer_truncates_histc_range", &q::set_histogram_observer_truncates_histc_range);
  qm.def("_histogram_observer_truncates_histc_range", &q::histogram_observer_truncates_histc_range);

  Cls<q::FixedQParamsObserver, q::ObserverBase> fixed(qm, "FixedQParamsObserver");
  qscheme_property(fixed);
  fixed.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
              auto a = bind_args("FixedQParamsObserver.__init__", args, kwargs,
                                 {{"scale", py::object()}, {"zero_point", py::object()}, {"dtype", py::cast(kQUInt8)},
                                  {"qscheme", qscheme_to_py(QScheme::PerTensorAffine)}, {"quant_min", py::int_(0)},
                                  {"quant_max", py::int_(255)}});
              construct_obs<q::FixedQParamsObserver>(v_h, to_double(a[0]), a[1].cast<int64_t>(), a[2].cast<ScalarType>(),
                                                     to_qscheme(a[3]), a[4].cast<int64_t>(), a[5].cast<int64_t>());
            },
            py::detail::is_new_style_constructor());
  fixed.def_readwrite("quant_min", &q::FixedQParamsObserver::quant_min)
      .def_readwrite("quant_max", &q::FixedQParamsObserver::quant_max);
  common<q::FixedQParamsObserver>(fixed);

  Cls<q::PlaceholderObserver, q::ObserverBase> ph(qm, "PlaceholderObserver");
  ph.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
           auto a = bind_args("PlaceholderObserver.__init__", args, kwargs,
                              {{"dtype", py::cast(kFloat32)}, {"custom_op_name", py::str("")}, {"compute_dtype", none}});
           std::optional<ScalarType> compute;
           if (truthy(a[2])) compute = a[2].cast<ScalarType>();
           construct_obs<q::PlaceholderObserver>(v_h, a[0].cast<ScalarType>(), a[1].cast<std::string>(), compute,
                                                 "PlaceholderObserver");
         },
         py::detail::is_new_style_constructor());
  ph.def_readwrite("custom_op", &q::PlaceholderObserver::custom_op);
  // Set only when given, as torch's (`hasattr(obs, "compute_dtype")` tells dynamic from static).
  ph.def_property(
      "compute_dtype",
      [](const q::PlaceholderObserver& s) -> py::object {
        if (!s.compute_dtype) throw py::attribute_error("'PlaceholderObserver' object has no attribute 'compute_dtype'");
        return py::cast(*s.compute_dtype);
      },
      [](q::PlaceholderObserver& s, py::handle v) {
        s.compute_dtype = v.is_none() ? std::nullopt : std::optional<ScalarType>(v.cast<ScalarType>());
      });
  common<q::PlaceholderObserver>(ph);

  Cls<q::NoopObserver, q::ObserverBase> noop(qm, "NoopObserver");
  noop.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
             auto a = bind_args("NoopObserver.__init__", args, kwargs,
                                {{"dtype", py::cast(kFloat16)}, {"custom_op_name", py::str("")}});
             construct_obs<q::NoopObserver>(v_h, a[0].cast<ScalarType>(), a[1].cast<std::string>());
           },
           py::detail::is_new_style_constructor());
  noop.def_readwrite("custom_op", &q::NoopObserver::custom_op);
  common<q::NoopObserver>(noop);

  Cls<q::RecordingObserver, q::ObserverBase> rec(qm, "RecordingObserver");
  rec.def("__init__", [](VH& v_h, py::args args, py::kwargs kwargs) {
            auto a = bind_args("RecordingObserver.__init__", args, kwargs, {{"dtype", py::cast(kQUInt8)}});
            construct_obs<q::RecordingObserver>(v_h, a[0].cast<ScalarType>());
          },
          py::detail::is_new_style_constructor());
  rec.def_property(
      "tensor_val", [](const q::RecordingObserver& s) { return py::cast(s.tensor_val); },
      [](q::RecordingObserver& s, std::vector<Tensor> v) { s.tensor_val = std::move(v); });
  rec.def("get_tensor_value", [](const q::RecordingObserver& s) { return py::cast(s.tensor_val); });
  common<q::RecordingObserver>(rec);

  qm.def("_histc", &q::histc);
  qm.def("check_min_max_valid", &q::detail::check_min_max_valid, py::arg("min_val"), py::arg("max_val"));
  qm.def("calculate_qmin_qmax", [](py::handle quant_min, py::handle quant_max, bool has_customized_qrange,
                                   ScalarType dtype, bool reduce_range) {
    // torch's signature; without a customized range the given bounds are ignored.
    return has_customized_qrange ? q::calculate_qmin_qmax(opt_int(quant_min), opt_int(quant_max), dtype, reduce_range)
                                 : q::calculate_qmin_qmax(std::nullopt, std::nullopt, dtype, reduce_range);
  });
}

}  // namespace ember::python
