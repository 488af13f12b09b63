// The inspector in a real browser (issue 20): Debian's Chromium driven by
// puppeteer-core against the real daemon, on a workspace seeded through
// /rpc. Run by run_browser_test.sh:
//   node browser_test.mjs MNEMO_BINARY SCRATCH_FOLDER
// Screenshots of each page go to SCRATCH_FOLDER/screenshots (or
// $MNEMO_SCREENSHOTS).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";

const [binary, scratch] = process.argv.slice(2);
const chromium = process.env.MNEMO_CHROMIUM || "/usr/bin/chromium";
const shots = process.env.MNEMO_SCREENSHOTS || join(scratch, "screenshots");
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

function startDaemon(workspace) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["--workspace", workspace, "serve", "--listen", "127.0.0.1:0"], {
      env: { ...process.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const m = err.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.on("exit", (code) => reject(new Error(`mnemo serve exited (${code}): ${err}`)));
  });
}

const workspace = join(scratch, "ws");
mkdirSync(workspace, { recursive: true });
const sha = (t) => createHash("sha256").update(t).digest("hex");
writeFileSync(join(workspace, "mnemo.toml"),
  `[memory]\nacl_enabled = true\n\n` +
  `[[security.tokens]]\nprincipal = "alice"\nrole = "user"\nsha256 = "${sha("alice-token")}"\n\n` +
  `[[security.tokens]]\nprincipal = "bob"\nrole = "user"\nsha256 = "${sha("bob-token")}"\n`);
const { port, child } = await startDaemon(workspace);
const base = `http://127.0.0.1:${port}`;

