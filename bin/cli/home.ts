// The data root as every client sees it: YAGENT_HOME overrides ~/.yagent.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function dataRoot(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.YAGENT_HOME;
  return override !== undefined && override !== '' ? override : join(homedir(), '.yagent');
}

export function runDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataRoot(env), 'run');
}
