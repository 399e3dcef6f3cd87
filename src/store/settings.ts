// settings.json (`authorized_projects`): read tolerant of a missing or broken file, written atomically (0600).
import { promises as fsp } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { Settings } from './api.js';
import { atomicWrite } from './atomic-write.js';
import { settingsPath } from './paths.js';

const SettingsSchema = z.looseObject({ authorized_projects: z.array(z.string()).default([]) });

export class SettingsStore {
  constructor(private readonly root: string) {}

  /** Unknown keys are kept on write-back (another version may own them). */
  private async raw(): Promise<Record<string, unknown> & Settings> {
    try {
      const r = SettingsSchema.safeParse(JSON.parse(await fsp.readFile(settingsPath(this.root), 'utf8')));
      if (r.success) return r.data;
    } catch {
      // missing or unparseable: start empty rather than refuse to run
    }
    return { authorized_projects: [] };
  }

  async read(): Promise<Settings> {
    const r = await this.raw();
    return { authorized_projects: [...r.authorized_projects] };
  }

  async authorize(projectPath: string): Promise<Settings> {
    const r = await this.raw();
    const abs = resolve(projectPath);
    if (!r.authorized_projects.includes(abs)) r.authorized_projects = [...r.authorized_projects, abs].sort();
    await atomicWrite(settingsPath(this.root), `${JSON.stringify(r, null, 2)}\n`, { mode: 0o600 });
    return { authorized_projects: [...r.authorized_projects] };
  }
}
