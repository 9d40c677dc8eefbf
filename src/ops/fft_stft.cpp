// ember::stft / istft: the short-time Fourier transform and its inverse as PyTorch 1.13 computes
// them (aten/src/ATen/native/SpectralOps.cpp and torch/functional.py): frames as a strided view,
// the window, one batched _fft_r2c / _fft_c2c over the frames, and for the inverse _fft_c2r /
// _fft_c2c, the window again, and an overlap-add (col2im) divided by the window's squared
// envelope. Composites of differentiable ops, so gradients flow as in PyTorch.
#include <atomic>
#include <sstream>

#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/fft.h"
#include "ember/ops/math.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pooling.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"
#include "ember/warning.h"

#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's Tensor::toString() in these messages: the legacy type name for the types that have
// one ("torch.FloatTensor", here "ember.FloatTensor"), the backend-type name for complex ones.
std::string type_string(const Tensor& t) {
  if (t.is_complex()) return std::string("CPU") + scalar_type_name(t.dtype()) + "Type";
  return std::string("ember.") + scalar_type_name(t.dtype()) + "Tensor";
}

template <class T>
void write_opt(std::ostringstream& ss, const std::optional<T>& v) {
  if (v) ss << *v;
  else ss << "None";
}

void write_window(std::ostringstream& ss, const std::optional<Tensor>& window) {
  ss << ", window=";
  if (window && window->defined()) ss << type_string(*window) << "{" << window->sizes() << "}";
  else ss << "None";
}

bool has(const std::optional<Tensor>& t) { return t && t->defined(); }

void warn_once(std::atomic<bool>& flag, const char* text) {
  if (!flag.exchange(true)) warn(text);
}

// The window as n_fft long: `window` (or ones) centred between zeros when win_length < n_fft.
Tensor padded_window(const std::optional<Tensor>& window, int64_t n_fft, int64_t win_length, TensorOptions options) {
  if (win_length == n_fft) return has(window) ? *window : Tensor();
  const int64_t left = (n_fft - win_length) / 2;
  Tensor w = zeros({n_fft}, has(window) ? TensorOptions(window->dtype()).device(window->device()) : options);
  if (has(window)) w.narrow(0, left, win_length).copy_(*window);
  else w.narrow(0, left, win_length).fill_(1);
  return w;
}

Tensor stft_impl(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length_opt,
                 std::optional<int64_t> win_length_opt, const std::optional<Tensor>& window, bool normalized,
                 std::optional<bool> onesided_opt, std::optional<bool> return_complex_opt) {
  static std::atomic<bool> warned{false};
  const bool return_complex =
      return_complex_opt.value_or(self.is_complex() || (has(window) && window->is_complex()));
  if (!return_complex && !return_complex_opt) {
    warn_once(warned,
              "stft will soon require the return_complex parameter be given for real inputs, and will further "
              "require that return_complex=True in a future PyTorch release.");
  }
  const int64_t hop_length = hop_length_opt.value_or(n_fft >> 2);
  const int64_t win_length = win_length_opt.value_or(n_fft);
  auto fail = [&](const auto&... what) {
    std::ostringstream ss;
    ss << "stft(" << type_string(self) << self.sizes() << ", n_fft=" << n_fft << ", hop_length=" << hop_length
       << ", win_length=" << win_length;
    write_window(ss, window);
    ss << ", normalized=" << normalized << ", onesided=";
    write_opt(ss, onesided_opt);
    ss << ", return_complex=";
    write_opt(ss, return_complex_opt);
    ss << ") ";
    ((ss << what), ...);
    EMBER_FAIL(ss.str());
  };
  if (!is_floating(self.dtype()) && !self.is_complex()) fail(": expected a tensor of floating point or complex values");
  if (self.dim() > 2 || self.dim() < 1) fail(": expected a 1D or 2D tensor");
  Tensor input = self.dim() == 1 ? self.unsqueeze(0) : self;
  const int64_t batch = input.size(0), len = input.size(1);
  if (n_fft <= 0 || n_fft > len) fail(": expected 0 < n_fft < ", len, ", but got n_fft=", n_fft);
  if (hop_length <= 0) fail(": expected hop_length > 0, but got hop_length=", hop_length);
  if (win_length <= 0 || win_length > n_fft) fail(": expected 0 < win_length <= n_fft, but got win_length=", win_length);
  if (has(window) && (window->dim() != 1 || window->size(0) != win_length)) {
    fail(": expected a 1D window tensor of size equal to win_length=", win_length, ", but got window with size ",
         window->sizes());
  }
  const Tensor w = padded_window(window, n_fft, win_length, TensorOptions(self.dtype()).device(self.device()));
  const int64_t n_frames = 1 + (len - n_fft) / hop_length;
  // Frames as a view: frame f starts at f * hop_length.
  input = input.as_strided({batch, n_frames, n_fft}, {input.stride(0), hop_length * input.stride(1), input.stride(1)},
                           input.storage_offset());
  if (w.defined()) input = input * w;
  const bool complex_fft = input.is_complex();
  const bool onesided = onesided_opt.value_or(!complex_fft);
  const int64_t normalization = normalized ? 1 : 0;  // by 1/sqrt(n), or none
  Tensor out;
  if (complex_fft) {
    EMBER_CHECK(!onesided, "Cannot have onesided output if window or input is complex");
    out = _fft_c2c(input, {input.dim() - 1}, normalization, /*forward=*/true);
  } else {
    out = _fft_r2c(input, {input.dim() - 1}, normalization, onesided);
  }
  out = out.transpose(1, 2);
  if (self.dim() == 1) out = out.squeeze(0);
  return return_complex ? out : view_as_real(out);
}

