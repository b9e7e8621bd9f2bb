import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_DOC_PATH, renderProtocolDoc } from '../../scripts/protocol-doc.js';
import { allOpcodes, WIRE_ERROR_CODES } from './index.js';

const onDisk = readFileSync(PROTOCOL_DOC_PATH, 'utf8');

describe('docs/protocol.md', () => {
  it('is up to date with the opcode, capability and error tables', () => {
    expect(renderProtocolDoc(onDisk) === onDisk, 'docs/protocol.md is out of date: run `npm run docs:protocol`').toBe(true);
  });

  it('lists every opcode and error code', () => {
    for (const spec of allOpcodes()) expect(onDisk).toContain(`| ${spec.code} | ${spec.name} |`);
    for (const code of Object.keys(WIRE_ERROR_CODES)) expect(onDisk).toContain(`\`${code}\``);
  });

  it('notices a stale generated table and keeps the prose', () => {
    const stale = onDisk.replace('| 18 | InputAck |', '| 18 | InputAcknowledge |').replace('## Byte streams', '## Byte streams (edited by hand)');
    const rendered = renderProtocolDoc(stale);
    expect(rendered).not.toBe(stale);
    expect(rendered).toContain('| 18 | InputAck |');
    expect(rendered).toContain('## Byte streams (edited by hand)');
  });

  it('names the missing marker when a generated section was deleted', () => {
    const broken = onDisk.replace(/<!-- END GENERATED errors -->/, '');
    expect(() => renderProtocolDoc(broken)).toThrow(/generated "errors" section/);
  });
});
