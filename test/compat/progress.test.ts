import { describe, expect, it } from 'vitest';
import { createProgress } from '../../compat/progress.js';

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { stream: { isTTY, write: (s: string) => out.push(s) }, text: () => out.join('') };
}
let t = 0;
const now = () => (t += 1500);

describe('progress reporter', () => {
  it('plain lines, no escapes, when not a TTY (CI logs)', () => {
    const s = sink(false);
    const p = createProgress({ stream: s.stream, env: {}, now });
    const step = p.step('build baseline');
    step.update('npm ci');
    step.done('reused');
    expect(s.text()).not.toContain('\x1b');
    expect(s.text()).not.toContain('\r');
    expect(s.text().split('\n')).toEqual(['… build baseline', '… build baseline: npm ci', '✓ build baseline: reused (1.5s)', '']);
  });

  it('one updating line with color on a TTY; NO_COLOR removes the color but keeps the line', () => {
    const colored = sink(true);
    createProgress({ stream: colored.stream, env: {}, now }).step('resolve').done();
    expect(colored.text()).toContain('\r\x1b[2K');
    expect(colored.text()).toContain('\x1b[32m');
    const plain = sink(true);
    createProgress({ stream: plain.stream, env: { NO_COLOR: '1' }, now }).step('resolve').fail();
    expect(plain.text()).toContain('\r\x1b[2K');
    expect(plain.text()).not.toMatch(/\x1b\[\d+m/);
  });

  it('a step that judged something prints ✓ only when it found nothing', () => {
    const s = sink(false);
    const p = createProgress({ stream: s.stream, env: {}, now });
    p.step('journeys against v0.1.0').found(7);
    p.step('static rules against v0.1.0').found(0);
    const [withFindings, clean] = s.text().split('\n').filter((l) => !l.startsWith('…'));
    expect(withFindings).toMatch(/^! journeys against v0\.1\.0: 7 finding\(s\) \(/);
    expect(clean).toMatch(/^✓ static rules against v0\.1\.0: no findings/);
  });
});
