/** A value as one short line for a log: strings quoted, objects as JSON, long ones cut. */
export function brief(value: unknown, max = 160): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function xmlEscape(s: string): string {
  // Characters XML 1.0 forbids outright are dropped; the rest escaped.
  return s
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** GitHub workflow-command escaping: data, and the stricter one for properties. */
export const ghData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
export const ghProperty = (s: string) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
