// Boxed values (ember::Value) as Python objects: what ops return to Python and what override
// handlers receive.
#include "common.h"

namespace ember::python {

py::object value_to_py(const Value& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return py::reinterpret_steal<py::object>(wrap(x));
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          py::tuple t(x.size());  // PyTorch returns Tensor[] results as tuples
          for (size_t i = 0; i < x.size(); ++i)
            t[i] = py::reinterpret_steal<py::object>(wrap(x[i]));
          return t;
        } else if constexpr (std::is_same_v<T, Value::OptionalTensorList>) {
          py::list l;
          for (const auto& t : x) {
            if (t) l.append(py::reinterpret_steal<py::object>(wrap(*t)));
            else l.append(py::none());
          }
          return l;
        } else if constexpr (std::is_same_v<T, ScalarType>) {
          return py::reinterpret_borrow<py::object>(dtype_object(x));
        } else if constexpr (std::is_same_v<T, Device>) {
          return py::reinterpret_steal<py::object>(device_object(x));
        } else if constexpr (std::is_same_v<T, Generator*>) {
          return generator_object(x);
        } else {
          return py::cast(x);  // int, float, bool, str, lists of numbers
        }
      },
      v.storage());
}

}  // namespace ember::python
