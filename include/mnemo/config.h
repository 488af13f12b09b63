// Configuration (spec 15). One schema table in src/core/config/config_schema.cc
// drives loading, environment overrides, validation and docs/config.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

struct TokenConfig {
  std::string principal;
  std::string role = "user";  // admin | user
  std::string sha256;         // hex digest of the bearer token
};

// [[security.principals]]: the role a principal named on stdio, the CLI or
// `mnemo mcp` (--principal) acts with.
struct PrincipalConfig {
  std::string name;
  std::string role;  // admin | user
};

struct AliasConfig {
  std::vector<std::string> words;
  std::vector<std::string> tool_contains;
};

struct ToolConfig {
  std::string name;
  std::string plugin;
  std::string description;
  bool no_memory = false;
  std::string cleaner_json;  // the cleaner steps as JSON text ("" = none)
};

struct Config {
  struct Memory {
    bool enabled = true;
    std::string backend = "sqlite";
    std::string path;
    bool hygiene_enabled = true;
    int64_t archive_after_days = 30;
    int64_t conversation_retention_days = 7;
    bool acl_enabled = false;
  } memory;
  struct Search {
    double vector_weight = 0.6;
    double keyword_weight = 0.4;
    double min_relevance_score = 0.2;
    std::string fusion = "noisy_or";
  } search;
  struct Embedding {
    std::string provider = "words";
    std::string words_path;  // "" = the default data folder (docs/search.md)
    std::string model;
    int64_t dimensions = 384;
    std::string base_url;
    std::string api_key_env;
    int64_t timeout_ms = 10000;
    int64_t batch_size = 64;
  } embedding;
  struct Index {
    std::string kind = "auto";
    int64_t hnsw_threshold = 20000;
    int64_t m = 16;
    int64_t ef_construction = 100;
    int64_t ef_search = 64;
    int64_t save_interval_secs = 60;
  } index;
  struct Llm {
    std::string base_url;
    std::string model;
    std::string api_key_env;
    int64_t timeout_ms = 30000;
    int64_t recap_token_budget = 2000;
  } llm;
  struct Learning {
    bool episodic_capture_enabled = true;
    bool tool_memory_capture_enabled = true;
    bool events_enabled = true;
    bool profile_enabled = true;
    bool chat_to_documents_enabled = true;
    int64_t max_turns_per_segment = 20;
    int64_t max_time_gap_secs = 600;
    std::optional<double> min_cosine_similarity;  // absent: 0.4 with openai, 0 with hash
    // An open segment with no new turn for this long is closed and finalised
    // as memory.session_end would; 0: never.
    int64_t session_idle_close_secs = 1800;
    // Archive rows waiting to be written at most; a turn waits for room.
    int64_t archive_queue_rows = 8192;
  } learning;
  struct Rules {
    int64_t prompt_cap = 30;
    // [[rules.aliases]]: rows added to the built-in alias table of spec 30.
    std::vector<AliasConfig> aliases;
    // The [[rules.aliases]] rows replace the built-in table instead.
    bool aliases_replace_builtin = false;
  } rules;
  struct Context {
    int64_t protected_events = 10;
  } context;
  struct Security {
    std::string secrets = "reject";
    bool redact_episodic = true;
    std::string default_principal = "local";
    std::string default_role = "admin";  // admin | user: the role of default_principal
    struct Audit {
      bool enabled = false;
      std::string path = "audit.log";
      int64_t max_size_mb = 100;
      int64_t keep = 5;
    } audit;
    std::vector<TokenConfig> tokens;
    std::vector<PrincipalConfig> principals;
  } security;
  struct Server {
    std::string listen = "127.0.0.1:8765";
    int64_t max_body_bytes = 4194304;
    int64_t request_timeout_ms = 30000;
    int64_t idle_timeout_ms = 15000;
    int64_t max_connections = 512;
    int64_t max_connections_per_client = 128;
    int64_t workers = 8;
    int64_t queue = 64;
    std::vector<std::string> allowed_hosts;    // beside the loopback names and listen's host
    std::vector<std::string> allowed_origins;  // beside the daemon's own origins
    std::string tls_cert;                      // PEM paths: both or neither (https when set)
    std::string tls_key;
    bool allow_plaintext = false;  // a non-loopback listen without TLS, on purpose
  } server;
  struct Postgres {
    std::string url;
    int64_t pool_size = 8;
    std::string schema = "mnemo";
    std::vector<std::string> read_urls;  // hot standbys reads may go to (docs/scaling.md)
    std::string keyword_index = "node";  // where keyword searches are scored: node | server
  } postgres;
  std::vector<ToolConfig> tools;
};

// Where configuration comes from, lowest precedence first: built-in defaults,
// the TOML file, the environment, explicit overrides ("section.key" -> text).
struct ConfigSources {
  std::optional<std::string> file;         // path; a missing explicit file is an error
  bool file_optional = false;              // true: a missing file is the defaults
  std::map<std::string, std::string> env;  // usually the process environment
  std::map<std::string, std::string> overrides;
};

// Loads and validates. Unknown keys, wrong types and bad values are
// kInvalidArgument errors naming the key (or variable) and what is allowed.
// One principal has one role: a name listed twice in
// [[security.principals]], or granted different roles by
// [[security.principals]], [[security.tokens]] and (for
// security.default_principal) security.default_role, is an error.
Result<Config> LoadConfig(const ConfigSources& sources);

// The role the configuration grants principal `name` (spec 10 ACL), the one
// role lookup of every transport: its [[security.principals]] entry, else a
// [[security.tokens]] entry naming it, else user. Rights come from those
// entries only, never from a name: `--principal local` (the default
// principal's name) acts as a user unless an entry grants "local" more.
// (With memory.acl_enabled = false the engine treats every caller as an
// admin whatever its role.)
Role ConfiguredRole(const Config& config, std::string_view name);

// Who a process acts as on stdio, the CLI, `mnemo mcp`, and HTTP without
// tokens: `requested` (--principal P) with ConfiguredRole(P), or, when
// `requested` is empty, security.default_principal with
// security.default_role (the one place that role applies).
Principal ProcessPrincipal(const Config& config, std::string_view requested);

// The process environment as a map (only MNEMO_* variables).
std::map<std::string, std::string> MnemoEnvironment();

// Markdown reference of every key (docs/config.md is generated from this).
std::string ConfigReferenceMarkdown();

}  // namespace mnemo

#pragma GCC visibility pop
