// Tensor subclasses and modes the dispatch tests use: each records the ops it sees in a log.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/dispatcher.h"
#include "testing.h"

namespace ember::testing {

/// What the handlers of one test saw, as "<who>:<op>" in call order.
inline std::vector<std::string>& dispatch_log() {
  static std::vector<std::string> log;
  return log;
}

/// A tensor whose storage holds `storage` in order, viewed with `sizes` and `strides` (contiguous
/// when empty): literals and transposed layouts without the literal and view ops.
inline Tensor make_tensor(const std::vector<double>& storage, IntArrayRef sizes,
                          IntArrayRef strides = {}, ScalarType dtype = kFloat32) {
  Tensor t = strides.empty() ? empty(sizes, dtype) : empty_strided(sizes, strides, dtype);
  EMBER_CHECK(t.impl()->storage()->nbytes() == storage.size() * t.element_size(),
              "make_tensor: ", storage.size(), " values for a storage of ",
              t.impl()->storage()->nbytes(), " bytes");
  void* base = t.impl()->storage()->data();
  for (size_t i = 0; i < storage.size(); ++i) {
    switch (dtype) {
      case kFloat32:
        static_cast<float*>(base)[i] = static_cast<float>(storage[i]);
        break;
      case kFloat64:
        static_cast<double*>(base)[i] = storage[i];
        break;
      case kInt64:
        static_cast<int64_t*>(base)[i] = static_cast<int64_t>(storage[i]);
        break;
      default:
        EMBER_FAIL("make_tensor: unsupported dtype ", dtype_name(dtype));
    }
  }
  return t;
}

/// The arguments the last FunctionSub handler got. Kept here, not in the hooks: a tensor's hooks
/// holding the tensor would be a reference cycle.
inline Stack& last_args() {
  static Stack args;
  return args;
}

/// What a handler does with the call.
enum class Handling { Decline, Redispatch, Call, ReturnMarker };

/// The result a ReturnMarker handler gives: a tensor nobody else makes.
inline Tensor marker() { return full({1}, -42.0); }

/// A subclass with torch_function only (`torch.Tensor.as_subclass(A)` in PyTorch).
class FunctionSub : public TensorSubclass {
 public:
  explicit FunctionSub(std::string name, Handling handling = Handling::Redispatch)
      : name_(std::move(name)), handling_(handling) {}
  std::string name() const override { return name_; }
  bool has_torch_function() const override { return true; }
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    dispatch_log().push_back(name_ + ":" + op.full_name());
    last_args() = args;
    switch (handling_) {
      case Handling::Decline:
        return std::nullopt;
      case Handling::Redispatch:
        return op.redispatch(args);
      case Handling::Call:
        return op.call(args);
      case Handling::ReturnMarker:
        return Stack{marker()};
    }
    return std::nullopt;
  }
  // A type per name, so two FunctionSubs named alike are one type and differently named two.
  const void* type_key() const override { return type_keys().insert(name_).first->c_str(); }

 private:
  static std::set<std::string>& type_keys() {
    static std::set<std::string> keys;
    return keys;
  }
  std::string name_;
  Handling handling_;
};

/// `x` with function hooks attached (a new impl sharing x's data, as `as_subclass` makes).
inline Tensor function_sub(const Tensor& x, const std::string& name,
                           Handling handling = Handling::Redispatch) {
  Tensor s = alias(x);
  set_subclass(s, make_intrusive<FunctionSub>(name, handling));
  return s;
}

/// A wrapper subclass: metadata only, its data in `elem`. Its torch_dispatch unwraps every
/// wrapper argument, runs the op on the inner tensors and wraps tensor results again; in-place
/// ops return their (wrapper) first argument. `handling` is per type, as a classmethod's would be.
class Wrapper : public TensorSubclass {
 public:
  explicit Wrapper(Tensor e) : elem(std::move(e)) {}
  std::string name() const override { return "Wrapper"; }
  bool has_torch_dispatch() const override { return true; }
  bool has_torch_function() const override { return with_function; }
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    dispatch_log().push_back("Wrapper.function:" + op.full_name());
    return op.redispatch(args);
  }
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override;

  Tensor elem;
  static inline Handling handling = Handling::Call;
  static inline bool with_function = false;  // also a torch_function subclass
};

