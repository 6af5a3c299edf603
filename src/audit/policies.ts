/**
 * Which policy the broker applies to a queue or an exchange (rabbit_policy.erl `match_all`, v3.10.8
 * and v4.3.5): among the policies of its vhost whose `apply-to` fits it, whose definition holds no
 * key its queue type lists as unsupported (`is_policy_applicable`) and whose pattern matches its
 * name (`re:run`), the one of highest priority. Policies do not merge: the others do nothing to it.
 * Operator policies are chosen the same way, and their keys merged into the policy's per key
 * (`merge_policy_value`, rabbit_policies.erl).
 */
import { compilePattern, type CompiledPattern } from './pattern.js';
import { unsupportedPolicyKeys } from './queue-types.js';
import type { AuditPolicy, AuditQueue, Snapshot } from './snapshot.js';
import { atLeast, type Version } from './target.js';
import type { Ticker } from './ticker.js';

interface CompiledPolicy {
  policy: AuditPolicy;
  /** null: the pattern is invalid or needs backtracking; it is reported and matches nothing here */
  matcher: CompiledPattern | null;
  problem: { unsupported: boolean; reason: string } | null;
}

/** a policy whose apply-to and pattern fit an object, and why it did not apply to it */
interface Candidate {
  policy: AuditPolicy;
  /** applied | keys: holds keys the queue type refuses | lower: a policy of higher priority applied | tie */
  outcome: 'applied' | 'keys' | 'lower' | 'tie';
  keys?: string[];
}

const APPLY: Record<string, (kind: 'queue' | 'exchange', type: string) => boolean> = {
  all: () => true,
  queues: (k) => k === 'queue',
  exchanges: (k) => k === 'exchange',
  classic_queues: (k, t) => k === 'queue' && t === 'classic',
  quorum_queues: (k, t) => k === 'queue' && t === 'quorum',
  streams: (k, t) => k === 'queue' && t === 'stream',
};

export class PolicyIndex {
  /** per vhost and kind (regular, operator): highest priority first, the file's order among equals */
  private readonly byVhost = new Map<string, { regular: CompiledPolicy[]; operator: CompiledPolicy[] }>();
  readonly all: CompiledPolicy[] = [];

  constructor(policies: readonly AuditPolicy[]) {
    for (const policy of policies) {
      const r = compilePattern(policy.pattern);
      const c: CompiledPolicy = r.ok
        ? { policy, matcher: r.pattern, problem: null }
        : { policy, matcher: null, problem: { unsupported: r.unsupported, reason: r.reason } };
      this.all.push(c);
      if (!this.byVhost.has(policy.vhost)) this.byVhost.set(policy.vhost, { regular: [], operator: [] });
      this.byVhost.get(policy.vhost)![policy.operator ? 'operator' : 'regular'].push(c);
    }
    for (const v of this.byVhost.values())
      for (const list of [v.regular, v.operator]) list.sort((a, b) => b.policy.priority - a.policy.priority);
  }

  /**
   * The policy applied to a queue (kind queue, its type) or an exchange, and every policy that
   * fitted by apply-to and pattern with what became of it.
   */
  match(
    vhost: string,
    name: string,
    kind: 'queue' | 'exchange',
    type: string,
    v: Version,
    operator = false,
  ): { applied: AuditPolicy | null; candidates: Candidate[] } {
    const list = this.byVhost.get(vhost)?.[operator ? 'operator' : 'regular'] ?? [];
    const refused = kind === 'queue' ? unsupportedPolicyKeys(type, v) : [];
    let applied: AuditPolicy | null = null;
    const candidates: Candidate[] = [];
    for (const c of list) {
      if (!APPLY[c.policy.applyTo]?.(kind, type) || !c.matcher?.test(name)) continue;
      const keys = Object.keys(c.policy.definition).filter((k) => refused.includes(k));
      if (keys.length) candidates.push({ policy: c.policy, outcome: 'keys', keys });
      else if (!applied) {
        applied = c.policy;
        candidates.push({ policy: c.policy, outcome: 'applied' });
      } else candidates.push({ policy: c.policy, outcome: c.policy.priority === applied.priority ? 'tie' : 'lower' });
    }
    return { applied, candidates };
  }
}

/** a policy's and an operator policy's definitions merged per key (rabbit_policy `merge_operator_definitions`) */
function mergeDefinitions(
  policy: Record<string, unknown> | null,
  operator: Record<string, unknown> | null,
  v: Version,
): Record<string, unknown> | null {
  if (!operator) return policy;
  if (!policy) return operator;
  const out: Record<string, unknown> = { ...policy };
  for (const [key, opVal] of Object.entries(operator)) {
    const val = policy[key];
    out[key] = val === undefined ? opVal : mergeValue(key, val, opVal, v);
  }
  return out;
}

const MIN_KEYS = [
  'message-ttl',
  'max-length',
  'max-length-bytes',
  'max-in-memory-length',
  'max-in-memory-bytes',
  'expires',
];

function mergeValue(key: string, val: unknown, opVal: unknown, v: Version): unknown {
  if (typeof val !== 'number' || typeof opVal !== 'number') return opVal;
  if (MIN_KEYS.includes(key)) return Math.min(val, opVal);
  if (key === 'delivery-limit')
    return atLeast(v, '4.0.0') && (val < 0 || opVal < 0) ? Math.max(val, opVal) : Math.min(val, opVal);
  return opVal;
}

/** a queue and the policies that fitted it by apply-to and pattern, when one of them did not apply */
export interface PolicyOutcome {
  queue: AuditQueue;
  candidates: Candidate[];
}

/**
 * Works out each queue's policy in effect where the source did not say (a definitions file: every
 * queue, and every exchange's policy name), and for every queue which fitting policies did not
 * apply and why. Where the broker named the policy (live), its choice is the one applied.
 */
export async function applyPolicies(
  s: Snapshot,
  index: PolicyIndex,
  v: Version,
  tick: Ticker,
): Promise<PolicyOutcome[]> {
  const offline = s.source.kind === 'definitions';
  const outcomes: PolicyOutcome[] = [];
  for (const q of s.queues) {
    const turn = tick();
    if (turn) await turn;
    const m = index.match(q.vhost, q.name, 'queue', q.type, v);
    if (offline) {
      const op = index.match(q.vhost, q.name, 'queue', q.type, v, true).applied;
      q.policy = mergeDefinitions(m.applied?.definition ?? null, op?.definition ?? null, v);
      q.policyName = m.applied?.name ?? null;
      q.operatorPolicyName = op?.name ?? null;
      q.policyKeys = Object.keys(m.applied?.definition ?? {});
      q.operatorKeys = Object.keys(op?.definition ?? {});
    }
    const candidates = offline || !q.policyName ? m.candidates : asApplied(m.candidates, q.policyName);
    if (candidates.some((c) => c.outcome !== 'applied')) outcomes.push({ queue: q, candidates });
  }
  if (offline)
    for (const x of s.exchanges)
      x.policyName = index.match(x.vhost, x.name, 'exchange', x.type, v).applied?.name ?? null;
  return outcomes;
}

/** the candidates as the broker decided: `name` applied, the others below it or tied with it */
function asApplied(candidates: Candidate[], name: string): Candidate[] {
  const applied = candidates.find((c) => c.policy.name === name)?.policy;
  if (!applied) return candidates;
  return candidates.map((c) =>
    c.outcome === 'keys'
      ? c
      : c.policy === applied
        ? { policy: c.policy, outcome: 'applied' }
        : { policy: c.policy, outcome: c.policy.priority === applied.priority ? 'tie' : 'lower' },
  );
}
