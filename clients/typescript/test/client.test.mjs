// The client against the real binary over both transports: every generated
// function sends its method, a store/get/search round trip, typed errors.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { ErrorCode, METHODS, MnemoClient, MnemoError } from "../dist/index.js";
import { transports } from "./helpers.mjs";

test("every generated function sends its own method with the params given", async () => {
  const sent = [];
  const client = new MnemoClient({
    request: async (method, params) => (sent.push({ method, params }), { ok: true }),
    close: async () => {},
  });
  for (const [method, info] of Object.entries(METHODS)) {
    const params = { probe: method };
    assert.deepEqual(await client[info.fn](params), { ok: true });
    assert.deepEqual(sent.pop(), { method, params });
  }
  await client.stats();
  assert.deepEqual(sent.pop(), { method: "memory.stats", params: {} });
});

const all = await transports();

for (const { name, client, close } of all) {
  describe(`over ${name}`, () => {
    after(close);

    test("store, get and search round trip", async () => {
      const stored = await client.store({
        key: "user_editor",
        value: "The user prefers Helix over Vim",
        namespace: "prefs",
        tags: ["editor"],
      });
      assert.equal(stored.created, true);
      assert.equal(stored.namespace, "prefs");
      const got = await client.get({ key: "user_editor", namespace: "prefs" });
      assert.equal(got.content, "The user prefers Helix over Vim");
      assert.deepEqual(got.tags, ["editor"]);
      const found = await client.search({ query: "which editor does the user like", namespace: "prefs" });
      assert.equal(found.results[0]?.key, "user_editor");
      assert.ok(found.results[0].score > 0);
      const elsewhere = await client.search({ query: "Helix", namespace: "other" });
      assert.equal(elsewhere.results.length, 0);
      const again = await client.store({ key: "user_editor", value: "Helix, still", namespace: "prefs" });
      assert.equal(again.created, false);
    });

    test("call() reaches any method by name", async () => {
      const stats = await client.call("memory.stats");
      assert.equal(typeof stats.entries, "number");
      assert.ok(stats.entries >= 1);
      const methods = await client.call("memory.methods", {});
      assert.ok(methods.methods.some((m) => m.name === "memory.turn_complete"));
    });

    test("bad params are a MnemoError with code -32602 and the field", async () => {
      const e = await client.store({ value: "no key" }).then(
        () => assert.fail("memory.store without key succeeded"),
        (err) => err,
      );
      assert.ok(e instanceof MnemoError, String(e));
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.equal(e.code, -32602);
      assert.equal(e.field, "key");
      assert.equal(e.data.field, "key");
      assert.match(e.message, /key/);
    });

    test("a missing entry is -32001 and an unknown method -32601", async () => {
      await assert.rejects(client.get({ key: "never-stored" }), (e) => e instanceof MnemoError && e.code === -32001 && e.field === undefined);
      await assert.rejects(client.call("memory.no_such_method"), (e) => e instanceof MnemoError && e.code === -32601);
    });

    test("overlapping requests get their own answers", async () => {
      const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
      await Promise.all(keys.map((key) => client.store({ key, value: `value of ${key}`, namespace: "many" })));
      const got = await Promise.all(keys.map((key) => client.get({ key, namespace: "many" })));
      assert.deepEqual(got.map((g) => g.content), keys.map((k) => `value of ${k}`));
    });

    test("tools() lists the LLM tools and dispatch() runs one", async () => {
      const tools = await client.tools();
      const names = tools.map((t) => t.function.name);
      assert.ok(names.includes("memory_store") && names.includes("memory_search"), names.join());
      assert.equal(tools[0].type, "function");
      const stored = await client.dispatch("memory_store", { key: "tool_fact", value: "Tea at five" });
      assert.equal(stored.is_error, false);
      const found = await client.dispatch("memory_search", JSON.stringify({ query: "tea" }));
      assert.equal(found.is_error, false);
      assert.match(found.content, /tool_fact: \*\*Tea\*\* at five/);
      assert.equal(found.data.results[0].key, "tool_fact");
      const bad = await client.dispatch("memory_store", "{not json");
      assert.equal(bad.is_error, true);
    });
  });
}
