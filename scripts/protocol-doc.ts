/**
 * Renders the generated parts of docs/protocol.md from the code that defines
 * them (OPCODES, CAPABILITIES, the error codes, the default limits). Pure: the
 * hand-written prose passes through untouched, only the text between the
 * GENERATED markers is replaced, so a test can tell when the doc is stale.
 */
import { CAPABILITIES } from '../src/capabilities/index.js';
import {
  allOpcodes,
  DEFAULT_DEFRAMER_OPTIONS,
  DEFAULT_JSON_LIMITS,
  type DeframerOptions,
  ENCODE_ERROR_CODES,
  type JsonLimits,
  type OpcodeSpec,
  WIRE_ERROR_CODES,
} from '../src/codec/index.js';

export const PROTOCOL_DOC_PATH = new URL('../docs/protocol.md', import.meta.url);

const DIRECTION_LABEL: Record<OpcodeSpec['direction'], string> = { hostToClient: 'host→client', clientToHost: 'client→host' };

/** One line per limit; keyed by the defaults object so a new option without a line fails to compile. */
const LIMIT_DOCS: { readonly [K in keyof JsonLimits | Exclude<keyof DeframerOptions, 'allocate' | 'reusedBufferBytes'>]: string } = {
  maxJsonBytes: 'largest JSON payload accepted (PAYLOAD_TOO_LARGE)',
  maxJsonTokens: 'most structural JSON tokens `{ } [ ] , :` accepted (JSON_TOO_MANY_TOKENS)',
  maxJsonDepth: 'deepest nesting of objects and arrays accepted (JSON_TOO_DEEP)',
  maxFrameBytes: 'largest frame (header + payload) a byte-stream length prefix may declare (FRAME_TOO_LARGE)',
};

function cell(value: string): string {
  return value.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n} (${n / (1024 * 1024)} MiB)`;
  if (n >= 1024 && n % 1024 === 0) return `${n} (${n / 1024} Ki)`;
  return String(n);
}

function payloadLabel(spec: OpcodeSpec): string {
  switch (spec.payload.kind) {
    case 'text':
      return 'UTF-8 text';
    case 'json':
      return 'JSON';
    case 'flag':
      return 'empty or one flag byte';
    case 'empty':
      return 'empty';
  }
}

function renderOpcodes(): string {
  const rows = allOpcodes().map((spec) => [
    String(spec.code),
    spec.retired ? `~~${spec.name}~~ (retired)` : spec.name,
    DIRECTION_LABEL[spec.direction],
    payloadLabel(spec),
    spec.gatedBy ? `\`${spec.gatedBy}\`` : '—',
    String(spec.since),
    spec.seqMeaning,
    spec.summary,
  ]);
  return table(['#', 'opcode', 'direction', 'payload', 'gated by', 'since', 'seq means', 'summary'], rows);
}

function renderCapabilities(): string {
  const list = (items: readonly string[]) => (items.length ? items.map((i) => `\`${i}\``).join(', ') : '—');
  const rows = Object.entries(CAPABILITIES).map(([name, cap]) => [`\`${name}\``, String(cap.since), list(cap.gatesOpcodes), list(cap.gatesFields), cap.purpose]);
  return table(['capability', 'since', 'gates opcodes', 'gates fields', 'purpose'], rows);
}

function renderErrors(): string {
  const wire = Object.entries(WIRE_ERROR_CODES).map(([code, e]) => [`\`${code}\``, String(e.since), e.meaning]);
  const encode = Object.entries(ENCODE_ERROR_CODES).map(([code, meaning]) => [`\`${code}\``, meaning]);
  return [
    '`WireError` (the peer sent something this build refuses; data, never a crash):',
    '',
    table(['code', 'since', 'meaning'], wire),
    '',
    '`FrameEncodeError` (this side tried to send a frame a peer would misread; a bug here):',
    '',
    table(['code', 'meaning'], encode),
  ].join('\n');
}

function renderLimits(): string {
  const defaults: Record<string, number> = { ...DEFAULT_JSON_LIMITS, maxFrameBytes: DEFAULT_DEFRAMER_OPTIONS.maxFrameBytes };
  const rows = Object.entries(LIMIT_DOCS).map(([name, doc]) => [`\`${name}\``, formatBytes(defaults[name]!), doc]);
  return table(['limit', 'default', 'what it bounds'], rows);
}

/** Each generated section, by the name used in its markers. */
export const GENERATED_SECTIONS: Readonly<Record<string, () => string>> = {
  limits: renderLimits,
  opcodes: renderOpcodes,
  capabilities: renderCapabilities,
  errors: renderErrors,
};

const begin = (name: string) => `<!-- BEGIN GENERATED ${name}: edit the code, then run \`npm run docs:protocol\` -->`;
const end = (name: string) => `<!-- END GENERATED ${name} -->`;

/** Returns `doc` with every generated section re-rendered; throws if a marker is missing. */
export function renderProtocolDoc(doc: string): string {
  let out = doc;
  for (const [name, render] of Object.entries(GENERATED_SECTIONS)) {
    const start = out.indexOf(begin(name));
    const stop = out.indexOf(end(name));
    if (start < 0 || stop < start) throw new Error(`docs/protocol.md lacks the markers for the generated "${name}" section: ${begin(name)} ... ${end(name)}`);
    out = `${out.slice(0, start + begin(name).length)}\n\n${render()}\n\n${out.slice(stop)}`;
  }
  return out;
}

