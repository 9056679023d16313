// CSV of results: the table each command's answer holds, one line per row (the CLI's --csv and
// the API's ?format=csv).
#include <algorithm>

#include "io/facade.hpp"
#include "units/json_text.hpp"

namespace llmecon {

std::string csv_cell(const Json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  if (v.is_null()) return "";
  return json_text(v);
}

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
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + keys[i];
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + csv_cell(r.value(keys[i], Json()));
    out += "\n";
  }
  return out;
}

namespace {

// A nested answer as one long table (docs/cli.md): `section,row,key,value,unit`. Section `answer`
// holds the top-level scalars (model, hardware, feasible, reason, ...); an analysis's `figures`
// carry their units; an array of objects is a section of rows (row: the index), and an object's
// fields a section of one row, one level down (`capacity.options`). Only the derivation is left
// out (--explain prints it) and the page's labels.
std::string long_csv(const Json& result) {
  std::vector<Json> rows;
  auto add = [&rows](const std::string& section, const Json& row, const std::string& key, const Json& value,
                     const std::string& unit) {
    rows.push_back(Json{{"section", section}, {"row", row}, {"key", key}, {"value", value}, {"unit", unit}});
  };
  const Json units = result.value("table_units", Json::object());
  const Json figures = result.value("figures", Json::array());
  auto is_figure = [&figures](const std::string& key) {
    return std::any_of(figures.begin(), figures.end(), [&key](const Json& f) { return f["key"] == key; });
  };
  auto rows_of = [&](const std::string& section, const Json& array) {
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (!array[i].is_object()) {
        if (array[i].is_primitive()) add(section, i, "", array[i], "");
        continue;
      }
      for (const auto& [column, cell] : array[i].items()) {
        if (!cell.is_primitive()) continue;
        std::string path = section;
        path += '.';
        path += column;
        add(section, i, column, cell, units.value(path, ""));
      }
    }
  };
  for (const auto& [key, val] : result.items()) {
    if (val.is_primitive() && !is_figure(key)) add("answer", nullptr, key, val, "");
  }
  for (const Json& f : figures) add("figures", nullptr, f["key"], f["value"], f.value("unit", ""));
  for (const auto& [key, val] : result.items()) {
    if (key == "figures" || key == "explain" || key == "table_units" || key == "table_labels" || key == "charts" ||
        key == "chrome_trace") {
      continue;
    }
    if (val.is_array()) {
      rows_of(key, val);
    } else if (val.is_object()) {
      for (const auto& [k, v] : val.items()) {
        if (v.is_primitive()) add(key, nullptr, k, v, "");
        if (v.is_array()) {
          std::string path = key;
          path += '.';
          path += k;
          rows_of(path, v);
        }
      }
    }
  }
  return to_csv(rows);
}

}  // namespace

std::string csv_of(const std::string& command, const Json& result) {
  auto rows_of = [](const Json& a) { return std::vector<Json>(a.begin(), a.end()); };
  if (result.is_array()) return to_csv(rows_of(result));  // models, hardware, lecture
  if (command == "sweep" || command == "report" || command == "validate") return to_csv(rows_of(result["rows"]));
  if (command == "plan") return long_csv(result);
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
  // An analysis (batch, context, train, tco, ...): the whole answer in long form.
  if (result.contains("figures") && result.contains("table_units")) return long_csv(result);
  return to_csv({result});
}

}  // namespace llmecon
