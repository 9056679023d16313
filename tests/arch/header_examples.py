#!/usr/bin/env python3
"""Every header's example compiles: the last indented block of a header's opening comment (lines
"//   code") is pasted into a function of its own, given the inputs it names (GIVENS), and
checked by the compiler (-fsyntax-only), so an example cannot drift from the API it shows.

Usage: header_examples.py CXX REPO_ROOT. Prints each failure with the compiler's first errors and
exits 1, else one line and exits 0."""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

CXX = sys.argv[1] if len(sys.argv) > 1 else "c++"
ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..")

# What an example takes as given: the function's parameters, and the type it returns when the
# example uses TRY (a Status) or returns early.
GIVENS = {
    "catalog/toml_reader.hpp": ("std::string_view text, const toml::table& base", "Status"),
    "economics/economics.hpp": ("const ModelSpec& model, const Hardware& hw", "void"),
    "economics/pricing.hpp": ("const Board& board", "void"),
    "lecture/lecture.hpp": ("const HardwareCatalog& hw_catalog, const ModelCatalog& model_catalog", "void"),
    "ops/ops.hpp": ("const ModelSpec& model", "void"),
    "ops/pass.hpp": ("const ModelSpec& model, std::span<const SeqGroup> groups, const Layer& layer", "void"),
    "parallel/parallel.hpp": ("const ModelSpec& model, const Hardware& hw", "void"),
    "parallel/collectives.hpp": (
        "const DeploymentInput& in, const StepCost& cost, double tokens, double head_split, int domain",
        "void",
    ),
    "plan/plan.hpp": ("const ModelSpec& m, const Hardware& hw", "void"),
    "io/encode.hpp": ("const SimConfig& config", "Status"),
    "io/fields.hpp": ("const RooflineResult& result", "void"),
    "io/grid.hpp": ("const Engine& engine", "Status"),
    "io/text.hpp": ("const Board& board", "void"),
    "simulate/kv_cache.hpp": ("const sim_internal::Chain& chain", "void"),
    "roofline/roofline.hpp": ("const ModelSpec& model, const Hardware& hw", "void"),
    "scenario/capacity.hpp": ("const PlanRequest& rq", "Status"),
    "scenario/layout.hpp": ("const DeploymentInput& in", "void"),
    "scenario/scale.hpp": ("const TrainSetup& setup", "Status"),
    "scenario/scaleup.hpp": ("const PlanRequest& rq, const TcoCatalog& tco", "Status"),
    "scenario/scenario.hpp": ("const Catalogs& catalogs, const Args& args", "Status"),
    "scenario/serving.hpp": (
        "const Catalogs& catalogs, const Args& args, const SimSettings& settings, const Scenario& scenario, "
        "SimConfig& config",
        "Status",
    ),
    "simulate/simulate.hpp": ("const ModelSpec& model, const Hardware& hw", "void"),
    "simulate/simulate_args.hpp": ("", "Status"),
    "tco/tco.hpp": ("const Hardware& hw", "void"),
    "train/train.hpp": ("const ModelSpec& model, const Hardware& hw, const Efficiency& eff", "void"),
    "train/train_args.hpp": ("const Args& args", "Status"),
    "validate/validate.hpp": ("std::string_view text, const ValidationContext& ctx", "void"),
}


def example(path):
    """The last run of '//   ' lines before #pragma once, without the comment marks."""
    runs, cur = [], []
    for line in open(path).read().split("\n"):
        if line.startswith("#pragma once"):
            break
        if line.startswith("//   "):
            cur.append(line[5:])
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return runs[-1] if runs else None


def check(rel):
    code = example(os.path.join(ROOT, "src", rel))
    if code is None:
        return rel, None
    params, ret = GIVENS.get(rel, ("", "void"))
    body = "\n".join("  " + c for c in code)
    tail = "\n  return {};" if ret != "void" else ""
    text = (f'#include "{rel}"\n\n#include <string>\n#include <string_view>\n#include <vector>\n\n'
            f"namespace llmecon {{\n[[maybe_unused]] {ret} header_example({params}) {{\n{body}{tail}\n}}\n}}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        r = subprocess.run([CXX, "-std=c++20", "-fsyntax-only", "-I", os.path.join(ROOT, "src"), name],
                           capture_output=True, text=True)
    finally:
        os.unlink(name)
    if r.returncode == 0:
        return rel, ""
    errors = [l for l in r.stderr.split("\n") if "error" in l][:4]
    return rel, "\n  ".join([f"src/{rel}: its example does not compile:"] + errors)


def main():
    headers = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for f in files:
            if f.endswith(".hpp"):
                headers.append(os.path.relpath(os.path.join(dirpath, f), os.path.join(ROOT, "src")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = sorted(pool.map(check, sorted(headers)))
    failures = [msg for _, msg in results if msg]
    compiled = sum(1 for _, msg in results if msg == "")
    for msg in failures:
        print(msg)
    if failures:
        return 1
    print(f"header examples: {compiled} compile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
