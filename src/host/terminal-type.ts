import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** TERM when none is asked for, or the one asked for is refused or unknown here: what the host's screen model (xterm.js) emulates. */
export const DEFAULT_TERM = 'xterm-256color';

/**
 * TERM values a client may ask for, as sshd passes the client's TERM on:
 * terminals that are xterm-compatible enough for the host's screen model
 * (snapshots are drawn by xterm.js) and common on the client side. A name
 * off the list could be anything a program then trusts (a path, a terminal
 * whose capabilities the screen model does not follow).
 */
export const ALLOWED_TERMS: ReadonlySet<string> = new Set([
  'xterm', 'xterm-256color', 'xterm-direct', 'screen', 'screen-256color', 'tmux', 'tmux-256color',
  'rxvt-unicode', 'rxvt-unicode-256color', 'alacritty', 'xterm-kitty', 'foot', 'wezterm', 'vt100', 'vt220', 'linux',
]);

/** Where ncurses looks for compiled entries (terminfo(5)), in its order: a user's own, then the system's. */
function terminfoDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = [env.TERMINFO, join(env.HOME ?? homedir(), '.terminfo'), ...(env.TERMINFO_DIRS ?? '').split(':'), '/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/usr/lib/terminfo', '/usr/local/share/terminfo'];
  return dirs.filter((d): d is string => typeof d === 'string' && d !== '');
}

/** Whether this host has a terminfo entry for `term` (programs on it could not drive a terminal without one). */
export function hasTerminfo(term: string, env: NodeJS.ProcessEnv = process.env): boolean {
  // ncurses files entries under their first letter, or its hex code (macOS, case-insensitive file systems).
  const first = term[0]!;
  return terminfoDirs(env).some((dir) => existsSync(join(dir, first, term)) || existsSync(join(dir, first.charCodeAt(0).toString(16), term)));
}

/** The TERM a session gets for the one asked for: allowed and known here, else DEFAULT_TERM (and, when it has no entry either, still that: xterm.js is what answers). */
export function chooseTerm(asked: string | undefined, known: (term: string) => boolean = hasTerminfo): string {
  return asked !== undefined && ALLOWED_TERMS.has(asked) && known(asked) ? asked : DEFAULT_TERM;
}

/** Shells that take `-l` for a login shell (node-pty cannot set argv0 to `-bash`, as sshd does). */
const LOGIN_FLAG_SHELLS = /(^|\/)(bash|zsh|sh|dash|ksh|mksh|fish|ash)$/;

/** The arguments of a login shell for `command`: `-l` first where the shell takes it, else its arguments as they are. */
export function loginShellArgs(command: string, args: readonly string[]): string[] {
  return LOGIN_FLAG_SHELLS.test(command) ? ['-l', ...args] : [...args];
}
