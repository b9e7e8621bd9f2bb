import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PtySession } from './pty-session.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'termwire.js');
const URL_LINE = /serving terminals on (ws:\S+)/;
const START_DEADLINE_MS = 15_000;

/**
 * The product as a person runs it: `termwire serve` (built dist, bash in real
 * PTYs) in one process, and `termwire attach` in another whose terminal is a
 * real PTY that this process drains.
 */
export class ServeAttach {
  private constructor(
    private readonly serve: ChildProcess,
    readonly attach: PtySession,
  ) {}

  /** `nodeArgs` go to both node processes (e.g. --cpu-prof, to see where a slow figure's time goes). */
  static async start(tokenFile: string, terminal: string, nodeArgs: readonly string[] = []): Promise<ServeAttach> {
    const serve = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--port', '0', '--token-file', tokenFile, '--shell', 'bash', '--no-login'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ' } });
    let printed = '';
    serve.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
    serve.stderr!.on('data', (c: Buffer) => (printed += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench: serve printed no URL within ${START_DEADLINE_MS} ms: ${printed}`)), START_DEADLINE_MS);
      const look = () => {
        const found = URL_LINE.exec(printed);
        if (!found) return;
        clearTimeout(timer);
        serve.stdout!.off('data', look);
        resolve(found[1]!);
      };
      serve.stdout!.on('data', look);
      serve.once('exit', (code) => reject(new Error(`bench: serve exited with ${code}: ${printed}`)));
    });
    const attach = PtySession.spawn('termwire attach', process.execPath, [...nodeArgs, BIN, 'attach', url, '--token-file', tokenFile, '--terminal', terminal]);
    return new ServeAttach(serve, attach);
  }

  get servePid(): number {
    return this.serve.pid!;
  }

  async close(): Promise<void> {
    await this.attach.close();
    const exited = new Promise((resolve) => this.serve.once('exit', resolve));
    this.serve.kill('SIGTERM');
    await exited;
  }
}
