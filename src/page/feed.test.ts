import { describe, expect, it } from 'vitest';
import { LiveFeed } from './feed.js';

const waiting = (token: string) => ({ source: 'checkpoint', fields: { checkpoint: 'c', token, status: 'waiting' } });
const released = (token: string) => ({ source: 'checkpoint', fields: { checkpoint: 'c', token, status: 'released' } });

describe('the live feed releases a paused checkpoint', () => {
  const feed = () => {
    const f = new LiveFeed(() => {});
    f.labStarted({ lab: 'l', title: 't', topology: null, checkpoints: [], faults: [] });
    return f;
  };

  it('a Continue while the run waits on that token releases it; another token does not', async () => {
    const f = feed();
    f.event('l', waiting('t1'));
    const w = f.waitForRelease();
    expect(f.release('t0')).toBe(false);
    expect(f.release('t1')).toBe(true);
    await w.released;
    expect(f.release('t1')).toBe(false); // once
    f.flush();
  });

  it('a Continue that comes after the pause is shown but before the run waits on it is kept for that wait', async () => {
    const f = feed();
    f.event('l', waiting('t1'));
    expect(f.release('t1')).toBe(true);
    await f.waitForRelease().released; // resolves at once
    f.event('l', released('t1'));
    // the next pause is not released by it, nor by a stale Continue for the last one
    f.event('l', waiting('t2'));
    expect(f.release('t1')).toBe(false);
    const w = f.waitForRelease();
    const state = await Promise.race([
      w.released.then(() => 'released'),
      new Promise((r) => setTimeout(r, 50, 'waiting')),
    ]);
    expect(state).toBe('waiting');
    w.cancel();
    f.flush();
  });
});
