// The mnemo inspector (issue 20): plain DOM, no framework, no build step.
// Every value from the engine is put into the page as text (textContent),
// never as markup, so a memory holding "<script>" is shown, not run. The
// page talks to the engine only through POST /rpc; under tokens it asks for
// one once and keeps it in sessionStorage (never in a URL or a cookie).

const TOKEN_KEY = "mnemo.token";
const main = document.getElementById("main");
const statusLine = document.getElementById("status");

// --- DOM ------------------------------------------------------------------

// h("td", {class: "num"}, "text", child, ...): an element with attributes
// (strings, or functions for on* handlers) and children (nodes or text).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.replace(/^on/, ""), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// A snippet's **matched** words as <mark>, the rest as text.
function snippet(text) {
  return String(text || "").split("**").map((part, i) => (i % 2 ? h("mark", {}, part) : part));
}

function score(x) {
  return x === null || x === undefined ? "—" : Number(x).toFixed(3);
}

// "[REDACTED]" (what security.redact_episodic put in place of a secret)
// marked, the rest as text.
function redactionMarks(text) {
  return String(text).split(/(\[REDACTED\])/).map((part) =>
    part === "[REDACTED]" ? h("mark", { class: "redacted", title: "a secret was redacted here" }, part) : part);
}

// JSON text indented, or as it is when it does not parse.
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function setStatus(text, isError) {
  statusLine.textContent = text || "";
  statusLine.className = isError ? "error" : "";
}

// A list of `items` as `render` makes them, or a quiet "none".
function listOrNone(tag, attrs, items, render) {
  return items.length ? h(tag, attrs, items.map(render)) : h("p", { ...attrs, class: "none" }, "none");
}

function show(...nodes) {
  main.replaceChildren(...nodes);
}

// --- RPC ------------------------------------------------------------------

class RpcError extends Error {
  constructor(code, message, field) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

let nextId = 1;
async function rpc(method, params = {}) {
  const headers = { "Content-Type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = "Bearer " + token;
  const response = await fetch("/rpc", {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    credentials: "omit",
    cache: "no-store",
  });
  if (response.status === 401) {
    if (token) sessionStorage.removeItem(TOKEN_KEY);
    throw new RpcError(401, token ? "the token was refused" : "this daemon needs a token");
  }
  const body = await response.json();
  if (body.error) {
    throw new RpcError(body.error.code, body.error.message, body.error.data && body.error.data.field);
  }
  return body.result;
}

function errorText(e) {
  return e instanceof RpcError ? e.message + (e.field ? " (" + e.field + ")" : "") : String(e);
}

function tokenForm(reason) {
  const input = h("input", { type: "password", id: "token", autocomplete: "off", required: true });
  const form = h("form", { class: "bar", id: "token-form" },
    h("label", { for: "token" }, "Bearer token", input),
    h("button", { type: "submit" }, "Use token"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value);
    route();
  });
  show(h("h2", {}, "Sign in"), h("p", { class: "error", id: "token-reason" }, reason), form);
  input.focus();
}

// Whether a call went through since the page loaded: until one has, a page
// asks first, so a daemon under tokens shows the token form at once.
let signedIn = false;

// Runs a page; a refused or missing token brings the token form.
async function guarded(render) {
  try {
    setStatus("");
    if (!signedIn) {
      await rpc("memory.stats", {});
      signedIn = true;
    }
    await render();
  } catch (e) {
    if (e instanceof RpcError && e.code === 401) {
      signedIn = false;
      tokenForm(e.message);
    }
    else setStatus(errorText(e), true);
  }
}

// --- Pages ----------------------------------------------------------------

// The session id as the Archivist writes it into a segment document's
// source (RFC 3986 unreserved characters kept, every other byte %XX).
function sourceSegment(id) {
  return encodeURIComponent(id).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

// "2026-12-01" or a full RFC 3339 time, as the API takes it.
function rfc3339(day, endOfDay) {
  if (!day) return undefined;
  return /T/.test(day) ? day : day + (endOfDay ? "T23:59:59Z" : "T00:00:00Z");
}

function field(label, attrs) {
  const input = h("input", attrs);
  return [h("label", {}, label, input), input];
}

// Whether `text` holds `word` as a whole word, case-blind: "the" does not
// match "other". Letters and digits of any script are word characters, so
// "_" separates words (send_email holds "email"); a word with Han, kana or
// Hangul in it (scripts written without spaces) matches anywhere in the
// text, as a substring.
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
function wordIn(word, text) {
  const w = word.toLocaleLowerCase();
  const t = String(text).toLocaleLowerCase();
  if (NO_SPACES.test(w)) return t.includes(w);
  const escaped = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp("(?<![\\p{L}\\p{N}])" + escaped + "(?![\\p{L}\\p{N}])", "u").test(t);
}

// Edit and Delete buttons for one row of a table (issue 44: every derived
// memory can be corrected). `cell` is where the editor opens, holding
// `fields` ([{name, value, options?}]: an input, or a select of options);
// `save(values)` stores them, `remove()` deletes the row's item once the
// person confirmed `question`; both then redraw the page with `redraw`.
function rowActions({ cell, fields, save, remove, question, redraw, label }) {
  const edit = h("button", { type: "button", class: "plain row-edit", "aria-label": "Edit " + label }, "Edit");
  const del = h("button", { type: "button", class: "danger row-delete", "aria-label": "Delete " + label }, "Delete…");
  edit.addEventListener("click", () => {
    const inputs = fields.map((f) => f.options
      ? h("select", { "aria-label": f.name, name: f.name }, f.options.map((o) => h("option", { value: o, selected: o === f.value }, o)))
      : h("input", { "aria-label": f.name, name: f.name, value: f.value, required: true }));
    const form = h("form", { class: "row-editor" }, inputs,
      h("button", { type: "submit", class: "row-save" }, "Save"),
      h("button", { type: "button", class: "plain row-cancel" }, "Cancel"));
    form.querySelector(".row-cancel").addEventListener("click", () => guarded(redraw));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      guarded(async () => {
        const values = Object.fromEntries(fields.map((f, i) => [f.name, inputs[i].value]));
        await save(values);
        await redraw();
        setStatus("corrected " + label);
      });
    });
    cell.replaceChildren(form);
    inputs[0].focus();
  });
  del.addEventListener("click", () => guarded(async () => {
    if (!window.confirm(question)) return;
    await remove();
    await redraw();
    setStatus("deleted " + label);
  }));
  return h("td", { class: "actions" }, edit, " ", del);
}

