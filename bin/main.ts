// yagent CLI entry: parses the sub-command and hands off to the matching client.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const USAGE = `yagent ${pkg.version}: a multi-agent AI coding assistant

usage:
  yagent --version        print the version
  yagent --help           this text
`;

function main(argv: string[]): number {
  const [first] = argv;
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(`yagent: unknown command "${first}"\n  fix: run \`yagent --help\`\n`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
