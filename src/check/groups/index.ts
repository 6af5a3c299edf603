/** Every check group, in the order a run takes them (group-names.ts holds the names alone). */
import type { GroupName } from '../group-names.js';
import { crash } from './crash.js';
import { duplicate } from './duplicate.js';
import { poison } from './poison.js';
import type { Group } from './group.js';

export const GROUPS: Partial<Record<GroupName, Group>> = { crash, duplicate, poison };
