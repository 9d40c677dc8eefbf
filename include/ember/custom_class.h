// Objects of C++ classes that ops take and return (PyTorch's custom classes, torch::CustomClassHolder):
// the packed weights of the quantized ops are such objects. They travel through the dispatcher
// boxed as a Value of kind Object, so __torch_dispatch__ handlers see them, and cross to Python
// as `ember.ScriptObject` instances (the same Python object each time while one is alive).
//
//   struct Packed : ember::CustomClassHolder {
//     const char* class_name() const override {
//       return "__torch__.torch.classes.quantized.LinearPackedParamsBase";
//     }
//   };
//   ember::Value v(ember::make_intrusive<Packed>());   // v.is_object(), v.type_name() is the name
//   auto p = v.to_object<Packed>();                      // TypeError if it holds another class
#pragma once

#include "ember/intrusive_ptr.h"

namespace ember {

class CustomClassHolder : public intrusive_target {
 public:
  /// The qualified name of the class as schemas spell it
  /// ("__torch__.torch.classes.quantized.Conv2dPackedParamsBase"); a static string.
  virtual const char* class_name() const = 0;
};

}  // namespace ember
