/**
 * What the TypeScript loops share: the twins of agentlab/loops/specimens.py's constants,
 * `run_one` and `text_of`. Every loop in this folder has the grader's contract:
 *
 *     export async function agentLoop(client, prompt, tools, runTool): Promise<string>
 *
 * `runTool(name, input)` runs one client tool and resolves to its output; it rejects when the
 * tool fails. Grade a loop with `agentlab grade FILE.ts` (or `FILE.ts:FUNCTION`).
 */
import type Anthropic from "@anthropic-ai/sdk";

export type RunTool = (name: string, input: unknown) => Promise<string>;

export const MODEL = "claude-sonnet-5";
/** The usual output budget; a tool call cut by it is retried once with RETRY_MAX_TOKENS. */
export const MAX_TOKENS = 1024;
/** The budget of that one retry. */
export const RETRY_MAX_TOKENS = 4096;
/** Safety cap on requests: it THROWS when hit, it is never the way the loop normally ends. */
export const MAX_STEPS = 25;
/** Consecutive turns whose tool results are all errors before the loop gives up. */
export const MAX_TOOL_ERRORS = 3;

/** One tool_use block -> its tool_result; a rejection comes back as an is_error result. */
export async function runOne(block: Anthropic.ToolUseBlock, runTool: RunTool): Promise<Anthropic.ToolResultBlockParam> {
  try {
    return { type: "tool_result", tool_use_id: block.id, content: await runTool(block.name, block.input) };
  } catch (e) { // the error goes back to the model, it does not break the loop
    return { type: "tool_result", tool_use_id: block.id, content: `Error: ${messageOf(e)}`, is_error: true };
  }
}

/** Every tool_use block of the response, run one after another, in order. */
export async function runTools(response: Anthropic.Message, runTool: RunTool): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of toolUses(response)) results.push(await runOne(block, runTool));
  return results;
}

/** The tool_use blocks of a response, in order. */
export function toolUses(response: Anthropic.Message): Anthropic.ToolUseBlock[] {
  return response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
}

/** The text blocks of a response, joined (the final answer on end_turn). */
export function textOf(response: Anthropic.Message): string {
  return response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

/** Whether every result is an error (true for none, like Python's all()). */
export function allErrors(results: Anthropic.ToolResultBlockParam[]): boolean {
  return results.every((r) => r.is_error);
}

/** An error's message (what Python's str(e) gives). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
