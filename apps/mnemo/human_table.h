// Plain-text tables for the CLI's human output.
#pragma once

#include <string>
#include <vector>

namespace mnemo::app {

// Left-aligned columns separated by two spaces; cells are cut at `max_width`
// display bytes (UTF-8 safe) and newlines shown as spaces.
std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, size_t max_width = 60);

}  // namespace mnemo::app
