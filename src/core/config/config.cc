// Loads mnemo.toml, MNEMO_* variables and overrides through the schema table.

#include <toml++/toml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "base/io/file_io.h"
#include "base/strings.h"
#include "core/config/config_schema.h"
#include "core/principals.h"
#include "core/services/tool_specs.h"
#include "mnemo/config.h"
#include "mnemo/limits.h"
#include "rules/tool_rule.h"
#include "storage/values.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace mnemo {
namespace {

using internal::ConfigKeys;
using internal::EnvName;
using internal::KeySpec;
using internal::KeyType;

const KeySpec* FindKey(std::string_view path) {
  for (const KeySpec& k : ConfigKeys()) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

std::string TypeWord(const KeySpec& k) {
  switch (k.type) {
    case KeyType::kBool: return "a boolean (true or false)";
    case KeyType::kInt: return std::string("an integer (") + std::string(k.allowed) + ")";
    case KeyType::kFloat:
    case KeyType::kOptFloat: return std::string("a number (") + std::string(k.allowed) + ")";
    case KeyType::kString: return "a string";
    case KeyType::kStringList: return "an array of strings (environment: comma-separated)";
    case KeyType::kEnum: {
      std::string s = "one of ";
      for (char c : k.allowed) s += c == '|' ? std::string(", ") : std::string(1, c);
      return s;
    }
  }
  return "a value";
}

Status Bad(std::string_view where, const KeySpec& k, std::string_view got) {
  return InvalidArgument(std::string(where) + " " + std::string(got) + ": " + std::string(k.path) +
                             " must be " + TypeWord(k),
                         std::string(k.path));
}

Status SetNumber(Config& c, const KeySpec& k, double v, std::string_view where) {
  if (!std::isfinite(v) || v < k.min || v > k.max) {
    return Bad(where, k, "is out of range");
  }
  if (k.type == KeyType::kInt) {
    if (v != std::floor(v)) return Bad(where, k, "is not a whole number");
    *static_cast<int64_t*>(k.field(c)) = static_cast<int64_t>(v);
  } else if (k.type == KeyType::kFloat) {
    *static_cast<double*>(k.field(c)) = v;
  } else {
    *static_cast<std::optional<double>*>(k.field(c)) = v;
  }
  return Status::Ok();
}

Status SetString(Config& c, const KeySpec& k, const std::string& v, std::string_view where) {
  if (k.type == KeyType::kEnum) {
    std::string_view allowed = k.allowed;
    bool found = false;
    size_t start = 0;
    while (start <= allowed.size()) {
      size_t bar = allowed.find('|', start);
      if (bar == std::string_view::npos) bar = allowed.size();
      if (allowed.substr(start, bar - start) == v) found = true;
      start = bar + 1;
    }
    if (!found) return Bad(where, k, "has \"" + v + "\"");
  }
  *static_cast<std::string*>(k.field(c)) = v;
  return Status::Ok();
}

Result<std::vector<std::string>> StringArray(const toml::node* n, const std::string& where);

// Sets a key from a TOML node (file values keep their TOML types).
Status SetFromToml(Config& c, const KeySpec& k, const toml::node& n, const std::string& where) {
  switch (k.type) {
    case KeyType::kBool:
      if (!n.is_boolean()) return Bad(where, k, "has the wrong type");
      *static_cast<bool*>(k.field(c)) = *n.value<bool>();
      return Status::Ok();
    case KeyType::kInt:
      if (!n.is_integer()) return Bad(where, k, "has the wrong type");
      return SetNumber(c, k, static_cast<double>(*n.value<int64_t>()), where);
    case KeyType::kFloat:
    case KeyType::kOptFloat:
      if (!n.is_number()) return Bad(where, k, "has the wrong type");
      return SetNumber(c, k, *n.value<double>(), where);
    case KeyType::kString:
    case KeyType::kEnum:
      if (!n.is_string()) return Bad(where, k, "has the wrong type");
      return SetString(c, k, *n.value<std::string>(), where);
    case KeyType::kStringList: {
      Result<std::vector<std::string>> list = StringArray(&n, where + " " + std::string(k.path));
      if (!list.ok()) return Bad(where, k, "has the wrong type");
      *static_cast<std::vector<std::string>*>(k.field(c)) = std::move(list).value();
      return Status::Ok();
    }
  }
  return Status::Ok();
}

// "a, b,,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitCommas(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = internal::Trim(text.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<bool> ParseBool(std::string_view s) {
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  return std::nullopt;
}

// Sets a key from text (environment variables and overrides).
Status SetFromText(Config& c, const KeySpec& k, const std::string& v, const std::string& where) {
  switch (k.type) {
    case KeyType::kBool: {
      auto b = ParseBool(v);
      if (!b) {
        return InvalidArgument(where + " has \"" + v + "\": use 1|true|yes|on or 0|false|no|off",
                               std::string(k.path));
      }
      *static_cast<bool*>(k.field(c)) = *b;
      return Status::Ok();
    }
    case KeyType::kInt:
    case KeyType::kFloat:
    case KeyType::kOptFloat: {
      errno = 0;
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || errno != 0) {
        return Bad(where, k, "has \"" + v + "\"");
      }
      return SetNumber(c, k, d, where);
    }
    case KeyType::kString:
    case KeyType::kEnum: return SetString(c, k, v, where);
    case KeyType::kStringList:
      *static_cast<std::vector<std::string>*>(k.field(c)) = SplitCommas(v);
      return Status::Ok();
  }
  return Status::Ok();
}

