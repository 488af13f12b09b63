// The limits of the public API, stated once: the engine checks every request
// against them (a value past one is kInvalidArgument naming the field and
// the limit), and every transport declares its parameter schemas from the
// same constants, so a shape check and a meaning check never disagree.
// Sizes are bytes of UTF-8 unless they say characters (Unicode code points).
#pragma once

#include <cstddef>
#include <cstdint>

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

// Entries (spec 10).
inline constexpr size_t kMaxKeyBytes = 256;          // also ids of sessions, agents, facet keys
inline constexpr size_t kMaxContentBytes = 1 << 20;  // 1 MiB: an entry's text, any query
inline constexpr size_t kMaxNamespaceBytes = 128;
// A principal's name: the owner of what it stores (memory.principal_forget's
// principal, a request's owner, an import's owner, a configured principal).
inline constexpr size_t kMaxPrincipalBytes = 128;
inline constexpr size_t kMaxCategoryBytes = 64;  // also a facet type
inline constexpr size_t kMaxTagBytes = 64;
inline constexpr size_t kMaxTags = 32;

// Result counts: searches return at most kMaxResults hits; pages and graph
// queries at most kMaxPageSize rows.
inline constexpr int kMaxResults = 100;
inline constexpr int kMaxPageSize = 1000;
// context_turns of memory.episodic_search and memory_recall: neighbouring
// turns returned each side of a hit.
inline constexpr int kMaxContextTurns = 5;

// Tool rules (spec 30). A tool name is measured after normalisation
// (trimmed, lower-cased); the wire allows a little more before it.
inline constexpr size_t kMaxToolNameBytes = 120;
inline constexpr size_t kMaxRuleBytes = 4096;
inline constexpr size_t kMaxRuleIdBytes = 64;
// A turn id of memory.turn_complete (and at least one byte).
inline constexpr size_t kMaxTurnIdBytes = 128;

// The Archivist (spec 40).
inline constexpr size_t kMaxFacetValueBytes = 4096;
inline constexpr size_t kMaxMemoryMdContentBytes = size_t{1} << 20;  // 1 MiB
inline constexpr size_t kMaxMemoryMdTitleBytes = 256;                // also the file name

// Documents, graph, context (spec 50).
inline constexpr size_t kMaxSourceBytes = 1024;     // a document's source
inline constexpr size_t kMaxGraphTermBytes = 1024;  // subject, predicate, object
inline constexpr size_t kMaxPluginBytes = 256;      // a registered tool's plugin
inline constexpr size_t kMaxDescriptionBytes = 4096;
// memory.context_build's budget_chars.
inline constexpr int64_t kMaxContextBuildChars = 1'000'000;
// memory.context_window's budget_chars and protected events.
inline constexpr int64_t kMaxWindowBudgetChars = int64_t{1} << 30;
inline constexpr int kMaxProtectedEvents = 1000;

}  // namespace mnemo

#pragma GCC visibility pop
