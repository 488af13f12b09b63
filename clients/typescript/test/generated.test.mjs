// The generated file is current: regenerated in memory from the binary's
// `mnemo docs schema` (and the committed docs/schema.json when present), it
// must equal src/generated.ts byte for byte; and the client has one
// function per method of the binary's method table.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { GENERATED_PATH, functionName, generate } from "../scripts/generate.mjs";
import { METHODS, MnemoClient } from "../dist/index.js";
import { binary } from "./helpers.mjs";

const committed = readFileSync(GENERATED_PATH, "utf8");
const schema = JSON.parse(execFileSync(binary, ["docs", "schema"], { encoding: "utf8" }));

test("src/generated.ts is what the binary's schema generates (else run npm run generate)", () => {
  assert.equal(generate(schema), committed);
});

test("src/generated.ts is what docs/schema.json generates", (t) => {
  const path = new URL("../../../docs/schema.json", import.meta.url);
  if (!existsSync(path)) return t.skip("docs/schema.json is not beside the package");
  assert.equal(generate(JSON.parse(readFileSync(path, "utf8"))), committed);
});

test("a changed method table makes the generated file stale", () => {
  const changed = structuredClone(schema);
  changed.methods[0].params.properties.key.description = "changed";
  assert.notEqual(generate(changed), committed);
});

test("function names are the method names in camelCase without memory.", () => {
  assert.equal(functionName("memory.turn_complete"), "turnComplete");
  assert.equal(functionName("memory.tool_rules_for_prompt"), "toolRulesForPrompt");
  assert.equal(functionName("memory.store"), "store");
});

test("every method of the binary has a typed function on the client", () => {
  assert.ok(schema.methods.length >= 40, `only ${schema.methods.length} methods`);
  assert.deepEqual(Object.keys(METHODS).sort(), schema.methods.map((m) => m.name).sort());
  for (const m of schema.methods) {
    const fn = functionName(m.name);
    assert.equal(METHODS[m.name].fn, fn);
    assert.equal(typeof MnemoClient.prototype[fn], "function", `${m.name}: no ${fn}()`);
  }
});
