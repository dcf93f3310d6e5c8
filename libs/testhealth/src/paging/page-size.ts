import { PageQueryError } from './errors';

/**
 * 1..100 as in Trunk's published page_query, so a client written
 * against Trunk never gets a 400 from us for a size Trunk accepts; 25 when omitted.
 */
export const PAGE_SIZE = { min: 1, max: 100, default: 25 } as const;

export interface PageSizeLimits {
  min: number;
  max: number;
  default: number;
}

export function pageSizeOf(value: unknown, limits: PageSizeLimits = PAGE_SIZE): number {
  if (value === undefined || value === null) return limits.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < limits.min || value > limits.max) {
    throw new PageQueryError('INVALID_PAGE_SIZE', `page_size must be an integer from ${limits.min} to ${limits.max}`);
  }
  return value;
}
