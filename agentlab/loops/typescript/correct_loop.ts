/**
 * The reference loop in TypeScript, the twin of agentlab.loops.specimens.correct_loop: every
 * faulty twin in this folder is this loop with ONE change, marked by a FAULT comment naming its tag.
 * Passes every case.
 *
 * Model claude-sonnet-5, max_tokens 1024; branch on stop_reason only; push response.content
 * verbatim; one user message with one tool_result per tool_use (a tool that rejects comes back
 * with is_error); pause_turn: call again; max_tokens cut inside a tool_use: never run it, retry
 * once with 4096; cut in text: throw; refusal: return a message; stop_sequence: return the text;
 * anything else: throw. Safety nets that throw: MAX_STEPS requests, MAX_TOOL_ERRORS turns in a row
 * whose results are all errors.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { MAX_STEPS, MAX_TOKENS, MAX_TOOL_ERRORS, MODEL, RETRY_MAX_TOKENS, allErrors, runTools, textOf } from "./common.ts";
import type { RunTool } from "./common.ts";

export async function agentLoop(client: Anthropic, prompt: string, tools: Anthropic.Tool[], runTool: RunTool): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
  let maxTokens = MAX_TOKENS;
  let errors = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await client.messages.create({ model: MODEL, max_tokens: maxTokens, tools, messages });
    if (response.stop_reason === "max_tokens") {
      if (response.content.at(-1)?.type === "tool_use" && maxTokens === MAX_TOKENS) {
        maxTokens = RETRY_MAX_TOKENS; // the cut call is never run: same request, more room
        continue;
      }
      throw new Error(`Answer cut by max_tokens=${maxTokens}: raise it or split the task`);
    }
    messages.push({ role: "assistant", content: response.content });
    if (response.stop_reason === "end_turn" || response.stop_reason === "stop_sequence") {
      return textOf(response);
    }
    if (response.stop_reason === "tool_use") {
      const results = await runTools(response, runTool);
      messages.push({ role: "user", content: results });
      errors = allErrors(results) ? errors + 1 : 0;
      if (errors >= MAX_TOOL_ERRORS) {
        throw new Error(`The tools failed ${errors} turns in a row: ${results.at(-1)?.content}`);
      }
    } else if (response.stop_reason === "pause_turn") {
      continue; // the history already holds the paused turn: call again
    } else if (response.stop_reason === "refusal") {
      return "The model declined this request.";
    } else {
      throw new Error(`Unhandled stop_reason: ${response.stop_reason}`);
    }
  }
  throw new Error(`No end_turn after ${MAX_STEPS} requests`);
}
