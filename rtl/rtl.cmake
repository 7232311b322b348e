# RTL co-simulation (docs/rtl.md), included by the top-level CMakeLists.txt
# after npuvp_core exists. When it is built (NPUVP_RTL_BUILT), the Verilog in
# rtl/ is Verilated in SystemC mode (Debian's verilator, its verilate() CMake
# function) straight into npuvp_core, with its wrappers; otherwise
# rtl/rtl_off.cpp stands in and rtl.* impls are reported as not built.
#
# A new Verilog block is one more verilate() call here plus its wrapper's
# sources (docs/rtl.md, "Adapter contract").
find_package(verilator QUIET HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})
# AUTO is decided at every configure, so installing Verilator later and
# running cmake again turns the co-simulation on.
set(NPUVP_RTL AUTO CACHE STRING
    "RTL co-simulation through Verilator (rtl.* impls, --vcd-rtl): AUTO (when Verilator is found), ON or OFF")
set_property(CACHE NPUVP_RTL PROPERTY STRINGS AUTO ON OFF)
if(NPUVP_RTL STREQUAL "AUTO")
  set(NPUVP_RTL_BUILT ${verilator_FOUND})
elseif(NPUVP_RTL)
  set(NPUVP_RTL_BUILT ON)
else()
  set(NPUVP_RTL_BUILT OFF)
endif()
set(NPUVP_RTL_GEMM_ROWS 8 CACHE STRING "PE rows of the RTL GEMM array (rtl.pe_gemm)")
set(NPUVP_RTL_GEMM_COLS 8 CACHE STRING "PE columns of the RTL GEMM array (rtl.pe_gemm)")
set(NPUVP_RTL_GEMM_DIM_W 16 CACHE STRING "Width of the RTL GEMM array's m, k, n ports")
set(NPUVP_RTL_MATH_LANES 16 CACHE STRING "int32 lanes of the RTL vector unit (rtl.pe_math)")

if(NPUVP_RTL_BUILT)
  if(NOT verilator_FOUND)
    message(FATAL_ERROR "NPUVP_RTL is ON but Verilator was not found "
                        "(Debian: apt-get install verilator; or -DNPUVP_RTL=AUTO / OFF)")
  endif()
  message(STATUS "npuvp: RTL co-simulation on (Verilator ${verilator_VERSION}, "
                 "GEMM array ${NPUVP_RTL_GEMM_ROWS} x ${NPUVP_RTL_GEMM_COLS}, "
                 "vector unit ${NPUVP_RTL_MATH_LANES} lanes)")
  set(NPUVP_RTL_GEMM_PARAMS -GROWS=${NPUVP_RTL_GEMM_ROWS} -GCOLS=${NPUVP_RTL_GEMM_COLS}
                            -GDIM_W=${NPUVP_RTL_GEMM_DIM_W})
  # --timescale: one RTL time unit is the kernel's resolution, 1 ps
  # (Verilator checks that the two agree). -Wall: the same lint as rtl_lint.
  # Generated code is Verilator's, not ours: no warnings from it (-w), and
  # with -g GCC would note for every big evaluation function that it gave up
  # tracking variables; it need not try.
  set(NPUVP_RTL_GENERATED_FLAGS -w)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND NPUVP_RTL_GENERATED_FLAGS -fno-var-tracking-assignments)
  endif()
  if(NPUVP_SANITIZE)
    # Verilator's trace buffer (verilated_trace_imp.h, inlined into the
    # generated trace code) stores 64-bit values at 32-bit alignment, which
    # x86 allows and UBSan's alignment check reports. Verilator's code, not
    # ours: every other check stays on.
    list(APPEND NPUVP_RTL_GENERATED_FLAGS -fno-sanitize=alignment)
  endif()
  verilate(npuvp_core SYSTEMC TRACE
           PREFIX Vnpuvp_gemm_array
           SOURCES ${CMAKE_SOURCE_DIR}/rtl/npuvp_gemm_array.sv
           VERILATOR_ARGS -Wall --timescale 1ps/1ps ${NPUVP_RTL_GEMM_PARAMS}
           OPT_FAST -O2 ${NPUVP_RTL_GENERATED_FLAGS}
           OPT_SLOW -O1 ${NPUVP_RTL_GENERATED_FLAGS}
           OPT_GLOBAL -O2 ${NPUVP_RTL_GENERATED_FLAGS})
  verilate(npuvp_core SYSTEMC TRACE
           PREFIX Vnpuvp_math_unit
           SOURCES ${CMAKE_SOURCE_DIR}/rtl/npuvp_math_unit.sv
           VERILATOR_ARGS -Wall --timescale 1ps/1ps -GLANES=${NPUVP_RTL_MATH_LANES} -GLEN_W=32
           OPT_FAST -O2 ${NPUVP_RTL_GENERATED_FLAGS}
           OPT_SLOW -O1 ${NPUVP_RTL_GENERATED_FLAGS}
           OPT_GLOBAL -O2 ${NPUVP_RTL_GENERATED_FLAGS})
  target_sources(npuvp_core PRIVATE
    ${CMAKE_SOURCE_DIR}/rtl/gemm_rtl_driver.cpp
    ${CMAKE_SOURCE_DIR}/rtl/math_rtl_driver.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_pe_gemm.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_pe_math.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_impls.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_waves.cpp)
  if(NPUVP_SANITIZE)
    # GCC's UBSan (-fsanitize=null) reports every access to Verilator's
    # thread_local context (Verilated::t_s, reached through the TLS wrapper
    # from a file that does not define it) as "member access within null
    # pointer" in an optimised build: a false positive of GCC's null check
    # on thread_local objects. Only the file that calls Verilator's tracing
    # API (Verilated::traceEverOn, VerilatedVcdSc) meets it.
    set_source_files_properties(${CMAKE_SOURCE_DIR}/rtl/rtl_waves.cpp PROPERTIES
                                COMPILE_OPTIONS -fno-sanitize=null)
  endif()
  # Only gemm_rtl_driver.cpp and math_rtl_driver.cpp read them.
  target_compile_definitions(npuvp_core PRIVATE
    NPUVP_RTL_GEMM_ROWS=${NPUVP_RTL_GEMM_ROWS}
    NPUVP_RTL_GEMM_COLS=${NPUVP_RTL_GEMM_COLS}
    NPUVP_RTL_GEMM_DIM_W=${NPUVP_RTL_GEMM_DIM_W}
    NPUVP_RTL_MATH_LANES=${NPUVP_RTL_MATH_LANES})
else()
  if(verilator_FOUND)
    message(STATUS "npuvp: RTL co-simulation off (NPUVP_RTL=${NPUVP_RTL})")
  else()
    message(STATUS "npuvp: RTL co-simulation off (Verilator not found; Debian: apt-get install verilator)")
  endif()
  target_sources(npuvp_core PRIVATE ${CMAKE_SOURCE_DIR}/rtl/rtl_off.cpp)
endif()
