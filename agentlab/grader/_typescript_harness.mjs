// The Node.js side of agentlab's TypeScript grader (agentlab/grader/_typescript.py starts it as
// `node --experimental-permission ... --import <tsx> _typescript_harness.mjs`; tsx lets Node 20
// import .ts files).
//
// stdin: one JSON job, read whole BEFORE any learner module is imported (and never kept where a
// loop can reach it: the mark and the protocol fd live in this module's own bindings),
//   {"mark": str, "fd": int, "base_url": str, "modules": [{"path": str, "export": str}],
//    "runs": [{"id": int, "module": int, "key": str, "prompt": str, "tools": [...]}]}
// fd `fd` (a pipe of the grader's, not stdout): protocol lines "<mark> <json>", in this order:
//   {"event": "load", "module": i, "ok": true} or {..., "ok": false, "kind": "import" | "export", ...}
//   {"event": "ready"}
//   per run, one after another: {"event": "start", "id"}, then {"event": "end", "id", "returned": {...}}
//   or {"event": "end", "id", "error": {...}} (see describeError).
// stdout and stderr are the learner's (console.log), passed through by the grader.
// The lines are written with fs.writeSync captured before the loop runs, so a loop that patches
// process.stdout, fs or JSON cannot read the mark; a line it forges without the mark is ignored.
// Each run gets a fresh `new Anthropic({baseURL, apiKey: key, maxRetries: 2})`; the key names a
// FakeAPI the Python side registered on `agentlab serve`, and runTool is POST /agentlab/tool.
import * as fs from "node:fs";
import { existsSync, readFileSync } from "node:fs";
import { createRequire, register, syncBuiltinESMExports } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";

const writeSync = fs.writeSync;  // captured: a loop that replaces fs.writeSync does not see the lines
const stringify = JSON.stringify;
const bytes = Buffer.from.bind(Buffer);
const ROOT = process.env.AGENTLAB_NODE_ROOT;
if (ROOT) {
  register("./_typescript_resolve.mjs", import.meta.url,
    { data: { parentURL: pathToFileURL(ROOT.endsWith("/") ? ROOT : `${ROOT}/`).href } });
}

let MARK = "";
let FD = -1;

function emit(message) {
  const data = bytes(`${MARK} ${stringify(message)}\n`, "utf8");
  for (let at = 0; at < data.length;) {
    try {
      at += writeSync(FD, data, at);
    } catch (error) {
      if (error?.code === "EAGAIN") continue;
      throw error;  // the grader is gone (or the loop closed the fd): nothing left to report to
    }
  }
}

// A loop's stray promise must not end the process: report it on stderr and go on.
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`[agentlab] unhandled promise rejection in the loop: ${show(reason)}\n`);
});
process.on("uncaughtException", (error) => {
  process.stderr.write(`[agentlab] uncaught exception in the loop: ${show(error)}\n`);
});

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

// ------------------------------------------------------------------ describing values defensively
// A loop's value or error may be a Proxy whose traps throw, or have getters (cause, message, name,
// stack) or a toString that throw: every read below is guarded, with a fallback description, so
// the case ends at once as what it is (loop-raised, returned-non-string), never as a timeout.

const MAX_TEXT = 20_000;      // characters of an error's message or stack, or of a value's repr
const MAX_RETURNED = 1_000_000;  // characters of a returned string sent to the grader

function get(object, key) {
  try {
    return object?.[key];
  } catch {
    return undefined;
  }
}

