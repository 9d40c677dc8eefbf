// The remaining losses of torch.nn (issue 16): BCELoss, KLDivLoss, HuberLoss, SmoothL1Loss,
// SoftMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss,
// HingeEmbeddingLoss, PoissonNLLLoss (two inputs) and CosineEmbeddingLoss, MarginRankingLoss,
// TripletMarginLoss, GaussianNLLLoss (three). Class weights are buffers registered as None when
// not given, as PyTorch's; every loss prints as "BCELoss()".
//
//   ember::nn::HuberLoss huber("mean", 0.5);
//   ember::nn::TripletMarginLoss triplet(1.0, 2.0);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/modules/loss.h"

namespace ember::nn {

class BCELoss : public WeightedLoss {
 public:
  explicit BCELoss(const std::optional<Tensor>& weight = std::nullopt, std::string reduction = "mean")
      : WeightedLoss("BCELoss", weight, std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// reduction also "batchmean" (the sum over the batch size).
class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false)
      : Loss("KLDivLoss", std::move(reduction)), log_target(log_target) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  bool log_target;
};

class HuberLoss : public Loss {
 public:
  explicit HuberLoss(std::string reduction = "mean", double delta = 1.0)
      : Loss("HuberLoss", std::move(reduction)), delta(delta) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  double delta;
};

class SmoothL1Loss : public Loss {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0)
      : Loss("SmoothL1Loss", std::move(reduction)), beta(beta) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  double beta;
};

class SoftMarginLoss : public Loss {
 public:
  explicit SoftMarginLoss(std::string reduction = "mean") : Loss("SoftMarginLoss", std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class MultiLabelSoftMarginLoss : public WeightedLoss {
 public:
  explicit MultiLabelSoftMarginLoss(const std::optional<Tensor>& weight = std::nullopt,
                                    std::string reduction = "mean")
      : WeightedLoss("MultiLabelSoftMarginLoss", weight, std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class MultiMarginLoss : public WeightedLoss {
 public:
  /// p must be 1 or 2 (ValueError "only p == 1 and p == 2 supported"); weight 1-d.
  explicit MultiMarginLoss(int64_t p = 1, double margin = 1.0,
                           const std::optional<Tensor>& weight = std::nullopt,
                           std::string reduction = "mean");
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  int64_t p;
  double margin;
};

class MultiLabelMarginLoss : public Loss {
 public:
  explicit MultiLabelMarginLoss(std::string reduction = "mean")
      : Loss("MultiLabelMarginLoss", std::move(reduction)) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class HingeEmbeddingLoss : public Loss {
 public:
  explicit HingeEmbeddingLoss(double margin = 1.0, std::string reduction = "mean")
      : Loss("HingeEmbeddingLoss", std::move(reduction)), margin(margin) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  double margin;
};

class PoissonNLLLoss : public Loss {
 public:
  explicit PoissonNLLLoss(bool log_input = true, bool full = false, double eps = 1e-8,
                          std::string reduction = "mean")
      : Loss("PoissonNLLLoss", std::move(reduction)), log_input(log_input), full(full), eps(eps) {}
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  bool log_input;
  bool full;
  double eps;
};

/// The three-input losses: forward(a, b, c); the two-input form is a TypeError.
class Loss3 : public Loss {
 public:
  virtual Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c) = 0;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Value forward(const std::vector<Value>& inputs) override;
  using Module::operator();
  Tensor operator()(const Tensor& a, const Tensor& b, const Tensor& c) {
    return call({a, b, c}).to_tensor();
  }

 protected:
  Loss3(std::string type_name, std::string reduction, std::vector<const char*> names)
      : Loss(std::move(type_name), std::move(reduction)), names_(std::move(names)) {}
  std::vector<const char*> names_;
};

class CosineEmbeddingLoss : public Loss3 {
 public:
  explicit CosineEmbeddingLoss(double margin = 0.0, std::string reduction = "mean")
      : Loss3("CosineEmbeddingLoss", std::move(reduction), {"input1", "input2", "target"}),
        margin(margin) {}
  using Loss3::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
  double margin;
};

class MarginRankingLoss : public Loss3 {
 public:
  explicit MarginRankingLoss(double margin = 0.0, std::string reduction = "mean")
      : Loss3("MarginRankingLoss", std::move(reduction), {"input1", "input2", "target"}),
        margin(margin) {}
  using Loss3::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
  double margin;
};

class TripletMarginLoss : public Loss3 {
 public:
  explicit TripletMarginLoss(double margin = 1.0, double p = 2.0, double eps = 1e-6,
                             bool swap = false, std::string reduction = "mean")
      : Loss3("TripletMarginLoss", std::move(reduction), {"anchor", "positive", "negative"}),
        margin(margin), p(p), eps(eps), swap(swap) {}
  using Loss3::forward;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) override;
  double margin;
  double p;
  double eps;
  bool swap;
};

class GaussianNLLLoss : public Loss3 {
 public:
  explicit GaussianNLLLoss(bool full = false, double eps = 1e-6, std::string reduction = "mean")
      : Loss3("GaussianNLLLoss", std::move(reduction), {"input", "target", "var"}), full(full), eps(eps) {}
  using Loss3::forward;
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var) override;
  bool full;
  double eps;
};

}  // namespace ember::nn
