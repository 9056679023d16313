# llmecon_embed(TARGET name NAMESPACE ns FILES f1 f2 ...)
# Generates a .cpp holding every file as a std::string_view, keyed by its path relative to
# BASE_DIR, so the shipped catalogs work without a data directory (llama.cpp's xxd pattern).
function(llmecon_embed)
  cmake_parse_arguments(E "" "TARGET;BASE_DIR;FUNCTION" "FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${E_TARGET}_embedded.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DBASE_DIR=${E_BASE_DIR} -DFUNCTION=${E_FUNCTION}
            "-DFILES=${E_FILES}" -P ${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake
    DEPENDS ${E_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake
    COMMENT "Embedding ${E_TARGET} data files"
    VERBATIM)
  add_library(${E_TARGET} OBJECT ${out})
  target_include_directories(${E_TARGET} PRIVATE ${PROJECT_SOURCE_DIR}/src)
endfunction()
