// Fake-model scripts for the queue tests (each worker process runs its own fake provider from the same module).
import { PRELUDE } from './scripts.js';

const TOOLS = `
const hasTool = (req) => (req.body.messages || []).some((x) => x.role === 'tool');
const answer = (req) => say('answer to: ' + firstUser(req).slice(-30));
`;

/** A prompt holding HOLD stalls on the first worker that takes it (its pid goes to `marker`); anywhere else, and every
 *  other prompt, is answered. A prompt holding GATE waits (writing `waiting`) until the file `gate` exists. */
export function holdScript(marker: string, gate: string, waiting: string): string {
  return `${PRELUDE}${TOOLS}
import { existsSync, renameSync, writeFileSync } from 'node:fs';
const step = async (req) => {
  const p = firstUser(req);
  if (p.includes('HOLD') && !existsSync(${JSON.stringify(marker)})) {
    writeFileSync(${JSON.stringify(marker)} + '.tmp', String(process.pid));
    renameSync(${JSON.stringify(marker)} + '.tmp', ${JSON.stringify(marker)});
    return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } };
  }
  if (p.includes('GATE')) {
    writeFileSync(${JSON.stringify(waiting)}, 'waiting');
    while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));
  }
  return answer(req);
};
export default { director: times(300, step) };
`;
}

/** FAIL: every request is a 500; SECRET: the answer quotes MY_API_KEY; EDIT: Coding creates hello.txt in the
 *  workspace; OUTSIDE: Coding creates a file outside it (an approval nobody can give). */
export function faultsScript(outside: string): string {
  return `${PRELUDE}${TOOLS}
const director = (req) => {
  const p = firstUser(req);
  if (p.includes('FAIL')) return { fault: { kind: 'status', status: 500, message: 'scripted outage' } };
  if (p.includes('SECRET')) return say('the key is ' + process.env.MY_API_KEY);
  if ((p.includes('EDIT') || p.includes('OUTSIDE')) && !hasTool(req)) return call('delegate_coding', { task: p.includes('EDIT') ? 'EDIT: write hello.txt' : 'OUTSIDE: write the report', context_refs: [] });
  return answer(req);
};
const coding = (req) => {
  if (hasTool(req)) return call('agent_exit', { conclusion: 'wrote it', facts: [], artifacts: [], status: 'ok' });
  const outside = firstUser(req).includes('OUTSIDE');
  return call('create_file', outside ? { path: ${JSON.stringify(outside)}, content: 'report\\n' } : { path: 'hello.txt', content: 'hello from the queue\\n' });
};
export default { director: times(300, director), coding: times(300, coding) };
`;
}
