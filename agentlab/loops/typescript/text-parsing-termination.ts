/**
 * Fault: the loop ends when the text says "DONE"/"Final answer", not on stop_reason.
 * Fallo: el bucle termina cuando el texto dice «DONE»/«Final answer», no según stop_reason.
 *
 * The twin of agentlab.loops.specimens.specimen_text_parsing_termination: correct_loop.ts with one change,
 * marked `// FAULT (text-parsing-termination)`. `agentlab grade text-parsing-termination.ts` names it.
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
        maxTokens = RETRY_MAX_TOKENS;
        continue;
      }
      throw new Error(`Answer cut by max_tokens=${maxTokens}: raise it or split the task`);
    }
    messages.push({ role: "assistant", content: response.content });
    const text = textOf(response);
    if (text.includes("DONE") || text.includes("Final answer")) { // FAULT (text-parsing-termination): the words decide the end
      return text;
    }
    if (response.stop_reason === "tool_use") {
      const results = await runTools(response, runTool);
      messages.push({ role: "user", content: results });
      errors = allErrors(results) ? errors + 1 : 0;
      if (errors >= MAX_TOOL_ERRORS) {
        throw new Error(`The tools failed ${errors} turns in a row: ${results.at(-1)?.content}`);
      }
    } else if (["end_turn", "stop_sequence", "pause_turn"].includes(response.stop_reason ?? "")) {
      continue; // FAULT (text-parsing-termination): no "DONE" in the text yet, so it calls again
    } else if (response.stop_reason === "refusal") {
      return "The model declined this request.";
    } else {
      throw new Error(`Unhandled stop_reason: ${response.stop_reason}`);
    }
  }
  throw new Error(`No end_turn after ${MAX_STEPS} requests`);
}
