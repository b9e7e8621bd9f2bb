/**
 * Cuts a release: `npm run release -- 0.1.0` or `-- patch|minor|major`.
 * Refuses a dirty tree and a branch other than main (unless told why); runs
 * `npm test` and the gate against the newest release, and refuses on either;
 * bumps package.json and package-lock.json; prepends a CHANGELOG.md entry
 * grouped by who sees each change, with the gate's verdict and coverage as
 * its compatibility notes; commits `release: vX.Y.Z` (how `termwire compat`
 * finds releases in a clone without tags) and the annotated tag vX.Y.Z.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import semver from 'semver';
import { changelogEntry, parseReleaseNotes, type ReleasedCommit } from './release/changelog.js';
import { CheckFailed, compatibilityNotes, gateRefusal, REAL_CHECKS, type ReleaseChecks } from './release/checks.js';

export class ReleaseError extends Error {
  override readonly name = 'ReleaseError';
}

const BUMPS = ['patch', 'minor', 'major'] as const;
/** Releases are cut from here: the `release:` commit must be reachable from main, as tags do not travel with clones. */
const RELEASE_BRANCH = 'main';

async function git(cwd: string, args: string[]): Promise<string> {
  const r = await execa('git', args, { cwd, reject: false, stripFinalNewline: true });
  if (r.exitCode !== 0) throw new ReleaseError(`git ${args.join(' ')} failed: ${String(r.stderr).trim()}`);
  return String(r.stdout);
}

function writeJsonVersion(path: string, version: string, lockfile: boolean): void {
  const text = readFileSync(path, 'utf8');
  const json = JSON.parse(text) as { version?: string; packages?: Record<string, { version?: string }> };
  json.version = version;
  if (lockfile && json.packages?.['']) json.packages[''].version = version;
  const indent = /^(\s+)"/m.exec(text)?.[1] ?? '  ';
  writeFileSync(path, JSON.stringify(json, null, indent) + '\n');
}

/** The commit of the newest earlier release (tag or `release:` subject), if any. */
async function previousRelease(cwd: string): Promise<string | undefined> {
  const tagged = await execa('git', ['describe', '--tags', '--abbrev=0', '--match', 'v[0-9]*', 'HEAD'], { cwd, reject: false, stripFinalNewline: true });
  if (tagged.exitCode === 0) return String(tagged.stdout);
  const bySubject = await git(cwd, ['log', '--fixed-strings', '--grep=release: v', '--format=%H%x09%s', 'HEAD']);
  return bySubject.split('\n').find((l) => l.split('\t')[1]?.startsWith('release: v'))?.split('\t')[0];
}

/** The commits since the previous release, oldest last, with the files each touched. */
async function commitsSince(cwd: string, since: string | undefined): Promise<ReleasedCommit[]> {
  const log = await git(cwd, ['log', '--format=%x00%s', '--name-only', ...(since ? [`${since}..HEAD`] : ['HEAD'])]);
  return log
    .split('\0')
    .slice(1)
    .map((block) => {
      const [subject, ...files] = block.split('\n');
      return { subject: subject!, files: files.filter(Boolean) };
    });
}

export interface ReleaseResult { readonly version: string; readonly tag: string; readonly commit: string }

export interface ReleaseOptions {
  readonly today?: Date;
  /** Release from a branch other than main, and why (recorded in the release commit). */
  readonly offMainBecause?: string;
  /** Default: the README's commands, `npm test` and the gate. */
  readonly checks?: ReleaseChecks;
  /** The release engineer's notes, `### Audience` sections (changelog.ts); the commits' headlines are folded beneath them. */
  readonly notes?: string;
}

