import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { CompatError } from '../errors.js';

/** A shrunk failing schedule, as `--replay FILE` runs it: the moves, the finding it shows, and both builds it showed between. */
const replaySchema = z.object({
  format: z.literal(1),
  seed: z.number().int().min(0),
  moves: z.array(z.string()),
  finding: z.object({ ruleId: z.string(), direction: z.string(), subject: z.string() }),
  builds: z.object({
    old: z.object({ version: z.string(), commit: z.string() }),
    new: z.object({ version: z.string(), commit: z.string() }),
  }),
});

export type ReplayFile = z.infer<typeof replaySchema>;

export function writeReplayFile(path: string, replay: ReplayFile): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(replay, null, 2)}\n`);
}

export function readReplayFile(path: string): ReplayFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CompatError('BAD_OPTION', `--replay ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new CompatError('BAD_OPTION', `--replay ${path}: not JSON (${(e as Error).message})`);
  }
  const result = replaySchema.safeParse(parsed);
  if (!result.success) throw new CompatError('BAD_OPTION', `--replay ${path}: not a replay file: ${result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return result.data;
}
