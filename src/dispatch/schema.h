// Parsing PyTorch schema strings ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
// -> Tensor") into names, arguments and defaults, and turning defaults into boxed Values.
#pragma once

#include <string>
#include <vector>

#include "ember/dispatch.h"

namespace ember {

struct ParsedSchema {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor", or "" for the default overload
  std::vector<SchemaArg> arguments;
  std::vector<SchemaArg> returns;
};

namespace dispatch {

/// Throws ember::Error naming the schema when it is malformed.
ParsedSchema parse_schema(const std::string& schema);
/// The boxed value of a default as written in a schema ("1", "-1", "0.5", "True", "None", "[]",
/// "[0, 1]", "'none'", "long", "contiguous_format"), for an argument of type `type`.
Value default_value(const std::string& type, const std::string& text);
/// `args` followed by the defaults of the arguments it leaves out. Too many arguments, or a
/// missing one without a default, is a TypeError naming the op and the argument.
Stack fill_defaults(const OpHandle& op, const Stack& args);

}  // namespace dispatch
}  // namespace ember
