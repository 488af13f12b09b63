// The client over https: a daemon with server.tls_cert from the test's own
// CA (tests/clients/make_test_cert.sh; the run script passes its folder as
// MNEMO_TEST_CERTS and makes Node trust the CA through NODE_EXTRA_CA_CERTS).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { MnemoClient } from "../dist/index.js";
import { daemon, sha256, workspace } from "./helpers.mjs";

const certs = process.env.MNEMO_TEST_CERTS;

test("store and search over https with a token", { skip: !certs && "MNEMO_TEST_CERTS unset" },
  async () => {
    const served = await daemon(workspace(
      `[server]\ntls_cert = "${join(certs, "server.pem")}"\n` +
      `tls_key = "${join(certs, "server.key")}"\n\n` +
      `[[security.tokens]]\nprincipal = "alice"\nrole = "admin"\n` +
      `sha256 = "${sha256("ts-tls-token")}"\n`));
    try {
      assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const client = MnemoClient.http({ url: served.url, token: "ts-tls-token", timeoutMs: 10000 });
      await client.store({ key: "tls", value: "stored over https" });
      const { results } = await client.search({ query: "https" });
      assert.equal(results[0]?.key, "tls");
      await client.close();
      // Plain http to the same port is refused with a hint, not served.
      const plain = MnemoClient.http({ url: served.url.replace("https:", "http:"),
        token: "ts-tls-token", timeoutMs: 10000, retries: 0 });
      await assert.rejects(plain.stats(), /https:\/\//);
      await plain.close();
    } finally {
      await served.stop();
    }
  });
