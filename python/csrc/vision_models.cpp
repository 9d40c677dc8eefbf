// ember::models (torchvision 0.14's MobileNetV2 and ResNets, their blocks and
// Conv2dNormActivation) as _C._vision classes with torchvision's constructor arguments;
// ember/vision/ re-exports them as ember.vision.models / ember.vision.ops.
//
// torchvision's class-valued arguments (norm_layer, activation_layer, block) arrive as Python
// callables. The stock classes (nn.BatchNorm2d, nn.ReLU, nn.ReLU6, InvertedResidual,
// BasicBlock, Bottleneck) map to the C++ factories, so a stock model is built in C++ alone; any
// other callable (a functools.partial, a Python subclass) is called back from C++ and its module
// crosses as in Note [Python modules under C++ parents]. Python subclasses of the blocks and
// models get a trampoline built with their own class name, so their repr is theirs
// (Note [Trampolines for C++ layers]).
#include "nn_cnn.h"

#include <cmath>

#include "ember/models/misc.h"
#include "ember/models/mobilenetv2.h"
#include "ember/models/quantization.h"
#include "ember/models/resnet.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"

namespace ember::python {

namespace {

using namespace ember::models;
using VH = py::detail::value_and_holder;

// The trampoline named as the alias, so that pybind11 finds a Python subclass's object when C++
// hands the block back (see nn_cnn_layers.cpp).
template <class T, class Alias, class Base = nn::Module>
using Class = py::class_<T, Alias, Base, std::shared_ptr<T>>;

const auto none = py::none();

bool is_class(py::handle o, py::handle cls) { return o.ptr() == cls.ptr(); }

// norm_layer: None -> `if_none`, nn.BatchNorm2d -> the C++ factory, else a call back into Python.
NormLayer norm_layer_from_py(py::handle o, NormLayer if_none) {
  if (o.is_none()) return if_none;
  if (is_class(o, py::type::of<nn::BatchNorm2d>())) return batch_norm2d_layer();
  auto f = hold_py(py::reinterpret_borrow<py::object>(o));
  return [f](int64_t num_features, TensorOptions) {
    py::gil_scoped_acquire gil;
    return module_from_py((*f)(num_features));
  };
}

// What a Python block factory gets as norm_layer: the caller's, or nn.BatchNorm2d for None (as
// torchvision substitutes before calling block).
py::object norm_layer_for_block(py::handle o) {
  if (o.is_none()) return py::type::of<nn::BatchNorm2d>();
  return py::reinterpret_borrow<py::object>(o);
}

ActivationLayer activation_layer_from_py(py::handle o) {
  if (o.is_none()) return nullptr;
  if (is_class(o, py::type::of<nn::ReLU>())) return relu_layer();
  if (is_class(o, py::type::of<nn::ReLU6>())) return relu6_layer();
  auto f = hold_py(py::reinterpret_borrow<py::object>(o));
  return [f](std::optional<bool> inplace) {
    py::gil_scoped_acquire gil;
    if (!inplace) return module_from_py((*f)());
    return module_from_py((*f)(py::arg("inplace") = *inplace));
  };
}

// An expand ratio as the int torchvision's rows hold when it is whole.
py::object ratio_to_py(double r) {
  if (r == std::floor(r)) return py::int_(static_cast<int64_t>(r));
  return py::float_(r);
}

template <class T>
class Named : public PyLayer<T> {
 public:
  template <class... A>
  explicit Named(A&&... a) : PyLayer<T>(std::forward<A>(a)...) {}
};

// __init__'s body for the classes whose protected constructor takes the repr name.
template <class T, class... Args>
void construct_named(VH& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    // Note [Cloning modules]: deep copies copy the trampoline too.
    static const bool cloneable = (nn::register_cloneable<Named<T>, T>(), true);
    (void)cloneable;
    v_h.value_ptr() = new Named<T>(instance_class_name(v_h), std::forward<Args>(args)...);
  } else {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

// A child attribute that torchvision sets to None when absent (downsample).
template <class Cls>
void optional_child(Cls& cls, const char* name) {
  cls.def_property_readonly(name, [name](nn::Module& self) -> py::object {
    for (const auto& [n, c] : self.named_children()) {
      if (n == name) return module_to_py(c);
    }
    return py::none();
  });
}

void bind_misc(py::module_& m) {
  m.def("_make_divisible", &_make_divisible, py::arg("v"), py::arg("divisor"),
        py::arg("min_value") = none);
  Class<Conv2dNormActivation, PyLayer<Conv2dNormActivation>, nn::Sequential> cna(m, "Conv2dNormActivation");
  cna.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, int64_t kernel_size, int64_t stride,
         std::optional<int64_t> padding, int64_t groups, py::handle norm_layer,
         py::handle activation_layer, int64_t dilation, std::optional<bool> inplace,
         std::optional<bool> bias) {
        construct_layer<Conv2dNormActivation>(
            v_h, in, out, kernel_size, stride, padding, groups,
            norm_layer_from_py(norm_layer, nullptr), activation_layer_from_py(activation_layer),
            dilation, inplace, bias, TensorOptions{});
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size") = 3, py::arg("stride") = 1, py::arg("padding") = none,
      py::arg("groups") = 1, py::arg("norm_layer") = py::type::of<nn::BatchNorm2d>(),
      py::arg("activation_layer") = py::type::of<nn::ReLU>(), py::arg("dilation") = 1,
      py::arg("inplace") = true, py::arg("bias") = none);
  cna.def_readonly("out_channels", &Conv2dNormActivation::out_channels);
}

// torchvision's `_forward_impl` (protected in C++: the forward without what a quantizable
// subclass wraps around it), for Python subclasses that write their own forward.
template <class T>
struct ForwardImpl : T {
  static Tensor call(T& self, const Tensor& x) { return (self.*(&ForwardImpl::forward_impl))(x); }
};

template <class T, class Base = nn::Module>
void bind_inverted_residual(py::module_& m, const char* name) {
  Class<T, Named<T>, Base> ir(m, name);
  ir.def(
      "__init__",
      [](VH& v_h, int64_t inp, int64_t oup, int64_t stride, double expand_ratio,
         py::handle norm_layer) {
        construct_named<T>(v_h, inp, oup, stride, expand_ratio,
                           norm_layer_from_py(norm_layer, nullptr), TensorOptions{});
      },
      py::detail::is_new_style_constructor(), py::arg("inp"), py::arg("oup"), py::arg("stride"),
      py::arg("expand_ratio"), py::arg("norm_layer") = none);
  if constexpr (std::is_same_v<Base, nn::Module>) {
    ir.def_readonly("stride", &T::stride)
        .def_readonly("use_res_connect", &T::use_res_connect)
        .def_readonly("out_channels", &T::out_channels)
        .def_readonly("_is_cn", &T::_is_cn);
  }
  bind_own_forward<T>(ir);
}

// MobileNetV2's `block`: None or the C++-backed class `stock` -> the C++ default; anything
// else called back.
template <class T, class Base = nn::Module>
void bind_mobilenet_class(py::module_& m, const char* name, py::handle stock) {
  Class<T, Named<T>, Base> net(m, name);
  auto stock_block = py::reinterpret_borrow<py::object>(stock);
  net.def(
      "__init__",
      [stock_block](VH& v_h, int64_t num_classes, double width_mult, py::object setting,
                    int64_t round_nearest, py::object block, py::object norm_layer,
                    double dropout) {
        std::vector<std::vector<int64_t>> rows;
        if (!setting.is_none()) {
          // torchvision's check (an empty list is an error there, while C++ reads it as "the
          // paper's rows").
          const bool ok = py::len(setting) > 0 && py::len(setting[py::int_(0)]) == 4;
          EMBER_CHECK_VALUE(ok, "inverted_residual_setting should be non-empty or a 4-element "
                                "list, got ", py::repr(setting).cast<std::string>());
          rows = setting.cast<std::vector<std::vector<int64_t>>>();
        }
        InvertedResidualBlock make_block;
        if (!block.is_none() && !is_class(block, stock_block)) {
          auto f = hold_py(block);
          auto norm = hold_py(norm_layer_for_block(norm_layer));
          make_block = [f, norm](int64_t inp, int64_t oup, int64_t stride, double t,
                                 const NormLayer&, TensorOptions) {
            py::gil_scoped_acquire gil;
            return module_from_py((*f)(inp, oup, stride, py::arg("expand_ratio") = ratio_to_py(t),
                                       py::arg("norm_layer") = *norm));
          };
        }
        construct_named<T>(v_h, num_classes, width_mult, std::move(rows), round_nearest,
                           std::move(make_block), norm_layer_from_py(norm_layer, nullptr),
                           dropout, TensorOptions{});
      },
      py::detail::is_new_style_constructor(), py::arg("num_classes") = 1000,
      py::arg("width_mult") = 1.0, py::arg("inverted_residual_setting") = none,
      py::arg("round_nearest") = 8, py::arg("block") = none, py::arg("norm_layer") = none,
      py::arg("dropout") = 0.2);
  if constexpr (std::is_same_v<Base, nn::Module>) {
    net.def_readonly("last_channel", &T::last_channel);
    net.def("_forward_impl", &ForwardImpl<T>::call, py::arg("x"));
  }
  bind_own_forward<T>(net);
}

void bind_mobilenet(py::module_& m) {
  bind_inverted_residual<InvertedResidual>(m, "InvertedResidual");
  bind_mobilenet_class<MobileNetV2>(m, "MobileNetV2", py::type::of<InvertedResidual>());
}

template <class T, class Base = nn::Module>
void bind_block(py::module_& m, const char* name) {
  Class<T, Named<T>, Base> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t inplanes, int64_t planes, int64_t stride, py::handle downsample,
         int64_t groups, int64_t base_width, int64_t dilation, py::handle norm_layer) {
        construct_named<T>(v_h, inplanes, planes, stride, module_from_py(downsample), groups,
                           base_width, dilation, norm_layer_from_py(norm_layer, nullptr),
                           TensorOptions{});
      },
      py::detail::is_new_style_constructor(), py::arg("inplanes"), py::arg("planes"),
      py::arg("stride") = 1, py::arg("downsample") = none, py::arg("groups") = 1,
      py::arg("base_width") = 64, py::arg("dilation") = 1, py::arg("norm_layer") = none);
  cls.attr("expansion") = T::expansion;
  if constexpr (std::is_same_v<Base, nn::Module>) {
    cls.def_readonly("stride", &T::stride);
    optional_child(cls, "downsample");
  }
  bind_own_forward<T>(cls);
}

