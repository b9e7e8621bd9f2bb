import { constants as osConstants } from 'node:os';
import { parseArgs } from 'node:util';
import { TerminalClient } from '../client/client.js';
import { screenWithoutScrollback } from '../screen/screen-without-scrollback.js';
import { connectWs } from '../transport/ws-client.js';
import { describeConnectError } from './attach-connect-error.js';
import { DEFAULT_DETACH_KEY, describeKey, EscapeKeyReader, type EscapeKeyOptions, parseDetachKey } from './attach-escape-keys.js';
import { InstanceWatch } from './attach-instance-watch.js';
import { passOutputThrough } from './attach-output-mode.js';
import { SnapshotRefresher } from './attach-refresh.js';
import { AttachScreen, STATUS_LINE_SHOWN_MS } from './attach-screen.js';
import { restoreTerminalModes } from './attach-terminal-modes.js';
import { TerminalWriter } from './terminal-writer.js';
import { DEFAULT_TOKEN_FILE, readToken } from './token-file.js';
import { pickSessionEnvironment } from '../host/session-environment.js';

/** The first connection must come up within this, else attach gives up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Signals that end attach, each with 128 + its number as the exit code. */
const ENDING_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'] as const;

/** Exit codes of attach itself; when the remote shell exits, attach exits with the shell's code. */
export const ATTACH_EXIT = {
  detached: 0,
  neverConnected: 1,
  remoteExitUnknown: 1,
  usage: 2,
  tokenRefused: 2,
  terminated: 143,
} as const;

const HELP = `Usage: termwire attach <url> [--terminal NAME] [--token-file PATH] [--connect-timeout-ms N] [--escape-key KEY|none] [--no-tilde-escape] [--alternate-screen]

Attaches this terminal to a terminal served by \`termwire serve\`. Keys go to
the remote terminal; its screen is drawn here; the size follows this window.
A link that dies is noticed by liveness and reconnected automatically; you are told
when it is down, when it is back, and when the host's terminal is a new one.

Options:
  --terminal NAME          which terminal to attach (default main)
  --token-file PATH        bearer token (default ${DEFAULT_TOKEN_FILE})
  --connect-timeout-ms N   give up when no connection is up within N ms
                           (default ${DEFAULT_CONNECT_TIMEOUT_MS}); once connected, reconnects go on
                           until you detach
  --escape-key KEY         the detach key: a control key in caret notation (^], ^A, ^?)
                           or none, so every key reaches the remote (default ^])
  --no-tilde-escape        do not read ~. typed after Enter as detach (as ssh does)
  --alternate-screen       draw on this terminal's alternate screen, as tmux does
  -h, --help               show this help

On a terminal, as with ssh, what the remote prints goes into your terminal's
own scrollback, each line once, across reconnects too (where the host still
holds what was printed while the link was down; otherwise the screen is
repainted and one line says how much was skipped); attach uses the alternate
screen only while the remote program does (vim, less). With
--alternate-screen, attach draws on the alternate screen, as tmux does: your
own screen and scrollback stay beneath, untouched, and are back as they were
when attach ends. Detach with Ctrl-], or with ~. at the start of a line, as in ssh
(~~ sends one ~, ~? lists the escapes); the session keeps running on the host. A bracketed paste is
never read as a command. On the way out (detach, exit, failure) the local
terminal's modes are put back (main screen, scroll region, wrap, insert mode,
cursor shape and visibility, cursor keys, keypad, mouse, bracketed paste,
character sets, tab stops, text attributes); the remote never erases your
scrollback.

Exit codes: 0 detached; the remote shell's own code when it exits; 1 no
connection within --connect-timeout-ms; 2 usage error or token refused;
128+N ended by signal N (TERM, INT, HUP, QUIT), the terminal put back first.
`;

