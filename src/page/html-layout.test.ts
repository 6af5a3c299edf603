import { describe, expect, it } from 'vitest';
import {
  formatMs,
  journeys,
  laneKey,
  lanes,
  markKind,
  stackRows,
  tickStep,
  timeScale,
  type TimelineEvent,
} from './html-layout.js';
import { must } from '../core/must.js';

const ev = (source: string, ms: number, fields: Record<string, string> = {}, process?: string): TimelineEvent => ({
  source,
  ...(process ? { process } : {}),
  timestamp: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
  ...fields,
  line: `[${source}] …`,
});

describe('time → x', () => {
  it('maps the run window linearly onto the drawing, and a zero-length run onto its left edge', () => {
    const x = timeScale(1000, 3000, 100, 1100);
    expect([x(1000), x(2000), x(3000)]).toEqual([100, 600, 1100]);
    expect(timeScale(5, 5, 100, 1100)(5)).toBe(100);
  });

  it('picks ticks of 1, 2 or 5 × 10^k ms and labels them in ms or s', () => {
    expect(tickStep(1200, 12)).toBe(100);
    expect(tickStep(3070, 12)).toBe(500);
    expect(tickStep(45_000, 10)).toBe(5000);
    expect([formatMs(0), formatMs(250), formatMs(1000), formatMs(1500), formatMs(12_000)]).toEqual([
      '0 ms',
      '250 ms',
      '1 s',
      '1.5 s',
      '12 s',
    ]);
    // rounding never leaves a bare point: 1003 ms was "1. s"
    expect([formatMs(1003), formatMs(10_040), formatMs(2000.4), formatMs(999.7), formatMs(1017)]).toEqual([
      '1 s',
      '10 s',
      '2 s',
      '1 s',
      '1.02 s',
    ]);
  });
});

describe('lanes', () => {
  it('one lane per child process, per in-lab source, and the checkpoints last', () => {
    const events = [
      ev('checkpoint', 5, { checkpoint: 'a', status: 'waiting' }),
      ev('producer', 0, { status: 'confirmed' }),
      ev('consumer', 10, { status: 'received' }, 'consumer-run1'),
      ev('replay-gate', 11, { checkpoint: 'before-ack' }, 'consumer-run1'),
      ev('consumer', 20, { status: 'received' }, 'consumer-run2'),
    ];
    expect(lanes(events).map((l) => [l.key, l.kind])).toEqual([
      ['producer', 'in-lab'],
      ['consumer-run1', 'process'],
      ['consumer-run2', 'process'],
      ['checkpoint', 'checkpoints'],
    ]);
    expect(laneKey(must(events[3], 'event 4'))).toBe('consumer-run1'); // a child's gate pause stays in the child's lane
  });

  it('marks a child killed with exit 137 as a crash, a normal exit as an exit', () => {
    expect(markKind(ev('exit', 0, { status: 'exited', exitCode: '137', signal: 'SIGKILL' }, 'consumer-run1'))).toBe(
      'crash',
    );
    expect(markKind(ev('exit', 0, { status: 'exited', exitCode: '0' }, 'consumer-run2'))).toBe('exit');
    expect(markKind(ev('checkpoint', 0, { checkpoint: 'after-crash', exitCode: '137', status: 'waiting' }))).toBe(
      'checkpoint',
    );
    expect(
      [
        'published',
        'confirmed',
        'received',
        'retry_confirmed',
        'rejected_to_dlx',
        'parked',
        'business_committed',
        'snapshot',
      ].map((status) => markKind(ev('x', 0, { status }))),
    ).toEqual(['publish', 'confirm', 'receive', 'retry', 'dead', 'dead', 'settle', 'other']);
  });
});

describe('journeys', () => {
  it('joins one messageId’s events in time order, across and within lanes, leaving out checkpoints', () => {
    const events = [
      ev('consumer', 10, { messageId: 'm', status: 'received' }), // 0
      ev('producer', 0, { messageId: 'm', status: 'confirmed' }), // 1
      ev('checkpoint', 12, { messageId: 'm', checkpoint: 'before-ack', status: 'waiting' }), // 2
      ev('consumer', 520, { messageId: 'm', status: 'received' }), // 3
      ev('dlq', 600, { messageId: 'm', status: 'acked' }), // 4
      ev('producer', 1, { messageId: 'alone', status: 'confirmed' }), // 5
    ];
    expect(journeys(events)).toEqual([
      {
        messageId: 'm',
        hops: [
          [1, 0],
          [0, 3],
          [3, 4],
        ],
      },
    ]);
  });
});

describe('stacking marks', () => {
  it('puts marks closer than the gap on the next row of their lane, and other lanes do not interfere', () => {
    expect(stackRows([0, 3, 5, 20, 2], [0, 0, 0, 0, 1], 7, 3)).toEqual([0, 1, 2, 0, 0]);
    expect(stackRows([0, 1, 2, 3], [0, 0, 0, 0], 7, 3)).toEqual([0, 1, 2, 0]); // rows full: wraps to row 0
  });
});
