#include "core/config/config_schema.h"

#include <array>
#include <cctype>
#include <limits>

#include "storage/stores.h"

namespace mnemo::internal {
namespace {

constexpr double kNoMax = std::numeric_limits<double>::max();
constexpr double kIntMax = 9.0e15;

// NOLINTNEXTLINE(bugprone-macro-parentheses): `member` is a member path.
#define MNEMO_FIELD(member) [](Config& c) -> void* { return &c.member; }

const std::array kKeys = {
    KeySpec{"memory.enabled", KeyType::kBool, "true", "", 0, 0,
            "false: every memory method answers -32003", MNEMO_FIELD(memory.enabled)},
    KeySpec{"memory.backend", KeyType::kEnum, "sqlite",
            "sqlite|markdown|postgres|in_memory|embeddings", 0, 0, "storage backend",
            MNEMO_FIELD(memory.backend)},
    KeySpec{"memory.path", KeyType::kString, "", "", 0, 0,
            "markdown backend folder; default <workspace>/memory/", MNEMO_FIELD(memory.path)},
    KeySpec{"memory.hygiene_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(memory.hygiene_enabled)},
    KeySpec{"memory.archive_after_days", KeyType::kInt, "30", ">= 0", 0, kIntMax, "0 = never",
            MNEMO_FIELD(memory.archive_after_days)},
    KeySpec{"memory.conversation_retention_days", KeyType::kInt, "7", ">= 0", 0, kIntMax,
            "0 = never", MNEMO_FIELD(memory.conversation_retention_days)},
    KeySpec{"memory.acl_enabled", KeyType::kBool, "false", "", 0, 0, "principals and ACL",
            MNEMO_FIELD(memory.acl_enabled)},
    KeySpec{"search.vector_weight", KeyType::kFloat, "0.6", ">= 0", 0, kNoMax,
            "fusion = weighted only; also accepted as memory.vector_weight",
            MNEMO_FIELD(search.vector_weight)},
    KeySpec{"search.keyword_weight", KeyType::kFloat, "0.4", ">= 0", 0, kNoMax,
            "fusion = weighted only; not both weights 0; also accepted as "
            "memory.keyword_weight",
            MNEMO_FIELD(search.keyword_weight)},
    KeySpec{"search.min_relevance_score", KeyType::kFloat, "0.2", "0..1", 0, 1,
            "filter on the final score; also accepted as memory.min_relevance_score",
            MNEMO_FIELD(search.min_relevance_score)},
    KeySpec{"search.fusion", KeyType::kEnum, "noisy_or", "noisy_or|weighted|rrf", 0, 0,
            "how the keyword and vector scores combine (docs/search.md)",
            MNEMO_FIELD(search.fusion)},
    KeySpec{"embedding.provider", KeyType::kEnum, "words", "words|hash|openai|ollama|none", 0, 0,
            "words: English word vectors, hash when their file is missing; ollama: an "
            "OpenAI-compatible server at Ollama's address unless base_url says otherwise",
            MNEMO_FIELD(embedding.provider)},
    KeySpec{"embedding.words_path", KeyType::kString, "", "", 0, 0,
            "the word-vector file of provider words; \"\" = $MNEMO_DATA_DIR or /usr/share/mnemo",
            MNEMO_FIELD(embedding.words_path)},
    KeySpec{"embedding.model", KeyType::kString, "", "", 0, 0, "required for openai and ollama",
            MNEMO_FIELD(embedding.model)},
    KeySpec{"embedding.dimensions", KeyType::kInt, "384", "1..65536", 1, 65536, "",
            MNEMO_FIELD(embedding.dimensions)},
    KeySpec{"embedding.base_url", KeyType::kString, "", "", 0, 0,
            "required for openai; ollama: http://127.0.0.1:11434/v1 when empty",
            MNEMO_FIELD(embedding.base_url)},
    KeySpec{"embedding.api_key_env", KeyType::kString, "", "", 0, 0,
            "name of the variable that holds the key", MNEMO_FIELD(embedding.api_key_env)},
    KeySpec{"embedding.timeout_ms", KeyType::kInt, "10000", ">= 1", 1, kIntMax, "",
            MNEMO_FIELD(embedding.timeout_ms)},
    KeySpec{"embedding.batch_size", KeyType::kInt, "64", "1..4096", 1, 4096, "",
            MNEMO_FIELD(embedding.batch_size)},
    KeySpec{"index.kind", KeyType::kEnum, "auto", "auto|flat|hnsw", 0, 0, "",
            MNEMO_FIELD(index.kind)},
    KeySpec{"index.hnsw_threshold", KeyType::kInt, "20000", ">= 0", 0, kIntMax,
            "auto switches to hnsw above it", MNEMO_FIELD(index.hnsw_threshold)},
    KeySpec{"index.m", KeyType::kInt, "16", "2..256", 2, 256, "", MNEMO_FIELD(index.m)},
    KeySpec{"index.ef_construction", KeyType::kInt, "100", "1..10000", 1, 10000, "",
            MNEMO_FIELD(index.ef_construction)},
    KeySpec{"index.ef_search", KeyType::kInt, "64", "1..10000", 1, 10000, "",
            MNEMO_FIELD(index.ef_search)},
    KeySpec{"index.save_interval_secs", KeyType::kInt, "60", "0..86400", 0, 86400,
            "the daemon writes changed index files this often; 0: only at exit",
            MNEMO_FIELD(index.save_interval_secs)},
    KeySpec{"llm.base_url", KeyType::kString, "", "", 0, 0, "empty: no LLM, extractive recaps",
            MNEMO_FIELD(llm.base_url)},
    KeySpec{"llm.model", KeyType::kString, "", "", 0, 0, "", MNEMO_FIELD(llm.model)},
    KeySpec{"llm.api_key_env", KeyType::kString, "", "", 0, 0, "", MNEMO_FIELD(llm.api_key_env)},
    KeySpec{"llm.timeout_ms", KeyType::kInt, "30000", ">= 1", 1, kIntMax, "",
            MNEMO_FIELD(llm.timeout_ms)},
    KeySpec{"llm.recap_token_budget", KeyType::kInt, "2000", ">= 1", 1, kIntMax, "",
            MNEMO_FIELD(llm.recap_token_budget)},
    KeySpec{"learning.episodic_capture_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(learning.episodic_capture_enabled)},
    KeySpec{"learning.tool_memory_capture_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(learning.tool_memory_capture_enabled)},
    KeySpec{"learning.events_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(learning.events_enabled)},
    KeySpec{"learning.profile_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(learning.profile_enabled)},
    KeySpec{"learning.chat_to_documents_enabled", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(learning.chat_to_documents_enabled)},
    KeySpec{"learning.max_turns_per_segment", KeyType::kInt, "20", ">= 1", 1, kIntMax, "",
            MNEMO_FIELD(learning.max_turns_per_segment)},
    KeySpec{"learning.max_time_gap_secs", KeyType::kInt, "600", ">= 1", 1, kIntMax, "",
            MNEMO_FIELD(learning.max_time_gap_secs)},
    KeySpec{"learning.min_cosine_similarity", KeyType::kOptFloat,
            "0.4 with openai, 0 (off) with hash", "-1..1", -1, 1,
            "drift check runs only when > 0 and the segment has >= 3 turns",
            MNEMO_FIELD(learning.min_cosine_similarity)},
    KeySpec{"learning.session_idle_close_secs", KeyType::kInt, "1800", ">= 0", 0, kIntMax,
            "an open segment idle this long is finalised as session_end would; 0 = never",
            MNEMO_FIELD(learning.session_idle_close_secs)},
    KeySpec{"learning.archive_queue_rows", KeyType::kInt, "8192", "2..1000000", 2, 1000000,
            "archive files waiting to be written at most; a turn waits for room",
            MNEMO_FIELD(learning.archive_queue_rows)},
    KeySpec{"rules.prompt_cap", KeyType::kInt, "30", ">= 0", 0, kIntMax,
            "high rules kept beside all critical ones", MNEMO_FIELD(rules.prompt_cap)},
    KeySpec{"rules.aliases_replace_builtin", KeyType::kBool, "false", "", 0, 0,
            "true: the [[rules.aliases]] rows replace the built-in alias table instead of "
            "extending it",
            MNEMO_FIELD(rules.aliases_replace_builtin)},
    KeySpec{"context.protected_events", KeyType::kInt, "10", ">= 0", 0, kIntMax, "",
            MNEMO_FIELD(context.protected_events)},
    KeySpec{"security.secrets", KeyType::kEnum, "reject", "reject|allow", 0, 0,
            "what memory_store does with secret-looking content", MNEMO_FIELD(security.secrets)},
    KeySpec{"security.redact_episodic", KeyType::kBool, "true", "", 0, 0, "",
            MNEMO_FIELD(security.redact_episodic)},
    KeySpec{"security.default_principal", KeyType::kString, "local", "", 0, 0,
            "principal for stdio/CLI/mcp without --principal",
            MNEMO_FIELD(security.default_principal)},
    KeySpec{"security.default_role", KeyType::kEnum, "admin", "admin|user", 0, 0,
            "its role under ACL (the owner of the workspace) when no --principal is given; "
            "--principal P acts with the role [[security.principals]] or [[security.tokens]] "
            "grant P, else user, even when P is the default principal's name",
            MNEMO_FIELD(security.default_role)},
    KeySpec{"security.audit.enabled", KeyType::kBool, "false", "", 0, 0, "",
            MNEMO_FIELD(security.audit.enabled)},
    KeySpec{"security.audit.path", KeyType::kString, "audit.log", "", 0, 0,
            "relative to the workspace", MNEMO_FIELD(security.audit.path)},
    KeySpec{"security.audit.max_size_mb", KeyType::kInt, "100", ">= 1", 1, kIntMax, "rotation",
            MNEMO_FIELD(security.audit.max_size_mb)},
    KeySpec{"security.audit.keep", KeyType::kInt, "5", ">= 0", 0, 1000, "rotated files kept",
            MNEMO_FIELD(security.audit.keep)},
    KeySpec{"server.listen", KeyType::kString, "127.0.0.1:8765", "host:port", 0, 0,
            "non-loopback needs [[security.tokens]] and TLS (or allow_plaintext)",
            MNEMO_FIELD(server.listen)},
    KeySpec{"server.max_body_bytes", KeyType::kInt, "4194304", ">= 1024", 1024, kIntMax,
            "413 above it", MNEMO_FIELD(server.max_body_bytes)},
    KeySpec{"server.request_timeout_ms", KeyType::kInt, "30000", ">= 1", 1, kIntMax,
            "a request must arrive whole within it of its first byte (408)",
            MNEMO_FIELD(server.request_timeout_ms)},
    KeySpec{"server.idle_timeout_ms", KeyType::kInt, "15000", ">= 1", 1, kIntMax,
            "a connection without a request in progress is closed after it",
            MNEMO_FIELD(server.idle_timeout_ms)},
    KeySpec{"server.max_connections", KeyType::kInt, "512", "1..100000", 1, 100000,
            "open connections in all; past it 503 and close", MNEMO_FIELD(server.max_connections)},
    KeySpec{"server.max_connections_per_client", KeyType::kInt, "128", "1..100000", 1, 100000,
            "open connections from one address; past it 503 and close",
            MNEMO_FIELD(server.max_connections_per_client)},
    KeySpec{"server.workers", KeyType::kInt, "8", "1..256", 1, 256, "",
            MNEMO_FIELD(server.workers)},
    KeySpec{"server.queue", KeyType::kInt, "64", "1..100000", 1, 100000, "a full queue answers 503",
            MNEMO_FIELD(server.queue)},
    KeySpec{"server.allowed_hosts", KeyType::kStringList, "[]", "", 0, 0,
            "Host names (name or name:port) served beside localhost, 127.0.0.1, [::1] and the "
            "listen address; any other Host is refused with 421 (docs/http-server.md)",
            MNEMO_FIELD(server.allowed_hosts)},
    KeySpec{"server.allowed_origins", KeyType::kStringList, "[]", "", 0, 0,
            "browser origins (scheme://host:port) allowed beside the daemon's own; a request "
            "from any other Origin is refused with 403",
            MNEMO_FIELD(server.allowed_origins)},
    KeySpec{"server.tls_cert", KeyType::kString, "", "PEM path", 0, 0,
            "PEM file: the certificate chain, the server's first; with tls_key the daemon "
            "speaks only https (TLS 1.2+, docs/http-server.md)",
            MNEMO_FIELD(server.tls_cert)},
    KeySpec{"server.tls_key", KeyType::kString, "", "PEM path", 0, 0,
            "PEM file: the certificate's private key; both or neither",
            MNEMO_FIELD(server.tls_key)},
    KeySpec{"server.allow_plaintext", KeyType::kBool, "false", "", 0, 0,
            "true: a non-loopback listen without TLS, on purpose (bearer tokens then cross the "
            "network in clear text; logged as a warning at start)",
            MNEMO_FIELD(server.allow_plaintext)},
    KeySpec{"postgres.url", KeyType::kString, "", "", 0, 0, "required for postgres",
            MNEMO_FIELD(postgres.url)},
    KeySpec{"postgres.pool_size", KeyType::kInt, "8", "1..256", 1, 256, "",
            MNEMO_FIELD(postgres.pool_size)},
    KeySpec{"postgres.schema", KeyType::kString, "mnemo", "", 0, 0, "",
            MNEMO_FIELD(postgres.schema)},
    KeySpec{"postgres.read_urls", KeyType::kStringList, "[]", "", 0, 0,
            "hot standbys of the server (postgresql:// urls or key=value strings): a read goes "
            "to one that has replayed this node's last write, else to url (docs/scaling.md)",
            MNEMO_FIELD(postgres.read_urls)},
    KeySpec{"postgres.keyword_index", KeyType::kEnum,
            storage::KeywordIndexPlaceName(storage::KeywordIndexPlace::kNode),
            storage::kKeywordIndexPlaceNames, 0, 0,
            "node: each process holds the entries' keyword index and scores a search itself, "
            "fetching the hits in one round trip; server: one statement scored by the server "
            "(docs/scaling.md)",
            MNEMO_FIELD(postgres.keyword_index)},
};

#undef MNEMO_FIELD

}  // namespace

std::span<const KeySpec> ConfigKeys() { return kKeys; }

std::string EnvName(std::string_view path) {
  std::string out = "MNEMO_";
  for (char c : path) {
    out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace mnemo::internal
