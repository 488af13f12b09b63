// mnemo driven by the official MCP client SDK (@modelcontextprotocol/sdk,
// pinned in package-lock.json), over stdio (`mnemo mcp`) and streamable HTTP
// (`mnemo serve`, POST /mcp with a bearer token and ACL on).
//   node sdk_client.mjs MNEMO_BINARY SCRATCH_DIR
// Exits non-zero with a message on the first failed check.
import { mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { startDaemon } from "./start_daemon.mjs";

const [binary, scratch] = process.argv.slice(2);
assert.ok(binary && scratch, "usage: node sdk_client.mjs MNEMO_BINARY SCRATCH_DIR");

function text(result) {
  return result.content.map((c) => c.text).join("\n");
}

// The scenario of the issue, on one connected client.
async function scenario(client, label, { acl }) {
  assert.equal(client.getServerVersion().name, "mnemo", `${label}: server name`);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  const expected = ["episodic_search", "memory_forget", "memory_get", "memory_search",
    "memory_store", "tool_rule_list", "tool_rule_put"];
  // Each principal is offered exactly what it may call: under ACL recall is
  // off, and MEMORY.md (every principal's) is an admin's; `acl` is a user.
  if (!acl) expected.push("memory_recall", "update_memory_md");
  assert.deepEqual(names, expected.sort(), `${label}: tools/list`);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", `${label}: ${t.name} input schema`);
    assert.equal(t.outputSchema?.type, "object", `${label}: ${t.name} output schema`);
  }

  // The SDK checks every structuredContent against the tool's output schema.
  const stored = await client.callTool({
    name: "memory_store",
    arguments: { key: "sdk-drink", value: "The user drinks oolong tea every morning" },
  });
  assert.equal(stored.isError, false, `${label}: store: ${text(stored)}`);
  assert.equal(stored.structuredContent.key, "sdk-drink");

  const found = await client.callTool({ name: "memory_search", arguments: { query: "oolong" } });
  assert.equal(found.isError, false, `${label}: search: ${text(found)}`);
  assert.equal(found.structuredContent.results[0]?.key, "sdk-drink", `${label}: search hit`);
  assert.match(text(found), /oolong/);

  const rule = await client.callTool({
    name: "tool_rule_put",
    arguments: { tool_name: "send_email", rule: "Never email Sarah", priority: "critical" },
  });
  assert.equal(rule.isError, false, `${label}: tool_rule_put: ${text(rule)}`);
  const rules = await client.callTool({ name: "tool_rule_list", arguments: { tool_name: "send_email" } });
  assert.equal(rules.structuredContent.result.length, 1, `${label}: tool_rule_list`);

  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(), ["mnemo://profile", "mnemo://rules/pinned"]);
  const pinned = await client.readResource({ uri: "mnemo://rules/pinned" });
  assert.match(pinned.contents[0].text, /Never email Sarah/, `${label}: pinned rules resource`);
  await client.readResource({ uri: "mnemo://profile" });

  const forgotten = await client.callTool({ name: "memory_forget", arguments: { key: "sdk-drink" } });
  assert.equal(forgotten.structuredContent.forgotten, true, `${label}: forget`);

  // A failing tool is a result with isError and a readable message.
  const missing = await client.callTool({ name: "memory_get", arguments: { key: "sdk-drink" } });
  assert.equal(missing.isError, true, `${label}: get of a forgotten key`);
  assert.match(text(missing), /No memory entry found for key: sdk-drink/);
  const bad = await client.callTool({ name: "memory_store", arguments: { key: "no-value" } });
  assert.equal(bad.isError, true, `${label}: store without value`);
  assert.match(text(bad), /value/);

  // An unknown tool is a protocol error.
  await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /unknown tool/);
  await client.ping();
}

