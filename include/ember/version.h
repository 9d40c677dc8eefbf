// ember's version: CMake's project(VERSION), the one number the library, the Python package
// (ember.__version__) and setup.py share.
//
//   std::cout << ember::version();   // "0.1.0"
#pragma once

namespace ember {

/// "MAJOR.MINOR.PATCH" of the library this program runs with.
const char* version();

}  // namespace ember
