import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { BUNDLE_DIR } from '../baseline/bundle-entries.js';
import type { PairingRecording } from '../recording.js';
import { PEER_ENTRY } from './peer-process.js';

export type PeerRole = 'client' | 'host';

/**
 * The modules a build's peer of each role runs, beside the entry that
 * dispatches to it. The codec peer is in both: it decodes the frames each
 * role's build authored and says which the other refuses, so a recording
 * reused under another label must have been decoded by the same code.
 */
const ROLE_MODULES: Record<PeerRole | 'codec', readonly string[]> = { client: ['client-peer.js', 'codec-peer.js'], host: ['host-peer.js', 'codec-peer.js'], codec: ['codec-peer.js'] };

/** A relative string literal in compiled JavaScript: an import, an export-from, a dynamic import, `new URL('./x', import.meta.url)`. */
const RELATIVE_LITERAL = /[`'"](\.{1,2}\/[^`'"\n$]+)[`'"]/g;
/**
 * Code that loads a module whose path is computed: what it loads cannot be
 * read from the text, so the role's code cannot be said to be unchanged. An
 * `import(${…})` is code written into a template string (the screen worker's
 * eval for running from sources), not an import of this module.
 */
const COMPUTED_LOAD = [/\bimport\(\s*(?!['"]|\$\{)/, /\brequire\(\s*(?!['"])/, /\bcreateRequire\b/, /\bnew Worker\(\s*(?!new URL\(\s*['"]|['"`])/];

/**
 * A digest of everything a build's peer of `role` can run: the compiled files
 * its role modules reach through relative literals (followed through every
 * .js file, so a worker started by URL counts), the peer entry's own text, and
 * the package and lock files (its version and its dependencies), and the
 * bundler where the build bundles its entries (the bundles are made of those
 * files, so they are not read themselves). Undefined
 * when the build has no such module or one of them loads a computed path.
 *
 * Not covered, in builds before 0.3.0: the top-level code of the other role's
 * modules, which their entry also loaded. A module that changes a global
 * another role reads is not how termwire is written; later entries import
 * only the role that runs.
 */
export function roleCodeDigest(buildDir: string, role: PeerRole | 'codec'): string | undefined {
  const entry = join(buildDir, PEER_ENTRY);
  const starts = ROLE_MODULES[role].map((m) => join(dirname(entry), m));
  if (!existsSync(entry) || !starts.every((s) => existsSync(s))) return undefined;
  const bundles = join(buildDir, BUNDLE_DIR) + sep;
  const seen = new Set<string>();
  const pending = [...starts];
  while (pending.length) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(file, 'utf8');
    if (COMPUTED_LOAD.some((pattern) => pattern.test(text))) return undefined;
    for (const [, spec] of text.matchAll(RELATIVE_LITERAL)) {
      const target = resolve(dirname(file), spec!);
      // A bundle is made of the modules followed here, by the bundler hashed below.
      if (target.startsWith(bundles) || !existsSync(target) || !statSync(target).isFile()) continue;
      pending.push(target);
    }
  }
  const bundler = existsSync(bundles) ? [join(buildDir, 'dist', 'compat', 'baseline', 'bundle-entries.js')] : [];
  const hash = createHash('sha256');
  for (const file of [...seen, entry, ...bundler, join(buildDir, 'package.json'), join(buildDir, 'package-lock.json')].sort()) {
    hash.update(`${relative(buildDir, file)}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : 'absent');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Which roles the working tree's peers run exactly the release's code in. */
export type SameCode = Readonly<Record<PeerRole, boolean>>;

export function sameCode(oldDir: string, newDir: string): SameCode {
  const same = (role: PeerRole) => {
    const old = roleCodeDigest(oldDir, role);
    return old !== undefined && old === roleCodeDigest(newDir, role);
  };
  return { client: same('client'), host: same('host') };
}

/** Whether both builds' codec peers run the same code: their decoders then read every frame alike, so the decoder check has nothing to find. */
export function sameDecoders(oldDir: string, newDir: string): boolean {
  const old = roleCodeDigest(oldDir, 'codec');
  return old !== undefined && old === roleCodeDigest(newDir, 'codec');
}

export const DIFFERENT_CODE: SameCode = { client: false, host: false };

/** What a side of a pairing needs here: which build it is, and its version. */
interface SideOfPairing {
  readonly side: 'old' | 'new';
  readonly build: { readonly version: string };
}

/**
 * A recording walked by one pairing, labelled as the pairing that runs the
 * same code in both roles: its sides, versions, and whose send gates dropped
 * what (the host's drops are the build it restarted as, where it restarted).
 */
export function relabelled(recording: PairingRecording, client: SideOfPairing, host: SideOfPairing, hostAs?: SideOfPairing): PairingRecording {
  const lastHost = hostAs ?? host;
  return {
    ...recording,
    client: client.side,
    host: host.side,
    clientVersion: client.build.version,
    hostVersion: hostAs ? `${host.build.version} then ${hostAs.build.version}` : host.build.version,
    ...(recording.ungatedSends ? { ungatedSends: recording.ungatedSends.map((u) => ({ ...u, side: u.role === 'host' ? lastHost.side : client.side })) } : {}),
  };
}

/** A pairing of a walk: the task that walks it (absent when an earlier pairing of the walk runs the same code), and its recording once walked. */
export interface PlannedPairing {
  readonly walk?: () => Promise<PairingRecording>;
  readonly recording: () => Promise<PairingRecording>;
}

/**
 * Plans the pairings of one walk so that each code is walked once: with the
 * client's code unchanged, new client × old host is old × old and new × new is
 * old client × new host (the host's likewise). The first pairing planned for a
 * code walks it; a later one has no task of its own and gets that recording
 * under its own labels, so it never holds a lane waiting. One planner per walk:
 * a confirming walk plans afresh (walk-again.ts says what it carries).
 */
export function pairingPlanner(same: SameCode) {
  const walked = new Map<string, Promise<PairingRecording>>();
  const code = (b: SideOfPairing, role: PeerRole) => (same[role] ? 'old' : b.side);
  return (what: string, client: SideOfPairing, host: SideOfPairing, walk: () => Promise<PairingRecording>, hostAs?: SideOfPairing): PlannedPairing => {
    const key = `${what}|${code(client, 'client')}|${code(host, 'host')}|${hostAs ? code(hostAs, 'host') : ''}`;
    const earlier = walked.get(key);
    if (earlier) return { recording: () => earlier.then((r) => relabelled(r, client, host, hostAs)) };
    let settle!: { resolve: (r: PairingRecording) => void; reject: (e: unknown) => void };
    const done = new Promise<PairingRecording>((resolve, reject) => (settle = { resolve, reject }));
    // A walk that failed fails the run; nobody waits on its reuse then.
    done.catch(() => undefined);
    walked.set(key, done);
    return {
      walk: () => walk().then((r) => (settle.resolve(r), r), (e: unknown) => (settle.reject(e), Promise.reject(e))),
      recording: () => done,
    };
  };
}

export type PairingPlanner = ReturnType<typeof pairingPlanner>;

/** Walks a planned pairing now (or waits for the pairing that walks its code) and gives its recording. */
export const walkPlanned = async (p: PlannedPairing): Promise<PairingRecording> => (p.walk ? p.walk() : p.recording());