// Seed compatibility: [memory] may carry the three search keys.
std::optional<std::string> SeedAlias(std::string_view path) {
  if (path == "memory.vector_weight") return "search.vector_weight";
  if (path == "memory.keyword_weight") return "search.keyword_weight";
  if (path == "memory.min_relevance_score") return "search.min_relevance_score";
  return std::nullopt;
}

Result<std::vector<std::string>> StringArray(const toml::node* n, const std::string& where) {
  std::vector<std::string> out;
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr) return InvalidArgument(where + " must be an array of strings");
  for (const toml::node& e : *a) {
    if (!e.is_string()) return InvalidArgument(where + " must be an array of strings");
    out.push_back(*e.value<std::string>());
  }
  return out;
}

Status CheckTableKeys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                      const std::string& where) {
  for (const auto& [key, _] : t) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || key.str() == a;
    if (!ok) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return InvalidArgument("unknown key \"" + std::string(key.str()) + "\" in " + where +
                             ": allowed keys are " + list);
    }
  }
  return Status::Ok();
}

template <typename Fn>
Status ForEachTableInArray(const toml::node& n, const std::string& name, Fn fn) {
  const toml::array* a = n.as_array();
  if (a == nullptr) return InvalidArgument(name + " must be an array of tables ([[" + name + "]])");
  int i = 0;
  for (const toml::node& e : *a) {
    const toml::table* t = e.as_table();
    std::string where = "[[" + name + "]] #" + std::to_string(++i);
    if (t == nullptr) return InvalidArgument(where + " must be a table");
    MNEMO_RETURN_IF_ERROR(fn(*t, where));
  }
  return Status::Ok();
}

std::string Str(const toml::table& t, std::string_view k) {
  return t[k].value<std::string>().value_or("");
}

// A configured principal's name, `field` of the table at `where` (none
// for a key outside a table): the rule of every principal's name.
Status CheckPrincipalName(const std::string& name, const std::string& where,
                          const std::string& field, const std::string& status_field) {
  Status s = PrincipalId::Parse(name, field).status();
  if (s.ok()) return s;
  return InvalidArgument(where.empty() ? s.message() : where + ": " + s.message(), status_field);
}

