#include "schema.h"

#include <cctype>
#include <cstdlib>

#include "ember/error.h"

namespace ember::dispatch {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Splits at commas that are not inside (), [] or quotes.
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && (c == '(' || c == '[')) ++depth;
    if (!quoted && (c == ')' || c == ']')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) parts.push_back(trim(cur));
  return parts;
}

SchemaArg parse_arg(const std::string& text, bool kwarg_only, const std::string& schema) {
  SchemaArg a;
  a.kwarg_only = kwarg_only;
  std::string decl = text;
  if (auto eq = decl.find('='); eq != std::string::npos) {
    a.default_value = trim(decl.substr(eq + 1));
    decl = trim(decl.substr(0, eq));
  }
  // The name is the last word, unless the declaration is a bare type (unnamed return).
  auto sp = decl.rfind(' ');
  if (sp != std::string::npos && decl.find(')', sp) == std::string::npos) {
    a.type = trim(decl.substr(0, sp));
    a.name = trim(decl.substr(sp + 1));
  } else {
    a.type = decl;
  }
  EMBER_CHECK(!a.type.empty(), "malformed argument '", text, "' in schema ", schema);
  a.is_mutable = a.type.find('!') != std::string::npos;
  return a;
}

}  // namespace

ParsedSchema parse_schema(const std::string& schema) {
  ParsedSchema p;
  auto open = schema.find('(');
  auto arrow = schema.rfind(" -> ");
  EMBER_CHECK(open != std::string::npos && arrow != std::string::npos && arrow > open,
              "malformed schema: ", schema);
  auto close = schema.rfind(')', arrow);
  std::string full = schema.substr(0, open);
  if (auto dot = full.find('.'); dot != std::string::npos) {
    p.name = full.substr(0, dot);
    p.overload = full.substr(dot + 1);
  } else {
    p.name = full;
  }
  bool kwarg_only = false;
  for (const auto& part : split_top_level(schema.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      kwarg_only = true;
      continue;
    }
    p.arguments.push_back(parse_arg(part, kwarg_only, schema));
  }
  std::string ret = trim(schema.substr(arrow + 4));
  if (ret.size() >= 2 && ret.front() == '(' && ret.back() == ')') ret = ret.substr(1, ret.size() - 2);
  for (const auto& part : split_top_level(ret)) p.returns.push_back(parse_arg(part, false, schema));
  return p;
}

Value default_value(const std::string& type, const std::string& text) {
  if (text == "None") return Value();
  if (text == "True") return Value(true);
  if (text == "False") return Value(false);
  if (text.front() == '\'' || text.front() == '"') return Value(text.substr(1, text.size() - 2));
  if (text.front() == '[') {
    std::vector<int64_t> v;
    for (const auto& item : split_top_level(text.substr(1, text.size() - 2)))
      v.push_back(std::strtoll(item.c_str(), nullptr, 10));
    return Value(std::move(v));
  }
  if (type.starts_with("ScalarType")) return Value(dtype_from_name(text));
  // Memory formats and layouts box as small ints, in PyTorch's c10 enum order.
  if (text == "contiguous_format" || text == "strided") return Value(int64_t{0});
  if (text == "preserve_format") return Value(int64_t{1});
  if (text == "channels_last") return Value(int64_t{2});
  bool is_float = text.find_first_of(".e") != std::string::npos && text.find("inf") == std::string::npos;
  if (type.starts_with("float") || is_float) return Value(std::strtod(text.c_str(), nullptr));
  if (type.starts_with("bool")) return Value(text != "0");
  return Value(static_cast<int64_t>(std::strtoll(text.c_str(), nullptr, 10)));
}

Stack fill_defaults(const OpHandle& op, const Stack& args) {
  const auto& params = op.arguments();
  EMBER_CHECK_TYPE(args.size() <= params.size(), op.full_name(), "() takes ", params.size(),
                   " arguments but ", args.size(), " were given");
  Stack full(args);
  for (size_t i = args.size(); i < params.size(); ++i) {
    EMBER_CHECK_TYPE(params[i].default_value.has_value(), op.full_name(),
                     "() missing required argument '", params[i].name, "' (position ", i, ")");
    full.push_back(default_value(params[i].type, *params[i].default_value));
  }
  return full;
}

}  // namespace ember::dispatch
