# Writes the manual pages of the installed programs from their own --help (help2man), so
# a page can never disagree with the program it documents:
#   skytrace.1                the GUI
#   skytrace-cli.1            the command list
#   skytrace-cli-<command>.1  one per command, named like git's (git-commit(1))
# Each page is gzip -9n compressed (Debian policy 12.3; no time stamp, so the package is
# reproducible).
# Usage: cmake -DCLI=<skytrace-cli> [-DGUI=<skytrace>] -DHELP2MAN=<help2man>
#              -DVERSION=<x.y.z> -DOUT=<folder> -P man_pages.cmake
foreach(required CLI HELP2MAN VERSION OUT)
  if(NOT ${required})
    message(FATAL_ERROR "man_pages.cmake: -D${required}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
# The GUI prints its --help without a display (help2man reads stdout only); nothing
# here may depend on the user's locale.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{LC_ALL} C.UTF-8)

# page(<file name without .1> <command line> <one-line description> [<include file>])
function(page name command description)
  set(raw "${OUT}/${name}.1")
  set(extra)
  if(ARGC GREATER 3)
    set(extra --include "${ARGV3}")
  endif()
  execute_process(
    COMMAND "${HELP2MAN}" --no-info --version-string "${VERSION}"
            --name "${description}" --section 1 --manual "Skytrace Manual"
            --source "Skytrace ${VERSION}" ${extra} --output "${raw}" "${command}"
    RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "help2man failed for '${command}': ${errors}")
  endif()
  # help2man titles a page after the program file; a command's page is titled and named
  # after the command (SKYTRACE-CLI-PROCESS, "skytrace-cli-process \- ...") so that man
  # and whatis find it under its file name.
  file(READ "${raw}" text)
  get_filename_component(program "${command}" NAME)
  string(REGEX REPLACE " .*" "" program "${program}")
  string(TOUPPER "${program}" program_title)
  string(TOUPPER "${name}" title)
  string(REPLACE ".TH ${program_title} " ".TH ${title} " text "${text}")
  string(REGEX REPLACE "\n${program} [a-z]+ \\\\- " "\n${name} \\\\- " text "${text}")
  file(WRITE "${raw}" "${text}")
  execute_process(COMMAND gzip -9nf "${raw}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "gzip failed for ${raw}")
  endif()
endfunction()

# The commands and their one-line descriptions, as `skytrace-cli --help` lists them.
execute_process(COMMAND "${CLI}" --help OUTPUT_VARIABLE overview RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "'${CLI} --help' failed (${status})")
endif()
# A ';' would split a CMake list item: descriptions keep their meaning with ','.
string(REPLACE ";" "," overview "${overview}")
string(REGEX MATCH "Commands:\n(.*)" command_block "${overview}")
string(REGEX MATCHALL "\n  [a-z]+ +[^\n]+" command_lines "\n${CMAKE_MATCH_1}\n")
set(see_also)
foreach(line IN LISTS command_lines)
  string(REGEX MATCH "^\n  ([a-z]+) +(.+)$" _ "${line}")
  set(command "${CMAKE_MATCH_1}")
  set(description "${CMAKE_MATCH_2}")
  page("skytrace-cli-${command}" "${CLI} ${command}" "${description}")
  list(APPEND see_also "\\fBskytrace-cli-${command}\\fR(1)")
endforeach()
list(LENGTH see_also command_count)
if(command_count EQUAL 0)
  message(FATAL_ERROR "no commands found in '${CLI} --help'")
endif()

list(JOIN see_also ",\n" see_also_text)
file(WRITE "${OUT}/see_also.h2m" "[SEE ALSO]\n${see_also_text},\n\\fBskytrace\\fR(1)\n")
page(skytrace-cli "${CLI}" "visual geolocalisation of UAV flight video, from the command line"
     "${OUT}/see_also.h2m")
file(REMOVE "${OUT}/see_also.h2m")

if(GUI)
  file(WRITE "${OUT}/see_also.h2m" "[SEE ALSO]\n\\fBskytrace-cli\\fR(1)\n")
  page(skytrace "${GUI}" "review UAV flight video against georeferenced basemaps"
       "${OUT}/see_also.h2m")
  file(REMOVE "${OUT}/see_also.h2m")
endif()
