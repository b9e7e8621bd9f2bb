import { describe, expect, it } from 'vitest';
import { InstanceWatch } from './attach-instance-watch.js';

describe('InstanceWatch', () => {
  it('reports a new instance id behind the same name, and not the first one or a repeat', () => {
    const watch = new InstanceWatch();
    expect(watch.changed({ instanceId: 'a' })).toBe(false);
    expect(watch.changed({ instanceId: 'a' })).toBe(false);
    expect(watch.changed({ instanceId: 'b' })).toBe(true);
    expect(watch.changed({ instanceId: 'b' })).toBe(false);
  });

  it('says nothing when the host sends no instance id, or not a string', () => {
    const watch = new InstanceWatch();
    expect(watch.changed({})).toBe(false);
    expect(watch.changed({ instanceId: 7 })).toBe(false);
    expect(watch.changed({ instanceId: 'a' })).toBe(false);
    expect(watch.changed({})).toBe(false);
    expect(watch.changed({ instanceId: 'a' })).toBe(false);
  });
});
