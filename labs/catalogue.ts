/**
 * Every lab, in the order `mqlab all` runs them: its name, and how to load its meta, its code and its
 * broken variants. A new lab is one folder under labs/ plus one line here (`npm run new-lab NAME` writes
 * both). Nothing loads a lab's meta until a command needs it: `mqlab retry` loads retry's alone, `mqlab
 * --help` and `mqlab list` none (the titles are in titles.ts, which `npm run docs` writes from the
 * metas); its variants load only when MQLAB_FAULT names it (src/engine/variants.ts).
 */
import { catalogueEntry, type Catalogue, type LabParts } from '../src/kit/index.js';
import { titles } from './titles.js';

/** one lab: its name, and how to load its meta, its code and its variants (the title is its meta's, from titles.ts) */
const lab = <O, C extends string, F extends string, K extends string>(name: string, parts: LabParts<O, C, F, K>) =>
  catalogueEntry(name, titles[name] ?? name, parts);

export const catalogue: Catalogue = [
  lab('retry', {
    meta: () => import('./retry/meta.js'),
    code: () => import('./retry/lab.js'),
    variants: () => import('./retry/variants.js'),
  }),
  lab('hold', {
    meta: () => import('./hold/meta.js'),
    code: () => import('./hold/lab.js'),
    variants: () => import('./hold/variants.js'),
  }),
  lab('at-most-once-drop', {
    meta: () => import('./at-most-once-drop/meta.js'),
    code: () => import('./at-most-once-drop/lab.js'),
    variants: () => import('./at-most-once-drop/variants.js'),
  }),
  lab('replay', {
    meta: () => import('./replay/meta.js'),
    code: () => import('./replay/lab.js'),
    variants: () => import('./replay/variants.js'),
  }),
  lab('compensate', {
    meta: () => import('./compensate/meta.js'),
    code: () => import('./compensate/lab.js'),
    variants: () => import('./compensate/variants.js'),
  }),
  lab('consumer-crash', {
    meta: () => import('./consumer-crash/meta.js'),
    code: () => import('./consumer-crash/lab.js'),
  }),
  lab('crash-loop', {
    meta: () => import('./crash-loop/meta.js'),
    code: () => import('./crash-loop/lab.js'),
    variants: () => import('./crash-loop/variants.js'),
  }),
  lab('consumer-timeout', {
    meta: () => import('./consumer-timeout/meta.js'),
    code: () => import('./consumer-timeout/lab.js'),
    variants: () => import('./consumer-timeout/variants.js'),
  }),
  lab('publish-confirm', {
    meta: () => import('./publish-confirm/meta.js'),
    code: () => import('./publish-confirm/lab.js'),
    variants: () => import('./publish-confirm/variants.js'),
  }),
  lab('auto-ack-loss', { meta: () => import('./auto-ack-loss/meta.js'), code: () => import('./auto-ack-loss/lab.js') }),
  lab('outbox', {
    meta: () => import('./outbox/meta.js'),
    code: () => import('./outbox/lab.js'),
    variants: () => import('./outbox/variants.js'),
  }),
  lab('retry-dlq', {
    meta: () => import('./retry-dlq/meta.js'),
    code: () => import('./retry-dlq/lab.js'),
    variants: () => import('./retry-dlq/variants.js'),
  }),
  lab('retry-ladder', {
    meta: () => import('./retry-ladder/meta.js'),
    code: () => import('./retry-ladder/lab.js'),
    variants: () => import('./retry-ladder/variants.js'),
  }),
  lab('dead-letter-reasons', {
    meta: () => import('./dead-letter-reasons/meta.js'),
    code: () => import('./dead-letter-reasons/lab.js'),
    variants: () => import('./dead-letter-reasons/variants.js'),
  }),
  lab('requeue-storm', {
    meta: () => import('./requeue-storm/meta.js'),
    code: () => import('./requeue-storm/lab.js'),
    variants: () => import('./requeue-storm/variants.js'),
  }),
  lab('archive', {
    meta: () => import('./archive/meta.js'),
    code: () => import('./archive/lab.js'),
    variants: () => import('./archive/variants.js'),
  }),
  lab('ordering', {
    meta: () => import('./ordering/meta.js'),
    code: () => import('./ordering/lab.js'),
    variants: () => import('./ordering/variants.js'),
  }),
  lab('dlx-loop', {
    meta: () => import('./dlx-loop/meta.js'),
    code: () => import('./dlx-loop/lab.js'),
    variants: () => import('./dlx-loop/variants.js'),
  }),
  lab('retry-loop-limit', {
    meta: () => import('./retry-loop-limit/meta.js'),
    code: () => import('./retry-loop-limit/lab.js'),
    variants: () => import('./retry-loop-limit/variants.js'),
  }),
  lab('order-timeout', {
    meta: () => import('./order-timeout/meta.js'),
    code: () => import('./order-timeout/lab.js'),
    variants: () => import('./order-timeout/variants.js'),
  }),
  lab('delayed-retry', {
    meta: () => import('./delayed-retry/meta.js'),
    code: () => import('./delayed-retry/lab.js'),
    variants: () => import('./delayed-retry/variants.js'),
  }),
  lab('quorum-failover', {
    meta: () => import('./quorum-failover/meta.js'),
    code: () => import('./quorum-failover/lab.js'),
    variants: () => import('./quorum-failover/variants.js'),
  }),
  lab('partition', {
    meta: () => import('./partition/meta.js'),
    code: () => import('./partition/lab.js'),
    variants: () => import('./partition/variants.js'),
  }),
  lab('node-pause', {
    meta: () => import('./node-pause/meta.js'),
    code: () => import('./node-pause/lab.js'),
    variants: () => import('./node-pause/variants.js'),
  }),
  lab('db-outage', {
    meta: () => import('./db-outage/meta.js'),
    code: () => import('./db-outage/lab.js'),
    variants: () => import('./db-outage/variants.js'),
  }),
  lab('broker-restart', {
    meta: () => import('./broker-restart/meta.js'),
    code: () => import('./broker-restart/lab.js'),
    variants: () => import('./broker-restart/variants.js'),
  }),
];
