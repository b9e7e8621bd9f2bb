import { readFileSync } from 'node:fs';

/** This build's package version, read from its own package.json (dist/compat/peer -> root). */
export function buildVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
