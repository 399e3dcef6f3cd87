// Environment kill switches: each decided by exactly one function, applied inside normalisation.
export type Env = Readonly<Record<string, string | undefined>>;

/** YAGENT_CONCURRENCY=0 forces every concurrency knob to 1 (strictly serial). */
export function concurrencyDisabled(env: Env): boolean {
  return env['YAGENT_CONCURRENCY'] === '0';
}
/** YAGENT_BLACKBOARD=0 turns the blackboard off as a whole (there is no `enabled` key on purpose). */
export function blackboardDisabled(env: Env): boolean {
  return env['YAGENT_BLACKBOARD'] === '0';
}
/** YAGENT_RESUME=0 is the whole-feature exit: no checkpoints written, no replay. */
export function resumeDisabled(env: Env): boolean {
  return env['YAGENT_RESUME'] === '0';
}
export function mcpDisabled(env: Env): boolean {
  return env['YAGENT_MCP'] === '0';
}
export function skillsDisabled(env: Env): boolean {
  return env['YAGENT_SKILLS'] === '0';
}
export function blueprintDisabled(env: Env): boolean {
  return env['YAGENT_BLUEPRINT'] === '0';
}
/** YAGENT_ARTIFACT_DISABLE=1 keeps delegation output inline instead of spilling it to artifacts. */
export function artifactDisabled(env: Env): boolean {
  return env['YAGENT_ARTIFACT_DISABLE'] === '1';
}
/** YAGENT_COMPRESS_THRESHOLD (debug only) beats both the catalogue and the config; invalid = ignored. */
export function compressThresholdOverride(env: Env): number | undefined {
  const raw = env['YAGENT_COMPRESS_THRESHOLD'];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
/** The data root: YAGENT_HOME, else ~/.yagent. */
export function yagentHome(env: Env, homedir: string): string {
  const h = env['YAGENT_HOME'];
  return h !== undefined && h !== '' ? h : `${homedir}/.yagent`;
}
