// The Python shell: one call into the facade; JSON text crosses the boundary so Python gets the
// same document as the CLI's --json.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/facade.hpp"
#include "io/grid.hpp"
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

// The grid (docs/python.md, io/grid.hpp): the table's columns as {name: value}, where a number
// column is a float64 array (NaN where a row has none) or an int64 array (JSON integers in every
// row), a bool column with every row a bool array, a text column a ("category", int32 codes, -1
// where absent, categories) tuple for pandas.Categorical, and any other a list.
// A vector handed to numpy without a copy: the array owns it through a capsule.
template <class T>
py::array_t<T> owned(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule free(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(heap->size()), heap->data(), free);
}

py::object column(llmecon::GridColumn& c) {
  using Kind = llmecon::GridColumn::Kind;
  const auto n = static_cast<py::ssize_t>(c.present.size());
  const bool full = std::all_of(c.present.begin(), c.present.end(), [](std::uint8_t p) { return p != 0; });
  if (c.kind == Kind::kNumber && c.integral && full) {
    py::array_t<std::int64_t> a(n);
    auto m = a.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) m(i) = static_cast<std::int64_t>(c.numbers[static_cast<std::size_t>(i)]);
    return std::move(a);
  }
  if (c.kind == Kind::kNumber) return owned(std::move(c.numbers));
  if (c.kind == Kind::kBool && full) {
    py::array_t<bool> a(n);
    auto m = a.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) m(i) = c.numbers[static_cast<std::size_t>(i)] != 0;
    return std::move(a);
  }
  if (c.kind == Kind::kText) {
    py::list categories;
    for (const std::string& d : c.dict) categories.append(py::str(d));
    return py::make_tuple("category", owned(std::move(c.codes)), categories);
  }
  py::list l(c.present.size());
  for (std::size_t i = 0; i < c.present.size(); ++i) {
    const llmecon::Json v = c.cell(i);
    if (v.is_boolean()) {
      l[i] = py::bool_(v.get<bool>());
    } else if (v.is_number_integer()) {
      l[i] = py::int_(v.get<std::int64_t>());
    } else if (v.is_number()) {
      l[i] = py::float_(v.get<double>());
    } else if (v.is_string()) {
      l[i] = py::str(v.get<std::string>());
    } else {
      l[i] = py::none();
    }
  }
  return std::move(l);
}

py::dict grid(const std::string& command, const std::string& axes_json, const std::string& fixed_json, int threads) {
  using llmecon::Json;
  const Json axes = parse_args(axes_json);
  llmecon::GridRequest g;
  g.command = command;
  g.fixed = parse_args(fixed_json);
  g.threads = threads;
  if (!axes.is_object()) throw py::value_error("grid: the axes are an object of lists");
  for (const auto& [k, v] : axes.items()) g.axes.emplace_back(k, v);
  const llmecon::Engine& e = engine();  // opened with the GIL held: its failure is a ValueError
  llmecon::Result<llmecon::GridTable> t = [&] {
    py::gil_scoped_release released;
    return llmecon::run_grid(e, g);
  }();
  if (!t) throw py::value_error(t.error().message());
  py::dict out;
  for (llmecon::GridColumn& c : t->columns) out[py::str(c.name)] = column(c);
  return out;
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
