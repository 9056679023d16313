# One place for warning flags; applied to every llmecon target through llmecon_warnings.
add_library(llmecon_warnings INTERFACE)
target_compile_options(llmecon_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual)
option(LLMECON_WERROR "Treat warnings as errors" OFF)
if(LLMECON_WERROR)
  target_compile_options(llmecon_warnings INTERFACE -Werror)
endif()