async function searchPage(params) {
  const query = params.get("q") || "";
  const [qLabel, input] = field("Query", { type: "search", id: "search-query", name: "q", value: query,
    placeholder: "what to look for" });
  const [cLabel, category] = field("Category", { id: "search-category", value: params.get("category") || "" });
  const [nLabel, ns] = field("Namespace", { id: "search-namespace", value: params.get("namespace") || "" });
  const [sLabel, session] = field("Session", { id: "search-session", value: params.get("session") || "" });
  const [fLabel, since] = field("Since", { type: "date", id: "search-since", value: params.get("since") || "" });
  const [uLabel, until] = field("Until", { type: "date", id: "search-until", value: params.get("until") || "" });
  const form = h("form", { class: "bar", id: "search-form", role: "search" },
    qLabel, cLabel, nLabel, sLabel, fLabel, uLabel, h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams({ q: input.value });
    for (const [name, el] of [["category", category], ["namespace", ns], ["session", session],
      ["since", since], ["until", until]]) {
      if (el.value) p.set(name, el.value);
    }
    location.hash = "#/search?" + p.toString();
  });
  const out = [h("h2", {}, "Search"), form];
  if (query.trim()) {
    const timeWindow = {};
    if (since.value) timeWindow.since = rfc3339(since.value, false);
    if (until.value) timeWindow.until = rfc3339(until.value, true);
    const req = { query, max_results: 20, ...timeWindow };
    if (category.value) req.category = category.value;
    if (ns.value) req.namespace = ns.value;
    const turnReq = { query, limit: 10, ...timeWindow };
    if (session.value) turnReq.session_id = session.value;
    const words = query.split(/\s+/).filter(Boolean);
    const [entries, episodic, documents, rules] = await Promise.all([
      rpc("memory.search", req),
      rpc("memory.episodic_search", turnReq),
      rpc("memory.doc_search", { query, max_results: 10 }),
      rpc("memory.tool_rules_json", {}),
    ]);
    const turns = episodic.results;
    const matchingRules = rules.filter((r) => words.some((w) => wordIn(w, r.tool_name + " " + r.rule)));
    if (entries.degraded) {
      out.push(h("p", { class: "warn", id: "degraded" },
        "Keyword only: the vector side is degraded (" + entries.degraded + ")."));
    }
    out.push(h("h2", {}, "Entries ", h("span", { class: "muted" }, String(entries.results.length))));
    out.push(h("table", { id: "search-results" },
      h("thead", {}, h("tr", {}, ["Key", "Snippet", "Score", "Keyword", "Vector"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, entries.results.map((r) => h("tr", { class: "hit" },
        h("td", {}, h("a", { href: "#/entry?" + new URLSearchParams({ key: r.key, namespace: r.namespace, owner: r.owner }) }, r.key),
          h("div", { class: "muted" }, r.namespace + " · " + r.category + " · " + r.owner)),
        h("td", { class: "content" }, snippet(r.snippet)),
        h("td", { class: "num score" }, score(r.score)),
        h("td", { class: "num" }, score(r.keyword_score)),
        h("td", { class: "num" }, score(r.vector_score)))))));
    out.push(h("h2", {}, "Turns ", h("span", { class: "muted" }, String(turns.length))));
    out.push(h("table", { id: "turn-results" },
      h("tbody", {}, turns.map((t) => h("tr", {},
        h("td", {}, h("a", { href: "#/session?" + new URLSearchParams({ id: t.session_id }) }, t.session_id),
          h("div", { class: "muted" }, t.role + " #" + t.seq + " · " + t.timestamp)),
        h("td", { class: "content" }, snippet(t.snippet)),
        h("td", { class: "num" }, score(t.score)))))));
    out.push(h("h2", {}, "Documents ", h("span", { class: "muted" }, String(documents.results.length))));
    out.push(h("table", { id: "document-results" },
      h("tbody", {}, documents.results.map((d) => h("tr", {},
        h("td", {}, d.source || d.id),
        h("td", { class: "content" }, snippet(d.snippet)),
        h("td", { class: "num" }, score(d.score)))))));
    out.push(h("h2", {}, "Rules ", h("span", { class: "muted" }, String(matchingRules.length))));
    out.push(h("ul", { id: "rule-results" }, matchingRules.map((r) => h("li", {},
      h("a", { href: "#/rules" }, r.tool_name), " ", h("span", { class: "badge " + r.priority }, r.priority), r.rule))));
  }
  show(...out);
  input.focus();
}

async function entriesPage(params) {
  const offset = Number(params.get("offset") || 0);
  const [cLabel, category] = field("Category", { id: "entries-category", value: params.get("category") || "" });
  const [nLabel, ns] = field("Namespace", { id: "entries-namespace", value: params.get("namespace") || "" });
  const filters = h("form", { class: "bar", id: "entries-form" }, cLabel, nLabel, h("button", { type: "submit" }, "Filter"));
  const filterParams = (more) => {
    const p = new URLSearchParams(more);
    if (category.value) p.set("category", category.value);
    if (ns.value) p.set("namespace", ns.value);
    return p.toString();
  };
  filters.addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = "#/entries?" + filterParams({});
  });
  const req = { limit: 50, offset };
  if (category.value) req.category = category.value;
  if (ns.value) req.namespace = ns.value;
  const page = await rpc("memory.list", req);
  const rows = page.items.map((e) => h("tr", { class: "entry" },
    h("td", {}, h("a", { href: "#/entry?" + new URLSearchParams({ key: e.key, namespace: e.namespace, owner: e.owner }) }, e.key)),
    h("td", {}, e.namespace), h("td", {}, e.category), h("td", {}, e.owner), h("td", {}, e.visibility),
    h("td", { class: "content" }, e.content.length > 160 ? e.content.slice(0, 160) + "…" : e.content),
    h("td", { class: "num" }, e.updated_at)));
  const nav = h("p", { class: "row" },
    offset > 0 ? h("a", { href: "#/entries?" + filterParams({ offset: Math.max(0, offset - 50) }) }, "← previous") : null,
    page.next_offset !== null ? h("a", { href: "#/entries?" + filterParams({ offset: page.next_offset }), id: "next-page" }, "next →") : null);
  show(h("h2", {}, "Entries"), filters,
    h("table", { id: "entries" }, h("thead", {}, h("tr", {}, ["Key", "Namespace", "Category", "Owner", "Visibility", "Content", "Updated"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows)), nav);
}

async function entryPage(params) {
  const address = { key: params.get("key"), namespace: params.get("namespace") || "global" };
  if (params.get("owner")) address.owner = params.get("owner");
  const e = await rpc("memory.get", address);
  const value = h("textarea", { id: "entry-value", "aria-label": "Content" }, e.content);
  const category = h("input", { id: "entry-category", value: e.category, "aria-label": "Category" });
  const visibility = h("select", { id: "entry-visibility", "aria-label": "Visibility" },
    ["private", "shared", "public"].map((v) => h("option", { value: v, selected: v === e.visibility }, v)));
  const save = h("form", { id: "entry-form" },
    h("label", {}, "Content", value),
    h("div", { class: "row" }, h("label", {}, "Category", category), h("label", {}, "Visibility", visibility),
      h("button", { type: "submit", id: "entry-save" }, "Save")));
  save.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    await guarded(async () => {
      await rpc("memory.store", { key: e.key, namespace: e.namespace, value: value.value,
        category: category.value, visibility: visibility.value });
      setStatus("saved " + e.key);
    });
  });
  const forget = h("button", { type: "button", class: "danger", id: "entry-forget" }, "Forget…");
  forget.addEventListener("click", () => guarded(async () => {
    if (!window.confirm("Forget " + e.key + " in " + e.namespace + "? This cannot be undone.")) return;
    await rpc("memory.forget", address);
    setStatus("forgot " + e.key);
    location.hash = "#/entries";
  }));
  const json = h("details", {}, h("summary", {}, "JSON"), h("pre", { id: "entry-json" }, JSON.stringify(e, null, 2)));
  show(h("h2", {}, e.key, " ", h("span", { class: "muted" }, e.namespace + " · " + e.owner)), save,
    h("p", {}, forget), json);
}

