/**
 * The RabbitMQ management HTTP API, used with the admin account only, for what AMQP cannot do:
 * policies, queue statistics (messages / ready / unacked / policy), bindings and the overview.
 */
import { EnvError, UP_HINT } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { networkCause } from './errors.js';
import { ServiceLost } from '../core/lost.js';
import type { PolicySpec } from './topology.js';
import { text } from '../core/text.js';
import { httpRequest, type HttpReply } from '../core/http-request.js';

export interface QueueStats {
  name: string;
  type: string;
  messages: number;
  ready: number;
  unacked: number;
  policy: string | null;
  /** definition of the policy in effect (null without one) */
  policyDefinition: Record<string, unknown> | null;
  /** 'policy': policyDefinition is the named policy's own, from the policy API (queueNowWithPolicy on 3.10) */
  policyFrom?: 'policy';
  consumers: number;
  arguments: Record<string, unknown>;
  /** the end of the one-second bucket of the broker's latest sample (ms since the epoch); only from queueSample() */
  sampledBy?: number;
}

interface BindingInfo {
  source: string;
  destination: string;
  destination_type: 'queue' | 'exchange';
  routing_key: string;
}

export interface PolicyInfo {
  name: string;
  pattern: string;
  'apply-to': string;
  definition: Record<string, unknown>;
  priority: number;
}

/**
 * One request's bound. A loaded broker answers its management API slowly (ten labs at once on a
 * 2-core machine, load ≈ 25: vhost-wide listings passed 10 s); past this it counts as lost.
 */
const REQUEST_TIMEOUT_MS = 30_000;

export class Management {
  private readonly base: string;
  private readonly auth: string;
  /** does the single-queue URL answer a queue's counts (4.0+); undefined until a queueNow learns it */
  private totalsByName: boolean | undefined;

  constructor(
    readonly url: string,
    readonly vhost: string,
  ) {
    const u = new URL(url);
    this.auth =
      'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
    u.username = '';
    u.password = '';
    this.base = u.toString().replace(/\/$/, '');
  }

  private v(): string {
    return encodeURIComponent(this.vhost);
  }

