import { describe, expect, it } from 'vitest';
import { eventFields, formatEvent, parseEvent, type LabEvent } from '../../src/log/events.js';
import { namespaced } from '../../src/core/names.js';
import { CONSUMER, SERVICE, envelopeFields, orderEvents, parseEnvelope, publishProps } from './orders.js';
import { LAB, names } from './names.js';
import { UsageError } from '../../src/core/errors.js';
import { gateLine, gateToken } from '../../src/kit/gates/replay-gate.js';
import { labOptions } from '../../src/lab/lab.js';
import { meta } from './meta.js';
import { must } from '../../src/core/must.js';
import { ackedMessageIds, committedNotAcked, observeDeliveries, summaryLine } from './verdicts.js';

// the source demo's consumer-run1.out.txt and consumer-run2.out.txt (docs/labs/consumer-crash.md),
// without the SLF4J lines, verbatim
const DEMO_RUN1 = `
[consumer] timestamp=2026-10-07T10:27:14.314008641Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash consumer=consumer-1 attempt=1 redelivered=false status=received
[replay-gate] timestamp=2026-10-07T10:27:14.322479817Z checkpoint=after-delivery messageId=01JMQ000000000000000000001 token=4fac7be9f8ad-1-after-delivery-01JMQ000000000000000000001-1 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:15.327335311Z checkpoint=after-delivery messageId=01JMQ000000000000000000001 token=4fac7be9f8ad-1-after-delivery-01JMQ000000000000000000001-1 status=released
[consumer] timestamp=2026-10-07T10:27:15.337218764Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash attempt=1 status=business_committed
[replay-gate] timestamp=2026-10-07T10:27:15.337699711Z checkpoint=before-ack messageId=01JMQ000000000000000000001 token=4fac7be9f8ad-1-before-ack-01JMQ000000000000000000001-2 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:16.340446936Z checkpoint=before-ack messageId=01JMQ000000000000000000001 token=4fac7be9f8ad-1-before-ack-01JMQ000000000000000000001-2 status=released
[consumer] timestamp=2026-10-07T10:27:16.340660034Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash status=crash_injected
`;
const DEMO_RUN2 = `
[consumer] timestamp=2026-10-07T10:27:18.331903782Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash consumer=consumer-1 attempt=1 redelivered=true status=received
[replay-gate] timestamp=2026-10-07T10:27:18.340119726Z checkpoint=after-delivery messageId=01JMQ000000000000000000001 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000001-1 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:19.244860771Z checkpoint=after-delivery messageId=01JMQ000000000000000000001 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000001-1 status=released
[consumer] timestamp=2026-10-07T10:27:19.251586332Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash attempt=1 status=duplicate_skipped
[replay-gate] timestamp=2026-10-07T10:27:19.251975513Z checkpoint=before-ack messageId=01JMQ000000000000000000001 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000001-2 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:20.253760487Z checkpoint=before-ack messageId=01JMQ000000000000000000001 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000001-2 status=released
[consumer] timestamp=2026-10-07T10:27:20.255434279Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000002 eventType=order.created schemaVersion=1 aggregateId=order-1002 traceId=00000000000000000000000000000002 correlationId=order-1002 destination=orders.crash consumer=consumer-1 attempt=1 redelivered=false status=received
[replay-gate] timestamp=2026-10-07T10:27:20.255920404Z checkpoint=after-delivery messageId=01JMQ000000000000000000002 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000002-3 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:21.257916980Z checkpoint=after-delivery messageId=01JMQ000000000000000000002 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000002-3 status=released
[consumer] timestamp=2026-10-07T10:27:21.263174006Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000002 eventType=order.created schemaVersion=1 aggregateId=order-1002 traceId=00000000000000000000000000000002 correlationId=order-1002 destination=orders.crash attempt=1 status=business_committed
[replay-gate] timestamp=2026-10-07T10:27:21.263516787Z checkpoint=before-ack messageId=01JMQ000000000000000000002 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000002-4 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:22.165093163Z checkpoint=before-ack messageId=01JMQ000000000000000000002 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000002-4 status=released
[consumer] timestamp=2026-10-07T10:27:22.166557146Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000003 eventType=order.created schemaVersion=1 aggregateId=order-1003 traceId=00000000000000000000000000000003 correlationId=order-1003 destination=orders.crash consumer=consumer-1 attempt=1 redelivered=false status=received
[replay-gate] timestamp=2026-10-07T10:27:22.166974929Z checkpoint=after-delivery messageId=01JMQ000000000000000000003 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000003-5 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:23.168666227Z checkpoint=after-delivery messageId=01JMQ000000000000000000003 token=2cbfb1260f3d-1-after-delivery-01JMQ000000000000000000003-5 status=released
[consumer] timestamp=2026-10-07T10:27:23.170617117Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000003 eventType=order.created schemaVersion=1 aggregateId=order-1003 traceId=00000000000000000000000000000003 correlationId=order-1003 destination=orders.crash attempt=1 status=business_committed
[replay-gate] timestamp=2026-10-07T10:27:23.171131674Z checkpoint=before-ack messageId=01JMQ000000000000000000003 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000003-6 status=waiting
[replay-gate] timestamp=2026-10-07T10:27:24.273522547Z checkpoint=before-ack messageId=01JMQ000000000000000000003 token=2cbfb1260f3d-1-before-ack-01JMQ000000000000000000003-6 status=released
[consumer] timestamp=2026-10-07T10:27:24.274089233Z level=INFO service=order-service product=rabbitmq lab=consumer-crash queue=orders.crash received=3 status=done
`;
const DEMO_PRODUCER_1 =
  '[producer] timestamp=2026-10-07T10:27:13.597266852Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=00000000000000000000000000000001 correlationId=order-1001 destination=orders.crash routingKey=orders.crash durationMs=2 status=confirmed';

