import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The house drawn from its imports: src/ (the protocol stack) is the lowest floor, compat/ (the gate) stands on it,
// scripts/ on both. An arrow that runs back up, or a circle, ties a lower floor to what it should not know about.
const root = join(import.meta.dirname, '..');
const FLOORS = ['src', 'compat', 'scripts'] as const;
type Floor = (typeof FLOORS)[number];

/** Every non-test TypeScript file of the three floors, relative to the root. */
function sources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return walk(path);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
    });
  return FLOORS.flatMap((floor) => walk(floor));
}

/** Relative modules a file imports or re-exports (types included), resolved to the files they name; literal specifiers only. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'|(?:^|\n)\s*import\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return specifiers
    .map((s) => relative(root, join(root, dirname(file), s)).replace(/\.js$/, '.ts'))
    .filter((target) => existsSync(join(root, target)));
}

const floorOf = (file: string): Floor => file.split('/')[0] as Floor;

/** One circle of imports, as the files it passes through, or undefined when there is none. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe('the house drawn from the imports', () => {
  const graph = new Map(sources().map((file) => [file, importsOf(file)] as const));

  it('reads the imports it judges', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('compat/run-gate.ts')).toContain('compat/confirm-findings.ts');
  });

  it('has no arrow that runs back up: src imports neither the gate nor scripts, the gate imports no script', () => {
    const up = [...graph].flatMap(([file, targets]) => targets.filter((t) => FLOORS.indexOf(floorOf(t)) > FLOORS.indexOf(floorOf(file))).map((t) => `${file} -> ${t}`));
    expect(up).toEqual([]);
  });

  it('has no circle of imports', () => {
    const circle = findCircle(graph);
    expect(circle, circle && `a circle: ${circle.join(' -> ')}`).toBeUndefined();
  });
});
