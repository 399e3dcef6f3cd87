// ProseSurvivesARestart through the real CLI (seeds' blueprint rule; the unit form is test/blueprint/blueprint.test.ts):
// a Repo agent's agent_exit blueprint[] is folded by the real runtime (Repo actor in its worker, the store actor
// writing), a new CLI process reads the prose back, and a structural change marks it stale while keeping its text.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { KEY_CONFIG, toolResults, withSecrets } from './exfil-helpers.js';
import { project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { TS_FILES } from '../codeseek/fixtures.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const PRELUDE = `
import { appendFileSync } from 'node:fs';
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const times = (n, step) => Array.from({ length: n }, () => step);
`;
const ENTRY = 'add() in src/math.ts sums two numbers';

/** Run one: the Director delegates to Repo, whose agent_exit carries the blueprint entry. */
const repoRun = `${PRELUDE}
export default {
  director: [call('delegate_repo', { task: 'map the repository', context_refs: [] }), ...times(6, say('Mapped.'))],
  repo: [call('agent_exit', { conclusion: 'mapped', status: 'ok', facts: [], artifacts: [], blueprint: [${JSON.stringify(ENTRY)}] }), ...times(3, say('done'))],
};
`;

/** A later run: the Director reads the blueprint; every request it receives is logged. */
const readRun = (log: string): string => `${PRELUDE}
const seen = (step) => (req) => { appendFileSync(${JSON.stringify(log)}, JSON.stringify(req.body) + '\\n'); return step; };
export default { director: [seen(call('read_blueprint', {})), ...times(6, seen(say('Read.')))] };
`;

async function cli(ws: string, prompt: string, script: string): Promise<void> {
  const r = await runCli(['-p', prompt, '-y', '--output-format', 'json'], withSecrets(withScript(sb as Sandbox, script)), { cwd: ws });
  expect(r.code, r.stderr).toBe(0);
}

/** What read_blueprint returned to the Director of a new CLI process. */
async function readBack(ws: string, name: string): Promise<string> {
  const log = join((sb as Sandbox).dir, `${name}.jsonl`);
  writeFileSync(log, '');
  await cli(ws, 'what is the layout?', readRun(log));
  const [result] = toolResults(log);
  return result ?? '';
}

it('ProseSurvivesARestart: a Repo run\'s prose is read back by a new process, then marked stale by a structural change with its text kept', async () => {
  sb = sandbox(KEY_CONFIG);
  const ws = project(sb, { 'package.json': '{"name":"fixture"}\n', ...TS_FILES });
  await cli(ws, 'map the repository', repoRun);
  const dir = join(sb.home, 'data', 'blueprint');
  const [projectDir] = readdirSync(dir);
  const stored = readFileSync(join(dir, projectDir ?? '', 'blueprint.md'), 'utf8');
  expect(stored).toMatch(/^- add\(\) in src\/math\.ts sums two numbers <!-- anchors src\/math\.ts=[0-9a-f]{12} -->$/m);

  const fresh = await readBack(ws, 'second');
  expect(fresh).toContain(`- ${ENTRY}`);
  expect(fresh).not.toContain('STALE');
  expect(fresh).not.toContain('anchors'); // the anchors are never shown to a model

  // a structural change: a new module (lib) with an import edge into src
  mkdirSync(join(ws, 'lib'));
  writeFileSync(join(ws, 'lib', 'extra.ts'), "import { add } from '../src/math.js';\nexport const three = add(1, 2);\n");
  const stale = await readBack(ws, 'third');
  expect(stale).toContain('STALE');
  expect(stale).toContain(`- ${ENTRY}`);
  expect(readFileSync(join(dir, projectDir ?? '', 'blueprint.md'), 'utf8')).toContain(`- ${ENTRY} <!-- anchors`);
}, 180_000);
