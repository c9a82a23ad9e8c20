# Helpers shared by all Skytrace targets. Flags are set per target, never globally.

# skytrace_set_warnings(<target>): strict warnings for our own code only.
function(skytrace_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                   -Woverloaded-virtual -Wno-unused-parameter>)
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
