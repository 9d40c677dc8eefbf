// ember_optim SPEC OUTDIR — runs optimizers (and LR schedulers) for the differential test against
// PyTorch (tests/python/optim/test_optim_vs_torch.py writes SPEC and reads the results).
//
// SPEC, one token stream (whitespace separated), per case:
//   case <id> <SGD|Adam|AdamW> <dtype> <steps>
//   defaults <n> (<name> <value>)*                 the optimizer's keyword arguments
//   group <n> (<name> <value>)* <nparams>          a param group and its own options, then
//     param <c|t> <ndim> <sizes...> <a> <b> <values...>   its params (t: a 2-D param stored
//                                                  transposed); the gradient at step s (from 0)
//                                                  is p * a + b * (s + 1)
//   nograd <param index> <step>                    that param has no .grad at that step
//   reload <step>                                  after that step: state_dict(), a new optimizer
//                                                  (and scheduler) on the same params, load both
//   sched StepLR <step_size> <gamma>
//   sched MultiStepLR <gamma> <n> <milestones...>
//   sched CosineAnnealingLR <T_max> <eta_min>
//   sched OneCycleLR <max_lr> <total_steps> <pct_start> <cos|linear> <three_phase> <cycle_momentum>
//                    <div_factor> <final_div_factor>
//   end
// <value>: F <double> | I <int> | B <0|1> | P <double> <double> (betas) | N (None).
// Results go to OUTDIR/results.txt: "case <id> ok", then per step "step <s> lr <per group>",
// "mom <per group: momentum or beta1>", "p <index> <values, row-major, %.17g>", and at the end
// the optimizer's state_dict as "sdgroup <i> <key>=<value>..." and "sdstate <index>
// <key>=<value>..."; or "case <id> error <Kind> <message>".
#include <ember/ember.h>
#include <ember/optim.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "spec_io.h"

namespace {

using namespace ember;
using namespace ember::optim;

struct ParamSpec {
  Tensor t;
  double a = 0, b = 0;
};

struct GroupSpec {
  ValueDict options;
  std::vector<size_t> params;  // indices into the case's params
};

struct Case {
  std::string id, opt;
  ScalarType dtype = kFloat32;
  int64_t steps = 0;
  ValueDict defaults;
  std::vector<GroupSpec> groups;
  std::vector<ParamSpec> params;
  std::vector<std::pair<size_t, int64_t>> nograd;
  int64_t reload = -1;
  std::vector<std::string> sched;  // its tokens
};

Value read_value(std::istream& in) {
  std::string kind;
  in >> kind;
  if (kind == "F") {
    std::string v;
    in >> v;
    return Value(std::stod(v));
  }
  if (kind == "I") {
    int64_t v;
    in >> v;
    return Value(v);
  }
  if (kind == "B") {
    int v;
    in >> v;
    return Value(v != 0);
  }
  if (kind == "P") {
    std::string x, y;
    in >> x >> y;
    return Value(std::vector<double>{std::stod(x), std::stod(y)});
  }
  if (kind == "N") return Value();
  throw std::runtime_error("unknown value kind " + kind);
}

ValueDict read_dict(std::istream& in) {
  int n;
  in >> n;
  ValueDict d;
  for (int i = 0; i < n; ++i) {
    std::string key;
    in >> key;
    d.set(key, read_value(in));
  }
  return d;
}

ParamSpec read_param(std::istream& in, ScalarType dtype) {
  std::string layout;
  int64_t ndim;
  in >> layout >> ndim;
  std::vector<int64_t> sizes(static_cast<size_t>(ndim));
  for (auto& s : sizes) in >> s;
  ParamSpec p;
  std::string a, b;
  in >> a >> b;
  p.a = std::stod(a);
  p.b = std::stod(b);
  Tensor values = empty(sizes, TensorOptions(kFloat64).device(kCPU));
  double* v = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) {
    std::string x;
    in >> x;
    v[i] = std::stod(x);
  }
  if (layout == "t") {
    Tensor store = empty({sizes[1], sizes[0]}, TensorOptions(dtype).device(kCPU)).t();
    store.copy_(values);
    p.t = store;
  } else {
    p.t = values.to(dtype);
  }
  p.t.requires_grad_();
  return p;
}

