import { describe, expect, it } from 'vitest';
import { deadLetterTarget, findDeadLetterLoops, topicMatches, type Binding, type QueueNode } from './dlx-graph.js';

const q = (
  name: string,
  args: Record<string, unknown> = {},
  policy: Record<string, unknown> | null = null,
): QueueNode => ({ name, arguments: args, policy });
const bind = (
  source: string,
  destination: string,
  routing_key: string,
  destination_type: 'queue' | 'exchange' = 'queue',
): Binding => ({ source, destination, routing_key, destination_type });

describe('dead-letter loop detection', () => {
  it('flags a queue whose DLX routes straight back into it', () => {
    const loops = findDeadLetterLoops(
      [q('work', { 'x-dead-letter-exchange': 'dlx', 'x-dead-letter-routing-key': 'work' })],
      [{ name: 'dlx', type: 'direct' }],
      [bind('dlx', 'work', 'work')],
    );
    expect(loops).toEqual([{ queue: 'work', path: ['work', 'dlx', 'work'] }]);
  });

  it('does not flag the retry topology: the cycle passes a TTL queue', () => {
    const queues = [
      q('orders.work', { 'x-dead-letter-exchange': 'retry', 'x-dead-letter-routing-key': 'r' }),
      q('orders.retry', {
        'x-message-ttl': 1000,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': 'orders.work',
      }),
    ];
    expect(
      findDeadLetterLoops(queues, [{ name: 'retry', type: 'direct' }], [bind('retry', 'orders.retry', 'r')]),
    ).toEqual([]);
  });

  it('follows the default exchange, keeps the original key when no DLX key is set, and passes exchange-to-exchange bindings', () => {
    expect(findDeadLetterLoops([q('a', { 'x-dead-letter-exchange': '' })], [], [])).toEqual([
      { queue: 'a', path: ['a', '(default exchange)', 'a'] },
    ]);
    const queues = [
      q('a', { 'x-dead-letter-exchange': 'x1' }),
      q('b', { 'x-dead-letter-exchange': 'x1', 'x-dead-letter-routing-key': 'k.a' }),
    ];
    const loops = findDeadLetterLoops(
      queues,
      [
        { name: 'x1', type: 'topic' },
        { name: 'x2', type: 'fanout' },
      ],
      [bind('x1', 'x2', 'k.#', 'exchange'), bind('x2', 'b', ''), bind('ingress', 'a', 'k.a')],
    );
    // a's dead letters keep key k.a and reach b; b's come back to b, never to a
    expect(loops.map((l) => l.path.join(' → '))).toEqual(['b → x1 → x2 → b']);
  });

  it('finds a loop through two queues without TTL, and reads the DLX from a policy', () => {
    const queues = [
      q('a', {}, { 'dead-letter-exchange': 'dx', 'dead-letter-routing-key': 'b' }),
      q('b', { 'x-dead-letter-exchange': 'dx', 'x-dead-letter-routing-key': 'a' }),
    ];
    const loops = findDeadLetterLoops(
      queues,
      [{ name: 'dx', type: 'direct' }],
      [bind('dx', 'a', 'a'), bind('dx', 'b', 'b')],
    );
    expect(loops).toEqual([
      { queue: 'a', path: ['a', 'dx', 'b', 'dx', 'a'] },
      { queue: 'b', path: ['b', 'dx', 'a', 'dx', 'b'] },
    ]);
  });

  it('a queue argument wins over the policy; no DLX means no route', () => {
    expect(deadLetterTarget(q('a', { 'x-dead-letter-exchange': 'argx' }, { 'dead-letter-exchange': 'polx' }))).toEqual({
      exchange: 'argx',
      key: null,
    });
    expect(deadLetterTarget(q('a'))).toBeNull();
  });

  it('matches topic patterns', () => {
    expect(topicMatches('orders.*', 'orders.created')).toBe(true);
    expect(topicMatches('orders.*', 'orders.created.v1')).toBe(false);
    expect(topicMatches('#', 'a.b')).toBe(true);
    expect(topicMatches('a.#.z', 'a.z')).toBe(true);
    expect(topicMatches('a.#.z', 'a.b.c.z')).toBe(true);
  });
});

describe('at scale (security review D8: 10,000 queues took 91 s, 20,000 ran out of memory)', () => {
  /** every second queue dead-letters to a fanout exchange bound to the others (or, with `loop`, all of them) */
  const fanout = (n: number, loop: boolean) =>
    findDeadLetterLoops(
      Array.from({ length: n }, (_, i) => q(`q${i}`, { 'x-dead-letter-exchange': loop || i % 2 ? 'dlx' : 'none' })),
      [{ name: 'dlx', type: 'fanout' }],
      Array.from({ length: n / 2 }, (_, i) => bind('dlx', `q${2 * i}`, '')),
    );
  const cpuMs = (f: () => unknown) => {
    const cpu = process.cpuUsage(); // CPU time: the machine may be busy with other work
    f();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };

  it('10,000 queues through a fanout exchange: linear in the graph', () => {
    expect(cpuMs(() => expect(fanout(10_000, false)).toEqual([]))).toBeLessThan(3000);
  });

  it('a loop of 5,000 queues: each with a way round, in linear time', () => {
    let loops: ReturnType<typeof findDeadLetterLoops> = [];
    expect(cpuMs(() => (loops = fanout(10_000, true)))).toBeLessThan(3000);
    expect(loops).toHaveLength(5000);
    expect(loops[0]).toEqual({ queue: 'q0', path: ['q0', 'dlx', 'q0'] });
    expect(loops[1]?.path).toEqual(['q2', 'dlx', 'q2']);
  });
});
