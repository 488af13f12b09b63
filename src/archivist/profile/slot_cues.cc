#include "archivist/profile/slot_cues.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "archivist/profile/clause_reader.h"

namespace mnemo::archivist::slot_cues {
namespace {
using clauses::In;
using clauses::IsUpper;
using clauses::Lower;
}  // namespace

// Whether `w` is shaped like a nationality: capitalised, and ending in a
// demonym suffix (docs/archivist.md, "origin"). A strong suffix (-ish,
// -ese, -ican: Polish, Japanese, Mexican) is almost never a given name; a
// weak one (-ian, -ean, -an, -i, -ch: Brazilian, Korean, German, Saudi,
// Dutch) often is (Julian, Sean, Morgan, Naomi, Mitch), and the shortest
// ones (Ian, Brian, Ryan, Dani) are left out. A hyphenated word is read by
// its last part ("Brazilian-American").
Demonym DemonymShape(std::string_view w) {
  if (const size_t dash = w.rfind('-'); dash != std::string_view::npos) w.remove_prefix(dash + 1);
  if (w.size() < 4 || !IsUpper(w[0])) return Demonym::kNone;
  for (char ch : w.substr(1)) {
    if (ch < 'a' || ch > 'z') return Demonym::kNone;
  }
  const std::string low = Lower(w);
  if (In(low, kNotNationalities)) return Demonym::kNone;
  const size_t n = low.size();
  if ((low.ends_with("ish") && n >= 5) || (low.ends_with("ese") && n >= 6) ||
      low.ends_with("ican")) {
    return Demonym::kStrong;
  }
  if (((low.ends_with("ian") || low.ends_with("ean") || low.ends_with("an")) && n >= 6) ||
      ((low.ends_with("i") || low.ends_with("ch")) && n >= 5)) {
    return Demonym::kWeak;
  }
  return Demonym::kNone;
}

// Whether a Chinese noun names a place, not an organisation: a word that
// points at a place (家, 国外, 本地 …) or a name ending in the character of an
// administrative unit or a kind of place (北京 capital, 杭州, 深圳市, 广东省,
// 海淀区, 中国, 香港 …). A bare city name without one (上海, 成都) is
// known as a place only when the message also says the user lives there
// or comes from there (FacetsFromMessage, profile.h).
bool IsChinesePlace(std::string_view x) {
  if (In(x, {"家", "家里", "国外", "海外", "国内", "外地", "本地", "当地", "老家", "这里", "这儿",
             "那里", "那儿", "城里", "市里", "市中心", "郊区", "附近"})) {
    return true;
  }
  for (std::string_view unit :
       {"市", "省", "县", "区", "州", "镇", "乡", "村", "城", "国", "岛", "京", "港"}) {
    if (x.size() > unit.size() && x.ends_with(unit)) return true;
  }
  return false;
}

// Location cues that say the user moved: a destination, and possibly a
// chain of them ("moved to Leeds and then to York").
bool IsMoveCue(std::string_view phrase) {
  return phrase.starts_with("moved ") || phrase.starts_with("relocated ");
}

}  // namespace mnemo::archivist::slot_cues
