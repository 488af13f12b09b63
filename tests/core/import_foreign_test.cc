// `mnemo import --from` through the engine (core/admin/admin_import_foreign.cc) on
// files written from each tool's documented format (tests/fixtures/import).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/formats/foreign_formats.h"
#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

using testing::TempDir;

const std::string kFixtures = std::string(MNEMO_SOURCE_DIR) + "/tests/fixtures/import/";

class ImportForeign : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(Config{}); }

  void Reopen(Config config) {
    engine_.reset();
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = std::move(config)});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  ForeignImportReport Import(const std::string& format, const std::string& path,
                             const Principal& who = {}, bool dry_run = false) {
    Result<ForeignImportReport> r =
        engine_->admin().ImportForeign(who, path, {.format = format, .dry_run = dry_run});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ForeignImportReport{};
  }

  int64_t Entries(const Principal& who = {}) {
    Result<Stats> s = engine_->memory().GetStats(who);
    EXPECT_TRUE(s.ok());
    return s.ok() ? s->entries : -1;
  }

  std::vector<std::string> Facts(const GraphQueryRequest& q = {}) {
    Result<std::vector<Triple>> triples = engine_->knowledge().GraphQuery(me_, q);
    EXPECT_TRUE(triples.ok()) << triples.status().ToString();
    std::vector<std::string> out;
    for (const Triple& t : triples.ok() ? *triples : std::vector<Triple>{}) {
      out.push_back(t.subject + " " + t.predicate + " " + t.object);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // A file of the test's own, in a folder that exists.
  std::string Input(const std::string& name) {
    std::filesystem::create_directories(dir_.Sub("in"));
    return dir_.Sub("in") + "/" + name;
  }

  static std::vector<std::string> Skipped(const ForeignImportReport& r) {
    std::vector<std::string> out;
    for (const auto& s : r.skipped) {
      out.push_back(std::filesystem::path(s.file).filename().string() + ":" +
                    std::to_string(s.line) + ": " + s.reason);
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_F(ImportForeign, McpMemoryEntitiesBecomeEntriesAndRelationsTriples) {
  ForeignImportReport r = Import("mcp-memory", kFixtures + "mcp-memory/memory.jsonl");
  EXPECT_EQ(r.entries_created, 3);
  EXPECT_EQ(r.triples_created, 5);
  EXPECT_EQ(r.documents_created, 0);
  EXPECT_EQ(Skipped(r), (std::vector<std::string>{
                            "memory.jsonl:6: not valid JSON (truncated or malformed line)",
                            "memory.jsonl:7: a relation needs \"from\", \"to\" and "
                            "\"relationType\" (strings)",
                            "memory.jsonl:8: \"type\" must be \"entity\" or \"relation\""}));
  Result<Entry> john = engine_->memory().Get(me_, {.key = "John_Smith", .ns = "mcp-memory"});
  ASSERT_TRUE(john.ok()) << john.status().ToString();
  EXPECT_EQ(john->content,
            "John_Smith (person)\n- Speaks fluent Spanish\n- Graduated in 2019\n- Prefers "
            "morning meetings");
  EXPECT_EQ(john->tags, std::vector<std::string>{"person"});
  // The entity's key keeps its name as written; the graph node is named
  // like basic-memory's titles (ForeignEntityName).
  EXPECT_EQ(Facts({.subject = "John Smith"}),
            (std::vector<std::string>{"John Smith is_a person", "John Smith lives_in Lisbon",
                                      "John Smith works_at Anthropic"}));
  Result<SearchResponse> hits = engine_->memory().Search(me_, {.query = "Spanish"});
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->results.empty());
  EXPECT_EQ(hits->results[0].key, "John_Smith");
}

TEST_F(ImportForeign, Mem0MemoriesAreOwnedByTheirUserUnderAcl) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  const Principal admin{"local", Role::kAdmin};
  const Principal alex{"alex", Role::kUser};
  const Principal sam{"sam", Role::kUser};
  ForeignImportReport r = Import("mem0", kFixtures + "mem0/export.json", admin);
  EXPECT_EQ(r.entries_created, 2);
  EXPECT_EQ(
      Skipped(r),
      (std::vector<std::string>{"export.json:23: a memory needs \"memory\" (its text, a string)"}));
  const GetRequest veg{.key = "3f1c2b7e-8a9d-4c5e-b6f7-1a2b3c4d5e6f", .ns = "mem0"};
  Result<Entry> mine = engine_->memory().Get(alex, veg);
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_EQ(mine->owner, "alex");
  EXPECT_EQ(mine->content, "Is a vegetarian and allergic to nuts");
  EXPECT_EQ(mine->tags, (std::vector<std::string>{"food", "health", "agent:diet-coach"}));
  EXPECT_EQ(mine->created_at, 1722014976630);
  EXPECT_EQ(engine_->memory().Get(sam, veg).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Entries(sam), 1);

  // A user imports only their own memories: sam's are left out, with why.
  Reopen(acl);
  Result<ForeignImportReport> by_alex =
      engine_->admin().ImportForeign(alex, kFixtures + "mem0/export.json", {.format = "mem0"});
  ASSERT_TRUE(by_alex.ok()) << by_alex.status().ToString();
  EXPECT_EQ(by_alex->entries_unchanged, 1);
  EXPECT_EQ(by_alex->entries_created, 0);
  ASSERT_EQ(by_alex->skipped_count, 2);
  EXPECT_EQ(by_alex->skipped[0].line, 14);
  EXPECT_EQ(by_alex->skipped[0].reason,
            "it belongs to \"sam\": under ACL only an admin imports another principal's memories");
}

TEST_F(ImportForeign, AnMcpEntityAndABasicMemoryNoteOfOneNameAreOneGraphNode) {
  std::ofstream(Input("memory.jsonl"))
      << "{\"type\":\"entity\",\"name\":\"Maria_Lopez\",\"entityType\":\"person\"}\n"
         "{\"type\":\"relation\",\"from\":\"Maria_Lopez\",\"to\":\"Acme_Corp\","
         "\"relationType\":\"works_at\"}\n";
  Import("mcp-memory", Input("memory.jsonl"));
  std::filesystem::create_directories(dir_.Sub("notes"));
  std::ofstream(dir_.Sub("notes") + "/maria.md")
      << "---\ntitle: Maria Lopez\n---\n\n- lives_in [[Lisbon]]\n";
  std::ofstream(dir_.Sub("notes") + "/acme.md") << "---\ntitle: acme corp\ntype: company\n---\n";
  Import("basic-memory", dir_.Sub("notes"));
  EXPECT_EQ(Facts({.subject = "maria lopez"}),
            (std::vector<std::string>{"Maria Lopez is_a person", "Maria Lopez lives_in Lisbon",
                                      "Maria Lopez works_at Acme Corp"}));
  EXPECT_EQ(Facts({.object = "Acme Corp"}),
            (std::vector<std::string>{"Maria Lopez works_at Acme Corp"}));
  EXPECT_EQ(Facts({.subject = "Acme Corp"}), (std::vector<std::string>{"acme corp is_a company"}));
}

TEST_F(ImportForeign, BasicMemoryNotesBecomeDocumentsEntriesAndTriples) {
  ForeignImportReport r = Import("basic-memory", kFixtures + "basic-memory/notes");
  EXPECT_EQ(r.files, 3);
  EXPECT_EQ(r.documents_created, 2);
  // Three observations, and the note without any as one entry.
  EXPECT_EQ(r.entries_created, 4);
  EXPECT_EQ(r.triples_created, 5);
  EXPECT_EQ(Skipped(r), (std::vector<std::string>{
                            "unfinished.md:1: the front matter opened on line 1 is never closed "
                            "(a line \"---\" ends it)"}));
  EXPECT_EQ(Facts(),
            (std::vector<std::string>{
                "Coffee Bean Origins is_a topic", "Coffee Brewing Methods links_to Espresso Notes",
                "Coffee Brewing Methods pairs_well_with Morning Routine",
                "Coffee Brewing Methods relates_to Coffee Bean Origins",
                "Coffee Brewing Methods requires Proper Grinding Technique"}));
  Result<SearchResponse> hits = engine_->memory().Search(me_, {.query = "water temperature"});
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->results.empty());
  EXPECT_EQ(hits->results[0].ns, "basic-memory");
  EXPECT_EQ(hits->results[0].content,
            "Coffee Brewing Methods: Water temperature at 205°F extracts optimal compounds "
            "(about 96°C)");
  Result<Entry> origins =
      engine_->memory().Get(me_, {.key = "coffee-bean-origins", .ns = "basic-memory"});
  ASSERT_TRUE(origins.ok()) << origins.status().ToString();
  EXPECT_EQ(origins->content, "Ethiopian beans taste of berries; Colombian ones of chocolate.");
  Result<DocumentList> docs = engine_->documents().List(me_, {.source = "basic-memory:"});
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->documents.size(), 2u);
  Result<Document> doc = engine_->documents().Get(me_, docs->documents[0].id);
  ASSERT_TRUE(doc.ok());
  std::ifstream in(kFixtures + "basic-memory/notes/" +
                   (doc->source == "basic-memory:coffee-bean-origins"
                        ? "coffee-bean-origins.md"
                        : "coffee/coffee-brewing-methods.md"));
  EXPECT_EQ(doc->content, std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_NE(doc->meta.find("\"title\":"), std::string::npos) << doc->meta;
}

TEST_F(ImportForeign, MarkdownNotesAreOneEntryEach) {
  ForeignImportReport r = Import("markdown", kFixtures + "markdown/notes");
  EXPECT_EQ(r.entries_created, 2);
  ASSERT_EQ(r.skipped_count, 1);
  EXPECT_EQ(Skipped(r), std::vector<std::string>{"empty.md:0: the note is empty"});
  Result<Entry> alpha = engine_->memory().Get(me_, {.key = "projects/alpha", .ns = "markdown"});
  ASSERT_TRUE(alpha.ok()) << alpha.status().ToString();
  EXPECT_EQ(alpha->content, "# Project Alpha\n\nAlpha ships the billing service in March.");
  EXPECT_EQ(alpha->tags, (std::vector<std::string>{"work", "alpha"}));
  // One file by itself: its name is the key.
  Reopen(Config{});
  r = Import("markdown", kFixtures + "markdown/notes/editor.md");
  EXPECT_EQ(r.entries_created + r.entries_unchanged, 1);
  EXPECT_TRUE(engine_->memory().Get(me_, {.key = "editor", .ns = "markdown"}).ok());
}

TEST_F(ImportForeign, JsonlLinesKeepTheirNamespaceAndBadOnesAreReported) {
  ForeignImportReport r = Import("jsonl", kFixtures + "jsonl/entries.jsonl");
  EXPECT_EQ(r.entries_created, 2);
  EXPECT_EQ(Skipped(r),
            (std::vector<std::string>{
                "entries.jsonl:3: \"content\" must be a string (required)",
                "entries.jsonl:4: not valid JSON (truncated or malformed line)",
                "entries.jsonl:5: category \"Core!\" is invalid: use core, daily, conversation or "
                "[a-z0-9_-]{1,64}"}));
  EXPECT_EQ(engine_->memory().Get(me_, {.key = "user_editor"})->content,
            "The user prefers Helix over Vim");
  EXPECT_EQ(engine_->memory().Get(me_, {.key = "standup", .ns = "work"})->content,
            "Standup is at 9:30 every weekday");
}

TEST_F(ImportForeign, SecondRunCreatesNothingNew) {
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"mcp-memory", "mcp-memory/memory.jsonl"},
      {"mem0", "mem0/export.json"},
      {"basic-memory", "basic-memory/notes"},
      {"markdown", "markdown/notes"},
      {"jsonl", "jsonl/entries.jsonl"}};
  for (const auto& [format, path] : inputs) Import(format, kFixtures + path);
  const int64_t entries = Entries();
  const TimeMs updated = engine_->memory().Get(me_, {.key = "user_editor"})->updated_at;
  for (const auto& [format, path] : inputs) {
    SCOPED_TRACE(format);
    ForeignImportReport again = Import(format, kFixtures + path);
    EXPECT_EQ(again.entries_created, 0);
    EXPECT_EQ(again.entries_updated, 0);
    EXPECT_GT(again.entries_unchanged, 0);
    EXPECT_EQ(again.documents_created, 0);
    EXPECT_EQ(again.triples_created, 0);
  }
  EXPECT_EQ(Entries(), entries);
  EXPECT_EQ(engine_->memory().Get(me_, {.key = "user_editor"})->updated_at, updated);
}

