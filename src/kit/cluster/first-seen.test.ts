/** firstSeen: the watch the cluster labs hold a fault by returns by its deadline, whatever its probe does. */
import { describe, expect, it } from 'vitest';
import { firstSeen } from './leader-stream.js';

const never = () => new Promise<boolean>(() => {});

describe('firstSeen', () => {
  it('answers null at its deadline while a probe hangs (a call waiting on a cut-off node)', async () => {
    const start = Date.now();
    expect(await firstSeen(never, start + 300)).toBeNull();
    const took = Date.now() - start;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
  });

  it('gives the time of the first probe that holds, polling every 250 ms', async () => {
    let probes = 0;
    const start = Date.now();
    const at = await firstSeen(() => Promise.resolve(++probes === 3), start + 10_000);
    expect(probes).toBe(3);
    expect(at! - start).toBeGreaterThanOrEqual(490);
  });

  it('counts a failed probe as a no', async () => {
    let probes = 0;
    const at = await firstSeen(() => {
      probes++;
      return Promise.reject(new Error('no answer'));
    }, Date.now() + 600);
    expect(at).toBeNull();
    expect(probes).toBeGreaterThanOrEqual(2);
  });
});
