// Parameter validation and JSON Schema generation from `ParamSpec`s. One
// declaration serves both, so the published schema is what is enforced.
//
// Rules (documented in docs/ and the report of issue "transport"):
// - params must be a JSON object (absent/null = {}); positional arrays are
//   rejected.
// - an unknown name is an error naming the allowed ones (aliases included);
// - a name given together with one of its aliases is an error;
// - required strings and `non_blank` strings must contain a non-whitespace
//   character; strings must be valid UTF-8 and within `max_bytes`;
// - integers must be JSON integers (3.0 is accepted, 3.5 is not) within
//   [minimum, maximum]; booleans must be true/false (no "true" strings);
// - an array of objects (kObjectArray) checks every item's members against
//   the spec's `fields` by the same rules, naming them "tool_calls[2].name".
// Every error is kInvalidArgument with Status::field() set to the parameter.
#pragma once

#include "transport/rpc/method_table.h"

namespace mnemo::transport {

// Returns the params with aliases renamed to canonical names and defaults
// applied. The values are moved out of `params`, never copied; on failure
// `params` keeps every member (some normalised by CheckParamValue).
Result<json> ValidateParams(const MethodSpec& spec, json& params);

// Checks one present value of parameter `p` and normalises it (3.0 -> 3 for
// integers, JSON text -> object for kObjectOrText). kInvalidArgument naming
// `p` when it does not fit.
Status CheckParamValue(const ParamSpec& p, json& v);

// JSON Schema (draft 2020-12 subset) of the params object. Aliases are not
// listed as properties (LLM tools see one name); the property's description
// mentions them and `memory.methods` lists them per method.
json ParamsSchema(const MethodSpec& spec);

}  // namespace mnemo::transport
