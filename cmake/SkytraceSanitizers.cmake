# Sanitizer and fuzzer instrumentation of the whole tree, from the cache variables
# SKYTRACE_SANITIZER ('address' = ASan + UBSan, 'thread' = TSan) and
# SKYTRACE_BUILD_FUZZERS (clang's libFuzzer; implies 'address'). Set once here, for every
# target of the project, so that a library and the tests linking it are instrumented
# alike. Third-party libraries (LibTorch, Qt, OpenCV, GDAL) stay as Debian ships them.
#
# The presets build these with -O1 and line tables only (-g1): sanitizer reports keep
# file:line, and the LibTorch-heavy sources compile about 3x faster than with full -g.

if(SKYTRACE_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SKYTRACE_BUILD_FUZZERS needs clang (libFuzzer): use the fuzz preset "
                        "or CC=clang CXX=clang++")
  endif()
  if(SKYTRACE_SANITIZER STREQUAL "")
    set(SKYTRACE_SANITIZER address CACHE STRING "" FORCE)
  elseif(NOT SKYTRACE_SANITIZER STREQUAL "address")
    message(FATAL_ERROR "The fuzzers run under ASan + UBSan: SKYTRACE_SANITIZER must be 'address'")
  endif()
endif()

if(SKYTRACE_SANITIZER STREQUAL "address")
  # UBSan's vptr check needs the RTTI of every polymorphic type, including those of the
  # uninstrumented LibTorch and Qt: left out. Any other finding stops the program.
  set(SKYTRACE_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize=vptr
      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
elseif(SKYTRACE_SANITIZER STREQUAL "thread")
  set(SKYTRACE_SANITIZER_FLAGS -fsanitize=thread)
elseif(NOT SKYTRACE_SANITIZER STREQUAL "")
  message(FATAL_ERROR "SKYTRACE_SANITIZER must be 'address', 'thread' or empty, not '${SKYTRACE_SANITIZER}'")
endif()

if(SKYTRACE_SANITIZER_FLAGS)
  message(STATUS "Sanitizer: ${SKYTRACE_SANITIZER} (${SKYTRACE_SANITIZER_FLAGS})")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${SKYTRACE_SANITIZER_FLAGS}>")
  add_link_options(${SKYTRACE_SANITIZER_FLAGS})
endif()
if(SKYTRACE_BUILD_FUZZERS)
  # Coverage feedback from every library a fuzz target reaches; the fuzz targets alone
  # link libFuzzer's main (fuzz/CMakeLists.txt).
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>")
endif()
