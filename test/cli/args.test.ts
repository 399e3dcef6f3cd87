// Argument parsing: the seeds' common flags, output formats and sub-commands.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../bin/cli/args.js';
import { CliError, formatCliError } from '../../bin/cli/exit-codes.js';
import { subcommandUsage } from '../../bin/cli/usage.js';

describe('cli arguments', () => {
  it('common flags: -Y implies -y, -d takes a list, -c a path, -Q force quit', () => {
    const cmd = parseCommand(['-p', 'hi', '-Y', '-d', 'devops, chat', '-c', '/x.toml', '-Q', '--output-format', 'json']);
    expect(cmd).toMatchObject({
      kind: 'headless',
      prompt: 'hi',
      explicit: true,
      format: 'json',
      flags: { yolo: true, fullYolo: true, disabledAgents: ['chat', 'devops'], config: '/x.toml', forceQuit: true },
    });
  });

  it('-p - reads the prompt from stdin; no -p is an implicit stdin prompt', () => {
    expect(parseCommand(['-p', '-'])).toMatchObject({ kind: 'headless', prompt: null, explicit: true });
    expect(parseCommand([])).toMatchObject({ kind: 'headless', prompt: null, explicit: false });
  });

  it('an unknown output format is a usage error with exit code 1', () => {
    expect(() => parseCommand(['-p', 'x', '--output-format', 'yaml'])).toThrowError(CliError);
    try {
      parseCommand(['-p', 'x', '--output-format', 'yaml']);
    } catch (err) {
      expect((err as CliError).exitCode).toBe(1);
    }
  });

  it('batch needs a file and a positive --parallel', () => {
    expect(parseCommand(['batch', 't.jsonl', '--parallel', '3'])).toMatchObject({ kind: 'batch', file: 't.jsonl', parallel: 3 });
    expect(parseCommand(['batch', 't.jsonl'])).toMatchObject({ retryFailed: true });
    expect(parseCommand(['batch', 't.jsonl', '--no-retry-failed'])).toMatchObject({ retryFailed: false });
    expect(() => parseCommand(['batch'])).toThrowError(/TASKS.jsonl/);
    expect(() => parseCommand(['batch', 't.jsonl', '--parallel', '0'])).toThrowError(/at least 1/);
  });

  it('setup takes the non-interactive provider flags', () => {
    expect(parseCommand(['setup', '--provider', 'p', '--base-url', 'http://x/v1', '--model', 'm', '--api-key-env', 'K', '--format', 'anthropic'])).toMatchObject({
      kind: 'setup',
      setup: { provider: 'p', baseUrl: 'http://x/v1', model: 'm', apiKeyEnv: 'K', format: 'anthropic', probe: true },
    });
  });

  it('a bare word is the interactive UI\'s first prompt; a slip of a sub-command is named with a did-you-mean', () => {
    expect(parseCommand(['frobnicate', 'the', 'parser'])).toMatchObject({ kind: 'headless', interactivePrompt: 'frobnicate the parser', explicit: false });
    expect(() => parseCommand(['servve'])).toThrowError(/unknown command "servve" \(did you mean `yagent serve`\?\)/);
  });

  it('--provider / --model are parsed for -p and batch; an empty value is refused', () => {
    expect(parseCommand(['-p', 'x', '--provider', 'alt', '--model', 'm2'])).toMatchObject({ kind: 'headless', model: { provider: 'alt', model: 'm2' } });
    expect(parseCommand(['batch', 't.jsonl', '--model', 'm3'])).toMatchObject({ kind: 'batch', model: { model: 'm3' } });
    expect(() => parseCommand(['-p', 'x', '--model', ''])).toThrowError(/--model needs a non-empty value/);
  });

  it('-d resolves through the agents resolver: all expands, an unknown agent exits 2 naming it', () => {
    expect(parseCommand(['-p', 'x', '-d', 'ALL'])).toMatchObject({ flags: { disabledAgents: ['repo', 'coding', 'chat', 'devops', 'browser', 'meta'] } });
    expect(parseCommand(['-p', 'x', '-d', 'browser'])).toMatchObject({ flags: { disabledAgents: ['browser'] } });
    let caught: unknown;
    try {
      parseCommand(['batch', 't.jsonl', '-d', 'repo,wizard']);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).exitCode).toBe(2);
    expect((caught as CliError).message).toMatch(/unknown agent "wizard"/);
  });

  it('extra words after -p PROMPT are an error that shows the quoting', () => {
    let caught: unknown;
    try {
      parseCommand(['-p', 'fix', 'the', 'test']);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).exitCode).toBe(1);
    expect(formatCliError(caught as CliError)).toContain('yagent -p "fix the test"');
    expect(formatCliError(caught as CliError).trim().split('\n')).toHaveLength(3);
  });

  it('batch|serve|setup|demo --help print their own usage', () => {
    for (const topic of ['batch', 'serve', 'setup', 'demo'] as const) {
      const cmd = parseCommand([topic, '--help']);
      expect(cmd).toEqual({ kind: 'help', topic });
      expect(subcommandUsage(topic)).toMatch(new RegExp(`^usage: yagent ${topic}`));
    }
    expect(parseCommand(['-h'])).toEqual({ kind: 'help' });
  });

  it('common options may precede the sub-command: -c cfg serve', () => {
    expect(parseCommand(['-c', '/x.toml', 'serve', '--port', '0'])).toMatchObject({ kind: 'serve', port: 0, flags: { config: '/x.toml' } });
    expect(parseCommand(['-y', '--config=/y.toml', 'batch', 't.jsonl'])).toMatchObject({ kind: 'batch', file: 't.jsonl', flags: { config: '/y.toml', yolo: true } });
    expect(parseCommand(['-c', '/x.toml', '-p', 'serve'])).toMatchObject({ kind: 'headless', prompt: 'serve' });
  });

  it('serve --port outside 0-65535 is a three-line error naming the value', () => {
    let caught: unknown;
    try {
      parseCommand(['serve', '--port', '99999']);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CliError);
    const lines = formatCliError(caught as CliError).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/99999/);
  });
});
