# One place for warning flags; applied to every llmecon target through llmecon_warnings.
add_library(llmecon_warnings INTERFACE)
target_compile_options(llmecon_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual)
option(LLMECON_WERROR "Treat warnings as errors" OFF)
if(LLMECON_WERROR)
  target_compile_options(llmecon_warnings INTERFACE -Werror)
endif()
# GCC 12 reports false -Wrestrict positives inside libstdc++'s string concatenation at -O3
# (GCC bug 105329); the warning stays on for other compilers and versions.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(llmecon_warnings INTERFACE -Wno-restrict)
endif()
