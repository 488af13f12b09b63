// The Vercel AI SDK's own tool loop (generateText with stopWhen) over
// mnemo's tools, against a fake model: a loopback server speaking the OpenAI
// chat completions protocol that calls memory_store, then memory_search,
// then answers in text.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs } from "ai";

import { mnemoTools } from "../dist/ai.js";
import { transports } from "./helpers.mjs";

function completion(message, finish) {
  return {
    id: `chatcmpl-${Date.now()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "fake-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function toolCall(id, name, args) {
  return completion(
    { content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] },
    "tool_calls",
  );
}

// The model's three turns; each request is recorded.
async function fakeModel() {
  const requests = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const request = JSON.parse(body);
    requests.push({ path: req.url, request });
    const turn = requests.length;
    const answer =
      turn === 1
        ? toolCall("call_1", "memory_store", { key: "user_editor", value: "The user prefers Helix over Vim" })
        : turn === 2
          ? toolCall("call_2", "memory_search", { query: "which editor does the user prefer" })
          : completion({ content: "You prefer Helix." }, "stop");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answer));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

test("generateText runs mnemo's tools in its loop: store, then search finds it", async () => {
  const [http, stdio] = await transports();
  await http.close();
  const model = await fakeModel();
  try {
    const client = stdio.client;
    const tools = await mnemoTools(client);
    assert.ok(tools.memory_store && tools.memory_search && tools.memory_get, Object.keys(tools).join());
    const openai = createOpenAI({ baseURL: model.url, apiKey: "not-a-key" });
    const result = await generateText({
      model: openai.chat("fake-model"),
      tools,
      stopWhen: stepCountIs(5),
      prompt: "Remember that I prefer Helix, then tell me what I prefer.",
    });

    assert.equal(result.text, "You prefer Helix.");
    assert.equal(result.steps.length, 3);
    assert.equal(model.requests.length, 3);
    assert.ok(model.requests.every((r) => r.path === "/v1/chat/completions"));
    // The model was offered the tools with mnemo's JSON Schemas.
    const offered = model.requests[0].request.tools.map((t) => t.function.name);
    assert.ok(offered.includes("memory_store") && offered.includes("memory_search"), offered.join());
    const storeTool = model.requests[0].request.tools.find((t) => t.function.name === "memory_store");
    assert.deepEqual(storeTool.function.parameters.required, ["key", "value"]);

    // mnemo received the store ...
    assert.equal((await client.get({ key: "user_editor" })).content, "The user prefers Helix over Vim");
    // ... and the search's result went back to the model.
    const toolMessages = model.requests[2].request.messages.filter((m) => m.role === "tool");
    assert.equal(toolMessages.length, 2);
    assert.equal(toolMessages[1].tool_call_id, "call_2");
    assert.match(toolMessages[1].content, /user_editor: .*Helix/);
    const searched = result.steps[1].toolResults[0];
    assert.equal(searched.toolName, "memory_search");
    assert.match(String(searched.output), /Helix/);
  } finally {
    await model.close();
    await stdio.close();
  }
});

test("a failing tool hands the model an error it can act on", async () => {
  const [http, stdio] = await transports();
  await stdio.close();
  try {
    const tools = await mnemoTools(http.client, { only: ["memory_get"] });
    assert.deepEqual(Object.keys(tools), ["memory_get"]);
    const out = await tools.memory_get.execute({ key: "never-stored" }, { toolCallId: "c", messages: [] });
    assert.match(out, /^error: /);
  } finally {
    await http.close();
  }
});
