#!/usr/bin/env node
// End-to-end test of the Activity Timeline page in real Chromium (playwright-core + the system
// /usr/bin/chromium), against a real keel-server running the scripted plan-mode demo
// (examples/scripts/timeline-demo.json) on a copy of examples/sample-project.
//
//   node web/e2e/timeline.e2e.mjs target/debug/keel-server
//
// It starts the task from the page, sees phase and tool nodes appear, approves the plan with
// the keyboard, answers the agent's question, sees the move_file update the FileTree (old node
// gone, new node present, the selection moved along), reloads and sees the same history,
// rejects and cancels with the keyboard. A second server runs examples/scripts/page-demo.json:
// answer a planning reply (plan_mode_respond) with the keyboard, edit the plan (edit, reorder,
// delete, add steps) and approve it changed (run.plan.modify), see thinking, streamed command
// output, diffs, usage and the context window, run a file from the FileTree and see its
// exec.file.* output, revoke a permission rule, switch to Chinese. A third runs
// examples/scripts/page-workspace.json in a shadow session with two MCP servers configured:
// allow a command "always" (the rule written shown), review the staged diffs, apply one file and
// discard the rest, forget a project memory entry, see each MCP server's state. A fourth sends
// two explorers at once and sees their rows nested under their task calls. A fifth
// measures the time to the first timeline row of a 5,000-event session. axe-core checks each main state (no serious
// or critical violations); screenshots go to target/e2e-artifacts/ and are compared loosely
// (16×16-pixel blocks) with the committed ones in web/e2e/screenshots/ (KEEL_E2E_UPDATE_SCREENSHOTS=1
// rewrites those). Exits non-zero with a message on any failure; always stops the server.
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ARTIFACTS = join(REPO, "target", "e2e-artifacts");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const SCRIPT = join(REPO, "examples", "scripts", "timeline-demo.json");
const PAGE_SCRIPT = join(REPO, "examples", "scripts", "page-demo.json");
const WORKSPACE_SCRIPT = join(REPO, "examples", "scripts", "page-workspace.json");
const IMAGE_HOOKS_SCRIPT = join(REPO, "examples", "scripts", "page-image-hooks.json");
const MCP_ECHO = join(REPO, "web", "e2e", "mcp-echo.mjs");
const SCREENSHOTS = join(REPO, "web", "e2e", "screenshots");
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const STEP_TIMEOUT = 30_000;
/** Blocks of this many pixels square are compared by mean brightness. */
const BLOCK = 16;
/** A block differs when its mean brightness moved by more than this (of 255). */
const BLOCK_DELTA = 16;
/** The share of differing blocks that fails a screenshot (a layout change moves many more). */
const MAX_CHANGED_BLOCKS = 0.05;
/** Events in the session the time to first row is measured on. */
const BULK_EVENTS = 5_000;

const serverArg = process.argv[2];
if (!serverArg) {
  console.error("usage: node web/e2e/timeline.e2e.mjs PATH/TO/keel-server");
  process.exit(2);
}
const SERVER_BIN = resolve(process.cwd(), serverArg);

let server;
let serverLog = "";
let context;
let workDir;

function log(message) {
  console.log(`[e2e] ${message}`);
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });
}

async function waitForHealth(base, deadlineMs) {
  const until = Date.now() + deadlineMs;
  let last = "";
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`keel-server exited with ${server.exitCode}`);
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.ok) return response.json();
      last = `HTTP ${response.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`keel-server did not become healthy at ${base}: ${last}`);
}

async function stopServer() {
  if (!server || server.exitCode !== null) return;
  server.kill("SIGTERM");
  const exited = await Promise.race([
    new Promise((r) => server.once("exit", () => r(true))),
    new Promise((r) => setTimeout(() => r(false), 5000)),
  ]);
  if (!exited) server.kill("SIGKILL");
}

async function cleanup() {
  try {
    await context?.close();
  } catch {
    // The browser is already gone.
  }
  await stopServer();
  if (workDir && !process.env.KEEL_E2E_KEEP) rmSync(workDir, { recursive: true, force: true });
}

/** Rows of the timeline as text, for comparing before and after a reload. */
async function timelineRows(page) {
  return page.$$eval('[data-testid="timeline"] > li', (rows) =>
    rows.map((row) => `${row.getAttribute("data-testid")}|${row.textContent?.replace(/\s+/g, " ").trim()}`),
  );
}

async function check(description, fn) {
  log(description);
  try {
    await fn();
  } catch (err) {
    throw new Error(`${description}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Starts keel-server with `script` on `root` (and `extra` arguments); stops the one before.
 * Returns its address and token. */
async function launch(script, root, name, extra = []) {
  await stopServer();
  serverLog = "";
  const dataDir = join(workDir, `data-${name}`);
  mkdirSync(dataDir);
  const token = randomBytes(16).toString("hex");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = [
    "--addr", `127.0.0.1:${port}`,
    "--data-dir", dataDir,
    "--token", token,
    "--provider", `scripted:${script}`,
    "--approve-plans",
    "--allow-root", root,
    ...extra,
  ];
  log(`starting ${SERVER_BIN} ${args.join(" ").replace(token, "***")}`);
  server = spawn(SERVER_BIN, args, { cwd: workDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "info" } });
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  const health = await waitForHealth(base, 60_000);
  log(`server healthy: ${JSON.stringify(health)}`);
  return { base, token };
}

/** Presses Tab until `selector` has the focus (keyboard-only use), then `key`. */
async function tabTo(page, selector, key = "Enter") {
  for (let i = 0; i < 250; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) {
      if (key) await page.keyboard.press(key);
      return;
    }
  }
  throw new Error(`the Tab key never reached ${selector}`);
}

/** Runs axe-core on the page; fails on serious or critical violations. */
async function checkAccessibility(page, state) {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")})`);
  });
  if (violations.length > 0) throw new Error(`axe-core in state "${state}":\n${violations.join("\n")}`);
}

/** Mean brightness per BLOCK×BLOCK block. */
function blocks(png) {
  const cols = Math.ceil(png.width / BLOCK);
  const rows = Math.ceil(png.height / BLOCK);
  const sums = new Float64Array(cols * rows);
  const counts = new Uint32Array(cols * rows);
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      const b = Math.floor(y / BLOCK) * cols + Math.floor(x / BLOCK);
      sums[b] += 0.299 * png.data[i] + 0.587 * png.data[i + 1] + 0.114 * png.data[i + 2];
      counts[b]++;
    }
  }
  return sums.map((sum, b) => sum / counts[b]);
}

