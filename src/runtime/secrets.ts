// One definition of "a secret" for every consumer: the shell env policy, log redaction, rollouts.

/** Variable names matching any of these (case-insensitive) are secrets unless explicitly kept. */
export const SECRET_NAME_PARTS = ['KEY', 'SECRET', 'TOKEN', 'PASSWORD', 'CREDENTIAL'] as const;

/** True when `name` looks like it holds a secret (`*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`, `*CREDENTIAL*`). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME_PARTS.some((part) => upper.includes(part));
}

/**
 * The secret values present in `env`: every variable named in `extraNames` (e.g. each provider's
 * `api_key_env`) plus every secret-looking name. Values shorter than 8 characters are skipped: redacting
 * "1" or "true" everywhere would destroy logs without protecting anything.
 */
export function secretValues(env: NodeJS.ProcessEnv, extraNames: readonly string[] = []): string[] {
  const names = new Set(extraNames);
  for (const name of Object.keys(env)) if (isSecretName(name)) names.add(name);
  const values = new Set<string>();
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.length >= 8) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}
