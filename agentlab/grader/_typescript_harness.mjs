// The Node.js side of agentlab's TypeScript grader (agentlab/grader/_typescript.py starts it as
// `node --import <tsx> _typescript_harness.mjs`; tsx lets Node 20 import .ts files).
//
// stdin: one JSON job,
//   {"base_url": str, "modules": [{"path": str, "export": str}],
//    "runs": [{"id": int, "module": int, "key": str, "prompt": str, "tools": [...]}]}
// stdout: protocol lines "<AGENTLAB_MARK> <json>", in this order:
//   {"event": "load", "module": i, "ok": true} or {..., "ok": false, "kind": "import" | "export", ...}
//   {"event": "ready"}
//   per run, one after another: {"event": "start", "id"}, then {"event": "end", "id", "returned": {...}}
//   or {"event": "end", "id", "error": {...}} (see describeError).
// Anything else on stdout (the loop's console.log) is the learner's and is passed through.
// Each run gets a fresh `new Anthropic({baseURL, apiKey: key, maxRetries: 2})`; the key names a
// FakeAPI the Python side registered on `agentlab serve`, and runTool is POST /agentlab/tool.
import { existsSync, readFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";

const MARK = process.env.AGENTLAB_MARK ?? "";
const ROOT = process.env.AGENTLAB_NODE_ROOT;
if (ROOT) {
  register("./_typescript_resolve.mjs", import.meta.url,
    { data: { parentURL: pathToFileURL(ROOT.endsWith("/") ? ROOT : `${ROOT}/`).href } });
}

function emit(message) {
  process.stdout.write(`${MARK} ${JSON.stringify(message)}\n`);
}

// A loop's stray promise must not end the process: report it on stderr and go on.
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`[agentlab] unhandled promise rejection in the loop: ${inspect(reason)}\n`);
});
process.on("uncaughtException", (error) => {
  process.stderr.write(`[agentlab] uncaught exception in the loop: ${inspect(error)}\n`);
});

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** file:line:column of the first stack frame in `file`, if any. */
function whereIn(error, file) {
  const stack = typeof error?.stack === "string" ? error.stack : "";
  const url = pathToFileURL(file).href;
  for (const line of stack.split("\n")) {
    const match = line.match(/\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?\s*$/);
    if (match && (match[1] === file || match[1] === url)) return { line: Number(match[2]), column: Number(match[3]) };
  }
  return null;
}

function loadFailure(error, file) {
  // esbuild (through tsx) reports a syntax error with its location; a runtime error has a stack.
  const located = Array.isArray(error?.errors) && error.errors[0]?.location ? error.errors[0] : null;
  const where = located ? { line: located.location.line, column: located.location.column + 1 } : whereIn(error, file);
  return {
    kind: "import",
    name: error?.name ?? typeof error,
    message: located ? located.text : (error?.message ?? String(error)),
    code: error?.code,
    line: where?.line ?? null,
    column: where?.column ?? null,
  };
}

function describeValue(value) {
  if (typeof value === "string") return { type: "string", value };
  let json;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  const type = value === null ? "null" : Array.isArray(value) ? "Array"
    : typeof value === "object" ? (value.constructor?.name ?? "Object") : typeof value;
  return { type, repr: inspect(value, { depth: 2, breakLength: Infinity }), json: json ?? null };
}

/** Whether tsx runs `file` as CommonJS (.cts/.cjs, or .ts/.js without "type": "module"). */
function isCommonJS(file) {
  if (/\.(cts|cjs)$/i.test(file)) return true;
  if (/\.(mts|mjs)$/i.test(file)) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, "utf8")).type !== "module";
      } catch {
        return true;
      }
    }
    if (dirname(dir) === dir) return true;
  }
}

/**
 * The SDK module the loop in `file` imports: the same copy AND the same build (the package ships
 * a CommonJS and an ES module build, whose classes differ), so its `instanceof Anthropic.APIError`
 * holds for the errors of the client the harness makes.
 */
