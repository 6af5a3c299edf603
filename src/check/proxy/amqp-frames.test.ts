import { describe, expect, it } from 'vitest';
import { FrameSplitter, PROTOCOL_HEADER, methodFrame, readMessageId, readMethod } from './amqp-frames.js';

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const short = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);

/** a content header frame with content-type, headers (empty table), delivery-mode and message-id */
function header(channel: number, messageId: string): Buffer {
  const flags = (1 << 15) | (1 << 13) | (1 << 12) | (1 << 7);
  const payload = Buffer.concat([
    Buffer.from([0, 60, 0, 0]),
    u64(10),
    Buffer.from([flags >> 8, flags & 255]),
    short('application/json'),
    Buffer.from([0, 0, 0, 0]),
    Buffer.from([2]),
    short(messageId),
  ]);
  const head = Buffer.alloc(7);
  head.writeUInt8(2, 0);
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(payload.length, 3);
  return Buffer.concat([head, payload, Buffer.from([0xce])]);
}

describe('AMQP frames', () => {
  it('splits a stream cut anywhere into the same frames, after the protocol header', () => {
    const deliver = methodFrame(
      1,
      60,
      60,
      Buffer.concat([short('ctag'), u64(7), Buffer.from([1]), short(''), short('q')]),
    );
    const ack = methodFrame(1, 60, 80, Buffer.concat([u64(7), Buffer.from([0])]));
    const stream = Buffer.concat([PROTOCOL_HEADER, deliver, header(1, 'chk-1'), ack]);
    for (let cut = 1; cut < stream.length; cut++) {
      const s = new FrameSplitter(true);
      const a = s.push(stream.subarray(0, cut));
      const b = s.push(stream.subarray(cut));
      const frames = [...a.frames, ...b.frames];
      expect(Buffer.concat([a.prefix, b.prefix])).toEqual(PROTOCOL_HEADER);
      expect(frames).toHaveLength(3);
      expect(readMethod(frames[0]!)).toEqual({
        kind: 'deliver',
        consumerTag: 'ctag',
        deliveryTag: 7,
        redelivered: true,
      });
      expect(readMessageId(frames[1]!)).toBe('chk-1');
      expect(readMethod(frames[2]!)).toEqual({ kind: 'ack', deliveryTag: 7, multiple: false });
    }
  });
  it('reads nack and reject flags, and a broker channel close', () => {
    const f = (c: number, m: number, args: Buffer) =>
      new FrameSplitter(false).push(methodFrame(2, c, m, args)).frames[0]!;
    expect(readMethod(f(60, 120, Buffer.concat([u64(3), Buffer.from([3])])))).toEqual({
      kind: 'nack',
      deliveryTag: 3,
      multiple: true,
      requeue: true,
    });
    expect(readMethod(f(60, 90, Buffer.concat([u64(4), Buffer.from([0])])))).toEqual({
      kind: 'reject',
      deliveryTag: 4,
      requeue: false,
    });
    expect(
      readMethod(f(20, 40, Buffer.concat([Buffer.from([1, 150]), short('PRECONDITION_FAILED'), Buffer.alloc(4)]))),
    ).toEqual({
      kind: 'channel-close',
      code: 406,
      text: 'PRECONDITION_FAILED',
    });
  });
});