async function overStdio() {
  const workspace = join(scratch, "stdio-ws");
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--workspace", workspace, "mcp"],
    env: { ...process.env },
    stderr: "inherit",
  });
  const client = new Client({ name: "mnemo-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  await scenario(client, "stdio", { acl: false });
  await client.close();
}

async function overHttp() {
  const workspace = join(scratch, "http-ws");
  mkdirSync(workspace, { recursive: true });
  const sha = (t) => createHash("sha256").update(t).digest("hex");
  writeFileSync(join(workspace, "mnemo.toml"),
    `[memory]\nacl_enabled = true\n\n` +
    `[[security.tokens]]\nprincipal = "alice"\nrole = "user"\nsha256 = "${sha("alice-token")}"\n\n` +
    `[[security.tokens]]\nprincipal = "bob"\nrole = "user"\nsha256 = "${sha("bob-token")}"\n`);
  const { port, child } = await startDaemon(binary, workspace);
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const connect = async (token) => {
    const client = new Client({ name: "mnemo-sdk-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return { client, transport };
  };
  try {
    const alice = await connect("alice-token");
    assert.ok(alice.transport.sessionId, "http: a session id");
    assert.equal(alice.transport.protocolVersion, LATEST_PROTOCOL_VERSION, "http: version");
    await scenario(alice.client, "http", { acl: true });

    // ACL applies as over JSON-RPC: bob never sees alice's private memory.
    await alice.client.callTool({ name: "memory_store",
      arguments: { key: "alice-secret", value: "Alice's locker code is in the blue notebook" } });
    const bob = await connect("bob-token");
    const peek = await bob.client.callTool({ name: "memory_get", arguments: { key: "alice-secret" } });
    assert.equal(peek.isError, true, "http: bob reads alice's memory");
    const search = await bob.client.callTool({ name: "memory_search",
      arguments: { query: "locker notebook" } });
    assert.equal(search.structuredContent.results.length, 0, "http: bob's search");
    const pinned = await bob.client.readResource({ uri: "mnemo://rules/pinned" });
    assert.doesNotMatch(pinned.contents[0].text, /Sarah/, "http: bob's pinned rules");

    // Without a valid token nothing connects.
    await assert.rejects(connect("wrong-token"), /401|Unauthorized|invalid bearer token/i);

    await alice.transport.terminateSession();
    await alice.client.close();
    await bob.client.close();
  } finally {
    child.kill("SIGTERM");
  }
}

// Streamable HTTP over TLS (issue 42): the daemon's certificate comes from
// the test's own CA, which the run script makes Node trust.
async function overHttps(certs) {
  const workspace = join(scratch, "https-ws");
  mkdirSync(workspace, { recursive: true });
  const sha = createHash("sha256").update("tls-token").digest("hex");
  writeFileSync(join(workspace, "mnemo.toml"),
    `[server]\ntls_cert = "${join(certs, "server.pem")}"\n` +
    `tls_key = "${join(certs, "server.key")}"\n\n` +
    `[[security.tokens]]\nprincipal = "alice"\nrole = "admin"\nsha256 = "${sha}"\n`);
  const { child, url } = await startDaemon(binary, workspace);
  try {
    assert.match(url, /^https:/, "https: the daemon serves TLS");
    const client = new Client({ name: "mnemo-sdk-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: "Bearer tls-token" } },
    });
    await client.connect(transport);
    await scenario(client, "https", { acl: false });
    await transport.terminateSession();
    await client.close();
  } finally {
    child.kill("SIGTERM");
  }
}

try {
  await overStdio();
  console.log("sdk: stdio ok");
  await overHttp();
  console.log("sdk: streamable HTTP ok");
  assert.ok(process.env.MNEMO_TEST_CERTS, "set MNEMO_TEST_CERTS (run_sdk_test.sh makes them)");
  await overHttps(process.env.MNEMO_TEST_CERTS);
  console.log("sdk: streamable HTTP over https ok");
} catch (e) {
  console.error(`sdk: FAILED: ${e.stack ?? e}`);
  process.exit(1);
}