// torch.stft's centring (torch/functional.py): the signal padded by n_fft / 2 on both sides
// with `pad_mode`, as a 3-d view for F.pad, before the frames are cut.
Tensor stft_center_impl(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                        std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool center,
                        const std::string& pad_mode, bool normalized, std::optional<bool> onesided,
                        std::optional<bool> return_complex) {
  Tensor input = self;
  if (center) {
    const int64_t signal_dim = self.dim();
    std::vector<int64_t> extended(static_cast<size_t>(std::max<int64_t>(0, 3 - signal_dim)), 1);
    for (int64_t s : self.sizes()) extended.push_back(s);
    const int64_t p = n_fft / 2;
    Tensor padded = pad(self.view(extended), {p, p}, pad_mode);
    const auto ps = padded.sizes().vec();
    input = padded.view(std::vector<int64_t>(ps.end() - signal_dim, ps.end()));
  }
  return stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex);
}

// The frames (channels, n_fft, n_frames) added at hop_length apart: col2im, on the real and
// imaginary parts of complex frames. (channels, len).
Tensor overlap_add(const Tensor& frames, int64_t len, int64_t n_fft, int64_t hop_length) {
  if (frames.is_complex()) {
    return complex(overlap_add(real(frames), len, n_fft, hop_length), overlap_add(imag(frames), len, n_fft, hop_length));
  }
  return col2im(frames, {1, len}, {1, n_fft}, {1, 1}, {0, 0}, {1, hop_length}).view({frames.size(0), len});
}

