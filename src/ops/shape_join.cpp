// Stacking (hstack, vstack, dstack, column_stack), grids (meshgrid, cartesian_prod), products
// of shapes (outer, kron, tensordot, einsum) and the statistics built on them (diff, cov,
// corrcoef): composites, as in PyTorch, so their gradients come from the ops they call.
// Error texts are PyTorch 1.13's.
#include <algorithm>
#include <array>

#include "ember/ops/complex.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/warning.h"

namespace ember {

using dispatch::OpId;

namespace {

// ---- stacking ----

template <Tensor (*atleast)(const Tensor&)>
std::vector<Tensor> all_atleast(ArrayRef<Tensor> tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(atleast(t));
  return out;
}

Tensor hstack_impl(ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  auto ts = all_atleast<ember::atleast_1d>(tensors);
  return ember::cat(ts, ts[0].dim() == 1 ? 0 : 1);
}
Tensor vstack_impl(ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  return ember::cat(all_atleast<ember::atleast_2d>(tensors), 0);
}
Tensor dstack_impl(ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return ember::cat(all_atleast<ember::atleast_3d>(tensors), 2);
}
Tensor column_stack_impl(ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> ts;
  for (const Tensor& t : tensors) ts.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return ember::cat(ts, 1);
}

// ---- grids ----

std::vector<Tensor> meshgrid_indexing_impl(ArrayRef<Tensor> tensors, const std::string& indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  EMBER_CHECK(indexing == "xy" || indexing == "ij",
              "ember.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1, "ember.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
                tensors[i].to_string());
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(),
                "ember.meshgrid: Expected all tensors in the tensor list to have the same dtype.");
    EMBER_CHECK(tensors[i].device() == tensors[0].device(),
                "ember.meshgrid: Expected all tensors in the tensor list to have the same device.");
  }
  const size_t n = tensors.size();
  // With "xy" the first two inputs vary along dims 1 and 0 (Cartesian indexing).
  auto position = [&](size_t i) -> size_t {
    if (indexing == "xy" && n >= 2 && i < 2) return 1 - i;
    return i;
  };
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) shape[position(i)] = tensors[i].numel();
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    DimVector view(n, 1);
    view[position(i)] = -1;
    out.push_back(tensors[i].reshape(view).expand(shape));
  }
  return out;
}
std::vector<Tensor> meshgrid_impl(ArrayRef<Tensor> tensors) { return meshgrid_indexing_impl(tensors, "ij"); }

Tensor cartesian_prod_impl(ArrayRef<Tensor> tensors) {
  for (const Tensor& t : tensors) EMBER_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", t.sizes());
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> flat;
  for (const Tensor& g : ember::meshgrid(tensors, "ij")) flat.push_back(g.flatten());
  return ember::stack(flat, 1);
}

// ---- products ----

Tensor outer_impl(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return self.reshape({self.size(0), 1}) * vec2;
}

Tensor kron_impl(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  DimVector a_shape, b_shape, out_shape;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t ai = i - (nd - self.dim()), bi = i - (nd - other.dim());
    const int64_t as = ai >= 0 ? self.size(ai) : 1, bs = bi >= 0 ? other.size(bi) : 1;
    a_shape.push_back(as);
    a_shape.push_back(1);
    b_shape.push_back(1);
    b_shape.push_back(bs);
    out_shape.push_back(as * bs);
  }
  return (self.reshape(a_shape) * other.reshape(b_shape)).reshape(out_shape);
}

