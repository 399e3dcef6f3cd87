// The demo's scripted model: Director → Repo explores → Coding writes slugify + test and runs them → report.
import type { FakeReply, FakeStep, RecordedRequest } from '../../src/actors/llm/fake/script.js';

const SLUG = `// slugify: lower-case words joined by dashes; added by the yagent demo (Coding agent).
export function slugify(s) {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`;

const SLUG_TEST = `// Tests of slug.js, run by \`node test.js\`.
import assert from 'node:assert/strict';
import { slugify } from './slug.js';

export const tests = {
  'slugify joins lower-cased words with dashes': () => assert.equal(slugify('Hello, Yagent World!'), 'hello-yagent-world'),
  'slugify of an empty string is empty': () => assert.equal(slugify(''), ''),
};
`;

const thought = (goal: string, step: string, reason: string): string =>
  `<thought>\ngoal: ${goal}\nstep: ${step}\nreason: ${reason}\n</thought>\n`;

const call = (name: string, args: Record<string, unknown>, text = ''): FakeReply => ({
  text,
  toolCalls: [{ name, arguments: JSON.stringify(args) }],
  finishReason: 'tool_calls',
});

/** The last tool result the agent sent back (the scripted model "reads" it to write its report). */
function lastToolResult(req: RecordedRequest): string {
  const messages = (req.body['messages'] ?? []) as { role?: string; content?: unknown }[];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'tool') return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  }
  return '';
}

const GOAL = 'add a slugify helper with a test to the sample project';

export const DEMO_SCRIPT: Record<string, FakeStep[]> = {
  director: [
    call('delegate_repo', { task: 'Explore the project: list its files, read strings.js and the test runner, and report how tests are written and run.', context_refs: [] }, thought(GOAL, 'have Repo explore the project', 'I must not guess the layout')),
    call('delegate_coding', {
      task: 'Create slug.js exporting slugify(s) (lower-case words joined by dashes) and slug.test.js in the style of strings.test.js, then run `node test.js` and report the output.',
      context_refs: [],
    }, thought(GOAL, 'have Coding write the helper and its test, then run the tests', 'Repo reported how tests are written')),
    (req) => ({
      text: `${thought(GOAL, 'report to the user', 'Coding ran the tests')}Done. Repo explored the project (a string helper module and a plain-node test runner). Coding added \`slug.js\` with \`slugify()\` and \`slug.test.js\`, then ran \`node test.js\`:\n\n${lastToolResult(req).slice(0, 800)}`,
      finishReason: 'stop',
    }),
  ],
  repo: [
    call('list_dir', { path: '.' }),
    call('read_file', { path: 'strings.js' }),
    call('read_file', { path: 'test.js' }),
    call('agent_exit', {
      conclusion: 'A tiny ESM project: strings.js exports capitalize() and words(); test.js runs every *.test.js file, which exports a `tests` object of named functions using node:assert. Run the tests with `node test.js`.',
      facts: ['tests live in *.test.js files exporting `tests`', 'the runner is `node test.js` (exit 1 on failure)'],
      artifacts: ['strings.js', 'test.js', 'strings.test.js'],
      status: 'ok',
    }),
  ],
  coding: [
    call('create_file', { path: 'slug.js', content: SLUG }, thought(GOAL, 'write slug.js', 'the helper comes first')),
    call('create_file', { path: 'slug.test.js', content: SLUG_TEST }, thought(GOAL, 'write slug.test.js', 'tests follow the strings.test.js style')),
    call('run_bash', { command: 'node test.js', is_dangerous: false, timeout_seconds: 60 }, thought(GOAL, 'run the tests', 'verify before reporting')),
    (req) => {
      const output = lastToolResult(req);
      const passed = output.includes('all tests passed');
      return call('agent_exit', {
        conclusion: `Added slug.js (slugify) and slug.test.js; \`node test.js\` ${passed ? 'passes' : 'FAILS'}:\n${output.slice(0, 600)}`,
        facts: [passed ? 'node test.js: all tests passed' : 'node test.js failed'],
        artifacts: ['slug.js', 'slug.test.js'],
        status: passed ? 'ok' : 'partial',
      }, thought(GOAL, 'report back', 'the tests ran'));
    },
  ],
};
