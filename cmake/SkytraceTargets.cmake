# Helpers shared by all Skytrace targets. Flags are set per target, never globally.

# skytrace_set_warnings(<target>): strict warnings for our own C++ code only (not for CUDA
# sources, whose generated host stubs are not ours).
function(skytrace_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU,Clang>>:-Wall -Wextra -Wpedantic>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-Wshadow-uncaptured-local>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU,Clang>>:-Wnon-virtual-dtor -Woverloaded-virtual -Wno-unused-parameter>)
  # Qt's keyword macros (slots, signals, emit) collide with LibTorch headers.
  target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS)
endfunction()

# skytrace_add_library(<name> SOURCES ... [PUBLIC_LIBS ...] [PRIVATE_LIBS ...])
# A static library whose include root is the project root (#include "core/geo/basemap.h").
function(skytrace_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
  if(NOT ARG_SOURCES)
    # A layer with no compiled code yet is a header-only interface target.
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARG_PUBLIC_LIBS})
    target_compile_definitions(${name} INTERFACE QT_NO_KEYWORDS)
    return()
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_LIBS} PRIVATE ${ARG_PRIVATE_LIBS})
  target_compile_definitions(${name} PUBLIC QT_NO_KEYWORDS)
  skytrace_set_warnings(${name})
endfunction()

# skytrace_use_torch(<target> [PCH | PCH_FROM <host>]): LibTorch for a target whose own
# sources include it. Private on purpose: LibTorch headers never reach a public header
# (pimpl, *_impl.h). With SKYTRACE_PRECOMPILE_HEADERS, PCH precompiles <ATen/ATen.h> for
# the target (about 10 s of parsing saved per source, 25 s to build once) and PCH_FROM
# reuses the header another target of the same flags precompiled.
function(skytrace_use_torch target)
  cmake_parse_arguments(ARG "PCH" "PCH_FROM" "" ${ARGN})
  target_include_directories(${target} SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS})
  target_link_libraries(${target} PRIVATE ${TORCH_LIBRARIES})
  if(NOT SKYTRACE_PRECOMPILE_HEADERS)
    return()
  endif()
  if(ARG_PCH_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_PCH_FROM})
  elseif(ARG_PCH)
    target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<ATen/ATen.h$<ANGLE-R>>")
  endif()
endfunction()
