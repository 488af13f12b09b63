#include "storage/stores.h"

namespace mnemo::storage {

Result<KeywordIndexPlace> ParseKeywordIndexPlace(std::string_view name) {
  if (std::optional<KeywordIndexPlace> place = FindKeywordIndexPlace(name)) return *place;
  std::string allowed;
  std::string_view names = kKeywordIndexPlaceNames;
  for (size_t bar = names.find('|'); bar != std::string_view::npos; bar = names.find('|')) {
    allowed += std::string(names.substr(0, bar)) +
               (names.find('|', bar + 1) == names.npos ? " or " : ", ");
    names.remove_prefix(bar + 1);
  }
  allowed += names;
  return InvalidArgument(
      "postgres.keyword_index \"" + std::string(name) + "\" is unknown: use " + allowed,
      "postgres.keyword_index");
}

}  // namespace mnemo::storage
