// DLPack: tensors cross to and from numpy, real PyTorch and any other DLPack library without a
// copy. Tensor.__dlpack__() hands out a "dltensor" PyCapsule over a DLManagedTensor that keeps
// the ember tensor alive; ember.from_dlpack(obj) takes one (from obj.__dlpack__(), or a capsule
// itself), renames it "used_dltensor" (a capsule is consumed once) and wraps the memory in a
// tensor whose storage calls the producer's deleter when the last tensor over it goes away.
//
// The structs are DLPack's public C ABI (dlpack.h, v0.x: DLManagedTensor without versioning),
// written out here so that no header is needed.
#include "ember/ops/factory.h"
#include "tensor_api.h"

namespace ember::python {

namespace {

namespace dl {
constexpr int32_t kDLCPU = 1;
enum TypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };
struct Device {
  int32_t device_type;  // DLDeviceType, a C enum
  int32_t device_id;
};
struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
}  // namespace dl

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// What an exported capsule owns: the tensor (so its memory lives) and the arrays DLTensor points to.
struct ExportContext {
  ember::Tensor tensor;
  std::vector<int64_t> shape, strides;
  dl::ManagedTensor managed{};
};

dl::DataType dl_dtype(ScalarType t) {
  switch (t) {
    case kFloat32: return {dl::kDLFloat, 32, 1};
    case kFloat64: return {dl::kDLFloat, 64, 1};
    case kFloat16: return {dl::kDLFloat, 16, 1};
    case kBFloat16: return {dl::kDLBfloat, 16, 1};
    case kInt8: return {dl::kDLInt, 8, 1};
    case kInt16: return {dl::kDLInt, 16, 1};
    case kInt32: return {dl::kDLInt, 32, 1};
    case kInt64: return {dl::kDLInt, 64, 1};
    case kUInt8: return {dl::kDLUInt, 8, 1};
    case kBool: return {dl::kDLBool, 8, 1};
    default: break;
  }
  EMBER_FAIL(scalar_type_name(t), " is not supported by dlpack");
}

ScalarType ember_dtype(dl::DataType t) {
  EMBER_CHECK(t.lanes == 1, "ember does not support DLPack tensors with lanes != 1 (got ", t.lanes, ")");
  const int bits = t.bits;
  switch (t.code) {
    case dl::kDLInt:
      if (bits == 8) return kInt8;
      if (bits == 16) return kInt16;
      if (bits == 32) return kInt32;
      if (bits == 64) return kInt64;
      EMBER_FAIL("Unsupported kInt bits ", bits);
    case dl::kDLUInt:
      EMBER_CHECK(bits == 8, "Unsupported kUInt bits ", bits);
      return kUInt8;
    case dl::kDLFloat:
      if (bits == 16) return kFloat16;
      if (bits == 32) return kFloat32;
      if (bits == 64) return kFloat64;
      EMBER_FAIL("Unsupported kFloat bits ", bits);
    case dl::kDLBfloat:
      EMBER_CHECK(bits == 16, "Unsupported kBfloat bits ", bits);
      return kBFloat16;
    case dl::kDLBool:
      EMBER_CHECK(bits == 8, "Unsupported kDLBool bits ", bits);
      return kBool;
    default: break;
  }
  EMBER_FAIL("Unsupported DLPack type code ", static_cast<int>(t.code));
}

void capsule_destructor(PyObject* capsule) {
  // Consumed capsules were renamed; their consumer owns the tensor now.
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* managed = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed && managed->deleter) managed->deleter(managed);
}

py::object to_dlpack(const ember::Tensor& t) {
  EMBER_CHECK(!t.requires_grad(), "Can't export tensors that require gradient, use tensor.detach()");
  EMBER_CHECK(t.is_cpu(), "Cannot pack tensors on ", t.device().str());
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = t;
  ctx->shape = t.sizes().vec();
  ctx->strides = t.strides().vec();
  dl::Tensor& d = ctx->managed.dl_tensor;
  d.data = t.data_ptr();
  d.device = {dl::kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dl_dtype(t.dtype());
  d.shape = ctx->shape.data();
  d.strides = ctx->strides.data();
  d.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = [](dl::ManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); };
  PyObject* capsule = PyCapsule_New(&ctx->managed, kCapsuleName, capsule_destructor);
  if (!capsule) throw py::error_already_set();
  ctx.release();  // the capsule (or its consumer) owns it now
  return py::reinterpret_steal<py::object>(capsule);
}

