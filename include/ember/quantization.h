// ember::quantization in one include: observers, fake quantization, qconfigs, fusion, stubs and
// the eager-mode workflow (prepare / convert / quantize*). See docs/quantization.md.
//
//   #include <ember/quantization.h>
//   namespace q = ember::quantization;
#pragma once

#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/fuse.h"
#include "ember/quantization/mappings.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantization/quantize.h"
#include "ember/quantization/stubs.h"
