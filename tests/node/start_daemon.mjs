// `mnemo serve` on a free loopback port for the npm-driven tests
// (tests/mcp, tests/inspector; their run scripts copy this file beside
// theirs). Resolves with { port, child, url } once the daemon says where it
// listens (url: https:// when its configuration has server.tls_cert);
// rejects with its standard error when it exits first.
import { spawn } from "node:child_process";

export function startDaemon(binary, workspace) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["--workspace", workspace, "serve", "--listen", "127.0.0.1:0"], {
      env: { ...process.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const m = err.match(/listening on 127\.0\.0\.1:(\d+)( \(https\))?\n/);
      if (m) {
        const url = `${m[2] ? "https" : "http"}://127.0.0.1:${m[1]}`;
        resolve({ port: Number(m[1]), child, url });
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo serve exited (${code}): ${err}`)));
  });
}
