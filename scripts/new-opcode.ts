/**
 * `npm run new-opcode -- NAME --capability CAP --direction hostToClient|clientToHost`
 * writes every row a new gated opcode needs in the tables and lists, and a
 * journey step to fill in, then runs `npm run regen` and prints what is left
 * to write by hand (docs/adding-an-opcode.md). Nothing is written unless every
 * place it edits was found.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { allOpcodes } from '../src/codec/opcodes.js';
import { CAPABILITIES } from '../src/capabilities/registry.js';
import { SCRIPT_STEP_NAMES } from '../compat/recording.js';

const USAGE = `usage: npm run new-opcode -- NAME --capability CAP --direction hostToClient|clientToHost [options]

Writes the rows a new gated opcode needs: its capability, its opcode row, its
payload schema (json), its golden frame, its number where the gate's barriers
read it, a journey step (its name in the journey's order, its file, its row in
docs/compatibility.md), for a host-to-client frame the client's event that
carries its payload, then runs npm run regen and prints the checklist of
what is left to write by hand.

  NAME                  the opcode, PascalCase (e.g. Bell)
  --capability CAP      the new capability that gates it, camelCase (e.g. bell)
  --direction DIR       hostToClient or clientToHost
  --payload KIND        empty (default) or json
  --after STEP          the journey step the new one follows (default title)
  --summary TEXT        what the frame is, for the opcode table and docs
  --help                this text`;

export interface NewOpcode {
  readonly name: string;
  readonly capability: string;
  readonly direction: 'hostToClient' | 'clientToHost';
  readonly payload: 'empty' | 'json';
  readonly after: string;
  readonly summary: string;
}

export class NewOpcodeError extends Error {
  override readonly name = 'NewOpcodeError';
}

const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);
const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** One edit of one file: where it goes, found before anything is written. */
interface Edit {
  readonly file: string;
  readonly apply: (text: string) => string;
}

/** Inserts `text` before the first `anchor` after `from` (or the file's start); throws when either is missing. */
function insertBefore(anchor: string, text: string, from?: string): (source: string) => string {
  return (source) => {
    const start = from === undefined ? 0 : source.indexOf(from);
    const at = start < 0 ? -1 : source.indexOf(anchor, start);
    if (at < 0) throw new NewOpcodeError(`cannot find ${JSON.stringify(from ?? anchor)}${from ? ` followed by ${JSON.stringify(anchor)}` : ''}`);
    return source.slice(0, at) + text + source.slice(at);
  };
}

/** Replaces the one match of `pattern`; throws when there is none. */
function replaceOnce(pattern: RegExp, replace: (match: string) => string): (source: string) => string {
  return (source) => {
    const match = pattern.exec(source);
    if (!match) throw new NewOpcodeError(`cannot find ${pattern}`);
    return source.slice(0, match.index) + replace(match[0]) + source.slice(match.index + match[0].length);
  };
}

export function stepSource(spec: NewOpcode, stepName: string, file: string): string {
  const who = spec.direction === 'hostToClient' ? 'host' : 'client';
  return `import { first, negotiates, screenShows, type JourneyStep } from './steps.js';
import { sawSinceStep, WIRE } from './wire-view.js';

/**
 * What the client's screen shows once the act's output is applied, in every pairing: the step waits for it,
 * so whatever the act made the ${who} do (a send its gate dropped included) has happened before the next step.
 */
const SHOWN = '${stepName} done';

/**
 * Puts ${spec.name} on the wire (${spec.summary}). The act runs in every pairing: where
 * ${spec.capability} was not negotiated the ${who} must send nothing, and a send its send gate
 * drops there is the gate's finding (UNGATED_SEND_DROPPED, with the send site).
 */
export const ${stepName}Step: JourneyStep = {
  name: '${stepName}',
  act: async () => {
    // Make the ${who} send ${spec.name} (a peer op, ctx.${who}.call(...), compat/peer/peer-ops.ts, or what the terminal
    // prints, ctx.host.call('emit', { text })), then have the terminal print SHOWN after it: \`…\${SHOWN}\\r\\n\`.
    throw new Error('the journey step ${stepName} has no act yet: write it in ${file}');
  },
  // Where ${spec.capability} was negotiated the frame must arrive; in every pairing the screen shows the act's output.
  done: (o, before) =>
    first(negotiates(o.client, '${spec.capability}') ? sawSinceStep(o, before, { client: 'primary', direction: '${spec.direction}', opcode: WIRE.opcode.${spec.name} }, 'a ${spec.name} frame on the primary client') : undefined, screenShows(o, SHOWN)),
};
`;
}

/**
 * The client's default meaning of a host-to-client frame: its payload raised
 * as a stream event named like the step (`stream.on('bell', …)`). A frame that
 * means more to the client (a screen change, a reply) is written over it by hand.
 */
