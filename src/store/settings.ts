// settings.json (`authorized_projects`, `project_grants`): read tolerant of a missing or broken file (a broken
// one is moved aside to settings.json.bad-<ts> before the next write replaces it), written atomically (0600).
import { promises as fsp } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { Settings } from './api.js';
import { atomicWrite } from './atomic-write.js';
import { settingsPath } from './data-paths.js';
import { isMissing } from './errors.js';

const SettingsSchema = z.looseObject({
  authorized_projects: z.array(z.string()).default([]),
  project_grants: z.record(z.string(), z.array(z.string())).optional(),
});

export class SettingsStore {
  /** Read-modify-write calls run one at a time: two grants in flight must not drop each other. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly root: string) {}

  /** Unknown keys are kept on write-back (another version may own them). `bad`: the text of a file that
   *  exists but does not parse (or fails the schema): start empty rather than refuse to run, and keep it. */
  private async raw(): Promise<{ settings: Record<string, unknown> & Settings; bad?: string }> {
    let text: string;
    try {
      text = await fsp.readFile(settingsPath(this.root), 'utf8');
    } catch (err) {
      if (isMissing(err)) return { settings: { authorized_projects: [] } };
      throw err;
    }
    try {
      const r = SettingsSchema.safeParse(JSON.parse(text));
      if (r.success) return { settings: r.data };
    } catch {
      // not JSON: reported below as bad, like a schema failure
    }
    return { settings: { authorized_projects: [] }, bad: text };
  }

  async read(): Promise<Settings> {
    return copy((await this.raw()).settings);
  }

  /** Lists the project as authorized and adds `grantKeys` to its project grants. */
  authorize(projectPath: string, grantKeys: readonly string[] = []): Promise<Settings> {
    const run = this.chain.then(async () => {
      const { settings: r, bad } = await this.raw();
      // the user's broken file is kept beside, never silently replaced
      if (bad !== undefined) await atomicWrite(`${settingsPath(this.root)}.bad-${Date.now()}`, bad, { noClobber: true });
      const abs = resolve(projectPath);
      if (!r.authorized_projects.includes(abs)) r.authorized_projects = [...r.authorized_projects, abs].sort();
      if (grantKeys.length > 0) {
        const grants = { ...(r.project_grants ?? {}) };
        grants[abs] = [...new Set([...(grants[abs] ?? []), ...grantKeys])].sort();
        r.project_grants = grants;
      }
      await atomicWrite(settingsPath(this.root), `${JSON.stringify(r, null, 2)}\n`, { mode: 0o600 });
      return copy(r);
    });
    this.chain = run.catch(() => undefined); // the chain only orders: the caller of authorize() gets run's failure
    return run;
  }
}

function copy(r: Settings): Settings {
  const out: Settings = { authorized_projects: [...r.authorized_projects] };
  if (r.project_grants) out.project_grants = Object.fromEntries(Object.entries(r.project_grants).map(([k, v]) => [k, [...v]]));
  return out;
}
