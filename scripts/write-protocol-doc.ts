/** `npm run docs:protocol`: re-renders the generated sections of docs/protocol.md in place. */
import { readFileSync, writeFileSync } from 'node:fs';
import { PROTOCOL_DOC_PATH, renderProtocolDoc } from './protocol-doc.js';

const current = readFileSync(PROTOCOL_DOC_PATH, 'utf8');
const next = renderProtocolDoc(current);
if (next === current) {
  console.log('docs/protocol.md is up to date');
} else {
  writeFileSync(PROTOCOL_DOC_PATH, next);
  console.log('docs/protocol.md updated');
}
