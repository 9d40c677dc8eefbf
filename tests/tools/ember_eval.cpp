// ember_eval SPEC OUTDIR — runs ops by name through the boxed dispatcher, for the differential
// tests against PyTorch (tests/python/core/test_ops_vs_torch.py writes SPEC and reads the results).
//
// SPEC, one token stream (whitespace separated), per case:
//   case <id> <op full name, e.g. aten::add.Tensor>
//   arg T <dtype> <layout c|t|s> <ndim> <sizes...> <raw little-endian file>   a tensor
//   arg I <int> | arg F <double> | arg B <0|1> | arg N | arg S <string> | arg Y <dtype>
//   arg L <n> <ints...>            an int list
//   arg TL <n>  then n "arg T ..." a tensor list
//   end
// Layouts give the same values with different strides: c contiguous, t the dims stored in
// reverse order (a permuted view), s every other element of a buffer twice as wide.
// Results go to OUTDIR/results.txt: "case <id> ok <n>" followed by "out T <dtype> <ndim> <sizes>
// <file>" / "out I|F|B <v>" lines, or "case <id> error <Kind> <message on one line>".
#include <ember/ember.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using namespace ember;

Tensor read_tensor(std::istream& in) {
  std::string dtype, layout, path;
  int64_t ndim;
  in >> dtype >> layout >> ndim;
  std::vector<int64_t> sizes(static_cast<size_t>(ndim));
  for (auto& s : sizes) in >> s;
  in >> path;
  ScalarType dt = dtype_from_name(dtype);
  Tensor logical = empty(sizes, TensorOptions(dt).device(kCPU));
  std::ifstream f(path, std::ios::binary);
  f.read(static_cast<char*>(logical.data_ptr()), static_cast<std::streamsize>(logical.nbytes()));
  if (!f && logical.nbytes() > 0) throw std::runtime_error("cannot read " + path);
  if (layout == "c" || ndim == 0) return logical;
  if (layout == "t") {
    std::vector<int64_t> rev(sizes.rbegin(), sizes.rend()), perm;
    for (int64_t d = ndim - 1; d >= 0; --d) perm.push_back(d);
    Tensor y = empty(rev, TensorOptions(dt).device(kCPU)).permute(perm);
    y.copy_(logical);
    return y;
  }
  if (layout == "s") {
    std::vector<int64_t> wide = sizes;
    wide.back() *= 2;
    Tensor y = empty(wide, TensorOptions(dt).device(kCPU)).slice(-1, 0, std::nullopt, 2);
    y.copy_(logical);
    return y;
  }
  throw std::runtime_error("unknown layout " + layout);
}

Value read_arg(std::istream& in) {
  std::string kind;
  in >> kind;
  if (kind == "T") return Value(read_tensor(in));
  if (kind == "I") {
    int64_t v;
    in >> v;
    return Value(v);
  }
  if (kind == "F") {
    std::string v;
    in >> v;
    return Value(std::stod(v));
  }
  if (kind == "B") {
    int v;
    in >> v;
    return Value(v != 0);
  }
  if (kind == "N") return Value();
  if (kind == "S") {
    std::string v;
    in >> v;
    return Value(v);
  }
  if (kind == "Y") {
    std::string v;
    in >> v;
    return Value(dtype_from_name(v));
  }
  if (kind == "L") {
    int64_t n;
    in >> n;
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v) in >> x;
    return Value(std::move(v));
  }
  if (kind == "TL") {
    int64_t n;
    in >> n;
    std::vector<Tensor> v;
    for (int64_t i = 0; i < n; ++i) {
      std::string tag, t;
      in >> tag >> t;  // "arg T"
      v.push_back(read_tensor(in));
    }
    return Value(std::move(v));
  }
  throw std::runtime_error("unknown arg kind " + kind);
}

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Runtime: return "RuntimeError";
    case ErrorKind::Type: return "TypeError";
    case ErrorKind::Value: return "ValueError";
    case ErrorKind::Index: return "IndexError";
    case ErrorKind::Key: return "KeyError";
    case ErrorKind::NotImplemented: return "NotImplementedError";
    case ErrorKind::Attribute: return "AttributeError";
  }
  return "RuntimeError";
}

void write_tensor(std::ostream& out, const Tensor& t, const std::string& path) {
  Tensor c = t.contiguous();
  out << "out T " << dtype_name(t.dtype()) << " " << t.dim();
  for (int64_t s : t.sizes()) out << " " << s;
  out << " " << path << "\n";
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ember_eval SPEC OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string outdir = argv[2];
  std::ofstream out(outdir + "/results.txt");
  std::string word;
  while (in >> word) {
    if (word != "case") {
      std::cerr << "malformed spec near '" << word << "'\n";
      return 2;
    }
    std::string id, full;
    in >> id >> full;
    Stack args;
    while (in >> word && word == "arg") args.push_back(read_arg(in));
    auto dot = full.find('.', full.find("::"));
    std::string name = dot == std::string::npos ? full : full.substr(0, dot);
    std::string overload = dot == std::string::npos ? "default" : full.substr(dot + 1);
    try {
      Stack res = find_op(name, overload).call(args);
      std::ostringstream block;
      int n = 0;
      for (const auto& v : res) {
        if (v.is_tensor()) {
          write_tensor(block, v.to_tensor(), outdir + "/" + id + "_" + std::to_string(n++) + ".bin");
        } else if (v.is_tensor_list()) {
          for (const auto& t : v.to_tensor_list())
            write_tensor(block, t, outdir + "/" + id + "_" + std::to_string(n++) + ".bin");
        } else if (v.is_bool()) {
          block << "out B " << v.to_bool() << "\n";
          ++n;
        }
      }
      out << "case " << id << " ok " << n << "\n" << block.str();
    } catch (const Error& e) {
      std::string msg = e.what();
      // One line per case: newlines travel as the two characters "\n" (the test compares the first).
      std::string escaped;
      for (char c : msg) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
      msg = escaped;
      out << "case " << id << " error " << kind_name(e.kind()) << " " << msg << "\n";
    }
  }
  return 0;
}
