/**
 * Fault: a reply cut by max_tokens is returned as if it were the finished answer.
 * Fallo: una respuesta cortada por max_tokens se devuelve como si fuera la respuesta terminada.
 *
 * The twin of agentlab.loops.specimens.specimen_ignores_max_tokens: correct_loop.ts with one change,
 * marked `// FAULT (ignores-max-tokens)`. `agentlab grade ignores-max-tokens.ts` names it.
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
    messages.push({ role: "assistant", content: response.content });
    // FAULT (ignores-max-tokens): max_tokens (a cut) is treated like end_turn (the end)
    if (response.stop_reason === "end_turn" || response.stop_reason === "stop_sequence" || response.stop_reason === "max_tokens") {
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
      continue;
    } else if (response.stop_reason === "refusal") {
      return "The model declined this request.";
    } else {
      throw new Error(`Unhandled stop_reason: ${response.stop_reason}`);
    }
  }
  throw new Error(`No end_turn after ${MAX_STEPS} requests`);
}
