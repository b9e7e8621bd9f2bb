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

/**
 * Resolves --against to one or more baselines whose trees differ from the
 * working tree. `latest` and `last:N` pass over releases whose tree equals
 * the working tree (on the release commit itself the newest release is this
 * very tree) and take the newest ones that differ, saying which they skipped;
 * an explicit ref whose tree equals the working tree is refused (SAME_TREE),
 * as is a release list in which no release differs.
 */
export async function resolveBaselines(root: string, spec: AgainstSpec, opts: ResolveOptions): Promise<Baseline[]> {
  if (spec.kind === 'ref') {
    const baseline = await resolveRef(root, spec.ref, opts);
    if ((await treeOfCommit(root, baseline.commit)) === (await workingTreeId(root))) {
      throw new CompatError(
        'SAME_TREE',
        `--against ${spec.ref}: ${baseline.label} has the same tree as the working tree, so pairing them would prove nothing. ` +
          'Fix: make your change first, or name an older release or commit; the default (--against latest) passes over a release equal to the working tree.',
      );
    }
    return [baseline];
  }
  const releases = await listReleases(root, opts.includePrerelease);
  if (releases.length === 0) {
    throw new CompatError('NO_BASELINE', `no release found: no vX.Y.Z tag and no commit whose subject is "release: vX.Y.Z". ${await missingHistoryAdvice(root)}`);
  }
  const wanted = spec.kind === 'latest' ? 1 : spec.count;
  const here = await workingTreeId(root);
  const picked: Release[] = [];
  const skipped: Release[] = [];
  for (const r of releases) {
    if (picked.length === wanted) break;
    if ((await treeOfCommit(root, r.commit)) === here) skipped.push(r);
    else picked.push(r);
  }
  const label = (r: Release) => `v${r.version}`;
  if (picked.length === 0) {
    const which = skipped.map(label).join(', ');
    const only = releases.length === 1 ? `the only release, ${which},` : `every release (${which})`;
    throw new CompatError(
      'SAME_TREE',
      `${only} has the same tree as the working tree, and there is no older release to compare against: pairing them would prove nothing. ` +
        'Fix: make your change first, or compare with an older commit: `--against <ref>`.',
    );
  }
  const comparing = picked.map(label).join(', ');
  for (const r of skipped) opts.onNote?.(`skipping ${label(r)}: its tree equals the working tree; comparing against ${comparing}`);
  if (spec.kind === 'last' && picked.length < spec.count) {
    const also = skipped.length ? ` (and ${skipped.map(label).join(', ')}, whose tree equals the working tree)` : '';
    opts.onNote?.(`only ${picked.length} release(s) found for last:${spec.count}${also}`);
  }
  return Promise.all(picked.map(async (r) => ({ label: label(r), commit: r.commit, version: (await versionAt(root, r.commit)) ?? r.version })));
}
