/**
 * The administrative path of a set of mqlab's own services, as class mode needs it: the RabbitMQ
 * node's own CLI (run as the node's account, authenticated by its Erlang cookie) and PostgreSQL's
 * superuser (the data folder's secret): src/services/admin.ts.
 */
export { nodeCli, passwordHash, postgresAdmin, type CliResult } from '../services/admin.js';