inline Wrapper* wrapper_of(const Tensor& t) {
  return t.defined() ? dynamic_cast<Wrapper*>(t.impl()->subclass()) : nullptr;
}
inline Tensor wrap(const Tensor& elem) {
  return make_wrapper_tensor(elem.sizes(), elem.strides(), elem.dtype(), elem.device(),
                             make_intrusive<Wrapper>(elem));
}
/// The inner tensor of a wrapper (the wrapper itself has no data to read).
inline Tensor unwrap(const Tensor& t) {
  Wrapper* w = wrapper_of(t);
  return w ? w->elem : t;
}

inline std::optional<Stack> Wrapper::torch_dispatch(const OpHandle& op, const Stack& args) {
  dispatch_log().push_back("Wrapper:" + op.full_name());
  if (handling == Handling::Decline) return std::nullopt;
  if (handling == Handling::Redispatch) return op.redispatch(args);  // refused: no data
  Stack inner;
  for (const Value& v : args) {
    if (v.is_tensor()) {
      inner.emplace_back(unwrap(v.to_tensor()));
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> ts;
      for (const Tensor& t : v.to_tensor_list()) ts.push_back(unwrap(t));
      inner.emplace_back(std::move(ts));
    } else {
      inner.push_back(v);
    }
  }
  Stack out = op.call(inner);
  if (op.is_inplace()) return Stack{args[0]};
  for (Value& v : out)
    if (v.is_tensor()) v = wrap(v.to_tensor());
  return out;
}

/// Modes that log and pass the call on (`call`: to the next mode or the subclasses; `redispatch`:
/// below the layer).
class LogFunctionMode : public FunctionMode {
 public:
  explicit LogFunctionMode(std::string name, Handling handling = Handling::Redispatch)
      : name_(std::move(name)), handling_(handling) {}
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    dispatch_log().push_back(name_ + ":" + op.full_name());
    if (handling_ == Handling::Decline) return std::nullopt;
    if (handling_ == Handling::ReturnMarker) return Stack{marker()};
    return handling_ == Handling::Call ? op.call(args) : op.redispatch(args);
  }

 private:
  std::string name_;
  Handling handling_;
};
class LogDispatchMode : public DispatchMode {
 public:
  explicit LogDispatchMode(std::string name, Handling handling = Handling::Redispatch)
      : name_(std::move(name)), handling_(handling) {}
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    dispatch_log().push_back(name_ + ":" + op.full_name());
    if (handling_ == Handling::Decline) return std::nullopt;
    if (handling_ == Handling::ReturnMarker) return Stack{marker()};
    return handling_ == Handling::Call ? op.call(args) : op.redispatch(args);
  }

 private:
  std::string name_;
  Handling handling_;
};

/// The elements of a contiguous float32 / float64 / int64 tensor as double, read directly: no
/// op runs, so no mode or handler sees the read (expect_values would call contiguous and to).
inline void expect_raw(const Tensor& t, IntArrayRef sizes, const std::vector<double>& expected) {
  ASSERT_EQ(t.sizes().vec(), sizes.vec());
  ASSERT_TRUE(t.is_contiguous() && !t.is_meta() && t.data_ptr() != nullptr);
  std::vector<double> got;
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case kFloat32:
        got.push_back(t.data_ptr<float>()[i]);
        break;
      case kFloat64:
        got.push_back(t.data_ptr<double>()[i]);
        break;
      case kInt64:
        got.push_back(static_cast<double>(t.data_ptr<int64_t>()[i]));
        break;
      default:
        FAIL() << "expect_raw: unsupported dtype " << dtype_name(t.dtype());
    }
  }
  EXPECT_EQ(got, expected);
}

/// Clears the log before a test and resets the Wrapper type's behaviour after it.
class DispatchTest : public ::testing::Test {
 protected:
  void SetUp() override { dispatch_log().clear(); }
  void TearDown() override {
    last_args().clear();
    Wrapper::handling = Handling::Call;
    Wrapper::with_function = false;
  }
  using Log = std::vector<std::string>;
  static Log take_log() { return std::exchange(dispatch_log(), {}); }
};

}  // namespace ember::testing
