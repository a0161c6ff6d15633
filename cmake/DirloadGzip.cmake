# Run at build time (cmake -P): OUTPUT = gzip -9n of INPUT. -n leaves the
# name and time out of the header, so the same page gives the same bytes.
execute_process(COMMAND "${GZIP}" -9nc INPUT_FILE "${INPUT}" OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "gzip ${INPUT} failed: ${rc}")
endif()
