import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

import { MnemoError, MnemoTransportError } from "./errors.js";
import { READ_METHODS } from "./generated.js";

/** Carries one JSON-RPC request to mnemo and resolves with its result. */
export interface Transport {
  request(method: string, params: object | undefined): Promise<unknown>;
  close(): Promise<void>;
}


interface RpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function settle(response: RpcResponse): unknown {
  if (response.error) {
    const { code, message, data } = response.error;
    throw new MnemoError(
      typeof code === "number" ? code : -32000,
      typeof message === "string" ? message : "unknown error",
      data,
    );
  }
  return response.result;
}

export interface HttpTransportOptions {
  /** The daemon's base URL (`http://127.0.0.1:8765`) or its `/rpc` URL. */
  url: string;
  /** Bearer token (one of `[[security.tokens]]`). */
  token?: string;
  /** Per attempt, in milliseconds (default 30000). */
  timeoutMs?: number;
  /** Further attempts for a read (READ_METHODS) that got no answer or a 502/503/504 (default 2). */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (default 100 ms). */
  retryDelayMs?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** JSON-RPC 2.0 over `POST /rpc` of `mnemo serve`. */
export class HttpTransport implements Transport {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly headers: Record<string, string>;
  private nextId = 1;

  constructor(options: HttpTransportOptions) {
    const base = options.url.replace(/\/+$/, "");
    this.url = base.endsWith("/rpc") ? base : `${base}/rpc`;
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 30000;
    this.retries = Math.max(0, options.retries ?? 2);
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.headers = options.headers ?? {};
  }

  async request(method: string, params: object | undefined): Promise<unknown> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    const attempts = READ_METHODS.has(method) ? 1 + this.retries : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return settle(await this.send(body));
      } catch (e) {
        if (!(e instanceof RetryableError) || attempt >= attempts) {
          throw e instanceof RetryableError ? e.error : e;
        }
        await new Promise((r) => setTimeout(r, this.retryDelayMs * 2 ** (attempt - 1)));
      }
    }
  }

  private async send(body: string): Promise<RpcResponse> {
    const headers: Record<string, string> = {
      ...this.headers,
      "Content-Type": "application/json",
      Accept: "application/json",
    };
    if (this.token !== undefined) headers["Authorization"] = `Bearer ${this.token}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
      const why = timedOut ? `no answer within ${this.timeoutMs} ms` : describe(e);
      throw new RetryableError(new MnemoTransportError(`${this.url}: ${why}`, { cause: e }));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === "object" && ("error" in parsed || "result" in parsed)) {
      // A JSON-RPC answer, also on 401 (-32002) and 503 bodies.
      if (response.status >= 502 && response.status <= 504) {
        throw new RetryableError(errorOf(parsed as RpcResponse));
      }
      return parsed as RpcResponse;
    }
    const error = new MnemoTransportError(
      `${this.url}: HTTP ${response.status} without a JSON-RPC answer: ${text.slice(0, 200)}`,
    );
    throw response.status >= 502 && response.status <= 504 ? new RetryableError(error) : error;
  }

  async close(): Promise<void> {}
}

function errorOf(response: RpcResponse): Error {
  try {
    settle(response);
  } catch (e) {
    return e as Error;
  }
  return new MnemoTransportError("unexpected answer");
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error) return `${e.message} (${cause.message})`;
    return e.message;
  }
  return String(e);
}

class RetryableError extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

export interface StdioTransportOptions {
  /** The mnemo binary (default "mnemo", looked up in PATH). */
  binary?: string;
  /** `--workspace DIR` (default: mnemo's own: $MNEMO_WORKSPACE, else ~/.local/share/mnemo). */
  workspace?: string;
  /** `--principal NAME`: who the child acts as under ACL. */
  principal?: string;
  /** `--config FILE`. */
  config?: string;
  /** Per request, in milliseconds (default: none). */
  timeoutMs?: number;
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * JSON-RPC over a spawned `mnemo rpc --stdio` child: one JSON request per
 * line on its stdin, one answer per line on its stdout. Requests may overlap
 * (answers are matched by id). close() ends the child.
 */
export class StdioTransport implements Transport {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private readonly timeoutMs: number | undefined;
  private nextId = 1;
  private stderr = "";
  private exited: Error | undefined;
  private readonly exit: Promise<void>;

  constructor(options: StdioTransportOptions = {}) {
    const args: string[] = [];
    if (options.workspace !== undefined) args.push("--workspace", options.workspace);
    if (options.config !== undefined) args.push("--config", options.config);
    if (options.principal !== undefined) args.push("--principal", options.principal);
    args.push("rpc", "--stdio");
    const binary = options.binary ?? "mnemo";
    this.timeoutMs = options.timeoutMs;
    this.child = spawn(binary, args, { env: options.env ?? process.env, stdio: "pipe" });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    // Writes after the child died fail here and through the exit handler.
    this.child.stdin.on("error", () => {});
    createInterface({ input: this.child.stdout }).on("line", (line) => this.onLine(line));
    this.exit = new Promise((resolve) => {
      const fail = (why: string, cause?: unknown) => {
        this.exited ??= new MnemoTransportError(
          `${binary} rpc --stdio ${why}${this.stderr ? `: ${this.stderr.trim()}` : ""}`,
          { cause },
        );
        for (const p of this.pending.values()) {
          clearTimeout(p.timer);
          p.reject(this.exited);
        }
        this.pending.clear();
        resolve();
      };
      this.child.on("error", (e) => fail(`could not start (${e.message})`, e));
      this.child.on("close", (code, signal) => fail(`exited (${signal ?? code})`));
    });
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let response: RpcResponse;
    try {
      response = JSON.parse(line) as RpcResponse;
    } catch {
      return;
    }
    const p = typeof response.id === "number" ? this.pending.get(response.id) : undefined;
    if (!p) return;
    this.pending.delete(response.id as number);
    clearTimeout(p.timer);
    try {
      p.resolve(settle(response));
    } catch (e) {
      p.reject(e as Error);
    }
  }

  request(method: string, params: object | undefined): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve, reject };
      if (this.timeoutMs !== undefined) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new MnemoTransportError(`${method}: no answer within ${this.timeoutMs} ms`));
        }, this.timeoutMs);
      }
      this.pending.set(id, p);
      const line = JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      this.child.stdin.write(`${line}\n`);
    });
  }

  /** Closes the child's stdin and waits for it to exit (SIGTERM after 5 s). */
  async close(): Promise<void> {
    if (!this.exited) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill("SIGTERM"), 5000);
      await this.exit;
      clearTimeout(timer);
    }
  }
}
