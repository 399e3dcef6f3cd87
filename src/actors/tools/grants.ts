// Authorization grants at three levels: session (memory), project (persisted by the store), yolo (-y: everything).
import type { GuardReason } from './workspace-guard.js';

/** Persisted project-level grants; the store layer backs it with ~/.yagent/settings.json. */
export interface ProjectGrants {
  list(): Promise<readonly string[]>;
  add(keys: readonly string[]): Promise<void>;
}

export type GrantScope = 'once' | 'session' | 'project';

/** A grant on `<tool>:<dir>` also covers every path below that directory; `/` is never covered by a prefix. */
function covers(granted: string, key: string): boolean {
  if (granted === key) return true;
  const colon = granted.indexOf(':');
  const prefix = granted.slice(colon + 1);
  if (!prefix.startsWith('/') || prefix === '/') return false;
  return key.startsWith(`${granted}/`);
}

export class Grants {
  private readonly session = new Set<string>();
  constructor(
    readonly yolo: boolean,
    private readonly project: ProjectGrants | null = null,
  ) {}

  /** True when every reason is already granted (or yolo bypasses all authorization). */
  async allows(reasons: readonly GuardReason[]): Promise<boolean> {
    if (this.yolo || reasons.length === 0) return true;
    const persisted = this.project ? await this.project.list() : [];
    const all = [...this.session, ...persisted];
    return reasons.every((r) => (r.projectGrant === false ? [...this.session] : all).some((g) => covers(g, r.key)));
  }

  async record(reasons: readonly GuardReason[], scope: GrantScope): Promise<void> {
    const keys = reasons.map((r) => r.key);
    switch (scope) {
      case 'once':
        return;
      case 'session':
        for (const k of keys) this.session.add(k);
        return;
      case 'project':
        for (const k of keys) this.session.add(k);
        if (this.project) await this.project.add(keys);
        return;
    }
  }
}
