/** The compensate lab's names (two tables, no queue), schema and reset to the starting rows. */
import type { Names } from '../../src/kit/index.js';
import type { Tables } from './release.js';

export const ORDER = { orderId: 'order-42', sku: 'book' };
export const START_AVAILABLE = 9;

export const names = (n: Names): Tables => ({ reservation: n.t('retry_reservation'), stock: n.t('retry_stock') });

export function schema(n: Names): string {
  const name = names(n);
  return (
    `CREATE TABLE IF NOT EXISTS ${name.reservation}(order_id text PRIMARY KEY, state text NOT NULL);\n` +
    `CREATE TABLE IF NOT EXISTS ${name.stock}(sku text PRIMARY KEY, available int NOT NULL);`
  );
}

/** the starting rows, whatever an earlier run left: book 9, order-42 RESERVED */
export function reset(n: Names): string {
  const name = names(n);
  return (
    `INSERT INTO ${name.stock} VALUES ('${ORDER.sku}', ${START_AVAILABLE}) ON CONFLICT (sku) DO UPDATE SET available = ${START_AVAILABLE};\n` +
    `INSERT INTO ${name.reservation} VALUES ('${ORDER.orderId}', 'RESERVED') ON CONFLICT (order_id) DO UPDATE SET state = 'RESERVED';`
  );
}
