#include "context/tool_registry.h"

#include <exception>
#include <mutex>
#include <utility>

#include "text/strip.h"

namespace mnemo::context {

std::string_view ToolSourceName(ToolSource source) {
  switch (source) {
    case ToolSource::kConfig: return "config";
    case ToolSource::kStored: return "registered";
    case ToolSource::kCode: return "code";
  }
  return "config";
}

ToolRegistry::ToolRegistry(NameNormalizer normalize) : normalize_(std::move(normalize)) {}

std::string ToolRegistry::Key(std::string_view name) const {
  return normalize_ ? normalize_(name) : std::string(name);
}

void ToolRegistry::Put(ToolSource source, ToolSpec spec) {
  spec.name = Key(spec.name);
  auto shared = std::make_shared<const ToolSpec>(std::move(spec));
  std::unique_lock lock(mu_);
  layers_[static_cast<size_t>(source)].insert_or_assign(shared->name, std::move(shared));
}

void ToolRegistry::ReplaceAll(ToolSource source, std::vector<ToolSpec> specs) {
  Layer layer;
  for (ToolSpec& spec : specs) {
    spec.name = Key(spec.name);
    auto shared = std::make_shared<const ToolSpec>(std::move(spec));
    layer.insert_or_assign(shared->name, std::move(shared));
  }
  std::unique_lock lock(mu_);
  layers_[static_cast<size_t>(source)] = std::move(layer);
}

std::shared_ptr<const ToolSpec> ToolRegistry::Find(std::string_view name) const {
  const std::string key = Key(name);
  std::shared_lock lock(mu_);
  for (auto layer = layers_.rbegin(); layer != layers_.rend(); ++layer) {
    if (auto it = layer->find(key); it != layer->end()) return it->second;
  }
  return nullptr;
}

std::vector<ToolRegistry::Listed> ToolRegistry::All() const {
  std::map<std::string, Listed, std::less<>> merged;
  {
    std::shared_lock lock(mu_);
    for (size_t i = 0; i < layers_.size(); ++i) {
      for (const auto& [name, spec] : layers_[i]) {
        merged.insert_or_assign(name, Listed{spec, static_cast<ToolSource>(i)});
      }
    }
  }
  std::vector<Listed> out;
  out.reserve(merged.size());
  for (auto& [name, listed] : merged) out.push_back(std::move(listed));
  return out;
}

namespace {

// A caller's function is third-party code: nothing it throws escapes, it is
// a cleaner failure like any other.
Result<std::string> CallCleaner(const ToolCleanerFn& fn, std::string_view output) {
  try {
    return fn(output);
  } catch (const std::exception& e) {
    return Internal(std::string("cleaner threw: ") + e.what());
  } catch (...) {
    return Internal("cleaner threw");
  }
}

}  // namespace

text::CleanedOutput CleanToolOutput(const ToolSpec& spec, std::string_view output) {
  if (!spec.cleaner_fn) return spec.cleaner.CleanOrFallback(output);
  Result<std::string> cleaned = CallCleaner(spec.cleaner_fn, output);
  if (!cleaned.ok()) {
    return {.text = std::string(output), .failed = true, .reason = cleaned.status().message()};
  }
  if (text::IsBlank(*cleaned)) {
    return {.text = std::string(output), .failed = true, .reason = "cleaner produced empty text"};
  }
  return {.text = std::move(cleaned).value()};
}

}  // namespace mnemo::context
