import { describe, expect, it } from 'vitest';
import { applySteps, askedParts, matches, variantTopology, type Variants } from './variant.js';
import type { LabEvent } from '../log/events.js';
import type { Names } from '../core/names.js';
import type { Topology } from '../broker/topology.js';

interface Steps {
  route: string;
  next(a: number): number;
}
const correct: Steps = { route: 'delay', next: (a) => a + 1 };
const ctx = { suffix: '-x' };
const variants: Variants<Steps, string, typeof ctx> = {
  'skip-delay': () => ({ route: 'work' }),
  'skip-attempt': () => ({ next: (a) => a + 2 }),
  'also-route': () => ({ route: 'elsewhere' }),
  'route-suffix': (s, c) => ({ route: `${s.route}${c.suffix}` }),
  'on-event': { after: { source: 'consumer', status: 'acked' }, run: () => {} },
};
const steps = (...asked: string[]) => applySteps(correct, askedParts<Steps, typeof ctx>(variants, new Set(asked)), ctx);

describe('broken variants (src/lab/variant.ts)', () => {
  it('without a variant asked for, the steps are the correct ones themselves', () => {
    expect(steps()).toBe(correct);
    expect(askedParts(variants, new Set())).toEqual([]);
  });
  it('replaces only the steps of the asked-for variants', () => {
    const s = steps('skip-attempt');
    expect([s.route, s.next(1)]).toEqual(['delay', 3]);
  });
  it('applies variants in the order variants.ts lists them: a later one wins on the same step', () => {
    expect(steps('skip-delay', 'skip-attempt').route).toBe('work');
    expect(steps('also-route', 'skip-delay').route).toBe('elsewhere');
  });
  it('hands a variant the steps as applied so far, and the context', () => {
    expect(steps('skip-delay', 'route-suffix').route).toBe('work-x');
  });
  it('a variant of parts replaces no step', () => {
    expect(steps('on-event')).toEqual(correct);
    expect(askedParts(variants, new Set(['on-event']))).toEqual([variants['on-event']]);
  });
  it('matches an event by its source, its process and its fields, as the log prints them', () => {
    const e: LabEvent = { source: 'consumer', process: 'consumer-1', fields: { status: 'acked', attempt: '3' } };
    expect(matches({ source: 'consumer', status: 'acked' }, e)).toBe(true);
    expect(matches({ attempt: 3, process: 'consumer-1' }, e)).toBe(true);
    expect(matches({ source: 'dlq', status: 'acked' }, e)).toBe(false);
    expect(matches({ status: 'acked', messageId: 'x' }, e)).toBe(false);
  });
  it('changes the topology with each asked-for variant, in order', () => {
    const t: Topology = { queues: [{ name: 'q', args: { 'x-message-ttl': 1 } }] };
    const parts = [
      { topology: (x: Topology) => ({ ...x, queues: [...x.queues, { name: 'r' }] }) },
      { topology: (x: Topology) => ({ ...x, queues: x.queues.filter((q) => q.name !== 'q') }) },
    ];
    expect(variantTopology(t, parts, {} as Names).queues.map((q) => q.name)).toEqual(['r']);
    expect(t.queues).toHaveLength(1);
  });
});
