import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import { LocalScreen } from './screen.js';

afterEach(() => vi.restoreAllMocks());

describe('a local screen that is disposed', () => {
  it('hands its terminal to the next local screen of its size, and keeps showing its own last screen', async () => {
    const take = vi.spyOn(screenTerminals, 'take');
    const give = vi.spyOn(screenTerminals, 'give');
    const screen = new LocalScreen(20, 4, 10);
    screen.write('mine\r\n');
    screen.dispose(); // the terminal goes back once what was queued is parsed
    await waitFor(() => give.mock.calls.length === 1, { what: 'the disposed screen giving its terminal back' });
    await screenTerminals.whenIdle();
    const next = new LocalScreen(20, 4, 10);
    expect(take.mock.results[1]?.value).toBeDefined();
    expect(take.mock.results[1]?.value).toBe(give.mock.calls[0]?.[0]);
    next.resize(30, 6);
    next.write('theirs');
    await next.whenIdle();
    expect(next.lines()[0]).toBe('theirs');
    expect([screen.lines(), screen.cols, screen.rows]).toEqual([['mine', '', '', ''], 20, 4]);
    next.dispose();
  });
});
