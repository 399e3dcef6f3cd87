// `yagent mcp serve-code [--workspace DIR]`: the code search tools (codeseek_*) as an MCP server on stdio, so that
// other programs (editors, other agents) get the same parsed index. stdout carries the protocol only; the index is
// built in the background and cached under the data root (the store's own code, in this process).
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/index.js';
import { StoreService } from '../../src/store/service.js';
import { BUILTIN_TOOLS } from '../../src/actors/tools/registry.js';
import type { ToolContext, ToolDeclaration } from '../../src/actors/tools/types.js';
import type { z } from 'zod';

/** Only what the codeseek_* tools use is real; every other part of a tool context is refused. */
export function codeContext(workspace: string, cs: CodeSeek, signal: AbortSignal): ToolContext {
  const no = (): never => {
    throw new Error('not available in mcp serve-code');
  };
  return {
    workspace, signal, agent: 'mcp', taskId: 'mcp', delegationId: null, boardId: 'mcp', callId: 'mcp',
    askUser: no, delegate: no, loadTool: () => null,
    store: { listNotes: no, readNote: no, readArtifact: no, writeArtifact: no, writeImageArtifact: no },
    code: { ask: (q) => cs.ask(workspace, q) },
  };
}

export const CODE_TOOLS = (): ToolDeclaration[] => BUILTIN_TOOLS.filter((d) => d.name.startsWith('codeseek_'));

/** Serves until stdin closes (or a signal); resolves with the exit code. */
export async function serveCode(workspaceArg: string | undefined, stderr: (s: string) => void): Promise<number> {
  const workspace = resolve(workspaceArg ?? process.cwd());
  const tasks = createTaskGroup();
  const store = new StoreService({});
  const cs = new CodeSeek({
    tasks,
    clock: realClock,
    cache: { read: (k) => store.readCodeIndex(k), write: (k, d) => store.writeCodeIndex(k, d) },
    onError: (what, err) => stderr(`yagent mcp serve-code: ${what}: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  const server = new McpServer({ name: 'yagent-codeseek', version: '1.0.0' }, { instructions: 'AST-verified code search over one workspace: search first, callers before changing a function, skeleton before reading a file, grep only for exact strings.' });
  for (const decl of CODE_TOOLS()) {
    const shape = (decl.schema as z.ZodObject).shape;
    server.registerTool(decl.name, { description: decl.description, inputSchema: shape, annotations: { readOnlyHint: true, openWorldHint: false } }, async (args: Record<string, unknown>, extra) => {
      const parsed = decl.schema.parse(args);
      const out = await decl.execute(parsed, codeContext(workspace, cs, extra.signal));
      if (out.kind === 'ok') return { content: [{ type: 'text' as const, text: out.content }] };
      const message = out.kind === 'error' ? `${out.error.kind}: ${out.error.message}` : 'unexpected exit';
      return { content: [{ type: 'text' as const, text: message }], isError: true };
    });
  }
  await cs.warm(workspace);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((r) => (transport.onclose = () => r()));
  await server.connect(transport);
  await Promise.race([closed, new Promise<void>((r) => process.stdin.once('end', () => r()))]);
  await server.close();
  await tasks.drain(5_000);
  await store.shutdown();
  return 0;
}
