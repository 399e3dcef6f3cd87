import { describe, expect, it } from 'vitest';
import { isSecretName, secretValues } from '../../src/runtime/secrets.js';

describe('secret names', () => {
  it.each(['OPENAI_API_KEY', 'github_token', 'DB_Password', 'AWS_SECRET_ACCESS_KEY', 'GCP_CREDENTIALS', 'keychain'])(
    '%s is a secret name',
    (name) => expect(isSecretName(name)).toBe(true),
  );
  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL'])('%s is not', (name) => expect(isSecretName(name)).toBe(false));

  it('collects values of secret-looking and explicitly named variables, longest first, short ones skipped', () => {
    const env = { MY_API_KEY: 'sk-abcdefgh', CUSTOM: 'custom-value-123', PATH: '/usr/bin', X_TOKEN: 'short' };
    expect(secretValues(env, ['CUSTOM'])).toEqual(['custom-value-123', 'sk-abcdefgh']);
  });
});
