// The facade's entry points: catalogs, dispatch through the command table, and the shared
// argument helpers of src/io/commands.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "catalog/dtype.hpp"
#include "commands/commands.hpp"
#include "io/facade.hpp"
#include "io/text.hpp"
#include "tco/tco.hpp"

namespace llmecon {

Result<Engine> Engine::open(const std::vector<std::string>& hw_files, const std::vector<std::string>& price_files) {
  Engine e;
  TRY(cat, Catalogs::open(hw_files, price_files));
  e.cat_ = std::move(cat);
  return e;
}

Result<Json> Engine::run(const std::string& command, const Json& args, const Progress& progress,
                         const Cancel& cancel) const {
  TRY(r, answer(command, args, progress, cancel));
  return std::move(r.json);
}

namespace {
// A format named by an alias (fp16, nvfp4, e4m3) is costed as its canonical one: the answer says so,
// in its JSON `warnings` and at the end of its text.
void note_format_aliases(const CommandSpec& spec, const Json& args, Answer& answer) {
  std::vector<std::string> notes;
  auto note = [&notes](const Json& v) {
    if (!v.is_string()) return;
    for (const std::string& item : cmd::split_list(v.get<std::string>())) {  // a list is "bf16,fp16"
      std::string n = dtype_alias_note(item);
      if (!n.empty() && std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(std::move(n));
    }
  };
  for (const ArgSpec& a : spec.args) {
    if ((a.type != ArgType::kDType && a.type != ArgType::kDTypeList) || !args.is_object() || !args.contains(a.key)) {
      continue;
    }
    const Json& v = args[a.key];
    if (v.is_array()) {
      for (const Json& x : v) note(x);
    } else {
      note(v);
    }
  }
  if (notes.empty() || !answer.json.is_object()) return;
  Json& w = answer.json["warnings"];
  if (!w.is_array()) w = Json::array();
  for (const std::string& n : notes) w.push_back(n);
  answer.text = [inner = std::move(answer.text), notes] { return inner() + warnings_text(notes); };
}
}  // namespace

Result<Answer> Engine::answer(const std::string& command, const Json& args, const Progress& progress,
                              const Cancel& cancel) const {
  const CommandSpec* spec = find_command(command);
  if (spec == nullptr) return unknown_command(command);
  TRY(a, Args::parse(*spec, args));
  const cmd::Fn handler = cmd::handler(command);  // registered with its spec: every row has one
  Result<Answer> r = handler(*this, a, progress, cancel);
  // A figure that cannot be computed is null with its reason, never an inf or NaN that the
  // JSON writer would turn into a silent null. One that slips through is a bug, reported as such.
  if (r) {
    if (std::string path = first_non_finite(r->json); !path.empty()) {
      return Error{command, path, "internal error: this figure is not finite",
                   "a bug in llmecon; please report the command line that gave it"};
    }
    note_format_aliases(*spec, args, *r);
  }
  return r;
}

bool Engine::implements(const std::string& command) {
  return cmd::handler(command) != nullptr;
}

const std::vector<std::string>& Engine::commands() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& c : llmecon::commands()) out.push_back(c.name);
    return out;
  }();
  return names;
}

Json Engine::models() const {
  return run("models", Json::object()).value();
}
Json Engine::hardware() const {
  return run("hardware", Json::object()).value();
}
Result<Json> Engine::model_show(const Json& args) const {
  return run("model", args);
}
Result<Json> Engine::roofline(const Json& args) const {
  return run("roofline", args);
}
Result<Json> Engine::sweep(const Json& args, const Progress& progress) const {
  return run("sweep", args, progress);
}
Result<Json> Engine::report(const Json& args) const {
  return run("report", args);
}
Result<Json> Engine::batch(const Json& args) const {
  return run("batch", args);
}
Result<Json> Engine::step(const Json& args) const {
  return run("step", args);
}
Result<Json> Engine::context(const Json& args) const {
  return run("context", args);
}
Result<Json> Engine::price(const Json& args) const {
  return run("price", args);
}
Result<Json> Engine::layout(const Json& args) const {
  return run("layout", args);
}
Result<Json> Engine::cache(const Json& args) const {
  return run("cache", args);
}
Result<Json> Engine::lifecycle(const Json& args) const {
  return run("lifecycle", args);
}
Result<Json> Engine::revnet(const Json& args) const {
  return run("revnet", args);
}
Result<Json> Engine::plan(const Json& args, const Progress& progress) const {
  return run("plan", args, progress);
}
Result<Json> Engine::lecture(const Json& args) const {
  return run("lecture", args);
}
Result<Json> Engine::validate(const Json& args) const {
  return run("validate", args);
}
Result<Json> Engine::calibrate(const Json& args) const {
  return run("calibrate", args);
}
Result<Json> Engine::measure(const Json& args) const {
  return run("measure", args);
}

Result<RooflineResult> Engine::evaluate(const Json& args) const {
  TRY(a, Args::parse(*find_command("roofline"), args));
  return cmd::evaluate(*this, a);
}

namespace cmd {

Uncertainty uncertainty(const Args& a) {
  return a.flag("ideal") ? Uncertainty{0, 0, 1, 1, true} : Uncertainty{};
}

}  // namespace cmd
}  // namespace llmecon
