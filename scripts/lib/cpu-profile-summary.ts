import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The parts of a V8 .cpuprofile (`node --cpu-prof`) a summary reads. */
interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number } }>;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Samples that are not work: the thread waited. */
const NOT_WORK = new Set(['(idle)']);

export interface FunctionCost {
  /** `name file:line`, the file from `dist/` or `node_modules/` on, or node's own module. */
  readonly where: string;
  readonly ms: number;
}

export interface GroupCost {
  /** A peer directory's role (`host`, `client`, `codec`): the part of its name before the first `-`. */
  readonly group: string;
  readonly peers: number;
  readonly profiles: number;
  /** Profiles that could not be read (a peer killed while it wrote one): left out of the sums. */
  readonly unreadable: number;
  /** Sampled time on the CPU, idle left out, every thread of every peer of the group. */
  readonly ms: number;
  readonly top: readonly FunctionCost[];
}

/**
 * Sums the profiles under `dir` (a directory per peer, each holding a
 * .cpuprofile per thread, as TERMWIRE_PEER_CPU_PROFILE leaves them) by role:
 * self time per function, heaviest first, `top` of them per role.
 */
export function summariseProfiles(dir: string, top: number): GroupCost[] {
  const groups = new Map<string, { peers: number; profiles: number; unreadable: number; ms: number; byWhere: Map<string, number> }>();
  for (const peer of readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory())) {
    const name = peer.split('-')[0]!;
    const group = groups.get(name) ?? { peers: 0, profiles: 0, unreadable: 0, ms: 0, byWhere: new Map<string, number>() };
    groups.set(name, group);
    group.peers++;
    for (const file of readdirSync(join(dir, peer)).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = readProfile(join(dir, peer, file));
      if (!profile) {
        group.unreadable++;
        continue;
      }
      group.profiles++;
      for (const [where, us] of selfTimes(profile)) {
        group.ms += us / 1000;
        group.byWhere.set(where, (group.byWhere.get(where) ?? 0) + us / 1000);
      }
    }
  }
  return [...groups]
    .map(([group, g]) => ({ group, peers: g.peers, profiles: g.profiles, unreadable: g.unreadable, ms: g.ms, top: [...g.byWhere].map(([where, ms]) => ({ where, ms })).sort((a, b) => b.ms - a.ms).slice(0, top) }))
    .sort((a, b) => b.ms - a.ms);
}

/** A profile, or undefined where its file is not one whole (a peer killed while it wrote it: stop() kills a peer 3 s after asking it to exit). */
function readProfile(path: string): CpuProfile | undefined {
  try {
    const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
    return Array.isArray(profile.nodes) && Array.isArray(profile.samples) && Array.isArray(profile.timeDeltas) ? profile : undefined;
  } catch {
    return undefined;
  }
}

/** Self time, in µs, of each function a profile sampled, idle left out. */
function selfTimes(profile: CpuProfile): Map<string, number> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const times = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame || NOT_WORK.has(frame.functionName)) return;
    const where = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
    times.set(where, (times.get(where) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return times;
}

function shortUrl(url: string): string {
  const from = ['/dist/', '/node_modules/'].map((marker) => url.lastIndexOf(marker)).find((at) => at >= 0);
  return from === undefined ? (url.startsWith('node:') ? url : basename(url)) : url.slice(from + 1);
}