async function rulesPage() {
  const [rules, prompt] = await Promise.all([rpc("memory.tool_rules_json", {}), rpc("memory.tool_rules_for_prompt", {})]);
  const byTool = new Map();
  for (const r of rules) {
    if (!byTool.has(r.tool_name)) byTool.set(r.tool_name, []);
    byTool.get(r.tool_name).push(r);
  }
  const tool = h("input", { id: "rule-tool", required: true, "aria-label": "Tool" });
  const text = h("input", { id: "rule-text", required: true, "aria-label": "Rule" });
  const priority = h("select", { id: "rule-priority", "aria-label": "Priority" },
    ["critical", "high", "normal", "low"].map((p) => h("option", { value: p, selected: p === "high" }, p)));
  let editing = null;  // the id of the rule being edited
  const submit = h("button", { type: "submit" }, "Put rule");
  const put = h("form", { class: "bar", id: "rule-form" }, h("label", {}, "Tool", tool), h("label", {}, "Rule", text),
    h("label", {}, "Priority", priority), submit);
  put.addEventListener("submit", (ev) => {
    ev.preventDefault();
    guarded(async () => {
      const req = { tool_name: tool.value, rule: text.value, priority: priority.value };
      if (editing) req.id = editing;
      await rpc("memory.tool_rule_put", req);
      await rulesPage();
      setStatus("rule stored");
    });
  });
  const sections = [...byTool.entries()].map(([name, list]) => h("section", { class: "card" },
    h("h2", {}, name),
    h("ul", {}, list.map((r) => {
      const del = h("button", { type: "button", class: "danger" }, "Delete");
      del.addEventListener("click", () => guarded(async () => {
        if (!window.confirm("Delete this rule of " + name + "?")) return;
        await rpc("memory.tool_rule_delete", { tool_name: r.tool_name, id: r.id });
        await rulesPage();
      }));
      const edit = h("button", { type: "button", class: "plain" }, "Edit");
      edit.addEventListener("click", () => {
        editing = r.id;
        tool.value = r.tool_name;
        text.value = r.rule;
        priority.value = r.priority;
        submit.textContent = "Save rule";
        text.focus();
      });
      return h("li", { class: "rule" }, h("span", { class: "badge " + r.priority }, r.priority),
        h("span", { class: "badge" }, r.source), h("span", { class: "content" }, r.rule), " ", edit, " ", del);
    }))));
  show(h("h2", {}, "Rules"), put, ...sections,
    h("h2", {}, "Pinned block"), h("pre", { id: "pinned" }, prompt.rendered || "(no rule is pinned)"));
}

