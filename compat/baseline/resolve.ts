import semver from 'semver';
import { CompatError } from '../errors.js';
import { missingHistoryAdvice, shallowAdvice } from './clone-advice.js';
import { git, gitMaybe } from './git.js';
import type { AgainstSpec } from './validate-ref.js';
import { treeOfCommit, workingTreeId } from './working-tree.js';

/** The subject every release commit carries (scripts/release.ts writes it). */
export const RELEASE_SUBJECT_PREFIX = 'release: v';
const RELEASE_TAG = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;

export interface Baseline {
  /** How the baseline was named: a tag, `release: vX.Y.Z` commit, or the user's ref. */
  readonly label: string;
  readonly commit: string;
  /** package.json version at that commit (undefined if it has none). */
  readonly version: string | undefined;
}

export interface Release { readonly version: string; readonly commit: string; readonly via: 'tag' | 'subject' }


function releaseVersion(text: string, includePrerelease: boolean): string | undefined {
  const m = RELEASE_TAG.exec(text);
  const version = m?.[1];
  if (!version || !semver.valid(version)) return undefined;
  if (!includePrerelease && semver.prerelease(version)) return undefined;
  return version;
}

/** Every release, newest first: `vX.Y.Z` tags, and commits whose subject is `release: vX.Y.Z` (clones without tags). */
export async function listReleases(root: string, includePrerelease: boolean): Promise<Release[]> {
  const byVersion = new Map<string, Release>();
  const tags = (await git(root, ['tag', '--list', 'v*'])).split('\n').filter(Boolean);
  for (const tag of tags) {
    const version = releaseVersion(tag, includePrerelease);
    if (!version) continue;
    const commit = await git(root, ['rev-parse', '--verify', '--end-of-options', `refs/tags/${tag}^{commit}`]);
    byVersion.set(version, { version, commit, via: 'tag' });
  }
  const hasHead = (await gitMaybe(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])) !== undefined;
  if (hasHead) {
    const log = await git(root, ['log', '--all', '--fixed-strings', `--grep=${RELEASE_SUBJECT_PREFIX}`, '--format=%H%x09%s']);
    for (const line of log.split('\n').filter(Boolean)) {
      const [commit, subject] = line.split('\t') as [string, string];
      if (!subject.startsWith(RELEASE_SUBJECT_PREFIX)) continue; // --grep matches the whole message; only the subject counts
      const version = releaseVersion(subject.slice('release: '.length), includePrerelease);
      if (version && !byVersion.has(version)) byVersion.set(version, { version, commit, via: 'subject' });
    }
  }
  return [...byVersion.values()].sort((a, b) => semver.rcompare(a.version, b.version));
}

async function versionAt(root: string, commit: string): Promise<string | undefined> {
  const text = await gitMaybe(root, ['show', `${commit}:package.json`]);
  try {
    return text ? ((JSON.parse(text) as { version?: string }).version ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A release name (`v0.1.0`) resolves by its tag, or by its `release: v0.1.0`
 * commit where the clone has no tags; any other ref through git. A ref that is
 * not a release is allowed, and said so: the comparison is then against
 * unreleased code.
 */
async function resolveRef(root: string, ref: string, opts: ResolveOptions): Promise<Baseline> {
  const releases = await listReleases(root, true);
  const version = RELEASE_TAG.exec(ref)?.[1];
  const release = version === undefined ? undefined : releases.find((r) => r.version === version);
  const commit = release?.commit ?? (await gitMaybe(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]));
  if (!commit) {
    const known = releases.slice(0, 5).map((r) => `v${r.version}`);
    const hint = known.length ? ` Releases in this clone: ${known.join(', ')}.` : '';
    throw new CompatError('NO_BASELINE', `--against ${ref}: no such ref (no branch, tag, commit or release of that name in this clone).${hint}${await shallowAdvice(root)}`);
  }
  const named = releases.find((r) => r.commit === commit);
  if (!named) opts.onNote?.(`${ref} (${commit.slice(0, 12)}) is not a release: comparing against unreleased code, not what users run`);
  return { label: release ? `v${release.version}` : ref, commit, version: await versionAt(root, commit) };
}

export interface ResolveOptions { readonly includePrerelease: boolean; readonly onNote?: (msg: string) => void }

/** Resolves --against to one or more baselines, refusing any whose tree equals the working tree. */
export async function resolveBaselines(root: string, spec: AgainstSpec, opts: ResolveOptions): Promise<Baseline[]> {
  let candidates: Baseline[];
  if (spec.kind === 'ref') {
    candidates = [await resolveRef(root, spec.ref, opts)];
  } else {
    const releases = await listReleases(root, opts.includePrerelease);
    if (releases.length === 0) {
      throw new CompatError('NO_BASELINE', `no release found: no vX.Y.Z tag and no commit whose subject is "release: vX.Y.Z". ${await missingHistoryAdvice(root)}`);
    }
    const picked = releases.slice(0, spec.kind === 'latest' ? 1 : spec.count);
    if (spec.kind === 'last' && picked.length < spec.count) opts.onNote?.(`only ${picked.length} release(s) found for last:${spec.count}`);
    candidates = await Promise.all(picked.map(async (r) => ({ label: `v${r.version}`, commit: r.commit, version: (await versionAt(root, r.commit)) ?? r.version })));
  }
  const here = await workingTreeId(root);
  const usable: Baseline[] = [];
  for (const b of candidates) {
    if ((await treeOfCommit(root, b.commit)) !== here) usable.push(b);
    else opts.onNote?.(`skipping ${b.label}: its tree equals the working tree`);
  }
  if (usable.length === 0) {
    const which = candidates.map((b) => b.label).join(', ');
    throw new CompatError(
      'SAME_TREE',
      `the baseline ${which} has the same tree as the working tree, so pairing them would prove nothing. ` +
        'Fix: make your change first, or compare with an older release: `--against <ref>` or `--against last:2`.',
    );
  }
  return usable;
}
