// The JSON-RPC request decoder and the method table behind it
// (transport/rpc/jsonrpc.h, spec 60) on an in_memory engine with ACL on. The
// first byte picks the caller (two users and an admin), the rest is the
// request body. Properties: HandleText never throws; every answer is
// JSON-RPC 2.0: an object (or a non-empty array of them) with "jsonrpc":
// "2.0", an "id", and exactly one of "result" and "error", an error with an
// integer code and a non-empty message.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "mnemo/config.h"
#include "mnemo/engine.h"
#include "transport/rpc/jsonrpc.h"

using mnemo::fuzz::Fail;

namespace {

struct Server {
  mnemo::fuzz::ScratchDir dir;
  std::unique_ptr<mnemo::Engine> engine;
  std::unique_ptr<mnemo::transport::Dispatcher> dispatcher;

  Server() {
    mnemo::Config config;
    config.memory.backend = "in_memory";
    config.memory.acl_enabled = true;
    auto e = mnemo::Engine::Open(mnemo::EngineOptions{.workspace = dir.path(), .config = config});
    if (!e.ok()) Fail("cannot open the engine: " + e.status().ToString());
    engine = std::move(e).value();
    dispatcher = std::make_unique<mnemo::transport::Dispatcher>(*engine);
  }
  ~Server() {
    dispatcher.reset();
    engine.reset();  // before the folder goes
  }
};

void CheckResponse(const nlohmann::json& r) {
  if (!r.is_object()) Fail("a response is not an object: " + r.dump());
  if (r.value("jsonrpc", "") != "2.0") Fail("no \"jsonrpc\": \"2.0\": " + r.dump());
  if (!r.contains("id")) Fail("no id: " + r.dump());
  if (r.contains("result") == r.contains("error")) Fail("not one of result/error: " + r.dump());
  if (r.contains("error")) {
    const nlohmann::json& e = r["error"];
    if (!e.is_object() || !e.contains("code") || !e["code"].is_number_integer() ||
        !e.contains("message") || !e["message"].is_string() ||
        e["message"].get<std::string>().empty()) {
      Fail("a malformed error: " + r.dump());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server server;
  if (size == 0) return 0;
  mnemo::Principal who;
  switch (data[0] % 3) {
    case 0: who = {.name = "alice", .role = mnemo::Role::kUser}; break;
    case 1: who = {.name = "bob", .role = mnemo::Role::kUser}; break;
    default: who = {.name = "root", .role = mnemo::Role::kAdmin}; break;
  }
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::optional<std::string> out = server.dispatcher->HandleText(body, who);
  if (!out) return 0;
  const nlohmann::json r = nlohmann::json::parse(*out, nullptr, /*allow_exceptions=*/false);
  if (r.is_discarded()) Fail("the answer is not JSON: " + *out);
  if (r.is_array()) {
    if (r.empty()) Fail("an empty batch answer");
    for (const nlohmann::json& one : r) CheckResponse(one);
  } else {
    CheckResponse(r);
  }
  return 0;
}
