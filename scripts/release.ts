/**
 * Cuts a release: `npm run release -- 0.1.0` or `-- patch|minor|major`.
 * Refuses a dirty tree; bumps package.json and package-lock.json; prepends a
 * CHANGELOG.md entry with the subjects since the previous release; commits
 * with the subject `release: vX.Y.Z` (how `termwire compat` finds releases in
 * a clone without tags) and creates the annotated tag vX.Y.Z.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import semver from 'semver';

export class ReleaseError extends Error {
  override readonly name = 'ReleaseError';
}

const BUMPS = ['patch', 'minor', 'major'] as const;

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

export interface ReleaseResult { readonly version: string; readonly tag: string; readonly commit: string }

export async function release(cwd: string, spec: string, today: Date = new Date()): Promise<ReleaseResult> {
  const status = await git(cwd, ['status', '--porcelain']);
  if (status) throw new ReleaseError(`the working tree has uncommitted changes; commit or stash them first:\n${status}`);
  const pkgPath = join(cwd, 'package.json');
  const current = (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  const version = (BUMPS as readonly string[]).includes(spec) ? semver.inc(current, spec as (typeof BUMPS)[number]) : semver.valid(spec);
  if (!version) throw new ReleaseError(`"${spec}" is neither a version (X.Y.Z) nor one of ${BUMPS.join('|')}`);
  if (!semver.gt(version, current)) throw new ReleaseError(`version ${version} is not above the current ${current}`);
  const tag = `v${version}`;
  if ((await execa('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], { cwd, reject: false })).exitCode === 0) {
    throw new ReleaseError(`tag ${tag} already exists`);
  }

  const since = await previousRelease(cwd);
  const subjects = (await git(cwd, ['log', '--format=%s', ...(since ? [`${since}..HEAD`] : ['HEAD'])])).split('\n').filter(Boolean);
  const changelogPath = join(cwd, 'CHANGELOG.md');
  const previous = existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8').replace(/^# Changelog\s*\n/, '') : '';
  const entry = `## ${tag} (${today.toISOString().slice(0, 10)})\n\n${subjects.map((s) => `- ${s}`).join('\n') || '- (no changes)'}\n`;
  writeFileSync(changelogPath, `# Changelog\n\n${entry}${previous ? `\n${previous.replace(/^\n+/, '')}` : ''}`);

  writeJsonVersion(pkgPath, version, false);
  const files = ['package.json', 'CHANGELOG.md'];
  if (existsSync(join(cwd, 'package-lock.json'))) {
    writeJsonVersion(join(cwd, 'package-lock.json'), version, true);
    files.push('package-lock.json');
  }
  await git(cwd, ['add', '--', ...files]);
  await git(cwd, ['commit', '-m', `release: ${tag}`]);
  await git(cwd, ['tag', '-a', tag, '-m', `release: ${tag}`]);
  return { version, tag, commit: await git(cwd, ['rev-parse', 'HEAD']) };
}

const HELP = `Usage: npm run release -- <X.Y.Z | patch | minor | major>

Bumps the version, writes CHANGELOG.md, commits "release: vX.Y.Z" and tags vX.Y.Z.
Push with: git push --follow-tags
Exit codes: 0 released, 1 refused, 2 usage error.`;

async function main(argv: string[]): Promise<number> {
  const [spec, ...rest] = argv;
  if (spec === '--help' || spec === '-h') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (!spec || rest.length) {
    process.stderr.write(`${HELP}\n`);
    return 2;
  }
  try {
    const r = await release(process.cwd(), spec);
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
