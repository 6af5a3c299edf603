/**
 * A lab's broken variants (TEST ONLY, MQLAB_FAULT, src/lab/fault.ts), kept off the correct path: lab.ts
 * reads as the correct experiment and never imports its variants.ts, which loads only when MQLAB_FAULT
 * names the lab (the engine: src/engine/variants.ts; a child process: ChildRuntime.steps). A lab writes
 * the steps a variant may replace as one object of correct steps and asks `ctx.steps(correct)` for the
 * steps to run: without a variant, `correct` itself. A variant, per name its meta declares, is one of:
 *
 * - a function of the steps (as applied so far: `correct` when it is alone) and the context, returning
 *   the steps it replaces: `'skip-delay': (_, ctx) => ({ retryQueue: names(ctx.names).work })`;
 * - an object of the parts below, for a variant that adds or decorates rather than replaces:
 *   an action run once the lab logged a matching event (`after`, `run`), the broker handle decorated
 *   before the lab gets it (`broker`), the topology declared instead of the lab's (`topology`), or
 *   something set up before the run and undone after it (`during`).
 */
import type { Broker } from '../broker/broker.js';
import type { Topology } from '../broker/topology.js';
import type { Names } from '../core/names.js';
import type { LabEvent } from '../log/events.js';

/**
 * the fields an event must carry to set off a variant's action (values compared as the log prints
 * them); `source` and `process` match the event's source and the process that printed it
 */
export type EventMatch = Readonly<Record<string, string | number | boolean>>;

/** the parts of a variant that adds to the run or decorates it (`X`: the lab's context, or a child's runtime) */
export interface VariantParts<S, X> {
  /** the steps it replaces, from the steps as applied so far */
  steps?: (applied: S, ctx: X) => Partial<S>;
  /** an action it adds: run (not awaited by the lab) every time the lab logs an event with these fields */
  after?: EventMatch;
  run?: (ctx: X, event: LabEvent) => unknown;
  /** the broker handle the lab gets, decorated (a settle changed, a late publish after a cancel) */
  broker?: (broker: Broker, ctx: X) => Broker;
  /** the lab's topology as it is declared instead (the lab's own process only) */
  topology?: (topology: Topology, names: Names) => Topology;
  /** set up before the lab's run; what it returns is run after the run, whatever its end (the lab's process only) */
  during?: (ctx: X) => Promise<() => Promise<unknown>>;
}

/** one broken variant: the steps it replaces, or the parts it adds */
export type Variant<S, X> = ((applied: S, ctx: X) => Partial<S>) | VariantParts<S, X>;

/** a process's broken variants by name, in the order they apply (variants.ts) */
export type Variants<S, F extends string, X> = { readonly [name in F]?: Variant<S, X> };

/** what the engine or a child runtime holds of a variants.ts: any steps, any context */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the steps' type is the lab's own
export type AnyVariants = Readonly<Record<string, Variant<any, any> | undefined>>;

/**
 * the asked-for variants of `all`, in their order, as parts; `S` and `X` are the caller's word (the
 * engine knows no lab's steps: `all` was written for the steps and context the lab asks with)
 */
export function askedParts<S, X>(all: AnyVariants, asked: ReadonlySet<string>): VariantParts<S, X>[] {
  return Object.entries(all).flatMap(([name, v]) =>
    v && asked.has(name) ? [(typeof v === 'function' ? { steps: v } : v) as VariantParts<S, X>] : [],
  );
}

/** the steps with the variants' replacements applied in order (none: `correct` itself) */
export function applySteps<S extends object, X>(correct: S, parts: readonly VariantParts<S, X>[], ctx: X): S {
  let applied = correct;
  for (const p of parts) if (p.steps) applied = { ...applied, ...p.steps(applied, ctx) };
  return applied;
}

/** the broker handle with every variant's decoration, in order */
export function decorateBroker<S, X>(broker: Broker, parts: readonly VariantParts<S, X>[], ctx: X): Broker {
  return parts.reduce((b, p) => (p.broker ? p.broker(b, ctx) : b), broker);
}

/** the lab's topology with every variant's change, in order */
export function variantTopology<S, X>(t: Topology, parts: readonly VariantParts<S, X>[], names: Names): Topology {
  return parts.reduce((topology, p) => (p.topology ? p.topology(topology, names) : topology), t);
}

/** does the event carry every field of the match (`source`, `process`: its source, its process) */
export function matches(match: EventMatch, e: LabEvent): boolean {
  return Object.entries(match).every(([k, v]) =>
    k === 'source' ? e.source === v : k === 'process' ? e.process === v : e.fields[k] === String(v),
  );
}
