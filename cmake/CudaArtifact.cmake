# Script mode (cmake -P), called by cmake/CudaArtifacts.cmake for one kernel source:
# writes ${BASE}.ptx, ${BASE}.cubin and ${BASE}.ptxas.txt (ptxas -v resource usage, from stderr).
# Inputs: NVCC, SRC, BASE, ARCH, FLAGS and INCLUDES ('|'-separated lists).
string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" includes "${INCLUDES}")
set(args ${flags})
foreach(dir IN LISTS includes)
  list(APPEND args -I${dir})
endforeach()

execute_process(
  COMMAND ${NVCC} ${args} -arch=sm_${ARCH} -ptx ${SRC} -o ${BASE}.ptx
  RESULT_VARIABLE ptx_result ERROR_VARIABLE ptx_error)
if(NOT ptx_result EQUAL 0)
  message(FATAL_ERROR "nvcc -ptx failed for ${SRC}:\n${ptx_error}")
endif()

execute_process(
  COMMAND ${NVCC} ${args} -arch=sm_${ARCH} -cubin -Xptxas -v ${SRC} -o ${BASE}.cubin
  RESULT_VARIABLE cubin_result OUTPUT_VARIABLE cubin_output ERROR_VARIABLE cubin_error)
if(NOT cubin_result EQUAL 0)
  message(FATAL_ERROR "nvcc -cubin failed for ${SRC}:\n${cubin_error}")
endif()
file(WRITE ${BASE}.ptxas.txt "${cubin_output}${cubin_error}")