/** Takes screenshot `name` (dynamic text masked) and compares it loosely with the committed one. */
async function screenshot(page, name) {
  const path = join(ARTIFACTS, `${name}.png`);
  // Masked: times, the session's root, the session list, an MCP server's command line (it holds
  // this checkout's path).
  const mask = [page.locator("time"), page.locator(".session-header .muted"), page.getByTestId("session-item"), page.locator(".mcp-transport")];
  // Scrolling done first (the timeline follows its newest row smoothly): masks are placed
  // where their elements are, and the shot does not catch a list mid-scroll.
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        const positions = () =>
          `${window.scrollY};` +
          Array.from(document.querySelectorAll("*"))
            .filter((e) => e.scrollHeight > e.clientHeight)
            .map((e) => e.scrollTop)
            .join(",");
        let last = positions();
        let still = 0;
        const tick = () => {
          const now = positions();
          still = now === last ? still + 1 : 0;
          last = now;
          if (still >= 5) resolve(undefined);
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  await page.screenshot({ path, mask, animations: "disabled", caret: "hide" });
  const baseline = join(SCREENSHOTS, `${name}.png`);
  if (!existsSync(baseline) || process.env.KEEL_E2E_UPDATE_SCREENSHOTS) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    copyFileSync(path, baseline);
    log(`screenshot ${name}: baseline written to ${baseline}`);
    return;
  }
  const shot = PNG.sync.read(readFileSync(path));
  const base = PNG.sync.read(readFileSync(baseline));
  if (shot.width !== base.width || shot.height !== base.height) {
    throw new Error(`screenshot ${name} is ${shot.width}×${shot.height}, the committed one ${base.width}×${base.height}`);
  }
  const a = blocks(shot);
  const b = blocks(base);
  let changed = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i] - b[i]) > BLOCK_DELTA) changed++;
  const share = changed / a.length;
  log(`screenshot ${name}: ${(share * 100).toFixed(2)}% of blocks differ from the committed one`);
  if (share > MAX_CHANGED_BLOCKS) {
    throw new Error(
      `screenshot ${name} differs from web/e2e/screenshots/${name}.png in ${(share * 100).toFixed(1)}% of its blocks ` +
        `(layout changed? see ${path}; KEEL_E2E_UPDATE_SCREENSHOTS=1 accepts it)`,
    );
  }
}

/** The page's bundle size: every file of web/dist, raw and gzipped. */
function bundleSize() {
  const dist = join(REPO, "web", "dist");
  let raw = 0;
  let gzip = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        raw += bytes.length;
        gzip += gzipSync(bytes, { level: 9 }).length;
      }
    }
  };
  if (existsSync(dist)) walk(dist);
  return { raw, gzip };
}

