// Everything ember's core offers, in one include.
//
//   #include <ember/ember.h>
//   int main() { std::cout << ember::ones({2, 2}) + 1 << "\n"; }
#pragma once

#include "ember/device.h"
#include "ember/dispatch.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/generator.h"
#include "ember/memory_format.h"
#include "ember/ops/conv.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn.h"
#include "ember/ops/normalization.h"
#include "ember/ops/overloads.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pooling.h"
#include "ember/ops/random.h"
#include "ember/ops/random_sampling.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "ember/parallel.h"
#include "ember/print.h"
#include "ember/quantized.h"
#include "ember/scalar.h"
#include "ember/tensor.h"
#include "ember/value.h"
#include "ember/version.h"