// ResNet's `block`: the stock classes as the C++ ones, anything else (with `expansion`) called.
ResNetBlock resnet_block(py::handle block, py::handle norm_layer) {
  if (is_class(block, py::type::of<BasicBlock>())) return ResNetBlock::basic();
  if (is_class(block, py::type::of<Bottleneck>())) return ResNetBlock::bottleneck();
  if (is_class(block, py::type::of<ember::models::quantization::QuantizableBasicBlock>())) {
    return ember::models::quantization::quantizable_basic_block();
  }
  if (is_class(block, py::type::of<ember::models::quantization::QuantizableBottleneck>())) {
    return ember::models::quantization::quantizable_bottleneck();
  }
  auto f = hold_py(py::reinterpret_borrow<py::object>(block));
  auto norm = hold_py(norm_layer_for_block(norm_layer));
  ResNetBlock b;
  b.expansion = block.attr("expansion").cast<int64_t>();
  b.make = [f, norm](int64_t inplanes, int64_t planes, int64_t stride,
                     std::shared_ptr<nn::Module> downsample, int64_t groups, int64_t base_width,
                     int64_t dilation, const NormLayer&, TensorOptions) {
    py::gil_scoped_acquire gil;
    return module_from_py((*f)(inplanes, planes, stride, module_to_py(downsample), groups,
                               base_width, dilation, *norm));
  };
  return b;
}