/** How attach ends: its exit code, and a notice for the terminal or one error line for stderr. */
interface Ending {
  readonly code: number;
  readonly notice?: string;
  readonly error?: string;
}

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        terminal: { type: 'string', default: 'main' },
        'token-file': { type: 'string', default: DEFAULT_TOKEN_FILE },
        'connect-timeout-ms': { type: 'string', default: String(DEFAULT_CONNECT_TIMEOUT_MS) },
        'escape-key': { type: 'string', default: describeKey(DEFAULT_DETACH_KEY) },
        'no-tilde-escape': { type: 'boolean', default: false },
        'alternate-screen': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    process.stderr.write(`termwire attach: ${(e as Error).message}\n\n${HELP}`);
    return ATTACH_EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const url = positionals[0];
  if (!url || !/^wss?:\/\//.test(url)) {
    process.stderr.write(`termwire attach: a ws:// or wss:// URL is required\n\n${HELP}`);
    return ATTACH_EXIT.usage;
  }
  const connectTimeoutMs = Number(values['connect-timeout-ms']);
  if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 1) {
    process.stderr.write(`termwire attach: --connect-timeout-ms must be a positive integer, got '${values['connect-timeout-ms']}'\n`);
    return ATTACH_EXIT.usage;
  }
  const detachKey = parseDetachKey(values['escape-key']!);
  if ('error' in detachKey) {
    process.stderr.write(`termwire attach: ${detachKey.error}\n`);
    return ATTACH_EXIT.usage;
  }
  const escapeKeys = { detachKey: detachKey.key, tildeEscape: !values['no-tilde-escape'] };
  const tokenFile = values['token-file']!;
  let token: string;
  try {
    token = readToken(tokenFile);
  } catch (e) {
    process.stderr.write(`termwire attach: ${(e as Error).message}\n`);
    return ATTACH_EXIT.usage;
  }
  return attach({ url, terminal: values.terminal!, token, tokenFile, connectTimeoutMs, escapeKeys, alternateScreen: values['alternate-screen']! });
}

/**
 * A person at a terminal should learn within about 3 s that the link is dead
 * (the library's 5 s + 10 s suit unattended clients): a ping a second after
 * each pong, and 2 s for its answer. A stall of attach itself (a slow
 * terminal) is not taken for a dead link: see ws-link.ts.
 */
const ATTACH_LIVENESS = { pingIntervalMs: 1_000, pongDeadlineMs: 2_000 } as const;

/**
 * Keys typed into a link this long silent are announced at once, before
 * liveness declares it dead: a ping goes out a second after each answer, so a
 * live link is never this quiet.
 */
const QUIET_LINK_NOTICE_MS = 1_500;

