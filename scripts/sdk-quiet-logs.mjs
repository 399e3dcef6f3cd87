// Build-time patch of the vendored SDKs' request path (scripts/vendor-packages.mjs, issue 29): their `makeRequest`
// builds log text on every request whatever the log level. OpenAI formats the request's details twice per call (a copy
// of the options, the headers copied into an object, `delete`s) for `debug`, and both SDKs build a `responseInfo`
// string over every answer's headers for `info`; with the default level ('warn') the SDK's own `loggerFor(client)`
// hands out a no-op for both levels. The patch asks the same logger first and skips what it would not print: the
// output is the same, byte for byte, when the level is `info`/`debug` (test/llm/sdk-quiet-logs.test.ts). Every edit
// must match its text exactly the expected number of times, else the build fails: a new SDK version is looked at,
// never silently left unpatched.

/** The no-op `loggerFor` hands out for a level it filters: the one of a client without a logger (both SDKs' log.mjs). */
const NOOP = 'loggerFor({}).debug';

const responseInfo = (expectAt) => [
  // `specialHeaders` iterates the answer's headers: only `responseInfo` uses it, and only `info` prints that
  ['const specialHeaders = [...response.headers.entries()]', `const specialHeaders = loggerFor(this).info === ${NOOP} ? '' : [...response.headers.entries()]`, expectAt],
  ['const responseInfo = `', `const responseInfo = loggerFor(this).info === ${NOOP} ? '' : \``, expectAt],
];

/** [file suffix, [[find (string or global RegExp), replacement, expected count]]] per SDK. */
const EDITS = [
  [
    'openai/client.mjs',
    [
      ...responseInfo(1),
      // `loggerFor(this).debug(MSG, formatRequestDetails({...}));` → the same call, made only when debug prints
      [
        /loggerFor\(this\)\.debug\((`[^`]*`), formatRequestDetails\(\{([^}]*)\}\)\);/g,
        `if (loggerFor(this).debug !== ${NOOP}) loggerFor(this).debug($1, formatRequestDetails({$2}));`,
        6,
      ],
    ],
  ],
  // Anthropic's debug details are already behind its own level check (`debugLogRequestDetails`)
  ['@anthropic-ai/sdk/client.mjs', responseInfo(1)],
];

function count(code, find) {
  return typeof find === 'string' ? code.split(find).length - 1 : (code.match(find) ?? []).length;
}

/** Applies the edits of the SDK file `id` (a path), or returns null for any other file. Throws when the text differs. */
export function quietLogs(code, id) {
  const normal = id.replaceAll('\\', '/');
  const entry = EDITS.find(([suffix]) => normal.endsWith(`/node_modules/${suffix}`));
  if (!entry) return null;
  let out = code;
  for (const [find, replacement, expected] of entry[1]) {
    const n = count(out, find);
    if (n !== expected) {
      throw new Error(`${id}: the SDK log patch expected ${expected} × ${String(find)}, found ${n}: check scripts/sdk-quiet-logs.mjs against this SDK version`);
    }
    out = typeof find === 'string' ? out.replaceAll(find, () => replacement) : out.replace(find, replacement);
  }
  if (!/\bloggerFor\b/.test(out)) throw new Error(`${id}: loggerFor is no longer imported: check scripts/sdk-quiet-logs.mjs`);
  return out;
}