async function api(base, token, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The interactions of examples/scripts/page-demo.json on a fresh server and project. */
async function pageDemo(page) {
  const root = join(workDir, "project-page");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  mkdirSync(join(root, ".keel"));
  const rulesFile = join(root, ".keel", "rules.toml");
  writeFileSync(
    rulesFile,
    '# Rules for the page demo.\n[[rule]]\nmatch = ["python3"]\ndecision = "allow"\n\n[[rule]]\nmatch = ["git", "push"]\ndecision = "ask"\n',
  );
  // Leave the previous server's page first: its stream would log connection errors.
  await page.goto("about:blank");
  const { base, token } = await launch(PAGE_SCRIPT, root, "page");
  const query = new URLSearchParams({ project: "page-demo", root, mode: "plan" });
  await page.goto(`${base}/?${query}#token=${token}`);
  await page.getByTestId("task-input").waitFor();

  await check("answer a planning reply (plan_mode_respond) with the keyboard only", async () => {
    await tabTo(page, '[data-testid="task-input"]', null);
    await page.keyboard.type("Fix mean() and give me a way to check it");
    await page.keyboard.press("Control+Enter");
    const box = page.getByTestId("question-box");
    await box.waitFor();
    const text = (await box.textContent()) ?? "";
    if (!text.includes("Shall I plan it?")) throw new Error(`unexpected planning reply: ${text}`);
    await tabTo(page, '[data-testid="question-option"]');
    await box.waitFor({ state: "detached" });
  });

  await check("edit the plan: change a title, reorder, delete and add steps", async () => {
    await page.getByTestId("approval-request").waitFor();
    await page.getByTestId("plan-edit-button").click();
    const editor = page.getByTestId("plan-editor");
    await editor.waitFor();
    const titles = () => editor.getByTestId("plan-edit-title").evaluateAll((inputs) => inputs.map((i) => i.value));
    const initial = await titles();
    if (JSON.stringify(initial) !== JSON.stringify(["Fix mean()", "Run the unit tests", "Write a check script"])) {
      throw new Error(`the editor starts with ${JSON.stringify(initial)}`);
    }
    await editor.getByTestId("plan-edit-title").nth(0).fill("");
    await page.getByTestId("plan-edit-problem").waitFor();
    if (!(await page.getByTestId("plan-edit-submit").isDisabled())) throw new Error("an untitled step can be submitted");
    await editor.getByTestId("plan-edit-title").nth(0).fill("Fix mean() in calc/stats.py");
    await editor.getByTestId("plan-edit-up").nth(2).click();
    await editor.getByTestId("plan-edit-delete").nth(2).click();
    await editor.getByTestId("plan-edit-add").click();
    await editor.getByTestId("plan-edit-title").nth(2).fill("Run the check script");
    await editor.getByTestId("plan-edit-description").nth(2).fill("Run python3 check.py.");
    const edited = await titles();
    if (JSON.stringify(edited) !== JSON.stringify(["Fix mean() in calc/stats.py", "Write a check script", "Run the check script"])) {
      throw new Error(`after editing: ${JSON.stringify(edited)}`);
    }
    await checkAccessibility(page, "editing a plan");
    await screenshot(page, "07-plan-editor");
    await page.getByTestId("plan-edit-submit").click();
    await page.getByTestId("approval-request").waitFor({ state: "detached" });
  });

  await check("see the changed plan run (run.plan.modify) with thinking, output, diffs and usage", async () => {
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    const steps = (await page.getByTestId("plan-step").allTextContents()).map((t) => t.replace(/\s*\((pending|running|done|failed)\)$/, "").replace(/^\W+/, "").trim());
    if (JSON.stringify(steps) !== JSON.stringify(["Fix mean() in calc/stats.py", "Write a check script", "Run the check script"])) {
      throw new Error(`plan shown: ${JSON.stringify(steps)}`);
    }
    const id = await page.getByTestId("session-view").getAttribute("data-session-id");
    const { events } = await api(base, token, "GET", `/v1/sessions/${id}/events?limit=1000`);
    const modify = events.find((e) => e.type === "run.plan.modify");
    if (!modify || modify.payload.plan.steps.map((s) => s.title).join("|") !== steps.join("|")) {
      throw new Error(`no matching run.plan.modify: ${JSON.stringify(modify?.payload)}`);
    }
    // Thinking is collapsed until opened.
    const block = page.getByTestId("thinking-block").first();
    if ((await block.getAttribute("open")) !== null) throw new Error("thinking is not collapsed");
    await block.locator("summary").click();
    await block.getByText("Ask before planning.").waitFor();
    const output = page.locator('[data-testid="command-output"][data-status="success"]');
    await output.getByText("ok").first().waitFor();
    if (!((await output.textContent()) ?? "").includes("mean([1, 2, 3]) = 2.0")) throw new Error("command output lacks the script's output");
    await output.locator("summary").click();
    if ((await output.getAttribute("open")) !== null) throw new Error("command output does not collapse");
    const created = page.locator('[data-testid="file-change"][data-path="check.py"]');
    await created.getByTestId("diff").locator(".diff-add", { hasText: 'print("ok")' }).waitFor();
    await page.locator('[data-testid="file-change"][data-path="calc/stats.py"]').getByTestId("diff").locator(".diff-del").first().waitFor();
    await page.getByTestId("tool-action").getByText("Editing calc/stats.py").first().waitFor();
    const tokens = (await page.getByTestId("usage-tokens").textContent()) ?? "";
    if (!/Tokens: [\d,]+/.test(tokens)) throw new Error(`token use shows "${tokens}"`);
    const percent = Number(await page.getByTestId("context-bar").getAttribute("data-percent"));
    if (!(percent > 0 && percent <= 100)) throw new Error(`context bar at ${percent}%`);
    const hasRepomap = events.some((e) => e.type === "prepare.repomap.build");
    if (hasRepomap) await page.getByTestId("repomap").waitFor();
  });
  await checkAccessibility(page, "completed with details");
  await screenshot(page, "08-details");

  await check("run a file from the FileTree and see its exec.file.* output live", async () => {
    const node = page.locator('[data-testid="file-node"][data-path="check.py"]');
    await node.getByTestId("run-file").click();
    const run = page.locator('[data-testid="file-run"][data-file="check.py"][data-done="true"]');
    await run.waitFor();
    if ((await run.getAttribute("data-exit-code")) !== "0") throw new Error(`exit code ${await run.getAttribute("data-exit-code")}`);
    await run.locator('[data-stream="stdout"]', { hasText: "mean([1, 2, 3]) = 2.0" }).waitFor();
    await run.locator('[data-stream="stderr"]', { hasText: "checking on stderr" }).waitFor();
    await run.getByTestId("file-run-state").getByText("exit code 0").waitFor();
  });

  await check("list the permission rules and revoke one with the keyboard", async () => {
    await page.getByTestId("rule").nth(1).waitFor();
    const before = await page.getByTestId("rule").allTextContents();
    if (!before[1]?.includes("git push")) throw new Error(`rules shown: ${JSON.stringify(before)}`);
    await tabTo(page, '[aria-label="Revoke the rule ask git push"]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="rule"]').length === 1);
    const left = readFileSync(rulesFile, "utf8");
    if (left.includes("push") || !left.includes("python3")) throw new Error(`rules file after revoking:\n${left}`);
  });

  await check("switch the page to Simplified Chinese and back", async () => {
    await page.getByTestId("language-switch").selectOption("zh-CN");
    await page.getByTestId("cancel-button").getByText("取消").waitFor();
    if ((await page.evaluate(() => document.documentElement.lang)) !== "zh-CN") throw new Error("html lang is not zh-CN");
    await page.getByTestId("file-runs").getByText("文件运行").waitFor();
    await page.getByTestId("tool-action").getByText("正在编辑 calc/stats.py").first().waitFor();
    // Timeline rows are worded in Chinese too: phases, file operations, task lines.
    await page.getByTestId("timeline-phase").getByText("编码").first().waitFor();
    await page.getByTestId("timeline-file").getByText("已更新").first().waitFor();
    await page.getByTestId("timeline-log").getByText(/^任务开始：/).first().waitFor();
    await screenshot(page, "09-chinese");
    await page.reload();
    await page.getByTestId("cancel-button").getByText("取消").waitFor();
    await page.getByTestId("language-switch").selectOption("en");
    await page.getByTestId("cancel-button").getByText("Cancel").waitFor();
  });

  await check("open the page in Chinese when the browser prefers Chinese", async () => {
    const zh = await context.newPage();
    try {
      await zh.addInitScript(() => {
        Object.defineProperty(navigator, "languages", { get: () => ["zh-CN", "zh"] });
        localStorage.removeItem("keel.lang");
      });
      await zh.goto(`${base}/#token=${token}`);
      await zh.getByTestId("task-submit").getByText("开始任务").waitFor();
      if ((await zh.evaluate(() => document.documentElement.lang)) !== "zh-CN") throw new Error("html lang is not zh-CN");
    } finally {
      await zh.close();
    }
  });

  await check("fork the session at its checkpoint, then rewind the turn with the keyboard", async () => {
    const stats = join(root, "calc", "stats.py");
    const fixed = () => !readFileSync(stats, "utf8").includes("(len(values) - 1)");
    if (!fixed() || !existsSync(join(root, "check.py"))) throw new Error("the turn's changes are not on disk");
    await page.getByTestId("checkpoint").first().waitFor();
    // Fork first: rewinding to before turn 1 consumes the checkpoints of the turns it undoes.
    const before = await page.getByTestId("session-item").count();
    await page.getByTestId("checkpoint-fork").first().click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="session-item"]').length === n + 1,
      before,
    );
    if (!fixed()) throw new Error("forking changed the original's files");
    await page.getByTestId("session-item").nth(1).click();
    await page.getByTestId("checkpoint").first().waitFor();
    await tabTo(page, '[aria-label="Rewind files and history to before turn 1"]');
    await page.getByTestId("checkpoints-done").waitFor();
    const said = (await page.getByTestId("checkpoints-done").textContent()) ?? "";
    if (!said.includes("1 turn undone")) throw new Error(`rewind reported: ${said}`);
    if (fixed()) throw new Error("rewind did not restore calc/stats.py");
    if (existsSync(join(root, "check.py"))) throw new Error("rewind left check.py, which the turn created");
    await page.getByTestId("checkpoints-empty").waitFor();
    await checkAccessibility(page, "checkpoints");
  });
}