async function attach(opts: { url: string; terminal: string; token: string; tokenFile: string; connectTimeoutMs: number; escapeKeys: EscapeKeyOptions; alternateScreen: boolean }): Promise<number> {
  const { url, connectTimeoutMs } = opts;
  const out = process.stdout;
  const stdin = process.stdin;
  // The status line goes by repainting from a fresh snapshot (the stream, made below, exists by the time a status line is drawn).
  // With --alternate-screen, attach draws on its alternate screen, as tmux does: the user's own screen and scrollback wait beneath, untouched.
  // Otherwise, on a terminal, the remote's output flows into the terminal's own scrollback, as under ssh (native mode).
  const onCanvas = out.isTTY === true && opts.alternateScreen;
  const refresher = new SnapshotRefresher(() => stream.requestSnapshot());
  const refresh = () => refresher.refresh();
  const terminal = new TerminalWriter(out);
  const screen = new AttachScreen(terminal, { shownMs: STATUS_LINE_SHOWN_MS, refresh }, onCanvas ? refresh : undefined, out.isTTY === true && !onCanvas);
  const viewport = () => ({ cols: out.columns || 80, rows: out.rows || 24 });

  let end!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (end = resolve)); // the first ending wins
  const startedAt = Date.now();
  let everConnected = false;
  let lastFailure: string | undefined;
  let failureToReport = false;
  let downSince = 0;

  const connect = () =>
    // Until the first connection, no single attempt may outlive the deadline.
    connectWs(url, everConnected ? { token: opts.token, ...ATTACH_LIVENESS } : { token: opts.token, ...ATTACH_LIVENESS, connectTimeoutMs: Math.max(1, startedAt + connectTimeoutMs - Date.now()) }).catch((error: unknown) => {
      const failure = describeConnectError(error);
      lastFailure = failure.reason;
      failureToReport = !failure.tokenRefused; // a refused token ends attach: no "retrying" line
      if (failure.tokenRefused) end({ code: ATTACH_EXIT.tokenRefused, error: `${failure.reason}: ${opts.tokenFile} does not hold the token of the host at ${url} (\`termwire serve\` prints its token file)` });
      throw error;
    });
  const client = new TerminalClient({ connect });
  // Output goes straight to this terminal, which is the screen: no headless model parses it first.
  const stream = client.subscribe(opts.terminal, { viewport: viewport(), outputSink: (text, delivered) => screen.output(text, delivered), environment: pickSessionEnvironment(process.env) });
  const instances = new InstanceWatch();

  const deadline = setTimeout(() => {
    const last = lastFailure ? ` (last failure: ${lastFailure})` : '';
    end({ code: ATTACH_EXIT.neverConnected, error: `no connection to ${url} within --connect-timeout-ms ${connectTimeoutMs}${last}` });
  }, connectTimeoutMs);
  client.on('connected', () => {
    everConnected = true;
    clearTimeout(deadline);
  });
  client.on('reconnecting', ({ delayMs }) => {
    if (!failureToReport) return; // a lost link was already announced by 'disconnected'
    failureToReport = false;
    screen.retryNotice(`cannot connect: ${lastFailure}; retrying in ${(delayMs / 1000).toFixed(1)} s`);
  });
  client.on('disconnected', ({ reason, lastHeardAt }) => {
    downSince = lastHeardAt;
    screen.notice(`link down (${reason}); reconnecting, keys are held until it is back`);
  });
  client.on('reconnected', () => screen.noticeOverRepaint(`link back after ${((Date.now() - downSince) / 1000).toFixed(1)} s down`));
  stream.on('subscribed', (event) => {
    refresher.subscribed();
    if (instances.changed(event)) screen.noticeOverRepaint("the host's terminal is a new one (the old shell is gone)");
    // The host could not resume the output where the link was lost (outputResume): the snapshot that follows skips some.
    const skipped = event.resume?.outcome !== 'resumed' ? event.resume?.skippedBytes : undefined;
    if (skipped && event.resume!.outcome === 'exited') screen.noticeOverRepaint(`the remote shell exited while the link was down; its last ${formatBytes(skipped)} of output are not shown`);
    else if (skipped) screen.noticeOverRepaint(`${formatBytes(skipped)} of output skipped while the link was down (${event.resume!.outcome}); the screen is repainted where the program is now`);
  });
  let repainted = false;
  stream.on('snapshot', (snapshot) => {
    refresher.snapshotArrived();
    // Output is skipped only when another viewer of the terminal keeps up and this one does not: say so, and how much
    // (a snapshot asked for covers output still on its way, and skips nothing a person could have read).
    if (snapshot.skippedBytes > 0 && (snapshot.source === 'overflow' || snapshot.source === 'recovery')) screen.noticeOverRepaint(`${formatBytes(snapshot.skippedBytes)} of output skipped: this terminal fell behind the host; the screen is repainted where the program is now`);
    // Off a terminal (a log), the first repaint brings the remote history along and later ones draw the screen alone, or the
    // history would be there twice; on the alternate screen, history has nowhere to go.
    if (repainted || onCanvas) screen.repaintWhenReady(screenWithoutScrollback(snapshot.text, snapshot.cols, snapshot.rows));
    else screen.repaint(snapshot.text);
    repainted = true;
  });
  stream.on('errorFrame', ({ code, message }) => screen.notice(`host error ${code}: ${message}`));
  stream.on('inputNotice', ({ message }) => screen.notice(message));
  stream.on('exit', ({ exitCode, signal }) => end(remoteExitEnding(exitCode, signal)));

  let restoreOutputMode: (() => void) | undefined;
  let terminalLeft = false;
  /**
   * The remote program's modes were relayed here; it never got to reset them
   * in this terminal. Run once, on the way out, whichever way that is: also
   * from the process's 'exit' when attach dies of a bug (an uncaught
   * exception still emits it, and a terminal's writes are synchronous).
   */
  const leaveTerminal = () => {
    if (terminalLeft) return;
    terminalLeft = true;
    terminal.writeThrough(); // what the remote printed goes out under its own modes, before they are put back
    screen.dispose();
    if (stdin.isTTY) stdin.setRawMode(false);
    restoreOutputMode?.();
    out.write(restoreTerminalModes(viewport().cols));
  };
  process.once('exit', leaveTerminal);
  const onResize = () => {
    const size = viewport();
    stream.resize(size.cols, size.rows);
  };
  // Any signal that would end attach ends it the usual way, the terminal put back (Ctrl-C is a key in raw mode, but `kill -INT` is not).
  const onSignal = (signal: NodeJS.Signals) => end({ code: 128 + (osConstants.signals[signal] ?? 15), notice: signal === 'SIGTERM' ? 'terminated' : `ended by ${signal}` });
  let ending: Ending;
  try {
    ending = await runAttached();
  } finally {
    clearTimeout(deadline);
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
    out.off('resize', onResize);
    stdin.pause();
    leaveTerminal();
    process.off('exit', leaveTerminal);
    client.close();
  }
  if (ending.notice) screen.notice(ending.notice);
  if (ending.error) process.stderr.write(`termwire attach: ${ending.error}\n`);
  return ending.code;

  async function runAttached(): Promise<Ending> {
    screen.begin();
    screen.notice(`connecting to ${url} (terminal ${opts.terminal})`);
    client.start();

    // Saved before raw mode, so putting it back restores the terminal as attach found it.
    restoreOutputMode = out.isTTY ? passOutputThrough(out.fd) : undefined;
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    out.on('resize', onResize);
    for (const signal of ENDING_SIGNALS) process.once(signal, onSignal);
    const detached = (): Ending => ({ code: ATTACH_EXIT.detached, notice: everConnected ? 'detached' : 'detached before the link came up' });
    let quietSpellAnnounced: number | undefined;
    const announceQuietLink = () => {
      const heard = client.lastHeardAt;
      if (heard === undefined || !client.connected || quietSpellAnnounced === heard) return;
      const quietMs = Date.now() - heard;
      if (quietMs < QUIET_LINK_NOTICE_MS) return;
      quietSpellAnnounced = heard;
      // On the status line: on a slow but live link this is passing news, and the repaint takes it away.
      screen.status(`no answer for ${(quietMs / 1000).toFixed(1)} s; keys typed now wait for the link`);
    };
    // A test's way to make attach die of a bug while attached (an exception in an event handler), to see the terminal left as found.
    const crashOn = process.env.TERMWIRE_ATTACH_CRASH_ON_INPUT;
    const keys = new EscapeKeyReader(opts.escapeKeys);
    stdin.on('data', (data: string) => {
      if (crashOn && data.includes(crashOn)) throw new Error(`crash on input ${JSON.stringify(crashOn)}, as TERMWIRE_ATTACH_CRASH_ON_INPUT asked`);
      announceQuietLink();
      const read = keys.read(data);
      if (read.toRemote) stream.write(read.toRemote);
      if (read.help) screen.notice(`escapes: ${keys.describe()}`);
      if (read.detach) end(detached());
    });
    stdin.on('end', () => end(detached()));

    return ended;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function remoteExitEnding(exitCode: number | null | undefined, signal: number | null | undefined): Ending {
  if (signal) return { code: 128 + signal, notice: `remote shell was killed by signal ${signal}` };
  if (typeof exitCode === 'number') return { code: exitCode, notice: `remote shell exited with code ${exitCode}` };
  return { code: ATTACH_EXIT.remoteExitUnknown, notice: 'remote shell exited; the host did not say with which code' };
}
