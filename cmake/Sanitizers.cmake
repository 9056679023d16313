# LLMECON_SANITIZE=ON builds everything with AddressSanitizer and UndefinedBehaviorSanitizer.
option(LLMECON_SANITIZE "Build with ASan and UBSan" OFF)
if(LLMECON_SANITIZE)
  # GCC leaves float-cast-overflow out of `undefined`: a double too large for its int is UB too.
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()

# LLMECON_FUZZ=ON (clang) instruments everything for libFuzzer under ASan and UBSan and builds
# the fuzz targets (fuzz/).
option(LLMECON_FUZZ "Build the libFuzzer targets (clang)" OFF)
if(LLMECON_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()
