// Cuts a tool result to the model's budget the way the tool's `truncation` tag says, with a visible marker.
import type { CapabilityTags } from './types.js';

export const DEFAULT_MAX_RESULT_CHARS = 40_000;

export function truncationMarker(cut: number): string {
  return `\n[… ${cut} characters truncated …]\n`;
}

export function truncateText(text: string, mode: CapabilityTags['truncation'], max = DEFAULT_MAX_RESULT_CHARS): string {
  if (mode === 'none' || text.length <= max) return text;
  const cut = text.length - max;
  switch (mode) {
    case 'head':
      return text.slice(0, max) + truncationMarker(cut);
    case 'tail':
      return truncationMarker(cut) + text.slice(text.length - max);
    case 'head_tail': {
      const half = Math.floor(max / 2);
      return text.slice(0, half) + truncationMarker(cut) + text.slice(text.length - (max - half));
    }
  }
}
