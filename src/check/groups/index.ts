/** Every check group, in the order a run takes them (group-names.ts holds the names alone). */
import type { GroupName } from '../group-names.js';
import { crash } from './crash.js';
import { duplicate } from './duplicate.js';
import { poison } from './poison.js';
import { consumerTimeout } from './consumer-timeout.js';
import { brokerRestart } from './broker-restart.js';
import { dbOutage } from './db-outage.js';
import type { Group } from './group.js';

export const GROUPS: Record<GroupName, Group> = {
  crash,
  duplicate,
  poison,
  'consumer-timeout': consumerTimeout,
  'broker-restart': brokerRestart,
  'db-outage': dbOutage,
};
