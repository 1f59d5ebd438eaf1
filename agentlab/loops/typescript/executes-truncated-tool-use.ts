/**
 * Fault: a tool_use cut by max_tokens is run with its incomplete input.
 * Fallo: un tool_use cortado por max_tokens se ejecuta con su input incompleto.
 *
 * The twin of agentlab.loops.specimens.specimen_executes_truncated_tool_use: correct_loop.ts with one change,
 * marked `// FAULT (executes-truncated-tool-use)`. `agentlab grade executes-truncated-tool-use.ts` names it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { MAX_STEPS, MAX_TOKENS, MAX_TOOL_ERRORS, MODEL, allErrors, runTools, textOf } from "./common.ts";
import type { RunTool } from "./common.ts";

export async function agentLoop(client: Anthropic, prompt: string, tools: Anthropic.Tool[], runTool: RunTool): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
  let maxTokens = MAX_TOKENS;
  let errors = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await client.messages.create({ model: MODEL, max_tokens: maxTokens, tools, messages });
    if (response.stop_reason === "max_tokens" && response.content.at(-1)?.type !== "tool_use") {
      throw new Error(`Answer cut by max_tokens=${maxTokens}: raise it or split the task`);
    }
    messages.push({ role: "assistant", content: response.content });
    if (response.stop_reason === "end_turn" || response.stop_reason === "stop_sequence") {
      return textOf(response);
    }
    // FAULT (executes-truncated-tool-use): a tool call cut by max_tokens runs like a complete one
    if (response.stop_reason === "tool_use" || response.stop_reason === "max_tokens") {
      const results = await runTools(response, runTool);
      messages.push({ role: "user", content: results });
      errors = allErrors(results) ? errors + 1 : 0;
      if (errors >= MAX_TOOL_ERRORS) {
        throw new Error(`The tools failed ${errors} turns in a row: ${results.at(-1)?.content}`);
      }
    } else if (response.stop_reason === "pause_turn") {
      continue;
    } else if (response.stop_reason === "refusal") {
      return "The model declined this request.";
    } else {
      throw new Error(`Unhandled stop_reason: ${response.stop_reason}`);
    }
  }
  throw new Error(`No end_turn after ${MAX_STEPS} requests`);
}
