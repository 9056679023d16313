// catalog/dtype.hpp: numeric formats of weights, activations and KV cache.
//
//   DType d = *parse_dtype("fp8");
//   double b = bytes_per_element(d);   // 1.0
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "units/error.hpp"

namespace llmecon {

/// Ordered from widest to narrowest; the order is used for compute-rate fallback.
enum class DType { kFp32, kBf16, kFp8, kInt8, kFp4, kInt4 };
inline constexpr std::size_t kDTypeCount = 6;

inline constexpr std::array<std::string_view, kDTypeCount> kDTypeNames{"fp32", "bf16", "fp8", "int8", "fp4", "int4"};
static_assert(kDTypeNames.size() == kDTypeCount);

constexpr std::string_view name(DType d) {
  return kDTypeNames[static_cast<std::size_t>(d)];
}

/// Storage bytes per element: fp32 4, bf16 2, fp8/int8 1, fp4/int4 0.5 (block scales ignored).
constexpr double bytes_per_element(DType d) {
  switch (d) {
    case DType::kFp32:
      return 4.0;
    case DType::kBf16:
      return 2.0;
    case DType::kFp8:
    case DType::kInt8:
      return 1.0;
    case DType::kFp4:
    case DType::kInt4:
      return 0.5;
  }
  return 0.0;
}

/// The wider (more bytes per element) of two formats: a GEMM runs at the wider one's rate.
constexpr DType wider(DType a, DType b) {
  return bytes_per_element(a) >= bytes_per_element(b) ? a : b;
}

/// When `s` names a format that is costed as another (fp16 as bf16, mxfp4 and nvfp4 as fp4, e4m3 and
/// e5m2 as fp8), the sentence that says so; empty for a canonical name.
std::string dtype_alias_note(std::string_view s);
/// Accepts fp32, bf16 (also fp16), fp8, int8, fp4 (also mxfp4, nvfp4), int4.
Result<DType> parse_dtype(std::string_view s);

}  // namespace llmecon