function clientMeaning(spec: NewOpcode, event: string): Edit[] {
  const json = spec.payload === 'json';
  const payloadImport = "import type { PayloadOf } from '../codec/payload.js';\n";
  return [
    {
      file: 'src/client/stream-receive.ts',
      apply: insertBefore(
        '    default:\n      // Anything else is client-to-host.',
        json ? `    case Op.${spec.name}:\n      return withPayload(stream, '${spec.name}', frame, (value) => stream.raise('${event}', value));\n` : `    case Op.${spec.name}:\n      return stream.raise('${event}', {});\n`,
      ),
    },
    {
      file: 'src/client/stream-events.ts',
      apply: (source) => {
        const typed = insertBefore('  state: { readonly state: StreamState };', `  /** The host sent ${spec.name} (${spec.summary}); only on a stream that negotiated ${spec.capability}. */\n  ${event}: ${json ? `PayloadOf<'${spec.name}'>` : 'Record<string, never>'};\n`)(source);
        return json && !typed.includes(payloadImport) ? payloadImport + typed : typed;
      },
    },
  ];
}

/** Every edit a new opcode needs, computed against `root`'s files; throws before writing anything when one cannot be made. */
export function planNewOpcode(root: string, spec: NewOpcode): { edits: Edit[]; code: number; stepName: string; stepFile: string } {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(spec.name)) throw new NewOpcodeError(`opcode name ${JSON.stringify(spec.name)} is not PascalCase (e.g. Bell)`);
  if (!/^[a-z][A-Za-z0-9]*$/.test(spec.capability)) throw new NewOpcodeError(`capability ${JSON.stringify(spec.capability)} is not camelCase (e.g. bell)`);
  if (allOpcodes().some((o) => o.name === spec.name)) throw new NewOpcodeError(`opcode ${spec.name} already exists in src/codec/opcodes.ts`);
  if (spec.capability in CAPABILITIES) throw new NewOpcodeError(`capability ${spec.capability} already exists: add ${spec.name} to its gatesOpcodes in src/capabilities/registry.ts by hand`);
  if (!(SCRIPT_STEP_NAMES as readonly string[]).includes(spec.after)) throw new NewOpcodeError(`--after ${spec.after} is not a step of the journey (SCRIPT_STEP_NAMES in compat/recording.ts)`);
  const stepName = lowerFirst(spec.name);
  if ((SCRIPT_STEP_NAMES as readonly string[]).includes(stepName)) throw new NewOpcodeError(`the journey already has a step named ${stepName}`);
  const history = JSON.parse(readFileSync(join(root, 'fixtures', 'wire-history.json'), 'utf8')) as { opcodes: Array<{ code: number }> };
  // The next number never used: retired opcodes keep theirs, in the table and in the history.
  const code = Math.max(...allOpcodes().map((o) => o.code), ...history.opcodes.map((o) => o.code)) + 1;
  const schema = `${stepName}Schema`;
  const stepFile = join('compat', 'journey', `${kebab(spec.name)}-step.ts`);
  const payload = spec.payload === 'json' ? `json(s.${schema})` : 'empty';
  const edits: Edit[] = [
    {
      file: 'src/capabilities/registry.ts',
      apply: insertBefore('} as const satisfies Record<string, CapabilitySpec>;', `  ${spec.capability}: {\n    since: 1,\n    gatesOpcodes: ['${spec.name}'] as readonly string[],\n    gatesFields: [] as readonly string[],\n    purpose: ${JSON.stringify(spec.summary)},\n  },\n`),
    },
    {
      file: 'src/codec/opcodes.ts',
      apply: insertBefore('} as const satisfies Record<string, OpcodeSpec>;', `  ${spec.name}: { code: ${code}, name: '${spec.name}', direction: '${spec.direction}', payload: ${payload}, gatedBy: '${spec.capability}', since: 1, seqMeaning: 'unused (0)', summary: ${JSON.stringify(spec.summary)} },\n`),
    },
    ...(spec.payload === 'json' ? [{ file: 'src/codec/schemas.ts', apply: insertBefore('\nexport type SubscribePayload', `\n/** ${spec.name}'s payload: every field .optional() (docs/adding-an-opcode.md, section 2). */\nexport const ${schema} = z.object({});\n`) }] : []),
    {
      file: 'scripts/golden-frames.ts',
      apply: insertBefore('\n];', `\n  { file: '${String(code).padStart(2, '0')}-${spec.name}', opcodeName: '${spec.name}', streamId: 1, seq: 0${spec.payload === 'json' ? ', payload: {}' : ''} },`, 'export const GOLDEN_FRAMES'),
    },
    { file: 'compat/journey/wire-view.ts', apply: replaceOnce(/ {2}opcode: \{[^}\n]*?(?= \})/, (line) => `${line}, ${spec.name}: ${code}`) },
    { file: 'compat/recording.ts', apply: replaceOnce(new RegExp(`(export const SCRIPT_STEP_NAMES = \\[[^\\]]*?\\n {2}'${spec.after}',\\n)`), (m) => `${m}  '${stepName}',\n`) },
    { file: 'compat/journey/script-journey.ts', apply: replaceOnce(/const SCRIPT_STEPS[^\n]*? \};/, (line) => line.replace(/ \};$/, `, ${stepName}: ${stepName}Step };`)) },
    { file: 'compat/journey/script-journey.ts', apply: insertBefore('\n/** Every step of the script', `import { ${stepName}Step } from './${kebab(spec.name)}-step.js';\n`) },
    {
      file: 'docs/compatibility.md',
      apply: replaceOnce(new RegExp(`\\n\\| ${spec.after} \\|[^\\n]*`), (row) => `${row}\n| ${stepName} | the ${spec.direction === 'hostToClient' ? 'host' : 'client'} is made to send ${spec.name} (${spec.summary}) in every pairing | a ${spec.name} frame on the driving client where ${spec.capability} is negotiated; elsewhere none may be sent (UNGATED_SEND_DROPPED) |`),
    },
    ...(spec.direction === 'hostToClient' ? clientMeaning(spec, stepName) : []),
  ];
  if (existsSync(join(root, stepFile))) throw new NewOpcodeError(`${stepFile} already exists`);
  return { edits, code, stepName, stepFile };
}

