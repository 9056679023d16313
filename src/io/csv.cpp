// CSV of results: the table each command's answer holds, one line per row (the CLI's --csv and
// the API's ?format=csv).
#include <algorithm>

#include "io/facade.hpp"

namespace llmecon {

std::string to_csv(const std::vector<Json>& rows) {
  if (rows.empty()) return "";
  // The columns: the fullest row's scalar keys in its order, then any other row's (an infeasible
  // row withholds its prices and times, and adds its reason).
  auto scalars = [](const Json& r) {
    std::size_t n = 0;
    for (const auto& [k, v] : r.items()) n += static_cast<std::size_t>(v.is_primitive());
    return n;
  };
  const Json* fullest = &rows.front();
  for (const auto& r : rows) {
    if (scalars(r) > scalars(*fullest)) fullest = &r;
  }
  std::vector<std::string> keys;
  auto add_keys = [&keys](const Json& r) {
    for (const auto& [k, v] : r.items()) {
      if (v.is_primitive() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  };
  add_keys(*fullest);
  for (const auto& r : rows) add_keys(r);
  auto cell = [](const Json& v) -> std::string {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string q = "\"";
      for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    }
    if (v.is_null()) return "";
    return v.dump();
  };
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + keys[i];
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + cell(r.value(keys[i], Json()));
    out += "\n";
  }
  return out;
}

std::string csv_of(const std::string& command, const Json& result) {
  auto rows_of = [](const Json& a) { return std::vector<Json>(a.begin(), a.end()); };
  if (result.is_array()) return to_csv(rows_of(result));  // models, hardware, lecture
  if (command == "sweep" || command == "report" || command == "validate") return to_csv(rows_of(result["rows"]));
  if (command == "plan") return to_csv(rows_of(result["frontier"]));
  if (command == "calibrate") return to_csv({result["efficiency"]});
  if (command == "simulate" && result.contains("grid")) return to_csv(rows_of(result["grid"]["rows"]));
  if (command == "simulate") {
    // One row: every figure, distributions flattened to ttft_s_p99 and the like.
    Json flat = Json::object();
    for (const auto& [key, val] : result.items()) {
      if (val.is_object() && key != "charts" && key != "chrome_trace") {
        for (const auto& [k, v] : val.items()) {
          if (v.is_structured()) continue;
          std::string column = key;
          column += "_";
          column += k;
          flat[column] = v;
        }
      } else if (!val.is_structured()) {
        flat[key] = val;
      }
    }
    return to_csv({flat});
  }
  if (command == "measure" && result.contains("decode")) return to_csv(rows_of(result["decode"]["points"]));
  if (command == "roofline" || command == "model" || command == "measure") {
    Json flat = result;
    flat.erase("explain");  // the derivation is prose, not a column
    return to_csv({flat});
  }
  // An analysis: its first table.
  for (const auto& [key, val] : result.items()) {
    if (val.is_array() && !val.empty() && val[0].is_object() && key != "figures") return to_csv(rows_of(val));
  }
  return to_csv({result});
}

}  // namespace llmecon
