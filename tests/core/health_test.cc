// memory.health through the administration service (issue 20, the
// inspector's health page): what the store, the embedder and the audit log
// look like, for an admin only.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

TEST(Health, DescribesTheStoreTheSpacesAndTheAuditTailForAnAdminOnly) {
  testing::TempDir dir;
  Config config;
  config.memory.acl_enabled = true;
  config.security.audit.enabled = true;
  auto engine = Engine::Open({.workspace = dir.path(), .config = config});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const Principal admin{"root", Role::kAdmin};
  const Principal user{"alice", Role::kUser};
  ASSERT_TRUE((*engine)->memory().Store(user, {.key = "editor", .content = "Helix over Vim"}).ok());
  Admin& admin_service = (*engine)->admin();

  auto refused = admin_service.Health(user, 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);

  auto health = admin_service.Health(admin, 2);
  ASSERT_TRUE(health.ok()) << health.status().ToString();
  EXPECT_EQ(health->backend, "sqlite");
  EXPECT_GT(health->schema_version, 0);
  EXPECT_EQ(health->embedding_provider, "hash");
  EXPECT_EQ(health->embedder_signature, "hash-v2-384");
  EXPECT_EQ(health->embedder_state, "ok");
  ASSERT_EQ(health->spaces.size(), 1u);
  EXPECT_EQ(health->spaces[0].signature, "hash-v2-384");
  EXPECT_EQ(health->spaces[0].dimensions, 384);
  EXPECT_EQ(health->spaces[0].vectors, 1);
  EXPECT_EQ(health->spaces[0].kind, "flat");
  // Hygiene ran at open (due: it never ran), off the opening thread.
  for (int i = 0; i < 200 && !health->hygiene_last_scheduled_run; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    health = admin_service.Health(admin, 2);
    ASSERT_TRUE(health.ok());
  }
  EXPECT_TRUE(health->hygiene_last_scheduled_run.has_value());
  EXPECT_TRUE(health->audit_enabled);
  // The last two lines, oldest first, addresses only (the calls above wrote
  // lines of their own: they come before these).
  for (int i = 0; i < 3; ++i) {
    admin_service.Audit(user, {.method = "memory.store",
                               .ns = "global",
                               .key = "k" + std::to_string(i),
                               .outcome = "ok"});
  }
  health = admin_service.Health(admin, 2);
  ASSERT_TRUE(health.ok());
  ASSERT_EQ(health->audit_tail.size(), 2u);
  EXPECT_NE(health->audit_tail[0].find("\"k1\""), std::string::npos) << health->audit_tail[0];
  EXPECT_NE(health->audit_tail[1].find("\"k2\""), std::string::npos) << health->audit_tail[1];
  EXPECT_EQ(health->audit_tail[1].find("Helix"), std::string::npos);
}

}  // namespace
}  // namespace mnemo
