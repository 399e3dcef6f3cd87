// Reads the headless prompt: the -p argument, or all of stdin for `-p -` / piped input.
import { CliError, EXIT } from './exit-codes.js';

export async function readPrompt(arg: string | null, stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (arg !== null) {
    if (arg.trim() === '') throw new CliError('the prompt is empty', EXIT.error, undefined, 'pass text after -p, or pipe it on stdin');
    return arg;
  }
  if (stdin.isTTY === true) throw new CliError('no prompt: stdin is a terminal', EXIT.error, undefined, 'use `yagent -p "…"` or pipe the prompt in');
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') throw new CliError('the prompt on stdin is empty', EXIT.error, undefined, 'pipe a non-empty prompt, or use -p "…"');
  return text;
}
