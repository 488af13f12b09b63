#include "human_table.h"

#include <algorithm>

namespace mnemo::app {
namespace {

size_t Utf8Length(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string Cell(std::string s, size_t max_width) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  if (Utf8Length(s) <= max_width) return s;
  size_t chars = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++chars > max_width - 1) break;
  }
  return s.substr(0, i) + "…";
}

}  // namespace

std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, size_t max_width) {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size() + 1);
  cells.push_back(header);
  for (const auto& r : rows) {
    std::vector<std::string> row;
    row.reserve(r.size());
    for (const std::string& c : r) row.push_back(Cell(c, max_width));
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& r : cells) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], Utf8Length(r[i]));
    }
  }
  std::string out;
  for (size_t n = 0; n < cells.size(); ++n) {
    std::string line;
    for (size_t i = 0; i < cells[n].size() && i < width.size(); ++i) {
      line += cells[n][i];
      if (i + 1 < cells[n].size()) line += std::string(width[i] - Utf8Length(cells[n][i]) + 2, ' ');
    }
    out += line;
    if (n + 1 < cells.size()) out += "\n";
  }
  return out;
}

}  // namespace mnemo::app
