# RTL co-simulation (docs/rtl.md), included by the top-level CMakeLists.txt
# after npuvp_core exists. With NPUVP_RTL on, the Verilog in rtl/ is
# Verilated in SystemC mode (Debian's verilator, its verilate() CMake
# function) straight into npuvp_core, with its wrappers; with it off,
# rtl/rtl_off.cpp stands in and rtl.* impls are reported as not built.
#
# A new Verilog block is one more verilate() call here plus its wrapper's
# sources (docs/rtl.md, "Adapter contract").
find_package(verilator QUIET HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})
option(NPUVP_RTL "RTL co-simulation through Verilator (rtl.* impls, --vcd-rtl)" ${verilator_FOUND})
set(NPUVP_RTL_GEMM_ROWS 8 CACHE STRING "PE rows of the RTL GEMM array (rtl.pe_gemm)")
set(NPUVP_RTL_GEMM_COLS 8 CACHE STRING "PE columns of the RTL GEMM array (rtl.pe_gemm)")
set(NPUVP_RTL_GEMM_DIM_W 16 CACHE STRING "Width of the RTL GEMM array's m, k, n ports")

if(NPUVP_RTL)
  if(NOT verilator_FOUND)
    message(FATAL_ERROR "NPUVP_RTL is ON but Verilator was not found "
                        "(Debian: apt-get install verilator; or -DNPUVP_RTL=OFF)")
  endif()
  message(STATUS "npuvp: RTL co-simulation on (Verilator ${verilator_VERSION}, "
                 "GEMM array ${NPUVP_RTL_GEMM_ROWS} x ${NPUVP_RTL_GEMM_COLS})")
  set(NPUVP_RTL_GEMM_PARAMS -GROWS=${NPUVP_RTL_GEMM_ROWS} -GCOLS=${NPUVP_RTL_GEMM_COLS}
                            -GDIM_W=${NPUVP_RTL_GEMM_DIM_W})
  # --timescale: one RTL time unit is the kernel's resolution, 1 ps
  # (Verilator checks that the two agree). -Wall: the same lint as rtl_lint.
  verilate(npuvp_core SYSTEMC TRACE
           PREFIX Vnpuvp_gemm_array
           SOURCES ${CMAKE_SOURCE_DIR}/rtl/npuvp_gemm_array.sv
           VERILATOR_ARGS -Wall --timescale 1ps/1ps ${NPUVP_RTL_GEMM_PARAMS}
           OPT_FAST -O2 -w
           OPT_SLOW -O1 -w
           OPT_GLOBAL -O2 -w)
  target_sources(npuvp_core PRIVATE
    ${CMAKE_SOURCE_DIR}/rtl/gemm_rtl_driver.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_pe_gemm.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_impls.cpp
    ${CMAKE_SOURCE_DIR}/rtl/rtl_waves.cpp)
  target_compile_definitions(npuvp_core PUBLIC
    NPUVP_RTL_GEMM_ROWS=${NPUVP_RTL_GEMM_ROWS}
    NPUVP_RTL_GEMM_COLS=${NPUVP_RTL_GEMM_COLS}
    NPUVP_RTL_GEMM_DIM_W=${NPUVP_RTL_GEMM_DIM_W})
else()
  message(STATUS "npuvp: RTL co-simulation off (NPUVP_RTL=OFF)")
  target_sources(npuvp_core PRIVATE ${CMAKE_SOURCE_DIR}/rtl/rtl_off.cpp)
endif()
