# dirload_test(NAME LABELS "unit;..." SOURCES a.cc b.cc LIBS lib...
#              [TIMEOUT seconds] [COST seconds]
#              [SPLIT_CASES] [SPLIT_GROUPS group filter...])
# Builds a doctest binary (the main comes from tests/doctest_main.cc) and
# registers it with ctest under the given labels. Tests find the source tree and
# the corpus through the environment so each can work in its own temp dir.
#
# By default ctest runs the whole binary as one entry named NAME: right for
# quick suites, where a process per case would cost more than it saves. A slow
# suite is split so that `ctest -j` can run its parts side by side:
#   SPLIT_CASES   one entry per doctest test case, "NAME: <case>". Only for
#                 suites whose cases share nothing built once per process (a
#                 static fixture would be built again by every case).
#   SPLIT_GROUPS  pairs of a group name and a doctest --test-case filter (with
#                 * and ?; commas separate alternatives): one entry per group,
#                 "NAME: <group>", for suites whose cases share such a fixture
#                 by groups. A last entry, "NAME: other cases", runs the cases
#                 no filter names, so that a new or renamed case still runs; an
#                 entry that would select no case is left out.
# The cases are listed from the binary (--list-test-cases) each time ctest
# starts, so the entries follow the source without rerunning cmake. Each entry
# keeps the labels, the environment, TIMEOUT and COST.
#
# COST, a rough number of seconds an entry takes, lets ctest start the slow
# entries first in a build directory where it has timed nothing yet (CI's is
# always new); without it, entries start in the order they were added, and a
# slow suite added last runs alone at the end. Later runs use measured times.
function(dirload_test name)
  cmake_parse_arguments(T "SPLIT_CASES" "TIMEOUT;COST" "LABELS;SOURCES;LIBS;SPLIT_GROUPS" ${ARGN})
  add_executable(${name} ${CMAKE_SOURCE_DIR}/tests/doctest_main.cc ${T_SOURCES})
  target_link_libraries(${name} PRIVATE dirload_options doctest::doctest ${T_LIBS})
  # Defaults for running a test binary by hand; ctest also sets the environment.
  target_compile_definitions(${name} PRIVATE
    DIRLOAD_SOURCE_DIR_DEFAULT="${CMAKE_SOURCE_DIR}"
    DIRLOAD_CORPUS_DIR_DEFAULT="${DIRLOAD_CORPUS_DIR}"
    DIRLOAD_BINARY_DIR_DEFAULT="${CMAKE_BINARY_DIR}")
  set(env "DIRLOAD_SOURCE_DIR=${CMAKE_SOURCE_DIR};DIRLOAD_CORPUS_DIR=${DIRLOAD_CORPUS_DIR};DIRLOAD_BINARY_DIR=${CMAKE_BINARY_DIR}")

  if(NOT T_SPLIT_CASES AND NOT T_SPLIT_GROUPS)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "${env}")
    if(T_TIMEOUT)
      set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
    endif()
    if(T_COST)
      set_tests_properties(${name} PROPERTIES COST ${T_COST})
    endif()
    return()
  endif()
  if(T_SPLIT_CASES AND T_SPLIT_GROUPS)
    message(FATAL_ERROR "dirload_test(${name}): SPLIT_CASES or SPLIT_GROUPS, not both")
  endif()
  list(LENGTH T_SPLIT_GROUPS n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "dirload_test(${name}): SPLIT_GROUPS takes pairs of a name and a filter")
  endif()

  # The script ctest includes when it starts: it lists the binary's cases and
  # adds the entries. Values go in bracket arguments, which take any text.
  set(script "set(exe [==[$<TARGET_FILE:${name}>]==])\n")
  string(APPEND script "set(name [==[${name}]==])\n")
  string(APPEND script "set(labels [==[${T_LABELS}]==])\n")
  string(APPEND script "set(env [==[${env}]==])\n")
  string(APPEND script "set(timeout [==[${T_TIMEOUT}]==])\n")
  string(APPEND script "set(cost [==[${T_COST}]==])\n")
  string(APPEND script "set(groups [==[${T_SPLIT_GROUPS}]==])\n")
  if(T_SPLIT_CASES)
    string(APPEND script "set(by_case TRUE)\n")
  else()
    string(APPEND script "set(by_case FALSE)\n")
  endif()
  string(APPEND script [==[
# One entry, with the suite's properties; the arguments after the name
# select the cases. (A function, not a macro: a macro would read the
# backslashes in the filters as escapes.)
function(dirload_add_entry entry)
  add_test("${entry}" "${exe}" --case-sensitive=true ${ARGN})
  set_tests_properties("${entry}" PROPERTIES LABELS "${labels}" ENVIRONMENT "${env}")
  if(timeout)
    set_tests_properties("${entry}" PROPERTIES TIMEOUT "${timeout}")
  endif()
  if(cost)
    set_tests_properties("${entry}" PROPERTIES COST "${cost}")
  endif()
endfunction()

if(NOT EXISTS "${exe}")
  # Not built: an entry that fails, as the whole binary's would.
  add_test("${name}" "${exe}")
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}")
elseif(by_case)
  execute_process(COMMAND "${exe}" --list-test-cases --no-version=true
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${exe} --list-test-cases failed (${rc}):\n${out}")
  endif()
  # One name a line between doctest's own lines; the names stay out of cmake
  # lists, where ';' and brackets mean something.
  while(NOT out STREQUAL "")
    string(FIND "${out}" "\n" at)
    if(at EQUAL -1)
      set(line "${out}")
      set(out "")
    else()
      string(SUBSTRING "${out}" 0 ${at} line)
      math(EXPR at "${at} + 1")
      string(SUBSTRING "${out}" ${at} -1 out)
    endif()
    if(line STREQUAL "" OR line MATCHES "^\\[doctest\\]" OR line MATCHES "^=+$")
      continue()
    endif()
    # A comma separates alternatives in a doctest filter.
    string(REPLACE "," "\\," filter "${line}")
    dirload_add_entry("${name}: ${line}" "--test-case=${filter}")
  endwhile()
else()
  # How many cases the filter `args` select; an entry that would run none is
  # left out, so that no entry passes without testing anything.
  function(dirload_count_cases var)
    execute_process(COMMAND "${exe}" --list-test-cases --no-version=true --case-sensitive=true
                            ${ARGN}
                    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "passing the current filters: ([0-9]+)")
      message(FATAL_ERROR "${exe} --list-test-cases failed (${rc}):\n${out}")
    endif()
    set(${var} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endfunction()
  set(all "")
  while(groups)
    list(POP_FRONT groups group filter)
    dirload_count_cases(n "--test-case=${filter}")
    if(n GREATER 0)
      dirload_add_entry("${name}: ${group}" "--test-case=${filter}")
    endif()
    string(APPEND all ",${filter}")
  endwhile()
  string(SUBSTRING "${all}" 1 -1 all)
  dirload_count_cases(n "--test-case-exclude=${all}")
  if(n GREATER 0)
    dirload_add_entry("${name}: other cases" "--test-case-exclude=${all}")
  endif()
endif()
]==])
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${name}_entries.cmake")
  file(GENERATE OUTPUT "${file}" CONTENT "${script}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
