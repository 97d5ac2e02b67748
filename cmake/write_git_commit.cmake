# Run at build time (certify/CMakeLists.txt): writes OUT, a source file defining
# mxconform::certify::git_commit(), the commit of the checkout at SOURCE_DIR ("unknown" outside
# one), with "-dirty" when tracked files differ from it. Certificates and bundles record it, so it
# must be the commit the binary was built from, not the one it was configured from. OUT is
# rewritten only when its text changes, so an unchanged commit rebuilds nothing.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE status
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT status EQUAL 0 OR NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE changed
                  OUTPUT_QUIET ERROR_QUIET)
  if(changed EQUAL 1)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "// Generated at build time by cmake/write_git_commit.cmake.\n#include \"git_commit.h\"\n\nnamespace mxconform::certify {\nconst char* git_commit() { return \"${commit}\"; }\n}  // namespace mxconform::certify\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
