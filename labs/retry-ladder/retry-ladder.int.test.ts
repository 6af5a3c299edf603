import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { deadLetterHistory } from '../../src/kit/xdeath.js';

/** the facts these tests read */
interface LadderMessage {
  tiersMs: number[];
  gapsMs: number[];
  decisions: string[];
}
interface LadderFacts {
  messages: Record<'exhausted' | 'recovers' | 'parked', LadderMessage>;
  floorMs: number;
}

const DEFAULT_LINE =
  'retry-ladder: tiersMs=[200, 400, 800] recoveredAttempts=[1, 2, 3] exhaustedAttempts=[1, 2, 3, 4] parkedAttempts=[1, 2] ' +
  'parkedReason=deadline businessRows=1 dlq=1 parking=1 lost=0';
const WIDE = ['--base-ms', '100', '--max-delay-ms', '250', '--max-attempts', '5', '--call-budget-ms', '50'];
const WIDE_LINE =
  'retry-ladder: tiersMs=[100, 200, 250, 250] recoveredAttempts=[1, 2, 3] exhaustedAttempts=[1, 2, 3, 4, 5] parkedAttempts=[1, 2] ' +
  'parkedReason=deadline businessRows=1 dlq=1 parking=1 lost=0';

const NS = useNamespace(import.meta.url).namespace;
const q = (name: string, ns = NS) => (ns ? `${ns}.${name}` : name);
const delayQueue = (ttl: number, ns = NS) => q(`me12.ladder.delay.${ttl}ms`, ns);