/** Applies every edit in memory first, so a missing anchor leaves every file as it was. */
export function writeNewOpcode(root: string, spec: NewOpcode): { code: number; stepName: string; stepFile: string; files: string[] } {
  const plan = planNewOpcode(root, spec);
  const texts = new Map<string, string>();
  for (const edit of plan.edits) {
    const before = texts.get(edit.file) ?? readFileSync(join(root, edit.file), 'utf8');
    try {
      texts.set(edit.file, edit.apply(before));
    } catch (error) {
      throw new NewOpcodeError(`${edit.file}: ${(error as Error).message}; nothing was written`);
    }
  }
  for (const [file, text] of texts) writeFileSync(join(root, file), text);
  writeFileSync(join(root, plan.stepFile), stepSource(spec, plan.stepName, plan.stepFile));
  return { ...plan, files: [...texts.keys(), plan.stepFile] };
}

function checklist(spec: NewOpcode, written: ReturnType<typeof writeNewOpcode>): string {
  const sender = spec.direction === 'hostToClient' ? 'the host: src/host/host-stream.ts (send only where hasCapability(this.negotiated, …)) and where the event comes from' : 'the client: src/client/stream.ts (send only where negotiated)';
  const receiver =
    spec.direction === 'hostToClient'
      ? `the client raises the event '${written.stepName}' with the payload (written: src/client/stream-receive.ts, src/client/stream-events.ts); write over it only if the frame means more to the client`
      : 'the host: src/host/host-connection.ts (the switch on opcodes)';
  return [
    `${spec.name} is opcode ${written.code}, gated by ${spec.capability}. Written: ${written.files.join(', ')}; npm run regen recorded it in fixtures/wire-history.json, fixtures/frames/ and docs/protocol.md.`,
    '',
    'Left to write by hand (docs/adding-an-opcode.md, rows 5 to 10):',
    ...(spec.payload === 'json' ? [`  - its payload's fields in src/codec/schemas.ts (${written.stepName}Schema), every one .optional()`] : []),
    `  - ${sender}`,
    ...(spec.direction === 'hostToClient' ? [`  - what bounds how often the host sends it: its row in src/host/send-bounds.ts (SEND_BOUNDS, the HostLimits option that bounds it, documented in docs/host-limits.md); the tree does not typecheck without it`] : []),
    `  - ${receiver}`,
    '  - a test beside that code (test/host/, test/client/), red with the logic taken out',
    `  - the step's act in ${written.stepFile} (in every pairing; the generated barrier expects the frame only where negotiated), and its row in the journey table of docs/compatibility.md if the default text is not what it does`,
    '  - a limit the new frame needs (how often a program can make the host send it): a HostLimits option in src/host/options.ts and its row in docs/host-limits.md',
    '  - a peer op if the step needs one (compat/peer/peer-ops.ts), and an explore move (compat/explore/moves.ts) if schedules should draw it',
    '',
    'Then: npm run build (the journey tests run the built peers), npm test, and npm run compat.',
  ].join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { capability: { type: 'string' }, direction: { type: 'string' }, payload: { type: 'string', default: 'empty' }, after: { type: 'string', default: 'title' }, summary: { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  if (values.help) return void console.log(USAGE);
  const [name] = positionals;
  if (!name || !values.capability || (values.direction !== 'hostToClient' && values.direction !== 'clientToHost') || (values.payload !== 'empty' && values.payload !== 'json')) {
    throw new NewOpcodeError(`needs NAME, --capability and --direction hostToClient|clientToHost (--payload empty|json)\n\n${USAGE}`);
  }
  const spec: NewOpcode = { name, capability: values.capability, direction: values.direction, payload: values.payload, after: values.after, summary: values.summary ?? `${name} (say what it is: --summary)` };
  const root = join(import.meta.dirname, '..');
  const written = writeNewOpcode(root, spec);
  execFileSync('npm', ['run', '--silent', 'regen'], { cwd: root, stdio: 'inherit' });
  console.log(checklist(spec, written));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main();
  } catch (error) {
    const badArgs = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!(error instanceof NewOpcodeError) && !badArgs) throw error;
    console.error(`new-opcode: ${(error as Error).message}`);
    process.exitCode = 2;
  }
}