function clip(text, limit = MAX_TEXT) {
  return typeof text === "string" && text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function show(value) {
  try {
    return clip(inspect(value, { depth: 2, breakLength: Infinity, maxStringLength: 2000, maxArrayLength: 20 }));
  } catch {
    try {
      return clip(Object.prototype.toString.call(value));
    } catch {
      return "<a value that cannot be shown>";
    }
  }
}

function text(value) {
  if (typeof value === "string") return clip(value);
  if (value === undefined || value === null) return null;
  try {
    return clip(String(value));
  } catch {
    return show(value);
  }
}

function isError(value) {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
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
  if (typeof value === "string") {
    return value.length > MAX_RETURNED ? { type: "string", value: value.slice(0, MAX_RETURNED), length: value.length }
      : { type: "string", value };
  }
  let json;
  try {
    json = stringify(value);
  } catch {
    json = undefined;
  }
  let type;
  try {
    type = value === null ? "null" : Array.isArray(value) ? "Array"
      : typeof value === "object" ? (get(get(value, "constructor"), "name") ?? "Object") : typeof value;
  } catch {
    type = "Object";
  }
  return { type: typeof type === "string" ? type : "Object", repr: show(value),
           json: typeof json === "string" ? clip(json) : null };
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
  for (let e = error; e !== undefined && e !== null && !seen.has(e) && chain.length < 20; e = get(e, "cause")) {
    seen.add(e);
    chain.push(e);
  }
  const isApi = (e) => {
    try {
      return e instanceof APIError;
    } catch {
      return false;
    }
  };
  const isRunaway = (e) => isApi(e) && get(e, "status") === 400
    && get(get(get(get(e, "error"), "error"), "details"), "error_code") === RUNAWAY;
  const tool = chain.map((e, depth) => [e, depth]).find(([e]) => toolErrors.has(e));
  const api = isApi(error);
  const name = get(error, "name");
  const stack = get(error, "stack");
  const status = api ? get(error, "status") : null;
  let body = api ? (get(error, "error") ?? null) : null;
  try {
    body = body === null ? null : JSON.parse(stringify(body));
  } catch {
    body = null;
  }
  return {
    name: typeof name === "string" ? clip(name, 200) : (isError(error) ? "Error" : typeof error),
    message: isError(error) ? (text(get(error, "message")) ?? "") : show(error),
    api_error: api,
    status: typeof status === "number" ? status : null,
    body,
    request_id: api ? (text(get(error, "requestID")) ?? null) : null,
    runaway: chain.some(isRunaway),
    tool_error: tool ? { depth: tool[1], ...toolErrors.get(tool[0]) } : null,
    stack: typeof stack === "string" ? clip(stack) : null,
  };
}

function safeDescribeError(error, APIError, toolErrors) {
  try {
    return describeError(error, APIError, toolErrors);
  } catch {
    return { name: "Error", message: "an error the grader could not describe", api_error: false, status: null,
             body: null, request_id: null, runaway: false, tool_error: null, stack: null };
  }
}

const job = await readStdin();
MARK = job.mark;
FD = job.fd;
delete job.mark;
delete job.fd;

// The loop may not start processes or threads, nor register module hooks. Node's permission
// model (--experimental-permission) already denies addons, WASI and writing files outside the
// grader's scratch folder, but tsx needs child processes (esbuild runs as a service process)
// and Node 20's module.register needs a worker thread (tsx's hooks, the resolve hook), so both
// are allowed by the flags and taken away here, in the loop's realm, before its modules load:
// esbuild's services are started first (the hooks thread's for ES modules by tsx; the
// main thread's, for CommonJS files, by a transform now), then child_process's functions,
// worker_threads.Worker and module.register throw ERR_ACCESS_DENIED, as the permission model does.
{
  const require = createRequire(import.meta.url);
  if (ROOT) {
    try {
      createRequire(join(ROOT, "node_modules", "tsx", "package.json"))("esbuild").transformSync("let x: number = 1;",
        { loader: "ts" });
    } catch {
      // no esbuild there: CommonJS .ts files then fail to load, with esbuild's own error
    }
  }
  const deny = (what, permission) => function denied() {
    const error = new Error(`Access to this API has been restricted: the grader does not let a loop ${what}`);
    error.code = "ERR_ACCESS_DENIED";
    error.permission = permission;
    throw error;
  };
  const processes = require("node:child_process");
  for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
    processes[name] = deny("start processes", "ChildProcess");
  }
  processes.ChildProcess.prototype.spawn = deny("start processes", "ChildProcess");
  require("node:worker_threads").Worker = deny("start worker threads", "WorkerThreads");
  require("node:module").register = deny("register module hooks", "WorkerThreads");
  syncBuiltinESMExports();
}

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
    outcome = { error: safeDescribeError(error, APIError, toolErrors) };
  }
  try {
    emit({ event: "end", id: run.id, ...outcome });
  } catch {
    emit({ event: "end", id: run.id, error: safeDescribeError(undefined, APIError, toolErrors) });
  }
}
clearInterval(keepAlive);