TEST_F(ImportForeign, AChangedRecordIsUpdatedInPlace) {
  const std::string file = Input("e.jsonl");
  std::ofstream(file) << "{\"key\": \"k\", \"content\": \"first\"}\n";
  EXPECT_EQ(Import("jsonl", file).entries_created, 1);
  std::ofstream(file) << "{\"key\": \"k\", \"content\": \"second\"}\n";
  ForeignImportReport r = Import("jsonl", file);
  EXPECT_EQ(r.entries_updated, 1);
  EXPECT_EQ(engine_->memory().Get(me_, {.key = "k"})->content, "second");
  EXPECT_EQ(Entries(), 1);
}

TEST_F(ImportForeign, DryRunCountsAndWritesNothing) {
  ForeignImportReport r =
      Import("basic-memory", kFixtures + "basic-memory/notes", me_, /*dry_run=*/true);
  EXPECT_TRUE(r.dry_run);
  EXPECT_EQ(r.entries_created, 4);
  EXPECT_EQ(r.documents_created, 2);
  EXPECT_EQ(r.triples_created, 5);
  EXPECT_EQ(r.skipped_count, 1);
  EXPECT_EQ(Entries(), 0);
  EXPECT_TRUE(Facts().empty());
  EXPECT_TRUE(engine_->documents().List(me_, {})->documents.empty());
}