/** A shadow session (examples/scripts/page-workspace.json) on a server with two MCP servers (one
 * that runs, one that cannot start) and a project that remembers two things: allow a command
 * "always" and see the rule written, review the staged changes, apply one file and discard the
 * rest, forget a memory entry, see each MCP server's state. */
async function workspaceDemo(page) {
  const root = join(workDir, "project-workspace");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  mkdirSync(join(root, ".keel"));
  const memoryFile = join(root, ".keel", "memory.json");
  writeFileSync(
    memoryFile,
    JSON.stringify({
      version: 2,
      entries: [
        { id: "mem_0a1b2c3d", kind: "convention", text: "Tests run with python3 -m unittest", tags: ["testing"], created_at: "2026-11-20T09:30:00Z" },
        { id: "mem_4e5f6a7b", kind: "decision", text: "mean() divides by len(values), not len(values) - 1", tags: ["calc"], created_at: "2026-11-21T10:00:00Z" },
      ],
    }),
  );
  const config = join(workDir, "workspace-server.toml");
  writeFileSync(
    config,
    `[mcp_servers.echo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(MCP_ECHO)}]\nstartup_timeout_secs = 20\n\n` +
      `[mcp_servers.broken]\ncommand = "/nonexistent/keel-e2e-mcp-server"\n`,
  );
  await page.goto("about:blank");
  const { base, token } = await launch(WORKSPACE_SCRIPT, root, "workspace", ["--config", config]);
  const query = new URLSearchParams({ project: "workspace", root, mode: "direct", shadow: "1" });
  await page.goto(`${base}/?${query}#token=${token}`);
  await page.getByTestId("task-input").waitFor();
  const stats = join(root, "calc", "stats.py");
  const unfixed = () => readFileSync(stats, "utf8").includes("(len(values) - 1)");

  await check("start a shadow task and allow its command always, with the keyboard", async () => {
    if (!(await page.getByTestId("task-shadow").isChecked())) throw new Error("?shadow=1 did not tick the shadow box");
    await page.getByTestId("task-input").fill("Fix mean() and note how to run the tests");
    await page.getByTestId("task-submit").click();
    const request = page.getByTestId("approval-request");
    await request.waitFor();
    if (!((await request.textContent()) ?? "").includes("python3 -B -m unittest")) throw new Error(`unexpected approval: ${await request.textContent()}`);
    await checkAccessibility(page, "approval with always");
    await screenshot(page, "10-always");
    await tabTo(page, '[data-testid="always-button"]');
    await request.waitFor({ state: "detached" });
    const written = page.getByTestId("rules-written");
    await written.getByTestId("rule-written").first().waitFor();
    const rules = await written.getByTestId("rule-written").allTextContents();
    if (rules.length !== 1 || !rules[0]?.startsWith("allow python3")) throw new Error(`rules written: ${JSON.stringify(rules)}`);
    if (!((await written.textContent()) ?? "").includes(join(root, ".keel", "rules.toml"))) throw new Error("the rules file is not named");
    await page.getByTestId("rule").filter({ hasText: rules[0] }).waitFor();
    if (!readFileSync(join(root, ".keel", "rules.toml"), "utf8").includes("python3")) throw new Error("no rule in .keel/rules.toml");
  });

  await check("review the staged changes: each file with its diff, the real files untouched", async () => {
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="shadow-change"]').nth(1).waitFor();
    const staged = await page.getByTestId("shadow-change").evaluateAll((rows) => rows.map((r) => `${r.getAttribute("data-kind")} ${r.getAttribute("data-path")}`));
    if (JSON.stringify(staged) !== JSON.stringify(["created NOTES.md", "updated calc/stats.py"])) throw new Error(`staged: ${JSON.stringify(staged)}`);
    if (!unfixed() || existsSync(join(root, "NOTES.md"))) throw new Error("a staged change reached the real tree before it was applied");
    const change = page.locator('[data-testid="shadow-change"][data-path="calc/stats.py"]');
    await change.locator("summary").click();
    await change.locator(".diff-del", { hasText: "(len(values) - 1)" }).waitFor();
    await change.locator(".diff-add", { hasText: "sum(values) / len(values)" }).waitFor();
    await checkAccessibility(page, "shadow review");
    await screenshot(page, "11-shadow-review");
  });

  await check("apply one file, then discard the rest after confirming", async () => {
    await page.locator('[data-testid="shadow-change"][data-path="NOTES.md"]').getByTestId("shadow-include").uncheck();
    await page.getByTestId("shadow-apply").getByText("Apply 1 file").waitFor();
    await page.getByTestId("shadow-apply").click();
    const outcome = page.getByTestId("shadow-outcome");
    await outcome.getByText("Applied 1 file to the real tree; 1 still staged.").waitFor();
    if (unfixed()) throw new Error("applying did not write calc/stats.py");
    if (existsSync(join(root, "NOTES.md"))) throw new Error("NOTES.md, left out, was applied");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="shadow-change"]').length === 1);
    await page.getByTestId("shadow-discard").click();
    await page.getByTestId("shadow-discard-no").click();
    if ((await page.getByTestId("shadow-change").count()) !== 1) throw new Error("Keep discarded something");
    await page.getByTestId("shadow-discard").click();
    await page.getByTestId("shadow-discard-yes").click();
    await outcome.getByText("Discarded every staged change.").waitFor();
    await page.getByTestId("shadow-empty").waitFor();
    if (existsSync(join(root, "NOTES.md"))) throw new Error("discarding wrote NOTES.md");
    if (existsSync(join(root, ".keel", "shadow", await page.getByTestId("session-view").getAttribute("data-session-id")))) {
      throw new Error("the shadow workspace outlived the discard");
    }
  });

  await check("list the project memory, narrow it, forget an entry after confirming", async () => {
    const memory = page.getByTestId("memory");
    await memory.getByTestId("memory-entry").nth(1).waitFor();
    const ids = await memory.getByTestId("memory-entry").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")));
    if (JSON.stringify(ids) !== JSON.stringify(["mem_4e5f6a7b", "mem_0a1b2c3d"])) throw new Error(`memory shown: ${JSON.stringify(ids)}`);
    await memory.getByTestId("memory-filter").fill("testing");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-entry"]').length === 1);
    await memory.getByTestId("memory-filter").fill("");
    const decision = memory.locator('[data-testid="memory-entry"][data-id="mem_4e5f6a7b"]');
    if (!((await decision.textContent()) ?? "").includes("#calc")) throw new Error(`entry shows ${await decision.textContent()}`);
    await decision.getByTestId("memory-forget").click();
    await decision.getByTestId("memory-forget-yes").waitFor();
    await checkAccessibility(page, "memory forget confirmation");
    await decision.getByTestId("memory-forget-yes").click();
    await memory.getByTestId("memory-forgotten").waitFor();
    await decision.waitFor({ state: "detached" });
    const left = JSON.parse(readFileSync(memoryFile, "utf8")).entries.map((e) => e.id);
    if (JSON.stringify(left) !== JSON.stringify(["mem_0a1b2c3d"])) throw new Error(`memory file after forgetting: ${JSON.stringify(left)}`);
  });

  await check("see each MCP server's state, tool count and failure", async () => {
    await page.getByTestId("mcp-refresh").click();
    const echo = page.locator('[data-testid="mcp-server"][data-name="echo"][data-state="running"]');
    await echo.waitFor();
    const tools = (await echo.getByTestId("mcp-tools").textContent()) ?? "";
    if (tools !== "2 tools") throw new Error(`echo shows "${tools}"`);
    const broken = page.locator('[data-testid="mcp-server"][data-name="broken"][data-state="failed"]');
    await broken.getByTestId("mcp-reason").waitFor();
    const order = await page.getByTestId("mcp-server").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-name")));
    if (JSON.stringify(order) !== JSON.stringify(["broken", "echo"])) throw new Error(`servers listed as ${JSON.stringify(order)}`);
    await checkAccessibility(page, "memory and MCP");
    await screenshot(page, "12-memory-mcp");
  });

  await check("the new panels speak Chinese", async () => {
    await page.getByTestId("language-switch").selectOption("zh-CN");
    await page.getByTestId("memory").getByText("项目记忆").waitFor();
    await page.getByTestId("mcp").getByText("MCP 服务器").waitFor();
    await page.locator('[data-testid="mcp-server"][data-name="broken"]').getByText("失败").waitFor();
    await page.getByTestId("shadow").getByText("没有暂存的变更：真实文件保持智能体留下的样子。").waitFor();
    await page.getByTestId("language-switch").selectOption("en");
  });
}

