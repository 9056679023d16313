// The Python shell: one call into the facade; JSON text crosses the boundary so Python gets the
// same document as the CLI's --json.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

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
}
