import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { plainText } from '../helpers/plain-text.js';
import { waitFor } from '../helpers/wait-for.js';

// A person's session, played by tmux: `termwire serve` with real PTYs, and
// `termwire attach` inside a real tmux terminal, typed at with send-keys.
const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'termwire.js');
const socket = `termwire-test-${process.pid}`;
const session = 'attach';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = (target = session) => tmux('capture-pane', '-p', '-t', target);
const paneFormat = (target: string, format: string) => tmux('display-message', '-p', '-t', target, format).trim();
const hasServer = () => {
  try {
    tmux('list-sessions');
    return true;
  } catch {
    return false;
  }
};
/** Waits until the pane's text matches; a timeout shows what the pane showed. */
async function waitForPane(target: string, expected: RegExp, what: string, timeoutMs = 15_000): Promise<void> {
  try {
    await waitFor(() => expected.test(pane(target)), { what, timeoutMs });
  } catch (e) {
    throw new Error(`${(e as Error).message}; the pane shows:\n${pane(target)}`);
  }
}
/** Modes a remote program can switch on in the local terminal, as tmux reports them for a pane. */
const PANE_MODES = '#{alternate_on} #{keypad_cursor_flag} #{keypad_flag} #{mouse_any_flag} #{mouse_standard_flag} #{mouse_sgr_flag} #{cursor_flag}';
const MODES_SET = '1 1 1 1 1 1 0';
const MODES_RESTORED = '0 0 0 0 0 0 1';

/** `termwire serve` with bash in real PTYs, on `port` (0: any free one); resolves once it prints its URL. */
async function startServe(port: number, tokenFile: string): Promise<{ server: ChildProcess; url: string }> {
  const serveOutput: string[] = [];
  const server = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--token-file', tokenFile, '--shell', 'bash', '--no-login'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ' } });
  server.stdout!.on('data', (c: Buffer) => serveOutput.push(c.toString()));
  server.stderr!.on('data', (c: Buffer) => serveOutput.push(c.toString()));
  await waitFor(() => /serving terminals on (ws:\S+)/.test(serveOutput.join('')), { what: 'serve to print its URL', timeoutMs: 15_000 }).catch((e: Error) => {
    throw new Error(`${e.message}; it printed: ${serveOutput.join('')}`);
  });
  return { server, url: /serving terminals on (ws:\S+)/.exec(serveOutput.join(''))![1]! };
}

