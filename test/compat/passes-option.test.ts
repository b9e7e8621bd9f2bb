import { describe, expect, it } from 'vitest';
import { passesOption } from '../../compat/cli.js';
import { rulesRunOverWholeJourney } from '../../compat/run-gate.js';
import { activeRules } from '../../compat/rules/catalog.js';

describe('--passes, parsed and applied', () => {
  it('naming every pass is no restriction; leaving one out is', () => {
    expect(passesOption(undefined)).toEqual({});
    expect(passesOption('script,pty,restart,stream,lifetime')).toEqual({});
    expect(passesOption('script,restart').passes).toEqual(new Set(['script', 'restart']));
  });

  it('with passes left out, no dynamic rule can prove an acknowledgement stale; the static rules still can', () => {
    const all = [...activeRules('static'), ...activeRules('dynamic')].map((r) => r.id);
    expect(rulesRunOverWholeJourney(all, undefined)).toEqual(all);
    const limited = rulesRunOverWholeJourney(all, new Set(['script']));
    expect(limited).toEqual(activeRules('static').map((r) => r.id));
    expect(limited).not.toContain('JOURNEY_STALLED');
  });
});
