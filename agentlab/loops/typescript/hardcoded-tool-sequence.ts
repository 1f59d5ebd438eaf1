/**
 * Fault: the code picks the tool to run (always the first one listed), not the model's tool_use blocks.
 * Fallo: el código elige qué herramienta ejecutar (siempre la primera de la lista), no los tool_use del modelo.
 *
 * The twin of agentlab.loops.specimens.specimen_hardcoded_tool_sequence: correct_loop.ts with one change,
 * marked `// FAULT (hardcoded-tool-sequence)`. `agentlab grade hardcoded-tool-sequence.ts` names it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { MAX_STEPS, MAX_TOKENS, MAX_TOOL_ERRORS, MODEL, RETRY_MAX_TOKENS, allErrors, messageOf, textOf, toolUses } from "./common.ts";
import type { RunTool } from "./common.ts";

export async function agentLoop(client: Anthropic, prompt: string, tools: Anthropic.Tool[], runTool: RunTool): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
  let maxTokens = MAX_TOKENS;
  let errors = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await client.messages.create({ model: MODEL, max_tokens: maxTokens, tools, messages });
    if (response.stop_reason === "max_tokens") {
      if (response.content.at(-1)?.type === "tool_use" && maxTokens === MAX_TOKENS) {
        maxTokens = RETRY_MAX_TOKENS;
        continue;
      }
      throw new Error(`Answer cut by max_tokens=${maxTokens}: raise it or split the task`);
    }
    messages.push({ role: "assistant", content: response.content });
    if (response.stop_reason === "end_turn" || response.stop_reason === "stop_sequence") {
      return textOf(response);
    }
    if (response.stop_reason === "tool_use") {
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const b of toolUses(response)) {
        try { // FAULT (hardcoded-tool-sequence): runs the code's own pick, tools[0], not b.name
          const output = await runTool(tools[0].name, b.input);
          results.push({ type: "tool_result", tool_use_id: b.id, content: output });
        } catch (e) {
          results.push({ type: "tool_result", tool_use_id: b.id, content: `Error: ${messageOf(e)}`, is_error: true });
        }
      }
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