/** `length` letters that never repeat a short piece, the same on every run: an answer of
 * `xxx…` is stopped by the engine's loop guard, as a model caught in a loop is. */
function unrepeatingText(length) {
  let state = 0x2545f491;
  let text = "";
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    text += String.fromCharCode(97 + (state % 26));
  }
  return text;
}

/** A small red PNG, written to `path`. */
function writePng(path) {
  const png = new PNG({ width: 8, height: 8 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([220, 30, 30, 255], i);
  writeFileSync(path, PNG.sync.write(png));
}

/** Issue 27 §3 and issue 26 §1 and §3 on the page: a task with an uploaded image on a vision
 * model, its tool call passing a PreToolUse and a PostToolUse hook (rows on the timeline), a
 * follow-up `/review FILE` picked from the custom command hints, an edit whose type error
 * pyright (issue 27 §1) reports under its row, a file that is not an image
 * refused in the page, and the same upload on a model without vision refused by the model's
 * name. */
async function imageHooksDemo(page) {
  const root = join(workDir, "project-images");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  const shot = join(workDir, "shot.png");
  writePng(shot);
  const notes = join(workDir, "notes.txt");
  writeFileSync(notes, "not an image");
  // In the project: hooks run in the session's sandbox, which may write only there.
  const hookLog = join(root, "post-hook.log");
  mkdirSync(join(root, ".claude", "commands"), { recursive: true });
  writeFileSync(
    join(root, ".claude", "commands", "review.md"),
    "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs and say what is wrong.\n",
  );
  const config = join(workDir, "image-hooks-server.toml");
  writeFileSync(
    config,
    // Generous waits for pyright: what it says is checked, not how fast (the bench does that).
    `vision = true\n\n[lsp.python]\nwait_ms = 30000\nstart_wait_ms = 60000\n\n[[hooks.PreToolUse]]\nmatcher = "read_file"\n` +
      `command = ${JSON.stringify(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"reading is fine"}}'`)}\n\n` +
      `[[hooks.PostToolUse]]\nmatcher = "read_file"\ncommand = ${JSON.stringify(`cat > ${hookLog}`)}\n`,
  );
  await page.goto("about:blank");
  let { base, token } = await launch(IMAGE_HOOKS_SCRIPT, root, "image-hooks", ["--config", config]);
  const query = new URLSearchParams({ project: "images", root, mode: "direct" });
  await page.goto(`${base}/?${query}#token=${token}`);
  await page.getByTestId("task-input").waitFor();

  await check("a file that is not an image is refused in the page, by name", async () => {
    await page.getByTestId("task-images-input").setInputFiles(notes);
    await page.getByText("notes.txt").first().waitFor();
    if ((await page.getByTestId("attached-image").count()) !== 0) throw new Error("notes.txt was attached");
  });

  await check("attach an image, run the task: the image reaches the turn, hooks run on its tool call", async () => {
    await page.getByTestId("task-images-input").setInputFiles(shot);
    await page.getByTestId("attached-image").filter({ hasText: "shot.png" }).waitFor();
    await page.getByTestId("task-input").fill("What does this picture point at?");
    await checkAccessibility(page, "image attached");
    await screenshot(page, "13-image-attached");
    await page.getByTestId("task-submit").click();
    await page.getByTestId("session-view").waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="timeline-log"]', { hasText: "Task started: What does this picture point at? (images: shot.png)" }).waitFor();
    await page.locator('[data-testid="timeline-log"]', { hasText: "Hook PreToolUse allowed the call" }).waitFor();
    await page.locator('[data-testid="timeline-log"]', { hasText: "Hook PostToolUse ran" }).waitFor();
    const result = (await page.getByTestId("result").textContent()) ?? "";
    if (!result.includes("red square")) throw new Error(`result: ${result}`);
    const sessionId = await page.getByTestId("session-view").getAttribute("data-session-id");
    const events = await api(base, token, "GET", `/v1/sessions/${sessionId}/events`);
    const list = Array.isArray(events) ? events : events.events ?? events.items ?? [];
    const start = list.find((e) => e.type === "agent.start");
    const images = start?.payload?.images ?? [];
    if (images.length !== 1 || images[0].name !== "shot.png" || images[0].media_type !== "image/png") {
      throw new Error(`agent.start images: ${JSON.stringify(images)}`);
    }
    if (!existsSync(hookLog) || !readFileSync(hookLog, "utf8").includes("PostToolUse")) throw new Error("the PostToolUse hook was not given the event");
    await checkAccessibility(page, "hooks and image");
    // The task's first row (with its image) and the hook rows in view.
    await page.locator('[data-testid="timeline-log"]', { hasText: "(images: shot.png)" }).scrollIntoViewIfNeeded();
    await screenshot(page, "14-hooks-image");
  });

  await check("a follow-up /review runs the project's custom command, picked from the hints", async () => {
    await page.getByTestId("followup-input").fill("/");
    const hint = page.locator('[data-testid="command-hint"][data-name="review"]');
    await hint.waitFor();
    if (!((await hint.textContent()) ?? "").includes("/review FILE")) throw new Error(`hint: ${await hint.textContent()}`);
    await page.getByTestId("followup-input").fill("/rev");
    await checkAccessibility(page, "command hints");
    await screenshot(page, "15-command-hints");
    await hint.click();
    if ((await page.getByTestId("followup-input").inputValue()) !== "/review ") throw new Error("picking the hint did not fill the box");
    // The box has the focus, its caret after the name: typing goes on from there.
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "followup-input");
    await page.keyboard.type("calc/stats.py");
    if ((await page.getByTestId("command-hints").count()) !== 0) throw new Error("hints stayed while arguments are typed");
    await page.getByTestId("followup-submit").click();
    await page.locator('[data-testid="timeline-log"]', { hasText: "Task started: Review calc/stats.py for bugs and say what is wrong." }).waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="timeline-log"]', { hasText: "should divide by len(values)" }).first().waitFor();
  });

  await check("an edit with a type error shows pyright's diagnostic under its row", async () => {
    await page.getByTestId("followup-input").fill("Add a label() helper in calc/labels.py");
    await page.getByTestId("followup-submit").click();
    const edit = page.locator('[data-testid="timeline-tool"][data-tool="write_file"]');
    const diagnostic = edit.locator('[data-testid="diagnostic"][data-severity="error"]');
    await diagnostic.waitFor({ timeout: 60_000 });
    const text = (await diagnostic.textContent()) ?? "";
    if (!text.startsWith("calc/labels.py:2:") || !text.includes("str")) throw new Error(`diagnostic: ${text}`);
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await edit.scrollIntoViewIfNeeded();
    await checkAccessibility(page, "diagnostics");
    await screenshot(page, "16-diagnostics");
  });

  writeFileSync(config, "vision = false\n");
  await page.goto("about:blank");
  ({ base, token } = await launch(IMAGE_HOOKS_SCRIPT, root, "no-vision", ["--config", config]));
  await page.goto(`${base}/?${query}#token=${token}`);
  await page.getByTestId("task-input").waitFor();
  await check("the same upload on a model without vision: refused by the model's name", async () => {
    await page.getByTestId("task-images-input").setInputFiles(shot);
    await page.getByTestId("attached-image").filter({ hasText: "shot.png" }).waitFor();
    await page.getByTestId("task-input").fill("What does this picture point at?");
    await page.getByTestId("task-submit").click();
    await page.getByTestId("session-view").waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="timeline-log"][data-level="error"]', { hasText: /Task failed: .*image/ }).first().waitFor();
    if ((await page.locator('[data-testid="timeline-tool"]').count()) !== 0) throw new Error("a tool ran although the model cannot see the image");
  });
}

