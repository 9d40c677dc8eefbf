// Python's spelling of floats, bools and tuples for extra_repr; Python's arity messages.
#include "module_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ember/error.h"
#include "ember/print.h"

namespace ember::nn::detail {

std::string py_float(double v) { return py_float_repr(v); }

std::string format_repr(const std::string& type_name, const std::string& extra_repr,
                        const std::vector<std::pair<std::string, const Module*>>& children) {
  // PyTorch's _addindent(s, 2): every line after the first gets two more spaces.
  auto indent = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += "  ";
    }
    return out;
  };
  std::vector<std::string> extra_lines, child_lines;
  if (!extra_repr.empty()) {
    std::istringstream in(extra_repr);
    for (std::string line; std::getline(in, line);) extra_lines.push_back(line);
  }
  for (const auto& [n, m] : children) child_lines.push_back("(" + n + "): " + (m ? indent(m->repr()) : "None"));
  std::string s = type_name + "(";
  if (extra_lines.size() == 1 && child_lines.empty()) {
    s += extra_lines[0];
  } else if (!extra_lines.empty() || !child_lines.empty()) {
    s += "\n";
    for (const auto& l : extra_lines) s += "  " + l + "\n";
    for (const auto& l : child_lines) s += "  " + l + "\n";
  }
  return s + ")";
}

std::string py_int_tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

bool has_defined_parameter(const Module& m, const std::string& name) {
  for (const auto& [n, t] : m.named_parameters("", /*recurse=*/false, /*remove_duplicate=*/false))
    if (n == name) return true;  // named_parameters lists only parameters that are not None
  return false;
}

void check_forward_inputs(const std::string& type_name, const std::vector<Value>& inputs,
                          std::initializer_list<const char*> names) {
  const size_t want = names.size();
  // Python counts `self` among the positional arguments.
  EMBER_CHECK_TYPE(inputs.size() <= want, type_name, ".forward() takes ", want + 1,
                   " positional arguments but ", inputs.size() + 1, " were given");
  if (inputs.size() == want) return;
  std::vector<std::string> missing;
  size_t i = 0;
  for (const char* n : names)
    if (i++ >= inputs.size()) missing.push_back(std::string("'") + n + "'");
  // Python's list: 'a'; 'a' and 'b'; 'a', 'b', and 'c'.
  std::string list;
  for (size_t k = 0; k < missing.size(); ++k) {
    if (k > 0) list += missing.size() == 2 ? " and " : (k + 1 == missing.size() ? ", and " : ", ");
    list += missing[k];
  }
  EMBER_FAIL_KIND(ErrorKind::Type, type_name, ".forward() missing ", missing.size(),
                  " required positional argument", missing.size() == 1 ? "" : "s", ": ", list);
}

}  // namespace ember::nn::detail
