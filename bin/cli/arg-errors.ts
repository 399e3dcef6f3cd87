// node:util parseArgs failures in our own words: the unknown option with a did-you-mean, a missing value named.
import { closest, distance } from 'fastest-levenshtein';
import { CliError, EXIT } from './exit-codes.js';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** The closest known name within a typo's reach (a third of the name, at least 2 edits), or null. */
export function didYouMean(word: string, known: readonly string[]): string | null {
  if (known.length === 0) return null;
  const best = closest(word, [...known]);
  return distance(word, best) <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

/** `--frobnicate` → "unknown option --frobnicate (did you mean --...?)" with the usage hint; `-p` alone → "-p needs a value". */
export function argError(err: unknown, options: OptionSpec, command: string): CliError {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const help = command === '' ? 'yagent --help' : `yagent ${command} --help`;
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const opt = /Unknown option '([^']+)'/.exec(message)?.[1] ?? message;
    const longs = Object.keys(options).map((n) => `--${n}`);
    const guess = opt.startsWith('--') ? didYouMean(opt.split('=')[0] ?? opt, longs) : null;
    return new CliError(`unknown option ${opt}${guess !== null ? ` (did you mean ${guess}?)` : ''}`, EXIT.error, undefined, `run \`${help}\` for the options`);
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(message);
    if (missing) return new CliError(`${missing[1]} needs a value`, EXIT.error, undefined, `run \`${help}\``);
    const flag = /Option '([^']+)' does not take an argument/.exec(message);
    if (flag) return new CliError(`${flag[1]} is a switch and takes no value`, EXIT.error, undefined, `write it alone (${flag[1]}); run \`${help}\``);
  }
  return new CliError(message, EXIT.error, undefined, `run \`${help}\``);
}
