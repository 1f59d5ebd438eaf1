/**
 * Fault: the assistant turn is rebuilt by hand from its tool_use blocks (text and thinking are lost).
 * Fallo: el turno del asistente se reconstruye a mano con sus tool_use (se pierden text y thinking).
 *
 * The twin of agentlab.loops.specimens.specimen_rebuilt_assistant_turn: correct_loop.ts with one change,
 * marked `// FAULT (rebuilt-assistant-turn)`. `agentlab grade rebuilt-assistant-turn.ts` names it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { MAX_STEPS, MAX_TOKENS, MAX_TOOL_ERRORS, MODEL, RETRY_MAX_TOKENS, allErrors, runTools, textOf, toolUses } from "./common.ts";
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
    if (response.stop_reason === "end_turn" || response.stop_reason === "stop_sequence") {
      return textOf(response);
    }
    if (response.stop_reason === "tool_use") {
      // FAULT (rebuilt-assistant-turn): a hand-made copy with only the tool calls, not response.content
      messages.push({ role: "assistant", content: toolUses(response).map((b) => (
        { type: "tool_use" as const, id: b.id, name: b.name, input: b.input })) });
      const results = await runTools(response, runTool);
      messages.push({ role: "user", content: results });
      errors = allErrors(results) ? errors + 1 : 0;
      if (errors >= MAX_TOOL_ERRORS) {
        throw new Error(`The tools failed ${errors} turns in a row: ${results.at(-1)?.content}`);
      }
    } else if (response.stop_reason === "pause_turn") {
      messages.push({ role: "assistant", content: response.content });
    } else if (response.stop_reason === "refusal") {
      return "The model declined this request.";
    } else {
      throw new Error(`Unhandled stop_reason: ${response.stop_reason}`);
    }
  }
  throw new Error(`No end_turn after ${MAX_STEPS} requests`);
}
