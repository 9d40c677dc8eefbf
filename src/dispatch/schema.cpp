#include "schema.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

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
  EMBER_CHECK(!a.default_value || !a.default_value->empty(), "argument '", text,
              "' has an empty default in schema ", schema);
  a.is_mutable = a.type.find('!') != std::string::npos;
  return a;
}

// "int[2]" -> 2, "int[]" / "int" -> 0: how many elements a scalar default stands for.
size_t fixed_list_size(const std::string& type) {
  auto open = type.find('[');
  if (open == std::string::npos || type[open + 1] == ']') return 0;
  return static_cast<size_t>(std::strtoul(type.c_str() + open + 1, nullptr, 10));
}

// Enum defaults, as c10 numbers them (MemoryFormat::Contiguous = 0, Layout::Strided = 0, ...):
// ember passes memory formats and layouts as int64.
int64_t enum_default(const std::string& type, const std::string& text) {
  static const std::pair<const char*, int64_t> kNames[] = {
      {"contiguous_format", 0}, {"preserve_format", 1}, {"channels_last", 2},
      {"channels_last_3d", 3},  {"strided", 0},
  };
  for (const auto& [name, value] : kNames)
    if (text == name) return value;
  char* end = nullptr;
  int64_t v = std::strtoll(text.c_str(), &end, 10);
  EMBER_CHECK(!text.empty() && *end == '\0', "unknown default '", text,
              "' for an argument of type ", type);
  return v;
}

}  // namespace

ParsedSchema parse_schema(const std::string& schema) {
  ParsedSchema p;
  auto open = schema.find('(');
  auto arrow = schema.rfind(" -> ");
  EMBER_CHECK(open != std::string::npos && arrow != std::string::npos && arrow > open,
              "malformed schema (expected 'ns::name.overload(args) -> returns'): ", schema);
  auto close = schema.rfind(')', arrow);
  EMBER_CHECK(close != std::string::npos && close > open,
              "malformed schema (the argument list is not closed): ", schema);
  std::string full = schema.substr(0, open);
  if (auto dot = full.find('.'); dot != std::string::npos) {
    p.name = full.substr(0, dot);
    p.overload = full.substr(dot + 1);
  } else {
    p.name = full;
  }
  auto ns = p.name.find("::");
  EMBER_CHECK(ns != std::string::npos && ns > 0 && ns + 2 < p.name.size(),
              "malformed schema (the name must be 'namespace::name'): ", schema);
  bool kwarg_only = false;
  for (const auto& part : split_top_level(schema.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      EMBER_CHECK(!kwarg_only, "malformed schema ('*' appears twice): ", schema);
      kwarg_only = true;
      continue;
    }
    SchemaArg a = parse_arg(part, kwarg_only, schema);
    EMBER_CHECK(!a.name.empty(), "malformed schema (argument '", part, "' has no name): ", schema);
    p.arguments.push_back(std::move(a));
  }
  std::string ret = trim(schema.substr(arrow + 4));
  if (ret.size() >= 2 && ret.front() == '(' && ret.back() == ')') ret = ret.substr(1, ret.size() - 2);
  for (const auto& part : split_top_level(ret)) p.returns.push_back(parse_arg(part, false, schema));
  return p;
}

Value default_value(const std::string& type, const std::string& text) {
  EMBER_CHECK(!text.empty(), "empty default for an argument of type ", type);
  if (text == "None") return Value();
  if (text == "True") return Value(true);
  if (text == "False") return Value(false);
  if (text.front() == '\'' || text.front() == '"') {
    EMBER_CHECK(text.size() >= 2 && text.back() == text.front(), "unterminated string default ",
                text);
    return Value(text.substr(1, text.size() - 2));
  }
  const bool float_list = type.starts_with("float[");
  auto number = [&](const std::string& item) -> Value {
    char* end = nullptr;
    bool is_float = float_list || type.starts_with("float") ||
                    item.find_first_of(".eEn") != std::string::npos;  // 0.5, 1e-5, inf, nan
    Value v = is_float ? Value(std::strtod(item.c_str(), &end))
                       : Value(static_cast<int64_t>(std::strtoll(item.c_str(), &end, 10)));
    EMBER_CHECK(!item.empty() && *end == '\0', "malformed number '", item, "' in default ", text,
                " for an argument of type ", type);
    return v;
  };
  if (text.front() == '[') {
    EMBER_CHECK(text.back() == ']', "unterminated list default ", text);
    std::vector<int64_t> ints;
    std::vector<double> floats;
    for (const auto& item : split_top_level(text.substr(1, text.size() - 2))) {
      if (float_list) floats.push_back(number(item).to_double());
      else ints.push_back(number(item).to_int());
    }
    return float_list ? Value(std::move(floats)) : Value(std::move(ints));
  }
  EMBER_CHECK(!type.starts_with("bool"), "malformed default '", text,
              "' for a bool argument (expected True or False)");
  if (type.starts_with("ScalarType")) return Value(dtype_from_name(text));
  if (type.starts_with("MemoryFormat") || type.starts_with("Layout")) {
    return Value(enum_default(type, text));
  }
  if (type.starts_with("int[") || type.starts_with("SymInt[") || float_list) {
    // `int[2] stride=1` means [1, 1]
    Value one = number(text);
    size_t n = std::max<size_t>(fixed_list_size(type), 1);
    if (float_list) return Value(std::vector<double>(n, one.to_double()));
    return Value(std::vector<int64_t>(n, one.to_int()));
  }
  return number(text);
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
