# Use ccache when it is installed: rebuilds on a 2-core machine stay cheap.
find_program(LLMECON_CCACHE ccache)
if(LLMECON_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${LLMECON_CCACHE})
endif()
