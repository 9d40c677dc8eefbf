// ember_grad SPEC OUTDIR — runs ops by name through the boxed dispatcher with autograd on, and
// writes the gradients of their inputs, for tests/python/autograd/test_grads_vs_torch.py (which
// runs torch.autograd.grad on the same inputs and compares).
//
// SPEC, one token stream (whitespace separated), per case:
//   case <id> <op full name> <inplace 0|1> <check 0|1>
//   arg ...                  the op's arguments (spec_io.h)
//   diff <n> <slots...>      which tensors require grad; a slot numbers the tensors in argument
//                            order, tensor-list elements (Nones included) one each
//   gout <n>                 one grad_output per output tensor (tensor lists flattened), in
//   arg T ... | arg N        order; N: the output is not differentiated
//   end
// inplace: the op writes its first argument, which the tool clones first (x.clone().exp_()), so
// leaves stay leaves. check: also run gradcheck and gradgradcheck on float64 copies of the inputs
// (same strides), with the op applied through the dispatcher inside the DifferentiableFn.
//
// OUTDIR/results.txt, per case, either "case <id> error <Kind> <message>" (the forward failed) or
//   case <id> ok
//   missing <n> <ops...>     primitive ops that ran on inputs requiring grad, gave floating
//                            outputs and have no backward rule (rules not written yet)
//   missing2 <n> <ops...>    the same for the create_graph backward (double backward)
//   fn <grad_fn name|none> <requires_grad 0|1>        per output
//   out T <dtype> <ndim> <sizes> <file>@<offset>      per output (values in OUTDIR/results.bin)
//   grads ok <n> | grads error <Kind> <message> | grads skip
//   gin T <dtype> <ndim> <sizes> <file>@<offset> | gin none   per differentiable input
//   check ok | check fail <message> | check skip
//   gradgrad ok | gradgrad fail <message> | gradgrad skip
#include <ember/autograd/autograd.h>
#include <ember/autograd/gradcheck.h>
#include <ember/grad_mode.h>

#include <functional>
#include <set>
#include <sstream>

#include "dispatch/dispatcher.h"
#include "spec_io.h"

using namespace ember_tools;
using ember::autograd::tensor_list;