Tensor istft_impl(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length_opt,
                  std::optional<int64_t> win_length_opt, const std::optional<Tensor>& window, bool center,
                  bool normalized, std::optional<bool> onesided_opt, std::optional<int64_t> length_opt,
                  bool return_complex) {
  static std::atomic<bool> warned_real{false}, warned_length{false};
  const int64_t hop_length = hop_length_opt.value_or(n_fft >> 2);
  const int64_t win_length = win_length_opt.value_or(n_fft);
  auto text = [&](const auto&... what) {
    std::ostringstream ss;
    ss << "istft(" << type_string(self) << self.sizes() << ", n_fft=" << n_fft << ", hop_length=" << hop_length
       << ", win_length=" << win_length;
    write_window(ss, window);
    ss << ", center=" << center << ", normalized=" << normalized << ", onesided=";
    write_opt(ss, onesided_opt);
    ss << ", length=";
    write_opt(ss, length_opt);
    ss << ", return_complex=" << return_complex << ") ";
    ((ss << what), ...);
    return ss.str();
  };
  auto fail = [&](const auto&... what) { EMBER_FAIL(text(what...)); };
  if (!self.is_complex()) {
    warn_once(warned_real,
              "istft will require a complex-valued input tensor in a future PyTorch release. Matching the output "
              "from stft with return_complex=True. ");
  }
  Tensor input = self.is_complex() ? view_as_real(self) : self;
  const int64_t input_dim = input.dim();
  const int64_t n_frames = input.size(-2);
  const int64_t fft_size = input.size(-3);
  const int64_t expected_len = n_fft + hop_length * (n_frames - 1);
  if (input.numel() == 0) fail(": input tensor cannot be empty.");
  if (input_dim != 3 && input_dim != 4) {
    fail(": expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of  complex, but got ", input_dim);
  }
  if (input.size(-1) != 2) {
    fail(": expected the last dimension to be 2 (corresponding to real and imaginary parts), but got ", self.size(-1));
  }
  const bool onesided = onesided_opt.value_or(fft_size != n_fft);
  if (onesided) {
    if (n_fft / 2 + 1 != fft_size) {
      fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
           "onsided=True, but got ", fft_size);
    }
  } else if (n_fft != fft_size) {
    fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
         "onsided=False, but got ", fft_size);
  }
  if (!(0 < hop_length && hop_length <= win_length)) fail(": expected 0 < hop_length <= win_length");
  if (!(0 < win_length && win_length <= n_fft)) fail(": expected 0 < win_length <= n_fft");
  if (has(window) && (window->dim() != 1 || window->size(0) != win_length)) {
    fail(": Invalid window shape. window has to be 1D and length of `win_length`");
  }
  Tensor w = has(window) ? *window : ones({win_length}, TensorOptions(input.dtype()).device(input.device()));
  if (win_length != n_fft) {
    const int64_t left = (n_fft - win_length) / 2;
    w = constant_pad_nd(w, {left, n_fft - win_length - left}, 0);
  }
  if (input_dim == 3) input = input.unsqueeze(0);
  input = view_as_complex(input.transpose(1, 2).contiguous());  // (channel, n_frames, fft_size)
  const int64_t normalization = normalized ? 1 : 2;             // by 1/sqrt(n), or by 1/n
  if (return_complex) {
    EMBER_CHECK(!onesided, "Cannot have onesided output if window or input is complex");
    input = _fft_c2c(input, {input.dim() - 1}, normalization, /*forward=*/false);
  } else {
    EMBER_CHECK(!has(window) || !window->is_complex(), "Complex windows are incompatible with return_complex=False");
    if (!onesided) input = input.narrow(-1, 0, n_fft / 2 + 1);
    input = _fft_c2r(input, {input.dim() - 1}, normalization, n_fft);
  }
  // Overlap-add of the windowed frames, and of the squared window (the envelope).
  Tensor frames = (input * w.view({1, 1, n_fft})).transpose(1, 2);  // (channel, n_fft, n_frames)
  Tensor y = overlap_add(frames, expected_len, n_fft, hop_length);
  Tensor wsq = (w * w).view({1, n_fft, 1}).expand({1, n_fft, n_frames});
  Tensor envelope = overlap_add(wsq, expected_len, n_fft, hop_length);
  const int64_t start = center ? n_fft / 2 : 0;
  int64_t end = expected_len;
  if (length_opt) end = start + *length_opt;
  else if (center) end = expected_len - n_fft / 2;
  y = y.slice(1, start, end);
  envelope = envelope.slice(1, start, end);
  if (lt(abs(envelope).min(), 1e-11).item<bool>()) fail("window overlap add min: 1\n[ CPUBoolType{} ]");
  y = y / envelope;
  if (input_dim == 3) y = y.squeeze(0);
  if (end > expected_len) {
    warn_once(warned_length,
              "The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
              "tail. Please check your center and hop_length settings.");
    y = constant_pad_nd(y, {0, end - expected_len}, 0);
  }
  return y;
}

}  // namespace

Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool normalized, std::optional<bool> onesided,
            std::optional<bool> return_complex) {
  return dispatch::call<stft_impl>(OpId::stft, self, n_fft, hop_length, win_length, window, normalized, onesided,
                                   return_complex);
}

Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool center, const std::string& pad_mode, bool normalized,
            std::optional<bool> onesided, std::optional<bool> return_complex) {
  return dispatch::call<stft_center_impl>(OpId::stft_center, self, n_fft, hop_length, win_length, window, center,
                                          pad_mode, normalized, onesided, return_complex);
}

Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
             const std::optional<Tensor>& window, bool center, bool normalized, std::optional<bool> onesided,
             std::optional<int64_t> length, bool return_complex) {
  return dispatch::call<istft_impl>(OpId::istft, self, n_fft, hop_length, win_length, window, center, normalized,
                                    onesided, length, return_complex);
}

namespace {
Tensor stft_op(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
               std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool normalized,
               std::optional<bool> onesided, std::optional<bool> return_complex) {
  return stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex);
}
Tensor stft_center_op(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                      std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool center,
                      const std::string& pad_mode, bool normalized, std::optional<bool> onesided,
                      std::optional<bool> return_complex) {
  return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex);
}
}  // namespace

EMBER_REGISTER_OP(stft, &stft_op);
EMBER_REGISTER_OP(stft_center, &stft_center_op);
EMBER_REGISTER_OP(istft, &istft);

}  // namespace ember
