# GEMM libraries for src/backends/cpu/gemm.cpp (choice measured with tools/gemm_probe.cpp):
#   float  -> oneDNN   dnnl_sgemm   Debian: libdnnl-dev (runtime libdnnl2)
#   double -> OpenBLAS cblas_dgemm  Debian: libopenblas-dev (pulls libopenblas0-pthread)
#   OpenMP runtime libgomp          Debian: libgomp1 (comes with g++)
#
# Usage:  include(cmake/gemm.cmake)
#         target_link_libraries(ember_core PRIVATE ember_gemm_deps)
#
# Equivalent hand-written flags on Debian 12:
#   -I/usr/include/x86_64-linux-gnu/openblas-pthread
#   -ldnnl -L/usr/lib/x86_64-linux-gnu/openblas-pthread -lopenblas -lgomp

include_guard(GLOBAL)

# oneDNN: deliberately NOT find_package(dnnl CONFIG). Debian's dnnl-config.cmake runs
# find_package(OpenCL REQUIRED) (the package is built with the OpenCL GPU runtime), which is a
# hard configure error unless ocl-icd-opencl-dev and opencl-c-headers are installed -- and we
# only use the CPU C API. libdnnl.so pulls in libOpenCL.so.1 at run time by itself.
find_path(EMBER_DNNL_INCLUDE_DIR NAMES oneapi/dnnl/dnnl.h)
find_library(EMBER_DNNL_LIBRARY NAMES dnnl)
if(NOT EMBER_DNNL_INCLUDE_DIR OR NOT EMBER_DNNL_LIBRARY)
  message(FATAL_ERROR "oneDNN not found: install libdnnl-dev")
endif()

# OpenBLAS: pkg-config, because openblas.pc follows Debian's alternatives and points at the
# matching flavour's directory; the cblas.h there declares openblas_set_num_threads(), which
# the generic /usr/include/cblas.h of other BLAS implementations does not.
find_package(PkgConfig REQUIRED)
pkg_check_modules(EMBER_OPENBLAS REQUIRED IMPORTED_TARGET openblas)

# libgomp: gemm.cpp calls omp_set_num_threads() itself (oneDNN is built with DNNL_CPU_RUNTIME
# OMP and has no thread-count API of its own). It must be the same runtime libdnnl.so links,
# libgomp -- a second OpenMP runtime (e.g. clang's libomp) in the process means two thread
# pools that ignore each other. Linked by library, not via -fopenmp, so no compile flags leak
# into ember's sources. The SONAME fallback covers g++, whose libgomp.so sits in its private dir.
find_library(EMBER_GOMP_LIBRARY NAMES gomp libgomp.so.1)
if(NOT EMBER_GOMP_LIBRARY)
  message(FATAL_ERROR "libgomp not found: install libgomp1")
endif()

find_package(Threads REQUIRED)

add_library(ember_gemm_deps INTERFACE)
target_include_directories(ember_gemm_deps INTERFACE ${EMBER_DNNL_INCLUDE_DIR})
target_link_libraries(ember_gemm_deps INTERFACE
  ${EMBER_DNNL_LIBRARY} PkgConfig::EMBER_OPENBLAS ${EMBER_GOMP_LIBRARY} Threads::Threads)
