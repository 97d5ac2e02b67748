# Run by ctest (bench_smoke): cmake -DMXCONFORM=<path to mxconform> -P bench_smoke_test.cmake
cmake_minimum_required(VERSION 3.19)  # string(JSON)
if(NOT MXCONFORM)
  message(FATAL_ERROR "pass -DMXCONFORM=<path to the mxconform executable>")
endif()

# 1. The L2-resident scalar cases, as JSON on stdout.
execute_process(
  COMMAND ${MXCONFORM} bench --benchmark_filter=256KiB --benchmark_min_time=0.01 --backend scalar
          --benchmark_format=json
  OUTPUT_VARIABLE report
  ERROR_VARIABLE diagnostics
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "mxconform bench exited with ${status}:\n${diagnostics}")
endif()
foreach(counter items_per_second sol_ratio bytes_per_second)
  if(NOT report MATCHES "\"${counter}\"")
    message(FATAL_ERROR "no ${counter} in the JSON report:\n${report}")
  endif()
endforeach()

# 2. stdout is nothing but JSON, and every quantize case carries a positive sol_ratio.
string(JSON count ERROR_VARIABLE json_error LENGTH "${report}" benchmarks)
if(json_error)
  message(FATAL_ERROR "stdout is not a JSON report: ${json_error}\n${report}")
endif()
set(quantize_cases 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON case_name GET "${report}" benchmarks ${i} name)
  if(case_name MATCHES "^quantize/scalar/")
    math(EXPR quantize_cases "${quantize_cases} + 1")
    string(JSON ratio GET "${report}" benchmarks ${i} sol_ratio)
    if(NOT ratio GREATER 0)
      message(FATAL_ERROR "${case_name}: sol_ratio ${ratio} is not positive")
    endif()

  endif()
endforeach()
if(NOT quantize_cases EQUAL 6)
  message(FATAL_ERROR "expected 6 quantize/scalar cases (2 input dtypes x 3 outputs), got ${quantize_cases}")
endif()

# 3. Multi-threaded rows: with N > 1 threads (the banner says how many), the named backend has its
# six 64MiB cases on N threads and the speed-of-light kernels theirs; with one, none.
execute_process(
  COMMAND ${MXCONFORM} bench --backend scalar --benchmark_list_tests=true
  OUTPUT_VARIABLE listed
  ERROR_VARIABLE diagnostics
  RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT diagnostics MATCHES ", threads:N rows with N = ([0-9]+)")
  message(FATAL_ERROR "mxconform bench --benchmark_list_tests: exit ${status}, stderr:\n${diagnostics}")
endif()
set(threads ${CMAKE_MATCH_1})
string(REGEX MATCHALL "[^\n]*/threads:[0-9]+" threaded_rows "${listed}")
list(LENGTH threaded_rows threaded_count)
if(threads GREATER 1)
  foreach(row quantize/scalar/bfloat16/fp4/64MiB/threads:${threads} sol/fp8/64MiB/threads:${threads})
    if(NOT listed MATCHES "${row}/manual_time")
      message(FATAL_ERROR "no ${row} in the listed cases:\n${listed}")
    endif()
  endforeach()
  if(NOT threaded_count EQUAL 8)
    message(FATAL_ERROR "expected 8 threads:${threads} rows (6 scalar cases, 2 speed-of-light kernels), got ${threaded_count}")
  endif()
elseif(NOT threaded_count EQUAL 0)
  message(FATAL_ERROR "one thread, but threads:N rows listed:\n${threaded_rows}")
endif()

# 4. An unknown backend is one error line and a non-zero exit.
execute_process(
  COMMAND ${MXCONFORM} bench --backend no_such_backend
  OUTPUT_VARIABLE ignored
  ERROR_VARIABLE diagnostics
  RESULT_VARIABLE status)
if(status EQUAL 0 OR NOT diagnostics MATCHES "^mxconform bench: error: unknown backend 'no_such_backend'")
  message(FATAL_ERROR "unknown backend: exit ${status}, stderr:\n${diagnostics}")
endif()

# 5. MXCONFORM_PREFETCH: the banner names the choice it forces; a value that is neither is a note
# on stderr, and the CPU's own choice (rows or none) stands.
foreach(choice rows none)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env MXCONFORM_PREFETCH=${choice} ${MXCONFORM} bench --backend scalar --benchmark_list_tests=true
    OUTPUT_VARIABLE ignored
    ERROR_VARIABLE diagnostics
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0 OR NOT diagnostics MATCHES "input prefetch at 64 MiB: ${choice} \\(")
    message(FATAL_ERROR "MXCONFORM_PREFETCH=${choice}: exit ${status}, stderr:\n${diagnostics}")
  endif()
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env MXCONFORM_PREFETCH=sometimes ${MXCONFORM} bench --backend scalar --benchmark_list_tests=true
  OUTPUT_VARIABLE ignored
  ERROR_VARIABLE diagnostics
  RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT diagnostics MATCHES "MXCONFORM_PREFETCH is neither rows nor none; ignored"
   OR NOT diagnostics MATCHES "input prefetch at 64 MiB: (rows|none) \\(")
  message(FATAL_ERROR "MXCONFORM_PREFETCH=sometimes: exit ${status}, stderr:\n${diagnostics}")
endif()
