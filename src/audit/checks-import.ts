/**
 * What an import of a definitions file does with it (file only: a live broker holds only what it
 * accepted). rabbit_definitions.erl imports exchanges, then policies, then queues and bindings; a
 * binding to an object the file and the broker lack fails it from 3.13.6 (source, below; measured on
 * 4.3.6: HTTP 400 resources_missing, after the rest was declared) and is dropped without a word up to
 * 3.13.5 (source; measured on 3.10.8); a whole-cluster import refuses objects without a vhost
 * (3.12.11+: invalid_definitions_file, source; measured: 4.3.6 HTTP 500, 3.10.8 no_such_vhost).
 */
import { grouped, type Check, type Context, type Draft } from './finding.js';
import { isDefaultExchange } from './routes.js';
import { UNNAMED_VHOST } from './definitions.js';
import { atLeast, versionText } from './target.js';

/**
 * From 3.13.6 (and 4.0.0) an import fails at a binding whose source or destination is missing:
 * rabbit_definitions add_binding_int throws rabbit_binding:add's {error, {resources_missing, …}}, and
 * the import's worker pool turns it into the import's error (3c74225717 "Handle database failures when
 * adding/removing bindings", v3.13.6; f4d2452045 in v4.0.0). Up to v3.13.5 (v3.10.8 …
 * v3.13.5) add_binding_int returns that error and nothing reads it: the binding is dropped, the import
 * succeeds.
 */
const IMPORT_FAILS_AT_MISSING_END = '3.13.6';

const targetText = (c: Context) => (c.exact ? versionText(c.target) : c.target.slice(0, 2).join('.'));

/** what an import into the target does with a binding whose end is missing */
function onImport(c: Context): string {
  if (atLeast(c.target, IMPORT_FAILS_AT_MISSING_END))
    return `the import fails on RabbitMQ ${targetText(c)} (resources_missing, after declaring the rest: from 3.13.6, source; measured on 4.3.6)`;
  if (!c.exact && c.target[0] === 3 && c.target[1] === 13)
    return 'the import drops the binding without a word on 3.13.0–3.13.5 and fails from 3.13.6 (resources_missing, after declaring the rest: source)';
  return `the import drops the binding without a word on RabbitMQ ${targetText(c)} (up to 3.13.5: source; measured on 3.10.8), and fails from 3.13.6 (resources_missing)`;
}

const list = (names: readonly string[], max = 4) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
const onFile = (s: { file: unknown }) =>
  s.file ? null : 'a live broker holds only what it accepted: this check reads a definitions file';

export const bindingToUndeclared: Check = {
  id: 'binding-to-undeclared',
  severity: 'error',
  title: 'bindings whose source exchange or destination the file does not declare',
  lab: null,
  fix: 'declare the exchange or queue in the file (or import into a broker that has it), or remove the binding',
  needs: ['file'],
  notApplicable: (c) => onFile(c.snapshot),
  find: (c) => {
    const s = c.snapshot;
    // per kind and vhost, the names declared (one Set lookup a binding end, no key strings built)
    const declared = { queue: new Map<string, Set<string>>(), exchange: new Map<string, Set<string>>() };
    const add = (kind: keyof typeof declared, vhost: string, name: string) =>
      (declared[kind].get(vhost) ?? declared[kind].set(vhost, new Set()).get(vhost)!).add(name);
    for (const q of s.queues) add('queue', q.vhost, q.name);
    for (const x of s.exchanges) add('exchange', x.vhost, x.name);
    const has = (kind: 'queue' | 'exchange', vhost: string, name: string) =>
      (kind === 'exchange' && isDefaultExchange(name)) || Boolean(declared[kind].get(vhost)?.has(name));
    const missing = s.bindings.flatMap((b) => [
      ...(has('exchange', b.vhost, b.source) ? [] : [{ b, kind: 'exchange', name: b.source }]),
      ...(has(b.destination_type, b.vhost, b.destination)
        ? []
        : [{ b, kind: b.destination_type, name: b.destination }]),
    ]);
    return grouped(missing, (m) => `${m.b.vhost}\u0000${m.kind}\u0000${m.name}`).map((g): Draft => ({
      vhost: g[0]!.b.vhost,
      object: { kind: 'binding', name: `${g[0]!.b.source} → ${g[0]!.b.destination}` },
      problem: `${g.length} binding(s) (${list(g.map((m) => `${m.b.source || '(default)'} → ${m.b.destination}`))}) name ${g[0]!.kind} '${g[0]!.name}', which the file does not declare: unless the broker has it already, ${onImport(c)}`,
      evidence: {
        missing: { kind: g[0]!.kind, name: g[0]!.name },
        bindings: g.map((m) => ({ source: m.b.source, destination: m.b.destination, routing_key: m.b.routing_key })),
      },
    }));
  },
};

