#include "archivist/profile/profile.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <utility>

#include "archivist/profile/slot_graph.h"
#include "archivist/profile/slots.h"
#include "base/strings.h"
#include "context/graph.h"
#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

// A statement is trimmed of spaces and tabs only.
constexpr std::string_view kSpaceAndTab = " \t";

constexpr size_t kKeyWords = 4;
constexpr size_t kKeyCodePoints = 8;

// Predicates of the graph (context/graph.h) that name a facet key beside
// the slots' own predicates (slot_graph.h, SlotOfPredicate).
struct SlotName {
  std::string_view predicate;
  std::string_view key;
};
constexpr SlotName kOtherSlots[] = {
    {"is", kSlotRole}, {"age", "age"}, {"email", "email"}, {"language", kSlotLanguage}};

// Kinds of pets (`has` objects that make a pet slot).
constexpr std::string_view kPetKinds[] = {
    "dog",    "cat",  "puppy", "kitten", "parrot", "hamster", "rabbit", "bunny",    "fish",
    "turtle", "bird", "horse", "pony",   "snake",  "lizard",  "ferret", "goldfish", "guinea pig",
};

// Chinese names of the kinds, as a pet slot's key names them in English
// (slot keys are the same in every language: 我住在 gives `location`).
struct ChinesePetKind {
  std::string_view word;
  std::string_view kind;
};
constexpr ChinesePetKind kChinesePetKinds[] = {
    {"小狗", "puppy"},   {"小猫", "kitten"}, {"金鱼", "goldfish"}, {"鹦鹉", "parrot"},
    {"仓鼠", "hamster"}, {"兔子", "rabbit"}, {"乌龟", "turtle"},   {"狗", "dog"},
    {"猫", "cat"},       {"鱼", "fish"},     {"鸟", "bird"},       {"马", "horse"},
};

