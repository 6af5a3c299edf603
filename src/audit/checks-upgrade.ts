/**
 * What stops or changes on the target line (`--target-version`, else the version the file or broker
 * names, else 4.3): classic mirroring policies (gone in 4.0), queue arguments a queue type or the
 * target refuses at declare, queue-mode (no effect since 3.12), transient non-exclusive queues
 * (denied by default in 4.3.0–4.3.5). Each claim cites the source at a tag or the measurement
 * (test/audit-import.int.test.ts on 4.3.6 and 3.10.8); docs/audit.md has the table.
 */
import { grouped, type Check, type Context, type Draft } from './finding.js';
import { SEE } from './labs.js';
import { refusedArguments } from './queue-types.js';
import { atLeast, versionText } from './target.js';

const HA_KEYS = [
  'ha-mode',
  'ha-params',
  'ha-sync-mode',
  'ha-sync-batch-size',
  'ha-promote-on-shutdown',
  'ha-promote-on-failure',
];
const list = (names: readonly string[], max = 4) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
const target = (c: Context) => (c.exact ? versionText(c.target) : c.target.slice(0, 2).join('.'));

export const classicMirroring: Check = {
  id: 'classic-mirroring-policy',
  severity: 'error',
  title: 'classic queue mirroring policies (ha-mode …): removed in RabbitMQ 4.0, where an import with them aborts',
  lab: SEE.replicas,
  fix: 'move the mirrored classic queues to quorum queues (declare them with x-queue-type=quorum and move the messages), then remove the ha-* keys from the policy (rabbitmqctl clear_policy, or a policy without them) before the upgrade',
  needs: [],
  find: (c) =>
    (c.snapshot.policies ?? [])
      .filter((p) => Object.keys(p.definition).some((k) => HA_KEYS.includes(k)))
      .map((p): Draft => {
        const mirrored = c.snapshot.queues
          .filter((q) => q.vhost === p.vhost && q.policyName === p.name)
          .map((q) => q.name);
        const what = `${p.operator ? 'operator policy' : 'policy'} '${p.name}' mirrors classic queues (${Object.keys(
          p.definition,
        )
          .filter((k) => HA_KEYS.includes(k))
          .join(', ')})${mirrored.length ? ` — here ${list(mirrored)}` : ''}`;
        const gone = atLeast(c.target, '4.0.0');
        return {
          vhost: p.vhost,
          object: { kind: 'policy', name: p.name },
          ...(mirrored.length ? { queues: mirrored } : {}),
          problem: gone
            ? `${what}: RabbitMQ ${target(c)} refuses it ("not recognised policy settings"), so an import of these definitions aborts before any queue is declared (measured on 4.3.6), and a 3.13 node with it in place does not upgrade to 4.x`
            : `${what}: it works on ${target(c)} (deprecated in 3.13), but RabbitMQ 4.0 removed classic mirroring: an upgrade, or an import into 4.x, needs it gone (--target-version 4.3 judges for 4.3)`,
          evidence: { definition: p.definition, pattern: p.pattern, target: target(c) },
          ...(gone ? {} : { severity: 'info' as const }),
        };
      }),
};

export const queueArgumentsRefused: Check = {
  id: 'queue-arguments-refused',
  severity: 'error',
  title: 'queue arguments the queue type or the target line refuses at declare: the queue is not created',
  lab: null,
  fix: 'remove the argument (or move its setting into a policy for the queue type that has it) and declare the queue again',
  needs: [],
  find: (c) => {
    const bad = c.snapshot.queues.flatMap((q) => {
      const out: { q: typeof q; arg: string; why: string }[] = refusedArguments(q.type, q.arguments).map((arg) => ({
        q,
        arg,
        why: `a ${q.type} queue does not take ${arg}: declare refused with PRECONDITION_FAILED "invalid arg … of queue type" (measured on 4.3.6 and 3.10.8)`,
      }));
      if (q.type === 'classic' && atLeast(c.target, '4.3.0')) {
        if (q.arguments['x-queue-version'] === 1)
          out.push({
            q,
            arg: 'x-queue-version',
            why: `classic queue storage v1 is gone in 4.3.0: "unsupported queue version '1'" (measured on 4.3.6)`,
          });
        if (q.arguments['x-queue-master-locator'] !== undefined)
          out.push({
            q,
            arg: 'x-queue-master-locator',
            why: 'the deprecated queue_master_locator is denied by default from 4.3.0 (measured on 4.3.6): use x-queue-leader-locator',
          });
      }
      return out;
    });
    return grouped(bad, (b) => `${b.q.vhost}\u0000${b.arg}\u0000${b.q.type}`).map((g): Draft => ({
      vhost: g[0]!.q.vhost,
      object: { kind: 'queue', name: g[0]!.q.name },
      ...(g.length > 1 ? { queues: g.map((b) => b.q.name) } : {}),
      problem: `${g.length} queue(s) (${list(g.map((b) => b.q.name))}) are declared with ${g[0]!.arg}: ${g[0]!.why}; an import with them fails`,
      evidence: { argument: g[0]!.arg, value: g[0]!.q.arguments[g[0]!.arg], type: g[0]!.q.type, target: target(c) },
    }));
  },
};

