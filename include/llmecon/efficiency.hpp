// llmecon/efficiency.hpp: the achievable fractions of peak and fixed costs (docs/model.md §18).
#pragma once

#include "llmecon/units.hpp"

namespace llmecon {

/// What real kernels achieve (docs/model.md §18). The default-constructed value is the pure
/// roofline; hardware families carry calibrated values (efficiency.hpp).
struct Efficiency {
  double compute = 1.0;      ///< fraction of peak FLOP/s a large GEMM reaches
  double gemm_half_m = 0.0;  ///< GEMM rows (tokens) at which that fraction halves; 0 = no size effect
  double memory = 1.0;       ///< fraction of HBM bandwidth streaming reaches
  double comm = 1.0;         ///< fraction of link bandwidth collectives reach
  Seconds step_overhead{};   ///< fixed cost per forward pass (scheduling, launch, sampling)
  Seconds layer_overhead{};  ///< fixed cost per layer per pass (kernel launches, synchronization)
  /// The compute fraction for a GEMM with m rows: compute x m / (m + gemm_half_m).
  [[nodiscard]] double compute_at(double m) const {
    return gemm_half_m > 0 ? compute * m / (m + gemm_half_m) : compute;
  }
  [[nodiscard]] bool ideal() const {
    return compute == 1.0 && gemm_half_m == 0.0 && memory == 1.0 && comm == 1.0 && step_overhead.si() == 0.0 &&
           layer_overhead.si() == 0.0;
  }
};

}  // namespace llmecon