struct Slot {
  std::string key;
  std::string value;
  bool preference = false;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// "dog named Rex" -> Rex, "cat" -> cat: the name when one is given.
std::string PetName(std::string_view object, size_t kind_bytes) {
  std::string_view rest = object.substr(kind_bytes);
  for (std::string_view marker : {" named ", " called "}) {
    const std::string lower = Lower(rest);
    if (size_t at = lower.find(marker); at != std::string::npos) {
      return std::string(rest.substr(at + marker.size()));
    }
  }
  return std::string(object.substr(0, kind_bytes));
}

// The pet of a Chinese `has` object ("一只叫咪咪的猫", "猫"): its kind and
// its name when 叫 gives one, else the kind as written.
std::optional<Slot> ChinesePet(std::string_view object) {
  for (const ChinesePetKind& k : kChinesePetKinds) {
    const size_t at = object.rfind(k.word);
    if (at == std::string_view::npos || at + k.word.size() != object.size()) continue;
    std::string value(k.word);
    if (const size_t named = object.find("叫"); named != std::string_view::npos) {
      std::string_view name = object.substr(named + std::string_view("叫").size());
      name = name.substr(0, std::min(name.find("的"), name.size()));
      if (!internal::Trim(name, kSpaceAndTab).empty())
        value = std::string(internal::Trim(name, kSpaceAndTab));
    }
    return Slot{.key = "pet/" + std::string(k.kind), .value = std::move(value)};
  }
  return std::nullopt;
}

// The English kind of a pet word in either language, or "".
std::string_view PetKindOf(std::string_view word) {
  for (std::string_view kind : kPetKinds) {
    if (kind == word) return kind;
  }
  for (const ChinesePetKind& k : kChinesePetKinds) {
    if (k.word == word) return k.kind;
  }
  return {};
}

std::optional<Slot> SlotOfTriple(const context::ExtractedTriple& t) {
  const std::string& p = t.predicate;
  const std::string object_lower = Lower(t.object);
  // "my cat is called Tom": the pet's name.
  if (std::string_view kind = PetKindOf(p); !kind.empty()) {
    for (std::string_view marker : {"called ", "named "}) {
      if (object_lower.starts_with(marker) && t.object.size() > marker.size()) {
        return Slot{.key = "pet/" + std::string(kind), .value = t.object.substr(marker.size())};
      }
    }
  }
  if (std::string_view slot = SlotOfPredicate(p); !slot.empty()) {
    return Slot{.key = std::string(slot), .value = t.object};
  }
  for (const SlotName& s : kOtherSlots) {
    if (p == s.predicate) return Slot{.key = std::string(s.key), .value = t.object};
  }
  if (p == "likes" || p == "prefers") {
    return Slot{.key = object_lower, .value = t.object, .preference = true};
  }
  if (p == "dislikes") {
    return Slot{.key = object_lower, .value = "dislikes " + t.object, .preference = true};
  }
  for (std::string_view fav : {"favorite_", "favourite_", "最喜欢的"}) {
    if (p.starts_with(fav) && p.size() > fav.size()) {
      std::string key = p.substr(fav.size());
      std::replace(key.begin(), key.end(), '_', ' ');
      return Slot{.key = std::move(key), .value = t.object, .preference = true};
    }
  }
  if (p == "has") {
    for (std::string_view kind : kPetKinds) {
      if (object_lower.starts_with(kind) &&
          (object_lower.size() == kind.size() || object_lower[kind.size()] == ' ')) {
        return Slot{.key = "pet/" + std::string(kind), .value = PetName(t.object, kind.size())};
      }
    }
    return ChinesePet(t.object);  // "I have a question": no slot
  }
  if (p.ends_with("'s_name")) {
    const std::string kind = p.substr(0, p.size() - std::string_view("'s_name").size());
    std::string spaced = kind;
    std::replace(spaced.begin(), spaced.end(), '_', ' ');
    if (std::string_view pet = PetKindOf(spaced); !pet.empty()) {
      return Slot{.key = "pet/" + std::string(pet), .value = t.object};
    }
  }
  if (p == "uses") return std::nullopt;
  std::string key = p;
  std::replace(key.begin(), key.end(), '_', ' ');
  return Slot{.key = std::move(key), .value = t.object};
}

// The slot of the first triple about the user in `sentence`, read as the
// user's line.
std::optional<Slot> SlotOfSentence(std::string_view sentence) {
  const std::string line = "user: " + std::string(sentence);
  for (const context::ExtractedTriple& t : context::ExtractTriplesFromText(line)) {
    if (t.subject != context::kUserSubject) continue;
    if (std::optional<Slot> slot = SlotOfTriple(t)) return slot;
  }
  return std::nullopt;
}

// The clause of `sentence` (split at , ; ， ； ：) that holds the event's
// pattern, else the longest; trimmed of closing punctuation.
std::string PatternClause(std::string_view sentence) {
  std::vector<std::string_view> clauses;
  size_t start = 0;
  for (size_t pos = 0; pos <= sentence.size();) {
    size_t len = 0;
    if (pos == sentence.size()) {
      len = 1;
    } else {
      for (std::string_view mark : {",", ";", "，", "；", "：", "、"}) {
        if (sentence.substr(pos, mark.size()) == mark) len = mark.size();
      }
    }
    if (len == 0) {
      ++pos;
      continue;
    }
    clauses.push_back(sentence.substr(start, pos - start));
    pos += len;
    start = pos;
  }
  std::string_view best;
  for (std::string_view c : clauses) {
    if (!ExtractEvents(internal::Trim(c, kSpaceAndTab)).empty()) {
      best = c;
      break;
    }
    if (c.size() > best.size()) best = c;
  }
  std::string out(internal::Trim(best, kSpaceAndTab));
  while (!out.empty() && std::string_view(".!?。！？").find(out.back()) != std::string_view::npos &&
         static_cast<unsigned char>(out.back()) < 0x80) {
    out.pop_back();
  }
  for (std::string_view closer : {"。", "！", "？"}) {
    while (out.ends_with(closer)) out.resize(out.size() - closer.size());
  }
  return out;
}

// At most kKeyWords lower-cased words of `clause` (punctuation dropped), or
// kKeyCodePoints characters of a script written without spaces.
std::string HeadWords(std::string_view clause) {
  const std::string folded = FoldForMatch(clause);
  std::string key;
  size_t words = 0;
  size_t pos = 0;
  while (pos < folded.size() && words < kKeyWords) {
    while (pos < folded.size() && folded[pos] == ' ') ++pos;
    const size_t begin = pos;
    while (pos < folded.size() && folded[pos] != ' ') ++pos;
    std::string word;
    for (size_t i = begin; i < pos; ++i) {
      const char c = folded[i];
      if (static_cast<unsigned char>(c) >= 0x80 || std::isalnum(static_cast<unsigned char>(c)) ||
          c == '\'' || c == '-') {
        word += c;
      }
    }
    if (word.empty()) continue;
    if (!text::IsAscii(word) && text::CountCodePoints(word) > kKeyCodePoints) {
      word = std::string(word.substr(0, text::Utf8PrefixBytes(word, kKeyCodePoints)));
    }
    if (!key.empty()) key += ' ';
    key += word;
    ++words;
  }
  return key;
}

// Sections come in this order; other types follow in byte order.
int SectionRank(std::string_view facet_type) {
  if (facet_type == kFacetPreference) return 0;
  if (facet_type == kFacetContext) return 1;
  return 2;
}

std::string SectionTitle(std::string_view facet_type) {
  std::string title(facet_type);
  if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') {
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
  }
  return title;
}

// A key or value on one line: every run of CR/LF becomes one space.
void AppendOneLine(std::string_view value, std::string* out) {
  bool in_break = false;
  for (char c : value) {
    if (c == '\n' || c == '\r') {
      if (!in_break) *out += ' ';
      in_break = true;
    } else {
      *out += c;
      in_break = false;
    }
  }
}

}  // namespace