export const queueModeIgnored: Check = {
  id: 'queue-mode-no-effect',
  severity: 'info',
  title: 'queue-mode (lazy): no effect since RabbitMQ 3.12, where every classic queue pages to disk',
  lab: null,
  fix: 'remove queue-mode from the policy or the queue arguments: since 3.12 classic queues (v2) keep little in memory on their own',
  needs: [],
  notApplicable: (c) =>
    atLeast(c.target, '3.12.0')
      ? null
      : `queue-mode still selects the classic queue's mode on ${target(c)} (until 3.12)`,
  find: (c) => {
    const policies = (c.snapshot.policies ?? []).filter((p) => p.definition['queue-mode'] !== undefined);
    const byArg = grouped(
      c.snapshot.queues.filter((q) => q.type === 'classic' && q.arguments['x-queue-mode'] !== undefined),
      (q) => q.vhost,
    );
    return [
      ...policies.map((p): Draft => ({
        vhost: p.vhost,
        object: { kind: 'policy', name: p.name },
        problem: `policy '${p.name}' sets queue-mode=${String(p.definition['queue-mode'])}, which does nothing since 3.12 (set_queue_mode is a no-op in rabbit_variable_queue, v3.12.0)`,
        evidence: { definition: p.definition },
      })),
      ...byArg.map((g): Draft => ({
        vhost: g[0]!.vhost,
        object: { kind: 'queue', name: g[0]!.name },
        ...(g.length > 1 ? { queues: g.map((q) => q.name) } : {}),
        problem: `${g.length} classic queue(s) (${list(g.map((q) => q.name))}) are declared with x-queue-mode, which does nothing since 3.12 (still accepted on 4.3.6, measured)`,
        evidence: { argument: 'x-queue-mode', value: g[0]!.arguments['x-queue-mode'] },
      })),
    ];
  },
};

export const transientQueues: Check = {
  id: 'transient-nonexclusive-queue',
  severity: 'error',
  title: 'non-durable, non-exclusive queues: a deprecated feature, denied by default on RabbitMQ 4.3.0–4.3.5',
  lab: null,
  fix: 'declare the queue durable (with x-expires if it should go when unused), or exclusive to its connection',
  needs: [],
  notApplicable: (c) =>
    atLeast(c.target, '4.0.0') ? null : `transient non-exclusive queues are not deprecated on ${target(c)} (from 4.0)`,
  find: (c) => {
    // 4.3.0–4.3.5 deny them by default; "4.3" alone may be either
    const denied = c.exact && atLeast(c.target, '4.3.0') && !atLeast(c.target, '4.3.6');
    return grouped(
      c.snapshot.queues.filter((q) => !q.durable && !q.exclusive),
      (q) => q.vhost,
    ).map((g): Draft => ({
      vhost: g[0]!.vhost,
      object: { kind: 'queue', name: g[0]!.name },
      ...(g.length > 1 ? { queues: g.map((q) => q.name) } : {}),
      problem: denied
        ? `${g.length} queue(s) (${list(g.map((q) => q.name))}) are non-durable and not exclusive: RabbitMQ ${target(c)} refuses to declare them unless deprecated_features.permit.transient_nonexcl_queues = true on every node (denied by default in 4.3.0–4.3.5: source; 4.3.6 permits them again: measured)`
        : `${g.length} queue(s) (${list(g.map((q) => q.name))}) are non-durable and not exclusive: deprecated since 4.0 (transient_nonexcl_queues), denied by default in 4.3.0–4.3.5 (source), permitted on 4.3.6 (measured); they and their messages vanish when their node restarts`,
      evidence: { durable: false, exclusive: false, target: target(c) },
      severity: denied ? 'error' : 'warning',
    }));
  },
};
