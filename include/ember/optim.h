// ember::optim — torch.optim in C++: Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta,
// Adamax, NAdam, RAdam and the LR schedulers (ReduceLROnPlateau too).
//
//   #include <ember/optim.h>
//   ember::optim::Adam opt(params, {.lr = 3e-4});
//   ember::optim::OneCycleLR sched(opt, {.max_lr = 1e-2, .total_steps = 1000});
//   for (...) { opt.zero_grad(); loss().backward(); opt.step(); sched.step(); }
#pragma once

#include "ember/optim/adam.h"
#include "ember/optim/adaptive.h"
#include "ember/optim/asgd_rprop.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers.h"
#include "ember/optim/sgd.h"