Case read_case(std::istream& in) {
  Case c;
  std::string dtype;
  in >> c.id >> c.opt >> dtype >> c.steps;
  c.dtype = dtype_from_name(dtype);
  std::string word;
  while (in >> word && word != "end") {
    if (word == "defaults") {
      c.defaults = read_dict(in);
    } else if (word == "group") {
      GroupSpec g;
      g.options = read_dict(in);
      int n;
      in >> n;
      for (int i = 0; i < n; ++i) {
        std::string tag;
        in >> tag;  // "param"
        g.params.push_back(c.params.size());
        c.params.push_back(read_param(in, c.dtype));
      }
      c.groups.push_back(std::move(g));
    } else if (word == "nograd") {
      size_t i;
      int64_t s;
      in >> i >> s;
      c.nograd.emplace_back(i, s);
    } else if (word == "reload") {
      in >> c.reload;
    } else if (word == "sched") {
      std::string line;
      std::getline(in, line);
      std::istringstream ls(line);
      for (std::string tok; ls >> tok;) c.sched.push_back(tok);
    } else {
      throw std::runtime_error("malformed spec near '" + word + "'");
    }
  }
  return c;
}

std::unique_ptr<Optimizer> make_optimizer(const Case& c) {
  std::vector<ParamGroup> groups;
  for (const GroupSpec& g : c.groups) {
    std::vector<Tensor> ps;
    for (size_t i : g.params) ps.push_back(c.params[i].t);
    groups.emplace_back(std::move(ps), g.options);
  }
  const ValueDict& d = c.defaults;
  auto num = [&](const char* k, double dflt) { return d.contains(k) ? d.at(k).to_double() : dflt; };
  auto flag = [&](const char* k) { return d.contains(k) && d.at(k).to_bool(); };
  auto betas = [&]() {
    if (!d.contains("betas")) return std::array<double, 2>{0.9, 0.999};
    const auto& l = d.at("betas").to_double_list();
    return std::array<double, 2>{l[0], l[1]};
  };
  if (c.opt == "SGD") {
    SGDOptions o;
    if (d.contains("lr")) o.lr = d.at("lr").to_double();
    o.momentum = num("momentum", 0);
    o.dampening = num("dampening", 0);
    o.weight_decay = num("weight_decay", 0);
    o.nesterov = flag("nesterov");
    o.maximize = flag("maximize");
    return std::make_unique<SGD>(std::move(groups), o);
  }
  if (c.opt == "Adam") {
    AdamOptions o{.lr = num("lr", 1e-3),
                  .betas = betas(),
                  .eps = num("eps", 1e-8),
                  .weight_decay = num("weight_decay", 0),
                  .amsgrad = flag("amsgrad"),
                  .maximize = flag("maximize")};
    return std::make_unique<Adam>(std::move(groups), o);
  }
  if (c.opt == "AdamW") {
    AdamWOptions o{.lr = num("lr", 1e-3),
                   .betas = betas(),
                   .eps = num("eps", 1e-8),
                   .weight_decay = num("weight_decay", 1e-2),
                   .amsgrad = flag("amsgrad"),
                   .maximize = flag("maximize")};
    return std::make_unique<AdamW>(std::move(groups), o);
  }
  throw std::runtime_error("unknown optimizer " + c.opt);
}

std::unique_ptr<LRScheduler> make_scheduler(const Case& c, Optimizer& opt) {
  if (c.sched.empty()) return nullptr;
  const auto& s = c.sched;
  auto f = [&](size_t i) { return std::stod(s.at(i)); };
  auto n = [&](size_t i) { return static_cast<int64_t>(std::stoll(s.at(i))); };
  if (s[0] == "StepLR") return std::make_unique<StepLR>(opt, n(1), f(2));
  if (s[0] == "MultiStepLR") {
    std::vector<int64_t> m;
    for (int64_t i = 0; i < n(2); ++i) m.push_back(n(3 + static_cast<size_t>(i)));
    return std::make_unique<MultiStepLR>(opt, m, f(1));
  }
  if (s[0] == "CosineAnnealingLR") return std::make_unique<CosineAnnealingLR>(opt, n(1), f(2));
  if (s[0] == "OneCycleLR") {
    OneCycleLROptions o;
    o.max_lr = f(1);
    o.total_steps = n(2);
    o.pct_start = f(3);
    o.anneal_strategy = s.at(4);
    o.three_phase = n(5) != 0;
    o.cycle_momentum = n(6) != 0;
    o.div_factor = f(7);
    o.final_div_factor = f(8);
    return std::make_unique<OneCycleLR>(opt, o);
  }
  throw std::runtime_error("unknown scheduler " + s[0]);
}

