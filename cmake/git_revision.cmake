# The cuvk revision stamped into the binary (build::kGitRevision), taken when the binary is built,
# not when CMake configured: `cmake -DSRC=... -DIN=... -DOUT=... -P git_revision.cmake`, run by the
# cuvk_revision target before every build (host/CMakeLists.txt). OUT is rewritten only when the
# revision changed, so an unchanged tree relinks nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE CUVK_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE CUVK_GIT_DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT CUVK_GIT_REVISION)
  set(CUVK_GIT_REVISION unknown)
elseif(CUVK_GIT_DIRTY)
  string(APPEND CUVK_GIT_REVISION "-dirty")
endif()
configure_file(${IN} ${OUT} @ONLY)