// self's free dims x other's free dims, contracted over the listed dim pairs with one matmul.
Tensor tensordot_impl(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(), "both dimensions lists should have same length");
  std::vector<bool> a_contracted(static_cast<size_t>(self.dim()), false), b_contracted(static_cast<size_t>(other.dim()), false);
  DimVector a_perm_tail, b_perm_head;
  int64_t k = 1;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t da = wrap_dim(dims_self[i], self.dim()), db = wrap_dim(dims_other[i], other.dim());
    EMBER_CHECK(self.size(da) == other.size(db), "contracted dimensions need to match, but first has size ",
                self.size(da), " in dim ", da, " and second has size ", other.size(db), " in dim ", db);
    a_contracted[static_cast<size_t>(da)] = b_contracted[static_cast<size_t>(db)] = true;
    a_perm_tail.push_back(da);
    b_perm_head.push_back(db);
    k *= self.size(da);
  }
  DimVector a_perm, b_perm, out_shape;
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (a_contracted[static_cast<size_t>(d)]) continue;
    a_perm.push_back(d);
    out_shape.push_back(self.size(d));
    m *= self.size(d);
  }
  a_perm.insert(a_perm.end(), a_perm_tail.begin(), a_perm_tail.end());
  b_perm = b_perm_head;
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (b_contracted[static_cast<size_t>(d)]) continue;
    b_perm.push_back(d);
    out_shape.push_back(other.size(d));
    n *= other.size(d);
  }
  Tensor a = self.permute(a_perm).reshape({m, k});
  Tensor b = other.permute(b_perm).reshape({k, n});
  return a.mm(b).reshape(out_shape);
}

// ---- einsum ----

// Labels: 'A'-'Z' are 0-25, 'a'-'z' 26-51 (the implicit output's order), ellipsis dims 52 + i.
constexpr int kEllipsisBase = 52;

// `at`: the character's index in the equation (for the error).
int label_of(char c, size_t at) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  EMBER_CHECK(false, "einsum(): invalid subscript given at index ", at,
              " in the equation string, subscripts must be in [a-zA-Z]");
  return -1;
}

struct Term {
  std::vector<int> labels;  // letters; -1 marks the ellipsis
  bool has_ellipsis = false;
};

Term parse_term(const std::string& s, size_t offset) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      EMBER_CHECK(s.compare(i, 3, "...") == 0 && !t.has_ellipsis,
                  "einsum(): found '.' for operand that is not part of any ellipsis");
      t.has_ellipsis = true;
      t.labels.push_back(-1);
      i += 2;
      continue;
    }
    t.labels.push_back(label_of(s[i], offset + i));
  }
  return t;
}

// An operand with one label per dim.
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

// Sums out the dims whose labels are not in `keep`.
Labeled sum_out(Labeled x, const std::vector<bool>& keep) {
  DimVector dims;
  std::vector<int> rest;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (keep[static_cast<size_t>(x.labels[i])]) {
      rest.push_back(x.labels[i]);
    } else {
      dims.push_back(static_cast<int64_t>(i));
    }
  }
  if (!dims.empty()) x.t = x.t.sum(dims);
  x.labels = rest;
  return x;
}