/** Time from opening a 5,000-event session to its first timeline row, and to its whole history. */
/** A turn that hands its work to two explorers in parallel: their rows nested under the task
 * calls that started them (issue 26 §4). */
async function subagentDemo(page) {
  const root = join(workDir, "project-subagents");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  const script = join(workDir, "subagents.json");
  const task = (id, kind, description, prompt) => ({ id, name: "task", arguments: { description, prompt, subagent_type: kind } });
  writeFileSync(
    script,
    JSON.stringify({
      delay_ms: 2,
      turns: [
        { text: "Two explorers will look.", tool_calls: [task("t_def", "explorer", "Find mean()", "[DEF] Where is mean defined?"), task("t_use", "explorer", "Find its callers", "[USE] Who calls mean?")] },
        { agent: "[DEF]", tool_calls: [{ id: "d1", name: "search_files", arguments: { path: ".", regex: "def mean" } }] },
        { agent: "[DEF]", text: "mean() is defined in stats.py." },
        { agent: "[USE]", tool_calls: [{ id: "u1", name: "list_files", arguments: { path: "." } }] },
        { agent: "[USE]", text: "Nothing else calls mean()." },
        { text: "mean() is in stats.py; nothing else calls it." },
      ],
    }),
  );
  await page.goto("about:blank");
  const { base, token } = await launch(script, root, "subagents");
  const query = new URLSearchParams({ project: "subagents", root, mode: "direct" });
  await page.goto(`${base}/?${query}#token=${token}`);
  await page.getByTestId("task-input").waitFor();

  await check("nest each explorer's rows under the task call that started it", async () => {
    await page.getByTestId("task-input").fill("Where is mean() and who calls it?");
    await page.keyboard.press("Control+Enter");
    await page.getByTestId("result").waitFor();
    const rows = await page.$$eval('[data-testid="timeline"] > li', (items) =>
      items.map((li) => ({
        tool: li.getAttribute("data-tool"),
        call: li.getAttribute("data-call-id"),
        depth: Number(li.getAttribute("data-depth") ?? "0"),
        parent: li.getAttribute("data-parent-call-id"),
      })),
    );
    for (const call of ["t_def", "t_use"]) {
      const at = rows.findIndex((r) => r.tool === "task" && r.call === call);
      if (at < 0) throw new Error(`no row for the task call ${call}: ${JSON.stringify(rows)}`);
      const children = rows.filter((r) => r.parent === call);
      if (children.length < 3 || children.some((r) => r.depth !== 1)) throw new Error(`${call}'s rows: ${JSON.stringify(children)}`);
      // Its child's rows follow it at once.
      const next = rows.slice(at + 1, at + 1 + children.length);
      if (next.some((r) => r.parent !== call)) throw new Error(`${call} is not followed by its rows: ${JSON.stringify(rows)}`);
    }
    await checkAccessibility(page, "subagents");
    await screenshot(page, "13-subagents");
  });
}

