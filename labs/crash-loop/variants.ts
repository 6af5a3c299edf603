/**
 * TEST ONLY: crash-loop's broken variants (declared in meta.ts; MQLAB_FAULT=crash-loop:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the lab (`CrashLoopSteps`,
 * lab.ts) or of the poison consumer process (`PoisonSteps`, poison-consumer-steps.ts), or the topology
 * declared without an argument. lab.ts reads as the correct experiment.
 */
import { withoutQueueArgs as without, type ChildRuntime, type Variants, type VariantsOf } from '../../src/kit/index.js';
import type { meta, Fault } from './meta.js';
import type { CrashLoopSteps } from './lab.js';
import type { PoisonSteps } from './poison-consumer-steps.js';
import { names, type CrashLoopNames } from './names.js';

export const variants: VariantsOf<typeof meta, CrashLoopSteps> = {
  'no-delivery-limit': {
    topology: (t, n) =>
      without(
        t,
        (q) => q === names(n).work || q === names(n).nack,
        (k) => k === 'x-delivery-limit',
      ),
  },
  'no-delayed-retry': {
    topology: (t, n) =>
      without(
        t,
        (q) => q === names(n).delayed,
        (k) => k.startsWith('x-delayed-retry'),
      ),
  },
  // an absent header read as 0
  'count-missing-as-zero': (s) => ({
    readCount: (v) => {
      const c = s.readCount(v);
      return c === 'absent' ? 0 : c;
    },
  }),
  'reject-for-nack': () => ({ handBack: (m) => m.reject(true) }),
};

export const poisonConsumer: Variants<PoisonSteps, Fault, ChildRuntime<CrashLoopNames, Fault>> = {
  'nack-instead-of-crash': (_, rt) => ({
    // the consumer hands the message back and exits cleanly instead of dying. It cancels first: else
    // the broker pushes the message again at once and the close returns it unacked, which 4.3 counts
    // as a failed delivery like a crash (measured on 4.3.6)
    fail: async (m) => {
      const queue = m.queue;
      await rt.broker.channel.cancel(m.raw.fields.consumerTag); // (the consumer of this delivery, on the default channel)
      m.nack(true);
      rt.emit('consumer', { messageId: m.messageId, queue, status: 'nacked' });
      await rt.close();
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      process.exit(0);
    },
  }),
};
