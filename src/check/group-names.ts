/** The check groups by name, in the order a run takes them (cheap to import: --help and --only read it). */
export const GROUP_NAMES = ['crash', 'duplicate', 'poison', 'consumer-timeout', 'broker-restart', 'db-outage'] as const;
export type GroupName = (typeof GROUP_NAMES)[number];
