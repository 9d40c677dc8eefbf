// torch.optim.LBFGS (torch/optim/lbfgs.py, 1.13), step for step.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ember/error.h"
#include "ember/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "optim_util.h"

namespace ember::optim {

namespace {

// Note [LBFGS scalars]: a Python float or a 0-d tensor of the parameters' dtype. Arithmetic
// with a tensor operand rounds both operands and the result to that dtype (a wrapped Python
// number is cast to the tensor's dtype), which for float32 is a float rounding; comparisons
// likewise compare in the tensor's dtype.
struct Num {
  double v = 0;
  bool tensor = false;
};

struct Arith {
  bool f32;
  double round(double x) const { return f32 ? static_cast<double>(static_cast<float>(x)) : x; }
  Num t(double x) const { return {round(x), true}; }  // a tensor's value
  template <class Op>
  Num bin(Num a, Num b, Op op) const {
    if (!a.tensor && !b.tensor) return {op(a.v, b.v), false};
    return {round(op(round(a.v), round(b.v))), true};
  }
  Num add(Num a, Num b) const { return bin(a, b, [](double x, double y) { return x + y; }); }
  Num sub(Num a, Num b) const { return bin(a, b, [](double x, double y) { return x - y; }); }
  Num mul(Num a, Num b) const { return bin(a, b, [](double x, double y) { return x * y; }); }
  Num div(Num a, Num b) const { return bin(a, b, [](double x, double y) { return x / y; }); }
  bool lt(Num a, Num b) const {
    if (!a.tensor && !b.tensor) return a.v < b.v;
    return round(a.v) < round(b.v);
  }
  bool le(Num a, Num b) const { return lt(a, b) || eq(a, b); }
  bool eq(Num a, Num b) const {
    if (!a.tensor && !b.tensor) return a.v == b.v;
    return round(a.v) == round(b.v);
  }
  // Python's min / max: the first argument unless the other is strictly smaller / larger.
  Num min(Num a, Num b) const { return lt(b, a) ? b : a; }
  Num max(Num a, Num b) const { return lt(a, b) ? b : a; }
  Num abs(Num a) const { return {std::fabs(a.v), a.tensor}; }
  Num sqrt(Num a) const { return a.tensor ? Num{round(std::sqrt(a.v)), true} : Num{std::sqrt(a.v), false}; }
};

Num F(double v) { return {v, false}; }

Num cubic_interpolate(const Arith& A, Num x1, Num f1, Num g1, Num x2, Num f2, Num g2,
                      std::optional<std::pair<Num, Num>> bounds = std::nullopt) {
  Num xmin_bound, xmax_bound;
  if (bounds) {
    std::tie(xmin_bound, xmax_bound) = *bounds;
  } else if (A.le(x1, x2)) {
    xmin_bound = x1;
    xmax_bound = x2;
  } else {
    xmin_bound = x2;
    xmax_bound = x1;
  }
  const Num d1 = A.sub(A.add(g1, g2), A.div(A.mul(F(3), A.sub(f1, f2)), A.sub(x1, x2)));
  const Num d2_square = A.sub(A.mul(d1, d1), A.mul(g1, g2));
  if (A.le(F(0), d2_square)) {
    const Num d2 = A.sqrt(d2_square);
    Num min_pos;
    if (A.le(x1, x2)) {
      min_pos = A.sub(x2, A.mul(A.sub(x2, x1),
                                A.div(A.sub(A.add(g2, d2), d1), A.add(A.sub(g2, g1), A.mul(F(2), d2)))));
    } else {
      min_pos = A.sub(x1, A.mul(A.sub(x1, x2),
                                A.div(A.sub(A.add(g1, d2), d1), A.add(A.sub(g1, g2), A.mul(F(2), d2)))));
    }
    return A.min(A.max(min_pos, xmin_bound), xmax_bound);
  }
  return A.div(A.add(xmin_bound, xmax_bound), F(2));
}

double dot(const Tensor& a, const Tensor& b) { return matmul(a, b).item<double>(); }

struct LineSearchResult {
  double f;
  Tensor g;
  Num t;
  int64_t evals;
};

template <class Obj>
LineSearchResult strong_wolfe(const Arith& A, Obj&& obj_func, Num t, const Tensor& d, double f,
                              Tensor g, Num gtd, double c1 = 1e-4, double c2 = 0.9,
                              double tolerance_change = 1e-9, int64_t max_ls = 25) {
  const Num d_norm = A.t(d.abs().max().item<double>());
  g = g.clone(MemoryFormat::Contiguous);
  auto [f_new, g_new] = obj_func(t);
  int64_t ls_func_evals = 1;
  Num gtd_new = A.t(dot(g_new, d));
  Num t_prev = F(0);
  double f_prev = f;
  Tensor g_prev = g;
  Num gtd_prev = gtd;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<Num> bracket, bracket_gtd;
  std::vector<double> bracket_f;
  std::vector<Tensor> bracket_g;
  // f + c1 * t * gtd: a float times a tensor is a tensor.
  auto armijo_fails = [&](double fn, Num tt) {
    return A.lt(A.add(F(f), A.mul(A.mul(F(c1), tt), gtd)), F(fn));
  };
  while (ls_iter < max_ls) {
    if (armijo_fails(f_new, t) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (A.le(A.abs(gtd_new), A.mul(F(-c2), gtd))) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (A.le(F(0), gtd_new)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    const Num min_step = A.add(t, A.mul(F(0.01), A.sub(t, t_prev)));
    const Num max_step = A.mul(t, F(10));
    const Num tmp = t;
    t = cubic_interpolate(A, t_prev, F(f_prev), gtd_prev, t, F(f_new), gtd_new,
                          std::make_pair(min_step, max_step));
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone(MemoryFormat::Contiguous);
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(t);
    ++ls_func_evals;
    gtd_new = A.t(dot(g_new, d));
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {F(0), t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }
  bool insuf_progress = false;
  size_t low_pos = 0, high_pos = 1;
  if (!(bracket_f.front() <= bracket_f.back())) std::swap(low_pos, high_pos);
  while (!done && ls_iter < max_ls) {
    if (A.lt(A.mul(A.abs(A.sub(bracket[1], bracket[0])), d_norm), F(tolerance_change))) break;
    t = cubic_interpolate(A, bracket[0], F(bracket_f[0]), bracket_gtd[0], bracket[1],
                          F(bracket_f[1]), bracket_gtd[1]);
    const Num bmax = A.max(bracket[0], bracket[1]), bmin = A.min(bracket[0], bracket[1]);
    const Num eps = A.mul(F(0.1), A.sub(bmax, bmin));
    if (A.lt(A.min(A.sub(bmax, t), A.sub(t, bmin)), eps)) {
      if (insuf_progress || A.le(bmax, t) || A.le(t, bmin)) {
        if (A.lt(A.abs(A.sub(t, bmax)), A.abs(A.sub(t, bmin)))) {
          t = A.sub(bmax, eps);
        } else {
          t = A.add(bmin, eps);
        }
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj_func(t);
    ++ls_func_evals;
    gtd_new = A.t(dot(g_new, d));
    ++ls_iter;
    if (armijo_fails(f_new, t) || f_new >= bracket_f[low_pos]) {
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[high_pos] = gtd_new;
      if (bracket_f[0] <= bracket_f[1]) {
        low_pos = 0;
        high_pos = 1;
      } else {
        low_pos = 1;
        high_pos = 0;
      }
    } else {
      if (A.le(A.abs(gtd_new), A.mul(F(-c2), gtd))) {
        done = true;
      } else if (A.le(F(0), A.mul(gtd_new, A.sub(bracket[high_pos], bracket[low_pos])))) {
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}


// A 0-d tensor kept in the state as torch keeps it (H_diag, ro, al); a Python int 1 for H_diag
// before any curvature pair was accepted.
Num num_of(const Arith& A, const Value& v) {
  if (v.is_tensor()) return A.t(v.to_tensor().item<double>());
  if (v.is_int()) return F(static_cast<double>(v.to_int()));
  return F(v.to_double());
}

Value scalar_value(const Num& n, const Tensor& like) {
  if (!n.tensor) return Value(n.v);
  return Value(full({}, n.v, TensorOptions().dtype(like.dtype()).device(like.device())));
}

}  // namespace

ValueDict LBFGSOptions::to_dict() const {
  const bool int_lr = std::floor(lr) == lr && std::fabs(lr) < 1e15;
  return {{"lr", int_lr ? Value(static_cast<int64_t>(lr)) : Value(lr)},
          {"max_iter", max_iter},
          {"max_eval", max_eval.value_or(max_iter * 5 / 4)},
          {"tolerance_grad", tolerance_grad},
          {"tolerance_change", tolerance_change},
          {"history_size", history_size},
          {"line_search_fn", line_search_fn ? Value(*line_search_fn) : Value()}};
}

LBFGS::LBFGS(std::vector<Tensor> params, const LBFGSOptions& d)
    : LBFGS(single_group(std::move(params)), d) {}

LBFGS::LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& d) : Optimizer(d.to_dict()) {
  EMBER_CHECK_VALUE(groups.size() <= 1,
                    "LBFGS doesn't support per-parameter options (parameter groups)");
  init_param_groups(std::move(groups));
}

void LBFGS::check_options(const ValueDict& o) const {
  detail::option_double(o, "lr");
  detail::option_double(o, "tolerance_grad");
  detail::option_double(o, "tolerance_change");
  const Value& ls = o.at("line_search_fn");
  EMBER_CHECK_TYPE(ls.is_none() || ls.is_string(), "line_search_fn must be None or a string");
}

void LBFGS::check_state(const ParamGroup&, const Tensor&, const ValueDict&) const {}

Tensor LBFGS::step(const LossClosure& closure) {
  EMBER_CHECK_TYPE(static_cast<bool>(closure), "LBFGS.step() missing 1 required positional "
                   "argument: 'closure'");
  closure_ = &closure;
  struct Reset {
    LBFGS* self;
    ~Reset() {
      self->closure_ = nullptr;
      self->first_loss_ = Tensor();
    }
  } reset{this};
  return Optimizer::step([this, &closure] {
    first_loss_ = closure();
    return first_loss_;
  });
}

void LBFGS::update(ParamGroup& group) {
  EMBER_CHECK_TYPE(closure_ != nullptr, "LBFGS.step() missing 1 required positional argument: "
                   "'closure'");
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr");
  const int64_t max_iter = o.at("max_iter").to_int(), max_eval = o.at("max_eval").to_int();
  const double tolerance_grad = detail::option_double(o, "tolerance_grad");
  const double tolerance_change = detail::option_double(o, "tolerance_change");
  const bool wolfe = !o.at("line_search_fn").is_none();
  // As torch's: an unknown line search fails when the step reaches it, not at construction.
  EMBER_CHECK(!wolfe || o.at("line_search_fn").to_string_value() == "strong_wolfe",
              "only 'strong_wolfe' is supported");
  EMBER_CHECK(param_groups().size() == 1, "LBFGS: expected one parameter group, got ",
              param_groups().size());
  const size_t history_size = static_cast<size_t>(o.at("history_size").to_int());
  std::vector<Tensor>& params = group.params();
  EMBER_CHECK(!params.empty(), "optimizer got an empty parameter list");
  const Arith A{params[0].dtype() == kFloat32};
  int64_t numel = 0;
  for (const Tensor& p : params) numel += p.numel();

  auto evaluate = [this]() -> double {
    AutoGradMode enable(true);
    const Tensor loss = (*closure_)();
    EMBER_CHECK_TYPE(loss.defined(), "LBFGS: the closure must return the loss tensor");
    return loss.item<double>();
  };
  auto gather_flat_grad = [&]() {
    std::vector<Tensor> views;
    for (const Tensor& p : params) {
      const Tensor g = p.grad();
      views.push_back(g.defined() ? g.reshape({-1}) : zeros({p.numel()}, TensorOptions().dtype(p.dtype())));
    }
    return cat(views, 0);
  };
  auto add_grad = [&](double step_size, const Tensor& update) {
    int64_t offset = 0;
    for (Tensor& p : params) {
      const int64_t n = p.numel();
      p.add_(update.narrow(0, offset, n).view(p.sizes()), step_size);
      offset += n;
    }
    EMBER_ASSERT(offset == numel, "LBFGS: parameter sizes changed");
  };

  ValueDict& state = this->state(params[0]);
  state.setdefault("func_evals", int64_t{0});
  state.setdefault("n_iter", int64_t{0});
  const double loss0 = first_loss_.defined() ? first_loss_.item<double>() : evaluate();
  double loss = loss0;
  int64_t current_evals = 1;
  state.set("func_evals", state.at("func_evals").to_int() + 1);
  Tensor flat_grad = gather_flat_grad();
  auto below = [&](const Tensor& t, double tol) { return A.le(A.t(t.item<double>()), F(tol)); };
  bool opt_cond = below(flat_grad.abs().max(), tolerance_grad);
  if (opt_cond) return;

  auto get_tensor = [&](const char* k) {
    const Value* v = state.find(k);
    return v && v->is_tensor() ? v->to_tensor() : Tensor();
  };
  auto get_list = [&](const char* k) {
    const Value* v = state.find(k);
    return v && v->is_tensor_list() ? v->to_tensor_list() : std::vector<Tensor>{};
  };
  Tensor d = get_tensor("d");
  Num t = state.contains("t") ? num_of(A, state.at("t")) : F(0);
  std::vector<Tensor> old_dirs = get_list("old_dirs"), old_stps = get_list("old_stps");
  std::vector<Tensor> ro = get_list("ro");
  Num H_diag = state.contains("H_diag") ? num_of(A, state.at("H_diag")) : F(1);
  Tensor prev_flat_grad = get_tensor("prev_flat_grad");
  double prev_loss = state.contains("prev_loss") && !state.at("prev_loss").is_none()
                         ? state.at("prev_loss").to_double() : 0.0;

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    const int64_t state_iter = state.at("n_iter").to_int() + 1;
    state.set("n_iter", state_iter);
    if (state_iter == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = F(1);
    } else {
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t.v);
      const Num ys = A.t(dot(y, s));
      if (A.lt(F(1e-10), ys)) {
        if (old_dirs.size() == history_size) {
          old_dirs.erase(old_dirs.begin());
          old_stps.erase(old_stps.begin());
          ro.erase(ro.begin());
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(full({}, A.div(F(1.0), ys).v, TensorOptions().dtype(y.dtype())));
        H_diag = A.div(ys, A.t(dot(y, y)));
      }
      const size_t num_old = old_dirs.size();
      std::vector<std::optional<Tensor>> al_list(history_size);
      if (const Value* v = state.find("al"); v && v->is_optional_tensor_list()) {
        al_list = v->to_optional_tensor_list();
      }
      std::vector<Num> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = A.mul(A.t(dot(old_stps[k], q)), A.t(ro[k].item<double>()));
        q.add_(old_dirs[k], -al[k].v);
        if (k < al_list.size()) al_list[k] = full({}, al[k].v, TensorOptions().dtype(q.dtype()));
      }
      state.set("al", al_list);
      Tensor r = H_diag.tensor ? q.mul(full({}, H_diag.v, TensorOptions().dtype(q.dtype())))
                               : q.mul(H_diag.v);
      for (size_t k = 0; k < num_old; ++k) {
        const Num be_i = A.mul(A.t(dot(old_dirs[k], r)), A.t(ro[k].item<double>()));
        r.add_(old_stps[k], A.sub(al[k], be_i).v);
      }
      d = r;
    }
    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone(MemoryFormat::Contiguous);
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;
    if (state_iter == 1) {
      const Num inv = A.div(F(1.0), A.t(flat_grad.abs().sum().item<double>()));
      t = A.mul(A.min(F(1.0), inv), F(lr));
    } else {
      t = F(lr);
    }
    const Num gtd = A.t(dot(flat_grad, d));
    if (A.lt(F(-tolerance_change), gtd)) break;
    int64_t ls_func_evals = 0;
    if (wolfe) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : params) x_init.push_back(p.clone(MemoryFormat::Contiguous));
      auto obj_func = [&](Num tt) -> std::pair<double, Tensor> {
        add_grad(tt.v, d);
        const double l = evaluate();
        Tensor fg = gather_flat_grad();
        for (size_t k = 0; k < params.size(); ++k) params[k].copy_(x_init[k]);
        return {l, fg};
      };
      LineSearchResult res = strong_wolfe(A, obj_func, t, d, loss, flat_grad, gtd, 1e-4, 0.9,
                                          tolerance_change);
      loss = res.f;
      flat_grad = res.g;
      t = res.t;
      ls_func_evals = res.evals;
      add_grad(t.v, d);
      opt_cond = below(flat_grad.abs().max(), tolerance_grad);
    } else {
      add_grad(t.v, d);
      if (n_iter != max_iter) {
        loss = evaluate();
        flat_grad = gather_flat_grad();
        opt_cond = below(flat_grad.abs().max(), tolerance_grad);
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.set("func_evals", state.at("func_evals").to_int() + ls_func_evals);
    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (below(d.mul(t.v).abs().max(), tolerance_change)) break;
    if (std::fabs(loss - prev_loss) < tolerance_change) break;
  }
  state.set("d", d);
  state.set("t", scalar_value(t, params[0]));
  state.set("old_dirs", old_dirs);
  state.set("old_stps", old_stps);
  state.set("ro", ro);
  state.set("H_diag", H_diag.tensor ? scalar_value(H_diag, params[0]) : Value(int64_t{1}));
  state.set("prev_flat_grad", prev_flat_grad);
  state.set("prev_loss", prev_loss);
}

}  // namespace ember::optim
