import { chooseTerm } from './terminal-type.js';

/**
 * The client's environment a terminal's session takes on, as sshd takes the
 * client's TERM (with its pty request) and its locale (Debian's `AcceptEnv
 * LANG LC_*`): one table, read by attach to pick what it sends and by the
 * host to keep what it accepts. A name off the table, or a value that does
 * not match, is dropped without a word (Rule 1: a newer client may send more).
 */
const SESSION_VARIABLES: ReadonlyArray<{ readonly name: RegExp; readonly value: RegExp }> = [
  { name: /^TERM$/, value: /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/ },
  { name: /^COLORTERM$/, value: /^(truecolor|24bit)$/ },
  // A locale name: language_TERRITORY.codeset@modifier, or C, POSIX; LANGUAGE is a colon-separated list of them.
  { name: /^(LANG|LC_[A-Z]{2,16})$/, value: /^[A-Za-z0-9_.@-]{1,64}$/ },
  { name: /^LANGUAGE$/, value: /^[A-Za-z0-9_.@:-]{1,128}$/ },
];

function accepted(name: string, value: string): boolean {
  return SESSION_VARIABLES.some((v) => v.name.test(name) && v.value.test(value));
}

/** What a client sends in Subscribe's `environment`: the variables of `env` on the table. */
export function pickSessionEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && accepted(name, value)) picked[name] = value;
  return picked;
}

/** A new terminal's session, from the environment its first Subscribe asked for. */
export interface TerminalSession {
  /** The TERM it runs with: the one asked for when the host allows it and has its terminfo, else the default (chooseTerm). */
  readonly term: string;
  /** The other accepted variables (locale, COLORTERM). */
  readonly env: Readonly<Record<string, string>>;
}

/** Keeps what the table accepts of `asked`; TERM goes through chooseTerm. */
export function terminalSession(asked: Readonly<Record<string, string>> | undefined, known?: (term: string) => boolean): TerminalSession {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(asked ?? {})) if (name !== 'TERM' && accepted(name, value)) env[name] = value;
  const term = asked?.TERM !== undefined && accepted('TERM', asked.TERM) ? asked.TERM : undefined;
  return { term: chooseTerm(term, known), env };
}
