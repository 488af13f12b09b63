// MnemoStore with the real @langchain/langgraph: the namespace mapping, the
// BaseStore operations over both transports, and a StateGraph whose node
// stores a fact in one thread and recalls it from another.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { Annotation, BaseStore, MemorySaver, StateGraph, START, END } from "@langchain/langgraph";

import { MnemoClient } from "../dist/index.js";
import { MnemoStore, fromMnemoNamespace, toMnemoNamespace } from "../dist/langgraph.js";
import { transports } from "./helpers.mjs";

test("namespaces map to mnemo namespaces and back", () => {
  assert.equal(toMnemoNamespace(["users", "alice", "memories"]), "users.alice.memories");
  assert.equal(toMnemoNamespace(["users", "alice@example"]), "users.alice:40example");
  assert.equal(toMnemoNamespace(["a*b", "x y", "é"]), "a:2Ab.x:20y.:C3:A9");
  // A system namespace of mnemo (tool rules) is never produced.
  assert.equal(toMnemoNamespace(["tool-send_email"]), ":74ool-send_email");
  assert.equal(toMnemoNamespace(["tool_registry"]), ":74ool_registry");
  for (const ns of [["users", "alice@example"], ["a*b", "x y", "é"], ["tool-send_email"], ["x-1_2"]]) {
    const mapped = toMnemoNamespace(ns);
    assert.match(mapped, /^[A-Za-z0-9_.:*-]+$/);
    assert.deepEqual(fromMnemoNamespace(mapped), ns);
  }
  assert.deepEqual(fromMnemoNamespace("global"), ["global"]);
});

const all = await transports();

for (const { name, client, close } of all) {
  describe(`MnemoStore over ${name}`, () => {
    after(close);
    const store = new MnemoStore(client);

    test("is a BaseStore", () => {
      assert.ok(store instanceof BaseStore);
    });

    test("put, get, overwrite and delete", async () => {
      await store.put(["users", "alice@example"], "profile", { name: "Alice", age: 41 });
      const item = await store.get(["users", "alice@example"], "profile");
      assert.deepEqual(item.value, { name: "Alice", age: 41 });
      assert.deepEqual(item.namespace, ["users", "alice@example"]);
      assert.equal(item.key, "profile");
      assert.ok(item.createdAt instanceof Date && Math.abs(item.createdAt - Date.now()) < 60000);
      const raw = await client.get({ namespace: "users.alice:40example", key: "profile" });
      assert.deepEqual(JSON.parse(raw.content), { name: "Alice", age: 41 });
      await store.put(["users", "alice@example"], "profile", { name: "Alice", age: 42 });
      assert.equal((await store.get(["users", "alice@example"], "profile")).value.age, 42);
      await store.delete(["users", "alice@example"], "profile");
      assert.equal(await store.get(["users", "alice@example"], "profile"), null);
      await store.delete(["users", "alice@example"], "profile");
      assert.equal(await store.get(["nobody"], "nothing"), null);
    });

    test("search: mnemo's hybrid search under a namespace prefix, filters, paging", async () => {
      await store.put(["docs", "a"], "tea", { text: "Green tea is brewed at 80 degrees", kind: "drink", stars: 5 });
      await store.put(["docs", "a"], "bike", { text: "The bicycle needs new brake pads", kind: "chore", stars: 2 });
      await store.put(["docs", "b"], "coffee", { text: "Espresso is brewed under pressure", kind: "drink", stars: 4 });
      await store.put(["other"], "tea2", { text: "Black tea is brewed with boiling water", kind: "drink" });

      const tea = await store.search(["docs"], { query: "how is tea brewed" });
      assert.equal(tea[0].key, "tea");
      assert.ok(tea[0].score > 0);
      assert.ok(tea.every((it) => it.namespace[0] === "docs"), JSON.stringify(tea.map((it) => it.namespace)));
      assert.ok(!tea.some((it) => it.key === "tea2"));
      for (let i = 1; i < tea.length; i++) assert.ok(tea[i - 1].score >= tea[i].score);

      const onlyB = await store.search(["docs", "b"], { query: "brewed" });
      assert.deepEqual(onlyB.map((it) => it.key), ["coffee"]);

      const drinks = await store.search(["docs"], { filter: { kind: "drink" } });
      assert.deepEqual(drinks.map((it) => it.key).sort(), ["coffee", "tea"]);
      const good = await store.search(["docs"], { filter: { stars: { $gte: 4 } } });
      assert.deepEqual(good.map((it) => it.key).sort(), ["coffee", "tea"]);
      const everything = await store.search([], { limit: 100 });
      assert.ok(["tea", "bike", "coffee", "tea2"].every((k) => everything.some((it) => it.key === k)));
      const page = await store.search(["docs"], { limit: 1, offset: 1 });
      assert.equal(page.length, 1);
      const first = await store.search(["docs"], { limit: 1 });
      assert.notEqual(page[0].key, first[0].key);
    });

    test("a search is one memory.search over the namespace subtree, whatever the workspace holds", async () => {
      const calls = [];
      const spy = new Proxy(client, {
        get(target, prop) {
          const v = target[prop];
          if (typeof v !== "function") return v;
          return (...args) => {
            calls.push([prop, args[0]]);
            return v.apply(target, args);
          };
        },
      });
      const spied = new MnemoStore(spy, { prefix: ["spy"] });
      await spied.put(["t", "u"], "x", { text: "oolong tea leaves" });
      await spied.put(["tx"], "y", { text: "oolong tea outside the subtree" });
      calls.length = 0;
      const hits = await spied.search(["t"], { query: "oolong" });
      assert.deepEqual(calls.map(([m]) => m), ["search"]);
      assert.equal(calls[0][1].namespace_prefix, "spy.t");
      assert.deepEqual(hits.map((it) => it.key), ["x"]);  // spy.tx matched the prefix, not the labels
      assert.ok(hits[0].updatedAt instanceof Date && Math.abs(hits[0].updatedAt - Date.now()) < 60000);
      calls.length = 0;
      assert.deepEqual((await spied.search(["t"], { limit: 5 })).map((it) => it.key), ["x"]);
      assert.deepEqual(calls.map(([m, p]) => [m, p.namespace_prefix]), [["list", "spy.t"]]);
    });

    test("listNamespaces with prefix, suffix and maxDepth", async () => {
      await store.put(["proj", "x", "v1"], "k", { n: 1 });
      await store.put(["proj", "y", "v1"], "k", { n: 2 });
      await store.put(["proj", "y", "v2"], "k", { n: 3 });
      assert.deepEqual(await store.listNamespaces({ prefix: ["proj"] }), [
        ["proj", "x", "v1"], ["proj", "y", "v1"], ["proj", "y", "v2"],
      ]);
      assert.deepEqual(await store.listNamespaces({ prefix: ["proj"], suffix: ["v1"] }), [
        ["proj", "x", "v1"], ["proj", "y", "v1"],
      ]);
      assert.deepEqual(await store.listNamespaces({ prefix: ["proj"], maxDepth: 2 }), [["proj", "x"], ["proj", "y"]]);
      assert.deepEqual(await store.listNamespaces({ prefix: ["proj", "*", "v2"] }), [["proj", "y", "v2"]]);
      assert.deepEqual(await store.listNamespaces({ prefix: ["proj"], limit: 1, offset: 1 }), [["proj", "y", "v1"]]);
    });

    test("batch runs mixed operations in order", async () => {
      const results = await store.batch([
        { namespace: ["batch"], key: "a", value: { v: 1 } },
        { namespace: ["batch"], key: "a" },
        { namespace: ["batch"], key: "a", value: null },
        { namespace: ["batch"], key: "a" },
        { namespacePrefix: ["batch"], limit: 10, offset: 0 },
        { matchConditions: [{ matchType: "prefix", path: ["batch"] }], limit: 10, offset: 0 },
      ]);
      assert.equal(results[0], undefined);
      assert.deepEqual(results[1].value, { v: 1 });
      assert.equal(results[3], null);
      assert.deepEqual(results[4], []);
      assert.deepEqual(results[5], []);
    });

    test("a prefix option keeps one application's items apart", async () => {
      const app = new MnemoStore(client, { prefix: ["app1"] });
      await app.put(["notes"], "n", { text: "kept apart" });
      assert.deepEqual((await app.get(["notes"], "n")).namespace, ["notes"]);
      assert.equal((await client.get({ namespace: "app1.notes", key: "n" })).key, "n");
      assert.equal(await store.get(["notes"], "n"), null);
      assert.deepEqual(await app.listNamespaces(), [["notes"]]);
    });

    test("mnemo's refusals come through as MnemoError", async () => {
      await assert.rejects(store.put(["x".repeat(200)], "k", { v: 1 }), (e) => e.code === -32602 && e.field === "namespace");
    });
  });
}