// a and b contracted over their common labels that are not in `keep`, with one bmm:
// [batch, left, contracted] x [batch, contracted, right] -> [batch, left, right].
Labeled contract(Labeled a, Labeled b, const std::vector<bool>& keep) {
  auto has = [](const Labeled& x, int l) { return std::find(x.labels.begin(), x.labels.end(), l) != x.labels.end(); };
  auto pos = [](const Labeled& x, int l) {
    return static_cast<int64_t>(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
  };
  std::vector<bool> keep_a = keep, keep_b = keep;
  for (int l : b.labels) keep_a[static_cast<size_t>(l)] = true;
  for (int l : a.labels) keep_b[static_cast<size_t>(l)] = true;
  a = sum_out(a, keep_a);
  b = sum_out(b, keep_b);
  std::vector<int> batch, left, right, con;
  for (int l : a.labels) {
    if (has(b, l)) {
      (keep[static_cast<size_t>(l)] ? batch : con).push_back(l);
    } else {
      left.push_back(l);
    }
  }
  for (int l : b.labels)
    if (!has(a, l)) right.push_back(l);
  // Size-1 dims broadcast against the other operand's.
  DimVector a_perm, b_perm, a_exp, b_exp, out_shape;
  int64_t B = 1, M = 1, N = 1, K = 1;
  for (int l : batch) {
    const int64_t sa = a.t.size(pos(a, l)), sb = b.t.size(pos(b, l));
    const int64_t s = std::max(sa, sb);
    a_perm.push_back(pos(a, l));
    b_perm.push_back(pos(b, l));
    a_exp.push_back(s);
    b_exp.push_back(s);
    out_shape.push_back(s);
    B *= s;
  }
  for (int l : left) {
    a_perm.push_back(pos(a, l));
    a_exp.push_back(a.t.size(pos(a, l)));
    out_shape.push_back(a.t.size(pos(a, l)));
    M *= a.t.size(pos(a, l));
  }
  for (int l : con) {
    const int64_t s = std::max(a.t.size(pos(a, l)), b.t.size(pos(b, l)));
    a_perm.push_back(pos(a, l));
    b_perm.push_back(pos(b, l));
    a_exp.push_back(s);
    b_exp.push_back(s);
    K *= s;
  }
  for (int l : right) {
    b_perm.push_back(pos(b, l));
    b_exp.push_back(b.t.size(pos(b, l)));
    out_shape.push_back(b.t.size(pos(b, l)));
    N *= b.t.size(pos(b, l));
  }
  Tensor at = a.t.permute(a_perm).expand(a_exp).reshape({B, M, K});
  Tensor bt = b.t.permute(b_perm).expand(b_exp).reshape({B, K, N});
  // As PyTorch's sumproduct_pair: a product without contracted dims is a mul (which promotes),
  // one with contracted dims a bmm, which takes one dtype.
  EMBER_CHECK(con.empty() || at.dtype() == bt.dtype(), "expected scalar type ",
              scalar_type_name(at.dtype()), " but found ", scalar_type_name(bt.dtype()));
  const ScalarType dt = promote_types(at.dtype(), bt.dtype());
  // Integer operands (no integer GEMM): products summed, kept in their dtype as PyTorch's bmm.
  Tensor r = is_floating(dt) ? at.to(dt).bmm(bt.to(dt)) : (at.unsqueeze(-1) * bt.unsqueeze(1)).sum({2}).to(dt);
  Labeled out{r.reshape(out_shape), batch};
  out.labels.insert(out.labels.end(), left.begin(), left.end());
  out.labels.insert(out.labels.end(), right.begin(), right.end());
  return out;
}

Tensor einsum_impl(const std::string& equation, ArrayRef<Tensor> tensors, std::optional<IntArrayRef> /*path*/) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(!tensors.empty(), "einsum(): must provide at least one operand");
  EMBER_CHECK(terms.size() <= tensors.size(), "einsum(): fewer operands were provided than specified in the equation");
  EMBER_CHECK(terms.size() >= tensors.size(), "einsum(): more operands were provided than specified in the equation");
  // The ellipsis covers as many dims as the operand with the most.
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t named = static_cast<int64_t>(terms[i].labels.size()) - (terms[i].has_ellipsis ? 1 : 0);
    if (terms[i].has_ellipsis) {
      EMBER_CHECK(tensors[i].dim() >= named, "einsum(): the number of subscripts in the equation (", named,
                  ") is more than the number of dimensions (", tensors[i].dim(), ") for operand ", i);
      ell = std::max(ell, tensors[i].dim() - named);
    } else {
      EMBER_CHECK(tensors[i].dim() == named, "einsum(): the number of subscripts in the equation (", named,
                  ") does not match the number of dimensions (", tensors[i].dim(), ") for operand ", i,
                  " and no ellipsis was given");
    }
  }
  const size_t nlabels = static_cast<size_t>(kEllipsisBase + ell);
  std::vector<int> count(nlabels, 0);
  std::vector<Labeled> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    Labeled x{tensors[i], {}};
    const int64_t named = static_cast<int64_t>(terms[i].labels.size()) - (terms[i].has_ellipsis ? 1 : 0);
    const int64_t here = tensors[i].dim() - named;
    for (int l : terms[i].labels) {
      if (l >= 0) {
        x.labels.push_back(l);
        continue;
      }
      for (int64_t j = 0; j < here; ++j) x.labels.push_back(static_cast<int>(kEllipsisBase + (ell - here) + j));
    }
    // A label repeated within an operand takes the diagonal.
    for (bool again = true; again;) {
      again = false;
      for (size_t p = 0; p < x.labels.size() && !again; ++p) {
        for (size_t q = p + 1; q < x.labels.size() && !again; ++q) {
          if (x.labels[p] != x.labels[q]) continue;
          const int l = x.labels[p];
          EMBER_CHECK(x.t.size(static_cast<int64_t>(p)) == x.t.size(static_cast<int64_t>(q)),
                      "einsum(): subscript ", static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26),
                      " is repeated for operand ", i, " but the sizes don't match, ", x.t.size(static_cast<int64_t>(p)),
                      " != ", x.t.size(static_cast<int64_t>(q)));
          x.t = x.t.diagonal(0, static_cast<int64_t>(p), static_cast<int64_t>(q));
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(q));
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(p));
          x.labels.push_back(l);
          again = true;
        }
      }
    }
    // The implicit output counts subscripts as written ("ii" sums its diagonal).
    for (int l : terms[i].labels)
      if (l >= 0) ++count[static_cast<size_t>(l)];
    for (int l : x.labels)
      if (l >= kEllipsisBase) count[static_cast<size_t>(l)] = 1;
    ops.push_back(std::move(x));
  }
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    Term out = parse_term(eq.substr(arrow + 2), arrow + 2);
    for (int l : out.labels) {
      if (l < 0) {
        for (int64_t j = 0; j < ell; ++j) out_labels.push_back(static_cast<int>(kEllipsisBase + j));
        continue;
      }
      EMBER_CHECK(std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end(),
                  "einsum(): output subscript ", static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26),
                  " appears more than once in the output");
      EMBER_CHECK(count[static_cast<size_t>(l)] > 0, "einsum(): output subscript ",
                  static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26),
                  " does not appear in the equation for any input operand");
      out_labels.push_back(l);
    }
  } else {
    for (int64_t j = 0; j < ell; ++j) out_labels.push_back(static_cast<int>(kEllipsisBase + j));
    for (int l = 0; l < kEllipsisBase; ++l)
      if (count[static_cast<size_t>(l)] == 1) out_labels.push_back(l);
  }
  std::vector<bool> in_output(nlabels, false);
  for (int l : out_labels) in_output[static_cast<size_t>(l)] = true;
  // Left to right: each step keeps the labels the output or a later operand needs.
  Labeled acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> keep = in_output;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) keep[static_cast<size_t>(l)] = true;
    acc = contract(acc, ops[i], keep);
  }
  acc = sum_out(acc, in_output);
  DimVector perm;
  for (int l : out_labels)
    perm.push_back(static_cast<int64_t>(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin()));
  return acc.t.permute(perm);
}

