// A LangGraph.js long-term memory store over mnemo:
//   graph.compile({ store: new MnemoStore(MnemoClient.http("http://127.0.0.1:8765")) })
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph";

/** An Item with the relevance score of a search (LangGraph's SearchItem). */
export type SearchItem = Item & { score?: number };

import type { MnemoClient } from "./client.js";
import { ErrorCode, MnemoError } from "./errors.js";

/** Characters a mnemo namespace allows that a label keeps as they are. */
const PLAIN = /^[A-Za-z0-9_-]$/;

// mnemo's system namespaces (tool rules, tool statistics, the tool
// registry) are left out of unfiltered search and list and mean something
// to the engine; a label that would name one is written with its first
// letter escaped.
function isSystemNamespace(ns: string): boolean {
  return ns.startsWith("tool-") || ns === "tool_effectiveness" || ns === "tool_registry";
}

function escapeLabel(label: string): string {
  let out = "";
  for (const ch of label) {
    if (PLAIN.test(ch)) {
      out += ch;
    } else {
      for (const byte of Buffer.from(ch, "utf8")) {
        out += `:${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      }
    }
  }
  return out;
}

/**
 * The mnemo namespace of a LangGraph namespace: the labels joined with "."
 * (LangGraph labels never hold "." or ":"), each byte of a label outside
 * [A-Za-z0-9_-] written as ":XX" (its hex value), so
 * ["users", "alice smith"] is "users.alice:20smith". mnemo
 * allows 1-128 characters of [A-Za-z0-9_.:*-]; a longer result is refused
 * by mnemo with -32602 (field "namespace").
 */
export function toMnemoNamespace(namespace: readonly string[]): string {
  const ns = namespace.map(escapeLabel).join(".");
  return isSystemNamespace(ns) ? `:74${ns.slice(1)}` : ns;
}

/**
 * The LangGraph namespace of a mnemo namespace (the inverse of
 * toMnemoNamespace); a ":" not followed by two hex digits stays as it is.
 */
export function fromMnemoNamespace(ns: string): string[] {
  return ns.split(".").map((label) => {
    const bytes: number[] = [];
    for (let i = 0; i < label.length; ) {
      const hex = label.slice(i + 1, i + 3);
      if (label[i] === ":" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 3;
      } else {
        bytes.push(...Buffer.from(label[i] as string, "utf8"));
        i += 1;
      }
    }
    return Buffer.from(bytes).toString("utf8");
  });
}

export interface MnemoStoreOptions {
  /** Labels put before every namespace, to keep one application's items apart (default none). */
  prefix?: string[];
  /** The mnemo category of stored items (default: mnemo's, "core"). */
  category?: string;
  /** Tags given to stored items. */
  tags?: string[];
}

interface Entry {
  namespace: string;
  key: string;
  content: string;
  created_at?: string;
  updated_at?: string;
}

function sameStart(path: readonly string[], ns: readonly string[], offset: number): boolean {
  return path.every((p, i) => p === "*" || ns[offset + i] === p);
}

function matches(condition: MatchCondition, ns: readonly string[]): boolean {
  const { matchType, path } = condition;
  if (path.length > ns.length) return false;
  return sameStart(path, ns, matchType === "prefix" ? 0 : ns.length - path.length);
}

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

// LangGraph's filter: top-level fields, equal to a value or passing every
// operator given ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin).
function passes(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([field, want]) => {
    const have = value[field];
    const ops = want !== null && typeof want === "object" && !Array.isArray(want) ? want : null;
    if (!ops || !Object.keys(ops).every((k) => OPERATORS.has(k))) {
      return JSON.stringify(have) === JSON.stringify(want);
    }
    return Object.entries(ops).every(([op, arg]) => {
      switch (op) {
        case "$eq":
          return JSON.stringify(have) === JSON.stringify(arg);
        case "$ne":
          return JSON.stringify(have) !== JSON.stringify(arg);
        case "$gt":
          return Number(have) > Number(arg);
        case "$gte":
          return Number(have) >= Number(arg);
        case "$lt":
          return Number(have) < Number(arg);
        case "$lte":
          return Number(have) <= Number(arg);
        case "$in":
          return Array.isArray(arg) && arg.includes(have);
        default:
          return !Array.isArray(arg) || !arg.includes(have);
      }
    });
  });
}

function parseValue(content: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(content);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Not written by a store: handed over as text.
  }
  return { content };
}

function isNotFound(e: unknown): boolean {
  return e instanceof MnemoError && e.code === ErrorCode.NotFound;
}

/**
 * LangGraph's BaseStore over mnemo. Items are mnemo entries: the namespace
 * mapped by toMnemoNamespace (after `prefix`), the key as it is, the value
 * stored as its JSON text. `search` with a query is one mnemo hybrid search
 * (keywords and vectors, memory.search) over the namespace subtree
 * (namespace_prefix), scored by mnemo; without one it lists the subtree's
 * items, most recently updated first (memory.list with namespace_prefix).
 * listNamespaces reads the namespaces from memory.stats. The `index` argument of put is ignored: mnemo indexes the
 * whole value. Operations of a batch run in order.
 */
export class MnemoStore extends BaseStore {
  readonly client: MnemoClient;
  private readonly prefix: string[];
  private readonly category: string | undefined;
  private readonly tags: string[] | undefined;

  constructor(client: MnemoClient, options: MnemoStoreOptions = {}) {
    super();
    this.client = client;
    this.prefix = options.prefix ?? [];
    this.category = options.category;
    this.tags = options.tags;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations as Operation[]) {
      if ("namespacePrefix" in op) {
        results.push(await this.searchOp(op));
      } else if (!("namespace" in op)) {
        results.push(await this.listNamespacesOp(op));
      } else if ("value" in op) {
        await this.putOp(op as PutOperation);
        results.push(undefined);
      } else {
        results.push(await this.getOp(op as GetOperation));
      }
    }
    return results as OperationResults<Op>;
  }

  private ns(namespace: readonly string[]): string {
    return toMnemoNamespace([...this.prefix, ...namespace]);
  }

  // The LangGraph namespace of a mnemo one, or null when it is outside `prefix`.
  private unprefixed(ns: string): string[] | null {
    const labels = fromMnemoNamespace(ns);
    if (labels.length <= this.prefix.length) return null;
    if (!this.prefix.every((p, i) => labels[i] === p)) return null;
    return labels.slice(this.prefix.length);
  }

  private item(entry: Entry, namespace: string[]): Item {
    return {
      value: parseValue(entry.content),
      key: entry.key,
      namespace,
      createdAt: new Date(entry.created_at ?? 0),
      updatedAt: new Date(entry.updated_at ?? entry.created_at ?? 0),
    };
  }

  private async getOp(op: GetOperation): Promise<Item | null> {
    try {
      const entry = (await this.client.get({ namespace: this.ns(op.namespace), key: op.key })) as Entry;
      return this.item(entry, [...op.namespace]);
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  private async putOp(op: PutOperation): Promise<void> {
    const namespace = this.ns(op.namespace);
    if (op.value === null) {
      try {
        await this.client.forget({ namespace, key: op.key });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    await this.client.store({
      namespace,
      key: op.key,
      value: JSON.stringify(op.value),
      ...(this.category !== undefined ? { category: this.category } : {}),
      ...(this.tags !== undefined ? { tags: this.tags } : {}),
    });
  }

  // The mnemo namespace_prefix holding every namespace under `labels` (the
  // store's prefix and the operation's), or undefined when none does: no
  // labels, a name mnemo would refuse, or tool_effectiveness/tool_registry
  // themselves, which are escaped while the names under them are not.
  private mnemoPrefix(labels: readonly string[]): string | undefined {
    if (labels.length === 0) return undefined;
    const plain = labels.map(escapeLabel).join(".");
    if (plain.length > 128) return undefined;
    if (plain.startsWith("tool-")) return `:74${plain.slice(1)}`;
    return isSystemNamespace(plain) ? undefined : plain;
  }

  // The entries under `labels`, a page of memory.list at a time (most
  // recently updated first), with their LangGraph namespaces; stops once
  // `enough` of them pass `keep`.
  private async entriesUnder(
    labels: readonly string[],
    keep: (entry: Entry, namespace: string[]) => boolean,
    enough: number,
  ): Promise<Array<{ entry: Entry; namespace: string[] }>> {
    const prefix = this.mnemoPrefix([...this.prefix, ...labels]);
    const out: Array<{ entry: Entry; namespace: string[] }> = [];
    for (let offset: number | null | undefined = 0; offset !== null && offset !== undefined; ) {
      const page = await this.client.list({
        limit: 1000,
        offset,
        ...(prefix !== undefined ? { namespace_prefix: prefix } : {}),
      });
      for (const e of page.items ?? []) {
        const entry = e as unknown as Entry;
        const namespace = this.unprefixed(String(entry.namespace));
        if (namespace && keep(entry, namespace)) out.push({ entry, namespace });
        if (out.length >= enough) return out;
      }
      offset = page.next_offset;
    }
    return out;
  }

  private async searchOp(op: SearchOperation): Promise<SearchItem[]> {
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const under = (ns: readonly string[]) =>
      ns.length >= op.namespacePrefix.length && sameStart(op.namespacePrefix, ns, 0);
    const filter = op.filter as Record<string, unknown> | undefined;
    const wanted = (entry: Entry, ns: string[]) =>
      under(ns) && (!filter || passes(parseValue(entry.content), filter));
    if (op.query === undefined || op.query.trim() === "") {
      const found = await this.entriesUnder(op.namespacePrefix, wanted, offset + limit);
      return found.slice(offset).map(({ entry, namespace }) => this.item(entry, namespace));
    }
    // One hybrid search over the subtree (memory.search with
    // namespace_prefix); mnemo's scores are final scores in [0, 1].
    const prefix = this.mnemoPrefix([...this.prefix, ...op.namespacePrefix]);
    const answer = await this.client.search({
      query: op.query,
      max_results: 100,
      min_score: 0,
      ...(prefix !== undefined ? { namespace_prefix: prefix } : {}),
    });
    const found: SearchItem[] = [];
    for (const hit of answer.results ?? []) {
      const entry = hit as unknown as Entry;
      const namespace = this.unprefixed(String(entry.namespace));
      if (namespace && wanted(entry, namespace)) {
        found.push({ ...this.item(entry, namespace), score: hit.score ?? 0 });
      }
    }
    return found.slice(offset, offset + limit);
  }

  // The namespaces come from memory.stats (every namespace the caller sees,
  // with its count), not from the entries.
  private async listNamespacesOp(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    const stats = await this.client.stats();
    for (const name of Object.keys(stats.by_namespace ?? {})) {
      if (isSystemNamespace(name)) continue;
      const namespace = this.unprefixed(name);
      if (!namespace) continue;
      if (op.matchConditions && !op.matchConditions.every((c) => matches(c, namespace))) continue;
      const ns = op.maxDepth !== undefined ? namespace.slice(0, op.maxDepth) : namespace;
      seen.set(JSON.stringify(ns), ns);
    }
    const sorted = [...seen.values()].sort((a, b) => a.join(".").localeCompare(b.join(".")));
    const offset = op.offset ?? 0;
    return sorted.slice(offset, offset + (op.limit ?? sorted.length));
  }
}
