// `yagent sessions`: this workspace's sessions, newest first (read-only: the store actor writes the ledger).
import { SessionLedger } from '../../src/store/sessions.js';
import { dataRoot, projectIdFor } from '../../src/store/data-paths.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { Streams } from './output.js';

export async function runSessions(workspace: string, json: boolean, io: Streams): Promise<ExitCode> {
  const sessions = await new SessionLedger(dataRoot()).list(projectIdFor(workspace));
  if (json) {
    io.stdout(`${JSON.stringify({ sessions })}\n`);
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    io.stdout('(no sessions in this workspace; start one with `yagent -p "..."`)\n');
    return EXIT.ok;
  }
  const rows = sessions.map((s) => [
    s.sessionId,
    new Date(s.startedAt).toISOString().slice(0, 19).replace('T', ' '),
    String(s.turns),
    s.stopReason ?? 'interrupted',
    `${s.tokens.input + s.tokens.output}`,
    s.lastPrompt.replace(/\s+/g, ' ').slice(0, 60),
  ]);
  const head = ['SESSION', 'STARTED (UTC)', 'TURNS', 'STOP', 'TOKENS', 'LAST PROMPT'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  io.stdout(`${[line(head), ...rows.map(line)].join('\n')}\n`);
  return EXIT.ok;
}
