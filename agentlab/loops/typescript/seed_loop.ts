/**
 * The exam guide's TypeScript agent loop ("El bucle agéntico", "Ejemplo completo"), adapted only to
 * the grader's contract: the client, the tools and runTool are passed in instead of being module
 * globals (the verbatim loop is examples/typescript/seed_loop.ts). Passes every case:
 *
 *     agentlab grade agentlab/loops/typescript/seed_loop.ts:agente
 */
import type Anthropic from "@anthropic-ai/sdk";

type RunTool = (name: string, input: unknown) => Promise<string>;

const MODEL = "claude-sonnet-5-5";
const MAX_PASOS = 10;

async function ejecutar(b: Anthropic.ToolUseBlock, runTool: RunTool): Promise<Anthropic.ToolResultBlockParam> {
  try {
    const salida = await runTool(b.name, b.input);
    return { type: "tool_result", tool_use_id: b.id, content: salida };
  } catch (e) {
    return { type: "tool_result", tool_use_id: b.id, content: `Error: ${e}`, is_error: true };
  }
}

export async function agente(client: Anthropic, pregunta: string, tools: Anthropic.Tool[], runTool: RunTool): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: pregunta }];
  for (let paso = 0; paso < MAX_PASOS; paso++) {
    const resp = await client.messages.create({ model: MODEL, max_tokens: 2048, tools, messages });
    messages.push({ role: "assistant", content: resp.content });

    switch (resp.stop_reason) {
      case "end_turn":
      case "stop_sequence":
        return resp.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      case "tool_use": {
        const usos = resp.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
        messages.push({ role: "user", content: await Promise.all(usos.map((b) => ejecutar(b, runTool))) });
        break;
      }
      case "pause_turn":
        break; // volver a llamar con el mismo historial
      case "max_tokens":
        throw new Error("Respuesta cortada: sube max_tokens o divide la tarea");
      case "refusal":
        return "No puedo ayudar con esta petición.";
      default:
        throw new Error(`stop_reason desconocido: ${resp.stop_reason}`);
    }
  }
  throw new Error(`Sin terminar tras ${MAX_PASOS} pasos`);
}
