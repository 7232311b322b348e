# Profile-guided optimisation of the model's hot sources (docs/speed.md,
# "Seventh pass"), included by the top-level CMakeLists.txt
# after npuvp_core exists.
#
# A Release build with GCC first builds the same source tree again, in
# <build>/pgo/train, with the hot sources instrumented (-fprofile-generate)
# and everything else unoptimised (quick to compile; it is not profiled),
# runs tools/pgo_train.sh on it (shipped workloads, composite GEMMs), and
# then compiles the hot sources of npuvp_core with that profile
# (-fprofile-use): GCC lays out their branches, inlines and allocates
# registers for the paths the training took. The results of a run do not
# change (the same source, no fast-math); only its speed does.
#
# When a hot source or header changes, the training build rebuilds it, the
# training runs again (seconds) and every hot source is compiled again with
# the new profile; another change only rebuilds the training build.
# -DNPUVP_PGO=OFF builds without (quicker to rebuild while editing the hot
# path); the ASan/UBSan and fuzzing builds never use it.

# The sources whose profile is used: what a token and a command run
# through (the PE's blocks, the cube's and system's, the TLM layer, the
# decoupler).
file(GLOB NPUVP_PGO_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/modules/*/*.cpp
     ${CMAKE_SOURCE_DIR}/tlm_sockets/*.cpp
     ${CMAKE_SOURCE_DIR}/platform/decoupler.cpp)

option(NPUVP_PGO "Release builds with GCC: compile the hot sources with the profile of a training run" ON)
# Set by the outer build on the training build only: where its programs
# write the profile.
set(NPUVP_PGO_GENERATE "" CACHE PATH "Internal: the training build's profile directory")
mark_as_advanced(NPUVP_PGO_GENERATE)

if(NPUVP_PGO_GENERATE)
  # The training build. The profile's file names are the objects' paths
  # relative to the build directory (-fprofile-prefix-path), so that the
  # outer build, whose objects have the same relative paths, finds them.
  # Every other source of the library, the RTL wrappers and Verilated
  # models (rtl/rtl.cmake) with them.
  get_target_property(other_sources npuvp_core SOURCES)
  list(REMOVE_ITEM other_sources ${NPUVP_PGO_SOURCES})
  set_source_files_properties(${NPUVP_PGO_SOURCES} PROPERTIES COMPILE_OPTIONS
    "-fprofile-generate=${NPUVP_PGO_GENERATE};-fprofile-prefix-path=${CMAKE_BINARY_DIR};-fprofile-update=single")
  set_source_files_properties(${other_sources} PROPERTIES COMPILE_OPTIONS "-O0")
  # libgcov, for every program that links the library.
  target_link_options(npuvp_core INTERFACE -fprofile-generate)
elseif(NPUVP_PGO AND CMAKE_BUILD_TYPE STREQUAL "Release" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
       AND NOT NPUVP_SANITIZE AND NOT NPUVP_FUZZ)
  include(ExternalProject)
  set(pgo_train_dir ${CMAKE_BINARY_DIR}/pgo/train)
  set(pgo_profile_dir ${CMAKE_BINARY_DIR}/pgo/profile)
  set(pgo_stamp ${CMAKE_BINARY_DIR}/pgo/profile.stamp)
  ExternalProject_Add(npuvp_pgo_train_build
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${pgo_train_dir}
    CMAKE_ARGS
      -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DNPUVP_TESTS=OFF
      -DNPUVP_BENCH=ON
      -DNPUVP_PGO=OFF
      -DNPUVP_PGO_GENERATE=${pgo_profile_dir}
      -DNPUVP_RTL=${NPUVP_RTL}
      -DNPUVP_RTL_GEMM_ROWS=${NPUVP_RTL_GEMM_ROWS}
      -DNPUVP_RTL_GEMM_COLS=${NPUVP_RTL_GEMM_COLS}
      -DNPUVP_RTL_GEMM_DIM_W=${NPUVP_RTL_GEMM_DIM_W}
      -DNPUVP_RTL_MATH_LANES=${NPUVP_RTL_MATH_LANES}
    # Incremental: a no-op unless a source changed.
    BUILD_ALWAYS ON
    INSTALL_COMMAND "")
  # The training runs again when a hot source or header changed (the
  # profile is of those; another change leaves it valid, if a little
  # stale), and then every hot source is compiled again.
  file(GLOB pgo_hot_headers CONFIGURE_DEPENDS
       ${CMAKE_SOURCE_DIR}/modules/*/*.h
       ${CMAKE_SOURCE_DIR}/tlm_sockets/*.h
       ${CMAKE_SOURCE_DIR}/platform/decoupler.h)
  add_custom_command(OUTPUT ${pgo_stamp}
    COMMAND ${CMAKE_SOURCE_DIR}/tools/pgo_train.sh ${pgo_train_dir} ${pgo_profile_dir} ${pgo_stamp}
    DEPENDS npuvp_pgo_train_build ${NPUVP_PGO_SOURCES} ${pgo_hot_headers}
            ${CMAKE_SOURCE_DIR}/tools/pgo_train.sh
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "Training run for the profile-guided build (tools/pgo_train.sh)"
    VERBATIM)
  add_custom_target(npuvp_pgo_profile DEPENDS ${pgo_stamp})
  add_dependencies(npuvp_core npuvp_pgo_profile)
  # A source the training never ran has no profile: compiled as without.
  set_source_files_properties(${NPUVP_PGO_SOURCES} PROPERTIES
    COMPILE_OPTIONS "-fprofile-use=${pgo_profile_dir};-fprofile-prefix-path=${CMAKE_BINARY_DIR};-fprofile-partial-training;-Wno-missing-profile"
    OBJECT_DEPENDS ${pgo_stamp})
  message(STATUS "npuvp: profile-guided build of the hot sources (NPUVP_PGO; training build in ${pgo_train_dir})")
endif()
