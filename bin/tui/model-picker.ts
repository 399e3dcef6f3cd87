// `/model`: a picker of the configured providers (the config re-read) and the models each server lists; a provider
// that cannot work is shown with the reason and refused; a pick applies to a running task at its next step.
import type { ProviderChoice } from '../host/model-choices.js';
import type { CommandHost } from './parts.js';

export interface PickerRow {
  provider: string | null;
  model?: string;
  label: string;
  refused?: string;
}

/** Routing first, then per provider its configured model and the other models its server lists. */
export function pickerRows(choices: readonly ProviderChoice[]): PickerRow[] {
  const rows: PickerRow[] = [{ provider: null, label: 'auto — routing decides' }];
  for (const c of choices) {
    if (c.refused !== null) {
      // the row says it short (one line); Enter says all of it
      const short = c.refused.split(/[:(]/)[0]?.trim() ?? c.refused;
      rows.push({ provider: c.name, label: `${c.name} — cannot be used: ${short}`, refused: `provider "${c.name}" cannot be used: ${c.refused}` });
      continue;
    }
    rows.push({ provider: c.name, label: `${c.name} · ${c.model} (configured)${c.listError !== undefined ? ` — ${c.listError}` : ''}` });
    for (const m of c.models) if (m !== c.model) rows.push({ provider: c.name, model: m, label: `${c.name} · ${m}` });
  }
  return rows;
}

/** The reason `provider` / `model` cannot be picked, or null (the same words as the picker's rows). */
export function refusalOf(choices: readonly ProviderChoice[], provider: string, model?: string): string | null {
  const c = choices.find((x) => x.name === provider);
  if (!c) return `no provider "${provider}" (configured providers: ${choices.map((x) => x.name).join(', ') || '(none)'})`;
  if (c.refused !== null) return `provider "${provider}" cannot be used: ${c.refused}`;
  if (model !== undefined && model !== c.model && c.models.length > 0 && !c.models.includes(model)) return `the server of "${provider}" does not list model "${model}" (it lists ${c.models.join(', ')})`;
  return null;
}

/** Applies a choice: the next turns use it; a running task switches at its Director's next step. */
export function applyModel(app: CommandHost, provider: string | null, model: string | undefined): void {
  app.provider = provider;
  app.model = provider === null ? null : (model ?? null);
  const what = provider === null ? 'routing decides' : `${provider}${model ? ` ${model}` : ''}`;
  const id = app.taskId;
  const switchModel = app.backend.switchModel;
  if (app.run === 'idle' || id === null || !switchModel) {
    app.notice = `model: ${what} from the next turn`;
    return;
  }
  app.notice = `model: ${what} from the running task's next step`;
  app.tasks.go('tui-switch-model', async () => {
    const refused = await switchModel(id, provider, model);
    if (refused !== null) app.notice = `/model: the running task keeps its model: ${refused} (the next turn uses ${what})`;
    app.frames.mark();
  });
}

const REFRESH_KEYS = '↑↓ select · Enter switches · Esc closes';

/** Opens the picker over `choices`; Enter on a refused row says why and keeps it open. */
export function openPicker(app: CommandHost, choices: readonly ProviderChoice[]): void {
  const rows = pickerRows(choices);
  const current = rows.findIndex((r) => r.provider === app.provider && (r.model ?? null) === (app.provider === null ? null : app.model));
  let selected = Math.max(0, current);
  const data = (): { title: string; body: string; keys: string; focus: number } => ({
    title: `model (now: ${app.side.model || 'no call yet'})`,
    body: rows.map((r, i) => `${i === selected ? '▸' : ' '} ${i === current ? '●' : ' '} ${r.label}`).join('\n'),
    keys: REFRESH_KEYS,
    focus: selected,
  });
  const pick = (key: string): boolean => {
    if (key === 'escape' || key === '\x1b' || key === 'C-c' || key === '\x03') return true;
    if (key === 'up') selected = Math.max(0, selected - 1);
    else if (key === 'down') selected = Math.min(rows.length - 1, selected + 1);
    else if (key === 'enter' || key === '\r') {
      const row = rows[selected];
      if (row?.refused !== undefined) app.notice = `/model: ${row.refused}`;
      else if (row) {
        applyModel(app, row.provider, row.model);
        return true;
      }
    }
    if (app.info) app.info.data = data();
    return false;
  };
  app.info = { kind: 'info', data: data(), pick };
}
