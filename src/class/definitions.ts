/**
 * The broker's side of a class as one definitions document (what `rabbitmqctl import_definitions`
 * takes): per student a user, a vhost of their own, full permissions on that vhost and none
 * elsewhere, and limits on both. Data only: built here, imported in one call (src/class/provision.ts).
 *
 * Why a vhost per student, not a name prefix in the lab vhost: the broker itself then confines
 * everything a student does. Queues, exchanges and bindings of another vhost cannot be named; a
 * policy applies only within its vhost, so no pattern reaches a classmate's queues; and a user with
 * the `policymaker` tag (management, no `monitoring`) sees in the management API and UI only the
 * vhosts they have permissions on. A prefix in one shared vhost confines queues through permission
 * patterns, but not policies (a policymaker may set any pattern in a vhost it can use) and not the
 * management view (the whole vhost is visible).
 */
import type { ClassLimits, Student } from './roster.js';

/** the tag every class account and vhost carries, so `class down` finds them even without class.json */
export const CLASS_TAG = 'mqlab-class';

interface BrokerDefinitions {
  users: {
    name: string;
    password_hash: string;
    hashing_algorithm: 'rabbit_password_hashing_sha256';
    tags: string[];
    limits: Record<string, number>;
  }[];
  vhosts: { name: string; description: string; tags: string[] }[];
  permissions: { user: string; vhost: string; configure: string; write: string; read: string }[];
  parameters: { vhost: string; component: 'vhost-limits'; name: 'limits'; value: Record<string, number> }[];
}

/**
 * The definitions of `students` (their vhost named after them). `hash` turns a password into
 * RabbitMQ's stored form (salted sha256): the document carries no password in clear.
 */
export function classDefinitions(
  students: readonly Student[],
  limits: ClassLimits,
  hash: (password: string) => string,
): BrokerDefinitions {
  return {
    users: students.map((s) => ({
      name: s.name,
      password_hash: hash(s.password),
      hashing_algorithm: 'rabbit_password_hashing_sha256',
      // policymaker: the management API and UI for their own vhosts, and policies there; no monitoring
      tags: ['policymaker', CLASS_TAG],
      limits: { 'max-connections': limits.connections },
    })),
    vhosts: students.map((s) => ({
      name: s.name,
      description: `mqlab class: student ${s.name}`,
      tags: [CLASS_TAG],
    })),
    permissions: students.map((s) => ({ user: s.name, vhost: s.name, configure: '.*', write: '.*', read: '.*' })),
    parameters: students.map((s) => ({
      vhost: s.name,
      component: 'vhost-limits',
      name: 'limits',
      value: { 'max-queues': limits.queues, 'max-connections': limits.connections },
    })),
  };
}

/** an Erlang binary literal of a name the roster checked (letters, digits, _): <<"s3">> */
const bin = (name: string) => {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a student name: ${name}`);
  return `<<"${name}">>`;
};

/**
 * One `rabbitmqctl eval` expression that deletes the vhosts and users of `names` and of every user
 * tagged mqlab-class (a class made by an earlier, interrupted `class up`): one call of the node's CLI
 * for the whole class, where one `delete_vhost` per student costs a CLI start each (0.8–1.5 s). The
 * functions are the same on 3.10, 4.0 and 4.3 (rabbit_vhost:delete/2,
 * rabbit_auth_backend_internal:delete_user/2 and list_users/0). Its value, which the CLI prints, is
 * the list of names it removed: removedNames reads it.
 */
export function deleteExpression(names: readonly string[], everyTagged: boolean): string {
  const listed = `[${names.map(bin).join(', ')}]`;
  const tagged = everyTagged
    ? `[proplists:get_value(user, P) || P <- rabbit_auth_backend_internal:list_users(), lists:member('${CLASS_TAG}', proplists:get_value(tags, P))]`
    : '[]';
  return [
    `Names = lists:usort(${listed} ++ ${tagged}),`,
    `[{N, catch rabbit_vhost:delete(N, <<"mqlab">>), catch rabbit_auth_backend_internal:delete_user(N, <<"mqlab">>)} || N <- Names],`,
    `Names.`,
  ].join(' ');
}

/** the names a deleteExpression's printed value lists: [<<"s1">>,<<"s2">>] */
export const removedNames = (printed: string): string[] =>
  [...printed.matchAll(/<<"([a-z0-9_]+)">>/g)].map((m) => m[1]!);
