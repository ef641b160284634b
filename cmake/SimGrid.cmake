# SimGrid (libsimgrid-dev, installed by scripts/setup.sh): the independent max-min simulator the
# flow simulator is checked against (tests/simulator/simgrid_oracle_test) and timed beside
# (bench/simgrid_bench). Optional. Not under the sanitizers or the fuzz build: SimGrid's context
# switching confuses ASan, and both uses are about models, not memory.
# Sets TOPOTUNE_HAVE_SIMGRID and the imported target PkgConfig::SIMGRID.
set(TOPOTUNE_HAVE_SIMGRID OFF)
if(NOT TOPOTUNE_SANITIZE AND NOT TOPOTUNE_FUZZ)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET GLOBAL simgrid)
  endif()
  if(SIMGRID_FOUND)
    set(TOPOTUNE_HAVE_SIMGRID ON)
  else()
    message(STATUS "SimGrid not found: simgrid_oracle_test and simgrid_bench are not built "
                   "(scripts/setup.sh installs libsimgrid-dev)")
  endif()
endif()
