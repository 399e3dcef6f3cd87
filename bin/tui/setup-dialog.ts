// `/setup` inside the TUI: the `yagent setup` questions as a dialog, answered in the input box; the provider block
// is written only through the config write-back (`writeProviderBlock` + `writeConfigText`), so it works on a broken config.
import { existsSync, readFileSync } from 'node:fs';
import { defaultConfigPath, ensureConfigExists } from '../../src/runtime/config/loader.js';
import { writeConfigText } from '../../src/runtime/config/persist.js';
import { setupState } from '../../src/runtime/config/setup-state.js';
import type { FoundServer } from '../cli/probe.js';
import { writeProviderBlock, type ProviderBlock } from '../cli/setup.js';
import type { DialogData } from './view.js';

type Field = 'pick' | 'model' | 'name' | 'format' | 'baseUrl' | 'apiKeyEnv';

const ASK: Record<Field, string> = {
  pick: 'choose a number',
  model: 'model',
  name: 'provider name (e.g. openai)',
  format: 'api format: openai or anthropic',
  baseUrl: 'api base url',
  apiKeyEnv: 'environment variable holding the key (e.g. OPENAI_API_KEY)',
};

/** The outcome shown when the dialog closes: ok = the config now loads with the new provider. */
export interface SetupResult {
  ok: boolean;
  message: string;
}

export class SetupDialog {
  private readonly answers: Partial<Record<Field, string>> = {};
  private readonly steps: Field[];
  private local: FoundServer | undefined;
  private error = '';

  constructor(
    private readonly found: FoundServer[],
    private readonly configPath: string | undefined,
    private readonly why = '',
  ) {
    this.steps = found.length > 0 ? ['pick'] : ['name', 'format', 'baseUrl', 'model', 'apiKeyEnv'];
  }

  private get field(): Field | undefined {
    return this.steps[0];
  }

  private defaultOf(f: Field): string {
    if (f === 'model') return this.local?.models[0] ?? '';
    if (f === 'format') return 'openai';
    return '';
  }

  get data(): DialogData {
    const f = this.field ?? 'pick';
    const lines = this.why ? [this.why, ''] : [];
    if (f === 'pick') {
      this.found.forEach((s, i) => lines.push(`${i + 1}) ${s.name} at ${s.baseUrl} (${s.models.slice(0, 3).join(', ') || 'no models listed'})`));
      lines.push(`${this.found.length + 1}) another OpenAI-compatible or Anthropic endpoint`);
    }
    const def = this.defaultOf(f);
    lines.push(`${ASK[f]}${def ? ` [${def}]` : ''}:`);
    if (this.error) lines.push(this.error);
    return { title: 'setup', body: lines.join('\n'), keys: 'type the answer in the input box + Enter · Esc cancels' };
  }

  /** One typed answer; resolves to the result once the last question is answered (null = more questions). */
  async answer(raw: string): Promise<SetupResult | null> {
    const f = this.field;
    if (f === undefined) return null;
    const v = raw.trim() || this.defaultOf(f);
    this.error = '';
    if (f === 'pick') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > this.found.length + 1) return this.retry(`"${v}" is not one of 1-${this.found.length + 1}`);
      this.local = this.found[n - 1];
      this.steps.splice(0, 1, ...(this.local ? (['model'] as const) : (['name', 'format', 'baseUrl', 'model', 'apiKeyEnv'] as const)));
      return null;
    }
    if (f === 'format' && v !== 'openai' && v !== 'anthropic') return this.retry('the format is openai or anthropic');
    if (v === '' && f !== 'apiKeyEnv') return this.retry(`${ASK[f]} is needed`);
    this.answers[f] = v;
    this.steps.shift();
    return this.steps.length > 0 ? null : this.write();
  }

  private retry(error: string): null {
    this.error = error;
    return null;
  }

  private block(): ProviderBlock {
    const a = this.answers;
    if (this.local) return { name: this.local.name, format: 'openai', baseUrl: this.local.baseUrl, model: a.model ?? '', apiKeyEnv: undefined, apiKey: 'local' };
    return { name: a.name ?? '', format: a.format === 'anthropic' ? 'anthropic' : 'openai', baseUrl: a.baseUrl ?? '', model: a.model ?? '', apiKeyEnv: a.apiKeyEnv || undefined, apiKey: undefined };
  }

  private async write(): Promise<SetupResult> {
    const path = this.configPath ?? defaultConfigPath();
    if (this.configPath === undefined) await ensureConfigExists(path);
    else if (!existsSync(path)) return { ok: false, message: `setup: config file not found: ${path}` };
    const b = this.block();
    const warnings: string[] = [];
    await writeConfigText(path, writeProviderBlock(readFileSync(path, 'utf8'), b), { warn: (m) => warnings.push(m) });
    const after = await setupState({ configPath: path });
    if (after.state === 'broken') return { ok: false, message: `provider "${b.name}" was written, but the config still does not load: ${after.error.what}` };
    if (after.state !== 'ok') return { ok: false, message: `provider "${b.name}" was written, but no usable provider yet (${after.state})` };
    return { ok: true, message: [...warnings, `provider "${b.name}" (${b.model} at ${b.baseUrl}) written; the next turn uses it`].join('\n') };
  }
}