TEST_F(ImportForeign, HardFailuresWriteNothingAndSayWhatIsAllowed) {
  Result<ForeignImportReport> bad_format =
      engine_->admin().ImportForeign(me_, kFixtures + "jsonl/entries.jsonl", {.format = "csv"});
  EXPECT_EQ(bad_format.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_format.status().message().find("mcp-memory, mem0, basic-memory, markdown or jsonl"),
            std::string::npos);
  Result<ForeignImportReport> missing =
      engine_->admin().ImportForeign(me_, dir_.Sub("nothing") + "/here.jsonl", {.format = "jsonl"});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  // A folder without a file of the format.
  Result<ForeignImportReport> empty =
      engine_->admin().ImportForeign(me_, kFixtures + "mem0", {.format = "markdown"});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("holds no .md files"), std::string::npos);
  // A mem0 file that is not JSON at all: reported, nothing written.
  const std::string broken = Input("broken.json");
  std::ofstream(broken) << "[{\"id\": \"1\", \"memory\": \"cut off";
  ForeignImportReport r = Import("mem0", broken);
  EXPECT_EQ(r.entries_created, 0);
  EXPECT_EQ(Skipped(r),
            std::vector<std::string>{"broken.json:0: not valid JSON: expected a list of memories"});
  Result<ForeignImportReport> bad_ns = engine_->admin().ImportForeign(
      me_, kFixtures + "jsonl/entries.jsonl", {.format = "jsonl", .ns = "bad ns!"});
  EXPECT_EQ(bad_ns.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Entries(), 0);
}

