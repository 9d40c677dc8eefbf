// The nn::functional entries of issue 16 (ember/nn/functional_more.h) as _C._nn functions;
// ember/nn/_functional_nnlayers.py gives them torch.nn.functional's Python signatures.
#include "nn_cnn.h"

#include "ember/nn/functional.h"

namespace ember::python {

namespace {
namespace F = ember::nn::functional;
using IV = std::vector<int64_t>;
}  // namespace

void init_nn_nnlayers_functional(py::module_& m) {
  const auto none = py::none();
  // activations
  m.def("leaky_relu", &F::leaky_relu, py::arg("input"), py::arg("negative_slope") = 0.01, py::arg("inplace") = false);
  m.def("elu", &F::elu, py::arg("input"), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  m.def("selu", &F::selu, py::arg("input"), py::arg("inplace") = false);
  m.def("celu", &F::celu, py::arg("input"), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  m.def("softplus", &F::softplus, py::arg("input"), py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  m.def("mish", &F::mish, py::arg("input"), py::arg("inplace") = false);
  m.def("glu", &F::glu, py::arg("input"), py::arg("dim") = -1);
  m.def("logsigmoid", &F::logsigmoid, py::arg("input"));
  m.def("softsign", &F::softsign, py::arg("input"));
  m.def("softshrink", &F::softshrink, py::arg("input"), py::arg("lambd") = 0.5);
  m.def("hardshrink", &F::hardshrink, py::arg("input"), py::arg("lambd") = 0.5);
  m.def("tanhshrink", &F::tanhshrink, py::arg("input"));
  m.def("threshold", &F::threshold, py::arg("input"), py::arg("threshold"), py::arg("value"),
        py::arg("inplace") = false);
  m.def("softmin", &F::softmin, py::arg("input"), py::arg("dim") = none, py::arg("dtype") = none);
  m.def("rrelu", &F::rrelu, py::arg("input"), py::arg("lower") = 1.0 / 8, py::arg("upper") = 1.0 / 3,
        py::arg("training") = false, py::arg("inplace") = false);
  m.def("prelu", &F::prelu, py::arg("input"), py::arg("weight"));
  // pooling
  m.def("lp_pool1d", [](const Tensor& x, double p, IV k, IV s, bool c) { return F::lp_pool1d(x, p, k, s, c); },
        py::arg("input"), py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride"),
        py::arg("ceil_mode") = false);
  m.def("lp_pool2d", [](const Tensor& x, double p, IV k, IV s, bool c) { return F::lp_pool2d(x, p, k, s, c); },
        py::arg("input"), py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride"),
        py::arg("ceil_mode") = false);
  m.def("max_unpool", [](const Tensor& x, const Tensor& idx, IV k, IV s, IV p,
                         std::optional<IV> output_size, size_t spatial) {
    return F::max_unpool(x, idx, k, s, p, output_size, spatial);
  }, py::arg("input"), py::arg("indices"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
     py::arg("output_size"), py::arg("spatial"));
  // normalisation, distances, shapes
  m.def("instance_norm", &F::instance_norm, py::arg("input"), py::arg("running_mean") = none,
        py::arg("running_var") = none, py::arg("weight") = none, py::arg("bias") = none,
        py::arg("use_input_stats") = true, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("local_response_norm", &F::local_response_norm, py::arg("input"), py::arg("size"),
        py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, py::arg("k") = 1.0);
  m.def("normalize", &F::normalize, py::arg("input"), py::arg("p") = 2.0, py::arg("dim") = 1,
        py::arg("eps") = 1e-12);
  m.def("unfold", [](const Tensor& x, IV k, IV d, IV p, IV s) { return F::unfold(x, k, d, p, s); },
        py::arg("input"), py::arg("kernel_size"), py::arg("dilation"), py::arg("padding"), py::arg("stride"));
  m.def("fold", [](const Tensor& x, IV o, IV k, IV d, IV p, IV s) { return F::fold(x, o, k, d, p, s); },
        py::arg("input"), py::arg("output_size"), py::arg("kernel_size"), py::arg("dilation"),
        py::arg("padding"), py::arg("stride"));
  m.def("grid_sample", &F::grid_sample, py::arg("input"), py::arg("grid"), py::arg("mode") = "bilinear",
        py::arg("padding_mode") = "zeros", py::arg("align_corners") = none);
  m.def("affine_grid", [](const Tensor& theta, IV size, std::optional<bool> ac) {
    return F::affine_grid(theta, size, ac);
  }, py::arg("theta"), py::arg("size"), py::arg("align_corners") = none);
  // dropouts
  m.def("dropout1d", &F::dropout1d, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false);
  m.def("dropout3d", &F::dropout3d, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false);
  m.def("alpha_dropout", &F::alpha_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = false, py::arg("inplace") = false);
  m.def("feature_alpha_dropout", &F::feature_alpha_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = false, py::arg("inplace") = false);
  // losses (reduction strings; F's legacy arguments are resolved in Python)
  m.def("binary_cross_entropy", &F::binary_cross_entropy, py::arg("input"), py::arg("target"),
        py::arg("weight") = none, py::arg("reduction") = "mean");
  m.def("kl_div", &F::kl_div, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
        py::arg("log_target") = false);
  m.def("huber_loss", &F::huber_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
        py::arg("delta") = 1.0);
  m.def("soft_margin_loss", &F::soft_margin_loss, py::arg("input"), py::arg("target"),
        py::arg("reduction") = "mean");
  m.def("multilabel_soft_margin_loss", &F::multilabel_soft_margin_loss, py::arg("input"), py::arg("target"),
        py::arg("weight") = none, py::arg("reduction") = "mean");
  m.def("multi_margin_loss", &F::multi_margin_loss, py::arg("input"), py::arg("target"), py::arg("p") = 1,
        py::arg("margin") = 1.0, py::arg("weight") = none, py::arg("reduction") = "mean");
  m.def("multilabel_margin_loss", &F::multilabel_margin_loss, py::arg("input"), py::arg("target"),
        py::arg("reduction") = "mean");
  m.def("margin_ranking_loss", &F::margin_ranking_loss, py::arg("input1"), py::arg("input2"),
        py::arg("target"), py::arg("margin") = 0.0, py::arg("reduction") = "mean");
  m.def("hinge_embedding_loss", &F::hinge_embedding_loss, py::arg("input"), py::arg("target"),
        py::arg("margin") = 1.0, py::arg("reduction") = "mean");
  m.def("cosine_embedding_loss", &F::cosine_embedding_loss, py::arg("input1"), py::arg("input2"),
        py::arg("target"), py::arg("margin") = 0.0, py::arg("reduction") = "mean");
  m.def("triplet_margin_loss", &F::triplet_margin_loss, py::arg("anchor"), py::arg("positive"),
        py::arg("negative"), py::arg("margin") = 1.0, py::arg("p") = 2.0, py::arg("eps") = 1e-6,
        py::arg("swap") = false, py::arg("reduction") = "mean");
  m.def("poisson_nll_loss", &F::poisson_nll_loss, py::arg("input"), py::arg("target"),
        py::arg("log_input") = true, py::arg("full") = false, py::arg("eps") = 1e-8,
        py::arg("reduction") = "mean");
  m.def("gaussian_nll_loss", &F::gaussian_nll_loss, py::arg("input"), py::arg("target"), py::arg("var"),
        py::arg("full") = false, py::arg("eps") = 1e-6, py::arg("reduction") = "mean");
}

}  // namespace ember::python