const events = (text: string): LabEvent[] =>
  text
    .split('\n')
    .map(parseEvent)
    .filter((e): e is LabEvent => e !== null);
/** format like the consumer process does, with the demo line's own timestamp */
const line = (source: string, demoLine: string, fields: Record<string, unknown>) => {
  const f = eventFields({ lab: LAB }, fields);
  f.timestamp = must(parseEvent(demoLine)?.fields.timestamp, 'the demo line timestamp');
  return formatEvent({ source, fields: f });
};

describe('order.created envelopes', () => {
  const orders = orderEvents(3);
  const first = must(orders[0], 'order 1');
  const third = must(orders[2], 'order 3');

  it('carry the demo ids', () => {
    expect(first).toMatchObject({
      messageId: '01JMQ000000000000000000001',
      aggregateId: 'order-1001',
      correlationId: 'order-1001',
      traceId: '00000000000000000000000000000001',
      schemaVersion: 1,
    });
    expect(third.messageId).toBe('01JMQ000000000000000000003');
    expect(third.messageId).toHaveLength(26); // a ULID's length, as in the demo
  });

  it('survive the trip through the broker body and properties', () => {
    expect(parseEnvelope(JSON.stringify(first))).toEqual(first);
    expect(publishProps(first)).toMatchObject({
      messageId: first.messageId,
      type: 'order.created',
      correlationId: 'order-1001',
      headers: { attempt: 1 },
    });
    expect(() => parseEnvelope('{"eventType":"order.cancelled"}')).toThrow(/not an order.created/);
  });

  it("log in the demo's field order, character for character apart from the timestamp", () => {
    const demo1 = events(DEMO_RUN1);
    const lines = DEMO_RUN1.trim().split('\n');
    const run1 = (i: number) => must(lines[i], `demo line ${i} of run 1`);
    const destination = names(namespaced('')).queue;
    const meta = { ...SERVICE, ...envelopeFields(first), destination };
    expect(
      line('consumer', run1(0), { ...meta, consumer: CONSUMER, attempt: 1, redelivered: false, status: 'received' }),
    ).toBe(run1(0));
    expect(line('consumer', run1(3), { ...meta, attempt: 1, status: 'business_committed' })).toBe(run1(3));
    expect(line('consumer', run1(6), { ...meta, status: 'crash_injected' })).toBe(run1(6));
    const last = must(DEMO_RUN2.trim().split('\n').at(-1), 'the last demo line of run 2');
    expect(line('consumer', last, { ...SERVICE, queue: destination, received: 3, status: 'done' })).toBe(last);
    expect(
      line('producer', DEMO_PRODUCER_1, { ...meta, routingKey: destination, durationMs: 2, status: 'confirmed' }),
    ).toBe(DEMO_PRODUCER_1);
    const demoGate = must(parseEvent(run1(4))?.fields, 'the demo gate line');
    const demoToken = must(demoGate.token, 'the demo gate token');
    const token = gateToken(must(demoToken.split('-')[0], 'the demo token prefix'), 'before-ack', first.messageId, 2);
    expect(token).toBe(demoToken);
    expect(
      gateLine('before-ack', first.messageId, token, 'waiting').replace(
        /timestamp=\S+/,
        `timestamp=${demoGate.timestamp}`,
      ),
    ).toBe(run1(4));
    expect(
      demo1.filter((e) => e.source === 'replay-gate').map((e) => `${e.fields.checkpoint}/${e.fields.status}`),
    ).toEqual(['after-delivery/waiting', 'after-delivery/released', 'before-ack/waiting', 'before-ack/released']);
  });
});

