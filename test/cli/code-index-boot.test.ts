// Peak RSS (issue 29): the code index's worker boots for a workspace that may hold code (at the first model call, as
// before), and for one with nothing to index only at its first use; a codeseek_* call there still gets the index's answer.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const NOTES = { 'notes.md': '# notes\n', 'f0.txt': 'file 0\n' };
const BOOTED = /thread \d+: start codeseek/;

/** A traced single-agent run whose Director makes `calls` (one a step, each request logged) and then answers. */
async function traced(files: Record<string, string>, calls: { name: string; args: Record<string, unknown> }[]): Promise<{ stderr: string; code: number | null; results: string[] }> {
  sb = sandbox(GOOD_CONFIG);
  const ws = project(sb, files);
  const log = join(sb.dir, 'requests.jsonl');
  writeFileSync(log, '');
  const seen = (step: string): string => `(req) => { appendFileSync(${JSON.stringify(log)}, JSON.stringify(req.body) + '\\n'); return ${step}; }`;
  const steps = [...calls.map((c) => seen(`({ text: '', toolCalls: [{ name: ${JSON.stringify(c.name)}, arguments: ${JSON.stringify(JSON.stringify(c.args))} }], finishReason: 'tool_calls' })`)), seen(`({ text: 'done', finishReason: 'stop' })`)];
  const script = `import { appendFileSync } from 'node:fs';\nexport default { director: [${steps.join(', ')}] };\n`;
  const r = await runCli(['-d', 'all', '-p', 'go', '-y'], { ...withScript(sb, script), YAGENT_TRACE: '1' }, { cwd: ws });
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  const last = JSON.parse(lines[lines.length - 1] ?? '{}') as { messages?: { role: string; content: unknown }[] };
  const results = (last.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
  return { stderr: r.stderr, code: r.code, results };
}

it('a workspace with nothing to index boots no code-index worker; one with code boots it at the first model call', async () => {
  const none = await traced(NOTES, [{ name: 'read_file', args: { path: 'notes.md' } }]);
  expect(none.code, none.stderr).toBe(0);
  expect(none.stderr).toContain('no file to index in the workspace');
  expect(none.stderr).not.toMatch(BOOTED);
  const code = await traced({ ...NOTES, 'src/a.ts': 'export const a = 1;\n' }, [{ name: 'read_file', args: { path: 'notes.md' } }]);
  expect(code.code, code.stderr).toBe(0);
  expect(code.stderr).toMatch(BOOTED);
}, 120_000);

it('a codeseek_* call in a workspace with nothing to index boots the index then and gets its answer', async () => {
  const r = await traced(NOTES, [{ name: 'codeseek_search', args: { query: 'slugify' } }]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(BOOTED);
  expect(r.results).toHaveLength(1);
  expect(r.results[0]).not.toMatch(/error|unreachable|off|NOT_FOUND/i);
  expect(r.results[0]).toMatch(/0 files|no (declaration|match|result)|nothing/i);
}, 120_000);