export async function release(cwd: string, spec: string, options: ReleaseOptions = {}): Promise<ReleaseResult> {
  const { today = new Date(), offMainBecause, checks = REAL_CHECKS } = options;
  let notes: Map<string, string> | undefined;
  try {
    notes = options.notes === undefined ? undefined : parseReleaseNotes(options.notes);
  } catch (e) {
    throw new ReleaseError((e as Error).message);
  }
  const status = await git(cwd, ['status', '--porcelain']);
  if (status) throw new ReleaseError(`the working tree has uncommitted changes; commit or stash them first:\n${status}`);
  const branch = await git(cwd, ['rev-parse', '--abbrev-ref', 'HEAD']);
  if (branch !== RELEASE_BRANCH && !offMainBecause?.trim()) {
    throw new ReleaseError(`HEAD is ${branch === 'HEAD' ? 'detached' : `on branch ${branch}`}, not ${RELEASE_BRANCH}: a release commit must be reachable from ${RELEASE_BRANCH} (tags do not travel with clones). To release from here anyway, say why: --off-main "<reason>"`);
  }
  const pkgPath = join(cwd, 'package.json');
  const current = (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  const version = (BUMPS as readonly string[]).includes(spec) ? semver.inc(current, spec as (typeof BUMPS)[number]) : semver.valid(spec);
  if (!version) throw new ReleaseError(`"${spec}" is neither a version (X.Y.Z) nor one of ${BUMPS.join('|')}`);
  if (!semver.gt(version, current)) throw new ReleaseError(`version ${version} is not above the current ${current}`);
  const tag = `v${version}`;
  if ((await execa('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], { cwd, reject: false })).exitCode === 0) {
    throw new ReleaseError(`tag ${tag} already exists`);
  }

  // Both checks run on the tree as it will be released, before anything is written.
  const compatibility = await runChecks(cwd, checks);
  const since = await previousRelease(cwd);
  const changelogPath = join(cwd, 'CHANGELOG.md');
  const previous = existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8').replace(/^# Changelog\s*\n/, '') : '';
  const entry = changelogEntry(tag, today.toISOString().slice(0, 10), await commitsSince(cwd, since), compatibility, notes);
  writeFileSync(changelogPath, `# Changelog\n\n${entry}${previous ? `\n${previous.replace(/^\n+/, '')}` : ''}`);

  writeJsonVersion(pkgPath, version, false);
  const files = ['package.json', 'CHANGELOG.md'];
  if (existsSync(join(cwd, 'package-lock.json'))) {
    writeJsonVersion(join(cwd, 'package-lock.json'), version, true);
    files.push('package-lock.json');
  }
  await git(cwd, ['add', '--', ...files]);
  const offMain = branch !== RELEASE_BRANCH ? `\n\nReleased from ${branch}, not ${RELEASE_BRANCH}: ${offMainBecause!.trim()}` : '';
  await git(cwd, ['commit', '-m', `release: ${tag}${offMain}`]);
  // verbatim: the notes' '### ' headings would otherwise be stripped as comments.
  await git(cwd, ['tag', '-a', '--cleanup=verbatim', tag, '-m', `release: ${tag}\n\n${entry}`]);
  return { version, tag, commit: await git(cwd, ['rev-parse', 'HEAD']) };
}

/** Runs the suite, then the gate; returns the gate's verdict as release notes, or refuses. */
async function runChecks(cwd: string, checks: ReleaseChecks): Promise<string[]> {
  try {
    await checks.test(cwd);
    const report = await checks.gate(cwd);
    const refusal = gateRefusal(report);
    if (refusal) throw new CheckFailed(refusal);
    return compatibilityNotes(report);
  } catch (e) {
    if (e instanceof CheckFailed) throw new ReleaseError(`${e.message}; nothing was released`);
    throw e;
  }
}

const HELP = `Usage: npm run release -- <X.Y.Z | patch | minor | major> [--notes FILE] [--off-main "<reason>"]

Refuses a dirty tree and a branch other than main; runs npm test and the gate
against the newest release (npm run compat) and refuses on either; then bumps
the version, writes CHANGELOG.md (grouped by wire, host, client, gate, docs,
with the gate's verdict and coverage), commits "release: vX.Y.Z" and tags vX.Y.Z.

  --notes <file>       what a user of each side sees, in '### Wire', '### Host',
                       '### Client', '### Gate', '### Docs' sections; the commits'
                       headlines are folded beneath them in the changelog
  --off-main <reason>  release from the current branch anyway; the reason goes
                       into the release commit

Push with: git push --follow-tags
Exit codes: 0 released, 1 refused, 2 usage error.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { 'off-main': { type: 'string' }, notes: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    process.stderr.write(`release: ${(e as Error).message}\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const [spec, ...rest] = positionals;
  if (!spec || rest.length) {
    process.stderr.write(`${HELP}\n`);
    return 2;
  }
  let notes: string | undefined;
  if (values.notes !== undefined) {
    try {
      notes = readFileSync(values.notes, 'utf8');
    } catch (e) {
      process.stderr.write(`release: --notes ${values.notes}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  try {
    const r = await release(process.cwd(), spec, { ...(values['off-main'] !== undefined ? { offMainBecause: values['off-main'] } : {}), ...(notes !== undefined ? { notes } : {}) });
    process.stdout.write(`released ${r.tag} at ${r.commit.slice(0, 12)}; push with: git push --follow-tags\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof ReleaseError)) throw e;
    process.stderr.write(`release: ${e.message}\n`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
