import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { parseStatus } from '../../test/report.js';

/** the facts these tests read */
interface DlxLoopFacts {
  [fact: string]: unknown;
  fixedGapsMs: number[];
}

const n = useNamespace(import.meta.url);

describe('dlx-loop lab against the real broker', () => {
  const s = useServices();

  it('passes twice in a row: the loop returns the message with growing x-death counts, the fix lets it leave', async () => {
    await expectLabPasses(['dlx-loop'], {
      line: /^dlx-loop: loopDetected=true xDeathCounts=\[1, 2, 3\] loopGapMaxMs=\d+ fixedLoopDetected=false leftLoopAfterAttempts=3 archived=1$/,
      pass: { xDeathCounts: '1,2,3', archived: '1', queueDepthAfter: '0' },
    });
  });

  it('the broker really holds the looped route, and every lab queue ends empty', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    const { code, report } = await runLabJson<DlxLoopFacts>('dlx-loop');
    expect(code).toBe(0);
    expect(report.facts.loopPath).toBe(
      `${n.q('dlxloop.business')} → ${n.q('dlxloop.dead')} → ${n.q('dlxloop.business')}`,
    );
    const business = await s.mgmt.queue(n.q('dlxloop.business'));
    expect(business?.arguments).toMatchObject({
      'x-dead-letter-exchange': n.q('dlxloop.dead'),
      'x-dead-letter-routing-key': 'rk.dead',
    });
    expect(await s.mgmt.bindings()).toContainEqual(
      expect.objectContaining({
        source: n.q('dlxloop.dead'),
        destination: n.q('dlxloop.business'),
        routing_key: 'rk.dead',
      }),
    );
    for (const q of [
      n.q('dlxloop.business'),
      n.q('dlxloop.fixed.business'),
      n.q('dlxloop.fixed.retry'),
      n.q('dlxloop.fixed.archive'),
    ])
      expect(await s.broker.depth(q)).toBe(0);
    // the retries of the fixed route waited for the TTL; the broken loop did not wait for anything
    expect(report.facts.fixedGapsMs.length).toBeGreaterThan(0);
    for (const gap of report.facts.fixedGapsMs) expect(gap).toBeGreaterThanOrEqual(200);
  });

  it('mqlab status flags the broken route and not the fixed one', async () => {
    const st = parseStatus((await mqlab(['status', '--json'])).stdout);
    const flagged = (st.loops ?? []).map((l) => l.path.join(' → '));
    expect(flagged).toContain(`${n.q('dlxloop.business')} → ${n.q('dlxloop.dead')} → ${n.q('dlxloop.business')}`);
    expect(flagged.filter((p) => p.includes('fixed'))).toEqual([]);
  });

  it('status --namespace lists that namespace’s loops only, not another namespace’s', async () => {
    // a loop of another namespace, made beside this one's (its name shares this file's prefix, not its `ns.`)
    const other = `${n.namespace}_other`;
    const ch = await s.broker.newChannel();
    try {
      await ch.assertExchange(`${other}.loop.dlx`, 'direct', { durable: true });
      await ch.assertQueue(`${other}.loop`, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': `${other}.loop.dlx`, 'x-dead-letter-routing-key': 'again' },
      });
      await ch.bindQueue(`${other}.loop`, `${other}.loop.dlx`, 'again');
      const loops = async (ns: string) => {
        const r = await mqlab(['status', '--namespace', ns]);
        return r.lines.filter((l) => l.trimStart().startsWith('LOOP '));
      };
      const mine = await loops(n.namespace);
      expect(
        mine.some((l) => l.includes(n.q('dlxloop.business'))),
        mine.join('\n'),
      ).toBe(true);
      expect(
        mine.every((l) => l.includes(`${n.namespace}.`)),
        mine.join('\n'),
      ).toBe(true);
      expect(mine.join('\n')).not.toContain(`${other}.loop`);
      const theirs = await loops(other);
      expect(theirs).toEqual([
        `  LOOP ${other}.loop → ${other}.loop.dlx → ${other}.loop  (no TTL hop: a dead letter comes straight back)`,
      ]);
    } finally {
      await ch.deleteQueue(`${other}.loop`);
      await ch.deleteExchange(`${other}.loop.dlx`);
      await ch.close();
    }
  });
});