describe('retry-ladder lab against the real broker and database', () => {
  const s = useServices();

  /** what a settled run leaves: one business row, one message in the DLQ, one in parking, nothing in flight */
  async function expectSettled(tierTtls: number[], maxAttempts: number, ns = NS) {
    const rows =
      await s.db`SELECT event_id, attempt FROM ${s.db(ns ? `${ns}_retry_ladder_effect` : 'retry_ladder_effect')} ORDER BY event_id`;
    expect(rows.map((r) => ({ ...r }))).toEqual([{ event_id: 'recovers', attempt: 3 }]);
    for (const name of [q('me12.ladder.work', ns), ...tierTtls.map((t) => delayQueue(t, ns))])
      expect(await s.broker.depth(name), name).toBe(0);
    expect(await s.broker.depth(q('me12.ladder.dlq', ns))).toBe(1);
    expect(await s.broker.depth(q('me12.ladder.parking', ns))).toBe(1);

    const dead = await s.broker.get(q('me12.ladder.dlq', ns));
    const parked = await s.broker.get(q('me12.ladder.parking', ns));
    try {
      expect(dead?.messageId).toBe('exhausted');
      expect(dead?.headers.attempt).toBe(maxAttempts); // the application's own count, not x-death
      const deaths = deadLetterHistory(dead?.headers);
      expect(deaths.find((e) => e.reason === 'rejected')).toMatchObject({ queue: q('me12.ladder.work', ns), count: 1 });
      // it reached its last attempt out of the highest tier
      expect(deaths.find((e) => e.reason === 'expired')?.queue).toBe(delayQueue(tierTtls.at(-1) ?? NaN, ns));
      expect(parked?.messageId).toBe('parked');
      expect(parked?.headers).toMatchObject({ 'parked-reason': 'deadline', 'parked-after-attempt': 2, attempt: 2 });
      // before its retry, or on arrival when the first attempt was handled late (a busy machine): both on attempt 2
      expect(['before-retry', 'on-arrival']).toContain(parked?.headers['parked-stage']);
      expect(Number(parked?.headers['deadline-at'])).toBeLessThan(Date.now());
    } finally {
      dead?.nack(true);
      parked?.nack(true);
    }
  }

  it('passes twice in a row with the default ladder; rows and queues show where every message ended', async () => {
    await expectLabPasses(['retry-ladder'], {
      line: DEFAULT_LINE,
      pass: {
        exhaustedTiersMs: '200,400,800',
        placement: '{"recovers":"business","exhausted":"dlq","parked":"parking"}',
        leftInFlight: '0',
      },
      check: () => expectSettled([200, 400, 800], 4),
    });
  });

  it('waits at least each tier, whatever an earlier run left', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    // leftovers of an interrupted run: a message in every queue, stale rows
    for (const name of [q('me12.ladder.work'), delayQueue(800), q('me12.ladder.dlq'), q('me12.ladder.parking')])
      await s.broker.sendConfirmed(name, 'stale', { messageId: 'exhausted', headers: { attempt: 9 } });
    await s.db`INSERT INTO ${s.db(`${NS}_retry_ladder_effect`)} (event_id, attempt) VALUES ('exhausted', 9), ('stale', 1) ON CONFLICT DO NOTHING`;

    const { code, report } = await runLabJson<LadderFacts>('retry-ladder');
    expect(code, JSON.stringify(report.checks)).toBe(0);
    const m = report.facts.messages;
    expect(m.exhausted.tiersMs).toEqual([200, 400, 800]);
    expect(m.exhausted.gapsMs).toHaveLength(3); // four attempts, three waits
    m.exhausted.gapsMs.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(m.exhausted.tiersMs[i] ?? Infinity));
    expect(m.recovers.gapsMs[0]).toBeGreaterThanOrEqual(200);
    expect(m.recovers.gapsMs[1]).toBeGreaterThanOrEqual(400);
    expect(m.parked.decisions).toEqual(['retry', expect.stringMatching(/^park/)]);
    expect(report.facts.floorMs).toBe(1400);
    await expectSettled([200, 400, 800], 4);
  });

  it('declares one quorum delay queue per tier, each with one fixed TTL, dead-lettering to the work exchange', async () => {
    for (const ttl of [200, 400, 800])
      expect(await s.mgmt.queue(delayQueue(ttl))).toMatchObject({
        type: 'quorum',
        arguments: {
          'x-message-ttl': ttl,
          'x-dead-letter-exchange': q('me12.ladder.business'),
          'x-dead-letter-routing-key': 'work',
        },
      });
    expect(await s.mgmt.queue(q('me12.ladder.work'))).toMatchObject({
      arguments: { 'x-dead-letter-exchange': q('me12.ladder.dead'), 'x-dead-letter-routing-key': 'exhausted' },
    });
    const bindings = await s.mgmt.bindings();
    const has = (source: string, destination: string, routing_key: string) =>
      expect(bindings).toContainEqual(expect.objectContaining({ source, destination, routing_key }));
    has(q('me12.ladder.business'), q('me12.ladder.work'), 'work');
    for (const ttl of [200, 400, 800]) has(q('me12.ladder.retry'), delayQueue(ttl), `${ttl}ms`);
    has(q('me12.ladder.dead'), q('me12.ladder.dlq'), 'exhausted');
    has(q('me12.ladder.dead'), q('me12.ladder.parking'), 'parked');
  });

  it('builds the ladder from the options: a capped tier is shared, and max attempts is honoured', async () => {
    await expectLabPasses(['retry-ladder', ...WIDE], {
      line: WIDE_LINE,
      pass: { exhaustedTiersMs: '100,200,250,250', exhaustedAttempts: '1,2,3,4,5' },
      runs: 1,
    });
    expect(await s.mgmt.queue(delayQueue(250))).toMatchObject({ arguments: { 'x-message-ttl': 250 } });
    await expectSettled([100, 200, 250], 5);
  });

  it('keeps a namespaced run apart: its own queues and its own table', async () => {
    const r = await mqlab(['retry-ladder', '--namespace', 'i_ladder']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    await expectSettled([200, 400, 800], 4, 'i_ladder');
  });

  it.each([
    [['--max-attempts', '2'], /--max-attempts must be a whole number from 3 to 10, got '2'/],
    [['--base-ms', 'soon'], /--base must be a duration .*, got 'soon'/],
    [['--base', '1s'], /--max-delay \(800ms\) must be at least --base \(1000ms\)/],
  ])('refuses %j as a usage error (exit 2, one line)', async (args, message) => {
    const r = await mqlab(['retry-ladder', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
