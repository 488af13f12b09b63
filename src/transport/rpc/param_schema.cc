#include "transport/rpc/param_schema.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo::transport {
namespace {

std::string_view TypeName(ParamType t) {
  switch (t) {
    case ParamType::kString: return "a string";
    case ParamType::kInteger: return "an integer";
    case ParamType::kNumber: return "a number";
    case ParamType::kBoolean: return "a boolean";
    case ParamType::kStringArray: return "an array of strings";
    case ParamType::kNumberArray: return "an array of numbers";
    case ParamType::kObject: return "an object";
    case ParamType::kObjectOrText: return "an object (or a string holding one)";
    case ParamType::kObjectArray: return "an array of objects";
    case ParamType::kJson: return "any JSON value";
  }
  return "a value";
}

std::string_view JsonTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a number";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    default: return "an unsupported value";
  }
}

std::string FormatNumber(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  return json(d).dump();
}

std::string AllowedNames(const std::vector<ParamSpec>& specs) {
  if (specs.empty()) return "none (this method takes no parameters)";
  std::string out;
  for (const ParamSpec& p : specs) {
    if (!out.empty()) out += ", ";
    out += p.name;
    for (const std::string& a : p.aliases) out += " (alias " + a + ")";
  }
  return out;
}

Status Invalid(const ParamSpec& p, const std::string& what) {
  return InvalidArgument("parameter \"" + p.name + "\" " + what, p.name);
}

Status CheckString(const ParamSpec& p, const std::string& s) {
  if (!text::IsValidUtf8(s)) return Invalid(p, "must be valid UTF-8");
  if ((p.required || p.non_blank) && text::IsBlank(s))
    return Invalid(p, "must not be empty or blank");
  if (p.max_bytes > 0 && s.size() > p.max_bytes) {
    return Invalid(p, "is " + std::to_string(s.size()) + " bytes; at most " +
                          std::to_string(p.max_bytes) + " bytes are allowed");
  }
  if (!p.allowed.empty()) {
    std::string list;
    for (const std::string& a : p.allowed) {
      if (a == s) return Status::Ok();
      list += (list.empty() ? "" : ", ") + a;
    }
    return Invalid(p, "is \"" + s + "\"; allowed: " + list);
  }
  return Status::Ok();
}

Status CheckRange(const ParamSpec& p, double d) {
  if ((p.minimum && d < *p.minimum) || (p.maximum && d > *p.maximum)) {
    std::string range = p.minimum && p.maximum
                            ? FormatNumber(*p.minimum) + ".." + FormatNumber(*p.maximum)
                        : p.minimum ? ">= " + FormatNumber(*p.minimum)
                                    : "<= " + FormatNumber(*p.maximum);
    return Invalid(p, "is " + FormatNumber(d) + "; allowed: " + range);
  }
  return Status::Ok();
}

Result<json> ValidateObject(const std::vector<ParamSpec>& specs, json& object,
                            const std::string& path, const std::string& what);

}  // namespace

Status CheckParamValue(const ParamSpec& p, json& v) {
  auto wrong = [&] {
    return Invalid(
        p, "must be " + std::string(TypeName(p.type)) + ", got " + std::string(JsonTypeName(v)));
  };
  switch (p.type) {
    case ParamType::kString:
      if (!v.is_string()) return wrong();
      return CheckString(p, v.get_ref<const std::string&>());
    case ParamType::kInteger: {
      if (v.is_number_float()) {
        double d = v.get<double>();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) return wrong();
        v = static_cast<int64_t>(d);
      }
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return CheckRange(p, v.get<double>());
      }
      if (!v.is_number_integer()) return wrong();
      return CheckRange(p, static_cast<double>(v.get<int64_t>()));
    }
    case ParamType::kNumber:
      if (!v.is_number()) return wrong();
      return CheckRange(p, v.get<double>());
    case ParamType::kBoolean:
      if (!v.is_boolean()) return wrong();
      return Status::Ok();
    case ParamType::kStringArray:
      if (!v.is_array()) return wrong();
      for (const json& item : v) {
        if (!item.is_string()) {
          return Invalid(p, "must be an array of strings, found " +
                                std::string(JsonTypeName(item)) + " in it");
        }
        if (!text::IsValidUtf8(item.get_ref<const std::string&>())) {
          return Invalid(p, "items must be valid UTF-8");
        }
      }
      return Status::Ok();
    case ParamType::kNumberArray:
      if (!v.is_array()) return wrong();
      for (const json& item : v) {
        if (!item.is_number()) {
          return Invalid(p, "must be an array of numbers, found " +
                                std::string(JsonTypeName(item)) + " in it");
        }
      }
      return Status::Ok();
    case ParamType::kObject:
      if (!v.is_object()) return wrong();
      return Status::Ok();
    case ParamType::kObjectOrText: {
      if (v.is_object()) return Status::Ok();
      if (!v.is_string()) return wrong();
      const std::string& text = v.get_ref<const std::string&>();
      if (!JsonDepthWithin(text)) {
        return Invalid(p, "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      json parsed = json::parse(text, nullptr, false);
      if (!parsed.is_object())
        return Invalid(p, "must be an object or a string holding a JSON object");
      v = std::move(parsed);
      return Status::Ok();
    }
    case ParamType::kObjectArray: {
      if (!v.is_array()) return wrong();
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string path = p.name + "[" + std::to_string(i) + "]";
        if (!v[i].is_object()) {
          return InvalidArgument("parameter \"" + path + "\" must be an object, got " +
                                     std::string(JsonTypeName(v[i])),
                                 path);
        }
        MNEMO_ASSIGN_OR_RETURN(v[i], ValidateObject(p.fields, v[i], path + ".", path));
      }
      return Status::Ok();
    }
    case ParamType::kJson: return Status::Ok();
  }
  return wrong();
}

