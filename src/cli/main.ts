import { readFileSync } from 'node:fs';

/** A subcommand module exports `run(args)`, returning the exit code; it handles its own --help. */
export type CommandModule = { run(args: string[]): Promise<number> };

interface Command {
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/** Every subcommand, in the order `--help` lists them; loaded only when used. */
const COMMANDS: Record<string, Command> = {
  compat: { summary: 'check the working tree against the last release in both skew directions', load: () => import('./compat.js') },
  serve: { summary: 'serve real terminals over WebSocket', load: () => import('./serve.js') },
  attach: { summary: 'attach this terminal to a served terminal', load: () => import('./attach.js') },
  manifest: { summary: "print this build's wire manifest as JSON", load: () => import('./manifest.js') },
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return [
    'Usage: termwire <command> [options]',
    '',
    'A binary terminal-stream protocol stack and its version-skew gate.',
    '',
    'Commands:',
    ...(lines.length ? lines : ['  (none yet)']),
    '',
    'Options:',
    '  -h, --help     show this help (a command\'s own: termwire help <command>, or termwire <command> --help)',
    '  -V, --version  print the version',
    '',
    'Exit codes: 0 success, 1 findings or failure, 2 usage error or could not run.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' && rest[0] !== undefined) {
    // `termwire help compat` is `termwire compat --help`.
    const command = COMMANDS[rest[0]];
    if (command) return (await command.load()).run(['--help']);
    process.stderr.write(`termwire: unknown command '${rest[0]}' (termwire --help lists the commands)\n`);
    return 2;
  }
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    process.stdout.write(usage() + '\n');
    return first === undefined ? 2 : 0;
  }
  if (first === '-V' || first === '--version') {
    process.stdout.write(packageVersion() + '\n');
    return 0;
  }
  const command = COMMANDS[first];
  if (!command) {
    const what = first.startsWith('-') ? 'option' : 'command';
    process.stderr.write(`termwire: unknown ${what} '${first}' (termwire --help lists the commands and options)\n`);
    return 2;
  }
  return (await command.load()).run(rest);
}
