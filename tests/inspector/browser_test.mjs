// The inspector in real browsers (issue 20): Debian's Chromium (every
// check) and Firefox ESR (every page loads without a script error), driven
// by puppeteer-core against the real daemon on a workspace seeded through
// /rpc. Run by run_browser_test.sh:
//   node browser_test.mjs MNEMO_BINARY SCRATCH_FOLDER
// It runs once on SQLite and, when $MNEMO_PG_URL_FILE names a readable file
// holding a PostgreSQL url (the cluster CTest starts), once more on it.
// Screenshots of each page (SQLite run) go to SCRATCH_FOLDER/screenshots
// (or $MNEMO_SCREENSHOTS).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { startDaemon } from "./start_daemon.mjs";

const [binary, scratch] = process.argv.slice(2);
const chromium = process.env.MNEMO_CHROMIUM || "/usr/bin/chromium";
const shots = process.env.MNEMO_SCREENSHOTS || join(scratch, "screenshots");
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

let id = 1;
async function rpc(base, token, method, params) {
  const r = await fetch(`${base}/rpc`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const HOSTILE = `<img src=x onerror="window.__xss=1"></script><script>window.__xss=2</script>`;
const BOB_MARKER = "ZQXJ-bob-only";
const failures = [];
function check(backend, what, fn) {
  try {
    fn();
    console.log(`ok - ${backend}: ${what}`);
  } catch (e) {
    failures.push(`${backend}: ${what}: ${e.message}`);
    console.log(`not ok - ${backend}: ${what}: ${e.message}`);
  }
}

async function seed(backend) {
  const workspace = join(scratch, "ws-" + backend);
  mkdirSync(workspace, { recursive: true });
  const sha = (t) => createHash("sha256").update(t).digest("hex");
  let toml = `[memory]\nacl_enabled = true\n`;
  if (backend === "postgres") {
    const url = readFileSync(process.env.MNEMO_PG_URL_FILE, "utf8").trim();
    toml += `backend = "postgres"\n\n[postgres]\nurl = "${url}"\nschema = "mnemo_inspector_${process.pid}"\n`;
  }
  toml += `\n[security.audit]\nenabled = true\n`;
  toml += `\n[[security.tokens]]\nprincipal = "root"\nrole = "admin"\nsha256 = "${sha("root-token")}"\n`;
  toml += `\n[[security.tokens]]\nprincipal = "alice"\nrole = "user"\nsha256 = "${sha("alice-token")}"\n\n` +
    `[[security.tokens]]\nprincipal = "bob"\nrole = "user"\nsha256 = "${sha("bob-token")}"\n`;
  writeFileSync(join(workspace, "mnemo.toml"), toml);
  const daemon = await startDaemon(binary, workspace);
  const base = `http://127.0.0.1:${daemon.port}`;
  const call = (token, method, params) => rpc(base, token, method, params);
  await call("alice-token", "memory.store", { key: "editor", value: "The user prefers Helix over Vim" });
  await call("alice-token", "memory.store", { key: "hostile", value: HOSTILE });
  await call("bob-token", "memory.store", { key: "bob-note", value: `Bob prefers Helix too ${BOB_MARKER}` });
  await call("bob-token", "memory.tool_rule_put", { tool_name: "deploy", rule: `never deploy ${BOB_MARKER}` });
  await call("bob-token", "memory.graph_upsert", { subject: "user", predicate: "likes", object: BOB_MARKER });
  await call("alice-token", "memory.turn_complete", {
    session_id: "trip", user_message: "I am planning a trip to Lisbon.", assistant_response: "Lisbon in May is lovely.",
  });
  await call("alice-token", "memory.turn_complete", {
    session_id: "trip", user_message: "Book the hotel near the river.", assistant_response: "Looking for hotels by the Tagus.",
  });
  await call("alice-token", "memory.session_end", { session_id: "trip", sync: true });
  await call("alice-token", "memory.profile_put", { facet_type: "preference", key: "editor", value: "Vim" });
  await call("alice-token", "memory.graph_upsert", { subject: "user", predicate: "lives_in", object: "Berlin" });
  await call("alice-token", "memory.graph_upsert", { subject: "user", predicate: "lives_in", object: "Lisbon" });
  await call("alice-token", "memory.turn_complete", {
    session_id: "plans", user_message: "We decided to take the night train.", assistant_response: "Noted.",
  });
  await call("alice-token", "memory.session_end", { session_id: "plans", sync: true });
  await call("alice-token", "memory.tool_rule_put", { tool_name: "web_search", rule: "prefer other sources" });
  await call("alice-token", "memory.tool_rule_put", { tool_name: "web_search", rule: "优先使用其他来源" });
  return { daemon, base, call };
}

async function suite(backend) {
  const { daemon, base, call } = await seed(backend);
  // Headers of the page itself.
  const index = await fetch(`${base}/`);
  check(backend, "GET / serves the page with a strict policy and no CORS", () => {
    assert.equal(index.status, 200);
    assert.match(index.headers.get("content-security-policy"), /default-src 'none'; script-src 'self'/);
    assert.equal(index.headers.get("x-content-type-options"), "nosniff");
    assert.equal(index.headers.get("referrer-policy"), "no-referrer");
    assert.equal(index.headers.get("access-control-allow-origin"), null);
  });

  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 800 });
    const jsErrors = [];
    page.on("pageerror", (e) => jsErrors.push(String(e)));
    page.on("console", (m) => {
      // A refused token is a 401 the browser reports as a failed load (the
      // sign-in step), and the daemon's metrics a user asks for a 403: not
      // script errors.
      if (m.type() === "error" && !/status of 40[13]/.test(m.text())) jsErrors.push(m.text());
    });
    page.on("dialog", (d) => d.accept());
    const text = () => page.$eval("main", (m) => m.innerText);
    const shot = (name) =>
      backend === "sqlite" ? page.screenshot({ path: join(shots, name + ".png"), fullPage: true }) : null;
    // Waits for `selector`; on a timeout the error says what the page shows.
    const waitFor = async (selector) => {
      try {
        await page.waitForSelector(selector, { timeout: 15000 });
      } catch (e) {
        const shown = await page.evaluate(() => document.body.innerText).catch(() => "?");
        throw new Error(`${selector} did not appear at ${page.url()}; the page shows:\n${shown}`);
      }
    };
    const go = async (hash, ready) => {
      // A new hash on the same page is no reload: what the last page showed
      // goes first, so `ready` is looked for in the new page only.
      await page.evaluate(() => document.getElementById("main")?.replaceChildren()).catch(() => {});
      await page.goto(`${base}/#/${hash}`, { waitUntil: "networkidle0" });
      if (ready) await waitFor(ready);
    };
    const noBobMarker = async (where) => {
      const body = await page.$eval("body", (b) => b.innerText);
      check(backend, `${where}: no other principal's data`, () => assert.ok(!body.includes(BOB_MARKER)));
    };

    // Sign in: no token, a wrong one, then alice's.
    await go("search", "#token-form");
    await page.type("#token", "wrong-token");
    await page.click("#token-form button");
    await page.waitForFunction(() => document.querySelector("#token-reason")?.textContent.includes("refused"));
    const reason = await page.$eval("#token-reason", (e) => e.textContent);
    check(backend, "a wrong token is refused", () => assert.match(reason, /refused/));
    await page.type("#token", "alice-token");
    await page.click("#token-form button");
    await waitFor("#search-form");
    const stored = await page.evaluate(() => sessionStorage.getItem("mnemo.token"));
    const cookies = await page.cookies();
    check(backend, "the token is kept in sessionStorage, not in the URL or a cookie", () => {
      assert.equal(stored, "alice-token");
      assert.equal(cookies.length, 0);
      assert.ok(!page.url().includes("alice-token"));
    });

    // Search shows the entry with its score and its parts.
    await page.type("#search-query", "helix");
    await page.keyboard.press("Enter");
    await waitFor("#search-results tr.hit");
    const hit = await page.$eval("#search-results tr.hit", (tr) => tr.innerText);
    const hitScore = await page.$eval("#search-results tr.hit td.score", (td) => Number(td.textContent));
    check(backend, "search shows the stored entry with its score", () => {
      assert.match(hit, /editor/);
      assert.ok(hitScore > 0 && hitScore <= 1, String(hitScore));
    });
    await noBobMarker("search");
    await shot("search");

    // Entries: the hostile entry is text.
    await go("entries", "#entries tr.entry");
    const entries = await text();
    const xss = await page.evaluate(() => window.__xss);
    const images = await page.$$eval("main img", (imgs) => imgs.length);
    check(backend, "a hostile entry renders as text", () => {
      assert.ok(entries.includes('<img src=x onerror="window.__xss=1">'), entries);
      assert.equal(xss, undefined);
      assert.equal(images, 0);
    });
    await noBobMarker("entries");
    await shot("entries");

    // Edit an entry: /rpc returns the new content.
    await go("entry?key=editor&namespace=global", "#entry-form");
    await page.$eval("#entry-value", (t) => { t.value = ""; });
    await page.type("#entry-value", "The user prefers Helix, always");
    await page.click("#entry-save");
    await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("saved"));
    const edited = await call("alice-token", "memory.get", { key: "editor" });
    check(backend, "editing an entry changes what /rpc returns", () => assert.equal(edited.content, "The user prefers Helix, always"));
    await shot("entry");

    // Forget asks (the dialog is accepted) and removes.
    await go("entry?key=hostile&namespace=global", "#entry-forget");
    await page.click("#entry-forget");
    await waitFor("#entries");
    const left = await call("alice-token", "memory.list", {});
    check(backend, "forgetting asks and then removes", () => assert.ok(!left.items.some((e) => e.key === "hostile")));

    // Rules: a rule put in the page is in the pinned block.
    await go("rules", "#rule-form");
    await page.type("#rule-tool", "send_email");
    await page.type("#rule-text", "never email Sarah");
    await page.select("#rule-priority", "critical");
    await page.click("#rule-form button");
    await page.waitForFunction(() => document.querySelector("#pinned")?.textContent.includes("never email Sarah"));
    const pinned = await page.$eval("#pinned", (e) => e.textContent);
    check(backend, "a rule put in the page appears in the pinned block", () =>
      assert.match(pinned, /send_email[\s\S]*never email Sarah/));
    await noBobMarker("rules");
    await shot("rules");

    // Sessions: the session's turns in order.
    await go("sessions", "#sessions");
    const sessions = await text();
    check(backend, "the session is listed", () => assert.match(sessions, /trip/));
    await noBobMarker("sessions");
    await shot("sessions");
    await go("session?id=trip", "#turns li.turn");
    const turns = await page.$$eval("#turns li.turn .content", (els) => els.map((e) => e.textContent));
    check(backend, "a session's turns appear in order", () => assert.deepEqual(turns, [
      "I am planning a trip to Lisbon.", "Lisbon in May is lovely.",
      "Book the hotel near the river.", "Looking for hotels by the Tagus."]));
    await shot("session");

    // Profile: a row's correction (no type or key typed) is the current
    // value, the old one in history; a row's deletion asks, then removes.
    await go("profile", "#facets tr.facet");
    await page.click("#facets tr.facet .row-edit");
    await page.$eval("#facets tr.facet .row-editor input", (i) => { i.value = ""; });
    await page.type("#facets tr.facet .row-editor input", "Helix");
    await page.click("#facets tr.facet .row-save");
    await page.waitForFunction(() => document.querySelector("#facets td.current")?.textContent === "Helix");
    const history = await page.$eval("#facets td.history", (td) => td.innerText);
    const corrected = await call("alice-token", "memory.profile", { include_history: true });
    check(backend, "a profile row's correction is current, the old value in history", () => {
      assert.match(history, /Vim/);
      assert.equal(corrected.facets.find((f) => f.key === "editor").value, "Helix");
    });
    await noBobMarker("profile");
    await shot("profile");
    await page.type("#facet-type", "preference");
    await page.type("#facet-key", "seat");
    await page.type("#facet-value", "aisle");
    await page.click("#facet-form button");
    await page.waitForFunction(() => [...document.querySelectorAll("#facets td.current")].some((td) => td.textContent === "aisle"));
    const seatRow = await page.evaluateHandle(() =>
      [...document.querySelectorAll("#facets tr.facet")].find((tr) => tr.innerText.includes("seat")));
    await (await seatRow.$(".row-delete")).click();
    await page.waitForFunction(() => ![...document.querySelectorAll("#facets td.current")].some((td) => td.textContent === "aisle"));
    const afterDelete = await call("alice-token", "memory.profile", {});
    check(backend, "a profile row's deletion removes the facet", () =>
      assert.ok(!afterDelete.facets.some((f) => f.key === "seat")));

    // Events: a row's text corrected, then the event deleted.
    await go("events", "#events-table tr.event");
    const eventText = await page.$eval("#events-table tr.event td.content", (td) => td.textContent);
    await page.click("#events-table tr.event .row-edit");
    await page.$eval("#events-table tr.event .row-editor input", (i) => { i.value = ""; });
    await page.type("#events-table tr.event .row-editor input", "We decided to take the morning train.");
    await page.click("#events-table tr.event .row-save");
    await page.waitForFunction(() => document.querySelector("#events-table td.content")?.textContent.includes("morning"));
    const eventsAfter = await call("alice-token", "memory.events", {});
    check(backend, "an event row's correction is what /rpc returns", () => {
      assert.match(eventText, /night train/);
      assert.ok(eventsAfter.events.some((e) => e.text === "We decided to take the morning train."));
    });
    await shot("events");
    await page.click("#events-table tr.event .row-delete");
    await page.waitForFunction(() => !document.querySelector("#events-table tr.event"));
    const eventsGone = await call("alice-token", "memory.events", {});
    check(backend, "an event row's deletion removes the event", () =>
      assert.ok(!eventsGone.events.some((e) => /train/.test(e.text))));

    // Forget a session from its page, after a confirmation.
    await go("session?id=plans", "#session-forget");
    await page.click("#session-forget");
    await waitFor("#sessions");
    const plansLeft = await call("alice-token", "memory.session_turns", { session_id: "plans" });
    check(backend, "a session is forgotten from its page", () => assert.equal(plansLeft.turns.length, 0));

    // Rules panel of search: whole words, case-blind; Chinese as before.
    await go("search?q=The", "#rule-results");
    const theRules = await page.$eval("#rule-results", (ul) => ul.innerText);
    await go("search?q=其他", "#rule-results");
    const cjkRules = await page.$eval("#rule-results", (ul) => ul.innerText);
    check(backend, "the rules panel matches words, not substrings", () => {
      assert.doesNotMatch(theRules, /other sources/);
      assert.match(cjkRules, /优先使用其他来源/);
    });

    // Search reaches turns, documents and rules too.
    await go("search?q=Lisbon", "#search-results");
    const turnHits = await page.$$eval("#turn-results tr", (rows) => rows.length);
    const docHits = await page.$$eval("#document-results tr", (rows) => rows.length);
    check(backend, "search finds the turns and the session's document", () => {
      assert.ok(turnHits >= 1, String(turnHits));
      assert.ok(docHits >= 1, String(docHits));
    });
    await go("search?q=email", "#rule-results");
    const ruleHits = await page.$eval("#rule-results", (ul) => ul.innerText);
    check(backend, "search finds the rule", () => assert.match(ruleHits, /never email Sarah/));

    // The session's segment, events and document.
    await go("session?id=trip", "#session-documents li");
    const documents = await page.$eval("#session-documents", (ul) => ul.innerText);
    check(backend, "a closed session shows its document", () => assert.match(documents, /agent:\/\/session\/trip\/segment\//));

    // Graph: the current fact in the drawing, the old one in the history.
    await go("graph?subject=user", "#neighbourhood");
    const drawn = await page.$eval("#neighbourhood", (g) => g.textContent);
    const facts = await page.$eval("#triples", (t) => t.innerText);
    check(backend, "the graph draws the current fact and lists the old one", () => {
      assert.match(drawn, /Lisbon/);
      assert.doesNotMatch(drawn, /Berlin/);
      assert.match(facts, /Berlin/);
    });
    await noBobMarker("graph");
    await shot("graph");
    // A current fact's row corrected, a past one's deleted.
    const lisbonRow = await page.evaluateHandle(() =>
      [...document.querySelectorAll("#triples tr.triple")].find((tr) => tr.innerText.includes("Lisbon")));
    await (await lisbonRow.$(".row-edit")).click();
    await page.$eval("#triples .row-editor input", (i) => { i.value = ""; });
    await page.type("#triples .row-editor input", "Porto");
    await page.click("#triples .row-save");
    await page.waitForFunction(() => document.querySelector("#neighbourhood")?.textContent.includes("Porto"));
    const berlinRow = await page.evaluateHandle(() =>
      [...document.querySelectorAll("#triples tr.triple")].find((tr) => tr.innerText.includes("Berlin")));
    await (await berlinRow.$(".row-delete")).click();
    await page.waitForFunction(() => !document.querySelector("#triples")?.innerText.includes("Berlin"));
    const graphAfter = await call("alice-token", "memory.graph_query", { subject: "user", include_history: true });
    check(backend, "a triple row is corrected and another deleted", () => {
      const objects = graphAfter.triples.map((t) => t.object);
      assert.ok(objects.includes("Porto"), objects.join());
      assert.ok(!objects.includes("Lisbon") && !objects.includes("Berlin"), objects.join());
    });

    // Context preview: the block the agent would get, with its budget.
    await go("context?q=Lisbon&preset=balanced", "#context-block");
    const block = await page.$eval("#context-block", (p) => p.textContent);
    const budget = await page.$eval("#context-budget", (p) => p.textContent);
    const built = await call("alice-token", "memory.context_build", { query: "Lisbon", preset: "balanced" });
    check(backend, "the context preview is memory.context_build's block", () => {
      assert.equal(block, built.text);
      assert.match(budget, new RegExp(`^${built.used_chars} of ${built.budget_chars} characters`));
    });
    await noBobMarker("context");
    await shot("context");

    await go("health", "#stats");
    const note = await page.$eval("#health-note", (p) => p.textContent);
    check(backend, "health's store details are an admin's", () => assert.match(note, /admin role/));
    await page.click("#load-metrics");
    await page.waitForFunction(() => document.querySelector("#metrics-out")?.textContent.includes("admin role"));
    await noBobMarker("health");
    await shot("health");

    // Keyboard: the pages are links and forms; Tab reaches the navigation
    // and Enter follows it.
    await go("search", "#search-form");
    await page.focus("header h1 a");  // from the top of the page
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.getAttribute("href") === "#/rules");
    }
    await page.keyboard.press("Enter");
    await waitFor("#rule-form");
    check(backend, "the keyboard reaches a page from the navigation", () => assert.ok(reached));

    // Accessibility: axe-core on each page, evaluated through the DevTools
    // protocol (the page's policy rightly refuses an inline script).
    for (const [hash, ready] of [["search?q=helix", "#search-results"], ["entries", "#entries"],
      ["rules", "#pinned"], ["sessions", "#sessions"], ["session?id=trip", "#turns"],
      ["profile", "#facets"], ["events", "#events-table"], ["graph?subject=user", "#neighbourhood"],
      ["context?q=Lisbon", "#context-block"], ["health", "#stats"]]) {
      await go(hash, ready);
      await page.evaluate(axeSource);
      const serious = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ["violations"] });
        return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id}: ${v.help}`);
      });
      check(backend, `axe: no serious violation on #/${hash}`, () => assert.deepEqual(serious, []));
    }
    // An admin sees the store's health: the embedder's space and the audit
    // log's last lines (addresses, never content).
    await page.evaluate(() => sessionStorage.setItem("mnemo.token", "root-token"));
    await page.reload({ waitUntil: "networkidle0" });
    await waitFor("#health");
    const spaces = await page.$eval("#spaces", (td) => td.textContent);
    const hygiene = await page.$eval("#hygiene", (td) => td.textContent);
    const embedder = await page.$eval("#embedder", (td) => td.textContent);
    const audit = await page.$eval("#audit", (ol) => ol.innerText);
    await page.click("#load-metrics");
    await waitFor("#metrics");
    const metrics = await page.$eval("#metrics", (p) => p.textContent);
    check(backend, "an admin sees the spaces, the audit lines and the metrics", () => {
      assert.match(spaces, /hash-v2-384: \d+ vectors, 384 dimensions, flat index/);
      assert.match(hygiene, /^last scheduled run \d{4}-\d\d-\d\dT/);
      assert.equal(embedder, "hash: hash-v2-384 (ok)");
      assert.match(audit, /"method":"memory\.health","outcome":"denied","principal":"alice"/);
      assert.doesNotMatch(audit, /never email Sarah|Helix/);
      assert.match(metrics, /mnemo_rpc_requests_total/);
    });
    await shot("health");
    check(backend, "no JavaScript error on any page", () => assert.deepEqual(jsErrors, []));
  } finally {
    await browser.close();
    daemon.child.kill("SIGTERM");
  }

}

