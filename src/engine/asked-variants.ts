/**
 * The broken variants MQLAB_FAULT asks for, applied to a run (loaded only then: src/engine/variants.ts):
 * the steps `ctx.steps(correct)` returns, the broker handle the lab gets, the actions set off by the
 * lab's events (each ended before the lab's next call on the broker, its next checkpoint and its
 * result), the topology declared, what is set up around the run.
 */
import type { LabContext } from '../lab/lab.js';
import type { Broker } from '../broker/broker.js';
import type { Topology } from '../broker/topology.js';
import type { Names } from '../core/names.js';
import {
  applySteps,
  askedParts,
  decorateBroker,
  matches,
  variantTopology,
  type AnyVariants,
  type VariantParts,
} from '../lab/variant.js';
import { decorate } from '../core/decorate.js';

/** what a run applies of its lab's asked-for variants */
export interface RunVariants {
  /** the topology to declare instead of the lab's */
  topology(t: Topology | undefined, names: Names): Topology | undefined;
  /** the lab's ctx: `steps`, the decorated broker, the variants' actions on its log, its checkpoints after them */
  context<O>(ctx: Omit<LabContext<O>, 'steps'>): LabContext<O>;
  /** the lab's run, with what the variants set up around it, and their actions ended before its result */
  run<T>(ctx: LabContext, run: () => Promise<T>): Promise<T>;
}

const identity = <S>(correct: S): S => correct;

/** what the run applies of the asked-for variants of a lab's variants.ts */
export function askedVariants(variants: AnyVariants, asked: ReadonlySet<string>): RunVariants {
  // the steps' type is the lab's own: each ctx.steps call takes the parts as written for its steps
  const parts = askedParts<unknown, LabContext>(variants, asked);
  // the actions the variants began on the lab's events, awaited at the next checkpoint and before the result
  const begun = new Set<Promise<unknown>>();
  const ended = async () => {
    while (begun.size) await Promise.all([...begun]);
  };
  return {
    topology: (t, names) => t && variantTopology(t, parts, names),
    context<O>(ctx: Omit<LabContext<O>, 'steps'>): LabContext<O> {
      const withSteps: LabContext<O> = { ...ctx, steps: identity };
      const mine = parts as VariantParts<unknown, LabContext<O>>[];
      withSteps.steps = <S extends object>(correct: S) =>
        applySteps(correct, mine as VariantParts<S, LabContext<O>>[], withSteps);
      withSteps.broker = decorateBroker(ctx.broker, mine, withSteps);
      if (!parts.some((p) => p.after)) return withSteps;
      // the variants' actions on the lab's events (they use the broker as decorated), each ended before
      // the lab's next call on the broker, its next checkpoint and its result
      const actionsCtx = { ...withSteps };
      for (const p of mine) listen(actionsCtx, p, begun);
      withSteps.broker = afterActions(withSteps.broker, ended);
      const checkpoint = ctx.checkpoint.bind(ctx);
      withSteps.checkpoint = async (...args) => {
        await ended();
        return checkpoint(...args);
      };
      return withSteps;
    },
    async run(ctx, run) {
      const undo: (() => Promise<unknown>)[] = [];
      try {
        for (const p of parts) if (p.during) undo.unshift(await p.during(ctx));
        const result = await run();
        await ended();
        return result;
      } finally {
        for (const u of undo) await u();
      }
    },
  };
}

/** the broker's calls that reach the broker, each made once the actions begun so far have ended */
const ASYNC_CALLS = ['publishConfirmed', 'sendConfirmed', 'consume', 'get', 'depth', 'passive', 'newChannel'] as const;

function afterActions(broker: Broker, ended: () => Promise<void>): Broker {
  const calls: Partial<Record<(typeof ASYNC_CALLS)[number], unknown>> = {};
  for (const name of ASYNC_CALLS) {
    const call = Reflect.get(broker, name) as (...args: unknown[]) => Promise<unknown>;
    calls[name] = async (...args: unknown[]) => {
      await ended();
      return call.apply(broker, args);
    };
  }
  return decorate(broker, calls as Partial<Broker>);
}

/** run the variant's action on every event of the lab's log that matches it; a failure is the run's */
function listen<O>(ctx: LabContext<O>, p: VariantParts<unknown, LabContext<O>>, begun: Set<Promise<unknown>>): void {
  const { after, run } = p;
  if (!after || !run) return;
  ctx.log.listen((e) => {
    if (!matches(after, e)) return;
    const action = Promise.resolve().then(() => run(ctx, e));
    begun.add(action);
    void action.then(
      () => begun.delete(action),
      () => {}, // stays in `begun`: its rejection is thrown where the actions are awaited
    );
  });
}
