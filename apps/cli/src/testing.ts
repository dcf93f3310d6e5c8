import { execFile } from 'node:child_process';
import path from 'node:path';
import { runCli } from './program';

/** For the CLI's tests: one command line's exit code and output. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const PROJECT_ROOT = path.resolve(__dirname, '../../..');

/** The command line in this process, for the many small cases. */
export const cliInProcess = async (argv: string[], env: NodeJS.ProcessEnv): Promise<CliRun> => {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await runCli(argv, io, env);
  return { code, stdout, stderr };
};

/** The real `railyard` bin in a child process, the environment added to this one's. */
export const cliViaBin = (argv: string[], env: NodeJS.ProcessEnv): Promise<CliRun> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['apps/cli/bin/railyard.js', ...argv],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
      },
    );
  });