async function firstRowTiming(page) {
  const root = join(workDir, "project-bulk");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  const script = join(workDir, "bulk.json");
  // One character per streamed delta: an answer of BULK_EVENTS characters is that many events.
  writeFileSync(script, JSON.stringify({ chunk_chars: 1, delay_ms: 0, turns: [{ text: unrepeatingText(BULK_EVENTS) }] }));
  await page.goto("about:blank");
  const { base, token } = await launch(script, root, "bulk");
  const session = await api(base, token, "POST", "/v1/sessions", { project_id: "bulk", root, mode: "direct" });
  await api(base, token, "POST", `/v1/sessions/${session.id}/turns`, { request_id: randomUUID(), input: "Say x many times" });
  const until = Date.now() + 120_000;
  let last;
  for (;;) {
    last = await api(base, token, "GET", `/v1/sessions/${session.id}`);
    if (last.last_seq >= BULK_EVENTS && last.status !== "running") break;
    if (Date.now() > until) throw new Error(`the bulk session stopped at ${last.last_seq} events (${last.status})`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const firstRow = [];
  const whole = [];
  for (let i = 0; i < 3; i++) {
    await page.goto("about:blank");
    const started = Date.now();
    await page.goto(`${base}/?session=${session.id}#token=${token}`);
    await page.locator('[data-testid="timeline"] > li').first().waitFor();
    firstRow.push(Date.now() - started);
    await page.getByTestId("result").waitFor();
    whole.push(Date.now() - started);
  }
  const median = (list) => [...list].sort((a, b) => a - b)[1];
  log(`5,000-event session (${last.last_seq} events): first timeline row ${median(firstRow)} ms, whole history ${median(whole)} ms (median of 3: ${firstRow.join("/")} ms, ${whole.join("/")} ms)`);
}

async function main() {
  if (!existsSync(SERVER_BIN)) throw new Error(`no server binary at ${SERVER_BIN} (build it: cargo build -p keel-server)`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  rmSync(join(ARTIFACTS, "failure.png"), { force: true });
  workDir = mkdtempSync(join(tmpdir(), "keel-e2e-"));
  const root = join(workDir, "project");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  const { base, token } = await launch(SCRIPT, root, "demo");

  const profile = join(workDir, "chromium-profile");
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT);
  const consoleErrors = [];
  page.on("console", (msg) => {
    // `GET …/shadow` answers 404 while a shadow session has nothing staged, which the page
    // shows as "Nothing staged"; the browser still logs the 404.
    const nothingStaged = /\/v1\/sessions\/[^/]+\/shadow$/.test(msg.location().url ?? "") && msg.text().includes("404");
    if (msg.type() === "error" && !nothingStaged) consoleErrors.push(`${msg.text()} (${msg.location().url ?? "?"})`);
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));

  const query = new URLSearchParams({ project: "demo", root, mode: "plan" });
  await check("open the page with #token", async () => {
    await page.goto(`${base}/?${query}#token=${token}`);
    await page.getByTestId("task-input").waitFor();
    if (page.url().includes(token)) throw new Error("the token stayed in the address bar");
    const rootValue = await page.getByTestId("task-root").inputValue();
    if (rootValue !== root) throw new Error(`root field is ${rootValue}, expected ${root} from ?root=`);
  });

  await check("start the task", async () => {
    await page.getByTestId("task-input").fill("Fix mean() and rename its test module");
    await page.getByTestId("task-submit").click();
    await page.getByTestId("session-view").waitFor();
  });

  await check("see the planner phase node and the approval request", async () => {
    await page.locator('[data-testid="timeline-phase"][data-phase="planner"]').first().waitFor();
    await page.getByTestId("approval-request").waitFor();
    const subject = await page.getByTestId("approval-request").textContent();
    if (!subject?.includes("Fix mean() and rename its test module")) throw new Error(`unexpected approval: ${subject}`);
    await page.getByTestId("plan-progress").waitFor();
  });

  await check("select tests/test_stats.py in the FileTree", async () => {
    const node = page.locator('[data-testid="file-node"][data-path="tests/test_stats.py"]');
    await node.locator("button.tree-row").click();
    await page.locator('[data-testid="file-node"][data-path="tests/test_stats.py"][data-selected="true"]').waitFor();
  });
  await check("no serious accessibility violations while awaiting approval", () => checkAccessibility(page, "awaiting approval"));
  await screenshot(page, "01-awaiting-approval");

  await check("approve the plan with the keyboard only", async () => {
    await tabTo(page, '[data-testid="approve-button"]');
    await page.getByTestId("approval-request").waitFor({ state: "detached" });
  });

  await check("see the coder phase and tool nodes appear", async () => {
    await page.locator('[data-testid="timeline-phase"][data-phase="coder"]').first().waitFor();
    await page.locator('[data-testid="timeline-tool"][data-tool="read_file"]').waitFor();
    await page.locator('[data-testid="timeline-tool"][data-tool="replace_in_file"]').waitFor();
    await page.locator('[data-testid="timeline-file"][data-op="update"][data-path="calc/stats.py"]').waitFor();
  });

  await check("answer the agent's question with the answer box", async () => {
    const box = page.getByTestId("question-box");
    await box.waitFor();
    const text = (await box.textContent()) ?? "";
    if (!text.includes("Rename tests/test_stats.py to tests/test_mean.py?")) throw new Error(`unexpected question: ${text}`);
    await checkAccessibility(page, "question");
    await screenshot(page, "02-question");
    await page.getByTestId("question-option").filter({ hasText: "yes" }).click();
    await box.waitFor({ state: "detached" });
  });

  await check("see move_file as from → to in the timeline", async () => {
    const move = page.locator('[data-testid="timeline-tool"][data-tool="move_file"]');
    await move.waitFor();
    const text = (await move.getByTestId("move-summary").textContent())?.replace(/\s+/g, " ").trim();
    if (text !== "tests/test_stats.py → tests/test_mean.py") throw new Error(`move summary is "${text}"`);
    await page.locator('[data-testid="timeline-file"][data-op="move"][data-path="tests/test_mean.py"]').waitFor();
  });

  await check("see the FileTree follow the move (old node gone, new node selected)", async () => {
    await page.locator('[data-testid="file-node"][data-path="tests/test_mean.py"]').waitFor();
    await page.locator('[data-testid="file-node"][data-path="tests/test_stats.py"]').waitFor({ state: "detached" });
    await page.locator('[data-testid="file-node"][data-path="tests/test_mean.py"][data-selected="true"]').waitFor();
    if (!existsSync(join(root, "tests", "test_mean.py")) || existsSync(join(root, "tests", "test_stats.py"))) {
      throw new Error("the file was not moved on disk");
    }
    if (!readFileSync(join(root, "calc", "stats.py"), "utf8").includes("sum(values) / len(values)")) {
      throw new Error("calc/stats.py was not fixed on disk");
    }
  });

  await check("see the turn finish with every plan step done", async () => {
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.getByTestId("result").waitFor();
    await page.locator('[data-testid="timeline-phase"][data-phase="reviewer"][data-action="exit"]').waitFor();
    const reviewer = await page
      .locator('[data-testid="timeline-phase"][data-phase="reviewer"]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-action")));
    if (JSON.stringify(reviewer) !== '["enter","exit"]') {
      throw new Error(`the reviewer's phase nodes are ${JSON.stringify(reviewer)}, expected one enter then one exit`);
    }
    const done = await page.locator('[data-testid="plan-step"][data-status="done"]').count();
    if (done !== 3) throw new Error(`${done} of 3 plan steps shown done`);
    const progress = await page.getByTestId("plan-progress-text").textContent();
    if (!progress?.includes("3/3") || !progress.includes("3 done")) throw new Error(`plan progress shows ${progress}`);
    const steps = await page.locator('[data-testid="timeline-log"]', { hasText: /Step 3\/3 done/ }).count();
    if (steps !== 1) throw new Error(`${steps} timeline rows say step 3/3 is done, expected 1`);
    const stepBars = await page.getByTestId("step-progress").allTextContents();
    if (!stepBars.includes("3/3")) throw new Error(`step rows' progress shows ${stepBars.join(", ")}`);
  });
  await check("show the same records as the server's GET /v1/projects/{id}/timeline", async () => {
    const response = await fetch(`${base}/v1/projects/demo/timeline?limit=100`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`GET timeline: HTTP ${response.status} ${await response.text()}`);
    const { events } = await response.json();
    const fromServer = events.map((e) => `${e.type}:${e.id}`);
    const TYPE = {
      "timeline-phase": "agent_phase",
      "timeline-tool": "tool_call",
      "timeline-file": "file_update",
      "timeline-repair": "self_repair",
      "timeline-log": "log",
      "timeline-error": "error",
    };
    const shown = (
      await page.$$eval('[data-testid="timeline"] > li', (rows) =>
        rows.map((row) => [row.getAttribute("data-testid"), row.getAttribute("data-record-id")]),
      )
    ).map(([testid, id]) => `${TYPE[testid] ?? testid}:${id}`);
    if (JSON.stringify(shown) !== JSON.stringify(fromServer)) {
      throw new Error(`page and server differ:\npage   ${JSON.stringify(shown)}\nserver ${JSON.stringify(fromServer)}`);
    }
  });
  const before = await timelineRows(page);
  await screenshot(page, "03-completed");

  await check("reload the page and see the same history", async () => {
    await page.reload();
    await page.getByTestId("session-view").waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="timeline"] > li').length >= n,
      before.length,
    );
    const after = await timelineRows(page);
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      throw new Error(`history differs after reload:\nbefore ${JSON.stringify(before, null, 1)}\nafter ${JSON.stringify(after, null, 1)}`);
    }
    await page.locator('[data-testid="file-node"][data-path="tests/test_mean.py"]').waitFor();
    if ((await page.locator('[data-testid="file-node"][data-path="tests/test_stats.py"]').count()) !== 0) {
      throw new Error("the old path is back in the FileTree after reload");
    }
    await page.locator('[data-testid="file-node"][data-path="tests/test_mean.py"][data-selected="true"]').waitFor();
    const sessions = await page.getByTestId("session-item").count();
    if (sessions < 1) throw new Error("the session list is empty");
  });


  /** Starts another task from the box and waits for its plan approval request. */
  async function startAndAwaitApproval(task) {
    const previous = await page.getByTestId("session-view").getAttribute("data-session-id");
    await page.getByTestId("task-input").fill(task);
    await page.getByTestId("task-submit").click();
    await page.waitForFunction(
      (id) => {
        const view = document.querySelector('[data-testid="session-view"]');
        return view !== null && view.getAttribute("data-session-id") !== id;
      },
      previous,
    );
    await page.getByTestId("approval-request").waitFor();
  }

  await check("reject a plan with the keyboard only", async () => {
    await startAndAwaitApproval("Second task, to be rejected");
    await page.getByTestId("approve-button").waitFor();
    await tabTo(page, '[data-testid="approval-request"] input', null);
    await page.keyboard.type("not now");
    await tabTo(page, '[data-testid="reject-button"]');
    await page.getByTestId("approval-request").waitFor({ state: "detached" });
    await page.locator('[data-testid="timeline-log"]', { hasText: /^\W*Rejected/ }).waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    const result = (await page.getByTestId("result").textContent()) ?? "";
    if (!/rejected/i.test(result) || !result.includes("not now")) throw new Error(`result after rejection: ${result}`);
    if ((await page.locator('[data-testid="timeline-tool"][data-tool="read_file"]').count()) !== 0) {
      throw new Error("a step ran although the plan was rejected");
    }
  });


  await check("cancel a running turn with the keyboard only", async () => {
    await startAndAwaitApproval("Third task, to be cancelled");
    await tabTo(page, '[data-testid="cancel-button"]');
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="timeline-log"][data-level="warn"]', { hasText: /^\W*Task cancelled/ }).first().waitFor();
    if ((await page.getByTestId("approval-request").count()) !== 0) throw new Error("the approval box outlived the turn");
    const sessions = await page.getByTestId("session-item").count();
    if (sessions < 3) throw new Error(`${sessions} sessions listed, expected 3`);
  });
  log(`timeline rows: ${before.length}`);

  await pageDemo(page);
  await workspaceDemo(page);
  await imageHooksDemo(page);
  await subagentDemo(page);
  await firstRowTiming(page);
  const size = bundleSize();
  log(`bundle: ${(size.raw / 1024).toFixed(1)} KiB, ${(size.gzip / 1024).toFixed(1)} KiB gzip (web/dist)`);
  if (consoleErrors.length > 0) throw new Error(`the page logged errors:\n${consoleErrors.join("\n")}`);
}

let failed = false;
const stop = async (signal) => {
  await cleanup();
  process.exit(signal === "SIGINT" ? 130 : 143);
};
process.once("SIGINT", () => void stop("SIGINT"));
process.once("SIGTERM", () => void stop("SIGTERM"));

try {
  await main();
  log("PASS: the Activity Timeline page works end to end");
} catch (err) {
  failed = true;
  console.error(`[e2e] FAIL: ${err instanceof Error ? err.message : String(err)}`);
  try {
    const page = context?.pages()[0];
    if (page) {
      await page.screenshot({ path: join(ARTIFACTS, "failure.png") });
      console.error(`[e2e] screenshot: ${join(ARTIFACTS, "failure.png")}`);
    }
  } catch {
    // No page to capture.
  }
  if (serverLog) console.error(`[e2e] keel-server output (last 4000 chars):\n${serverLog.slice(-4000)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
