# dirload_test(NAME LABELS "unit;..." SOURCES a.cc b.cc LIBS lib...)
# Builds a doctest binary (the main comes from tests/doctest_main.cc) and
# registers it with ctest under the given labels. Tests find the source tree and
# the corpus through the environment so each can work in its own temp dir.
function(dirload_test name)
  cmake_parse_arguments(T "" "" "LABELS;SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${CMAKE_SOURCE_DIR}/tests/doctest_main.cc ${T_SOURCES})
  target_link_libraries(${name} PRIVATE dirload_options doctest::doctest ${T_LIBS})
  # Defaults for running a test binary by hand; ctest also sets the environment.
  target_compile_definitions(${name} PRIVATE
    DIRLOAD_SOURCE_DIR_DEFAULT="${CMAKE_SOURCE_DIR}"
    DIRLOAD_CORPUS_DIR_DEFAULT="${DIRLOAD_CORPUS_DIR}"
    DIRLOAD_BINARY_DIR_DEFAULT="${CMAKE_BINARY_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}"
    ENVIRONMENT "DIRLOAD_SOURCE_DIR=${CMAKE_SOURCE_DIR};DIRLOAD_CORPUS_DIR=${DIRLOAD_CORPUS_DIR};DIRLOAD_BINARY_DIR=${CMAKE_BINARY_DIR}")
endfunction()
