import { setTimeout as sleep } from 'node:timers/promises';
import type { Abuser } from './abusers.js';
import type { SoakPeer } from './peer.js';

export interface Attack extends Abuser {
  /** What it did to the host before it was defended against. */
  readonly before: string;
  /** The outcome counted once per thing the attack holds, to divide its memory by (the per-screen cost). */
  readonly costPer?: string;
}

/** Waits until the socket's send buffer is below `bytes`, so the attacker's own memory stays small. */
export async function drained(peer: SoakPeer, bytes: number): Promise<void> {
  while (peer.isOpen && peer.ws.bufferedAmount > bytes) await sleep(5);
}

/**
 * Types `command` on the stream and waits until `marker` comes back in its
 * output, the connection closes, or `giveUpMs` passes. The command must spell
 * the marker so that its echo does not contain it (echo mark""er).
 */
export async function typeUntilShown(peer: SoakPeer, streamId: number, command: string, marker: string, giveUpMs: number): Promise<'shown' | 'closed' | 'late'> {
  const shown = peer.until(marker);
  peer.send('Input', streamId, command);
  return Promise.race([shown.then(() => 'shown' as const), peer.whenClosed().then(() => 'closed' as const), sleep(giveUpMs).then(() => 'late' as const)]);
}
