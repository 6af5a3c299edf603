/**
 * Every port, account and name that `mqlab up` provisions, in one place.
 * compose.yaml and config/ repeat these literally; src/defaults.test.ts keeps them in step.
 * The ports sit beside the usual ones (5672, 15672, 5432) so a system RabbitMQ or
 * PostgreSQL on the same machine is never touched.
 */
export const PORTS = {
  amqp: 5772,
  management: 15772,
  postgres: 5532,
  /** local backend only: Erlang distribution and the private epmd of the node */
  erlangDist: 25772,
  epmd: 4469,
} as const;

export const ACCOUNTS = {
  vhost: 'lab',
  app: { user: 'app', password: 'app-lab-only' },
  /** management API only: policies and queue statistics */
  admin: { user: 'mqlab-admin', password: 'admin-lab-only' },
  database: 'lab',
  schema: 'lab',
  pgSuperuser: { user: 'postgres', password: 'postgres-lab-only' },
} as const;

export const DEFAULT_URLS = {
  amqp: `amqp://${ACCOUNTS.app.user}:${ACCOUNTS.app.password}@127.0.0.1:${PORTS.amqp}/${ACCOUNTS.vhost}`,
  pg: `postgres://${ACCOUNTS.app.user}:${ACCOUNTS.app.password}@127.0.0.1:${PORTS.postgres}/${ACCOUNTS.database}`,
  mgmt: `http://${ACCOUNTS.admin.user}:${ACCOUNTS.admin.password}@127.0.0.1:${PORTS.management}`,
} as const;