let id = 1;
async function rpc(token, method, params) {
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
await rpc("alice-token", "memory.store", { key: "editor", value: "The user prefers Helix over Vim" });
await rpc("alice-token", "memory.store", { key: "hostile", value: HOSTILE });
await rpc("bob-token", "memory.store", { key: "bob-note", value: `Bob prefers Helix too ${BOB_MARKER}` });
await rpc("bob-token", "memory.tool_rule_put", { tool_name: "deploy", rule: `never deploy ${BOB_MARKER}` });
await rpc("alice-token", "memory.turn_complete", {
  session_id: "trip", user_message: "I am planning a trip to Lisbon.", assistant_response: "Lisbon in May is lovely.",
});
await rpc("alice-token", "memory.turn_complete", {
  session_id: "trip", user_message: "Book the hotel near the river.", assistant_response: "Looking for hotels by the Tagus.",
});
await rpc("alice-token", "memory.profile_put", { facet_type: "preference", key: "editor", value: "Vim" });

const failures = [];
function check(what, fn) {
  try {
    fn();
    console.log(`ok - ${what}`);
  } catch (e) {
    failures.push(`${what}: ${e.message}`);
    console.log(`not ok - ${what}: ${e.message}`);
  }
}

// Headers of the page itself.
const index = await fetch(`${base}/`);
check("GET / serves the page with a strict policy and no CORS", () => {
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
    // A refused token is a 401 the browser reports as a failed load: that
    // is the sign-in step, not a script error.
    if (m.type() === "error" && !/status of 401/.test(m.text())) jsErrors.push(m.text());
  });
  page.on("dialog", (d) => d.accept());
  const text = () => page.$eval("main", (m) => m.innerText);
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
    await page.goto(`${base}/#/${hash}`, { waitUntil: "networkidle0" });
    if (ready) await waitFor(ready);
  };
  const noBobMarker = async (where) => {
    const body = await page.$eval("body", (b) => b.innerText);
    check(`${where}: no other principal's data`, () => assert.ok(!body.includes(BOB_MARKER)));
  };

  // Sign in: no token, a wrong one, then alice's.
  await go("search", "#token-form");
  await page.type("#token", "wrong-token");
  await page.click("#token-form button");
  await page.waitForFunction(() => document.querySelector("#token-reason")?.textContent.includes("refused"));
  const reason = await page.$eval("#token-reason", (e) => e.textContent);
  check("a wrong token is refused", () => assert.match(reason, /refused/));
  await page.type("#token", "alice-token");
  await page.click("#token-form button");
  await waitFor("#search-form");
  const stored = await page.evaluate(() => sessionStorage.getItem("mnemo.token"));
  const cookies = await page.cookies();
  check("the token is kept in sessionStorage, not in the URL or a cookie", () => {
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
  check("search shows the stored entry with its score", () => {
    assert.match(hit, /editor/);
    assert.ok(hitScore > 0 && hitScore <= 1, String(hitScore));
  });
  await noBobMarker("search");
  await page.screenshot({ path: join(shots, "search.png"), fullPage: true });

  // Entries: the hostile entry is text.
  await go("entries", "#entries tr.entry");
  const entries = await text();
  const xss = await page.evaluate(() => window.__xss);
  const images = await page.$$eval("main img", (imgs) => imgs.length);
  check("a hostile entry renders as text", () => {
    assert.ok(entries.includes('<img src=x onerror="window.__xss=1">'), entries);
    assert.equal(xss, undefined);
    assert.equal(images, 0);
  });
  await noBobMarker("entries");
  await page.screenshot({ path: join(shots, "entries.png"), fullPage: true });

  // Edit an entry: /rpc returns the new content.
  await go("entry?key=editor&namespace=global", "#entry-form");
  await page.$eval("#entry-value", (t) => { t.value = ""; });
  await page.type("#entry-value", "The user prefers Helix, always");
  await page.click("#entry-save");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("saved"));
  const edited = await rpc("alice-token", "memory.get", { key: "editor" });
  check("editing an entry changes what /rpc returns", () => assert.equal(edited.content, "The user prefers Helix, always"));
  await page.screenshot({ path: join(shots, "entry.png"), fullPage: true });

  // Forget asks (the dialog is accepted) and removes.
  await go("entry?key=hostile&namespace=global", "#entry-forget");
  await page.click("#entry-forget");
  await waitFor("#entries");
  const left = await rpc("alice-token", "memory.list", {});
  check("forgetting asks and then removes", () => assert.ok(!left.items.some((e) => e.key === "hostile")));

  // Rules: a rule put in the page is in the pinned block.
  await go("rules", "#rule-form");
  await page.type("#rule-tool", "send_email");
  await page.type("#rule-text", "never email Sarah");
  await page.select("#rule-priority", "critical");
  await page.click("#rule-form button");
  await page.waitForFunction(() => document.querySelector("#pinned")?.textContent.includes("never email Sarah"));
  const pinned = await page.$eval("#pinned", (e) => e.textContent);
  check("a rule put in the page appears in the pinned block", () =>
    assert.match(pinned, /send_email[\s\S]*never email Sarah/));
  await noBobMarker("rules");
  await page.screenshot({ path: join(shots, "rules.png"), fullPage: true });

  // Sessions: the session's turns in order.
  await go("sessions", "#sessions");
  const sessions = await text();
  check("the session is listed", () => assert.match(sessions, /trip/));
  await page.screenshot({ path: join(shots, "sessions.png"), fullPage: true });
  await go("session?id=trip", "#turns li.turn");
  const turns = await page.$$eval("#turns li.turn .content", (els) => els.map((e) => e.textContent));
  check("a session's turns appear in order", () => assert.deepEqual(turns, [
    "I am planning a trip to Lisbon.", "Lisbon in May is lovely.",
    "Book the hotel near the river.", "Looking for hotels by the Tagus."]));
  await page.screenshot({ path: join(shots, "session.png"), fullPage: true });

  // Profile: a correction is the current value, the old one in history.
  await go("profile", "#facet-form");
  await page.type("#facet-type", "preference");
  await page.type("#facet-key", "editor");
  await page.type("#facet-value", "Helix");
  await page.click("#facet-form button");
  await page.waitForFunction(() => document.querySelector("#facets td.current")?.textContent === "Helix");
  const history = await page.$eval("#facets td.history", (td) => td.innerText);
  check("a profile correction is current, the old value in history", () => assert.match(history, /Vim/));
  await page.screenshot({ path: join(shots, "profile.png"), fullPage: true });

  await go("health", "#stats");
  await noBobMarker("health");
  await page.screenshot({ path: join(shots, "health.png"), fullPage: true });

  // Accessibility: axe-core on each page, evaluated through the DevTools
  // protocol (the page's policy rightly refuses an inline script).
  for (const [hash, ready] of [["search?q=helix", "#search-results"], ["entries", "#entries"],
    ["rules", "#pinned"], ["sessions", "#sessions"], ["profile", "#facets"], ["health", "#stats"]]) {
    await go(hash, ready);
    await page.evaluate(axeSource);
    const serious = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.help}`);
    });
    check(`axe: no serious violation on #/${hash}`, () => assert.deepEqual(serious, []));
  }
  check("no JavaScript error on any page", () => assert.deepEqual(jsErrors, []));
} finally {
  await browser.close();
  child.kill("SIGTERM");
}

if (failures.length) {
  console.error(`${failures.length} failed:\n` + failures.join("\n"));
  process.exit(1);
}
console.log("inspector browser test: all passed");
