#include "ember/version.h"

// Set for this file only by CMakeLists.txt (a definition on the whole target would recompile
// every file when the version changes).
#ifndef EMBER_VERSION_STRING
#error "EMBER_VERSION_STRING must be defined by the build"
#endif

namespace ember {

const char* version() { return EMBER_VERSION_STRING; }

}  // namespace ember
