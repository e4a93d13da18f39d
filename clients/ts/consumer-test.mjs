// @keel/events and @keel/client as a consumer gets them: `npm pack` both, install the tarballs
// into a fresh Node ESM project and a fresh Vite + TypeScript project (temp dirs), and from each
// create a session on a real keel-server (scripted provider, loopback) and stream a scripted turn
// to its end, every event checked with parseEvent.
//
//   node consumer-test.mjs PATH/TO/keel-server     (after `npm ci` here and in schemas/ts)
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const serverBin = resolve(process.argv[2] ?? join(repo, "target/debug/keel-server"));
const work = mkdtempSync(join(tmpdir(), "keel-client-consumer-"));
let server;
let serverLog = "";

function run(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

function pack(dir) {
  const [info] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], dir));
  return join(work, info.filename);
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function waitForHealth(base, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`keel-server did not become healthy:\n${serverLog}`);
}

// The consumer's program, the same in both projects (JavaScript here, TypeScript under Vite).
const program = (typed) => `import { KeelClient, streamEvents${typed ? ", type Schemas" : ""} } from "@keel/client";
import { parseEvent, toTimelineAll${typed ? ", type Event" : ""} } from "@keel/events";

export async function main(base${typed ? ": string" : ""}, token${typed ? ": string" : ""}, root${typed ? ": string" : ""}) {
  const client = new KeelClient({ baseUrl: base, token });
  const session${typed ? ": Schemas[\"SessionView\"]" : ""} = await client.createSession({ project_id: "consumer", root, mode: "direct" });
  await client.startTurn(session.id, crypto.randomUUID(), "Fix the failing test");
  const types${typed ? ": string[]" : ""} = [];
  let records = 0;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 120_000);
  for await (const event of streamEvents(client, session.id, { signal: stop.signal })) {
    const checked = parseEvent(JSON.stringify(event));
    if (!checked.ok) throw new Error("the server sent an invalid event: " + checked.error.message);
    const typedEvent${typed ? ": Event" : ""} = checked.event;
    types.push(typedEvent.type);
    records += toTimelineAll(typedEvent).length;
    if (typedEvent.type === "agent.end") {
      if (typedEvent.payload.status !== "completed") throw new Error("turn ended " + typedEvent.payload.status);
      break;
    }
  }
  clearTimeout(timer);
  if (types.at(-1) !== "agent.end") throw new Error("no agent.end: " + types.join(", "));
  const again = await client.getSession(session.id);
  return { session: again.id, events: types.length, records, last_seq: again.last_seq };
}
`;

async function nodeProject(tarballs, base, token, root) {
  const app = join(work, "node-esm");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "node-consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", ...tarballs], app);
  writeFileSync(join(app, "lib.mjs"), program(false));
  writeFileSync(join(app, "main.mjs"), `import { main } from "./lib.mjs";\nconsole.log(JSON.stringify(await main(...process.argv.slice(2))));\n`);
  return run("node", ["main.mjs", base, token, root], app).trim();
}

async function viteProject(tarballs, base, token, root) {
  const app = join(work, "vite-ts");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "vite-consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", ...tarballs, "vite@^7", "typescript@~5.9.3", "@types/node@^20"], app);
  writeFileSync(join(app, "src", "lib.ts"), program(true));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, noEmit: true, lib: ["ES2022", "DOM", "DOM.Iterable"], types: ["node"], skipLibCheck: false },
      include: ["src"],
    }),
  );
  writeFileSync(
    join(app, "vite.config.ts"),
    `import { defineConfig } from "vite";\nexport default defineConfig({ build: { lib: { entry: "src/lib.ts", formats: ["es"], fileName: "lib" }, outDir: "dist", minify: false } });\n`,
  );
  run("npx", ["tsc", "-p", "tsconfig.json"], app);
  run("npx", ["vite", "build", "--logLevel", "warn"], app);
  writeFileSync(join(app, "run.mjs"), `import { main } from "./dist/lib.js";\nconsole.log(JSON.stringify(await main(...process.argv.slice(2))));\n`);
  return run("node", ["run.mjs", base, token, root], app).trim();
}

async function start() {
  const root = join(work, "project");
  cpSync(join(repo, "examples", "sample-project"), root, { recursive: true });
  const token = randomBytes(16).toString("hex");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = spawn(
    serverBin,
    ["--addr", `127.0.0.1:${port}`, "--data-dir", join(work, "data"), "--token", token,
      "--provider", `scripted:${join(repo, "examples", "scripts", "fix-bug.json")}`, "--allow-root", root],
    { cwd: work, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  await waitForHealth(base, 60_000);
  return { base, token, root };
}

try {
  const tarballs = [pack(join(repo, "schemas", "ts")), pack(here)];
  const { base, token, root } = await start();
  console.log(`Node ESM consumer: ${await nodeProject(tarballs, base, token, root)}`);
  // The scripted provider plays its script once per server: a fresh one for the second project.
  server.kill("SIGTERM");
  const second = await start();
  console.log(`Vite + TypeScript consumer: ${await viteProject(tarballs, second.base, second.token, second.root)}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  console.error(`keel-server log:\n${serverLog.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  server?.kill("SIGTERM");
  if (!process.env.KEEL_CONSUMER_KEEP) rmSync(work, { recursive: true, force: true });
}
