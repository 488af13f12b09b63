// Shared by the tests: the binary under test (MNEMO_BINARY), temp
// workspaces, a daemon on a free loopback port, and clients over both
// transports. The tests import the built package (dist/).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { startDaemon } from "../../../tests/node/start_daemon.mjs";
import { MnemoClient } from "../dist/index.js";

export const binary = process.env.MNEMO_BINARY;
if (!binary) throw new Error("set MNEMO_BINARY to the mnemo binary under test");

const made = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh workspace folder, with `toml` as its mnemo.toml when given. */
export function workspace(toml) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-ts-"));
  made.push(dir);
  if (toml) writeFileSync(join(dir, "mnemo.toml"), toml);
  return dir;
}

/** `mnemo serve` on a fresh (or given) workspace: { url, stop() }. */
export async function daemon(dir = workspace()) {
  const { child, url } = await startDaemon(binary, dir);
  child.removeAllListeners("exit");
  return {
    url,
    workspace: dir,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

export function sha256(text) {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Both transports over one fresh workspace each: [{ name, client, close }].
 * The HTTP one talks to a daemon, the stdio one to a spawned child.
 */
export async function transports() {
  const served = await daemon();
  const http = MnemoClient.http({ url: served.url, timeoutMs: 10000 });
  const stdio = MnemoClient.stdio({ binary, workspace: workspace(), timeoutMs: 10000 });
  return [
    { name: "http", client: http, close: async () => { await http.close(); await served.stop(); } },
    { name: "stdio", client: stdio, close: () => stdio.close() },
  ];
}
