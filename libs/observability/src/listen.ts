import type { Server } from 'node:http';

/**
 * Binds a server, turning the usual failures into a sentence that names the setting to change. Entry
 * points bind before they start anything else, so a port in use starts nothing (docs/operations.md).
 */
export const listenOrExplain = (server: Server, port: number, host: string, setting: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE')
        reject(
          Object.assign(
            new Error(
              `${host}:${port} is already in use (EADDRINUSE): another process (another Railyard?) listens there; stop it or set ${setting}`,
            ),
            { code: err.code },
          ),
        );
      else if (err.code === 'EACCES')
        reject(
          Object.assign(new Error(`not allowed to listen on ${host}:${port} (EACCES); choose another ${setting}`), { code: err.code }),
        );
      else reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
