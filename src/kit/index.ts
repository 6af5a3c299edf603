/**
 * The lab kit: the one module a lab imports (a lint rule in eslint.config.js keeps it so). It names
 * what a lab author may use — the lab contract, checks, waits, errors, option parsers, the broker and
 * database handles, the x-death reader, child processes and gates — and nothing of the engine behind
 * it, which can then be rearranged without touching a lab. Cluster labs add `./cluster/index.js`;
 * a lab's child process starts with `./child/runtime.js`.
 */
// the lab contract
export {
  defineFaults,
  defineLab,
  labCode,
  catalogueEntry,
  type LabParts,
  type FaultName,
  type LabSpec,
  type CheckOf,
  type ContextOf,
  type VariantsOf,
  type Catalogue,
  type Lab,
  type LabContext,
  type LabMeta,
  type LabResult,
  type NoOptions,
  type Outage,
  type Registry,
  type Stopped,
  type ToolHandler,
} from '../lab/lab.js';
export type { EventMatch, Variant, Variants } from '../lab/variant.js';
export { onConsume, type ConsumeChange } from './decorate.js';
export { decorate } from '../core/decorate.js';
// checks and what a run keeps
export { check, checkAtLeast, checkAtMost, javaList, skipCheck, summaryLine, type Check } from '../report/checks.js';
export { keepEvents } from '../report/out-files.js';
// waits and time
export { coveredMs, deferred, gapsMs, settledOrIdle, sleep, watchStalls } from '../core/time.js';
export { formatDuration } from '../core/duration.js';
export { ticking } from './ticking.js';
// errors and small helpers
export { EnvError, LabError, TimedOut, UsageError } from '../core/errors.js';
export { Nacked } from '../broker/errors.js';
export { must } from '../core/must.js';
export { text } from '../core/text.js';
export { maskUrl } from '../core/urls.js';
export { NET_TICKTIME_S } from '../core/defaults.js';
export type { Names } from '../core/names.js';
// option parsers
export { duration, integer, oneOf, parseOptions, type OptionSpecs } from '../core/options.js';
// the broker and the database
export { Broker, closeChannel, type Consumer, type Delivery, type PublishProps } from '../broker/broker.js';
export { capabilities, type Capabilities } from '../broker/capabilities.js';
export {
  declareTopology,
  purgeTopology,
  withoutQueueArgs,
  type PolicySpec,
  type QueueSpec,
  type Topology,
} from '../broker/topology.js';
export type { Management, QueueStats } from '../broker/management.js';
export { backoffMs, type Backoff } from '../broker/reconnect-plan.js';
export {
  PublishLost,
  ReconnectingConsumer,
  ReconnectingPublisher,
  type ReconnectOptions,
} from '../broker/reconnect.js';
export { vhostDeadLetterLoops } from '../broker/dlx-graph.js';
export { ownBrokerLog } from '../services/broker-log.js';
export { setRabbitEnv, type RabbitEnv } from '../services/broker-env.js';
export { ownServicesRefusal } from '../services/control.js';
export { openDb, type Db } from '../db/client.js';
export type { LabEvent } from '../log/events.js';
// dead letters: the x-death reader, policies, counts
export { deadLetterHistory, deathCount, firstDeath, newestDeath, type DeathEntry } from './xdeath.js';
export {
  POLICY_MAX_LENGTH,
  deadLetterPolicy,
  heldLetters,
  policyLine,
  statsLine,
  strategyInEffect,
  type DeadLetterStrategy,
} from './dead-letter.js';
export { readCount, type Count } from './counts.js';
// child processes and gates
export { runChild, startAhead, type Ahead, type ChildRun } from './child/child.js';
export type { ChildRuntime } from './child/runtime.js';
export { childCheckpoint, pauses, replayGate } from './gates/replay-gate.js';
export { gateOption } from './gates/gate-option.js';
export { heldDeadline } from './gates/held-deadline.js';
