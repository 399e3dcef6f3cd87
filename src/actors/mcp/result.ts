// A CallToolResult → the text the model reads: text as is, images/audio as a note with their size,
// embedded resources as their text, structured content as JSON when nothing else came back.
export interface RenderedResult {
  isError: boolean;
  text: string;
}

interface ContentItem {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** Bytes of a base64 payload without decoding it. */
const base64Bytes = (b64: string): number => Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

function renderItem(c: ContentItem): string {
  switch (c.type) {
    case 'text':
      return c.text ?? '';
    case 'image':
    case 'audio':
      return `[${c.type} returned: ${c.mimeType ?? 'unknown type'}, ${base64Bytes(c.data ?? '')} bytes; it cannot be shown here]`;
    case 'resource': {
      const r = c.resource ?? {};
      if (typeof r.text === 'string') return `[resource ${r.uri ?? ''}${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}`;
      return `[resource ${r.uri ?? ''}${r.mimeType ? ` (${r.mimeType})` : ''}: ${base64Bytes(r.blob ?? '')} bytes of binary data]`;
    }
    case 'resource_link':
      return `[resource link: ${c.uri ?? ''}${c.name ? ` "${c.name}"` : ''}]`;
    default:
      return `[${c.type} content]`;
  }
}

export function renderCallResult(result: { content?: unknown; structuredContent?: unknown; isError?: boolean; toolResult?: unknown }): RenderedResult {
  const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  let text = items.map(renderItem).filter((t) => t !== '').join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text === '' && result.toolResult !== undefined) text = JSON.stringify(result.toolResult);
  return { isError: result.isError === true, text };
}