namespace {

struct GradCase {
  std::string id, op;
  bool inplace = false, check = false;
  Stack args;
  std::vector<size_t> diff;                 // tensor slots that require grad
  std::vector<std::optional<Tensor>> gouts;  // per output tensor
};

GradCase read_case(std::istream& in) {
  GradCase c;
  int inplace, check;
  in >> c.id >> c.op >> inplace >> check;
  c.inplace = inplace != 0;
  c.check = check != 0;
  std::string word;
  while (in >> word && word != "end") {
    if (word == "arg") {
      c.args.push_back(read_arg(in));
    } else if (word == "diff") {
      size_t n;
      in >> n;
      c.diff.resize(n);
      for (auto& s : c.diff) in >> s;
    } else if (word == "gout") {
      size_t n;
      in >> n;
      for (size_t i = 0; i < n; ++i) {
        in >> word;  // "arg"
        Value v = read_arg(in);
        c.gouts.push_back(v.is_tensor() ? std::optional<Tensor>(v.to_tensor()) : std::nullopt);
      }
    } else {
      throw std::runtime_error("malformed spec near '" + word + "' in case " + c.id);
    }
  }
  return c;
}

// Calls f(slot, tensor) for every tensor slot of `args`; f may replace the tensor.
void for_each_slot(Stack& args, const std::function<void(size_t, Tensor&)>& f) {
  size_t slot = 0;
  for (auto& v : args) {
    if (v.is_tensor()) {
      f(slot++, v.to_tensor());
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> list = v.to_tensor_list();
      for (auto& t : list) f(slot++, t);
      v = Value(std::move(list));
    } else if (v.is_optional_tensor_list()) {
      Value::OptionalTensorList list = v.to_optional_tensor_list();
      for (auto& t : list) {
        if (t) f(slot, *t);
        ++slot;
      }
      v = Value(std::move(list));
    }
  }
}

// The case's differentiable tensors as fresh leaves (same values and strides) requiring grad.
tensor_list make_leaves(GradCase& c) {
  tensor_list leaves(c.diff.size());
  for_each_slot(c.args, [&](size_t slot, Tensor& t) {
    for (size_t k = 0; k < c.diff.size(); ++k) {
      if (c.diff[k] != slot) continue;
      t = t.detach().requires_grad_();
      leaves[k] = t;
    }
  });
  return leaves;
}

// A copy with the same sizes and strides (a permuted or strided layout stays one), in `dtype`.
Tensor strided_copy(const Tensor& t, ScalarType dtype) {
  NoGradGuard no_grad;
  Tensor c = empty_strided(t.sizes(), t.strides(), TensorOptions(dtype).device(kCPU));
  c.copy_(t);
  return c;
}

// The op on `leaves` in place of the case's differentiable tensors; its tensor outputs, flat.
tensor_list run_op(const GradCase& c, const tensor_list& leaves) {
  Stack args = c.args;
  for_each_slot(args, [&](size_t slot, Tensor& t) {
    for (size_t k = 0; k < c.diff.size(); ++k)
      if (c.diff[k] == slot) t = leaves[k];
  });
  if (c.inplace) args[0] = Value(args[0].to_tensor().clone());
  tensor_list outs;
  for (auto& v : op_by_full_name(c.op).call(args)) {
    if (v.is_tensor()) outs.push_back(v.to_tensor());
    if (v.is_tensor_list())
      for (const auto& t : v.to_tensor_list()) outs.push_back(t);
  }
  return outs;
}

// The outputs that get a grad_output, and those grad_outputs (optionally float64 leaves).
void select_outputs(const GradCase& c, const tensor_list& outs, tensor_list& sel,
                    tensor_list& gouts, bool as_leaves) {
  for (size_t i = 0; i < outs.size() && i < c.gouts.size(); ++i) {
    if (!c.gouts[i]) continue;
    sel.push_back(outs[i]);
    const Tensor& g = *c.gouts[i];
    gouts.push_back(as_leaves ? strided_copy(g, outs[i].dtype()).requires_grad_() : g);
  }
}

bool any_requires_grad(const Stack& args) {
  for (const auto& v : args) {
    if (v.is_tensor() && v.to_tensor().requires_grad()) return true;
    if (v.is_tensor_list())
      for (const auto& t : v.to_tensor_list())
        if (t.requires_grad()) return true;
    if (v.is_optional_tensor_list())
      for (const auto& t : v.to_optional_tensor_list())
        if (t && t->requires_grad()) return true;
  }
  return false;
}

bool any_floating(const Stack& outs) {
  for (const auto& v : outs) {
    if (v.is_tensor() && is_floating(v.to_tensor().dtype())) return true;
    if (v.is_tensor_list())
      for (const auto& t : v.to_tensor_list())
        if (is_floating(t.dtype())) return true;
  }
  return false;
}

// Sees every primitive op below autograd and notes those that should have recorded a backward
// but have no rule: grad mode on, an argument requiring grad, a floating output. Composite ops
// never reach this layer; the primitives their bodies call do.
class RuleProbe : public DispatchMode {
 public:
  std::set<std::string> missing;
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    Stack out = op.redispatch(args);
    const auto id = static_cast<dispatch::OpId>(op.id());
    // detach is non-differentiable by definition; handlers see it wherever PyTorch copies a
    // tensor without history (Note [Detach through the dispatch layer]).
    if (GradMode::is_enabled() && !dispatch::autograd_slot(id).fn && any_requires_grad(args) &&
        any_floating(out) && id != dispatch::OpId::detach) {
      missing.insert(op.full_name());
    }
    return out;
  }
};

void write_missing(std::ostream& out, const char* tag, const std::set<std::string>& ops) {
  out << tag << " " << ops.size();
  for (const auto& op : ops) out << " " << op;
  out << "\n";
}

