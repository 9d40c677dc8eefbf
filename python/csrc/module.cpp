// ember._C: the pybind11 module. Each area registers itself from its own file; this file only
// fixes the order (types before the tensor object before the ops that use both).
#include "common.h"
#include "nn.h"
#include "torch_function.h"

namespace ember::python {
void init_tensor_methods(py::module_& m);
void init_script_object(py::module_& m);  // values.cpp
void init_runtime(py::module_& m);
void init_quantization_workflow(py::module_& m);  // quantization_workflow.cpp
void init_tensor_api(py::module_& m);
void init_torch_dispatch(py::module_& m);
void init_swap(py::module_& m);
void init_autograd(py::module_& m);
void init_nn_cnn(py::module_& m);
void init_nn_quantized(py::module_& m);  // nn_quantized.cpp
void init_nn_quantized_more(py::module_& m);  // nn_quantized_more.cpp
void init_nn_quantized_embedding(py::module_& m);  // nn_quantized_embedding.cpp
void init_nn_quantized_rnn(py::module_& m);  // nn_quantized_rnn.cpp
void init_nn_qat_embedding(py::module_& m);  // nn_quantized_rnn.cpp
void init_shared_memory(py::module_& m);
void init_generator(py::module_& m);
void init_type_info(py::module_& m);
void init_cuda(py::module_& m);
void init_printing(py::module_& m);
void init_tensor_new(py::module_& m);     // tensor_new.cpp
void init_module_copy(py::module_& nn);  // module_copy.cpp
void init_quantized_tensor(py::module_& m);  // quantized_tensor.cpp
void init_quantized_ops_conv(py::module_& m);  // quantized_ops_conv.cpp
void init_safetensors(py::module_& m);  // safetensors.cpp
void init_hub(py::module_& m);  // hub.cpp
void init_serialization(py::module_& m);  // serialization.cpp
void init_quantized_ops_conv_nd(py::module_& m);  // quantized_ops_conv_nd.cpp
void init_quantization_fuse(py::module_& m);  // quantization_fuse.cpp
void init_quantization(py::module_& m);  // quantization_qconfig.cpp
void init_nn_seq(py::module_& m);  // nn_seq.cpp
void init_nn_rnn(py::module_& m);  // nn_rnn.cpp
void init_nn_nnutils(py::module_& m);  // nn_nnutils.cpp
void init_namesa(py::module_& m);  // namesa.cpp
void init_autocast(py::module_& m);  // autocast.cpp
void init_library(py::module_& m);  // library.cpp
void init_names8(py::module_& m);  // names8.cpp
}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "ember's C++ core, bound for Python";
  init_errors(m);
  init_types(m);
  init_quantized_tensor(m);
  init_generator(m);
  init_tensor_object(m);
  init_script_object(m);
  init_torch_function(m);
  init_ops(m);
  init_tensor_methods(m);
  init_type_info(m);
  init_cuda(m);
  init_printing(m);
  init_runtime(m);
  init_tensor_api(m);
  init_tensor_new(m);
  init_torch_dispatch(m);
  init_library(m);
  init_swap(m);
  init_nn(m);
  init_nn_cnn(m);
  init_nn_seq(m);
  init_nn_rnn(m);
  init_nn_nnutils(m);
  init_nn_quantized(m);
  init_nn_quantized_more(m);
  init_nn_quantized_embedding(m);
  init_nn_quantized_rnn(m);
  init_quantization_fuse(m);
  init_nn_qat_embedding(m);
  py::module_ nn = m.attr("_nn").cast<py::module_>();
  init_module_copy(nn);
  init_quantization_workflow(m);
  init_optim(m);
  init_autograd(m);
  init_names8(m);
  init_shared_memory(m);
  init_quantized_ops_conv(m);
  init_safetensors(m);
  init_hub(m);
  init_serialization(m);
  init_quantized_ops_conv_nd(m);
  init_quantization(m);
  init_namesa(m);
  init_autocast(m);
}
