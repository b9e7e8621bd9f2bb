/**
 * `npm run bench [-- <section>...] [--json]`: runs the benchmark sections in
 * scripts/bench/*.ts (each exports `name` and `run(): Promise<Row[]>`) and
 * prints their rows as a table, or as JSON with --json. Figures are ratios
 * measured side by side in one run; absolute numbers depend on the machine.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchSection, type Row, targetMet } from './bench/lib/row.js';
import { renderTable } from './bench/lib/table.js';

const SECTIONS_DIR = join(import.meta.dirname, 'bench');

async function loadSections(): Promise<BenchSection[]> {
  const files = readdirSync(SECTIONS_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
  const sections: BenchSection[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(SECTIONS_DIR, file)).href)) as Partial<BenchSection>;
    if (typeof mod.name === 'string' && typeof mod.run === 'function') sections.push({ name: mod.name, run: mod.run });
  }
  return sections;
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const sections = await loadSections();
  const unknown = wanted.filter((w) => !sections.some((s) => s.name === w));
  if (unknown.length > 0) {
    console.error(`unknown bench section(s): ${unknown.join(', ')}; known: ${sections.map((s) => s.name).join(', ')}`);
    return 2;
  }
  const rows: Row[] = [];
  for (const section of sections) {
    if (wanted.length > 0 && !wanted.includes(section.name)) continue;
    if (!json) console.error(`running ${section.name} ...`);
    rows.push(...(await section.run()));
  }
  if (json) console.log(JSON.stringify(rows.map((row) => ({ ...row, met: targetMet(row) })), null, 2));
  else console.log(renderTable(rows));
  // A missed target is reported, not fatal: speed depends on the machine.
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
