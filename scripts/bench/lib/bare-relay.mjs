// The least a relay written in Node can do, for the attach bench's floor row:
// bash in an inner PTY (node-pty), every byte it prints written to this
// process's stdout (the outer PTY), every key read from stdin written to it.
// No network, no framing, no screen model: what any Node relay pays for two PTYs.
import * as pty from 'node-pty';

const inner = pty.spawn('bash', ['--noprofile', '--norc'], { name: 'xterm-256color', cols: 80, rows: 24, env: process.env });
process.stdin.setRawMode(true);
process.stdin.on('data', (keys) => inner.write(keys.toString()));
inner.onData((data) => process.stdout.write(data));
inner.onExit(() => process.exit(0));
