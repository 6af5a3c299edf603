/**
 * TEST ONLY: requeue-storm's broken variants (declared in meta.ts; MQLAB_FAULT=requeue-storm:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of a mode's consumer
 * (`StormSteps`, mode.ts). mode.ts reads as the correct consumer.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { StormSteps } from './mode.js';
import { healthySchedule } from './measure.js';
import { DELAY_TTL_MS, HEALTHY_PER_SEC } from './names.js';

export const variants: VariantsOf<typeof meta, StormSteps> = {
  // the failing message is put back instead of taken off
  'leave-failing': () => ({ removeFailing: (m) => m.nack(true) }),
  // the delayed mode requeues like the other one
  'delayed-requeues': () => ({ delayedRejects: false }),
  // the consumer holds the failing message one delay TTL before its nack
  'requeue-waits': () => ({ requeueFailing: (m) => void setTimeout(() => m.nack(true), DELAY_TTL_MS) }),
  // the consumer acks the last healthy message of each mode (healthy-<mode>-<n>) without processing it
  'healthy-lost': (s, ctx) => {
    const last = String(healthySchedule(ctx.options.windowMs, HEALTHY_PER_SEC).length);
    return {
      takeHealthy: (m, process) => (m.messageId?.split('-').pop() === last ? m.ack() : s.takeHealthy(m, process)),
    };
  },
};
