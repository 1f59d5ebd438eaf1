/**
 * Fault: nothing bounds consecutive tool errors: a tool that always fails is retried until the step cap.
 * Fallo: nada limita los errores seguidos: una herramienta que siempre falla se reintenta hasta el tope de pasos.
 *
 * The twin of agentlab.loops.specimens.specimen_unbounded_tool_errors: correct_loop.ts with one change,
 * marked `// FAULT (unbounded-tool-errors)`. `agentlab grade unbounded-tool-errors.ts` names it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { MAX_STEPS, MAX_TOKENS, MODEL, RETRY_MAX_TOKENS, runTools, textOf } from "./common.ts";
import type { RunTool } from "./common.ts";

export async function agentLoop(client: Anthropic, prompt: string, tools: Anthropic.Tool[], runTool: RunTool): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
  let maxTokens = MAX_TOKENS;
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
      const results = await runTools(response, runTool);
      messages.push({ role: "user", content: results });
      // FAULT (unbounded-tool-errors): no count of turns whose results are all errors, so no bound on them
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