  /** one request, bounded by `timeoutMs` (REQUEST_TIMEOUT_MS unless the caller knows the broker may take longer) */
  async request<T>(method: string, path: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
    let res: HttpReply;
    try {
      res = await httpRequest(this.base + path, {
        method,
        headers: { authorization: this.auth, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs,
      });
    } catch (err) {
      const e = err as { code?: string; message?: string; name?: string };
      // unreachable now: before the run (status) or during it (the lab stops with an environment error)
      const cause =
        e.name === 'TimeoutError'
          ? `no answer to ${method} ${decodeURIComponent(path)} within ${Math.round(timeoutMs / 1000)} s`
          : e.code === 'ECONNRESET'
            ? `connection lost (${e.code})`
            : networkCause(e, String(e.message));
      throw new ServiceLost('RabbitMQ management API', this.url, cause);
    }
    if (res.status === 401)
      throw new EnvError(
        `RabbitMQ management API at ${maskUrl(this.url)}: credentials refused`,
        'check MQLAB_MGMT_URL (the admin account), or ' + UP_HINT,
      );
    if (res.status === 404 && method === 'GET') return null as T;
    if (!res.ok)
      throw new EnvError(`RabbitMQ management API ${method} ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    if (res.status === 204) return undefined as T;
    return (res.text ? JSON.parse(res.text) : undefined) as T;
  }

  async overview(): Promise<{
    rabbitmq_version: string;
    erlang_version: string;
    product_name?: string;
    product_version?: string;
  }> {
    return this.request('GET', '/api/overview');
  }

  /** the names of the broker's enabled feature flags (GET /api/feature-flags: any management user) */
  async enabledFeatureFlags(): Promise<string[]> {
    const flags = await this.request<{ name: string; state: string }[] | null>('GET', '/api/feature-flags');
    return (flags ?? []).filter((f) => f.state === 'enabled').map((f) => f.name);
  }

  async queue(name: string): Promise<QueueStats | null> {
    const q = await this.request<Record<string, unknown> | null>(
      'GET',
      `/api/queues/${this.v()}/${encodeURIComponent(name)}`,
    );
    return q ? toStats(q) : null;
  }

  /**
   * One queue as the broker holds it now, not as the statistics database last saw it:
   * `disable_stats=true&enable_queue_totals=true` answers from the queue record (the policy in
   * force: `rabbit_policy:name/1`) and the queue's own counters (a quorum queue's
   * `queue_coarse_metrics`, written on its tick), with no metrics collector or sample bucket between
   * them and the reply (rabbitmq_management rabbit_mgmt_wm_queues `queues_with_totals`, the same at
   * v3.10.8 and v4.3.5). From 4.0.0 the single-queue URL answers the same items for one queue
   * (rabbit_mgmt_wm_queue `queue_with_totals`, commit 09d1ec1, v4.0.0; ≈2 ms where the vhost's list of
   * 500 queues takes ≈40 ms); before (3.10.8) it answers without counts or policy, and the vhost's
   * list it is. Which one the broker has is learnt from its first answer.
   */
  async queueNow(name: string): Promise<QueueStats | null> {
    if (this.totalsByName !== false) {
      const one = await this.request<Record<string, unknown> | null>(
        'GET',
        `/api/queues/${this.v()}/${encodeURIComponent(name)}?disable_stats=true&enable_queue_totals=true`,
      );
      if (one === null) return null;
      this.totalsByName = 'messages' in one;
      if (this.totalsByName) return toStats(one);
    }
    const list = await this.request<Record<string, unknown>[] | null>(
      'GET',
      `/api/queues/${this.v()}?disable_stats=true&enable_queue_totals=true`,
    );
    const q = (list ?? []).find((x) => x.name === name);
    return q ? toStats(q) : null;
  }

  /**
   * queueNow with the definition of the policy its record names, on every line. From 4.2.5 the reply
   * carries the record's `effective_policy_definition` itself (among a quorum queue's `type_specific`
   * fields: rabbit_quorum_queue format_policy_fields, commit 4a5178b2c4, #15182: in v4.2.5 … v4.3.5,
   * not in v4.2.4; measured on 4.3.6); before, only the policy's name (3.10.8: `type_specific` is
   * members, online and leader, rabbit_quorum_queue format/1; measured on 3.10.8 and 4.0.5), so the
   * definition is the policy's own, asked of GET /api/policies right after
   * (`policyFrom`). That is the effective one for every key but the few an operator policy may also
   * set, none of them a dead-letter key on 3.10.8 (expires, message-ttl, max-length(-bytes),
   * max-in-memory-*, delivery-limit: rabbit_policies.erl).
   */
  async queueNowWithPolicy(name: string): Promise<QueueStats | null> {
    const q = await this.queueNow(name);
    if (!q || q.policy === null || q.policyDefinition !== null) return q;
    return { ...q, policyDefinition: (await this.policy(q.policy))?.definition ?? null, policyFrom: 'policy' };
  }

  /** one queue's statistics with the time bucket of their sample (GET …?lengths_age=5&lengths_incr=1) */
  async queueSample(name: string): Promise<QueueStats | null> {
    const q = await this.request<Record<string, unknown> | null>(
      'GET',
      `/api/queues/${this.v()}/${encodeURIComponent(name)}?lengths_age=5&lengths_incr=1`,
    );
    if (!q) return null;
    const samples = (q.messages_details as { samples?: { timestamp?: number }[] } | undefined)?.samples;
    const ts = samples?.[0]?.timestamp;
    return { ...toStats(q), ...(typeof ts === 'number' ? { sampledBy: ts } : {}) };
  }

  async queues(): Promise<QueueStats[]> {
    const list = await this.request<Record<string, unknown>[] | null>('GET', `/api/queues/${this.v()}`);
    return (list ?? []).map(toStats);
  }

  async bindings(): Promise<BindingInfo[]> {
    return (await this.request<BindingInfo[] | null>('GET', `/api/bindings/${this.v()}`)) ?? [];
  }

  /** the bindings from one exchange to one queue (one small request, whatever else the vhost holds) */
  async bindingsBetween(exchange: string, queue: string): Promise<BindingInfo[]> {
    return (
      (await this.request<BindingInfo[] | null>(
        'GET',
        `/api/bindings/${this.v()}/e/${encodeURIComponent(exchange)}/q/${encodeURIComponent(queue)}`,
      )) ?? []
    );
  }

  /** is `queue` bound to `exchange` with `routingKey` (as the broker lists its bindings) */
  async hasBinding(exchange: string, queue: string, routingKey: string): Promise<boolean> {
    return (await this.bindingsBetween(exchange, queue)).some((b) => b.routing_key === routingKey);
  }

  /** the bindings to one queue, the default exchange's included (one small request) */
  async queueBindings(queue: string): Promise<BindingInfo[]> {
    return (
      (await this.request<BindingInfo[] | null>(
        'GET',
        `/api/queues/${this.v()}/${encodeURIComponent(queue)}/bindings`,
      )) ?? []
    );
  }

  /** the bindings from one exchange (one small request) */
  async exchangeBindings(exchange: string): Promise<BindingInfo[]> {
    return (
      (await this.request<BindingInfo[] | null>(
        'GET',
        `/api/exchanges/${this.v()}/${encodeURIComponent(exchange)}/bindings/source`,
      )) ?? []
    );
  }

  /** one exchange, or null (one small request) */
  async exchange(name: string): Promise<{ name: string; type: string } | null> {
    return this.request<{ name: string; type: string } | null>(
      'GET',
      `/api/exchanges/${this.v()}/${encodeURIComponent(name)}`,
    );
  }

  async exchanges(): Promise<{ name: string; type: string }[]> {
    return (await this.request<{ name: string; type: string }[] | null>('GET', `/api/exchanges/${this.v()}`)) ?? [];
  }

  async policies(): Promise<PolicyInfo[]> {
    return (await this.request<PolicyInfo[] | null>('GET', `/api/policies/${this.v()}`)) ?? [];
  }

  /** one policy of the vhost, or null (one small request, whatever else the vhost holds) */
  async policy(name: string): Promise<PolicyInfo | null> {
    return this.request<PolicyInfo | null>('GET', `/api/policies/${this.v()}/${encodeURIComponent(name)}`);
  }

  /**
   * PUT a policy; the broker answers once the matching queues have taken it (a quorum queue's state
   * machine too), so a caller that knows how many queues it matches may allow longer than one request
   */
  async putPolicy(p: PolicySpec, timeoutMs = REQUEST_TIMEOUT_MS): Promise<void> {
    await this.request(
      'PUT',
      `/api/policies/${this.v()}/${encodeURIComponent(p.name)}`,
      {
        pattern: p.pattern,
        definition: p.definition,
        'apply-to': p.applyTo,
        priority: p.priority ?? 0,
      },
      timeoutMs,
    );
  }

  /** DELETE a policy (gone already: fine); a broker that does not answer within `timeoutMs` is not waited for */
  async deletePolicy(name: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<void> {
    const res = await httpRequest(`${this.base}/api/policies/${this.v()}/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: { authorization: this.auth },
      timeoutMs,
    }).catch(() => null);
    if (res && !res.ok && res.status !== 404) throw new EnvError(`could not delete policy ${name}: HTTP ${res.status}`);
  }