namespace {

// The spec a given name refers to (by name or alias), or null.
const ParamSpec* FindParam(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const ParamSpec& p : specs) {
    if (p.name == name) return &p;
    for (const std::string& a : p.aliases) {
      if (a == name) return &p;
    }
  }
  return nullptr;
}

// Validates the named members of `object` against `specs`. `path` prefixes
// every reported name ("tool_calls[0]." for items); `what` names the object
// in "unknown parameter" errors. Each value is checked in place and moved to
// the result only once every check passed: a large text is never copied, and
// a failure leaves `object` with every member (CheckParamValue may have
// normalised some).
Result<json> ValidateObject(const std::vector<ParamSpec>& specs, json& object,
                            const std::string& path, const std::string& what) {
  std::vector<std::pair<const ParamSpec*, json*>> given;
  std::set<std::string> seen;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& name = it.key();
    const ParamSpec* p = FindParam(specs, name);
    if (p == nullptr) {
      return InvalidArgument("unknown parameter \"" + path + name + "\" for " + what +
                                 "; allowed: " + AllowedNames(specs),
                             path + name);
    }
    if (!seen.insert(p->name).second) {
      return InvalidArgument(
          "give \"" + path + p->name + "\" once: it was also given under an alias", path + p->name);
    }
    json& v = it.value();
    if (v.is_null() && !p->required) continue;  // null means absent for optional params
    if (path.empty()) {
      MNEMO_RETURN_IF_ERROR(CheckParamValue(*p, v));
    } else {
      ParamSpec named = *p;
      named.name = path + p->name;
      MNEMO_RETURN_IF_ERROR(CheckParamValue(named, v));
    }
    given.emplace_back(p, &v);
  }
  for (const ParamSpec& p : specs) {
    const bool present =
        std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == &p; });
    if (p.required && !present) {
      return InvalidArgument("parameter \"" + path + p.name + "\" is required", path + p.name);
    }
  }
  json out = json::object();
  for (const auto& [p, v] : given) out[p->name] = std::move(*v);
  for (const ParamSpec& p : specs) {
    if (p.default_value && !out.contains(p.name)) out[p.name] = *p.default_value;
  }
  return out;
}

}  // namespace

Result<json> ValidateParams(const MethodSpec& spec, json& params) {
  if (!params.is_null() && !params.is_object()) {
    return InvalidArgument("params of " + spec.name +
                               " must be an object of named parameters, got " +
                               std::string(JsonTypeName(params)),
                           "params");
  }
  if (params.is_object()) return ValidateObject(spec.params, params, "", spec.name);
  json none = json::object();
  return ValidateObject(spec.params, none, "", spec.name);
}

namespace {

json ObjectSchema(const std::vector<ParamSpec>& specs) {
  json props = json::object();
  json required = json::array();
  for (const ParamSpec& p : specs) {
    json s;
    switch (p.type) {
      case ParamType::kString: s["type"] = "string"; break;
      case ParamType::kInteger: s["type"] = "integer"; break;
      case ParamType::kNumber: s["type"] = "number"; break;
      case ParamType::kBoolean: s["type"] = "boolean"; break;
      case ParamType::kStringArray: s = {{"type", "array"}, {"items", {{"type", "string"}}}}; break;
      case ParamType::kNumberArray: s = {{"type", "array"}, {"items", {{"type", "number"}}}}; break;
      case ParamType::kObject: s["type"] = "object"; break;
      case ParamType::kObjectOrText: s["type"] = {"object", "string"}; break;
      case ParamType::kObjectArray:
        s = {{"type", "array"}, {"items", ObjectSchema(p.fields)}};
        break;
      case ParamType::kJson: break;  // any value
    }
    std::string desc = p.description;
    if (!p.aliases.empty()) {
      desc += " (also accepted as";
      for (const std::string& a : p.aliases) desc += " \"" + a + "\"";
      desc += ")";
    }
    s["description"] = desc;
    if (p.required || p.non_blank) s["minLength"] = 1;
    if (p.max_bytes > 0) s["maxLength"] = p.max_bytes;
    auto bound = [&](double d) -> json {
      if (p.type == ParamType::kInteger) return static_cast<int64_t>(d);
      return d;
    };
    if (p.minimum) s["minimum"] = bound(*p.minimum);
    if (p.maximum) s["maximum"] = bound(*p.maximum);
    if (!p.allowed.empty()) s["enum"] = p.allowed;
    if (p.default_value) s["default"] = *p.default_value;
    if (p.type != ParamType::kString) s.erase("minLength");
    props[p.name] = std::move(s);
    if (p.required) required.push_back(p.name);
  }
  return {{"type", "object"},
          {"properties", std::move(props)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

}  // namespace

json ParamsSchema(const MethodSpec& spec) { return ObjectSchema(spec.params); }

}  // namespace mnemo::transport
