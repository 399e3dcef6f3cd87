// The documented exit codes of every yagent client (README and `yagent --help` print this table).
import { capLine } from '../../src/runtime/config/errors.js';

export const EXIT = {
  ok: 0,
  error: 1,
  config: 2,
  needsApproval: 3,
  cancelled: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_TABLE = `exit codes:
  0    success
  1    error (the task failed, a bad argument, no supervisor to attach to)
  2    configuration error (three lines on stderr say what, where and how to fix)
  3    the task needed an approval and this run cannot ask (re-run with -y, or use serve + attach)
  130  cancelled (Ctrl-C drains the task gracefully; a second Ctrl-C or -Q quits at once)`;

/** A failure a client reports as three human lines and a documented exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly where?: string,
    readonly fix?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function formatCliError(err: CliError): string {
  const lines = [`yagent: ${err.message}`];
  if (err.where) lines.push(`  where: ${err.where}`);
  if (err.fix) lines.push(`  fix:   ${err.fix}`);
  return `${lines.map((l) => capLine(l)).join('\n')}\n`;
}

/** A broken config: its three lines (what, where, fix) are printed as they are, exit code 2. */
export class ConfigExit extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines[0] ?? 'config error');
    this.name = 'ConfigExit';
  }
}
