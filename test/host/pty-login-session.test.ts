import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { ALLOWED_TERMS, chooseTerm, DEFAULT_TERM, hasTerminfo } from '../../src/host/terminal-type.js';
import { waitFor } from '../helpers/wait-for.js';

const home = realpathSync(mkdtempSync(join(tmpdir(), 'termwire-home-')));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A bash started with `options`, asked where it is and what it is; resolves with its answer line. */
async function askSession(options: ConstructorParameters<typeof PtyBackend>[0]): Promise<string> {
  const backend = new PtyBackend({ command: 'bash', env: { HOME: home, PS1: '$ ' }, ...options });
  let output = '';
  backend.onData((data) => (output += data));
  backend.write(`echo "ANSWER login=$(shopt -q login_shell && echo yes || echo no) pwd=$PWD term=$TERM profile=\${PROFILE_READ:-no}"; exit\r`);
  await waitFor(() => /ANSWER login=\S+ pwd=\S+ term=\S+ profile=\S+\r?\n/.test(output), { what: 'the session to answer', timeoutMs: 15_000 });
  return /ANSWER (login=\S+ pwd=\S+ term=\S+ profile=\S+)/.exec(output)![1]!;
}

describe('a terminal session as sshd starts one', () => {
  writeFileSync(join(home, '.bash_profile'), 'export PROFILE_READ=yes\n');

  it("with login: a login shell that read the user's profile, in the user's home", async () => {
    expect(await askSession({ login: true })).toBe(`login=yes pwd=${home} term=${DEFAULT_TERM} profile=yes`);
  });

  it('without it, as before: no login shell, no profile, in the working directory', async () => {
    expect(await askSession({})).toBe(`login=no pwd=${process.cwd()} term=${DEFAULT_TERM} profile=no`);
  });

  it("keeps the TERM asked for when it is allowed and this host knows it, else xterm-256color", async () => {
    expect(await askSession({ term: 'screen-256color' })).toContain('term=screen-256color');
    expect(await askSession({ term: '../../etc/passwd' })).toContain(`term=${DEFAULT_TERM}`);
  });
});

describe('chooseTerm', () => {
  it('falls back to xterm-256color for a name off the allow-list, and for one this host has no terminfo for', () => {
    expect(chooseTerm('tmux-256color', () => true)).toBe('tmux-256color');
    expect(chooseTerm('tmux-256color', () => false)).toBe(DEFAULT_TERM);
    expect(chooseTerm('my-own-term', () => true)).toBe(DEFAULT_TERM);
    expect(chooseTerm(undefined, () => true)).toBe(DEFAULT_TERM);
    expect(ALLOWED_TERMS.has(DEFAULT_TERM)).toBe(true);
  });

  it("finds this host's terminfo entries, and not a made-up one", () => {
    expect(hasTerminfo('xterm-256color')).toBe(true);
    expect(hasTerminfo('no-such-terminal-anywhere')).toBe(false);
    expect(hasTerminfo('xterm-256color', { TERMINFO: '/nonexistent', HOME: home, TERMINFO_DIRS: '' })).toBe(true);
  });
});
