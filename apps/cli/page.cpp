// The web page's interactive charts for one command's result, in one self-contained HTML file
// (--plot FILE.html): Chart.js and web/charts.js inlined from the binary, so it works offline.
#include <string>

#include "output.hpp"
#include "units/embedded.hpp"
#include "units/json_text.hpp"

namespace llmecon::cli {

namespace {

std::string_view web_asset(std::string_view path) {
  return llmecon::find_embedded(llmecon::embedded_web(), path).value_or(std::string_view());
}

// Inline script must not close its <script> element early or open a comment: the library is
// checked to hold no "<" followed by "/" or "!", and JSON gets "<", ">" and "&" as \u escapes.
std::string script_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '!')) {
      out += "<\\";  // "<\/" and "<\!" read the same inside JS strings and regexes
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string json_in_script(const Json& j) {
  const std::string text = json_text(j);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> chart_html(const std::string& command, const Json& result) {
  if (command != "sweep" && command != "batch" && command != "context" && command != "plan") return std::nullopt;
  std::string title = "llmecon " + command;
  if (result.contains("model") && result["model"].is_string()) title += ": " + result["model"].get<std::string>();
  if (result.contains("hardware") && result["hardware"].is_string())
    title += " on " + result["hardware"].get<std::string>();
  title = xml_escape(title);
  std::string page = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + title +
                     "</title>\n<style>\n" + std::string(web_asset("style.css")) + "</style>\n</head>\n<body>\n<h1>" +
                     title + "</h1>\n<section id=\"charts\"></section>\n";
  page += "<script>\n" + script_safe(web_asset("node_modules/chart.js/dist/chart.umd.min.js")) + "\n</script>\n";
  page += "<script>\n" + script_safe(web_asset("charts.js")) + "\n</script>\n";
  page += "<script>\nconst result = " + json_in_script(result) + ";\nllmeconCharts.renderCommand(\"" + command +
          "\", result, document.getElementById(\"charts\"));\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace llmecon::cli
