// Module resolve hook for agentlab's TypeScript grader (registered by _typescript_harness.mjs).
// A bare import ("@anthropic-ai/sdk", "tsx/esm/api") that cannot be resolved from the importing
// file is resolved again from the folder that holds the node_modules `npm ci` installed
// (AGENTLAB_NODE_ROOT), so a learner's loop.ts outside the checkout still finds the SDK, and
// finds the same copy the grader's client comes from.
let fallbackParent;

export async function initialize(data) {
  fallbackParent = data?.parentURL;
}

const bare = (specifier) => !/^(\.{0,2}\/|[a-zA-Z][a-zA-Z\d+.-]*:)/.test(specifier);

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!fallbackParent || !bare(specifier) || context.parentURL === fallbackParent) throw error;
    try {
      return await nextResolve(specifier, { ...context, parentURL: fallbackParent });
    } catch {
      throw error;
    }
  }
}
