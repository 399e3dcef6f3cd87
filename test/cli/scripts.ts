// Fake-model scripts (plain JS module sources) for the CLI end-to-end tests; only the model is scripted.

/** Helpers inlined into every script module. */
export const PRELUDE = `
const call = (name, args, text = '') => ({ text, toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const times = (n, step) => Array.from({ length: n }, () => step);
const lastUser = (req) => { const m = (req.body.messages || []).filter((x) => x.role === 'user'); const c = m[m.length - 1]?.content; return typeof c === 'string' ? c : JSON.stringify(c ?? ''); };
const firstUser = (req) => { const m = (req.body.messages || []).find((x) => x.role === 'user'); return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''); };
const lastTool = (req) => { const m = (req.body.messages || []).filter((x) => x.role === 'tool'); return String(m[m.length - 1]?.content ?? ''); };
`;

/** Director delegates to Repo (one read), Repo exits, Director answers (extra answers absorb reminders). */
export const DELEGATING = `${PRELUDE}
export default {
  director: [call('delegate_repo', { task: 'read package.json and report the name', context_refs: [] }), ...times(6, say('The project is called yagent-fixture.'))],
  repo: [call('read_file', { path: 'package.json' }), call('agent_exit', { conclusion: 'name is yagent-fixture', facts: [], artifacts: [], status: 'ok' }), ...times(3, say('done'))],
};
`;

/** Coding writes outside the workspace: the guard must ask (an approval request from a nested agent). */
export function writingOutside(target: string): string {
  return `${PRELUDE}
export default {
  director: [call('delegate_coding', { task: 'write the report file', context_refs: [] }), ...times(6, say('Coding finished.'))],
  coding: [
    call('create_file', { path: ${JSON.stringify(target)}, content: 'written after approval\\n' }),
    call('agent_exit', { conclusion: 'wrote the file', facts: [], artifacts: [${JSON.stringify(target)}], status: 'ok' }),
    ...times(3, say('done')),
  ],
};
`;
}

/** Every request fails with a 500: the run ends in an error. */
export const FAILING = `${PRELUDE}
export default { director: times(20, { fault: { kind: 'status', status: 500, message: 'scripted outage' } }) };
`;

/** The model stalls after one event: only a cancel ends the run. */
export const STALLING = `${PRELUDE}
export default { director: times(10, { text: 'thinking…', fault: { kind: 'stall', afterEvents: 1 } }) };
`;

/** Batch: a prompt containing STALL stalls; every other prompt is answered with its own text. */
export function batchScript(stall: boolean): string {
  return `${PRELUDE}
const step = (req) => (${stall} && firstUser(req).includes('STALL')) ? { text: 'x', fault: { kind: 'stall', afterEvents: 1 } } : say('answer to: ' + firstUser(req).slice(-40));
export default { director: times(200, step) };
`;
}

/** The Director starts two Repo delegations in one step; the first Repo reply waits (up to `holdMs`) for the second
 *  request to arrive, and the peak number of model requests in flight is written to `peakFile` (the fake
 *  provider runs in the CLI process). A gate of 1 never lets the second arrive while the first is held: there the
 *  hold is a negative check's window; where overlap is expected it is a generous deadline for the event. */
export function parallelDelegations(peakFile: string, holdMs: number): string {
  return `${PRELUDE}
import { writeFileSync } from 'node:fs';
let now = 0;
let peak = 0;
let answered = 0;
const slowExit = async () => {
  now += 1;
  peak = Math.max(peak, now);
  writeFileSync(${JSON.stringify(peakFile)}, String(peak));
  const end = Date.now() + ${holdMs};
  while (answered === 0 && peak < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  answered += 1;
  now -= 1;
  return call('agent_exit', { conclusion: 'looked', facts: [], artifacts: [], status: 'ok' });
};
const both = { text: '', finishReason: 'tool_calls', toolCalls: [
  { name: 'delegate_repo', arguments: JSON.stringify({ task: 'look at a', context_refs: [] }) },
  { name: 'delegate_repo', arguments: JSON.stringify({ task: 'look at b', context_refs: [] }) },
] };
export default { director: [both, ...times(6, say('both looked'))], repo: [slowExit, slowExit, ...times(4, say('done'))] };
`;
}
