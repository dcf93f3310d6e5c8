/** The few calls the benchmarks make to set a server up and to sample an answer, over plain fetch. A string body is sent as it is. */
export const postJson = async (baseUrl: string, path: string, token: string, body: unknown): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${baseUrl}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
};

/** Like postJson, but anything other than 200 is a broken set-up and stops the benchmark. */
export const postOk = async (baseUrl: string, path: string, token: string, body: unknown): Promise<string> => {
  const { status, text } = await postJson(baseUrl, path, token, body);
  if (status !== 200) throw new Error(`POST ${path} answered ${status}: ${text.slice(0, 500)}`);
  return text;
};

/** Runs `work` over `items` with at most `limit` in flight. */
export const inParallel = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
};
