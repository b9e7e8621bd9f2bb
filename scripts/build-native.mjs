/**
 * `npm run build`'s native step: compiles src/host/native/pty-spawn.c to
 * dist/native/pty-spawn.node with the system's C compiler against Node's own
 * headers (a Node-API module links against nothing). Skipped when the output
 * is newer than the source; on a host without a compiler or headers it says
 * so in one line and the host keeps node-pty's forkpty (src/host/pty-spawn.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SOURCE = 'src/host/native/pty-spawn.c';
const OUTPUT = 'dist/native/pty-spawn.node';

export function buildNative(root) {
  if (process.platform !== 'linux') return;
  const source = join(root, SOURCE);
  const output = join(root, OUTPUT);
  if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) return;
  const headers = join(dirname(process.execPath), '..', 'include', 'node');
  if (!existsSync(join(headers, 'node_api.h'))) {
    console.warn(`build: ${OUTPUT} not built: no Node headers at ${headers}; terminals start with node-pty's forkpty`);
    return;
  }
  mkdirSync(dirname(output), { recursive: true });
  const compiler = process.env.CC || 'cc';
  try {
    execFileSync(compiler, ['-O2', '-Wall', '-shared', '-fPIC', `-I${headers}`, '-o', output, source], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const reason = error.code === 'ENOENT' ? `no C compiler (${compiler})` : String(error.stderr ?? error.message).trim();
    console.warn(`build: ${OUTPUT} not built: ${reason}; terminals start with node-pty's forkpty`);
  }
}
