// ConfigError: a broken config is three human lines (what, where, how to fix) and exit code 2, never a stack.
export const CONFIG_EXIT_CODE = 2;

/** An error line echoes values from the user's input: past this it is cut, so that the fix line always follows (a
 *  1 MB value once filled the pipe and the process exited before its where and fix lines were written). */
export const MAX_ERROR_LINE_CHARS = 400;

export function capLine(line: string, max = MAX_ERROR_LINE_CHARS): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${line.length - max} more characters)`;
}

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly exitCode = CONFIG_EXIT_CODE;
  constructor(
    readonly what: string,
    readonly where: string,
    readonly fix: string,
  ) {
    super(`${what} (${where})`);
    this.name = 'ConfigError';
  }

  /** The three lines the CLI prints on stderr. */
  lines(): [string, string, string] {
    return [capLine(`yagent: config error: ${this.what}`), capLine(`  where: ${this.where}`), capLine(`  fix:   ${this.fix}`)];
  }
}

export function isConfigError(err: unknown): err is ConfigError {
  return err instanceof Error && (err as { code?: unknown }).code === 'CONFIG_INVALID' && 'lines' in err;
}
