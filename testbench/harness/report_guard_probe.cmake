# ctest entry report_guard_in_every_suite: PROBES is "exe:case|exe:case|...",
# one per suite. Each is run with NPUVP_REPORT_GUARD_PROBE=1, which makes the
# report guard (report_guard.cpp) raise a SystemC warning that no test
# expects; the suite must then fail and name it. A suite that passes has no
# guard linked in, and SystemC errors in it would go unnoticed.
string(REPLACE "|" ";" probes "${PROBES}")
set(ENV{NPUVP_REPORT_GUARD_PROBE} 1)
set(checked 0)
foreach(probe ${probes})
  string(FIND "${probe}" ":" colon REVERSE)
  string(SUBSTRING "${probe}" 0 ${colon} exe)
  math(EXPR after "${colon}+1")
  string(SUBSTRING "${probe}" ${after} -1 case)
  execute_process(COMMAND ${exe} --run_test=${case} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${exe} --run_test=${case} passed with an unexpected SystemC "
                        "warning: the report guard is not linked into this suite")
  endif()
  string(FIND "${out}${err}" "unexpected SystemC warning npuvp/report_guard_probe" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${exe} --run_test=${case} failed (${rc}) but not on the guard's "
                        "report:\n${out}${err}")
  endif()
  math(EXPR checked "${checked}+1")
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no suite to probe")
endif()
message(STATUS "report guard fails an unexpected warning in all ${checked} suites")