using ember_tools::kind_name;

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// One state_dict value as the test encodes torch's: numbers by value (Python's 0 == 0.0),
// tensors by dtype and shape (and "step" by value too).
std::string encode(const std::string& key, const Value& v) {
  if (v.is_none()) return "None";
  if (v.is_bool()) return v.to_bool() ? "True" : "False";
  if (v.is_int() || v.is_double()) return num(v.to_double());
  if (v.is_double_list() || v.is_int_list()) {
    std::vector<double> l =
        v.is_double_list() ? v.to_double_list()
                           : std::vector<double>(v.to_int_list().begin(), v.to_int_list().end());
    std::string s = "[";
    for (size_t i = 0; i < l.size(); ++i) {
      if (i) s += ",";
      s += num(l[i]);
    }
    return s + "]";
  }
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    std::string s = std::string("T:") + dtype_name(t.dtype()) + ":[";
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d) s += ",";
      s += std::to_string(t.size(d));
    }
    s += "]";
    if (key == "step") {
      s += ":";
      s += num(t.item<double>());
    }
    return s;
  }
  return std::string("?") + v.type_name();
}

void write_state_dict(const Optimizer& opt, std::ostream& out) {
  OptimizerStateDict sd = opt.state_dict();
  for (size_t i = 0; i < sd.param_groups.size(); ++i) {
    out << "sdgroup " << i;
    for (const auto& [k, v] : sd.param_groups[i]) out << " " << k << "=" << encode(k, v);
    out << "\n";
  }
  for (const auto& [idx, st] : sd.state) {
    out << "sdstate " << idx;
    for (const auto& [k, v] : st) out << " " << k << "=" << encode(k, v);
    out << "\n";
  }
}

void run(const Case& c, std::ostream& out) {
  std::unique_ptr<Optimizer> opt = make_optimizer(c);
  std::unique_ptr<LRScheduler> sched = make_scheduler(c, *opt);
  for (int64_t s = 0; s < c.steps; ++s) {
    for (size_t i = 0; i < c.params.size(); ++i) {
      const ParamSpec& p = c.params[i];
      bool skip = false;
      for (const auto& [pi, ps] : c.nograd) skip |= pi == i && ps == s;
      if (skip) {
        p.t.set_grad(Tensor());
      } else {
        NoGradGuard g;
        p.t.set_grad(p.t.detach() * p.a + p.b * static_cast<double>(s + 1));
      }
    }
    opt->step();
    if (sched) sched->step();
    out << "step " << s << " lr";
    for (const ParamGroup& g : opt->param_groups()) out << " " << num(g.lr());
    out << "\nmom";
    for (const ParamGroup& g : opt->param_groups()) {
      const ValueDict& o = g.options();
      double m =
          o.contains("momentum") ? o.at("momentum").to_double() : o.at("betas").to_double_list()[0];
      out << " " << num(m);
    }
    out << "\n";
    for (size_t i = 0; i < c.params.size(); ++i) {
      out << "p " << i;
      for (double v : values(c.params[i].t)) out << " " << num(v);
      out << "\n";
    }
    if (s == c.reload) {
      OptimizerStateDict sd = opt->state_dict();
      ValueDict ssd = sched ? sched->state_dict() : ValueDict();
      sched.reset();
      opt = make_optimizer(c);
      sched = make_scheduler(c, *opt);
      opt->load_state_dict(sd);
      if (sched) sched->load_state_dict(ssd);
    }
  }
  write_state_dict(*opt, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ember_optim SPEC OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::ofstream out(std::string(argv[2]) + "/results.txt");
  std::string word;
  while (in >> word) {
    if (word != "case") {
      std::cerr << "malformed spec near '" << word << "'\n";
      return 2;
    }
    Case c = read_case(in);
    std::ostringstream block;
    try {
      run(c, block);
      out << "case " << c.id << " ok\n" << block.str();
    } catch (const Error& e) {
      std::string msg = e.what();
      for (char& ch : msg)
        if (ch == '\n') ch = ' ';
      out << "case " << c.id << " error " << kind_name(e.kind()) << " " << msg << "\n";
    }
  }
  return 0;
}
