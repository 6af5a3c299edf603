/**
 * Read and change settings of the `rabbit` application on the RabbitMQ node `mqlab up` started
 * (`rabbitmqctl eval`, application:set_env): for a setting the broker has only broker-wide, such as
 * 3.10's consumer_timeout, changed for the length of one run and set back after it. Only the services
 * of this data folder (as control.ts); the value a channel reads when it opens stays with that channel.
 */
import type { Config } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import { existingServiceDir, hostOf, run } from './host.js';
import { nodesFor, rabbitAccount, rabbitCtl, rabbitEnv } from './rabbitmq-node.js';
import { ownServicesRefusal } from './control.js';

/** a setting's value: a whole number, or undefined (not set: the broker's built-in default applies) */
export type RabbitEnv = Record<string, number | undefined>;

/**
 * settings set for a moment only: after `ms` the node itself (a process it spawns, whatever becomes
 * of the caller) sets each back to the rabbit application's default (read from its rabbit.app file,
 * not application:get_key, which answers the current values; mqlab's own nodes set none of these in
 * their config) — not to the value found, which a run beside this one may have set for its own
 * moment. For a setting a channel reads when it opens (3.10's consumer_timeout): the caller's
 * channels opened within `ms` keep it, channels opened later never get it.
 */
export interface Moment {
  values: RabbitEnv;
  ms: number;
}

/**
 * set `values` (kept) and `moment.values` (for `moment.ms` only) on node 1 of this data folder's
 * services, with one `rabbitmqctl eval` (a CLI's start takes a second or more); resolves with the
 * values they all had
 */
export async function setRabbitEnv(config: Config, values: RabbitEnv, moment?: Moment): Promise<RabbitEnv> {
  const refusal = ownServicesRefusal(config);
  if (refusal) throw new EnvError(refusal, 'run `mqlab up` and leave the MQLAB_* URLs unset');
  const host = hostOf(config, recordedBackend(config.home) as 'chroot' | 'system');
  const node = nodesFor(config.ports, recordedNodes(config.home))[0]!; // at least one
  const dir = existingServiceDir(host, node.service);
  if (!dir) throw new EnvError(`no RabbitMQ node folder in ${config.home}`, 'run `mqlab up`');
  const all: RabbitEnv = { ...values, ...moment?.values };
  const keys = Object.keys(all);
  const set = keys.map((k) =>
    all[k] === undefined ? `application:unset_env(rabbit, ${k})` : `application:set_env(rabbit, ${k}, ${all[k]})`,
  );
  const brief = Object.keys(moment?.values ?? {});
  const back = !moment
    ? ''
    : `spawn(fun() -> timer:sleep(${Math.max(0, Math.round(moment.ms))}), ` +
      `{ok, [{application, rabbit, Props}]} = file:consult(code:where_is_file("rabbit.app")), ` +
      `AppEnv = proplists:get_value(env, Props, []), ` +
      `lists:foreach(fun(K) -> case lists:keyfind(K, 1, AppEnv) of {K, V} -> application:set_env(rabbit, K, V); ` +
      `false -> application:unset_env(rabbit, K) end end, [${brief.join(', ')}]) end), `;
  const expr = `Old = [application:get_env(rabbit, K) || K <- [${keys.join(', ')}]], ${set.join(', ')}, ${back}Old.`;
  const r = await run(
    host,
    rabbitAccount(host),
    rabbitCtl(host),
    ['eval', expr],
    rabbitEnv(dir, node.ports, node.name, true, node.dist),
    dir,
  );
  if (r.exitCode !== 0)
    throw new EnvError(`rabbitmqctl eval failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`, 'run `mqlab up`');
  return parseOld(keys, r.stdout);
}

/** `[{ok,1800000},undefined]` → { consumer_timeout: 1800000, channel_tick_interval: undefined } */
export function parseOld(keys: readonly string[], out: string): RabbitEnv {
  const items = out.match(/\{ok,[^}]*\}|undefined/g) ?? [];
  const value = (item: string | undefined) => {
    const n = /^\{ok,\s*(\d+)\}$/.exec(item ?? '')?.[1];
    return n === undefined ? undefined : Number(n);
  };
  return Object.fromEntries(keys.map((k, i) => [k, value(items[i])]));
}
