// ember::data: data sets, transforms, samplers and the data loader (C++), modelled on libtorch's
// torch::data but smaller. See docs/data.md.
//
//   auto loader = ember::data::make_data_loader(
//       ember::data::TensorDataset(x, y).map(ember::data::transforms::Stack<>()),
//       ember::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) train_step(batch.data, batch.target);
#pragma once

#include "ember/data/dataloader.h"
#include "ember/data/datasets.h"
#include "ember/data/example.h"
#include "ember/data/samplers.h"
#include "ember/data/transforms.h"