export const definitionsWithoutVhost: Check = {
  id: 'definitions-without-vhost',
  severity: 'error',
  title: 'queues, exchanges or bindings without a vhost: a whole-cluster import refuses the file',
  lab: null,
  fix: 'import a one-vhost export into its vhost (POST /api/definitions/VHOST, or the management UI with the vhost chosen), or give every object its "vhost"',
  needs: ['file'],
  notApplicable: (c) => onFile(c.snapshot),
  find: ({ snapshot: s }) => {
    const f = s.file!;
    if (f.shape !== 'vhost' && f.shape !== 'mixed') return [];
    const one = f.shape === 'vhost';
    return [
      {
        vhost: f.vhostName ?? UNNAMED_VHOST,
        object: { kind: 'definitions', name: s.source.kind === 'definitions' ? s.source.file : '' },
        problem: one
          ? `a one-vhost export (${f.vhostless} objects without a vhost${f.vhostName ? `, of vhost ${f.vhostName}` : ''}): it imports into a vhost, but a whole-cluster import (load_definitions at boot, rabbitmqctl import_definitions, POST /api/definitions) refuses it (3.12.11+: invalid_definitions_file, source; 4.3.6 answers HTTP 500, 3.10.8 no_such_vhost, measured)`
          : `${f.vhostless} of its queues, exchanges and bindings have no vhost while the others name one: a whole-cluster import refuses the file (3.12.11+: invalid_definitions_file, source; measured on 4.3.6 and 3.10.8), and a one-vhost import puts everything in that one vhost`,
        evidence: { shape: f.shape, vhostless: f.vhostless, vhost: f.vhostName },
        ...(one ? { severity: 'info' as const } : {}),
      },
    ];
  },
};

export const definitionsInvalid: Check = {
  id: 'definitions-invalid',
  severity: 'error',
  title:
    'entries the import refuses (no name, no pattern, an unknown exchange type, a user limit that is not a number, a list that is not a list) or skips (amq.* names)',
  lab: null,
  fix: 'correct or remove the entry: RabbitMQ stops the import at the first one it refuses',
  needs: ['file'],
  notApplicable: (c) => onFile(c.snapshot),
  find: ({ snapshot: s }) =>
    grouped(s.file?.invalid ?? [], (i) => `${i.vhost}\u0000${i.what}\u0000${i.reason}`).map((g): Draft => {
      const skipped = g[0]!.reason.startsWith('skipped');
      return {
        vhost: g[0]!.vhost || (s.vhosts[0] ?? UNNAMED_VHOST),
        object: { kind: 'definitions', name: `${g[0]!.what} ${g[0]!.name}` },
        problem: `${g.length} ${g[0]!.what} entr${g.length === 1 ? 'y' : 'ies'} (${list(g.map((i) => i.name))}): ${g[0]!.reason}${skipped ? ' (the import logs a warning and goes on)' : ': the import fails there'}`,
        evidence: { what: g[0]!.what, names: g.map((i) => i.name), reason: g[0]!.reason },
        ...(skipped ? { severity: 'warning' as const } : {}),
      };
    }),
};

export const queueTypeIgnored: Check = {
  id: 'queue-type-ignored',
  severity: 'warning',
  title: 'queues whose "type" the import ignores: it declares them from x-queue-type (else the vhost default)',
  lab: null,
  fix: 'put the type in the queue arguments ("x-queue-type": "quorum"): the import reads the arguments, not the "type" field',
  needs: ['file'],
  notApplicable: (c) => onFile(c.snapshot),
  find: ({ snapshot: s }) =>
    grouped(s.file?.typeIgnored ?? [], (t) => `${t.vhost}\u0000${t.type}\u0000${t.becomes}`).map((g): Draft => ({
      vhost: g[0]!.vhost,
      object: { kind: 'queue', name: g[0]!.name },
      ...(g.length > 1 ? { queues: g.map((t) => t.name) } : {}),
      problem: `${g.length} queue(s) (${list(g.map((t) => t.name))}) say "type": "${g[0]!.type}" without x-queue-type: the import declares them ${g[0]!.becomes} (rabbit_definitions add_queue_int reads only the arguments)`,
      evidence: { type: g[0]!.type, becomes: g[0]!.becomes },
    })),
};
