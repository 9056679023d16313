// The Python shell: one call into the facade; JSON text crosses the boundary so Python gets the
// same document as the CLI's --json.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/facade.hpp"
#include "units/json_text.hpp"

namespace py = pybind11;

namespace {

const llmecon::Engine& engine() {
  static const std::unique_ptr<llmecon::Engine> e = [] {
    auto r = llmecon::Engine::open({});
    if (!r) throw py::value_error(r.error().message());
    return std::make_unique<llmecon::Engine>(std::move(r).value());
  }();
  return *e;
}

llmecon::Json parse_args(const std::string& args_json) {
  try {
    return llmecon::Json::parse(args_json);
  } catch (const llmecon::Json::parse_error& e) {
    throw py::value_error("request: malformed JSON at byte " + std::to_string(e.byte));
  }
}

std::string run(const std::string& command, const std::string& args_json) {
  auto r = engine().run(command, parse_args(args_json));
  if (!r) throw py::value_error(r.error().message());
  return llmecon::json_text(*r);
}

std::string text(const std::string& command, const std::string& args_json) {
  auto r = engine().answer(command, parse_args(args_json));
  if (!r) throw py::value_error(r.error().message());
  return r->text();
}

// The grid (docs/python.md): every point of the cartesian product of `axes` (an object of arrays,
// the last varying fastest) with `fixed` added, answered by the facade on `threads` threads without
// the GIL, as columns. A column per top-level scalar field of the answers and per scalar field one
// object deep ("a.b"); each axis is a column too unless an answer field has its name; "feasible"
// and "reason" are every row's, a refused point a row with feasible False and the engine's
// message. JSON integers in every row become int64 arrays, other numbers float64 (NaN where a row
// has none), other values lists.
constexpr double kMaxGridPoints = 1e7;

// The grid's points: `fixed` with each axis's value at row i (the last axis varies fastest).
struct Points {
  llmecon::Json fixed;
  std::vector<std::string> keys;
  std::vector<const llmecon::Json*> values;
  std::size_t n = 1;
  [[nodiscard]] llmecon::Json at(std::size_t i) const {
    llmecon::Json args = fixed;
    for (std::size_t a = keys.size(); a-- > 0;) {
      const std::size_t size = values[a]->size();
      args[keys[a]] = (*values[a])[i % size];
      i /= size;
    }
    return args;
  }
};

// Every point answered on `threads` threads (0: every core), without the GIL: the answer, or the
// engine's message.
void evaluate(const llmecon::Engine& e, const std::string& command, const Points& p, int threads,
              std::vector<llmecon::Json>& answers, std::vector<std::string>& errors) {
  py::gil_scoped_release released;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < p.n; i = next++) {
      auto r = e.run(command, p.at(i));
      if (r) {
        answers[i] = std::move(r).value();
      } else {
        errors[i] = r.error().message();
      }
    }
  };
  const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t k = std::min<std::size_t>(p.n, threads > 0 ? static_cast<std::size_t>(threads) : hw);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < k; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// One column's cells as numpy (int64 for JSON integers in every row, else float64 with NaN for a
// missing number) or, for other values, a list.
py::object column(const std::vector<const llmecon::Json*>& col) {
  using llmecon::Json;
  const auto n = static_cast<py::ssize_t>(col.size());
  const bool numeric = std::all_of(col.begin(), col.end(), [](const Json* v) {
    return v == nullptr || v->is_null() || (v->is_number() && !v->is_boolean());
  });
  // JSON integers in every row (an axis of ints, a count): int64; the type is the field's, so
  // every shard of a grid gives a column the same dtype.
  const bool integral = numeric && std::all_of(col.begin(), col.end(),
                                               [](const Json* v) { return v != nullptr && v->is_number_integer(); });
  if (integral) {
    py::array_t<std::int64_t> a(n);
    auto m = a.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) m(i) = col[static_cast<std::size_t>(i)]->get<std::int64_t>();
    return std::move(a);
  }
  if (numeric) {
    py::array_t<double> a(n);
    auto m = a.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
      const Json* v = col[static_cast<std::size_t>(i)];
      m(i) = v == nullptr || v->is_null() ? std::numeric_limits<double>::quiet_NaN() : v->get<double>();
    }
    return std::move(a);
  }
  py::list l(col.size());
  for (std::size_t i = 0; i < col.size(); ++i) {
    const Json* v = col[i];
    if (v == nullptr || v->is_null()) {
      l[i] = py::none();
    } else if (v->is_boolean()) {
      l[i] = py::bool_(v->get<bool>());
    } else if (v->is_string()) {
      l[i] = py::str(v->get<std::string>());
    } else {
      l[i] = py::float_(v->get<double>());
    }
  }
  return std::move(l);
}

