#!/usr/bin/env node
// End-to-end test of the Activity Timeline page in real Chromium (playwright-core + the system
// /usr/bin/chromium), against a real keel-server running the scripted plan-mode demo
// (examples/scripts/timeline-demo.json) on a copy of examples/sample-project.
//
//   node web/e2e/timeline.e2e.mjs target/debug/keel-server
//
// It starts the task from the page, sees phase and tool nodes appear, approves the plan with
// the button, answers the agent's question, sees the move_file update the FileTree (old node gone, new node present, the
// selection moved along), reloads and sees the same history. Screenshots go to
// target/e2e-artifacts/. Exits non-zero with a message on any failure; always stops the server.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ARTIFACTS = join(REPO, "target", "e2e-artifacts");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const SCRIPT = join(REPO, "examples", "scripts", "timeline-demo.json");
const STEP_TIMEOUT = 30_000;

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

async function main() {
  if (!existsSync(SERVER_BIN)) throw new Error(`no server binary at ${SERVER_BIN} (build it: cargo build -p keel-server)`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  rmSync(join(ARTIFACTS, "failure.png"), { force: true });
  workDir = mkdtempSync(join(tmpdir(), "keel-e2e-"));
  const root = join(workDir, "project");
  cpSync(join(REPO, "examples", "sample-project"), root, { recursive: true });
  const dataDir = join(workDir, "data");
  mkdirSync(dataDir);
  const token = randomBytes(16).toString("hex");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;

  const args = [
    "--addr", `127.0.0.1:${port}`,
    "--data-dir", dataDir,
    "--token", token,
    "--provider", `scripted:${SCRIPT}`,
    "--approve-plans",
    "--allow-root", root,
  ];
  log(`starting ${SERVER_BIN} ${args.join(" ").replace(token, "***")}`);
  server = spawn(SERVER_BIN, args, { cwd: workDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "info" } });
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  const health = await waitForHealth(base, 60_000);
  log(`server healthy: ${JSON.stringify(health)}`);

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
    if (msg.type() === "error") consoleErrors.push(msg.text());
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
    await node.getByRole("button").click();
    await page.locator('[data-testid="file-node"][data-path="tests/test_stats.py"][data-selected="true"]').waitFor();
  });
  await page.screenshot({ path: join(ARTIFACTS, "01-awaiting-approval.png") });

  await check("approve the plan with the button", async () => {
    await page.getByTestId("approve-button").click();
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
    await page.screenshot({ path: join(ARTIFACTS, "02-question.png") });
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
    await page.locator('[data-testid="timeline-phase"][data-phase="reviewer"]').waitFor();
    const done = await page.locator('[data-testid="plan-step"][data-status="done"]').count();
    if (done !== 3) throw new Error(`${done} of 3 plan steps shown done`);
    const progress = await page.getByTestId("step-progress").allTextContents();
    if (!progress.includes("3/3")) throw new Error(`step progress shows ${progress.join(", ")}`);
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
  await page.screenshot({ path: join(ARTIFACTS, "03-completed.png") });

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
  await page.screenshot({ path: join(ARTIFACTS, "04-reloaded.png") });

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

  await check("reject a plan with the button", async () => {
    await startAndAwaitApproval("Second task, to be rejected");
    await page.getByTestId("approve-button").waitFor();
    await page.locator('[data-testid="approval-request"] input').fill("not now");
    await page.getByTestId("reject-button").click();
    await page.getByTestId("approval-request").waitFor({ state: "detached" });
    await page.locator('[data-testid="timeline-log"]', { hasText: /^\W*Rejected/ }).waitFor();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    const result = (await page.getByTestId("result").textContent()) ?? "";
    if (!/rejected/i.test(result) || !result.includes("not now")) throw new Error(`result after rejection: ${result}`);
    if ((await page.locator('[data-testid="timeline-tool"][data-tool="read_file"]').count()) !== 0) {
      throw new Error("a step ran although the plan was rejected");
    }
  });
  await page.screenshot({ path: join(ARTIFACTS, "05-rejected.png") });

  await check("cancel a running turn with the button", async () => {
    await startAndAwaitApproval("Third task, to be cancelled");
    await page.getByTestId("cancel-button").click();
    await page.locator('[data-testid="run-status"]', { hasText: "idle" }).waitFor();
    await page.locator('[data-testid="timeline-log"][data-level="warn"]', { hasText: /^\W*Task cancelled/ }).first().waitFor();
    if ((await page.getByTestId("approval-request").count()) !== 0) throw new Error("the approval box outlived the turn");
    const sessions = await page.getByTestId("session-item").count();
    if (sessions < 3) throw new Error(`${sessions} sessions listed, expected 3`);
  });
  await page.screenshot({ path: join(ARTIFACTS, "06-cancelled.png") });

  if (consoleErrors.length > 0) throw new Error(`the page logged errors:\n${consoleErrors.join("\n")}`);
  log(`timeline rows: ${before.length}`);
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
