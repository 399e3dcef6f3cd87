// The blueprint: the derived layer (from the code index, every run, never stored) beside the persisted prose that
// only a Repo run's agent_exit `blueprint[]` writes (path claims checked, CAS through the store). A structural change
// marks the prose stale and keeps it; stale is sticky (only a new fold clears it). Each entry's anchors are fresh,
// stale or orphaned (anchors.ts); orphans age out after 90 days. `export_path` mirrors it into a workspace file.
import type { YagentConfig } from '../../runtime/config/types.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { BlueprintDoc, StoreApi } from '../../store/api.js';
import type { CodeSeekApi } from '../codeseek/client.js';
import { mayHoldCode } from '../codeseek/presence.js';
import type { Publish } from '../agents/loop-contract.js';
import type { ChatMessage } from '../agents/wire-types.js';
import { age, anchorEntry, formatEntry, parseEntry, renderEntry, stateOf, type Entry, type EntryView } from './anchors.js';
import { checkClaims } from './claims.js';
import { writeExport } from './export.js';
import { derive, renderDerived, type Derived } from './derive.js';

export const BLUEPRINT_HEADER = '[blueprint]';
/** Tries of a fold whose compare-and-swap lost to another writer (each re-reads and merges again). */
const CAS_TRIES = 3;
/** The persisted prose is kept within this many times the injection budget (oldest entries go first). */
const PERSIST_FACTOR = 4;
const CHARS_PER_TOKEN = 4;

export interface BlueprintDeps {
  store: Pick<StoreApi, 'readBlueprint' | 'writeBlueprint'>;
  code?: Pick<CodeSeekApi, 'imports'> | undefined;
  config: YagentConfig['blueprint'];
  publish: Publish;
  /** Ages orphaned prose (production: the host's clock; tests: a manual one). */
  now: () => number;
}

export interface DerivedView {
  d: Derived;
  /** The index was still building: the layer is partial and decides no staleness. */
  partial: boolean;
}

const entriesOf = (prose: string): Entry[] => prose.split('\n').filter((l) => l.startsWith('- ')).map((l) => parseEntry(l.slice(2)));
const proseOf = (entries: readonly Entry[]): string => entries.map((e) => `- ${formatEntry(e)}`).join('\n') + '\n';

export class Blueprint {
  constructor(private readonly o: BlueprintDeps) {}

  get enabled(): boolean {
    return this.o.config.enabled;
  }

  async derived(workspace: string): Promise<DerivedView | null> {
    if (!this.o.code) return null;
    // no file the index could cover: its answer would be no files, so its worker is not booted for it
    if (!(await mayHoldCode(workspace))) return { d: derive(workspace, []), partial: false };
    const { status, files } = await this.o.code.imports(workspace);
    return { d: derive(workspace, files), partial: status.building };
  }

  /** The prose, after marking it stale if the structure moved since it was written (sticky: never unmarked here) and
   *  ageing its anchors (orphans marked, un-marked when their path is back, dropped after 90 days). */
  private async prose(projectId: string, view: DerivedView | null, workspace: string): Promise<BlueprintDoc | null> {
    const doc = await this.o.store.readBlueprint(projectId);
    if (doc === null) return null;
    const structural = !doc.stale && view !== null && !view.partial && doc.fingerprint !== view.d.fingerprint;
    const aged = age(workspace, entriesOf(doc.prose), this.o.now());
    if (!structural && !aged.changed) return doc;
    const next = { ...doc, stale: doc.stale || structural, prose: proseOf(aged.kept) };
    const r = await this.o.store.writeBlueprint({ projectId, workspace, expectedRevision: doc.revision, fingerprint: doc.fingerprint, prose: next.prose, stale: next.stale });
    if (aged.expired.length > 0) this.o.publish({ type: 'log', level: 'info', source: 'blueprint', message: `${aged.expired.length} orphaned blueprint entr${aged.expired.length === 1 ? 'y' : 'ies'} aged out (their paths have been gone 90 days): ${aged.expired.map((e) => e.why.join(', ')).join('; ')}` });
    if (!r.ok) return next;
    await this.exportTo(workspace, view, r.doc);
    return r.doc;
  }

  /** `[blueprint] export_path`: the derived layer and the prose into the workspace file (a failure is a warning). */
  private async exportTo(workspace: string, view: DerivedView | null, doc: BlueprintDoc): Promise<void> {
    if (this.o.config.exportPath === '') return;
    const derivedText = view ? renderDerived(view.d, 200_000) : 'Derived layer unavailable (no code index in this run).';
    const block = `## Repository blueprint\n\n${derivedText}\n\n${proseSection(doc, 200_000, workspace)}\n`;
    await writeExport(workspace, this.o.config.exportPath, block).catch((e: unknown) => publishWarning(this.o.publish, 'blueprint', `the blueprint export to ${this.o.config.exportPath} failed`, e));
  }

