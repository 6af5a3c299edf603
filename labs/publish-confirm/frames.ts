/**
 * Publish on a channel of its own and record the frames the client receives for it, in order:
 * basic.return (with its reply code) and then basic.ack or basic.nack.
 */
import type { Options } from 'amqplib';
import { closeChannel, type Broker } from '../../src/kit/index.js';

type Frame = 'return' | 'ack' | 'nack';

interface Observed {
  frames: Frame[];
  replyCode?: number;
  replyText?: string;
}

export class FrameRecorder {
  private constructor(
    private readonly ch: Awaited<ReturnType<Broker['newChannel']>>,
    private current: Observed,
  ) {}

  static async open(broker: Broker): Promise<FrameRecorder> {
    const r = new FrameRecorder(await broker.newChannel(), { frames: [] });
    r.ch.on('return', (msg) => {
      const f = msg.fields as unknown as { replyCode: number; replyText: string };
      r.current.frames.push('return');
      r.current.replyCode = f.replyCode;
      r.current.replyText = f.replyText;
    });
    return r;
  }

  /** publish and resolve once the confirm (ack or nack) arrived, with every frame seen for it */
  publish(exchange: string, key: string, body: string, props: Options.Publish): Promise<Observed> {
    const seen: Observed = { frames: [] };
    this.current = seen;
    return new Promise((resolve) => {
      this.ch.publish(exchange, key, Buffer.from(body), { persistent: true, ...props }, (err) => {
        seen.frames.push(err ? 'nack' : 'ack');
        resolve(seen);
      });
    });
  }

  close(): Promise<void> {
    return closeChannel(this.ch);
  }
}