describe('observations from the consumer runs', () => {
  const run1 = events(DEMO_RUN1);
  const run2 = events(DEMO_RUN2);

  it("give the demo's values for the demo's own logs", () => {
    expect(observeDeliveries([run1, run2])).toEqual({
      receivedTotal: 4,
      redeliveredCount: 1,
      duplicatesObserved: 1,
      uniqueMessageIds: 3,
    });
    expect(committedNotAcked(run1, ['01JMQ000000000000000000001'])).toEqual(['01JMQ000000000000000000001']);
  });

  it('count the crash window only where the row exists, the run crashed on the message and never acked it', () => {
    expect(committedNotAcked(run1, [])).toEqual([]); // commit logged, but no row: not a committed transaction
    const acked = [
      ...run1,
      { source: 'consumer', fields: { messageId: '01JMQ000000000000000000001', status: 'acked' } },
    ];
    expect(committedNotAcked(acked, ['01JMQ000000000000000000001'])).toEqual([]);
    expect(ackedMessageIds(acked)).toEqual(['01JMQ000000000000000000001']);
    expect(committedNotAcked(run2, ['01JMQ000000000000000000002'])).toEqual([]); // committed and acked, no crash
  });

  it('ignore replay-gate lines and other sources', () => {
    const gates = run2.filter((e) => e.source === 'replay-gate');
    expect(gates.length).toBe(12);
    expect(observeDeliveries([gates])).toEqual({
      receivedTotal: 0,
      redeliveredCount: 0,
      duplicatesObserved: 0,
      uniqueMessageIds: 0,
    });
  });

  it('summarise in one consumer-crash: key=value line', () => {
    const s = {
      ...observeDeliveries([run1, run2]),
      crashExitCode: 137,
      committedNotAcked: 1,
      readyAfterCrash: 3,
      businessRows: 3,
      processedRows: 3,
    };
    expect(summaryLine(s)).toBe(
      'consumer-crash: crashExitCode=137 committedNotAcked=1 readyAfterCrash=3 deliveries=4 redelivered=1 duplicateSkipped=1 businessRows=3 processedRows=3',
    );
  });
});

describe('--gate (old name --gate-ms)', () => {
  const gate = (raw: string) => labOptions(meta, { gateMs: raw }).gateMs;
  it('takes a duration from 0 to 60s, a bare number in ms, and refuses anything else as a usage error', () => {
    expect(labOptions(meta).gateMs).toBe(0);
    expect(gate('0')).toBe(0);
    expect(gate('1000')).toBe(1000);
    expect(gate('1s')).toBe(1000);
    for (const bad of ['', 'soon', '-1', '1.5', '60001', '2m']) expect(() => gate(bad)).toThrow(UsageError);
  });
});
