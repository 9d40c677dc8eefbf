// The C++ twin of examples/python/char_transformer.py: a small character-level transformer
// language model trained on Debian's GPL-3 text for two hundred steps (token and learned
// position embeddings, two pre-norm TransformerEncoderLayers under a causal mask, a linear head,
// AdamW, gradient clipping). Prints the loss as it falls; exits non-zero if it does not.
//
//   char_transformer [steps=200] [path=/usr/share/common-licenses/GPL-3]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "ember/optim.h"

using namespace ember;

namespace {

// A module as libtorch's read: a typed forward (ModuleBase derives the boxed one), its C++ class
// name as type name, and handles that re-read their slots (docs/modules.md).
struct CharTransformer : nn::ModuleBase<CharTransformer> {
  CharTransformer(int64_t vocab, int64_t context, int64_t d_model = 64, int64_t nhead = 4,
                  int64_t num_layers = 2, int64_t dim_feedforward = 128, double dropout = 0.0) {
    embed = register_module("embed", std::make_shared<nn::Embedding>(vocab, d_model));
    pos = register_parameter_ref("pos", zeros({context, d_model}));
    nn::init::normal_(pos, 0.0, 0.02);
    auto layer = std::make_shared<nn::TransformerEncoderLayer>(
        d_model, nhead, dim_feedforward, dropout, "gelu", 1e-5, /*batch_first=*/true,
        /*norm_first=*/true);
    encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(layer, num_layers));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(d_model));
    head = register_module("head", std::make_shared<nn::Linear>(d_model, vocab));
    mask = register_buffer_ref("mask", nn::Transformer::generate_square_subsequent_mask(context));
  }
  Tensor forward(const Tensor& idx) {
    const int64_t t = idx.size(1);
    Tensor x = (*embed)(idx) + pos->narrow(0, 0, t);
    x = encoder->forward(x, mask->narrow(0, 0, t).narrow(1, 0, t));
    return (*head)((*norm)(x));
  }
  std::shared_ptr<nn::Embedding> embed;
  std::shared_ptr<nn::TransformerEncoder> encoder;
  std::shared_ptr<nn::LayerNorm> norm;
  std::shared_ptr<nn::Linear> head;
  nn::ParameterRef pos;
  nn::BufferRef mask;
};

int run(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string path = argc > 2 ? argv[2] : "/usr/share/common-licenses/GPL-3";
  constexpr int64_t kContext = 64, kBatch = 16;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "char_transformer: cannot read %s\n", path.c_str());
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::map<char, int64_t> index;
  for (char c : text) index[c] = 0;
  int64_t vocab = 0;
  for (auto& [c, i] : index) i = vocab++;
  std::vector<int64_t> data;
  for (char c : text) data.push_back(index[c]);
  std::printf("corpus: %s, %zu characters, %lld distinct\n", path.c_str(), text.size(),
              static_cast<long long>(vocab));

  manual_seed(0);
  auto model = std::make_shared<CharTransformer>(vocab, kContext);
  int64_t n_params = 0;
  for (const Tensor& p : model->parameters()) n_params += p.numel();
  std::printf("model: %lld parameters\n", static_cast<long long>(n_params));
  optim::AdamW opt(model->parameters(), {.lr = 3e-3, .weight_decay = 0.01});
  nn::CrossEntropyLoss criterion;
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> start_of(0, static_cast<int64_t>(data.size()) - kContext - 2);

  double first = 0, last = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    Tensor x = empty({kBatch, kContext}, kInt64), y = empty({kBatch, kContext}, kInt64);
    int64_t *px = x.data_ptr<int64_t>(), *py = y.data_ptr<int64_t>();
    for (int64_t b = 0; b < kBatch; ++b) {
      const int64_t s = start_of(rng);
      for (int64_t t = 0; t < kContext; ++t) {
        px[b * kContext + t] = data[s + t];
        py[b * kContext + t] = data[s + t + 1];
      }
    }
    Tensor loss = criterion(model->forward(x).reshape({-1, vocab}), y.reshape({-1}));
    opt.zero_grad();
    loss.backward();
    nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
    last = loss.item<double>();
    if (step == 0) first = last;
    if (step % 40 == 0 || step == steps - 1) std::printf("step %4d  loss %.3f\n", step, last);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("loss fell from %.3f to %.3f (a uniform guess: %.3f)\n", first, last,
              std::log(static_cast<double>(vocab)));
  std::printf("%.1f ms per step\n", ms / steps);
  if (!(last < first)) {
    std::fprintf(stderr, "char_transformer: FAILED: the loss did not fall\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "char_transformer: %s\n", e.what());
    return 1;
  }
}
