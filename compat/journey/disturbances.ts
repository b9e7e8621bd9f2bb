import type { PairingRecording } from '../recording.js';
import type { JourneyRecordings } from './journey-recordings.js';

/** The passes of one walk of the script, each judged on its own pairings. */
export const JOURNEY_PASSES = ['script', 'pty', 'restart', 'stream', 'lifetime'] as const;
export type JourneyPass = (typeof JOURNEY_PASSES)[number];

/** The pairings each pass of one walk recorded (none for a pass the builds could not walk). */
export function pairingsByPass(r: JourneyRecordings): Record<JourneyPass, PairingRecording[]> {
  const of = (pass: object | undefined) => (pass ? (Object.values(pass) as PairingRecording[]) : []);
  return { script: [r.newNew, r.oldOld, r.oldClientNewHost, r.newClientOldHost], pty: of(r.pty), restart: of(r.restart), stream: of(r.stream), lifetime: of(r.lifetime) };
}

/** Every pairing one walk of the script recorded: the four on the script, the PTY, restart, byte-stream and lifetime passes. */
export function pairingsOfWalk(r: JourneyRecordings): PairingRecording[] {
  return Object.values(pairingsByPass(r)).flat();
}

/**
 * Errors a host closes a link with when its client has not read for a while:
 * on a busy machine a healthy client can be that slow, and no journey step
 * provokes either, so one in a walk says the machine, not the build, shaped it.
 */
const HOST_GIVE_UPS: ReadonlySet<string> = new Set(['LINK_DRAIN_TIMEOUT', 'LINK_BUFFER_OVERFLOW']);

/**
 * What kept a walk from walking the journey it describes, one line each: a
 * client that ended a connection no step ended (UnplannedEnd), and a host that
 * gave up on a client too slow to read.
 */
export function disturbancesOf(pairings: readonly PairingRecording[]): string[] {
  return pairings.flatMap((p) => {
    const pairing = `${p.client} client ${p.clientVersion} × ${p.host} host ${p.hostVersion}`;
    const clientEnds = (p.unplannedEnds ?? []).map((end) => `${pairing}: the ${end.client} client gave up connection ${end.connection} in step ${end.step}, a link the proxy kept up`);
    const hostGiveUps = p.frames
      .filter((f) => f.direction === 'hostToClient' && f.opcodeName === 'Error' && HOST_GIVE_UPS.has(String((f.payload as { code?: unknown } | null)?.code)))
      .map((f) => `${pairing}: the host gave up on the ${f.client ?? 'primary'} client in step ${f.step} (${String((f.payload as { code: unknown }).code)}), a client too slow to read`);
    return [...clientEnds, ...hostGiveUps];
  });
}
