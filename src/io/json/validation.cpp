// The JSON of a cross-validation (encode.hpp): each chip's fit and the held-out errors.
#include "io/encode.hpp"
#include "io/text.hpp"

namespace llmecon {

namespace {

Json cell_json(const ErrorCell& c) {
  return {{"n", c.n}, {"median_ape", c.median_ape}, {"p90_ape", c.p90_ape}};
}

}  // namespace

Json to_json(const CrossValidation& cv) {
  Json chips = Json::array(), skipped = Json::array();
  for (const CalibrationResult& cal : cv.fits) {
    chips.push_back({{"hardware", cal.hardware},
                     {"fitted_rows", cal.rows},
                     {"predicted_rows", cal.default_rows.size()},
                     {"sources", cal.sources},
                     {"fitted", cal.fitted},
                     {"in_sample_median_ape", cal.in_sample_median_ape},
                     {"cv_median_ape", cal.cv_median_ape},
                     {"loso_median_ape", cal.sources > 1 ? Json(cal.loso_median_ape) : Json(nullptr)}});
  }
  for (const auto& [chip, why] : cv.skipped) skipped.push_back({{"hardware", chip}, {"reason", why}});
  Json by_scenario = Json::object();
  for (const auto& [scenario, s] : cv.by_scenario) {
    by_scenario[scenario] = {{"default", cell_json(s.defaults)},
                             {"in_sample", cell_json(s.in_sample)},
                             {"kfold", cell_json(s.kfold)},
                             {"loso", cell_json(s.loso)}};
  }
  return Json{{"folds", cv.folds}, {"chips", chips}, {"skipped", skipped}, {"by_scenario", by_scenario}};
}

}  // namespace llmecon
