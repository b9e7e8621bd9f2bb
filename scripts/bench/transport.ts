/**
 * Transport section: the product path end to end on loopback (HostRuntime +
 * ScriptBackend + startWsServer, TerminalClient + connectWs, ackOutput on)
 * against plain ws with the same message sizes, trials interleaved.
 *
 * Host and client share this process and its one JS thread, so each side's
 * xterm parsing competes with the wire. Diagnostic rows switch the screens
 * off, and parse the same output without a network, to show where time goes.
 */
import { interleave, measure, sustainedMbps } from './lib/interleave.js';
import { RawWs } from './lib/raw-ws.js';
import type { Row } from './lib/row.js';
import { logLines, outputChunk, parseBatched, parseWithLocalScreen } from './lib/terminal-text.js';
import { type BenchStream, TermwireHost } from './lib/termwire-host.js';

export const name = 'transport';

/** Targets from the transport issue, as ratios. */
const TARGETS = { outputVsRawWs: 0.8 } as const;
const KiB = 1024;
const MiB = 1024 * KiB;
/** Output chunk size → bytes per trial: enough for the slowest contender to run about a second. */
const OUTPUT_TRIALS: ReadonlyArray<readonly [chunkBytes: number, totalBytes: number]> = [
  [1 * KiB, 1 * MiB],
  [16 * KiB, 8 * MiB],
  [64 * KiB, 16 * MiB],
];
/** One screen (80x24) plus a full 1000-line scrollback. */
const SNAPSHOT_LINES = 1000 + 24;
/** A trial repeats its burst for at least this long (a slow one runs its burst once). */
const MIN_TRIAL_SECONDS = 0.3;
const ROUNDS = Number(process.env['TERMWIRE_BENCH_ROUNDS'] ?? 7);
const ATTACH_ROUNDS = Math.max(ROUNDS, 31);

async function outputRows(host: TermwireHost, raw: RawWs, streams: Record<'product' | 'hostOnly' | 'bare', BenchStream>, chunkBytes: number, totalBytes: number): Promise<Row[]> {
  const chunk = outputChunk(chunkBytes);
  const count = totalBytes / chunkBytes;
  const sustained = (burst: () => Promise<Record<string, number>>) => () => sustainedMbps(totalBytes, MIN_TRIAL_SECONDS, burst);
  const delivered = (stream: BenchStream) =>
    sustained(async () => {
      const { receivedS, parsedS } = await host.output(stream, chunk, totalBytes);
      return { received: receivedS, parsed: parsedS };
    });
  const [rawWs, product, hostOnly, bare, localScreen, batched] = await interleave(
    [
      sustained(async () => ({ received: await raw.burst(chunkBytes, totalBytes) })),
      delivered(streams.product),
      delivered(streams.hostOnly),
      delivered(streams.bare),
      sustained(async () => ({ parsed: await parseWithLocalScreen(chunk, count) })),
      sustained(async () => ({ parsed: await parseBatched(chunk, count) })),
    ],
    { rounds: ROUNDS, warmupRounds: 1 },
  );
  const base = measure(rawWs!, 'received');
  const label = `${chunkBytes / KiB} KiB`;
  const vsRaw = (value: number) => ({ value, unit: ' MB/s', ratio: value / base, baseline: `raw ws, ${label} messages` });
  const batchedParse = measure(batched!, 'parsed');
  return [
    { section: name, name: `output ${label}: delivered to the client (product)`, ...vsRaw(measure(product!, 'received')), target: TARGETS.outputVsRawWs },
    { section: name, name: `output ${label}: delivered and on the client screen (whenIdle)`, ...vsRaw(measure(product!, 'parsed')), target: TARGETS.outputVsRawWs },
    { section: name, name: `output ${label}: delivered, client screen off (diagnostic)`, ...vsRaw(measure(hostOnly!, 'received')) },
    { section: name, name: `output ${label}: delivered, host and client screens off (diagnostic)`, ...vsRaw(measure(bare!, 'received')) },
    { section: name, name: `raw ws ${label} messages`, value: base, unit: ' MB/s', note: `${(totalBytes / MiB).toFixed(0)} MiB per burst` },
    { section: name, name: `client screen alone, ${label} writes (LocalScreen, no network)`, value: measure(localScreen!, 'parsed'), unit: ' MB/s', ratio: measure(localScreen!, 'parsed') / batchedParse, baseline: 'xterm with writes batched' },
    { section: name, name: `xterm alone, ${label} writes batched (parse ceiling)`, ...vsRaw(batchedParse) },
  ];
}

async function attachRows(host: TermwireHost, raw: RawWs): Promise<Row[]> {
  const terminal = 'snapshot';
  await host.prefill(terminal, logLines(SNAPSHOT_LINES));
  const screen = host.runtime.terminal(terminal)!.screen;
  const takeSnapshot = () => new Promise<string>((resolve) => screen.snapshot((_seq, text) => resolve(text)));
  const snapshotBytes = (await takeSnapshot()).length;
  const [rawWs, termwire, serialize] = await interleave(
    [
      async () => ({ total: await raw.connectRoundTrip() }),
      async () => {
        const t = await host.attach(terminal);
        return { total: t.idleMs, connect: t.connectedMs, snapshot: t.snapshotMs - t.connectedMs, parse: t.idleMs - t.snapshotMs };
      },
      async () => {
        const start = performance.now();
        await takeSnapshot();
        return { serialize: performance.now() - start };
      },
    ],
    { rounds: ATTACH_ROUNDS, warmupRounds: 3 },
  );
  const base = measure(rawWs!, 'total');
  const total = measure(termwire!, 'total');
  const share = (value: number) => ({ value, unit: ' ms', ratio: value / total, baseline: 'share of the attach' });
  return [
    { section: name, name: `attach: connect to snapshot rendered (${SNAPSHOT_LINES} lines)`, value: total, unit: ' ms', ratio: total / base, baseline: 'raw ws connect + 1 round trip', note: 'time: lower is better' },
    { section: name, name: 'attach: WebSocket connect and auth', ...share(measure(termwire!, 'connect')) },
    { section: name, name: 'attach: subscribe until snapshot received', ...share(measure(termwire!, 'snapshot')), note: `${(snapshotBytes / KiB).toFixed(0)} KiB of snapshot text` },
    { section: name, name: '  of which host takes the snapshot from its screen thread (timed alone)', ...share(measure(serialize!, 'serialize')) },
    { section: name, name: 'attach: snapshot parsed on the client screen', ...share(measure(termwire!, 'parse')) },
    { section: name, name: 'raw ws connect + 1 round trip', value: base, unit: ' ms' },
  ];
}

export async function run(): Promise<Row[]> {
  const host = await TermwireHost.start();
  const raw = await RawWs.start();
  try {
    const streams = {
      product: await host.subscribe('product', { host: true, client: true }),
      hostOnly: await host.subscribe('host-screen-only', { host: true, client: false }),
      bare: await host.subscribe('no-screens', { host: false, client: false }),
    };
    const rows: Row[] = [];
    for (const [chunkBytes, totalBytes] of OUTPUT_TRIALS) rows.push(...(await outputRows(host, raw, streams, chunkBytes, totalBytes)));
    rows.push(...(await attachRows(host, raw)));
    return rows;
  } finally {
    await host.close();
    await raw.close();
  }
}