  /**
   * Queue statistics are sampled by the broker (every few seconds); wait until the sample
   * satisfies `ok` or the time is up, looking every `everyMs`, and return the last sample.
   * `from: 'now'` reads the queue as the broker holds it instead (queueNow).
   */
  async queueWhen(
    name: string,
    ok: (q: QueueStats) => boolean,
    timeoutMs: number,
    everyMs = 250,
    from: 'statistics' | 'now' = 'statistics',
  ): Promise<QueueStats | null> {
    const read = () => (from === 'now' ? this.queueNow(name) : this.queue(name));
    const end = Date.now() + timeoutMs;
    let last = await read();
    while (!(last && ok(last)) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, everyMs));
      last = await read();
    }
    return last;
  }
}

function toStats(q: Record<string, unknown>): QueueStats {
  const n = (k: string) => (typeof q[k] === 'number' ? q[k] : 0);
  return {
    name: String(q.name),
    type: text(q.type, 'classic'),
    messages: n('messages'),
    ready: n('messages_ready'),
    unacked: n('messages_unacknowledged'),
    policy: (q.policy as string) || null,
    policyDefinition: (q.effective_policy_definition as Record<string, unknown>) ?? null,
    consumers: n('consumers'),
    arguments: (q.arguments ?? {}) as Record<string, unknown>,
  };
}
