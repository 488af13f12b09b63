// The slot table's cues and grammar words (docs/archivist.md, "Profile
// slots"): what ExtractSlots (slots.h) looks for, never values. How a
// sentence is read is archivist/profile/clause_reader.h.
#pragma once

#include <string_view>

#include "archivist/profile/slots.h"

namespace mnemo::archivist::slot_cues {

struct Cue {
  std::string_view phrase;  // lower-case words
  std::string_view slot;
  enum Kind { kProper, kProperList, kPhrase, kPhraseList } kind;
  bool possessive = false;  // the user's whoever the clause's subject is
};

inline constexpr Cue kCues[] = {
    // name
    {"my name is", kSlotName, Cue::kProper, true},
    {"my name's", kSlotName, Cue::kProper, true},
    {"call me", kSlotName, Cue::kProper, true},
    {"everyone calls me", kSlotName, Cue::kProper, true},
    {"people call me", kSlotName, Cue::kProper, true},
    {"friends call me", kSlotName, Cue::kProper, true},
    {"i go by", kSlotName, Cue::kProper},
    // location
    {"live in", kSlotLocation, Cue::kProper},
    {"living in", kSlotLocation, Cue::kProper},
    {"based in", kSlotLocation, Cue::kProper},
    {"moved to", kSlotLocation, Cue::kProper},
    {"relocated to", kSlotLocation, Cue::kProper},
    {"moved back to", kSlotLocation, Cue::kProper},
    {"moved from", kSlotLocation, Cue::kProper},
    {"relocated from", kSlotLocation, Cue::kProper},
    {"reside in", kSlotLocation, Cue::kProper},
    {"settled in", kSlotLocation, Cue::kProper},
    // origin
    {"i'm from", kSlotOrigin, Cue::kProper},
    {"i am from", kSlotOrigin, Cue::kProper},
    {"we're from", kSlotOrigin, Cue::kProper},
    {"originally from", kSlotOrigin, Cue::kProper},
    {"come from", kSlotOrigin, Cue::kProper},
    {"grew up in", kSlotOrigin, Cue::kProper},
    // employer
    {"work at", kSlotEmployer, Cue::kProper},
    {"work for", kSlotEmployer, Cue::kProper},
    {"working at", kSlotEmployer, Cue::kProper},
    {"working for", kSlotEmployer, Cue::kProper},
    {"joined", kSlotEmployer, Cue::kProper},
    {"employed by", kSlotEmployer, Cue::kProper},
    {"employed at", kSlotEmployer, Cue::kProper},
    {"started at", kSlotEmployer, Cue::kProper},
    {"job at", kSlotEmployer, Cue::kProper},
    {"job with", kSlotEmployer, Cue::kProper},
    // role
    {"i'm a", kSlotRole, Cue::kPhrase},
    {"i'm an", kSlotRole, Cue::kPhrase},
    {"i am a", kSlotRole, Cue::kPhrase},
    {"i am an", kSlotRole, Cue::kPhrase},
    {"work as", kSlotRole, Cue::kPhrase},
    {"working as", kSlotRole, Cue::kPhrase},
    {"my role is", kSlotRole, Cue::kPhrase, true},
    {"my job title is", kSlotRole, Cue::kPhrase, true},
    // manager
    {"report to", kSlotManager, Cue::kProper},
    {"reporting to", kSlotManager, Cue::kProper},
    // partner
    {"married to", kSlotPartner, Cue::kProper},
    // birthday
    {"my birthday is", kSlotBirthday, Cue::kPhrase, true},
    {"my birthday's", kSlotBirthday, Cue::kPhrase, true},
    {"born on", kSlotBirthday, Cue::kPhrase},
    // timezone
    {"my timezone is", kSlotTimezone, Cue::kPhrase, true},
    {"my time zone is", kSlotTimezone, Cue::kPhrase, true},
    {"my timezone's", kSlotTimezone, Cue::kPhrase, true},
    // language
    {"i speak", kSlotLanguage, Cue::kProperList},
    {"we speak", kSlotLanguage, Cue::kProperList},
    {"fluent in", kSlotLanguage, Cue::kProperList},
    {"my native language is", kSlotLanguage, Cue::kProperList, true},
    {"my first language is", kSlotLanguage, Cue::kProperList, true},
    {"my mother tongue is", kSlotLanguage, Cue::kProperList, true},
    // allergy
    {"allergic to", kSlotAllergy, Cue::kPhraseList},
    {"an allergy to", kSlotAllergy, Cue::kPhraseList},
};

// Chinese cues: the value follows the cue ("我叫王芳").
struct ChineseCue {
  std::string_view cue;
  std::string_view slot;
  bool possessive = false;
};
inline constexpr ChineseCue kChineseCues[] = {
    {"我叫", kSlotName},
    {"我的名字是", kSlotName, true},
    {"叫我", kSlotName, true},
    {"住在", kSlotLocation},
    {"搬到", kSlotLocation},
    {"定居在", kSlotLocation},
    {"来自", kSlotOrigin},
    {"我是一名", kSlotRole},
    {"担任", kSlotRole},
    {"我的经理是", kSlotManager, true},
    {"我的老板是", kSlotManager, true},
    {"我的上司是", kSlotManager, true},
    {"我的生日是", kSlotBirthday, true},
    {"我的时区是", kSlotTimezone, true},
    {"我会说", kSlotLanguage},
    {"我讲", kSlotLanguage},
    {"我老婆", kSlotPartner, true},
    {"我妻子", kSlotPartner, true},
    {"我丈夫", kSlotPartner, true},
    {"我老公", kSlotPartner, true},
    {"我的猫叫", kSlotPet, true},
    {"我的狗叫", kSlotPet, true},
};

// The user's people and animals: "my <word> <Name>", "<Name> is my <word>".
struct Relation {
  std::string_view word;
  std::string_view slot;
};
inline constexpr Relation kRelations[] = {
    {"manager", kSlotManager},   {"boss", kSlotManager},         {"supervisor", kSlotManager},
    {"team lead", kSlotManager}, {"line manager", kSlotManager}, {"partner", kSlotPartner},
    {"wife", kSlotPartner},      {"husband", kSlotPartner},      {"girlfriend", kSlotPartner},
    {"boyfriend", kSlotPartner}, {"fiancé", kSlotPartner},       {"fiancée", kSlotPartner},
    {"fiance", kSlotPartner},    {"fiancee", kSlotPartner},      {"spouse", kSlotPartner},
    {"son", kSlotChildren},      {"daughter", kSlotChildren},    {"kids", kSlotChildren},
    {"children", kSlotChildren}, {"sons", kSlotChildren},        {"daughters", kSlotChildren},
};

inline constexpr std::string_view kPetKinds[] = {
    "dog",      "cat",       "puppy",    "kitten",  "parrot", "hamster", "rabbit",   "bunny",
    "turtle",   "horse",     "pony",     "snake",   "lizard", "ferret",  "goldfish", "budgie",
    "tortoise", "retriever", "labrador", "terrier", "poodle", "beagle",  "spaniel",  "collie"};

inline constexpr std::string_view kDiets[] = {
    "vegetarian", "vegan",  "pescatarian", "pescetarian", "flexitarian",
    "keto",       "paleo",  "gluten-free", "dairy-free",  "lactose-free",
    "halal",      "kosher", "plant-based", "carnivore"};
inline constexpr std::string_view kChineseDiets[] = {"素食", "吃素", "纯素", "清真"};

// Capitalised words that name a time, not a person ("Since Monday Ann is …").
inline constexpr std::string_view kTimeWords[] = {
    "monday",  "tuesday",   "wednesday", "thursday", "friday",   "saturday", "sunday",
    "january", "february",  "march",     "april",    "may",      "june",     "july",
    "august",  "september", "october",   "november", "december", "today",    "yesterday"};

inline constexpr std::string_view kNumbers[] = {"one", "two", "three", "four", "five", "six", "a",
                                                "an",  "2",   "3",     "4",    "5",    "1"};

// Role words that describe a state, not a job ("I'm a bit tired").
inline constexpr std::string_view kNotRoles[] = {
    "bit",      "little", "lot",      "big",       "huge",    "fan",    "total",   "bad",
    "good",     "great",  "real",     "quick",     "fast",    "slow",   "morning", "night",
    "very",     "pretty", "cat",      "dog",       "people",  "person", "fool",    "mess",
    "wreck",    "sucker", "creature", "new",       "first",   "last",   "few",     "citizen",
    "national", "native", "expat",    "immigrant", "resident"};

// Words shaped like a nationality that name a faith, a party or a diet
// ("I'm Christian", "I'm Republican"), not where someone is from.
inline constexpr std::string_view kNotNationalities[] = {
    "christian",    "jewish",      "lutheran",   "anglican",    "presbyterian",
    "episcopalian", "rastafarian", "republican", "libertarian", "unitarian",
    "amish",        "sunni",       "vegetarian", "vegan",       "pescatarian"};

enum class Demonym { kNone, kWeak, kStrong };

// Whether `w` is shaped like a nationality: capitalised, and ending in a
// demonym suffix (docs/archivist.md, "origin"). A strong suffix (-ish,
// -ese, -ican: Polish, Japanese, Mexican) is almost never a given name; a
// weak one (-ian, -ean, -an, -i, -ch: Brazilian, Korean, German, Saudi,
// Dutch) often is (Julian, Sean, Morgan, Naomi, Mitch), and the shortest
// ones (Ian, Brian, Ryan, Dani) are left out. A hyphenated word is read by
// its last part ("Brazilian-American").
Demonym DemonymShape(std::string_view w);

// Whether a Chinese noun names a place, not an organisation: a word that
// points at a place (家, 国外, 本地 …) or a name ending in the character of an
// administrative unit or a kind of place (北京 capital, 杭州, 深圳市, 广东省,
// 海淀区, 中国, 香港 …). A bare city name without one (上海, 成都) is
// known as a place only when the message also says the user lives there
// or comes from there (FacetsFromMessage, profile.h).
bool IsChinesePlace(std::string_view x);

// Location cues that say the user moved: a destination, and possibly a
// chain of them ("moved to Leeds and then to York").
bool IsMoveCue(std::string_view phrase);

}  // namespace mnemo::archivist::slot_cues
