import { frameRefused } from '../rules/dynamic/journey-outcome-rules.js';
import type { Finding } from '../rules/finding.js';

/**
 * For a FRAME_REFUSED finding, the field and the schema error in words (the
 * decoder's message is `CODE: path: error`); undefined for other findings.
 */
export function refusalDetail(f: Finding): string | undefined {
  const by = f.evidence.refusedBy as { code?: string; message?: string } | undefined;
  if (f.ruleId !== frameRefused.id || !by?.message) return undefined;
  const text = by.message.replace(/^[A-Z_]+: /, '');
  if (by.code === 'SCHEMA_MISMATCH') {
    const m = /^([^:]+): (.*)$/s.exec(text);
    if (m) return m[1] === '(root)' ? `the ${f.subject} payload does not match the receiver's schema: ${m[2]}` : `field ${f.subject}.${m[1]}: ${m[2]}`;
  }
  return text;
}