describe('termwire attach in tmux against termwire serve', () => {
  let dir: string;
  let server: ChildProcess;
  let url = '';
  let tokenFile = '';
  const otherServers: ChildProcess[] = [];
  /** A tmux session running `command` in a 100x30 window that stays readable after the command exits. */
  const startSession = (name: string, command: string) => {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', '100', '-y', '30', command);
    tmux('set-option', '-t', name, 'status', 'off');
    tmux('set-option', '-t', name, 'remain-on-exit', 'on');
  };
  // The tmux-like mode: attach-native-scrollback.test.ts covers the default, native one.
  const attachCommand = (terminal: string, to = url) => `${process.execPath} ${bin} attach ${to} --token-file ${tokenFile} --terminal ${terminal} --alternate-screen`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-attach-'));
    tokenFile = join(dir, 'token');
    ({ server, url } = await startServe(0, tokenFile));
    startSession(session, attachCommand('main'));
  });

  afterAll(() => {
    if (hasServer()) tmux('kill-server');
    server?.kill('SIGTERM');
    otherServers.forEach((s) => s.kill('SIGTERM'));
    rmSync(dir, { recursive: true, force: true });
  });

  it('types, sees, follows a resize, and detaches', async () => {
    tmux('send-keys', '-t', session, 'echo typed-$((6*7))-here', 'Enter');
    await waitFor(() => /^typed-42-here\s*$/m.test(pane()), { what: 'the command output typed-42-here on its own line', timeoutMs: 15_000 });

    // The remote shell runs with the TERM tmux gave attach (on serve's allow-list, with terminfo here), as ssh passes it.
    const localTerm = tmux('show-options', '-gv', 'default-terminal').trim();
    tmux('send-keys', '-t', session, 'echo term-is-$TERM', 'Enter');
    await waitFor(() => new RegExp(`^term-is-${localTerm}\\s*$`, 'm').test(pane()), { what: `the remote TERM to be tmux's ${localTerm}`, timeoutMs: 15_000 });

    tmux('resize-window', '-t', session, '-x', '120', '-y', '40');
    tmux('send-keys', '-t', session, 'stty size', 'Enter');
    await waitFor(() => /^40 120\s*$/m.test(pane()), { what: "the remote shell's stty size to report 40 120", timeoutMs: 15_000 });

    tmux('send-keys', '-t', session, 'C-]');
    await waitFor(() => pane().includes('[termwire: detached]'), { what: 'the detach notice', timeoutMs: 10_000 });
    await waitFor(() => tmux('display-message', '-p', '-t', session, '#{pane_dead}').trim() === '1', { what: 'the attach process to exit after detaching', timeoutMs: 10_000 });
  });

  it("puts the local terminal's modes back on detach, whatever the remote program switched on", async () => {
    // After attach, a shell reads on in the same pane: bracketed paste shows there as ^[[200~, cursor keys as ^[OA.
    startSession('modes', `${attachCommand('modes')}; exec cat -v`);
    await waitForPane('modes', /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', 'modes', "printf '\\033[?1049h\\033[?1h\\033=\\033[?1000h\\033[?1006h\\033[?2004h\\033[?25l'; cat", 'Enter');
    await waitFor(() => paneFormat('modes', PANE_MODES) === MODES_SET, { what: `the remote program's modes in the local pane (${PANE_MODES} = ${MODES_SET})`, timeoutMs: 15_000 });

    tmux('send-keys', '-t', 'modes', 'C-]');
    await waitForPane('modes', /\[termwire: detached\]/, 'the detach notice on the main screen');
    expect(paneFormat('modes', PANE_MODES)).toBe(MODES_RESTORED);
    tmux('set-buffer', 'pasted-text');
    tmux('paste-buffer', '-p', '-t', 'modes');
    tmux('send-keys', '-t', 'modes', 'Up', 'Enter');
    await waitForPane('modes', /^pasted-text\^\[\[A$/m, 'the paste without bracket marks, then Up as ^[[A');
  });

  /** Every mode of a pane tmux reports: the local terminal's state a remote program could change through attach. */
  const ALL_PANE_MODES = [
    'alternate_on', 'cursor_flag', 'insert_flag', 'keypad_cursor_flag', 'keypad_flag', 'mouse_all_flag', 'mouse_any_flag', 'mouse_button_flag',
    'mouse_sgr_flag', 'mouse_standard_flag', 'mouse_utf8_flag', 'origin_flag', 'scroll_region_upper', 'scroll_region_lower', 'wrap_flag', 'pane_tabs',
  ].map((f) => `${f}=#{${f}}`).join(' ');
  /** What a remote program switches on and never switches off: a scroll region, no wrap, insert, origin, a cursor shape, keys, mouse, paste, charset, tabs, colour. */
  const REMOTE_SETS_EVERYTHING = "printf '\\033[3;10r\\033[?6h\\033[?7l\\033[4h\\033[5 q\\033[?1h\\033=\\033[?1003h\\033[?1005h\\033[?1006h\\033[?2004h\\033[?25l\\033(0\\033[3g\\033[1;4;31;44m'; cat";
  const REMOTE_MODES_ARRIVED = /insert_flag=1 .*origin_flag=1 scroll_region_upper=2 scroll_region_lower=9 wrap_flag=0 pane_tabs= ?$/;

  for (const way of ['detach', 'crash', 'kill -INT'] as const) {
    it(`leaves the local terminal exactly as it found it after a ${way}, whatever the remote program switched on`, async () => {
      const name = `as-found-${way.replace(/\W+/g, '-')}`;
      const crash = way === 'crash' ? 'TERMWIRE_ATTACH_CRASH_ON_INPUT=@@ ' : '';
      // The pane waits for Enter before attach starts, so its modes can be read untouched; after attach, cat -v echoes what is typed.
      startSession(name, `read _; ${crash}${attachCommand(name)}; exec cat -v`);
      await waitFor(() => paneFormat(name, '#{pane_current_command}') !== '', { what: 'the pane to start', timeoutMs: 15_000 });
      const before = paneFormat(name, ALL_PANE_MODES);
      tmux('send-keys', '-t', name, 'Enter');
      await waitForPane(name, /^\$\s*$/m, 'the remote prompt');
      tmux('send-keys', '-t', name, REMOTE_SETS_EVERYTHING, 'Enter');
      await waitFor(() => REMOTE_MODES_ARRIVED.test(paneFormat(name, ALL_PANE_MODES)), { what: `the remote program's modes in the local pane (${ALL_PANE_MODES})`, timeoutMs: 15_000 });

      if (way === 'detach') {
        tmux('send-keys', '-t', name, 'C-]');
        await waitForPane(name, /\[termwire: detached\]/, 'the detach notice on the main screen');
      } else if (way === 'crash') {
        tmux('send-keys', '-l', '-t', name, '@@');
        await waitForPane(name, /TERMWIRE_ATTACH_CRASH_ON_INPUT asked/, 'attach to die of the injected bug');
      } else {
        // attach is the only child of the pane's shell.
        const attachPid = Number(execFileSync('pgrep', ['-P', paneFormat(name, '#{pane_pid}')], { encoding: 'utf8' }).trim());
        process.kill(attachPid, 'SIGINT');
        await waitForPane(name, /\[termwire: ended by SIGINT\]/, 'attach to end on SIGINT');
      }
      expect(paneFormat(name, ALL_PANE_MODES)).toBe(before);
      // Typed text echoes plain: no colour, underline or line-drawing characters left set; a paste has no bracket marks.
      tmux('send-keys', '-t', name, 'Enter', 'plain-qx', 'Enter');
      await waitForPane(name, /^plain-qx$/m, 'the typed text echoed back as typed');
      expect(plainText(tmux('capture-pane', '-p', '-e', '-t', name))).toMatch(/^plain-qx$/m);
      tmux('set-buffer', 'pasted-text');
      tmux('paste-buffer', '-p', '-t', name);
      tmux('send-keys', '-t', name, 'Enter');
      await waitForPane(name, /^pasted-text$/m, 'the paste without bracket marks');
    });
  }

  it('passes a bracketed paste containing Ctrl-] whole, and detaches with ~. after Enter', async () => {
    startSession('paste', `${attachCommand('paste')}; echo attach-exited-$?`);
    await waitForPane('paste', /^\$\s*$/m, 'the remote prompt');
    // The remote asks for bracketed paste, as bash's readline does, and shows what it reads.
    tmux('send-keys', '-t', 'paste', "printf '\\033[?2004h'; cat -v", 'Enter');
    await waitFor(() => paneFormat('paste', '#{pane_current_command}') !== '' && /cat -v\s*$/m.test(pane('paste')), { what: 'cat to run', timeoutMs: 15_000 });
    tmux('set-buffer', 'before\x1dafter');
    tmux('paste-buffer', '-p', '-t', 'paste');
    tmux('send-keys', '-t', 'paste', 'Enter');
    await waitForPane('paste', /^\^\[\[200~before\^\]after\^\[\[201~$/m, 'the whole paste, Ctrl-] included, at the remote');
    tmux('send-keys', '-t', 'paste', 'C-d', 'Enter');
    tmux('send-keys', '-l', '-t', 'paste', '~?');
    await waitForPane('paste', /\[termwire: escapes: \^\] detach, ~\. detach, ~~ send ~/, 'the list of escapes on the status line');
    tmux('send-keys', '-l', '-t', 'paste', '~.');
    await waitForPane('paste', /^attach-exited-0$/m, 'attach to detach on ~.');
    expect(pane('paste')).toMatch(/\[termwire: detached\]/);
  });

  it('with --escape-key none, Ctrl-] reaches the remote (vim following a help link)', async () => {
    startSession('no-key', `${attachCommand('no-key')} --escape-key none --no-tilde-escape; echo attach-exited-$?`);
    await waitForPane('no-key', /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', 'no-key', 'cat -v', 'Enter');
    await waitForPane('no-key', /cat -v\s*$/m, 'cat to run');
    tmux('send-keys', '-t', 'no-key', 'C-]', 'Enter', '~.', 'Enter');
    await waitForPane('no-key', /^\^\]\n~\.$/m, 'Ctrl-] and ~. at the remote');
    tmux('send-keys', '-t', 'no-key', 'C-d', 'exit', 'Enter');
    await waitForPane('no-key', /^attach-exited-0$/m, 'attach to end with the remote shell');
  });

  /**
   * The same program in a local pane and through attach, then attach
   * detached and attached again: the repaint (from the host's snapshot) must
   * show what the local pane shows, cell for cell with attributes, the cursor
   * where it is there, and the keypad mode the program set. (Blank cells'
   * background, a screen cleared blue, is not in tmux's capture-pane: the
   * screen corpus test, serialize-screen-corpus.test.ts, checks it.)
   */
  const REPAINTED_SCREENS = [
    { name: 'application keypad mode set with ESC =', program: "printf '\\033=\\033[2J\\033[Hkeypad'" },
    // The cursor came back a column short per serialization, host and attach, before snapshotRepaint.
    { name: 'the bottom row filled to the last column, the cursor moved up', program: `printf '\\033[2J\\033[999;1H${'b'.repeat(100)}\\033[3A'` },
  ];
  const SCREEN_STATE = '#{cursor_x},#{cursor_y} keypad=#{keypad_flag} cursor-keys=#{keypad_cursor_flag}';
  for (const [i, { name, program }] of REPAINTED_SCREENS.entries()) {
    it(`repaints ${name} on re-attach as the program drew it locally`, async () => {
      const local = `repaint-local-${i}`;
      const remote = `repaint-${i}`;
      // `read` holds the program's screen as it left it, with no prompt drawn after it.
      startSession(local, `sh -c "${program.replaceAll('"', '\\"')}; read x"`);
      startSession(remote, attachCommand(remote));
      await waitForPane(remote, /^\$\s*$/m, 'the remote prompt');
      tmux('send-keys', '-t', remote, `${program}; read x`, 'Enter');
      const localScreen = () => tmux('capture-pane', '-p', '-e', '-t', local);
      const live = () => `${tmux('capture-pane', '-p', '-e', '-t', remote)}\n${paneFormat(remote, SCREEN_STATE)}`;
      await waitFor(() => live() === `${localScreen()}\n${paneFormat(local, SCREEN_STATE)}`, { what: 'the live screen equal to the local one', timeoutMs: 15_000 }).catch((e: Error) => {
        expect(live(), e.message).toBe(`${localScreen()}\n${paneFormat(local, SCREEN_STATE)}`);
      });

      tmux('send-keys', '-t', remote, 'C-]');
      await waitForPane(remote, /\[termwire: detached\]/, 'the detach');
      tmux('kill-session', '-t', remote);
      startSession(remote, attachCommand(remote));
      let shown = '';
      try {
        await waitFor(() => (shown = `${tmux('capture-pane', '-p', '-e', '-t', remote)}\n${paneFormat(remote, SCREEN_STATE)}`) === `${localScreen()}\n${paneFormat(local, SCREEN_STATE)}`, { what: 'the repaint equal to the local screen', timeoutMs: 15_000 });
      } catch (e) {
        expect(shown, (e as Error).message).toBe(`${localScreen()}\n${paneFormat(local, SCREEN_STATE)}`);
      }
    });
  }

  /** Programs people run through attach, how to see each is up, and how to leave it. */
  const PROGRAMS = [
    { name: 'vim', start: 'vim', up: /^~\s*$/m, quit: [':q!', 'Enter'] },
    { name: 'less', start: 'seq 1000 | less', up: /^:\s*$/m, quit: ['q'] },
    { name: 'htop', start: 'htop', up: /F10Quit/, quit: ['q'] },
    { name: 'a plain shell', start: '', up: /^\$\s*$/m, quit: [] },
  ] as const;

  for (const program of PROGRAMS) {
    for (const way of ['detach', 'exit'] as const) {
      it(`leaves the local terminal as it found it after ${program.name}, on ${way === 'detach' ? 'a detach while it runs' : 'the remote shell exiting after it'}`, async () => {
        const name = `found-${program.name.replaceAll(' ', '-')}-${way}`;
        // The user's own lines on screen, then attach once Enter is pressed; afterwards cat -v shows how keys arrive.
        startSession(name, `seq -f mine-%g 1 5; read _; ${attachCommand(name)}; exec cat -v`);
        await waitForPane(name, /^mine-5$/m, "the user's own lines");
        const before = { modes: paneFormat(name, ALL_PANE_MODES), lines: pane(name).split('\n').filter((l) => l.trim() !== '') };
        tmux('send-keys', '-t', name, 'Enter');
        await waitForPane(name, /^\$\s*$/m, 'the remote prompt');
        if (program.start) tmux('send-keys', '-t', name, program.start, 'Enter');
        await waitForPane(name, program.up, `${program.name} to be up`);
        if (way === 'detach') {
          tmux('send-keys', '-t', name, 'C-]');
          await waitForPane(name, /\[termwire: detached\]/, 'the detach notice');
        } else {
          if (program.quit.length) tmux('send-keys', '-t', name, ...program.quit);
          await waitForPane(name, /^\$\s*$/m, `the prompt after ${program.name}`);
          tmux('send-keys', '-t', name, 'exit', 'Enter');
          await waitForPane(name, /\[termwire: remote shell exited with code 0\]/, 'the exit notice');
        }
        expect(paneFormat(name, ALL_PANE_MODES)).toBe(before.modes);
        // The user's screen is back: their lines, and attach's notice below them, nothing of the remote's.
        expect(pane(name).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('[termwire: '))).toEqual(before.lines);
        tmux('send-keys', '-t', name, 'Up', 'Enter');
        await waitForPane(name, /^\^\[\[A$/m, 'the Up key arriving as in a plain terminal (normal cursor keys)');
      });
    }
  }

  it("relays output as the remote terminal processed it: a bare LF stays a line feed, and the local terminal's output mode is put back", async () => {
    // With ONLCR off remotely (as full-screen programs set it), LF moves down without a carriage return.
    // A local terminal that processed output again would turn it into CR LF and start the step at column 0.
    startSession('stairs', `${attachCommand('stairs')}; stty -a | tr ' ' '\\n' | grep -x -e opost -e -opost`);
    await waitForPane('stairs', /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', 'stairs', "stty -onlcr; printf 'stair\\nstep-%s\\r\\n' $((6*7)); stty onlcr", 'Enter');
    await waitForPane('stairs', /^stair\n {5}step-42$/m, 'step-42 on the next line, below the end of stair');

    tmux('send-keys', '-t', 'stairs', 'C-]');
    await waitForPane('stairs', /^(-?opost)$/m, "stty's report of the local output mode after attach");
    expect(pane('stairs')).toMatch(/^opost$/m);
  });

  it('puts the output mode back before its error line, also when its keys come from a pipe (no raw mode to undo)', async () => {
    // With output processing still off, the error line's LF would leave the next line starting mid-row.
    startSession('last-words', `sleep 60 | { ${attachCommand('main', 'ws://127.0.0.1:1')} --connect-timeout-ms 300; echo after-$((6*7)); }`);
    await waitForPane('last-words', /^after-42$/m, 'the line after attach to start at column 0');
    expect(pane('last-words')).toMatch(/no connection to ws:\/\/127\.0\.0\.1:1 within --connect-timeout-ms 300/);
  });

  it('goes on with processed output when stty does not answer', async () => {
    const fakeBin = join(dir, 'stuck-stty');
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, 'stty'), '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    startSession('stuck-stty', `PATH=${fakeBin}:$PATH ${attachCommand('main', 'ws://127.0.0.1:1')} --connect-timeout-ms 300; echo attach-exited-$?`);
    await waitForPane('stuck-stty', /^attach-exited-1$/m, 'attach to give up on its connection and exit 1, stty or not');
  });

  it("exits with the remote shell's exit code, and says so", async () => {
    // The shell around attach reports its exit code (tmux's own pane_dead_status was seen left empty under load).
    startSession('exit', `${attachCommand('exit-code')}; echo attach exited with $?`);
    await waitForPane('exit', /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', 'exit', 'exit 7', 'Enter');
    await waitForPane('exit', /^attach exited with \d+$/m, 'attach to exit when the remote shell does');
    expect(pane('exit')).toMatch(/^\[termwire: remote shell exited with code 7\]\nattach exited with 7$/m);
  });

  it('keeps the link-back notice on screen after the repaint when the host restarts', async () => {
    const first = await startServe(0, tokenFile);
    otherServers.push(first.server);
    const port = new URL(first.url).port;
    startSession('restart', attachCommand('main', first.url));
    tmux('send-keys', '-t', 'restart', 'echo before-$((1+1))', 'Enter');
    await waitForPane('restart', /^before-2$/m, 'the first shell to answer');

    const firstExited = new Promise((resolve) => first.server.once('exit', resolve));
    first.server.kill('SIGTERM');
    await firstExited;
    const second = await startServe(Number(port), tokenFile);
    otherServers.push(second.server);
    // The new shell's snapshot repaints the pane: the first shell's output is gone, its prompt is on top.
    // The restarted host serves a new shell (a new instanceId): both notices share the bottom row, cut to the pane's width.
    const statusLine = /\[termwire: link back after \d+\.\d s down; the host's terminal is a new one[^\n]*\s*$/;
    await waitForPane('restart', statusLine, 'the notices on the bottom row after the repaint');
    expect(pane('restart')).not.toMatch(/before-2/);
    // A few seconds later the screen is repainted from the host without them: they leave no trace.
    await waitFor(() => !/\[termwire: link back/.test(pane('restart')), { what: 'the status line removed', timeoutMs: 15_000 });
    tmux('send-keys', '-t', 'restart', 'echo after-$((1+1))', 'Enter');
    await waitForPane('restart', /^after-2$/m, 'the new shell to answer');
  });

  it("keeps the user's own screen and scrollback: drawn on the alternate screen, attach leaves them as they were on detach", async () => {
    startSession('scrollback', `seq -f 'mine-%g' 1 200; ${attachCommand('scrollback')}`);
    await waitForPane('scrollback', /^\$\s*$/m, 'the remote prompt');
    expect(tmux('display-message', '-p', '-t', 'scrollback', '#{alternate_on}').trim()).toBe('1');
    // A full-screen program comes and goes first: its switches between screens must not take the local terminal off attach's.
    // Then a `clear` (ED 3) and a full reset (RIS), which must not reach the user's scrollback or take attach off its screen.
    tmux('send-keys', '-t', 'scrollback', "printf '\\033[?1049hfull-screen\\033[?1049l'; clear; printf '\\033c'; seq -f remote-%g 1 60", 'Enter');
    await waitForPane('scrollback', /^remote-60$/m, 'remote output');
    tmux('send-keys', '-t', 'scrollback', 'C-]');
    await waitForPane('scrollback', /\[termwire: detached\]/, 'the detach notice');
    const screen = pane('scrollback');
    // The screen the user had: their own last lines, then the notice; none of the remote's.
    expect(screen).toMatch(/^mine-200$/m);
    expect(screen).not.toMatch(/remote-/);
    const history = tmux('capture-pane', '-p', '-S', '-', '-t', 'scrollback');
    expect(history).toMatch(/^mine-1$/m);
    expect(history.match(/^mine-1$/gm)).toHaveLength(1);
    expect(history).not.toMatch(/remote-/);
  });

  it("ends with the remote shell's exit status when the shell exited while the link was down, opening no new shell", async () => {
    const proxy = await startFaultProxy(Number(new URL(url).port));
    try {
      startSession('exit-away', `${attachCommand('exit-away', proxy.url)}; echo attach exited with $?`);
      await waitForPane('exit-away', /^\$\s*$/m, 'the remote prompt');
      tmux('send-keys', '-t', 'exit-away', 'sleep 1; exit 5', 'Enter');
      await waitForPane('exit-away', /sleep 1; exit 5\s*$/m, 'the command echoed');
      // Silent, and new connections dropped, past the exit: the reconnect comes after the shell is gone.
      proxy.outage(6000);
      await waitForPane('exit-away', /^attach exited with \d+$/m, 'attach to end on its return', 30_000);
      const text = pane('exit-away');
      expect(text).toMatch(/\[termwire: remote shell exited with code 5\]\nattach exited with 5$/m);
      expect(text).not.toMatch(/new one/);
    } finally {
      proxy.close();
    }
  });

  it('notices a dead link from its silence, and counts the outage from the last thing heard, not from when it noticed', async () => {
    // A link that goes silent without closing (a black hole), played by a proxy that stops forwarding the connections it has.
    const proxy = await startFaultProxy(Number(new URL(url).port));
    try {
      startSession('dead', attachCommand('dead', proxy.url));
      await waitForPane('dead', /^\$\s*$/m, 'the remote prompt');
      const frozeAt = performance.now();
      proxy.freezeOpenConnections();
      // Keys typed into the silent link are announced at once, before liveness gives up on it.
      const quiet = /\[termwire: no answer for \d+\.\d s; keys typed now wait for the link\]/;
      let announced = '';
      await waitFor(() => (tmux('send-keys', '-t', 'dead', 'x'), quiet.test((announced = pane('dead')))), { what: 'the quiet link announced to the typist', timeoutMs: 15_000 });
      expect(announced, 'announced before liveness declared the link dead').not.toMatch(/link down/);
      await waitForPane('dead', /\[termwire: link down \(liveness: no pong within 2000ms\)/, 'the dead link noticed by liveness');
      const noticedAfterMs = performance.now() - frozeAt;
      console.log(`attach noticed the dead link ${noticedAfterMs.toFixed(0)} ms after it went silent`);
      await waitForPane('dead', /link back after \d+\.\d s down/, 'the link back through a new connection');
      const downSeconds = Number(/link back after (\d+\.\d) s down/.exec(pane('dead'))![1]);
      // The last pong was heard at most a ping interval (1 s) before the freeze: the outage counted is at least the silence that was noticed.
      expect(downSeconds * 1000).toBeGreaterThanOrEqual(noticedAfterMs - 1000);
    } finally {
      proxy.close();
    }
  });
});
