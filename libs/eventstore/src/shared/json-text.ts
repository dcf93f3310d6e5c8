/**
 * JSON text of an event's data or metadata. Every adapter stores JSON, so the memory adapter goes
 * through the same text form: a value that would not survive SQLite or KurrentDB fails everywhere.
 */
export function toJsonText(value: unknown, what: string): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`${what} is not JSON-serialisable`);
  return text;
}
