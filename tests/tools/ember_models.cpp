// ember_models SPEC OUTDIR — builds an ember::models network, loads a state_dict, runs one
// forward; tests/python/models/test_models_vs_torchvision.py drives it with torchvision's
// weights and compares. SPEC, one token stream (tensors as in spec_io.h, after their "T"):
//   model <mobilenet_v2|resnet18|resnet34|resnet50> <num_classes> <width_mult>
//   mode <eval|train>
//   param <key> T ...            one per state_dict entry (loaded strictly)
//   input T ...
// Results in OUTDIR: repr.txt (the model's repr), keys.txt ("<key> <dtype> <sizes...>" per
// state_dict entry of the freshly built model, in order), results.txt ("out T ..." for the
// forward's output, then the state_dict after the forward as "sd <key> T ...").
#include <ember/models.h>
#include <ember/nn.h>

#include "spec_io.h"

using namespace ember_tools;

namespace {

std::shared_ptr<nn::Module> build(const std::string& name, int64_t num_classes, double width) {
  if (name == "mobilenet_v2") return models::mobilenet_v2(num_classes, width);
  if (name == "resnet18") return models::resnet18(num_classes);
  if (name == "resnet34") return models::resnet34(num_classes);
  if (name == "resnet50") return models::resnet50(num_classes);
  throw std::runtime_error("unknown model " + name);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ember_models SPEC OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  const std::string outdir = argv[2];
  std::shared_ptr<nn::Module> model;
  nn::StateDict sd;
  Tensor input;
  bool train = false;
  std::string word;
  while (in >> word) {
    if (word == "model") {
      std::string name, width;
      int64_t classes;
      in >> name >> classes >> width;
      model = build(name, classes, std::stod(width));
      std::ofstream(outdir + "/repr.txt") << model->repr();
      std::ofstream keys(outdir + "/keys.txt");
      for (const auto& [k, v] : model->state_dict().items()) {
        const Tensor t = v.to_tensor();
        keys << k << " " << dtype_name(t.dtype());
        for (int64_t s : t.sizes()) keys << " " << s;
        keys << "\n";
      }
    } else if (word == "mode") {
      std::string mode;
      in >> mode;
      train = mode == "train";
    } else if (word == "param") {
      std::string key, tag;
      in >> key >> tag;  // tag: "T"
      sd.insert(key, Value(read_tensor(in)));
    } else if (word == "input") {
      std::string tag;
      in >> tag;
      input = read_tensor(in);
    } else {
      std::cerr << "malformed spec near '" << word << "'\n";
      return 2;
    }
  }
  if (!model || !input.defined()) {
    std::cerr << "the spec needs a model and an input\n";
    return 2;
  }
  std::ofstream out(outdir + "/results.txt");
  try {
    if (!sd.empty()) model->load_state_dict(sd, /*strict=*/true);
    model->train(train);
    Tensor y = (*model)(input);
    Blob blob(outdir + "/values.bin");
    blob.write(out, y, "out");
    for (const auto& [k, v] : model->state_dict().items())
      blob.write(out, v.to_tensor(), ("sd " + k).c_str());
  } catch (const Error& e) {
    out << "error " << kind_name(e.kind()) << " " << one_line(e.what()) << "\n";
  }
  return 0;
}
