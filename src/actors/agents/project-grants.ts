// Production ProjectGrants: project-level grants persisted in settings.json through the store actor.
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { StoreApi } from '../../store/api.js';
import type { ProjectGrants } from '../tools/grants.js';

export type GrantStore = Pick<StoreApi, 'readSettings' | 'authorizeProject'>;

/** Keyed by the workspace's real path (the guard's keys are real paths too), read fresh on every check
 *  so a grant given in another run or process counts at once. */
export function storeProjectGrants(store: GrantStore, workspace: string): ProjectGrants {
  let project: Promise<string> | null = null;
  // a workspace that cannot be resolved is keyed by its path (the grant then simply does not match a link's target)
  const key = (): Promise<string> => (project ??= realpath(workspace).catch(() => resolve(workspace)));
  return {
    async list() {
      const [settings, p] = await Promise.all([store.readSettings(), key()]);
      return settings.project_grants?.[p] ?? [];
    },
    async add(keys) {
      if (keys.length === 0) return;
      await store.authorizeProject(await key(), [...keys]);
    },
  };
}
