# Run at build time (cmake -P), by the dirload_build_commit target: writes
# OUTPUT, a header defining DIRLOAD_BUILD_COMMIT as the commit SOURCE_DIR is
# checked out at ("-dirty" appended when tracked files differ from it), or
# "unknown" outside a git checkout. The file is rewritten only when its text
# changes, so a build after a commit recompiles build_info.cc and nothing
# else, and a build with nothing new recompiles nothing.
set(commit "unknown")
find_program(DIRLOAD_GIT git)
if(DIRLOAD_GIT)
  # The source tree's own checkout, not one it happens to sit inside (a
  # release tarball unpacked in someone's repository).
  execute_process(COMMAND "${DIRLOAD_GIT}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
  endif()
  if(rc EQUAL 0 AND top STREQUAL source)
    execute_process(COMMAND "${DIRLOAD_GIT}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
      set(commit "${head}")
      # git status refreshes the index's file times first, so a file touched
      # but unchanged does not count as a change.
      execute_process(COMMAND "${DIRLOAD_GIT}" -C "${SOURCE_DIR}" status --porcelain
                              --untracked-files=no
                      OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND NOT changes STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()

set(text "// Generated at build time by cmake/DirloadBuildCommit.cmake: do not edit.
#pragma once
#define DIRLOAD_BUILD_COMMIT \"${commit}\"
")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
