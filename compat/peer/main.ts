#!/usr/bin/env node
/**
 * The stable, versioned peer entry point of a build (dist/compat/peer/main.js).
 * The gate starts one process per side, from each build's own dist:
 *   main.js --role host [--backend script|pty] [--detached-idle-ms N] [--flow-limits JSON]
 *   main.js --role codec   (classifies frames with this build's decoder)
 *   main.js --role client --url <ws or tcp url> --token <token> [--ping-interval-ms N] [--pong-deadline-ms N] [--capabilities JSON] [--ack-batch-bytes N]
 *   main.js --role host|client --sessions   (one session after another; `open` takes the arguments above)
 * and drives it over fd 3 (see control-channel.ts). Changing the ops or their
 * answers in a way an older harness cannot read means bumping PEER_PROTOCOL_VERSION.
 */
import { parseArgs } from 'node:util';
import type { PeerSession } from './serve-control.js';

const USAGE = 'Usage: peer --role host [--backend script|pty] [--detached-idle-ms N] [--flow-limits JSON] | --role codec | --role client --url URL --token TOKEN [--ping-interval-ms N] [--pong-deadline-ms N] [--capabilities JSON] [--ack-batch-bytes N] | --role host|client --sessions\nDriven by `termwire compat` over fd 3.\n';
const MISUSE = 'peer: --role host (--detached-idle-ms a positive whole number, --flow-limits an object of the flow limits), --role codec, or --role client with --url and --token (--ack-batch-bytes a positive whole number)\n';

const OPTIONS = {
  role: { type: 'string' },
  backend: { type: 'string' },
  'detached-idle-ms': { type: 'string' },
  'flow-limits': { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'ping-interval-ms': { type: 'string' },
  'pong-deadline-ms': { type: 'string' },
  capabilities: { type: 'string' },
  'ack-batch-bytes': { type: 'string' },
  sessions: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const { values } = parseArgs({ options: OPTIONS });

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

function positiveWhole(text: string | undefined): boolean {
  return text === undefined || (/^\d+$/.test(text) && Number(text) > 0);
}

/** The host or client a command line (or a session's `open`) asks for; undefined when it asks for neither as it should. */
async function openSession(argv: readonly string[]): Promise<PeerSession | undefined> {
  const { values: v } = parseArgs({ args: [...argv], options: OPTIONS });
  if (v.role === 'host' && (v.backend === undefined || v.backend === 'script' || v.backend === 'pty') && positiveWhole(v['detached-idle-ms'])) {
    const [{ openHostSession }, { parseFlowLimitsArg }] = await Promise.all([import('./host-peer.js'), import('./flow-limits-arg.js')]);
    const limits = v['flow-limits'] === undefined ? {} : parseFlowLimitsArg(v['flow-limits']);
    if (!limits) return undefined;
    return openHostSession(v.backend ?? 'script', { ...limits, ...(v['detached-idle-ms'] ? { detachedTerminalIdleMs: Number(v['detached-idle-ms']) } : {}) });
  }
  if (v.role === 'client' && v.url && v.token && positiveWhole(v['ack-batch-bytes'])) {
    const { openClientSession } = await import('./client-peer.js');
    return openClientSession({
      url: v.url,
      token: v.token,
      pingIntervalMs: Number(v['ping-interval-ms'] ?? 200),
      pongDeadlineMs: Number(v['pong-deadline-ms'] ?? 800),
      ...(v.capabilities ? { capabilities: JSON.parse(v.capabilities) as Record<string, number> } : {}),
      ...(v['ack-batch-bytes'] ? { ackBatchBytes: Number(v['ack-batch-bytes']) } : {}),
    });
  }
  return undefined;
}

// Each role's module is imported only by the role that runs it: a peer start is
// mostly imports, and a gate run starts dozens of peers.
if (values.role === 'codec') {
  const { runCodecPeer } = await import('./codec-peer.js');
  runCodecPeer();
} else if (values.sessions && (values.role === 'host' || values.role === 'client')) {
  const role = values.role;
  const [{ serveSessions }, { PEER_PROTOCOL_VERSION }, { buildVersion }] = await Promise.all([import('./serve-control.js'), import('./protocol-version.js'), import('./version.js')]);
  // The role's modules load now, before the hello, so a session opens in the time a pairing can spare.
  await (role === 'host' ? import('./host-peer.js') : import('./client-peer.js'));
  serveSessions({ hello: { peerProtocol: PEER_PROTOCOL_VERSION, role, version: buildVersion(), advertised: {} } }, async (argv) => {
    const session = await openSession(['--role', role, ...argv]);
    if (!session) throw new Error(MISUSE.trim());
    return session;
  });
} else {
  const session = await openSession(process.argv.slice(2));
  if (!session) {
    process.stderr.write(MISUSE);
    process.exit(2);
  }
  const { serveControl } = await import('./serve-control.js');
  serveControl({ hello: session.hello }, session.handlers, () => session.close());
}
