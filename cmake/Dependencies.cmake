# Every third-party dependency, found once. scripts/setup.sh installs them (Debian 12 packages).
# Each becomes a target; modules link only what they use (see docs/architecture.md).

find_package(Boost 1.74 REQUIRED CONFIG COMPONENTS headers)
find_package(doctest REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)

# LLVM 19 (corpus/ lowering only). The version file wants major.minor.
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
add_library(ptxcast_llvm INTERFACE)
target_include_directories(ptxcast_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ptxcast_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(ptxcast_llvm INTERFACE LLVM) # the shared libLLVM: links fast
set(PTXCAST_LLC ${LLVM_TOOLS_BINARY_DIR}/llc)

# XGBoost: Debian's config file needs the CLI package, so import the C API by hand.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
find_library(XGBOOST_LIBRARY xgboost REQUIRED)
add_library(ptxcast_xgboost INTERFACE)
target_include_directories(ptxcast_xgboost SYSTEM INTERFACE ${XGBOOST_INCLUDE_DIR})
target_link_libraries(ptxcast_xgboost INTERFACE ${XGBOOST_LIBRARY})

# ONNX (corpus/ import): protobuf first; targets onnx and onnx_proto carry ONNX_ML/ONNX_NAMESPACE.
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED)

# CUDA toolkit (nvcc, ptxas) for test kernels and ptxcast-measure; optional on dev machines.
find_program(PTXCAST_NVCC nvcc HINTS /usr/local/cuda/bin)
find_program(PTXCAST_PTXAS ptxas HINTS /usr/local/cuda/bin)