// Every page again in Firefox ESR (Debian's firefox-esr, over WebDriver
// BiDi): each loads and shows its content with no script error.
async function firefox(backend) {
  const executablePath = process.env.MNEMO_FIREFOX || "/usr/bin/firefox-esr";
  if (!existsSync(executablePath)) {
    console.log(`# no Firefox ESR at ${executablePath}: Chromium only`);
    return;
  }
  const { daemon, base } = await seed(backend + "-firefox");
  const browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${base}/#/search`);
    await page.evaluate(() => sessionStorage.setItem("mnemo.token", "alice-token"));
    const shown = {};
    for (const [hash, ready] of [["search?q=helix", "#search-results tr.hit"], ["entries", "#entries tr.entry"],
      ["rules", "#pinned"], ["sessions", "#sessions"], ["session?id=trip", "#turns li.turn"],
      ["profile", "#facets"], ["graph?subject=user", "#neighbourhood"], ["context?q=Lisbon", "#context-block"],
      ["health", "#stats"]]) {
      await page.goto(`${base}/#/${hash}`);
      await page.reload();
      await page.waitForSelector(ready, { timeout: 15000 });
      shown[hash] = await page.$eval("main", (m) => m.textContent.length);
    }
    check(backend, "Firefox ESR shows every page with no script error", () => {
      assert.deepEqual(errors, []);
      for (const [hash, chars] of Object.entries(shown)) assert.ok(chars > 20, hash);
    });
  } finally {
    await browser.close();
    daemon.child.kill("SIGTERM");
  }
}

const backends = ["sqlite"];
if (process.env.MNEMO_PG_URL_FILE) {
  try {
    readFileSync(process.env.MNEMO_PG_URL_FILE, "utf8");
    backends.push("postgres");
  } catch {
    console.log(`# no PostgreSQL url at ${process.env.MNEMO_PG_URL_FILE}: SQLite only`);
  }
}
for (const backend of backends) await suite(backend);
await firefox("sqlite");

if (failures.length) {
  console.error(`${failures.length} failed:\n` + failures.join("\n"));
  process.exit(1);
}
console.log("inspector browser test: all passed");
