#!/usr/bin/env node
/**
 * The stable, versioned peer entry point of a build (dist/compat/peer/main.js).
 * The gate starts one process per side, from each build's own dist:
 *   main.js --role host [--backend script|pty] [--detached-idle-ms N]
 *   main.js --role codec   (classifies frames with this build's decoder)
 *   main.js --role client --url <ws or tcp url> --token <token> [--ping-interval-ms N] [--pong-deadline-ms N] [--capabilities JSON]
 * and drives it over fd 3 (see control-channel.ts). Changing the ops or their
 * answers in a way an older harness cannot read means bumping PEER_PROTOCOL_VERSION.
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    backend: { type: 'string' },
    'detached-idle-ms': { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    'ping-interval-ms': { type: 'string' },
    'pong-deadline-ms': { type: 'string' },
    capabilities: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write('Usage: peer --role host [--backend script|pty] [--detached-idle-ms N] | --role codec | --role client --url URL --token TOKEN [--ping-interval-ms N] [--pong-deadline-ms N] [--capabilities JSON]\nDriven by `termwire compat` over fd 3.\n');
  process.exit(0);
}

function validMs(text: string | undefined): boolean {
  return text === undefined || (/^\d+$/.test(text) && Number(text) > 0);
}

// Each role's module is imported only by the role that runs it: a peer start is
// mostly imports, and a gate run starts some fifty peers.
if (values.role === 'codec') {
  const { runCodecPeer } = await import('./codec-peer.js');
  runCodecPeer();
} else if (values.role === 'host' && (values.backend === undefined || values.backend === 'script' || values.backend === 'pty') && validMs(values['detached-idle-ms'])) {
  const { runHostPeer } = await import('./host-peer.js');
  await runHostPeer(values.backend ?? 'script', values['detached-idle-ms'] ? { detachedTerminalIdleMs: Number(values['detached-idle-ms']) } : {});
} else if (values.role === 'client' && values.url && values.token) {
  const { runClientPeer } = await import('./client-peer.js');
  await runClientPeer({
    url: values.url,
    token: values.token,
    pingIntervalMs: Number(values['ping-interval-ms'] ?? 200),
    pongDeadlineMs: Number(values['pong-deadline-ms'] ?? 800),
    ...(values.capabilities ? { capabilities: JSON.parse(values.capabilities) as Record<string, number> } : {}),
  });
} else {
  process.stderr.write('peer: --role host (--detached-idle-ms a positive whole number), --role codec, or --role client with --url and --token\n');
  process.exit(2);
}