test("a StateGraph stores a fact in one thread and recalls it in another", async () => {
  const [http, stdio] = await transports();
  await stdio.close();
  try {
    const store = new MnemoStore(http.client);
    const State = Annotation.Root({
      message: Annotation(),
      recalled: Annotation(),
    });
    const remember = async (state, config) => {
      const ns = ["memories", config.configurable.user_id];
      const fact = state.message.match(/^remember: (.*)$/)?.[1];
      if (fact) {
        await config.store.put(ns, `fact-${Date.now()}`, { text: fact });
        return { recalled: [] };
      }
      const items = await config.store.search(ns, { query: state.message, limit: 3 });
      return { recalled: items.map((it) => it.value.text) };
    };
    const graph = new StateGraph(State)
      .addNode("remember", remember)
      .addEdge(START, "remember")
      .addEdge("remember", END)
      .compile({ checkpointer: new MemorySaver(), store });

    await graph.invoke(
      { message: "remember: Alice's favourite editor is Helix" },
      { configurable: { thread_id: "thread-1", user_id: "alice" } },
    );
    const out = await graph.invoke(
      { message: "which editor does Alice like" },
      { configurable: { thread_id: "thread-2", user_id: "alice" } },
    );
    assert.deepEqual(out.recalled, ["Alice's favourite editor is Helix"]);
    const other = await graph.invoke(
      { message: "which editor does Alice like" },
      { configurable: { thread_id: "thread-3", user_id: "bob" } },
    );
    assert.deepEqual(other.recalled, []);
    const listed = await http.client.list({ namespace: "memories.alice" });
    assert.equal(listed.items.length, 1);
    assert.equal(JSON.parse(listed.items[0].content).text, "Alice's favourite editor is Helix");
  } finally {
    await http.close();
  }
});
