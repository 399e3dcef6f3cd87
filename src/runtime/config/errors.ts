// ConfigError: a broken config is three human lines (what, where, how to fix) and exit code 2, never a stack.
export const CONFIG_EXIT_CODE = 2;

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
    return [`yagent: config error: ${this.what}`, `  where: ${this.where}`, `  fix:   ${this.fix}`];
  }
}

export function isConfigError(err: unknown): err is ConfigError {
  return err instanceof Error && (err as { code?: unknown }).code === 'CONFIG_INVALID' && 'lines' in err;
}