async function sdkFor(file) {
  const require = createRequire(file);
  if (isCommonJS(file)) return require("@anthropic-ai/sdk");
  const main = require.resolve("@anthropic-ai/sdk");
  for (let dir = dirname(main); dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const entry = JSON.parse(readFileSync(manifest, "utf8")).exports?.["."];
    const esm = typeof entry === "string" ? entry : entry?.import?.default ?? entry?.import ?? entry?.default;
    if (typeof esm === "string") return import(pathToFileURL(join(dir, esm)).href);
    break;
  }
  return import("@anthropic-ai/sdk");
}

const RUNAWAY = "runaway_loop";

function describeError(error, APIError, toolErrors) {
  const chain = [];
  const seen = new Set();
  for (let e = error; e !== undefined && e !== null && !seen.has(e) && chain.length < 20; e = e?.cause) {
    seen.add(e);
    chain.push(e);
  }
  const isApi = (e) => e instanceof APIError;
  const isRunaway = (e) => isApi(e) && e.status === 400 && e.error?.error?.details?.error_code === RUNAWAY;
  const tool = chain.map((e, depth) => [e, depth]).find(([e]) => toolErrors.has(e));
  return {
    name: error?.name ?? typeof error,
    message: error instanceof Error ? error.message : inspect(error),
    api_error: isApi(error),
    status: isApi(error) && typeof error.status === "number" ? error.status : null,
    body: isApi(error) ? (error.error ?? null) : null,
    request_id: isApi(error) ? (error.requestID ?? null) : null,
    runaway: chain.some(isRunaway),
    tool_error: tool ? { depth: tool[1], ...toolErrors.get(tool[0]) } : null,
    stack: typeof error?.stack === "string" ? error.stack : null,
  };
}

const job = await readStdin();

const loops = [];
for (const [index, spec] of job.modules.entries()) {
  let module;
  let sdk;
  try {
    module = await import(pathToFileURL(spec.path).href);
    sdk = await sdkFor(spec.path);
  } catch (error) {
    emit({ event: "load", module: index, ok: false, ...loadFailure(error, spec.path) });
    loops.push(null);
    continue;
  }
  const loop = module[spec.export];
  if (typeof loop !== "function") {
    const functions = Object.keys(module).filter((name) => typeof module[name] === "function");
    emit({ event: "load", module: index, ok: false, kind: "export", functions });
    loops.push(null);
    continue;
  }
  emit({ event: "load", module: index, ok: true });
  const Anthropic = sdk.default ?? sdk.Anthropic;
  loops.push({ loop, Anthropic, APIError: sdk.APIError ?? Anthropic.APIError });
}
emit({ event: "ready" });

// Keeps the event loop alive while a loop awaits something that never settles, so that is a
// timeout (the grader kills this process) and not an early exit.
const keepAlive = setInterval(() => {}, 1 << 30);

for (const run of job.runs) {
  const loaded = loops[run.module];
  if (!loaded) continue;
  const { loop, Anthropic, APIError } = loaded;
  emit({ event: "start", id: run.id });
  const client = new Anthropic({ baseURL: job.base_url, apiKey: run.key, maxRetries: 2 });
  const toolErrors = new Map();
  const runTool = async (name, input) => {
    const response = await fetch(`${job.base_url}/agentlab/tool`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": run.key },
      body: JSON.stringify({ name, input }),
    });
    const body = await response.json();
    if (body.error) {
      const error = new Error(body.error.message);
      error.name = body.error.type;
      toolErrors.set(error, { tool: name, input: input ?? null, message: body.error.message });
      throw error;
    }
    return body.content;
  };
  let outcome;
  try {
    outcome = { returned: describeValue(await loop(client, run.prompt, run.tools, runTool)) };
  } catch (error) {
    outcome = { error: describeError(error, APIError, toolErrors) };
  }
  emit({ event: "end", id: run.id, ...outcome });
}
clearInterval(keepAlive);
