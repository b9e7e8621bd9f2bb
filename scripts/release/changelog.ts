/**
 * A release's changelog entry, grouped by who sees a change: a user of the
 * wire, of the host, of the client, of the gate, or a reader of the docs.
 * Commits are placed by the files they touch, not by their wording; commits
 * that touch only tests, benchmarks and tooling are counted, not listed.
 */

export interface ReleasedCommit {
  readonly subject: string;
  readonly files: readonly string[];
}

/** Who sees a change, and the paths that say so; a commit goes to the first audience any of its files falls under. */
export const AUDIENCES: ReadonlyArray<readonly [audience: string, paths: readonly string[]]> = [
  ['Wire', ['src/codec/', 'src/capabilities/', 'src/delivery/', 'src/transport/', 'docs/protocol.md', 'fixtures/wire-history.json']],
  ['Host', ['src/host/', 'src/screen/', 'src/cli/serve', 'docs/host-limits.md']],
  ['Client', ['src/client/', 'src/cli/attach']],
  ['Gate', ['compat/', 'action.yml', 'scripts/ci/', 'docs/compatibility.md', 'docs/ci.md', 'docs/adding-an-opcode.md']],
  ['Docs', ['README.md', 'docs/']],
];

/** Tests beside their module say nothing to a user of it. */
const isTest = (file: string) => /\.test\.ts$/.test(file) || file.startsWith('test/');

export function audienceOf(commit: ReleasedCommit): string | undefined {
  const shipped = commit.files.filter((f) => !isTest(f));
  return AUDIENCES.find(([, paths]) => shipped.some((f) => paths.some((p) => f.startsWith(p))))?.[0];
}

/** A subject's first clause: what changed, without the why that follows it. */
const MAX_LINE = 160;
export function headline(subject: string): string {
  const clause = subject.split(/(?<=\S)[.;] (?=\S)|:\s*$/)[0]!.trim();
  return clause.length > MAX_LINE ? `${clause.slice(0, MAX_LINE - 1).trimEnd()}…` : clause;
}

/**
 * The release engineer's notes: `### Audience` sections (any of AUDIENCES),
 * each saying in a few lines what a user of that side sees. Refused with why
 * when a heading names no audience or a section is empty.
 */
export function parseReleaseNotes(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const known = AUDIENCES.map(([a]) => a);
  const parts = text.split(/^### +/m);
  if (parts[0]!.trim()) throw new Error(`release notes: text before the first '### <audience>' heading (audiences: ${known.join(', ')})`);
  for (const part of parts.slice(1)) {
    const [heading, ...body] = part.split('\n');
    const audience = heading!.trim();
    if (!known.includes(audience)) throw new Error(`release notes: '### ${audience}' is not an audience (${known.join(', ')})`);
    const content = body.join('\n').trim();
    if (!content) throw new Error(`release notes: the section '### ${audience}' is empty`);
    sections.set(audience, content);
  }
  if (!sections.size) throw new Error(`release notes: no '### <audience>' section (${known.join(', ')})`);
  return sections;
}

/**
 * A release's entry. With the release engineer's notes, those are what a
 * reader sees, by audience, and the commits' headlines are folded beneath
 * (a list of 300 commits says nothing at a glance); without, the headlines
 * grouped by audience are the entry.
 */
export function changelogEntry(tag: string, day: string, commits: readonly ReleasedCommit[], compatibility: readonly string[], notes?: ReadonlyMap<string, string>): string {
  const groups = new Map<string, string[]>(AUDIENCES.map(([a]) => [a, []]));
  let internal = 0;
  for (const c of commits) {
    const audience = audienceOf(c);
    if (audience) groups.get(audience)!.push(headline(c.subject));
    else internal++;
  }
  const byCommit = [...groups].filter(([, lines]) => lines.length).map(([audience, lines]) => `### ${audience}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`);
  const listed = [...groups.values()].reduce((n, lines) => n + lines.length, 0);
  const sections = notes
    ? [
        ...AUDIENCES.filter(([a]) => notes.has(a)).map(([a]) => `### ${a}\n\n${notes.get(a)}\n`),
        ...(byCommit.length ? [`<details><summary>Every change, by commit (${listed})</summary>\n\n${byCommit.join('\n')}\n</details>\n`] : []),
      ]
    : byCommit;
  if (!sections.length) sections.push('No change a user of the wire, the host, the client or the gate would see.\n');
  if (internal) sections.push(`And ${internal} internal change(s): tests, benchmarks, tooling.\n`);
  sections.push(`### Compatibility\n\n${compatibility.map((l) => `    ${l}`).join('\n')}\n`);
  return `## ${tag} (${day})\n\n${sections.join('\n')}`;
}