Status LoadTokens(Config& c, const toml::node& n) {
  // Where each digest was declared: one token must not name two principals
  // (whichever entry won, the other principal would be impersonated).
  std::map<std::string, std::string> declared_at;
  return ForEachTableInArray(n, "security.tokens", [&](const toml::table& t, const std::string& w) {
    MNEMO_RETURN_IF_ERROR(CheckTableKeys(t, {"principal", "role", "sha256"}, w));
    TokenConfig tok{Str(t, "principal"), Str(t, "role"), Str(t, "sha256")};
    if (tok.role.empty()) tok.role = "user";
    MNEMO_RETURN_IF_ERROR(
        CheckPrincipalName(tok.principal, w, "principal", "security.tokens.principal"));
    MNEMO_RETURN_IF_ERROR(internal::CheckRole(tok.role, w, "role"));
    bool hex = tok.sha256.size() == 64 &&
               tok.sha256.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
    if (!hex) return InvalidArgument(w + ": sha256 must be the 64-hex-digit SHA-256 of the token");
    std::string digest = tok.sha256;
    std::transform(digest.begin(), digest.end(), digest.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (auto [it, fresh] = declared_at.emplace(digest, w); !fresh) {
      return InvalidArgument(it->second + " and " + w +
                             " have the same sha256: each token must be declared once, for one "
                             "principal");
    }
    c.security.tokens.push_back(std::move(tok));
    return Status::Ok();
  });
}

Status LoadPrincipals(Config& c, const toml::node& n) {
  return ForEachTableInArray(
      n, "security.principals", [&](const toml::table& t, const std::string& w) {
        MNEMO_RETURN_IF_ERROR(CheckTableKeys(t, {"name", "role"}, w));
        for (std::string_view key : {"name", "role"}) {
          if (!t[key].is_string()) {
            return InvalidArgument(w + ": " + std::string(key) + " must be a string" +
                                       (key == "role" ? " (admin or user)" : ""),
                                   "security.principals." + std::string(key));
          }
        }
        PrincipalConfig p{Str(t, "name"), Str(t, "role")};
        MNEMO_RETURN_IF_ERROR(CheckPrincipalName(p.name, w, "name", "security.principals.name"));
        MNEMO_RETURN_IF_ERROR(internal::CheckRole(p.role, w, "role"));
        for (const PrincipalConfig& other : c.security.principals) {
          if (other.name == p.name) {
            return InvalidArgument(w + ": principal \"" + p.name +
                                       "\" is listed twice: keep one [[security.principals]] "
                                       "table per principal",
                                   "security.principals.name");
          }
        }
        c.security.principals.push_back(std::move(p));
        return Status::Ok();
      });
}

Status LoadAliases(Config& c, const toml::node& n) {
  return ForEachTableInArray(n, "rules.aliases", [&](const toml::table& t, const std::string& w) {
    MNEMO_RETURN_IF_ERROR(CheckTableKeys(t, {"words", "tool_contains"}, w));
    AliasConfig a;
    MNEMO_ASSIGN_OR_RETURN(a.words, StringArray(t.get("words"), w + " words"));
    MNEMO_ASSIGN_OR_RETURN(a.tool_contains,
                           StringArray(t.get("tool_contains"), w + " tool_contains"));
    if (a.words.empty() || a.tool_contains.empty()) {
      return InvalidArgument(w + ": words and tool_contains must both be non-empty");
    }
    c.rules.aliases.push_back(std::move(a));
    return Status::Ok();
  });
}

Status LoadTools(Config& c, const toml::node& n) {
  return ForEachTableInArray(n, "tools", [&](const toml::table& t, const std::string& w) {
    MNEMO_RETURN_IF_ERROR(
        CheckTableKeys(t, {"name", "plugin", "description", "no_memory", "cleaner"}, w));
    for (std::string_view key : {"name", "plugin", "description"}) {
      if (t.contains(key) && !t[key].is_string()) {
        return InvalidArgument(w + ": " + std::string(key) + " must be a string");
      }
    }
    if (t.contains("no_memory") && !t["no_memory"].is_boolean()) {
      return InvalidArgument(w + ": no_memory must be a boolean (true or false)");
    }
    ToolConfig tool{Str(t, "name"), Str(t, "plugin"), Str(t, "description"),
                    t["no_memory"].value<bool>().value_or(false), ""};
    if (tool.name.empty()) return InvalidArgument(w + ": name must not be empty");
    // The cleaner: an array of step tables, or the same as JSON text.
    if (const toml::node* cl = t.get("cleaner")) {
      if (cl->is_string()) {
        tool.cleaner_json = *cl->value<std::string>();
      } else if (cl->is_array()) {
        std::ostringstream os;
        os << toml::json_formatter{*cl};
        tool.cleaner_json = os.str();
      } else {
        return InvalidArgument(w +
                               ": cleaner must be an array of step tables (e.g. "
                               "[{json_field = \"content\"}]) or JSON text");
      }
    }
    Result<context::ToolSpec> compiled = internal::CompileToolSpec({.name = tool.name,
                                                                    .plugin = tool.plugin,
                                                                    .description = tool.description,
                                                                    .no_memory = tool.no_memory,
                                                                    .cleaner = tool.cleaner_json});
    if (!compiled.ok()) {
      return InvalidArgument(w + ": " + compiled.status().message(),
                             "tools." + compiled.status().field());
    }
    for (const ToolConfig& other : c.tools) {
      if (rules::NormalizeToolName(other.name) == compiled->name) {
        return InvalidArgument(w + ": tool \"" + compiled->name +
                               "\" is declared twice: keep one [[tools]] table per tool");
      }
    }
    c.tools.push_back(std::move(tool));
    return Status::Ok();
  });
}

// Walks one TOML table; `prefix` is its dotted path ("" for the root).
Status LoadTable(Config& c, const toml::table& t, const std::string& prefix,
                 std::map<std::string, double>* seed_aliases) {
  for (const auto& [raw_key, node] : t) {
    const std::string key(raw_key.str());
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (path == "security.tokens") {
      MNEMO_RETURN_IF_ERROR(LoadTokens(c, node));
    } else if (path == "security.principals") {
      MNEMO_RETURN_IF_ERROR(LoadPrincipals(c, node));
    } else if (path == "rules.aliases") {
      MNEMO_RETURN_IF_ERROR(LoadAliases(c, node));
    } else if (path == "tools") {
      MNEMO_RETURN_IF_ERROR(LoadTools(c, node));
    } else if (auto alias = SeedAlias(path)) {
      const KeySpec* k = FindKey(*alias);
      MNEMO_RETURN_IF_ERROR(SetFromToml(c, *k, node, "mnemo.toml key " + path));
      (*seed_aliases)[*alias] = *static_cast<double*>(k->field(c));
    } else if (const KeySpec* k = FindKey(path)) {
      MNEMO_RETURN_IF_ERROR(SetFromToml(c, *k, node, "mnemo.toml key " + path));
    } else if (const toml::table* sub = node.as_table()) {
      bool known_section = false;
      for (const KeySpec& spec : ConfigKeys()) {
        known_section = known_section || spec.path.rfind(path + ".", 0) == 0;
      }
      if (!known_section) {
        return InvalidArgument("unknown section [" + path + "] in mnemo.toml: see docs/config.md");
      }
      MNEMO_RETURN_IF_ERROR(LoadTable(c, *sub, path, seed_aliases));
    } else {
      return InvalidArgument("unknown key \"" + path +
                             "\" in mnemo.toml: see docs/config.md for "
                             "the keys of each section");
    }
  }
  return Status::Ok();
}

Status LoadFile(Config& c, const ConfigSources& src) {
  if (!src.file) return Status::Ok();
  struct stat st {};
  if (::stat(src.file->c_str(), &st) != 0) {
    if (src.file_optional && errno == ENOENT) return Status::Ok();
    return InvalidArgument("cannot read config file " + *src.file + ": " + std::strerror(errno));
  }
  // Only a missing file means the defaults: anything else there (a
  // directory left by a bind mount of a missing file, a file this user may
  // not read) would silently turn ACL and tokens off. (A pipe is read:
  // --config <(...).)
  if (S_ISDIR(st.st_mode)) {
    return InvalidArgument("config file " + *src.file +
                           " is a directory: give the path of a TOML file (or remove it for the "
                           "defaults)");
  }
  internal::Fd fd(::open(src.file->c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    return InvalidArgument("cannot read config file " + *src.file + ": " + std::strerror(errno));
  }
  std::string text;
  if (Status s = internal::ReadAll(fd.get(), *src.file, text); !s.ok()) {
    return InvalidArgument("config file " + *src.file + ": " + s.message());
  }
  toml::table table;
  try {
    table = toml::parse(text, *src.file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return InvalidArgument("config file " + *src.file + " is not valid TOML (line " +
                           std::to_string(b.line) + ", column " + std::to_string(b.column) +
                           "): " + std::string(e.description()));
  }
  std::map<std::string, double> seed_aliases;
  MNEMO_RETURN_IF_ERROR(LoadTable(c, table, "", &seed_aliases));
  for (const auto& [path, v] : seed_aliases) {
    const KeySpec* k = FindKey(path);
    if (auto direct = table.at_path(path).value<double>(); direct && *direct != v) {
      return InvalidArgument("mnemo.toml sets " + path + " and its alias memory." +
                                 std::string(path.substr(path.find('.') + 1)) +
                                 " to different values: keep one",
                             path);
    }
    (void)k;
  }
  return Status::Ok();
}

bool IsConfigEnvPrefix(std::string_view var) {
  for (const KeySpec& k : ConfigKeys()) {
    std::string section = EnvName(k.path.substr(0, k.path.find('.'))) + "_";
    if (var.rfind(section, 0) == 0) return true;
  }
  return false;
}

Status LoadEnv(Config& c, const ConfigSources& src) {
  for (const auto& [var, value] : src.env) {
    const KeySpec* match = nullptr;
    for (const KeySpec& k : ConfigKeys()) {
      if (EnvName(k.path) == var) match = &k;
    }
    for (std::string_view alias :
         {"memory.vector_weight", "memory.keyword_weight", "memory.min_relevance_score"}) {
      if (EnvName(alias) == var) match = FindKey(*SeedAlias(alias));
    }
    if (match == nullptr) {
      if (IsConfigEnvPrefix(var)) {
        return InvalidArgument("environment variable " + var +
                               " names no configuration key: see docs/config.md");
      }
      continue;  // MNEMO_WORKSPACE, MNEMO_LOG, ... are not configuration keys
    }
    MNEMO_RETURN_IF_ERROR(SetFromText(c, *match, value, "environment variable " + var));
  }
  return Status::Ok();
}

// postgres.read_urls: each a connection string libpq can take, once, and not
// the primary's own url (reads there gain nothing).
Status ValidateReadUrls(const Config::Postgres& pg) {
  for (size_t i = 0; i < pg.read_urls.size(); ++i) {
    const std::string& url = pg.read_urls[i];
    const std::string which = "postgres.read_urls[" + std::to_string(i) + "]";
    const bool uri = url.starts_with("postgresql://") || url.starts_with("postgres://");
    if (!uri && url.find('=') == std::string::npos) {
      // The value is not echoed: it may hold a password.
      return InvalidArgument(which +
                                 " is not a connection string: use a postgresql:// url or "
                                 "key=value pairs, e.g. \"postgresql://mnemo@standby1:5432/mnemo\"",
                             "postgres.read_urls");
    }
    if (std::find(pg.read_urls.begin(), pg.read_urls.begin() + static_cast<std::ptrdiff_t>(i),
                  url) != pg.read_urls.begin() + static_cast<std::ptrdiff_t>(i)) {
      return InvalidArgument(which + " repeats an earlier read url: list each standby once",
                             "postgres.read_urls");
    }
    if (url == pg.url) {
      return InvalidArgument(which + " is postgres.url itself: list the standbys only",
                             "postgres.read_urls");
    }
  }
  return Status::Ok();
}

Status Validate(const Config& c) {
  if (c.search.vector_weight == 0 && c.search.keyword_weight == 0) {
    return InvalidArgument(
        "search.vector_weight and search.keyword_weight are both 0: at least one must be > 0",
        "search.keyword_weight");
  }
  if (c.memory.backend == "embeddings" && c.embedding.provider == "none") {
    return InvalidArgument(
        "memory.backend = \"embeddings\" needs an embedder: set [embedding] provider to words, "
        "hash, openai or ollama",
        "embedding.provider");
  }
  if (c.memory.backend == "postgres" && c.postgres.url.empty()) {
    return InvalidArgument(
        "memory.backend = \"postgres\" needs a server: set [postgres] url (MNEMO_POSTGRES_URL), "
        "for example \"postgresql://mnemo@localhost:5432/mnemo\"",
        "postgres.url");
  }
  if (c.postgres.schema.empty()) {
    return InvalidArgument("postgres.schema must not be empty (default \"mnemo\")",
                           "postgres.schema");
  }
  MNEMO_RETURN_IF_ERROR(ValidateReadUrls(c.postgres));
  const std::string& listen = c.server.listen;
  size_t colon = listen.rfind(':');
  bool port_ok = colon != std::string::npos && colon + 1 < listen.size() &&
                 listen.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                 listen.size() - colon - 1 <= 5 && std::stoi(listen.substr(colon + 1)) <= 65535;
  if (!port_ok || colon == 0) {
    return InvalidArgument(
        "server.listen \"" + listen + "\" must be host:port, e.g. 127.0.0.1:8765", "server.listen");
  }
  MNEMO_RETURN_IF_ERROR(CheckPrincipalName(c.security.default_principal, "",
                                           "security.default_principal",
                                           "security.default_principal"));
  return internal::CheckOneRolePerPrincipal(c);
}

}  // namespace

Result<Config> LoadConfig(const ConfigSources& sources) {
  Config c;
  MNEMO_RETURN_IF_ERROR(LoadFile(c, sources));
  MNEMO_RETURN_IF_ERROR(LoadEnv(c, sources));
  for (const auto& [path, value] : sources.overrides) {
    const KeySpec* k = FindKey(path);
    if (k == nullptr) return InvalidArgument("unknown configuration key " + path, path);
    MNEMO_RETURN_IF_ERROR(SetFromText(c, *k, value, "setting " + path));
  }
  MNEMO_RETURN_IF_ERROR(Validate(c));
  return c;
}

std::map<std::string, std::string> MnemoEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || kv.rfind("MNEMO_", 0) != 0) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

std::string ConfigReferenceMarkdown() {
  std::string out =
      "# Configuration reference\n\n"
      "Generated from the schema table in `src/core/config/config_schema.cc` "
      "(`mnemo docs config`); a test fails when this file drifts.\n\n"
      "Precedence: built-in defaults < `mnemo.toml` (workspace, or `--config`) < environment < "
      "command-line flags. Environment: `MNEMO_` + the key's path joined by `_`, upper-cased. "
      "Booleans accept `1|true|yes|on` and `0|false|no|off`. Arrays of tables "
      "(`[[tools]]`, `[[security.tokens]]`, `[[security.principals]]`, `[[rules.aliases]]`) are "
      "file-only. Only a missing `mnemo.toml` means the defaults: a directory or a file that "
      "cannot be read is an error.\n\n"
      "| key | environment | type | default | notes |\n|---|---|---|---|---|\n";
  for (const KeySpec& k : ConfigKeys()) {
    out += "| `" + std::string(k.path) + "` | `" + EnvName(k.path) + "` | " + TypeWord(k) + " | `" +
           std::string(k.default_text) + "` | " + std::string(k.doc) + " |\n";
  }
  out +=
      "\nArrays of tables:\n\n"
      "- `[[security.tokens]]`: `principal`, `role` (`admin`|`user`), `sha256` (hex digest of "
      "the bearer token; the token itself never sits in the file). Two entries with the same "
      "digest are an error naming both.\n"
      "- `[[security.principals]]`: `name`, `role` (`admin`|`user`, required): the role "
      "`--principal NAME` acts with on stdio, the CLI and `mnemo mcp` when "
      "`memory.acl_enabled = true`. A name without a table acts with the role of a "
      "`[[security.tokens]]` entry naming it, else `user`; without `--principal` the process "
      "acts as `security.default_principal` with `security.default_role`. Rights come from "
      "these entries only, never from a name: `--principal local` (or whatever "
      "`security.default_principal` says) names a principal like any other and acts as `user` "
      "unless an entry grants it more; `security.default_role` applies only to a process that "
      "names no principal. A name listed twice, or granted two different roles by these "
      "places, is an error. A principal's name, here, in a token, in "
      "`security.default_principal` or `--principal`, is 1-" +
      std::to_string(kMaxPrincipalBytes) +
      " bytes of UTF-8 text on one line (no control character), not blank.\n"
      "- `[[rules.aliases]]` (spec 30, capture): `words` (string array: English words, matched "
      "with their inflections, or Chinese text, matched as a substring), `tool_contains` "
      "(string array): an edict that names no tool of its turn but says one of the words is "
      "filed under a tool whose name contains one of the strings (this turn's tools first, "
      "then every tool the engine knows). The rows are added to the built-in table (email, "
      "shell, browser, slack, file, sms); with `rules.aliases_replace_builtin = true` they "
      "replace it.\n"
      "- `[[tools]]` (spec 50): `name` (like a tool-rule tool name; trimmed and lower-cased), "
      "`plugin`, `description`, `no_memory` (bool: the output takes no part in computation), "
      "`cleaner`: an array of step tables (`cleaner = [{json_field = \"content\"}, "
      "{truncate = 2000}]`) or the same steps as JSON text (`cleaner = '[{\"strip_ansi\": "
      "true}]'`). An invalid name or cleaner step is an error naming the tool and the step. "
      "A tool registered with `memory.tool_register` (or in C++) of the same name takes "
      "precedence; after a change, `mnemo reindex` applies it to what is stored.\n"
      "\n`[memory] vector_weight`, `keyword_weight` and `min_relevance_score` are accepted as "
      "aliases of the `[search]` keys; setting both places to different values is an error.\n";
  return out;
}

}  // namespace mnemo
