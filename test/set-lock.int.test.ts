/**
 * The set lock on the services mqlab started (src/services/set-lock.ts): two db-outage runs started
 * together take PostgreSQL down one after the other, the second saying what it waits for; a lab
 * started during the outage waits for its end instead of failing; --no-wait is one line and exit 2.
 */
import { describe, expect, it } from 'vitest';
import { mqlab, startMqlab, upAgainAfterFailure, useNamespace } from './helpers.js';

useNamespace(import.meta.url);
upAgainAfterFailure();

describe('one set of services, runs that stop a service and runs that use it', () => {
  it('two db-outage at once pass one after the other; retry and compensate meanwhile wait and pass; --no-wait exits 2', async () => {
    // a long outage (20 s), so the others reach the lock while it lasts, however slowly they start
    const first = startMqlab(['db-outage', '--down', '20s']);
    await first.stderrShows('db-outage: stopping PostgreSQL', 120_000);
    const second = startMqlab(['db-outage']);
    const ordinary = startMqlab(['retry']);
    await second.stderrShows(`waiting for db-outage (pid ${first.child.pid}) to`, 30_000);
    await ordinary.stderrShows(`retry: waiting for db-outage (pid ${first.child.pid})`, 30_000);
    const refused = await mqlab(['compensate', '--no-wait']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /^mqlab: the services of .+ are busy: waiting for db-outage \(pid \d+\) .+\n {2}→ .+$/,
    );
    const [a, b, c] = await Promise.all([first.exited(300_000), second.exited(300_000), ordinary.exited(300_000)]);
    for (const r of [a, b, c]) expect(r.exitCode, `${r.stdout}${r.stderr}`).toBe(0);
    expect(b.stderr).toMatch(/db-outage: got the services after \d+ s/);
    const after = await mqlab(['compensate', '--no-wait']);
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });
});