// A permalink that climbs ("../../etc/passwd") never becomes a key.
TEST_F(ImportForeign, KeysNeverHoldADotDotStep) {
  std::ofstream(Input("climb.md")) << "---\ntitle: Climb\npermalink: ../../etc/passwd\n---\n"
                                      "- [fact] the sky is blue\n";
  ForeignImportReport r = Import("basic-memory", Input("climb.md"));
  EXPECT_EQ(r.entries_created, 0);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].reason.find("holds a \"..\" step"), std::string::npos)
      << r.skipped[0].reason;
}

// 100 000 observations of one note keep 100 000 keys (32 bits of hash
// gave this text one collision, and the import dropped it as a duplicate).
TEST(ForeignFormats, ObservationKeysOfOneNoteNeverCollide) {
  std::string note = "---\ntitle: Many\n---\n";
  for (int i = 0; i < 100'000; ++i)
    note += "- [fact] observation number " + std::to_string(i) + "\n";
  const internal::ForeignRecords records =
      internal::ParseBasicMemoryNote({.name = "many.md", .relative = "many.md", .text = note});
  ASSERT_EQ(records.entries.size(), 100'000u);
  std::set<std::string> keys;
  for (const internal::ForeignEntry& e : records.entries) keys.insert(e.key);
  EXPECT_EQ(keys.size(), 100'000u);
  EXPECT_EQ(records.entries[0].key.size(), std::string("many#").size() + 16);
}

}  // namespace
}  // namespace mnemo
