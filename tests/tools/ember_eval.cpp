// ember_eval SPEC OUTDIR — runs ops by name through the boxed dispatcher, for the differential
// tests against PyTorch (tests/python/core/test_ops_vs_torch.py writes SPEC and reads the results).
//
// SPEC, one token stream (whitespace separated), per case:
//   case <id> <op full name, e.g. aten::add.Tensor>
//   arg ...                        the op's arguments (spec_io.h)
//   end
// Results go to OUTDIR/results.txt: "case <id> ok <n>" followed by "out T <dtype> <ndim> <sizes>
// <file>" / "out I|F|B <v>" lines, or "case <id> error <Kind> <message on one line>".
#include <sstream>

#include "spec_io.h"

using namespace ember_tools;

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
    try {
      Stack res = op_by_full_name(full).call(args);
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
      out << "case " << id << " error " << kind_name(e.kind()) << " " << one_line(e.what()) << "\n";
    }
  }
  return 0;
}