py::object dlpack_method(const py::args& args, const py::kwargs& kwargs) {
  EMBER_CHECK_TYPE(args.size() <= 2, "__dlpack__() takes at most 1 argument (", args.size() - 1, " given)");
  py::object stream = args.size() == 2 ? py::reinterpret_borrow<py::object>(args[1]) : py::none();
  for (auto item : kwargs) {
    EMBER_CHECK_TYPE(py::str(item.first).cast<std::string>() == "stream" && args.size() == 1,
                     "__dlpack__() got an unexpected keyword argument '", py::str(item.first).cast<std::string>(), "'");
    stream = py::reinterpret_borrow<py::object>(item.second);
  }
  // CPU tensors need no stream synchronisation: any int (or None) is accepted and ignored.
  EMBER_CHECK_TYPE(stream.is_none() || PyLong_Check(stream.ptr()), "stream must be ``int`` or ``none``");
  return to_dlpack(unpack(args[0].ptr()));
}

py::object dlpack_device_method(const py::args& args, const py::kwargs&) {
  const ember::Tensor& t = unpack(args[0].ptr());
  EMBER_CHECK_VALUE(t.is_cpu(), "Unknown device type ", t.device().str(), " for Dlpack");
  return py::make_tuple(dl::kDLCPU, 0);
}

ember::Tensor from_dlpack(py::handle obj) {
  py::object capsule = py::reinterpret_borrow<py::object>(obj);
  if (!PyCapsule_CheckExact(obj.ptr()) && py::hasattr(obj, "__dlpack__")) {
    py::tuple device = obj.attr("__dlpack_device__")();
    const auto type = device[0].cast<int64_t>();
    EMBER_CHECK(type == dl::kDLCPU, "ember.from_dlpack: ember tensors live on the CPU, but this object's "
                "DLPack device type is ", type);
    capsule = obj.attr("__dlpack__")();
  }
  auto* managed = PyCapsule_IsValid(capsule.ptr(), kCapsuleName)
                      ? static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName))
                      : nullptr;
  EMBER_CHECK(managed != nullptr,
              "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, "
              "so you might have already constructed a tensor from it once.");
  const dl::Tensor& d = managed->dl_tensor;
  EMBER_CHECK(d.device.device_type == dl::kDLCPU,
              "ember.from_dlpack: ember tensors live on the CPU, but the DLTensor's device type is ",
              d.device.device_type);
  const ScalarType dtype = ember_dtype(d.dtype);
  std::vector<int64_t> sizes(d.shape, d.shape + d.ndim);
  std::vector<int64_t> strides;
  if (d.strides) strides.assign(d.strides, d.strides + d.ndim);
  else strides = contiguous_strides(sizes);
  // From here on the memory is ours to release: the capsule is consumed, and the producer's
  // deleter runs when the tensor's storage goes (or now, if from_blob refuses the geometry).
  if (PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName) < 0) throw py::error_already_set();
  std::shared_ptr<dl::ManagedTensor> owner(managed, [](dl::ManagedTensor* m) {
    if (!m->deleter) return;
    if (!Py_IsInitialized()) return;
    PyGILState_STATE gil = PyGILState_Ensure();  // numpy's deleter drops Python references
    m->deleter(m);
    PyGILState_Release(gil);
  });
  void* data = static_cast<char*>(d.data) + d.byte_offset;
  return from_blob(data, sizes, strides, TensorOptions(dtype).device(kCPU), [owner](void*) {});
}

}  // namespace

void init_dlpack(py::module_& m) {
  def_overridable_method("__dlpack__", dlpack_method);
  def_overridable_method("__dlpack_device__", dlpack_device_method);
  m.def("from_dlpack", [](py::handle obj) { return from_dlpack(obj); }, py::arg("ext_tensor"));
  m.def("_to_dlpack", [](const ember::Tensor& t) { return to_dlpack(t); }, py::arg("tensor"));
}

}  // namespace ember::python
