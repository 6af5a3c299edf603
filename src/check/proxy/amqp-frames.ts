/**
 * AMQP 0-9-1 frames as they cross mqlab check's proxy: split a byte stream into whole frames
 * (type, channel, size, payload, 0xCE) and read the few methods the check watches — consume-ok,
 * deliver and its content header's message-id, ack / nack / reject, the server's basic.cancel and
 * channel or connection close. Pure: the proxy forwards each frame's own bytes unchanged.
 */
export const PROTOCOL_HEADER = Buffer.from('AMQP\x00\x00\x09\x01', 'latin1');

const FRAME_METHOD = 1;
const FRAME_HEADER = 2;
const FRAME_END = 0xce;

export interface Frame {
  type: number;
  channel: number;
  payload: Buffer;
  /** the frame's own bytes, header to frame-end */
  raw: Buffer;
}

/** Splits a stream into frames; `skipHeader`: the client's side, which starts with the 8-byte protocol header */
export class FrameSplitter {
  private rest: Buffer = Buffer.alloc(0);
  private headerLeft: number;

  constructor(skipHeader: boolean) {
    this.headerLeft = skipHeader ? PROTOCOL_HEADER.length : 0;
  }

  /** the bytes before the first frame (the protocol header) and the whole frames now complete */
  push(chunk: Buffer): { prefix: Buffer; frames: Frame[] } {
    let data: Buffer = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    let prefix: Buffer = Buffer.alloc(0);
    if (this.headerLeft > 0) {
      const n = Math.min(this.headerLeft, data.length);
      prefix = data.subarray(0, n);
      this.headerLeft -= n;
      data = data.subarray(n);
    }
    const frames: Frame[] = [];
    let at = 0;
    while (data.length - at >= 7) {
      const size = data.readUInt32BE(at + 3);
      const end = at + 7 + size + 1;
      if (data.length < end) break;
      if (data[end - 1] !== FRAME_END) throw new Error(`AMQP frame without frame-end at byte ${end - 1}`);
      frames.push({
        type: data[at]!,
        channel: data.readUInt16BE(at + 1),
        payload: data.subarray(at + 7, end - 1),
        raw: data.subarray(at, end),
      });
      at = end;
    }
    this.rest = Buffer.from(data.subarray(at));
    return { prefix, frames };
  }
}

type Method =
  | { kind: 'consume-ok'; consumerTag: string }
  | { kind: 'deliver'; consumerTag: string; deliveryTag: number; redelivered: boolean }
  | { kind: 'ack'; deliveryTag: number; multiple: boolean }
  | { kind: 'nack'; deliveryTag: number; multiple: boolean; requeue: boolean }
  | { kind: 'reject'; deliveryTag: number; requeue: boolean }
  | { kind: 'cancel'; consumerTag: string }
  | { kind: 'channel-close'; code: number; text: string }
  | { kind: 'channel-close-ok' }
  | { kind: 'connection-close'; code: number; text: string }
  | { kind: 'other'; classId: number; methodId: number };

const shortstr = (b: Buffer, at: number): [string, number] => {
  const n = b[at]!;
  return [b.toString('utf8', at + 1, at + 1 + n), at + 1 + n];
};

const u64 = (b: Buffer, at: number) => Number(b.readBigUInt64BE(at));

/** the method of a method frame (null for any other frame) */
export function readMethod(f: Frame): Method | null {
  if (f.type !== FRAME_METHOD) return null;
  const p = f.payload;
  const classId = p.readUInt16BE(0);
  const methodId = p.readUInt16BE(2);
  const key = `${classId}.${methodId}`;
  switch (key) {
    case '60.21':
      return { kind: 'consume-ok', consumerTag: shortstr(p, 4)[0] };
    case '60.60': {
      const [consumerTag, at] = shortstr(p, 4);
      return { kind: 'deliver', consumerTag, deliveryTag: u64(p, at), redelivered: (p[at + 8]! & 1) === 1 };
    }
    case '60.80':
      return { kind: 'ack', deliveryTag: u64(p, 4), multiple: (p[12]! & 1) === 1 };
    case '60.120':
      return { kind: 'nack', deliveryTag: u64(p, 4), multiple: (p[12]! & 1) === 1, requeue: (p[12]! & 2) === 2 };
    case '60.90':
      return { kind: 'reject', deliveryTag: u64(p, 4), requeue: (p[12]! & 1) === 1 };
    case '60.30':
      return { kind: 'cancel', consumerTag: shortstr(p, 4)[0] };
    case '20.40':
      return { kind: 'channel-close', code: p.readUInt16BE(4), text: shortstr(p, 6)[0] };
    case '20.41':
      return { kind: 'channel-close-ok' };
    case '10.50':
      return { kind: 'connection-close', code: p.readUInt16BE(4), text: shortstr(p, 6)[0] };
    default:
      return { kind: 'other', classId, methodId };
  }
}

/** the message-id property of a content header frame (undefined: none, or not a header frame) */
export function readMessageId(f: Frame): string | undefined {
  if (f.type !== FRAME_HEADER) return undefined;
  const p = f.payload;
  // class (2), weight (2), body size (8), then property flags: 16 bits, bit 0 set when more follow
  let at = 12;
  const flags: number[] = [];
  for (;;) {
    const word = p.readUInt16BE(at);
    at += 2;
    flags.push(word);
    if ((word & 1) === 0) break;
  }
  const has = (bit: number) => (flags[0]! & (1 << bit)) !== 0;
  const skipShort = () => (at += 1 + p[at]!);
  if (has(15)) skipShort(); // content-type
  if (has(14)) skipShort(); // content-encoding
  if (has(13)) at += 4 + p.readUInt32BE(at); // headers (a field table)
  if (has(12)) at += 1; // delivery-mode
  if (has(11)) at += 1; // priority
  if (has(10)) skipShort(); // correlation-id
  if (has(9)) skipShort(); // reply-to
  if (has(8)) skipShort(); // expiration
  return has(7) ? shortstr(p, at)[0] : undefined;
}

/** a frame a test or a proxy writes: method frame bytes of `classId.methodId` with `args` */
export function methodFrame(channel: number, classId: number, methodId: number, args: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from([classId >> 8, classId & 255, methodId >> 8, methodId & 255]), args]);
  const head = Buffer.alloc(7);
  head.writeUInt8(FRAME_METHOD, 0);
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(payload.length, 3);
  return Buffer.concat([head, payload, Buffer.from([FRAME_END])]);
}
