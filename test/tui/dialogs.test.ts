// Approval and question dialogs in the painted TUI (@xterm/headless): any agent's request, nested ones included,
// answered with one key per scope; a question answered in the input box; a withdrawn request's dialog closes.
import { afterEach, describe, expect, it } from 'vitest';
import type { UserHelpResponse } from '../../bin/host/types.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';

afterEach(quitScripted);

async function withAnswers(): Promise<{ s: Scripted; answers: UserHelpResponse[] }> {
  const answers: UserHelpResponse[] = [];
  const s = await scripted(100, 30, { respond: (_t, r) => (answers.push(r), Promise.resolve()) });
  await s.step('go\r');
  s.deliver({ type: 'delegation_start', agent: 'director', callId: 'c1', child: 'coding', task: 'write' });
  s.deliver({ type: 'delegation_start', agent: 'coding', callId: 'c2', child: 'repo', task: 'look' }, 'c1');
  return { s, answers };
}

const ask = (s: Scripted, requestId: string, delegationId: string | null, kind: 'authorization' | 'question' = 'authorization'): void =>
  s.deliver({ type: 'user_help_needed', agent: delegationId === 'c2' ? 'repo' : 'coding', requestId, kind, question: `request ${requestId}?`, tool: 'create_file' }, delegationId);

describe('TUI dialogs', () => {
  it('a nested agent\'s approval opens a dialog; y / s / p / n answer once, for the session, for the project, or deny; queued requests follow', async () => {
    const { s, answers } = await withAnswers();
    for (const id of ['r1', 'r2', 'r3', 'r4']) ask(s, id, id === 'r2' ? 'c2' : 'c1');
    await s.step('');
    expect(s.term.screenText()).toContain('┌─ coding needs approval');
    expect(s.term.screenText()).toContain('request r1?');
    await s.step('y');
    expect(s.term.screenText()).toContain('┌─ repo needs approval');
    await s.step('s');
    await s.step('p');
    await s.step('n');
    expect(answers.map((a) => [a.requestId, a.approved, a.scope])).toEqual([['r1', true, 'once'], ['r2', true, 'session'], ['r3', true, 'project'], ['r4', false, 'once']]);
    expect(s.term.screenText()).not.toContain('needs approval');
  });

  it('a question (ask_user_for_help) is answered in the input box; Esc declines it', async () => {
    const { s, answers } = await withAnswers();
    ask(s, 'q1', null, 'question');
    await s.step('');
    expect(s.term.screenText()).toContain('┌─ coding asks');
    await s.step('blue\r');
    ask(s, 'q2', null, 'question');
    await s.step('\x1b');
    expect(answers.map((a) => [a.requestId, a.approved, a.answer])).toEqual([['q1', true, 'blue'], ['q2', false, undefined]]);
  });

  it('a withdrawn request (its asker gave up or is gone) closes its dialog while the delegation runs on; the next one shows', async () => {
    const { s, answers } = await withAnswers();
    ask(s, 'r1', 'c1');
    ask(s, 'r2', 'c2');
    await s.step('');
    expect(s.term.screenText()).toContain('request r1?');
    s.deliver({ type: 'user_help_withdrawn', requestId: 'r1', reason: 'delegation:c1:coding is gone' }, 'c1');
    await s.step('');
    expect(s.term.screenText()).not.toContain('request r1?');
    expect(s.term.screenText()).toContain('┌─ repo needs approval');
    expect(s.term.screenText()).toContain('request withdrawn: delegation:c1:coding is gone');
    await s.step('y');
    expect(answers.map((a) => a.requestId)).toEqual(['r2']);
  });

  it('the dialog of a request whose delegation ended (nested ones too) or whose task ended closes by itself', async () => {
    const { s, answers } = await withAnswers();
    ask(s, 'r1', 'c2');
    ask(s, 'r2', null);
    await s.step('');
    expect(s.term.screenText()).toContain('┌─ repo needs approval');
    // c1 ended (a timeout, a cancel): the request of c2 inside it went with it
    s.deliver({ type: 'delegation_end', agent: 'director', callId: 'c1', child: 'coding', status: 'error' });
    await s.step('');
    expect(s.term.screenText()).not.toContain('repo needs approval');
    expect(s.term.screenText()).toContain('┌─ coding needs approval');
    s.deliver({ type: 'task_end', stopReason: 'cancelled' });
    await s.step('');
    expect(s.term.screenText()).not.toContain('needs approval');
    expect(answers).toEqual([]);
  });
});

/** The dialog's body, its wrapped rows joined: the sentences as written. */
const bodyText = (screen: string): string => screen.split('\n').map((l) => /│ (.*?) +│/.exec(l)?.[1] ?? '').filter((t) => t !== '').join(' ');

describe('TUI approval preview', () => {
  it('a write shows the path, the workspace, the arguments one per line and a preview of the content that scrolls when long; an edit shows its change', async () => {
    const s = await scripted(100, 30);
    await s.step('go\r');
    const content = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of the report`).join('\n');
    s.deliver({
      type: 'user_help_needed', agent: 'coding', requestId: 'w1', kind: 'authorization', tool: 'create_file',
      question: 'Allow create_file (/tmp/x/notes.txt)? path "/tmp/x/notes.txt" is outside the workspace /home/u/proj.',
      detail: JSON.stringify({ path: '/tmp/x/notes.txt', content, overwrite: false }),
    });
    await s.step('');
    let screen = s.term.screenText();
    expect(bodyText(screen)).toContain('path "/tmp/x/notes.txt" is outside the workspace /home/u/proj.');
    expect(screen).toContain('│ tool: create_file ');
    expect(screen).toContain('│ path: /tmp/x/notes.txt ');
    expect(screen).toContain('│ overwrite: false ');
    expect(screen).toContain('│ content (40 lines): ');
    expect(screen).toContain('│   line 1 of the report ');
    expect(screen).not.toContain('{"path"'); // no JSON blob wrapped mid-word
    expect(screen).toMatch(/│ ↓ \d+ more +│/);
    expect(screen).toContain('y once · s session · p project · n deny · ↑↓ PgUp/PgDn scroll');
    // PgDn twice and Down: further down the preview, the last line in view at the end
    await s.step('\x1b[6~\x1b[6~\x1b[6~\x1b[6~\x1b[6~');
    screen = s.term.screenText();
    expect(screen).toContain('│   line 40 of the report ');
    expect(screen).not.toContain('│   line 1 of the report ');
    expect(screen).toMatch(/│ ↑ \d+ more +│/);
    await s.step('n');
    s.deliver({
      type: 'user_help_needed', agent: 'coding', requestId: 'e1', kind: 'authorization', tool: 'edit_file',
      question: 'Allow edit_file (../other/a.ts)? path "../other/a.ts" is outside the workspace /home/u/proj (it resolves to /home/u/other/a.ts).',
      detail: JSON.stringify({ path: '../other/a.ts', old_string: 'const a = 1;\nconst b = 2;', new_string: 'const a = 10;', replace_all: false }),
    });
    await s.step('');
    screen = s.term.screenText();
    expect(bodyText(screen)).toContain('is outside the workspace /home/u/proj (it resolves to /home/u/other/a.ts).');
    expect(screen).toContain('│ change: ');
    expect(screen).toContain('│ - const a = 1; ');
    expect(screen).toContain('│ - const b = 2; ');
    expect(screen).toContain('│ + const a = 10; ');
    expect(screen).not.toContain('old_string');
  });
});