async function sessionsPage() {
  const { segments } = await rpc("memory.segments", {});
  const sessions = new Map();
  for (const s of segments) {
    const known = sessions.get(s.session_id) || { segments: 0, last: "" };
    known.segments += 1;
    if (s.last_turn_at > known.last) known.last = s.last_turn_at;
    sessions.set(s.session_id, known);
  }
  show(h("h2", {}, "Sessions"),
    h("table", { id: "sessions" }, h("thead", {}, h("tr", {}, ["Session", "Segments", "Last turn"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, [...sessions.entries()].map(([id, s]) => h("tr", {},
        h("td", {}, h("a", { href: "#/session?" + new URLSearchParams({ id }) }, id)),
        h("td", { class: "num" }, String(s.segments)), h("td", { class: "num" }, s.last))))));
}

async function sessionPage(params) {
  const id = params.get("id");
  const [turns, seg, events, docs] = await Promise.all([
    rpc("memory.session_turns", { session_id: id }),
    rpc("memory.segments", { session_id: id }),
    rpc("memory.events", { limit: 100 }),
    rpc("memory.doc_list", { source: "agent://session/" + sourceSegment(id) + "/segment/", limit: 100 }),
  ]);
  const ownEvents = events.events.filter((e) => e.session_id === id);
  const forget = h("button", { type: "button", class: "danger", id: "session-forget" }, "Forget this session…");
  forget.addEventListener("click", () => guarded(async () => {
    if (!window.confirm("Forget the session " + id + " and everything derived from it (turns, recaps, " +
      "events, profile evidence, documents, triples)? This cannot be undone.")) return;
    const { erased } = await rpc("memory.session_forget", { session_id: id });
    location.hash = "#/sessions";
    setStatus("forgot session " + id + " (" + erased.turns + " turns)");
  }));
  show(h("h2", {}, "Session ", id), h("p", {}, forget),
    h("ol", { id: "turns" }, turns.turns.map((t) => h("li", { class: "card turn" },
      h("div", { class: "muted" }, t.role + " · #" + t.seq + " · " + t.timestamp),
      h("div", { class: "content" }, redactionMarks(t.content)),
      t.lesson ? h("div", { class: "muted" }, "lesson: " + t.lesson) : null,
      t.tool_calls_json ? h("details", {}, h("summary", {}, "Tool calls (raw outputs)"),
        h("pre", {}, pretty(t.tool_calls_json))) : null))),
    h("h2", {}, "Segments"),
    h("ul", {}, seg.segments.map((s) => h("li", { class: "card" },
      h("div", { class: "muted" }, s.status + " · turns " + s.first_seq + "–" + s.last_seq + (s.recap_source ? " · recap: " + s.recap_source : "")),
      s.recap ? h("div", { class: "content" }, s.recap) : null))),
    h("h2", {}, "Events"),
    listOrNone("ul", { id: "events" }, ownEvents, (e) => h("li", {}, h("span", { class: "badge" }, e.type), e.text,
      h("span", { class: "muted" }, " · " + score(e.confidence)))),
    h("h2", {}, "Documents"),
    listOrNone("ul", { id: "session-documents" }, docs.documents, (d) => h("li", { class: "card" },
      h("div", { class: "muted" }, d.source), h("div", { class: "content" }, d.summary))));
}

async function profilePage() {
  const { facets } = await rpc("memory.profile", { include_history: true });
  const type = h("input", { id: "facet-type", required: true, "aria-label": "Facet type" });
  const key = h("input", { id: "facet-key", required: true, "aria-label": "Key" });
  const value = h("input", { id: "facet-value", required: true, "aria-label": "Value" });
  const form = h("form", { class: "bar", id: "facet-form" }, h("label", {}, "Type", type), h("label", {}, "Key", key),
    h("label", {}, "Value", value), h("button", { type: "submit" }, "State a facet"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    guarded(async () => {
      await rpc("memory.profile_put", { facet_type: type.value, key: key.value, value: value.value });
      await profilePage();
      setStatus("profile facet stated");
    });
  });
  const row = (f) => {
    const address = { facet_type: f.facet_type, key: f.key };
    if (f.owner) address.owner = f.owner;
    const current = h("td", { class: "content current" }, f.value);
    return h("tr", { class: "facet" },
      h("td", {}, f.facet_type + " " + f.key), current,
      h("td", { class: "num" }, score(f.confidence)), h("td", { class: "num" }, String(f.evidence_count)),
      h("td", { class: "history" }, (f.history || []).map((v) => h("div", { class: "muted" }, v.value))),
      rowActions({ cell: current, label: f.facet_type + " " + f.key, redraw: profilePage,
        fields: [{ name: "value", value: f.value }],
        save: (v) => rpc("memory.profile_correct", { ...address, value: v.value }),
        remove: () => rpc("memory.profile_delete", address),
        question: "Delete the facet " + f.facet_type + " " + f.key + " with its history? This cannot be undone." }));
  };
  show(h("h2", {}, "Profile"),
    h("table", { id: "facets" }, h("thead", {}, h("tr", {}, ["Facet", "Value", "Confidence", "Evidence", "History", "Actions"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, facets.map(row))),
    h("h2", {}, "A new facet"), form);
}

// The event types memory.events lists (its `type` filter's enum).
const EVENT_TYPES = ["decision", "commitment", "preference", "fact"];

async function eventsPage() {
  const { events } = await rpc("memory.events", { limit: 100 });
  const types = [...new Set([...EVENT_TYPES, ...events.map((e) => e.type)])];
  const row = (e) => {
    const text = h("td", { class: "content" }, e.text);
    return h("tr", { class: "event" },
      h("td", {}, h("span", { class: "badge" }, e.type)), text,
      h("td", {}, h("a", { href: "#/session?" + new URLSearchParams({ id: e.session_id }) }, e.session_id)),
      h("td", { class: "num" }, score(e.confidence)), h("td", { class: "num" }, e.created_at),
      rowActions({ cell: text, label: "event " + e.id, redraw: eventsPage,
        fields: [{ name: "text", value: e.text }, { name: "type", value: e.type, options: types }],
        save: (v) => rpc("memory.event_correct", { id: e.id, text: v.text, type: v.type }),
        remove: () => rpc("memory.event_delete", { id: e.id }),
        question: "Delete the event \"" + e.text + "\"? This cannot be undone." }));
  };
  show(h("h2", {}, "Events"),
    h("table", { id: "events-table" }, h("thead", {}, h("tr", {}, ["Type", "Text", "Session", "Confidence", "Created", "Actions"]
      .map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, events.map(row))));
}

// `redraw` set: each row can be corrected (a current triple's object) and
// deleted.
function triplesTable(id, triples, redraw) {
  const headings = ["Subject", "Predicate", "Object", "Confidence", "Valid from", "Valid to"];
  if (redraw) headings.push("Actions");
  return h("table", { id }, h("thead", {}, h("tr", {}, headings.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, triples.map((t) => {
      const object = h("td", { class: "content" }, t.object);
      const label = t.subject + " " + t.predicate + " " + t.object;
      return h("tr", { class: t.current ? "triple current" : "triple muted" },
        h("td", {}, h("a", { href: "#/graph?" + new URLSearchParams({ subject: t.subject }) }, t.subject)),
        h("td", {}, t.predicate), object,
        h("td", { class: "num" }, score(t.confidence)), h("td", { class: "num" }, t.valid_from),
        h("td", { class: "num" }, t.valid_to || (t.current ? "current" : "")),
        redraw ? rowActions({ cell: object, label, redraw,
          fields: [{ name: "object", value: t.object }],
          save: (v) => rpc("memory.graph_correct", { id: t.id, object: v.object }),
          remove: () => rpc("memory.graph_delete", { id: t.id }),
          question: "Delete the fact \"" + label + "\"? This cannot be undone." }) : null);
    })));
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// The subject in the middle, its current facts around it.
function neighbourhood(subject, triples) {
  const width = 640, height = 360, cx = width / 2, cy = height / 2;
  const shown = triples.slice(0, 12);
  const root = svg("svg", { id: "neighbourhood", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": subject + " and its current facts", width: "100%" });
  shown.forEach((t, i) => {
    const angle = (2 * Math.PI * i) / Math.max(shown.length, 1) - Math.PI / 2;
    const x = cx + Math.cos(angle) * 220, y = cy + Math.sin(angle) * 130;
    root.append(svg("line", { x1: cx, y1: cy, x2: x, y2: y, stroke: "#9aa3b2" }));
    root.append(svg("text", { x: (cx + x) / 2, y: (cy + y) / 2 - 4, "text-anchor": "middle", "font-size": 11,
      fill: "#5d6677" }, t.predicate));
    root.append(svg("circle", { cx: x, cy: y, r: 5, fill: "#2457c5" }));
    root.append(svg("text", { x, y: y + 18, "text-anchor": "middle", "font-size": 13, fill: "#1d2330" },
      t.object.length > 28 ? t.object.slice(0, 28) + "…" : t.object));
  });
  root.append(svg("circle", { cx, cy, r: 9, fill: "#1d2330" }));
  root.append(svg("text", { x: cx, y: cy - 16, "text-anchor": "middle", "font-size": 15, "font-weight": 600,
    fill: "#1d2330" }, subject));
  return root;
}

async function graphPage(params) {
  const subject = params.get("subject") || "";
  const [label, input] = field("Subject", { id: "graph-subject", value: subject });
  const form = h("form", { class: "bar", id: "graph-form" }, label, h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = "#/graph" + (input.value ? "?" + new URLSearchParams({ subject: input.value }) : "");
  });
  if (!subject) {
    const { triples } = await rpc("memory.graph_query", { limit: 200 });
    const subjects = [...new Set(triples.map((t) => t.subject))].sort();
    show(h("h2", {}, "Graph"), form,
      h("p", { id: "subjects", class: "row" }, subjects.map((x) => h("a", { href: "#/graph?" + new URLSearchParams({ subject: x }) }, x))),
      h("h2", {}, "Current facts"), triplesTable("triples", triples, () => graphPage(params)));
    return;
  }
  const [{ triples }, pointing] = await Promise.all([
    rpc("memory.graph_query", { subject, include_history: true, limit: 200 }),
    rpc("memory.graph_query", { object: subject, limit: 50 }),
  ]);
  show(h("h2", {}, "Graph: ", subject), form, neighbourhood(subject, triples.filter((t) => t.current)),
    h("h2", {}, "Facts and their history"), triplesTable("triples", triples, () => graphPage(params)),
    h("h2", {}, "Pointing here"), triplesTable("pointing", pointing.triples));
}

async function contextPage(params) {
  const query = params.get("q") || "";
  const [qLabel, input] = field("Query", { type: "search", id: "context-query", value: query });
  const preset = h("select", { id: "context-preset" }, ["minimal", "balanced", "extended", "maximum"]
    .map((p) => h("option", { value: p, selected: p === (params.get("preset") || "balanced") }, p)));
  const [sLabel, session] = field("Session", { id: "context-session", value: params.get("session") || "" });
  const form = h("form", { class: "bar", id: "context-form" }, qLabel, h("label", {}, "Preset", preset), sLabel,
    h("button", { type: "submit" }, "Build"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams({ q: input.value, preset: preset.value });
    if (session.value) p.set("session", session.value);
    location.hash = "#/context?" + p.toString();
  });
  const out = [h("h2", {}, "Context preview"), form];
  if (query.trim()) {
    const req = { query, preset: preset.value };
    if (session.value) req.session_id = session.value;
    const block = await rpc("memory.context_build", req);
    out.push(h("p", { id: "context-budget" }, `${block.used_chars} of ${block.budget_chars} characters (${block.preset})`));
    out.push(h("table", { id: "context-sections" }, h("thead", {}, h("tr", {}, ["Section", "Items", "Characters"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, block.sections.map((x) => h("tr", {}, h("td", {}, x.name), h("td", { class: "num" }, String(x.items)),
        h("td", { class: "num" }, String(x.chars)))))));
    out.push(h("pre", { id: "context-block" }, block.text || "(nothing matched)"));
  }
  show(...out);
}

async function healthPage() {
  const stats = await rpc("memory.stats", {});
  const load = h("button", { type: "button", class: "plain", id: "load-metrics" }, "Load the daemon's metrics (admin)");
  const metricsOut = h("div", { id: "metrics-out" });
  load.addEventListener("click", () => guarded(async () => {
    // The counters cover every principal: an admin's view only (403 else).
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = "Bearer " + token;
    const metrics = await fetch("/metrics", { headers, credentials: "omit", cache: "no-store" });
    if (!metrics.ok) {
      metricsOut.replaceChildren(h("p", { class: "muted" }, "The daemon's metrics need the admin role."));
      return;
    }
    const lines = (await metrics.text()).split("\n").filter((l) => l && !l.startsWith("#") && !l.includes("_bucket"));
    metricsOut.replaceChildren(h("pre", { id: "metrics" }, lines.join("\n")));
  }));
  const details = [];
  try {
    const health = await rpc("memory.health", { audit_lines: 20 });
    details.push(
      h("table", { id: "health" }, h("tbody", {},
        h("tr", {}, h("th", { scope: "row" }, "Backend"), h("td", {}, `${health.backend} (schema ${health.schema_version})`)),
        h("tr", {}, h("th", { scope: "row" }, "Embedder"),
          h("td", { id: "embedder" }, health.embedder.signature
            ? `${health.embedder.provider}: ${health.embedder.signature} (${health.embedder.state})` : "none")),
        h("tr", {}, h("th", { scope: "row" }, "Vector spaces"),
          h("td", { id: "spaces" }, health.spaces.length ? health.spaces.map((x) =>
            h("div", {}, `${x.signature}: ${x.vectors} vectors, ${x.dimensions} dimensions, ${x.kind} index`)) : "none open")),
        h("tr", {}, h("th", { scope: "row" }, "Hygiene"), h("td", { id: "hygiene" },
          health.hygiene_last_scheduled_run ? "last scheduled run " + health.hygiene_last_scheduled_run : "no scheduled run yet")),
        h("tr", {}, h("th", { scope: "row" }, "Archive queue"),
          h("td", {}, `${health.archive_queue.depth} waiting (peak ${health.archive_queue.peak} of ${health.archive_queue.bound}), ` +
            `${health.archive_queue.written} written, ${health.archive_queue.problems} problems`)))),
      h("h2", {}, "Audit log"),
      health.audit.enabled
        ? listOrNone("ol", { id: "audit" }, health.audit.lines, (l) => h("li", { class: "content" }, l))
        : h("p", { class: "none", id: "audit" }, "off ([security.audit] enabled = false)"));
  } catch (e) {
    if (!(e instanceof RpcError) || e.code === 401) throw e;
    details.push(h("p", { class: "muted", id: "health-note" }, "The store's details need the admin role: " + e.message));
  }
  show(h("h2", {}, "Health"), ...details, h("h2", {}, "Your memories"),
    h("pre", { id: "stats" }, JSON.stringify(stats, null, 2)), h("p", {}, load), metricsOut);
}

const PAGES = {
  search: searchPage, entries: entriesPage, entry: entryPage, rules: rulesPage, sessions: sessionsPage,
  session: sessionPage, profile: profilePage, events: eventsPage, graph: graphPage, context: contextPage, health: healthPage,
};
const NAV_OF = { entry: "entries", session: "sessions" };

function route() {
  const hash = location.hash.replace(/^#\/?/, "") || "search";
  const [name, query] = hash.split("?");
  const page = PAGES[name] || searchPage;
  const current = NAV_OF[name] || (PAGES[name] ? name : "search");
  for (const a of document.querySelectorAll("nav a")) {
    if (a.getAttribute("href") === "#/" + current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  return guarded(() => page(new URLSearchParams(query || "")));
}

window.addEventListener("hashchange", route);
route();
