// Runs the exam guide's TypeScript agent loop (seed_loop.ts) once and prints its answer.
//
//     ANTHROPIC_BASE_URL=<the URL `agentlab serve` printed> ANTHROPIC_API_KEY=docs_search \
//         npx tsx examples/typescript/run_seed_loop.ts ["your question"]
import { agente } from "./seed_loop.ts";

const pregunta = process.argv[2] ?? "¿Cuántos días de vacaciones tengo al año?";
console.log(await agente(pregunta));