// The answers as columns in order of first appearance (the axes, then the answers' fields), with
// every row's feasible and reason.
py::dict columns(const Points& p, const std::vector<llmecon::Json>& answers, const std::vector<std::string>& errors) {
  using llmecon::Json;
  std::vector<std::string> names = p.keys;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t c = 0; c < names.size(); ++c) index[names[c]] = c;
  std::vector<std::vector<const Json*>> cells(names.size(), std::vector<const Json*>(p.n, nullptr));
  std::vector<Json> axis_values(p.n);
  auto put = [&](const std::string& name, std::size_t row, const Json* v) {
    auto [it, fresh] = index.try_emplace(name, names.size());
    if (fresh) {
      names.push_back(name);
      cells.emplace_back(p.n, nullptr);
    }
    cells[it->second][row] = v;
  };
  for (std::size_t i = 0; i < p.n; ++i) {
    axis_values[i] = p.at(i);
    for (const std::string& k : p.keys) put(k, i, &axis_values[i][k]);
    if (!answers[i].is_object()) continue;
    for (const auto& [k, v] : answers[i].items()) {
      if (v.is_primitive()) put(k, i, &v);
      if (!v.is_object()) continue;
      for (const auto& [k2, v2] : v.items()) {
        if (!v2.is_primitive()) continue;
        std::string dotted = k;
        dotted += '.';
        dotted += k2;
        put(dotted, i, &v2);
      }
    }
  }
  py::dict out;
  for (std::size_t c = 0; c < names.size(); ++c) out[py::str(names[c])] = column(cells[c]);
  py::list feasible(p.n), reason(p.n);
  for (std::size_t i = 0; i < p.n; ++i) {
    const bool ok = errors[i].empty();
    const Json* f = ok && answers[i].is_object() && answers[i].contains("feasible") ? &answers[i]["feasible"] : nullptr;
    feasible[i] = py::bool_(ok && (f == nullptr || !f->is_boolean() || f->get<bool>()));
    const Json* why = ok && answers[i].is_object() && answers[i].contains("reason") ? &answers[i]["reason"] : nullptr;
    reason[i] = !ok                                  ? py::str(errors[i])
                : why != nullptr && why->is_string() ? py::str(why->get<std::string>())
                                                     : py::str("");
  }
  out["feasible"] = feasible;
  out["reason"] = reason;
  return out;
}

py::dict grid(const std::string& command, const std::string& axes_json, const std::string& fixed_json, int threads) {
  using llmecon::Json;
  const Json axes = parse_args(axes_json);
  Points p{parse_args(fixed_json), {}, {}, 1};
  if (!axes.is_object() || !p.fixed.is_object()) throw py::value_error("grid: axes and fixed arguments are objects");
  double total = 1;
  for (const auto& [k, v] : axes.items()) {
    if (!v.is_array() || v.empty()) throw py::value_error("grid: axis " + k + " needs a non-empty list of values");
    p.keys.push_back(k);
    p.values.push_back(&v);
    total *= static_cast<double>(v.size());
  }
  if (total > kMaxGridPoints) {
    throw py::value_error("grid: " + std::to_string(static_cast<long long>(total)) +
                          " points exceed 10^7 (hint: shard it over an executor, or narrow an axis)");
  }
  p.n = static_cast<std::size_t>(total);
  std::vector<Json> answers(p.n);
  std::vector<std::string> errors(p.n);
  const llmecon::Engine& e = engine();  // opened with the GIL held: its failure is a ValueError
  evaluate(e, command, p, threads, answers, errors);
  return columns(p, answers, errors);
}

std::string schema() {
  return llmecon::json_text(llmecon::schema_json());
}

}  // namespace

PYBIND11_MODULE(_llmecon, m) {
  m.doc() = "llmecon: the economics of training and serving large language models";
  m.def("run", &run, py::arg("command"), py::arg("args_json") = "{}",
        "Runs a facade command with JSON arguments and returns the JSON result as text.");
  m.def("text", &text, py::arg("command"), py::arg("args_json") = "{}",
        "Runs a facade command with JSON arguments and returns the text the CLI prints.");
  m.def("schema", &schema, "The command table (every command and argument) as JSON text.");
  m.def("grid", &grid, py::arg("command"), py::arg("axes_json"), py::arg("fixed_json") = "{}", py::arg("threads") = 0,
        "Runs a command over the cartesian product of axes on threads; its answers as columns.");
}