template <class T, class Base = nn::Module>
void bind_resnet_class(py::module_& m, const char* name) {
  Class<T, Named<T>, Base> net(m, name);
  net.def(
      "__init__",
      [](VH& v_h, py::handle block, std::vector<int64_t> layers, int64_t num_classes,
         bool zero_init_residual, int64_t groups, int64_t width_per_group,
         std::optional<std::vector<bool>> replace_stride_with_dilation, py::handle norm_layer) {
        std::vector<bool> replace = replace_stride_with_dilation.value_or(
            std::vector<bool>{false, false, false});
        construct_named<T>(v_h, resnet_block(block, norm_layer), std::move(layers), num_classes,
                           zero_init_residual, groups, width_per_group, std::move(replace),
                           norm_layer_from_py(norm_layer, nullptr), TensorOptions{});
      },
      py::detail::is_new_style_constructor(), py::arg("block"), py::arg("layers"),
      py::arg("num_classes") = 1000, py::arg("zero_init_residual") = false,
      py::arg("groups") = 1, py::arg("width_per_group") = 64,
      py::arg("replace_stride_with_dilation") = none, py::arg("norm_layer") = none);
  if constexpr (std::is_same_v<Base, nn::Module>) {
    net.def("_forward_impl", &ForwardImpl<T>::call, py::arg("x"));
  }
  bind_own_forward<T>(net);
}