// ---- statistics ----

Tensor diff_impl(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                 const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self;
  if (prepend || append) {
    std::vector<Tensor> parts;
    for (const auto* o : {&prepend, &append}) {
      if (!*o) continue;
      EMBER_CHECK((*o)->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
    }
    if (prepend) parts.push_back(*prepend);
    parts.push_back(self);
    if (append) parts.push_back(*append);
    x = ember::cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d);
    Tensor hi = x.narrow(d, 1, len - 1), lo = x.narrow(d, 0, len - 1);
    x = x.dtype() == kBool ? ember::logical_xor(hi, lo) : hi - lo;
  }
  return x;
}

Tensor cov_impl(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
                const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  EMBER_CHECK(self.dtype() != kBool, "cov(): bool dtype is not supported for input");
  Tensor in = self.dim() < 2 ? self.view({1, -1}) : self;
  const int64_t obs = in.size(1);
  Tensor w;
  if (fweights) {
    const Tensor& f = *fweights;
    EMBER_CHECK(f.dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights with ",
                f.dim(), " dimensions");
    EMBER_CHECK(is_integral(f.dtype(), false), "cov(): expected fweights to have integral dtype but got fweights with ",
                scalar_type_name(f.dtype()), " dtype");
    EMBER_CHECK(f.numel() == obs, "cov(): expected fweights to have the same numel as there are observations in the "
                "input but got ", f.numel(), " != ", obs);
    EMBER_CHECK(obs == 0 || f.min().item<int64_t>() >= 0, "cov(): fweights cannot be negative");
    w = f;
  }
  if (aweights) {
    const Tensor& a = *aweights;
    EMBER_CHECK(a.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights with ",
                a.dim(), " dimensions");
    EMBER_CHECK(is_floating(a.dtype()), "cov(): expected aweights to have floating point dtype but got aweights with ",
                scalar_type_name(a.dtype()), " dtype");
    EMBER_CHECK(a.numel() == obs, "cov(): expected aweights to have the same numel as there are observations in the "
                "input but got ", a.numel(), " != ", obs);
    EMBER_CHECK(obs == 0 || a.min().item<double>() >= 0, "cov(): aweights cannot be negative");
    w = w.defined() ? w * a : a;
  }
  Tensor w_sum = w.defined() ? w.sum() : scalar_tensor(obs, TensorOptions(kInt64).device(in.device()));
  EMBER_CHECK(!w.defined() || w_sum.item<double>() != 0, "cov(): weights sum to zero, can't be normalized");
  Tensor avg = (w.defined() ? in * w : in).sum({1}) / w_sum;
  Tensor norm_factor = (w.defined() && aweights && correction != 0)
                           ? w_sum - (w * *aweights).sum() * Scalar(correction) / w_sum
                           : w_sum - Scalar(correction);
  if (!norm_factor.is_meta() && norm_factor.item<double>() <= 0) {
    warn("cov(): degrees of freedom is <= 0");
    norm_factor = zeros_like(norm_factor);
  }
  in = in - avg.unsqueeze(1);
  // X X^H: conjugated for complex input (a Hermitian covariance), as PyTorch's.
  Tensor c = in.mm(conj_if_complex((w.defined() ? in * w : in).t()));
  return (c / norm_factor).squeeze();
}

