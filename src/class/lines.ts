/**
 * What a student is handed: one line to paste into their shell, on the teacher's machine or on a
 * laptop with a tunnel to it. It sets the three URLs (their own account, vhost and database schema),
 * their namespace, and MQLAB_STUDENT (their runs are recorded on the teacher's board; the labs that
 * stop services are left to the teacher). Nothing else is needed: no root, no file of the teacher's.
 */
import { ACCOUNTS, type Ports } from '../core/defaults.js';
import type { Student } from './roster.js';

export interface StudentCard {
  name: string;
  namespace: string;
  /** the RabbitMQ vhost and the PostgreSQL schema (both the student's name) */
  vhost: string;
  schema: string;
  urls: { amqp: string; pg: string; mgmt: string };
  /** the line to paste: `export MQLAB_STUDENT=… MQLAB_NAMESPACE=… MQLAB_AMQP_URL=… MQLAB_PG_URL=… MQLAB_MGMT_URL=…` */
  line: string;
}

export function studentCard(s: Student, ports: Ports, host = '127.0.0.1'): StudentCard {
  const auth = `${s.name}:${s.password}@${host}`;
  const urls = {
    amqp: `amqp://${auth}:${ports.amqp}/${s.name}`,
    pg: `postgres://${auth}:${ports.postgres}/${ACCOUNTS.database}`,
    mgmt: `http://${auth}:${ports.management}`,
  };
  // the name first: whoever reads the sheet finds their line by it, and pastes all of it
  const vars = {
    MQLAB_STUDENT: s.name,
    MQLAB_NAMESPACE: s.name,
    MQLAB_AMQP_URL: urls.amqp,
    MQLAB_PG_URL: urls.pg,
    MQLAB_MGMT_URL: urls.mgmt,
  };
  const line = `export ${Object.entries(vars)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
  return { name: s.name, namespace: s.name, vhost: s.name, schema: s.name, urls, line };
}

/** the ports a student forwards through a tunnel to the teacher's machine (the same numbers on both ends) */
export const tunnelCommand = (ports: Ports, login = 'STUDENT@TEACHER-HOST') =>
  `ssh -N ${[ports.amqp, ports.postgres, ports.management].map((p) => `-L ${p}:127.0.0.1:${p}`).join(' ')} ${login}`;
