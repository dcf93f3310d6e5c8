export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];

export const PRIORITY_VALUES: Record<PriorityName, number> = { urgent: 0, high: 10, medium: 100, low: 200 };
export const DEFAULT_PRIORITY: PriorityName = 'medium';
export const MAX_PRIORITY_VALUE = 255;

/**
 * Urgent is priority 0, the one rule every urgent behaviour keys on: it skips the line, tests alone
 * and pre-empts a running PR (docs/engine.md). Adapters and views ask this, never the number.
 */
export const isUrgent = (priorityValue: number): boolean => priorityValue <= PRIORITY_VALUES.urgent;

/** A number between the named levels takes the name of the level it falls under (50 is medium). */
export const priorityNameOf = (value: number): PriorityName => {
  if (isUrgent(value)) return 'urgent';
  if (value <= PRIORITY_VALUES.high) return 'high';
  if (value <= PRIORITY_VALUES.medium) return 'medium';
  return 'low';
};

export interface Priority {
  value: number;
  name: PriorityName;
}

/** `undefined` means "not given"; callers decide whether that is the default or "keep what it has". */
export const resolvePriority = (input: number | PriorityName): Priority =>
  typeof input === 'number' ? { value: input, name: priorityNameOf(input) } : { value: PRIORITY_VALUES[input], name: input };