Tensor corrcoef_impl(const Tensor& self) {
  Tensor c = ember::cov(self);
  if (c.dim() == 0) return c / c;
  Tensor stddev = c.diagonal().sqrt();
  c = c / stddev.view({-1, 1});
  c = c / stddev.view({1, -1});
  // Complex: the real and imaginary parts are clipped each (PyTorch's; |c| may still exceed 1).
  if (c.is_complex()) {
    return ember::complex(ember::clamp(real(c), Scalar(-1), Scalar(1)), ember::clamp(imag(c), Scalar(-1), Scalar(1)));
  }
  return ember::clamp(c, Scalar(-1), Scalar(1));
}

// ---- schema-shaped frontends ----
Tensor hstack_op(ArrayRef<Tensor> ts) { return dispatch::call<hstack_impl>(OpId::hstack, ts); }
Tensor vstack_op(ArrayRef<Tensor> ts) { return dispatch::call<vstack_impl>(OpId::vstack, ts); }
Tensor row_stack_op(ArrayRef<Tensor> ts) { return dispatch::call<vstack_impl>(OpId::row_stack, ts); }
Tensor dstack_op(ArrayRef<Tensor> ts) { return dispatch::call<dstack_impl>(OpId::dstack, ts); }
Tensor column_stack_op(ArrayRef<Tensor> ts) { return dispatch::call<column_stack_impl>(OpId::column_stack, ts); }
std::vector<Tensor> meshgrid_op(ArrayRef<Tensor> ts) { return dispatch::call<meshgrid_impl>(OpId::meshgrid, ts); }
std::vector<Tensor> meshgrid_indexing_op(ArrayRef<Tensor> ts, const std::string& indexing) {
  return dispatch::call<meshgrid_indexing_impl>(OpId::meshgrid_indexing, ts, indexing);
}
Tensor cartesian_prod_op(ArrayRef<Tensor> ts) { return dispatch::call<cartesian_prod_impl>(OpId::cartesian_prod, ts); }
Tensor outer_op(const Tensor& self, const Tensor& vec2) { return dispatch::call<outer_impl>(OpId::outer, self, vec2); }
Tensor ger_op(const Tensor& self, const Tensor& vec2) { return dispatch::call<outer_impl>(OpId::ger, self, vec2); }
Tensor kron_op(const Tensor& self, const Tensor& other) { return dispatch::call<kron_impl>(OpId::kron, self, other); }
Tensor tensordot_op(const Tensor& self, const Tensor& other, IntArrayRef ds, IntArrayRef dot) {
  return dispatch::call<tensordot_impl>(OpId::tensordot, self, other, ds, dot);
}
Tensor einsum_op(const std::string& equation, ArrayRef<Tensor> ts, std::optional<IntArrayRef> path) {
  return dispatch::call<einsum_impl>(OpId::einsum, equation, ts, path);
}
Tensor diff_op(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
               const std::optional<Tensor>& append) {
  return dispatch::call<diff_impl>(OpId::diff, self, n, dim, prepend, append);
}
Tensor cov_op(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
              const std::optional<Tensor>& aweights) {
  return dispatch::call<cov_impl>(OpId::cov, self, correction, fweights, aweights);
}
Tensor corrcoef_op(const Tensor& self) { return dispatch::call<corrcoef_impl>(OpId::corrcoef, self); }

}  // namespace

