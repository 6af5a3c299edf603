/**
 * Checks on policies: patterns the broker refuses, and policies that do not apply where their
 * pattern matches — a policy of higher priority applies instead (policies do not merge: its keys
 * are lost), two of equal priority match (which one applies is not defined), or the policy holds a
 * key the queue's type does not support, so none of its keys apply (`is_policy_applicable`).
 */
import { grouped, type Check, type Draft } from './finding.js';
import type { Model } from './model.js';
import type { PolicyOutcome } from './policies.js';
import type { AuditPolicy } from './snapshot.js';

const policyObject = (name: string) => ({ kind: 'policy' as const, name });
const list = (names: readonly string[], max = 4) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

export const policyPatternInvalid: Check = {
  id: 'policy-pattern-invalid',
  severity: 'error',
  title: 'a policy pattern the broker refuses as a regular expression (or one the audit cannot evaluate)',
  lab: null,
  fix: 'correct the pattern: RabbitMQ reads it as a PCRE regular expression (escape dots: ^orders\\.)',
  needs: [],
  find: ({ policies, snapshot }) =>
    policies.all
      .filter((c) => c.problem)
      .map((c): Draft => {
        const unsupported = c.problem!.unsupported || snapshot.source.kind === 'management';
        return {
          vhost: c.policy.vhost,
          object: policyObject(c.policy.name),
          problem: unsupported
            ? `its pattern '${c.policy.pattern}' uses ${c.problem!.reason}: the audit does not evaluate it (a linear-time matcher runs no back-references or atomic groups), so it matches no queue here`
            : `its pattern '${c.policy.pattern}' is not a valid regular expression (${c.problem!.reason}): the broker refuses the policy, and an import with it aborts`,
          evidence: { pattern: c.policy.pattern, reason: c.problem!.reason },
          ...(unsupported
            ? {
                severity: 'info' as const,
                fix: 'write the pattern without back-references, atomic groups or possessive quantifiers, or check its queues by hand',
              }
            : {}),
        };
      }),
};

interface Lost {
  policy: AuditPolicy;
  queue: string;
  why: 'lower' | 'tie' | 'keys';
  /** the policy applied instead, if any */
  instead: AuditPolicy | null;
  /** the policy's keys that do not reach the queue */
  lost: string[];
  /** for `keys`: the keys the queue's type does not support */
  refused?: string[];
}

function lostKeys(outcomes: readonly PolicyOutcome[]): Lost[] {
  return outcomes.flatMap(({ queue, candidates }) => {
    const applied = candidates.find((c) => c.outcome === 'applied')?.policy ?? null;
    const kept = new Set(Object.keys(applied?.definition ?? {}));
    return candidates
      .filter((c) => c.outcome !== 'applied' && !c.policy.operator)
      .map((c): Lost => ({
        policy: c.policy,
        queue: queue.name,
        why: c.outcome as Lost['why'],
        instead: applied,
        lost: Object.keys(c.policy.definition).filter((k) => !kept.has(k)),
        ...(c.keys ? { refused: c.keys } : {}),
      }))
      .filter((l) => l.why !== 'lower' || l.lost.length > 0);
  });
}

export const policyNotApplied: Check = {
  id: 'policy-not-applied',
  severity: 'warning',
  title:
    'a policy that does not apply where its pattern matches: outranked, tied, or holding a key the queue type refuses',
  lab: null,
  fix: 'policies do not merge: put every key a queue needs into the one policy that applies to it (the highest priority), give ties distinct priorities, and keep keys a queue type refuses (ha-*, queue-mode on quorum queues; delivery-limit, dead-letter-strategy on classic ones) out of policies that match it',
  needs: [],
  find: ({ model }) => {
    const all = model.outcomes ?? [];
    const applied = new Set(model.snapshot.queues.map((q) => `${q.vhost}\u0000${q.policyName}`));
    return grouped(lostKeys(all), (l) => `${l.policy.vhost}\u0000${l.policy.name}\u0000${l.why}`).map((g): Draft => {
      const { policy, why } = g[0]!;
      const queues = [...new Set(g.map((l) => l.queue))];
      const applies = applied.has(`${policy.vhost}\u0000${policy.name}`);
      const instead = [...new Set(g.map((l) => l.instead?.name).filter(Boolean))];
      const problem =
        why === 'keys'
          ? `it holds ${g[0]!.refused!.join(', ')}, which ${list(queues)} (${typeOf(model, policy.vhost, queues[0]!)} queues) do not support: none of its keys (${Object.keys(policy.definition).join(', ')}) apply to them${instead.length ? `; policy ${instead.map((n) => `'${n}'`).join(', ')} applies instead` : ''}`
          : why === 'tie'
            ? `it and policy ${instead.map((n) => `'${n}'`).join(', ')} have the same priority (${policy.priority}) and both match ${list(queues)}: which one applies is not defined, and they do not merge`
            : `policy ${instead.map((n) => `'${n}'`).join(', ')} of higher priority applies to ${list(queues)} instead, and policies do not merge: its ${[...new Set(g.flatMap((l) => l.lost))].join(', ')} never reach${queues.length === 1 ? 'es' : ''} them`;
      return {
        vhost: policy.vhost,
        object: policyObject(policy.name),
        queues,
        problem: applies || why === 'tie' ? problem : `it applies to no queue: ${problem}`,
        evidence: {
          pattern: policy.pattern,
          priority: policy.priority,
          applyTo: policy.applyTo,
          instead,
          lostKeys: [...new Set(g.flatMap((l) => l.lost))],
          ...(why === 'keys' ? { unsupportedKeys: g[0]!.refused } : {}),
        },
        ...(applies && why === 'lower' ? { severity: 'info' as const } : {}),
      };
    });
  },
};

function typeOf(model: Model, vhost: string, name: string) {
  return model.vhosts.find((v) => v.vhost === vhost)?.byName.get(name)?.type ?? '?';
}
