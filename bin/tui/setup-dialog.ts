// `/setup` inside the TUI: the `yagent setup` questions as a dialog, answered in the input box; the provider block
// is written only through the config write-back (`writeProviderBlock` + `writeConfigText`), so it works on a broken config.
import { existsSync, readFileSync } from 'node:fs';
import { defaultConfigPath, ensureConfigExists } from '../../src/runtime/config/loader.js';
import { writeConfigText } from '../../src/runtime/config/persist.js';
import { setupState } from '../../src/runtime/config/setup-state.js';
import type { FoundServer } from '../cli/probe.js';
import { writeProviderBlock, type ProviderBlock } from '../cli/setup.js';
import type { DialogData } from './view.js';

type Field = 'pick' | 'model' | 'name' | 'format' | 'baseUrl' | 'key';

const ASK: Record<Field, string> = {
  pick: 'choose a number',
  model: 'model',
  name: 'provider name (e.g. openai)',
  format: 'api format: openai or anthropic',
  baseUrl: 'api base url',
  key: 'api key, or the environment variable holding it (e.g. OPENAI_API_KEY)',
};

/** The outcome shown when the dialog closes: ok = the config now loads with the new provider. */
export interface SetupResult {
  ok: boolean;
  message: string;
  /** `provider/model` now configured (the status line shows it until the first call says otherwise). */
  model?: string;
}

export class SetupDialog {
  private readonly answers: Partial<Record<Field, string>> = {};
  /** The key answer: the name of a set environment variable (written as api_key_env), else the key itself. */
  private key: Pick<ProviderBlock, 'apiKeyEnv' | 'apiKey'> = { apiKeyEnv: undefined, apiKey: undefined };
  private readonly steps: Field[];
  private local: FoundServer | undefined;
  private error = '';

  constructor(
    private readonly found: FoundServer[],
    private readonly configPath: string | undefined,
    private readonly why = '',
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.steps = found.length > 0 ? ['pick'] : ['name', 'format', 'baseUrl', 'model', 'key'];
  }

  /** The question asks for a secret: the input box shows dots and the answer stays out of the history. */
  get secret(): boolean {
    return this.field === 'key';
  }

  private get field(): Field | undefined {
    return this.steps[0];
  }

  private listed(): string[] {
    return this.local?.models ?? [];
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
    // the models the server listed: a number picks one (a name not listed is taken as typed)
    const listed = this.listed();
    if (f === 'model') listed.forEach((m, i) => lines.push(`${i + 1}) ${m}`));
    const def = this.defaultOf(f);
    lines.push(`${f === 'model' && listed.length > 0 ? 'model: a number or a name' : ASK[f]}${def ? ` [${def}]` : ''}:`);
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
      this.steps.splice(0, 1, ...(this.local ? (['model'] as const) : (['name', 'format', 'baseUrl', 'model', 'key'] as const)));
      return null;
    }
    if (f === 'format' && v !== 'openai' && v !== 'anthropic') return this.retry('the format is openai or anthropic');
    if (f === 'key') return this.answerKey(v);
    if (v === '') return this.retry(`${ASK[f]} is needed`);
    const n = Number(v);
    const listed = this.listed();
    if (f === 'model' && Number.isInteger(n) && String(n) === v && listed.length > 0 && !listed.includes(v)) {
      if (n < 1 || n > listed.length) return this.retry(`"${v}" is not one of 1-${listed.length}`);
      this.answers.model = listed[n - 1];
      this.steps.shift();
      return this.steps.length > 0 ? null : this.write();
    }
    this.answers[f] = v;
    this.steps.shift();
    return this.steps.length > 0 ? null : this.write();
  }

  /** A set environment variable's name (OPENAI_API_KEY, $OPENAI_API_KEY) or the key itself; asked again, with the
   *  reason, for nothing or an unset variable (the config would not load: a dead end found only at the end). */
  private async answerKey(v: string): Promise<SetupResult | null> {
    if (v === '') return this.retry('an api key is needed (a server that takes none: type any word, e.g. none)');
    const name = /^\$?([A-Z][A-Z0-9_]*)$/.exec(v)?.[1];
    if (name !== undefined && !this.env[name]) return this.retry(`${name} is not set in this terminal's environment: type the key itself, or quit, export ${name} and start yagent again`);
    this.key = name !== undefined ? { apiKeyEnv: name, apiKey: undefined } : { apiKeyEnv: undefined, apiKey: v };
    this.steps.shift();
    return this.write();
  }

  private retry(error: string): null {
    this.error = error;
    return null;
  }

  private block(): ProviderBlock {
    const a = this.answers;
    if (this.local) return { name: this.local.name, format: 'openai', baseUrl: this.local.baseUrl, model: a.model ?? '', apiKeyEnv: undefined, apiKey: 'local' };
    return { name: a.name ?? '', format: a.format === 'anthropic' ? 'anthropic' : 'openai', baseUrl: a.baseUrl ?? '', model: a.model ?? '', ...this.key };
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
    return { ok: true, message: [...warnings, `provider "${b.name}" (${b.model} at ${b.baseUrl}) written; the next turn uses it`].join('\n'), model: `${b.name}/${b.model}` };
  }
}
