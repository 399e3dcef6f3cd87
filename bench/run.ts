// `npm run bench [-- suite...]`: runs suites in order; each prints one JSON line last.
import type { Suite } from './lib.js';

const SUITES: Record<string, () => Promise<{ default: Suite }>> = {
  // Registered by each area's issue: runtime, store, llm, tools, mcp, agents, cli.
  runtime: () => import('./runtime.js'),
  llm: () => import('./llm.js'),
  tools: () => import('./tools.js'),
  mcp: () => import('./mcp.js'),
  store: () => import('./store.js'),
  agents: () => import('./agents.js'),
  cli: () => import('./cli.js'),
  wire: () => import('./wire.js'),
  queue: () => import('./queue.js'),
  undo: () => import('./undo.js'),
  codeseek: () => import('./codeseek.js'),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(SUITES);
  for (const name of names) {
    const load = SUITES[name];
    if (!load) {
      process.stderr.write(`bench: unknown suite "${name}" (known: ${Object.keys(SUITES).join(', ') || 'none yet'})\n`);
      process.exitCode = 2;
      return;
    }
    const suite = (await load()).default;
    const figures = await suite.run();
    process.stdout.write(`${JSON.stringify({ suite: suite.name, node: process.version, figures })}\n`);
  }
}

await main();