// Which rules the forward and the double backward lack (run once more, under RuleProbe).
void probe_rules(GradCase& c, std::ostream& block) {
  auto probe = make_intrusive<RuleProbe>();
  std::set<std::string> first;
  {
    DispatchModeGuard guard(probe);
    tensor_list leaves = make_leaves(c);
    tensor_list outs = run_op(c, leaves);
    first = probe->missing;
    probe->missing.clear();
    tensor_list sel, gouts;
    select_outputs(c, outs, sel, gouts, true);
    try {
      if (!sel.empty() && !leaves.empty()) autograd::grad(sel, leaves, gouts, std::nullopt, true, true);
    } catch (const Error&) {
      // A missing first-order rule: reported above, the grads line says what failed.
    }
  }
  write_missing(block, "missing", first);
  write_missing(block, "missing2", probe->missing);
}

std::string run_check(const std::function<bool()>& check) {
  try {
    return check() ? "ok" : "fail returned false";
  } catch (const Error& e) {
    return "fail " + one_line(e.what());
  }
}

void run_case(GradCase& c, Blob& blob, std::ostream& out) {
  std::ostringstream block;
  probe_rules(c, block);
  tensor_list leaves = make_leaves(c);
  tensor_list outs = run_op(c, leaves);
  for (const auto& o : outs) {
    const auto fn = o.grad_fn();
    block << "fn " << (fn ? fn->name() : "none") << " " << o.requires_grad() << "\n";
  }
  for (const auto& o : outs) blob.write(block, o.detach(), "out");
  tensor_list sel, gouts;
  select_outputs(c, outs, sel, gouts, false);
  if (sel.empty() || leaves.empty()) {
    block << "grads skip\n";
  } else {
    try {
      tensor_list grads = autograd::grad(sel, leaves, gouts, std::nullopt, false, true);
      block << "grads ok " << grads.size() << "\n";
      for (size_t i = 0; i < grads.size(); ++i) {
        if (!grads[i].defined()) {
          block << "gin none\n";
        } else {
          blob.write(block, grads[i], "gin");
        }
      }
    } catch (const Error& e) {
      block << "grads error " << kind_name(e.kind()) << " " << one_line(e.what()) << "\n";
    }
  }
  if (!c.check || leaves.empty()) {
    block << "check skip\ngradgrad skip\n";
  } else {
    tensor_list in64;
    for (const auto& l : leaves)  // complex leaves stay complex (gradcheck's Wirtinger checks)
      in64.push_back(strided_copy(l, l.is_complex() ? kComplexDouble : kFloat64).requires_grad_());
    // The op's floating and complex outputs: a bool one (dropout's mask) has no finite
    // differences, and gradcheck refuses it as PyTorch's does.
    autograd::DifferentiableFn fn = [&c](const tensor_list& in) {
      tensor_list r;
      for (const auto& o : run_op(c, in))
        if (o.defined() && (is_floating(o.dtype()) || o.is_complex())) r.push_back(o);
      return r;
    };
    block << "check " << run_check([&] { return autograd::gradcheck(fn, in64); }) << "\n";
    tensor_list sel64, gouts64;
    select_outputs(c, run_op(c, in64), sel64, gouts64, true);
    block << "gradgrad "
          << run_check([&] { return autograd::gradgradcheck(fn, in64, gouts64); }) << "\n";
  }
  out << "case " << c.id << " ok\n" << block.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ember_grad SPEC OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string outdir = argv[2];
  std::ofstream out(outdir + "/results.txt");
  Blob blob(outdir + "/results.bin");
  std::string word;
  while (in >> word) {
    if (word != "case") {
      std::cerr << "malformed spec near '" << word << "'\n";
      return 2;
    }
    GradCase c = read_case(in);
    try {
      run_case(c, blob, out);
    } catch (const Error& e) {
      out << "case " << c.id << " error " << kind_name(e.kind()) << " " << one_line(e.what())
          << "\n";
    }
  }
  return 0;
}
