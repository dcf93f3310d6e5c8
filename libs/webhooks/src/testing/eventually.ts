/** Polls until `check` holds or the generous deadline passes (the machine is slow; no timing is asserted). */
export const eventually = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
