const DAY_MS = 86_400_000;

/** Everything recorded before this instant is past retention; null when retention keeps everything (0 days). */
export const retentionCutoff = (now: Date, days: number): Date | null => (days > 0 ? new Date(now.getTime() - days * DAY_MS) : null);
