import { describe, expect, it } from 'vitest';
import { expectPassed, mqlab, runLabJson, startMqlab, useNamespace, useServices } from '../../test/helpers.js';
import type { PolicyInfo, QueueStats } from '../../src/broker/management.js';
import { firstLab } from '../../test/report.js';

const n = useNamespace(import.meta.url);

const SUMMARY_LINES = [
  'hold: targetUnbound=true targetEmpty=true',
  'hold: bindingRestored=true recoveredOriginalEvent=true noApplicationRepublish=true',
];
const SOURCE = n.q('me12.retry.hold');
const TARGET = n.q('me12.retry.hold.target');
const DLX = n.q('me12.retry.hold.dlx');
/** queue statistics lag behind the broker by up to ~10 s on an untuned broker */
const STATS_MS = 20_000;

const held = (q: QueueStats) => q.messages - q.ready - q.unacked;

describe('hold lab against the real broker', () => {
  const s = useServices();
  const policy = async (name = n.p('me12-hold')): Promise<PolicyInfo | undefined> =>
    (await s.mgmt.policies()).find((p) => p.name === name);
  const targetBound = async () =>
    (await s.mgmt.bindings()).some((b) => b.source === DLX && b.destination === TARGET && b.routing_key === 'failed');

  it('passes twice in a row; the policy exists while it runs and is gone after', async () => {
    for (let run = 1; run <= 2; run++) {
      const { child } = startMqlab(['hold']);
      let seen: PolicyInfo | undefined;
      while (!seen && child.exitCode === null) {
        seen = await policy();
        if (!seen) await new Promise((r) => setTimeout(r, 100));
      }
      const { exitCode, stdout, stderr } = await child;
      expectPassed(
        { code: exitCode ?? -1, stdout, stderr },
        {
          line: SUMMARY_LINES,
          pass: { sourceWhileHeld: 'messages=1 ready=0 unacked=0', targetDeliveries: '1', policyCleared: 'true' },
        },
      );
      // what the lab applied, as the broker stored it
      expect(seen).toMatchObject({
        pattern: n.exact(SOURCE),
        definition: {
          'dead-letter-strategy': 'at-least-once',
          overflow: 'reject-publish',
          'max-length': 100,
          'dead-letter-routing-key': 'failed',
          'dead-letter-exchange': DLX,
        },
      });
      // and after the run: policy cleared, binding restored, nothing held in the source, nothing left in the target
      expect(await policy()).toBeUndefined();
      expect(await targetBound()).toBe(true);
      expect(await s.broker.depth(TARGET)).toBe(0);
      const source = await s.mgmt.queueWhen(SOURCE, (q) => q.messages === 0 && q.policy === null, STATS_MS);
      expect(
        source && { messages: source.messages, ready: source.ready, unacked: source.unacked, policy: source.policy },
      ).toEqual({ messages: 0, ready: 0, unacked: 0, policy: null });
    }
  });

  it('recovers the very message it published, dead-lettered by the broker from the source', async () => {
    const { code, report } = await runLabJson('hold');
    expect(code).toBe(0);
    expect(report.facts.deathRecord).toMatchObject({ queue: SOURCE, reason: 'rejected', count: 1 });
    expect(report.facts.firstDeath).toEqual({ queue: SOURCE, reason: 'rejected' });
    expect(report.facts.targetDeliveries).toBe(1);
    // the letter stayed held at least the 2 s window
    expect(report.facts.holdMs).toBeGreaterThanOrEqual(2000);
    const published = report.events.filter((e) => e.source === 'producer');
    expect(published).toHaveLength(1);
  });

  it('a run killed while the letter is held leaves it held, and the next run still passes', async () => {
    const { child, stderrShows } = startMqlab(['hold']);
    await stderrShows('stays unbound', 30_000);
    child.kill('SIGKILL');
    await child;
    // what the killed run left: the policy, no binding, a letter held in the source
    expect(await policy()).toBeDefined();
    expect(await targetBound()).toBe(false);
    const left = await s.mgmt.queueWhen(SOURCE, (q) => held(q) >= 1, STATS_MS);
    expect(left && held(left)).toBe(1);

    const { code, report } = await runLabJson('hold');
    expect(code, JSON.stringify(report.checks.filter((c: { pass: boolean }) => !c.pass))).toBe(0);
    expect(report.facts.policyLeftByEarlierRun).toBe(true);
    expect(report.facts.otherLettersInTarget).toBe(0);
    expect(await policy()).toBeUndefined();
    // the earlier run's letter was dropped with its policy, not delivered late by the worker's timer:
    // once the source holds nothing, nothing is left to re-route, and the target must still be empty
    // (a re-routed letter reaches the target before the source lets it go)
    const source = await s.mgmt.queueWhen(SOURCE, (q) => q.messages === 0, STATS_MS);
    expect(source?.messages).toBe(0);
    expect(await s.broker.depth(TARGET)).toBe(0);
  });

  it('its policy cleared from outside at the letter-held pause: the lab says so from the source it reads, and stops waiting', async () => {
    const run = startMqlab(['hold', '--step', '--json']);
    try {
      await run.stderrShows('press Enter to continue', 60_000);
      expect(run.stderr()).toContain('── checkpoint 1: letter-held');
      // another client clears it, as Try this 2 does with `mqlab ctl clear_policy`
      await s.mgmt.deletePolicy(n.p('me12-hold'));
      // said during the pause, from the source's record and counters
      await run.stderrShows('was cleared from outside', 10_000);
      const said = `policy ${n.p('me12-hold')} was cleared from outside: the broker's record of ${SOURCE} names no policy now, and its counters show messages=0: the held letter was deleted with the policy, and nothing will reach the target`;
      expect(run.stderr()).toContain(said);
      // what it says is what the broker shows
      const source = await s.mgmt.queueNow(SOURCE);
      expect({ policy: source?.policy, messages: source?.messages }).toEqual({ policy: null, messages: 0 });
      // Enter: the lab does not wait for the dead-letter worker (--recover-timeout, 240 s) for a letter that is gone
      run.child.stdin?.end('\n'.repeat(5));
      const r = await run.exited(30_000);
      expect(r.exitCode, run.stderr()).toBe(1);
      const report = firstLab<{ policyClearedFromOutside: unknown }>(r.stdout);
      expect(report.lines?.[0]).toBe(`hold: ${said}`);
      expect(report.facts.policyClearedFromOutside).toMatchObject({ policy: null, messages: 0 });
      expect(report.checks.filter((c) => !c.pass).map((c) => c.name)).toContain('recoveredOriginalEvent');
      expect(run.stderr()).not.toContain('still waiting for the dead-letter worker');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGINT');
      await run.exited(30_000).catch(() => {});
    }
    // the next run passes
    expectPassed(await mqlab(['hold']), { line: SUMMARY_LINES });
  });

  it('--namespace applies its own policy to its own queue', async () => {
    const { code, report } = await runLabJson('hold', ['--namespace', 'i_hold']);
    expect(code).toBe(0);
    expect(report.facts.policy).toMatchObject({ name: 'i_hold-me12-hold', pattern: '^i_hold[.]me12[.]retry[.]hold$' });
    expect(await s.mgmt.queue('i_hold.me12.retry.hold')).not.toBeNull();
    expect(await policy('i_hold-me12-hold')).toBeUndefined();
  });

  it('refuses a bad --recover-timeout with a one-line usage error', async () => {
    const r = await mqlab(['hold', '--recover-timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--recover-timeout');
    expect(r.stdout).toBe('');
  });
});
