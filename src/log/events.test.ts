import { describe, expect, it } from 'vitest';
import { EventLog, formatEvent, parseEvent } from './events.js';

describe('key=value events', () => {
  it('formats in the event-line order: timestamp, level, service, product, lab, then the fields', () => {
    const lines: string[] = [];
    const log = new EventLog({ lab: 'consumer-crash' }, (l) => lines.push(l));
    log.emit('consumer', {
      messageId: 'm1',
      level: 'INFO',
      service: 'order-service',
      product: 'rabbitmq',
      status: 'received',
    });
    expect(lines[0]).toMatch(
      /^\[consumer\] timestamp=\S+Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=m1 status=received$/,
    );
  });

  it('quotes values with spaces and parses its own lines back', () => {
    const e = { source: 'replay-gate', fields: { timestamp: 't', checkpoint: 'before-ack', text: 'a b=c', empty: '' } };
    const line = formatEvent(e);
    expect(line).toBe('[replay-gate] timestamp=t checkpoint=before-ack text="a b=c" empty=""');
    expect(parseEvent(line)).toEqual(e);
  });

  it('parses event lines and ignores other output', () => {
    const demo =
      '[producer] timestamp=2026-10-07T10:27:13.597266852Z level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=01JMQ000000000000000000001 durationMs=2 status=confirmed';
    expect(parseEvent(demo)?.fields).toMatchObject({
      messageId: '01JMQ000000000000000000001',
      durationMs: '2',
      status: 'confirmed',
    });
    expect(parseEvent('SLF4J: Failed to load class')).toBeNull();
    expect(parseEvent('')).toBeNull();
  });
});