std::optional<Facet> FacetFromEvent(const Event& event, std::string segment_id) {
  std::string_view facet_type;
  if (event.type == kEventPreference) {
    facet_type = kFacetPreference;
  } else if (event.type == kEventFact) {
    facet_type = kFacetContext;
  } else {
    return std::nullopt;
  }
  Facet facet{.facet_type = std::string(facet_type),
              .confidence = event.confidence,
              .evidence_count = 1,
              .evidence = event.text};
  std::optional<Slot> slot = SlotOfSentence(event.text);
  if (slot) {
    if (slot->preference) facet.facet_type = std::string(kFacetPreference);
    facet.key = std::move(slot->key);
    facet.value = std::move(slot->value);
  } else {
    const std::string clause = PatternClause(event.text);
    facet.key = HeadWords(clause);
    facet.value = clause;
  }
  if (facet.key.empty() || facet.value.empty()) return std::nullopt;
  if (!segment_id.empty()) facet.segment_ids.push_back(std::move(segment_id));
  return facet;
}

std::vector<Facet> FacetsFromMessage(std::string_view user_message, std::string_view segment_id) {
  std::vector<Facet> out;
  const std::string trimmed(internal::Trim(user_message, kSpaceAndTab));
  const std::string opening = Lower(trimmed.substr(0, 6));
  const bool greeting =
      opening.starts_with("hi") || opening.starts_with("hello") || opening.starts_with("hey");
  for (const std::string& sentence : EventSentences(user_message)) {
    SentenceSlots slots = ExtractSlots(sentence, greeting);
    const double confidence =
        IsHedged(FoldForMatch(sentence)) ? kHedgedConfidence : kPlainConfidence;
    for (SlotStatement& s : slots.statements) {
      Facet f{.facet_type = std::string(s.preference ? kFacetPreference : kFacetContext),
              .key = std::move(s.key),
              .value = std::move(s.value),
              .confidence = confidence,
              .evidence_count = 1,
              .evidence = sentence};
      if (!segment_id.empty()) f.segment_ids.emplace_back(segment_id);
      out.push_back(std::move(f));
    }
    if (!slots.statements.empty() || !slots.own) continue;
    for (const Event& e : ExtractEvents(sentence)) {
      if (e.type != kEventFact) continue;
      std::optional<Facet> f = FacetFromEvent(e, std::string(segment_id));
      if (!f || f->facet_type != kFacetContext || IsSlotKey(f->key)) continue;
      // The graph's pets (我养了一只叫咪咪的猫) in the table's one pet slot.
      if (f->key.starts_with("pet/")) {
        const std::string kind = f->key.substr(4);
        if (PetKindOf(f->value).empty()) f->value += " (" + kind + ")";  // a name
        f->key = std::string(kSlotPet);
      }
      out.push_back(std::move(*f));
    }
  }
  // A place the message gives as where the user lives or comes from is no
  // employer (我住在上海，在上海工作).
  std::vector<std::string> places;
  for (const Facet& f : out) {
    if (f.facet_type == kFacetContext && (f.key == kSlotLocation || f.key == kSlotOrigin)) {
      places.push_back(f.value);
    }
  }
  std::erase_if(out, [&places](const Facet& f) {
    return f.facet_type == kFacetContext && f.key == kSlotEmployer &&
           std::find(places.begin(), places.end(), f.value) != places.end();
  });
  return out;
}

bool IsFreeFact(std::string_view facet_type, std::string_view key, std::string_view value) {
  return facet_type == kFacetContext && HeadWords(value) == key;
}

std::string RenderProfile(const std::vector<Facet>& facets) {
  std::vector<const Facet*> sorted;
  sorted.reserve(facets.size());
  for (const Facet& f : facets) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Facet* a, const Facet* b) {
    const int rank_a = SectionRank(a->facet_type);
    const int rank_b = SectionRank(b->facet_type);
    if (rank_a != rank_b) return rank_a < rank_b;
    if (a->facet_type != b->facet_type) return a->facet_type < b->facet_type;
    if (a->key != b->key) return a->key < b->key;
    return a->value < b->value;
  });
  std::string out;
  const std::string* section = nullptr;
  for (const Facet* f : sorted) {
    if (section == nullptr || *section != f->facet_type) {
      if (section != nullptr) out += '\n';
      out += "### ";
      out += SectionTitle(f->facet_type);
      out += '\n';
      section = &f->facet_type;
    }
    out += "- ";
    AppendOneLine(f->key, &out);
    out += ": ";
    AppendOneLine(f->value, &out);
    out += " (confirmed ";
    out += std::to_string(f->evidence_count);
    out += "x)\n";
  }
  return out;
}

}  // namespace mnemo::archivist