  /** What an agent of `role` gets before its model calls (none when off or not in `inject_into`). */
  async injection(role: string, workspace: string, projectId: string): Promise<ChatMessage[]> {
    if (!this.enabled || !this.o.config.injectInto.includes(role)) return [];
    const view = await this.derived(workspace).catch((e: unknown) => {
      // not up yet (or not in this process): no derived layer this run, which is no failure
      if ((e as { code?: unknown } | null)?.code !== 'NOT_FOUND') publishWarning(this.o.publish, 'blueprint', 'the derived blueprint is left out (code index unreachable)', e);
      return null;
    });
    const doc = await this.prose(projectId, view, workspace);
    const parts: string[] = [];
    // a workspace with no code and no manifest has an empty derived layer: nothing worth a message on every call
    const empty = view !== null && !view.partial && view.d.modules.length === 0 && view.d.manifests.length === 0 && view.d.entries.length === 0;
    if (view && !empty) parts.push(`${renderDerived(view.d, this.o.config.indexMaxTokens * CHARS_PER_TOKEN)}${view.partial ? '\n(the code index is still building: partial)' : ''}`);
    if (doc && doc.prose.trim() !== '') parts.push(proseSection(doc, this.o.config.proseBudgetTokens * CHARS_PER_TOKEN, workspace));
    if (parts.length === 0) return [];
    return [{ role: 'user', content: `${BLUEPRINT_HEADER} repository blueprint (derived from the code this run; read_blueprint for all of it):\n${parts.join('\n\n')}` }];
  }

  /** read_blueprint: the whole derived layer and the whole prose. */
  async read(workspace: string, projectId: string): Promise<string> {
    if (!this.enabled) return 'The blueprint is off ([blueprint] enable = false or YAGENT_BLUEPRINT=0).';
    const view = await this.derived(workspace);
    const doc = await this.prose(projectId, view, workspace);
    const derivedText = view ? renderDerived(view.d, 200_000) + (view.partial ? '\n(the code index is still building: partial)' : '') : 'Derived layer unavailable (no code index in this run).';
    return `${derivedText}\n\n${doc ? proseSection(doc, 200_000, workspace) : 'No prose yet: a Repo run adds it through agent_exit blueprint[].'}`;
  }

  /** The Repo completion seam: checks and merges `entries` into the prose; returns the account (never the conclusion). */
  async fold(workspace: string, projectId: string, entries: readonly string[]): Promise<string> {
    if (!this.enabled) return `blueprint: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} not written (the blueprint is off)`;
    if (entries.length === 0) return 'blueprint: no entries submitted (nothing written)';
    const { kept, dropped } = checkClaims(workspace, entries);
    const lines = dropped.map((d) => `  dropped "${d.entry.slice(0, 120)}": ${d.reason}`);
    if (kept.length === 0) return [`blueprint: 0 of ${entries.length} entries kept (nothing written)`, ...lines].join('\n');
    const view = await this.derived(workspace).catch(() => null);
    const fresh = kept.map((e) => anchorEntry(workspace, e));
    for (let attempt = 1; attempt <= CAS_TRIES; attempt++) {
      const doc = await this.o.store.readBlueprint(projectId);
      // a re-submitted entry replaces the old one (its anchors are re-hashed: fresh again)
      const texts = new Set(fresh.map((e) => e.text));
      const old = age(workspace, (doc ? entriesOf(doc.prose) : []).filter((e) => !texts.has(e.text)), this.o.now()).kept;
      const merged: Entry[] = [...old, ...fresh];
      const cap = this.o.config.proseBudgetTokens * CHARS_PER_TOKEN * PERSIST_FACTOR;
      while (merged.length > 1 && proseOf(merged).length > cap) merged.shift();
      const r = await this.o.store.writeBlueprint({
        projectId, workspace, expectedRevision: doc?.revision ?? 0,
        fingerprint: view && !view.partial ? view.d.fingerprint : (doc?.fingerprint ?? ''),
        prose: proseOf(merged),
      });
      if (r.ok) {
        await this.exportTo(workspace, view, r.doc);
        return [`blueprint: ${kept.length} of ${entries.length} entries kept, revision ${r.revision}`, ...lines].join('\n');
      }
      if (r.reason === 'refused') return [`blueprint: not written (${r.detail})`, ...lines].join('\n');
    }
    return [`blueprint: not written (another process kept changing it: ${CAS_TRIES} compare-and-swap attempts lost)`, ...lines].join('\n');
  }
}

function proseSection(doc: BlueprintDoc, maxChars: number, workspace: string): string {
  const head = `Notes from earlier Repo runs (revision ${doc.revision}, ${doc.updated})${doc.stale ? ' — STALE: the structure changed since; verify before relying on them' : ''}:`;
  const all: EntryView[] = entriesOf(doc.prose).map((e) => stateOf(workspace, e));
  const shown: string[] = [];
  let used = head.length;
  // newest last in the file: the budget keeps the newest
  for (const e of [...all].reverse()) {
    const line = renderEntry(e);
    if (used + line.length + 1 > maxChars) break;
    shown.unshift(line);
    used += line.length + 1;
  }
  const cut = shown.length < all.length ? `\n[${all.length - shown.length} older entries not shown: read_blueprint]` : '';
  return `${head}\n${shown.join('\n')}${cut}`;
}
