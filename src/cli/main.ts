import { readFileSync } from 'node:fs';

/** A subcommand module exports `run(args)`, returning the exit code; it handles its own --help. */
export type CommandModule = { run(args: string[]): Promise<number> };

export interface Command {
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/** The protocol stack's own subcommands, in the order `--help` lists them; loaded only when used. */
const STACK_COMMANDS: Readonly<Record<string, Command>> = {
  serve: { summary: 'serve real terminals over WebSocket', load: () => import('./serve.js') },
  attach: { summary: 'attach this terminal to a served terminal', load: () => import('./attach.js') },
  manifest: { summary: "print this build's wire manifest as JSON", load: () => import('./manifest.js') },
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(commands: Readonly<Record<string, Command>>): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
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

/**
 * Runs one termwire command. The gate's command (`compat`) is handed in by the
 * entry point (bin/termwire.js), so the protocol stack never imports the gate
 * that sits above it; `--help` lists those first.
 */
export async function main(argv: string[], gateCommands: Readonly<Record<string, Command>> = {}): Promise<number> {
  const COMMANDS = { ...gateCommands, ...STACK_COMMANDS };
  const [first, ...rest] = argv;
  if (first === 'help' && rest[0] !== undefined) {
    // `termwire help compat` is `termwire compat --help`.
    const command = COMMANDS[rest[0]];
    if (command) return (await command.load()).run(['--help']);
    process.stderr.write(`termwire: unknown command '${rest[0]}' (termwire --help lists the commands)\n`);
    return 2;
  }
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    process.stdout.write(usage(COMMANDS) + '\n');
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