// ---- public API ----
Tensor hstack(ArrayRef<Tensor> tensors) { return hstack_op(tensors); }
Tensor vstack(ArrayRef<Tensor> tensors) { return vstack_op(tensors); }
Tensor dstack(ArrayRef<Tensor> tensors) { return dstack_op(tensors); }
Tensor column_stack(ArrayRef<Tensor> tensors) { return column_stack_op(tensors); }
std::vector<Tensor> meshgrid(ArrayRef<Tensor> tensors, const std::string& indexing) {
  return meshgrid_indexing_op(tensors, indexing);
}
Tensor cartesian_prod(ArrayRef<Tensor> tensors) { return cartesian_prod_op(tensors); }
Tensor outer(const Tensor& self, const Tensor& vec2) { return outer_op(self, vec2); }
Tensor kron(const Tensor& self, const Tensor& other) { return kron_op(self, other); }
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  return tensordot_op(self, other, dims_self, dims_other);
}
Tensor einsum(const std::string& equation, ArrayRef<Tensor> tensors) {
  return einsum_op(equation, tensors, std::nullopt);
}
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  return diff_op(self, n, dim, prepend, append);
}
Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  return cov_op(self, correction, fweights, aweights);
}
Tensor corrcoef(const Tensor& self) { return corrcoef_op(self); }

EMBER_REGISTER_OP(hstack, &hstack_op);
EMBER_REGISTER_OP(vstack, &vstack_op);
EMBER_REGISTER_OP(row_stack, &row_stack_op);
EMBER_REGISTER_OP(dstack, &dstack_op);
EMBER_REGISTER_OP(column_stack, &column_stack_op);
EMBER_REGISTER_OP(meshgrid, &meshgrid_op);
EMBER_REGISTER_OP(meshgrid_indexing, &meshgrid_indexing_op);
EMBER_REGISTER_OP(cartesian_prod, &cartesian_prod_op);
EMBER_REGISTER_OP(outer, &outer_op);
EMBER_REGISTER_OP(ger, &ger_op);
EMBER_REGISTER_OP(kron, &kron_op);
EMBER_REGISTER_OP(tensordot, &tensordot_op);
EMBER_REGISTER_OP(einsum, &einsum_op);
EMBER_REGISTER_OP(diff, &diff_op);
EMBER_REGISTER_OP(cov, &cov_op);
EMBER_REGISTER_OP(corrcoef, &corrcoef_op);

}  // namespace ember
