// What the transports do around the answer: the bearer token (a daemon
// with [[security.tokens]]), retries of reads but not writes (a proxy in
// front of the real daemon that drops, delays or refuses requests),
// timeouts, and the stdio child's options and failures.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { MnemoClient, MnemoError, MnemoTransportError, READ_METHODS, METHODS } from "../dist/index.js";
import { binary, daemon, sha256, workspace } from "./helpers.mjs";

const TOKEN = "test-token-7f3a9c";

// A loopback proxy: `plan(method, n)` decides what the n-th request (from 1)
// of a method gets: "forward", "drop" (the connection is cut), "hang",
// "503", or "refuse401". Records every request's method and Authorization.
async function proxy(target) {
  const seen = [];
  let plan = () => "forward";
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const method = JSON.parse(body).method;
    seen.push({ method, authorization: req.headers.authorization });
    const action = plan(method, seen.filter((s) => s.method === method).length);
    if (action === "drop") return req.socket.destroy();
    if (action === "hang") return;
    if (action === "503") {
      res.writeHead(503, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32005, message: "queue full" } }));
    }
    const answer = await fetch(`${target}/rpc`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(req.headers.authorization ? { Authorization: req.headers.authorization } : {}) },
      body,
    });
    res.writeHead(answer.status, { "Content-Type": "application/json" });
    res.end(await answer.text());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    count: (method) => seen.filter((s) => s.method === method).length,
    setPlan: (p) => {
      plan = p;
      seen.length = 0;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test("the read set holds only methods of the table, and no write", () => {
  for (const m of READ_METHODS) assert.ok(METHODS[m], `${m} is not a method`);
  for (const m of ["memory.store", "memory.forget", "memory.tool_call", "memory.turn_complete", "memory.doc_put", "memory.profile_put", "memory.graph_upsert", "memory.hygiene_run", "memory.mark_useful"]) {
    assert.ok(!READ_METHODS.has(m), `${m} must not be retried`);
  }
  assert.ok(READ_METHODS.has("memory.search") && READ_METHODS.has("memory.get"));
});

describe("bearer token", () => {
  let served;
  let front;
  before(async () => {
    served = await daemon(workspace(
      `[[security.tokens]]\nprincipal = "alice"\nrole = "admin"\nsha256 = "${sha256(TOKEN)}"\n`,
    ));
    front = await proxy(served.url);
  });
  after(async () => {
    await front.close();
    await served.stop();
  });

  test("is sent as Authorization: Bearer and acts as its principal", async () => {
    const client = MnemoClient.http({ url: front.url, token: TOKEN });
    const stored = await client.store({ key: "who", value: "stored with a token" });
    assert.equal(stored.created, true);
    assert.equal((await client.get({ key: "who" })).owner, "alice");
    assert.deepEqual([...new Set(front.seen.map((s) => s.authorization))], [`Bearer ${TOKEN}`]);
  });

  test("a wrong or missing token is refused with -32002, not retried", async () => {
    for (const token of ["wrong-token", undefined]) {
      front.setPlan(() => "forward");
      const client = MnemoClient.http({ url: front.url, token, retryDelayMs: 1 });
      await assert.rejects(client.get({ key: "who" }), (e) =>
        e instanceof MnemoError && !(e instanceof MnemoTransportError) && e.code === -32002 && /bearer token/.test(e.message));
      assert.equal(front.count("memory.get"), 1);
    }
  });
});

describe("retries", () => {
  let served;
  let front;
  let direct;
  before(async () => {
    served = await daemon();
    front = await proxy(served.url);
    direct = MnemoClient.http(served.url);
    await direct.store({ key: "seed", value: "The office plant is a fern" });
  });
  after(async () => {
    await front.close();
    await served.stop();
  });

  test("a read whose connection is cut is sent again and answers", async () => {
    front.setPlan((method, n) => (n === 1 ? "drop" : "forward"));
    const client = MnemoClient.http({ url: front.url, retryDelayMs: 1 });
    const found = await client.search({ query: "office plant" });
    assert.equal(found.results[0]?.key, "seed");
    assert.equal(front.count("memory.search"), 2);
    assert.equal((await client.get({ key: "seed" })).content, "The office plant is a fern");
    assert.equal(front.count("memory.get"), 2);
  });

  test("a write whose connection is cut is not sent again", async () => {
    front.setPlan((method, n) => (n === 1 ? "drop" : "forward"));
    const client = MnemoClient.http({ url: front.url, retryDelayMs: 1 });
    await assert.rejects(client.store({ key: "once", value: "sent once" }), (e) =>
      e instanceof MnemoTransportError && e.code === -32005);
    assert.equal(front.count("memory.store"), 1);
    await assert.rejects(direct.get({ key: "once" }), (e) => e.code === -32001);
    await assert.rejects(client.toolCall({ name: "memory_store", arguments: { key: "x", value: "y" } }), MnemoTransportError);
    assert.equal(front.count("memory.tool_call"), 1);
  });

  test("a read is tried 1 + retries times, then fails", async () => {
    front.setPlan(() => "drop");
    await assert.rejects(MnemoClient.http({ url: front.url, retryDelayMs: 1 }).stats(), MnemoTransportError);
    assert.equal(front.count("memory.stats"), 3);
    front.setPlan(() => "drop");
    await assert.rejects(MnemoClient.http({ url: front.url, retries: 0 }).stats(), MnemoTransportError);
    assert.equal(front.count("memory.stats"), 1);
  });

  test("503 is retried for a read, returned for a write", async () => {
    front.setPlan((method, n) => (n === 1 ? "503" : "forward"));
    const client = MnemoClient.http({ url: front.url, retryDelayMs: 1 });
    assert.equal(typeof (await client.stats()).entries, "number");
    assert.equal(front.count("memory.stats"), 2);
    await assert.rejects(client.store({ key: "busy", value: "v" }), (e) => e.code === -32005 && e.message === "queue full");
    assert.equal(front.count("memory.store"), 1);
  });

  test("a request without an answer times out", async () => {
    front.setPlan(() => "hang");
    const client = MnemoClient.http({ url: front.url, timeoutMs: 150, retries: 1, retryDelayMs: 1 });
    const started = Date.now();
    await assert.rejects(client.list(), (e) => e instanceof MnemoTransportError && /no answer within 150 ms/.test(e.message));
    assert.equal(front.count("memory.list"), 2);
    assert.ok(Date.now() - started < 5000);
  });

  test("a refused connection is a MnemoTransportError", async () => {
    const closed = await proxy(served.url);
    await closed.close();
    await assert.rejects(MnemoClient.http({ url: closed.url, retryDelayMs: 1 }).stats(), (e) =>
      e instanceof MnemoTransportError && /ECONNREFUSED/.test(e.message));
  });
});

describe("stdio", () => {
  test("--principal acts as that principal under ACL", async () => {
    const dir = workspace(`[memory]\nacl_enabled = true\n`);
    const bob = MnemoClient.stdio({ binary, workspace: dir, principal: "bob" });
    try {
      await bob.store({ key: "mine", value: "Bob's note" });
      assert.equal((await bob.get({ key: "mine" })).owner, "bob");
    } finally {
      await bob.close();
    }
    const carol = MnemoClient.stdio({ binary, workspace: dir, principal: "carol" });
    try {
      await assert.rejects(carol.get({ key: "mine" }), (e) => e.code === -32001);
    } finally {
      await carol.close();
    }
  });

  test("a binary that cannot start and a closed child fail requests", async () => {
    const missing = MnemoClient.stdio({ binary: "/nonexistent/mnemo", workspace: workspace() });
    await assert.rejects(missing.stats(), (e) => e instanceof MnemoTransportError && /could not start/.test(e.message));
    const child = MnemoClient.stdio({ binary, workspace: workspace() });
    assert.equal(typeof (await child.stats()).entries, "number");
    await child.close();
    await assert.rejects(child.stats(), (e) => e instanceof MnemoTransportError && /exited/.test(e.message));
  });
});