void bind_resnet(py::module_& m) {
  bind_block<BasicBlock>(m, "BasicBlock");
  bind_block<Bottleneck>(m, "Bottleneck");
  bind_resnet_class<ResNet>(m, "ResNet");
}

// torchvision.models.quantization's classes (models/quantization.h): the float classes' signatures,
// plus fuse_model(is_qat=None); _replace_relu and quantize_model.
template <class T>
void def_fuse_model() {
  py::type cls = py::type::of<T>();
  cls.attr("fuse_model") = py::cpp_function(
      [](T& self, std::optional<bool> is_qat) { self.fuse_model(is_qat); },
      py::name("fuse_model"), py::is_method(cls), py::arg("is_qat") = none);
}

void bind_quantizable(py::module_& m) {
  namespace qm = ember::models::quantization;
  bind_inverted_residual<qm::QuantizableInvertedResidual, InvertedResidual>(
      m, "QuantizableInvertedResidual");
  bind_mobilenet_class<qm::QuantizableMobileNetV2, MobileNetV2>(
      m, "QuantizableMobileNetV2", py::type::of<qm::QuantizableInvertedResidual>());
  bind_block<qm::QuantizableBasicBlock, BasicBlock>(m, "QuantizableBasicBlock");
  bind_block<qm::QuantizableBottleneck, Bottleneck>(m, "QuantizableBottleneck");
  bind_resnet_class<qm::QuantizableResNet, ResNet>(m, "QuantizableResNet");
  def_fuse_model<qm::QuantizableInvertedResidual>();
  def_fuse_model<qm::QuantizableMobileNetV2>();
  def_fuse_model<qm::QuantizableBasicBlock>();
  def_fuse_model<qm::QuantizableBottleneck>();
  def_fuse_model<qm::QuantizableResNet>();
  m.def("_replace_relu", [](py::handle module) { qm::_replace_relu(*module_from_py(module)); },
        py::arg("module"));
  m.def(
      "quantize_model",
      [](py::handle model, const std::string& backend, py::object fuse) {
        auto mod = module_from_py(model);
        std::function<void(nn::Module&, bool)> fuse_fn;
        if (!fuse.is_none()) {
          fuse_fn = [fuse](nn::Module& m, bool is_qat) {
            py::gil_scoped_acquire gil;
            fuse(module_to_py(m.shared_from_this()), is_qat);
          };
        }
        qm::quantize_model(*mod, backend, fuse_fn);
      },
      py::arg("model"), py::arg("backend"), py::arg("fuse") = none);
}

}  // namespace

void init_vision_models(py::module_& m) {
  bind_misc(m);
  bind_mobilenet(m);
  bind_resnet(m);
  bind_quantizable(m);
}

}  // namespace ember::python
