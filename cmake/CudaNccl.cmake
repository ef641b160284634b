# CUDA + NCCL detection for the optional GPU backend (runtime/nccl/, tests/gpu/).
#
# Sets TOPOTUNE_HAVE_NCCL (ON/OFF) for the rest of the build and, when ON, enables the CUDA
# language, defines the imported target topotune::nccl and adds runtime/nccl/ (the library
# topotune_runtime_nccl). Everything here fails soft: no nvcc, no nccl.h or no libnccl means
# a CPU-only build with a one-line status message, never a configure error.
#
# Knobs (cache variables):
#   TOPOTUNE_CUDA                 master switch (option in the top-level CMakeLists.txt)
#   TOPOTUNE_CUDA_ARCHITECTURES   default "80-real;90": Ampere machine code, Hopper machine code
#                                 plus compute_90 PTX that newer GPUs JIT-compile. nvcc 13 has
#                                 dropped the pre-Turing targets CMake would otherwise pick.
#   TOPOTUNE_CUDA_SEARCH_PATHS    where to look for nvcc when it is not on PATH
#   NCCL_ROOT                     an NCCL install outside the CUDA toolkit (include/, lib/)

set(TOPOTUNE_HAVE_NCCL OFF)
set(TOPOTUNE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING
    "CUDA architectures for the GPU backend (CMAKE_CUDA_ARCHITECTURES syntax)")
set(TOPOTUNE_CUDA_SEARCH_PATHS "/usr/local/cuda/bin" CACHE STRING
    "Directories searched for nvcc when neither CUDACXX nor PATH names one")

function(_topotune_gpu_off why)
  message(STATUS "topotune: GPU backend (NCCL) disabled: ${why}")
endfunction()

# return() below leaves this file (back to the includer) with TOPOTUNE_HAVE_NCCL still OFF.
if(NOT TOPOTUNE_CUDA)
  _topotune_gpu_off("TOPOTUNE_CUDA=OFF")
  return()
endif()

# check_language() only looks at CUDACXX and PATH: point it at the usual toolkit location
# first, so that a toolkit installed but not on PATH (the common case) is still found.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(TOPOTUNE_NVCC nvcc PATHS ${TOPOTUNE_CUDA_SEARCH_PATHS} NO_CACHE)
  if(TOPOTUNE_NVCC)
    set(ENV{CUDACXX} "${TOPOTUNE_NVCC}")
  endif()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  _topotune_gpu_off("no CUDA compiler (nvcc not on PATH nor in ${TOPOTUNE_CUDA_SEARCH_PATHS})")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "${TOPOTUNE_CUDA_ARCHITECTURES}")
endif()
enable_language(CUDA)
# CMake < 3.26 does not know that nvcc >= 12 takes -std=c++20; CUDA_STANDARD follows
# CXX_STANDARD (20) when unset, so without this every CUDA target fails to generate.
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  _topotune_gpu_off("nvcc found but the CUDA runtime library (cudart) was not")
  return()
endif()

find_path(TOPOTUNE_NCCL_INCLUDE_DIR nccl.h
  HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include)
find_library(TOPOTUNE_NCCL_LIBRARY nccl
  HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64)
if(NOT TOPOTUNE_NCCL_INCLUDE_DIR OR NOT TOPOTUNE_NCCL_LIBRARY)
  _topotune_gpu_off("CUDA ${CUDAToolkit_VERSION} found but NCCL (nccl.h, libnccl) was not")
  return()
endif()
add_library(topotune::nccl UNKNOWN IMPORTED)
set_target_properties(topotune::nccl PROPERTIES
  IMPORTED_LOCATION "${TOPOTUNE_NCCL_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${TOPOTUNE_NCCL_INCLUDE_DIR}")
# One CUDA runtime per process: the shared one that CUDA::cudart and libnccl use, also for the
# nvcc-compiled kernels (CMake's default would add the static cudart next to it).
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

set(TOPOTUNE_HAVE_NCCL ON)
message(STATUS "topotune: GPU backend (NCCL) enabled: CUDA ${CUDAToolkit_VERSION}, "
               "architectures ${CMAKE_CUDA_ARCHITECTURES}, ${TOPOTUNE_NCCL_LIBRARY}")
add_subdirectory(runtime/nccl)
