// Type-checked (tsc -p tsconfig.check.json, no output): the README's code
// compiles against the built declarations, and the generated types catch
// mistakes.
import { Annotation, MemorySaver, StateGraph, START, END } from "@langchain/langgraph";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs } from "ai";

import { MnemoClient, MnemoError, type SearchResult } from "@mnemo/client";
import { mnemoTools } from "@mnemo/client/ai";
import { MnemoStore } from "@mnemo/client/langgraph";

export async function readme(): Promise<void> {
  const mnemo = MnemoClient.http({ url: "http://127.0.0.1:8765", token: process.env.MNEMO_TOKEN });
  await mnemo.store({ key: "user_editor", value: "The user prefers Helix over Vim", category: "core" });
  const { results } = await mnemo.search({ query: "which editor", max_results: 5 });
  console.log(results?.[0]?.key, results?.[0]?.score);
  try {
    await mnemo.get({ key: "missing" });
  } catch (e) {
    if (e instanceof MnemoError) console.log(e.code, e.field, e.message);
  }

  const store = new MnemoStore(MnemoClient.http("http://127.0.0.1:8765"));
  const State = Annotation.Root({ message: Annotation<string>(), recalled: Annotation<string[]>() });
  const graph = new StateGraph(State)
    .addNode("remember", async (state, config) => {
      const ns = ["memories", config.configurable?.user_id as string];
      if (state.message.startsWith("remember: ")) {
        await config.store!.put(ns, crypto.randomUUID(), { text: state.message.slice(10) });
        return { recalled: [] };
      }
      const items = await config.store!.search(ns, { query: state.message, limit: 3 });
      return { recalled: items.map((item) => item.value.text as string) };
    })
    .addEdge(START, "remember")
    .addEdge("remember", END)
    .compile({ checkpointer: new MemorySaver(), store });
  await graph.invoke({ message: "which editor?" }, { configurable: { thread_id: "2", user_id: "alice" } });

  const tools = await mnemo.tools();
  const first = tools[0];
  if (first) {
    const { content, is_error } = await mnemo.dispatch(first.function.name, "{}");
    console.log(content, is_error);
  }
  await generateText({
    model: createOpenAI({ apiKey: "k" }).chat("gpt-4o-mini"),
    tools: await mnemoTools(mnemo),
    stopWhen: stepCountIs(5),
    prompt: "Remember that I prefer Helix.",
  });

  const typed: SearchResult = await mnemo.call("memory.search", { query: "x" });
  console.log(typed.degraded);
  // @ts-expect-error memory.store needs a key
  await mnemo.store({ value: "no key" });
  // @ts-expect-error unknown parameters are refused (additionalProperties: false)
  await mnemo.search({ query: "x", maxResults: 3 });
  // @ts-expect-error visibility is private or public
  await mnemo.store({ key: "k", value: "v", visibility: "secret" });
  await mnemo.close();
}
