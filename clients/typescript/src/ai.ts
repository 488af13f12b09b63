// mnemo's LLM tools for the Vercel AI SDK (`ai`, v5):
//   generateText({ model, tools: await mnemoTools(client), stopWhen: stepCountIs(5), prompt })
import { jsonSchema, tool, type ToolSet } from "ai";

import type { MnemoClient } from "./client.js";

export interface MnemoToolsOptions {
  /** Only these tools (by name, e.g. ["memory_store", "memory_search"]). */
  only?: string[];
}

/**
 * The tools memory.tools_schema lists, as an AI SDK ToolSet: each has the
 * tool's JSON Schema as its input schema and runs through memory.tool_call.
 * The model gets the tool's text (`content`); a failed tool (bad arguments
 * included) gives the model "error: ..." so it can retry, as mnemo means it.
 */
export async function mnemoTools(client: MnemoClient, options: MnemoToolsOptions = {}): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const t of await client.tools()) {
    const { name, description, parameters } = t.function;
    if (options.only && !options.only.includes(name)) continue;
    tools[name] = tool({
      description,
      inputSchema: jsonSchema(parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown) => {
        const result = await client.dispatch(name, args);
        return result.is_error ? `error: ${result.content ?? ""}` : (result.content ?? "");
      },
    });
  }
  return tools;
}
