#include "catalog/dtype.hpp"

#include <string>

namespace llmecon {

Result<DType> parse_dtype(std::string_view s) {
  if (s == "fp32" || s == "float32") return DType::kFp32;
  if (s == "bf16" || s == "fp16" || s == "bfloat16" || s == "float16") return DType::kBf16;
  if (s == "fp8" || s == "e4m3" || s == "e5m2") return DType::kFp8;
  if (s == "int8") return DType::kInt8;
  if (s == "fp4" || s == "mxfp4" || s == "nvfp4") return DType::kFp4;
  if (s == "int4") return DType::kInt4;
  return Error{"", "", "unknown dtype '" + std::string(s) + "'", "use one of fp32, bf16, fp8, int8, fp4, int4"};
}

std::string dtype_alias_note(std::string_view s) {
  auto r = parse_dtype(s);
  if (!r) return "";
  const std::string_view canonical = name(*r);
  if (s == canonical) return "";
  return std::string(s) + " is costed as " + std::string(canonical) +
         " (the same bytes per element and, on every chip in the catalog, the same peak rate)";
}

}  // namespace llmecon
