// Starts a server (svc or the ceiling) as a child process pinned to one core, waits for its
// `listening on URL` line, and stops it with SIGTERM so it can shut down (and write a CPU profile).
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  pid: number;
  url: string;
  /** Everything the process wrote to stderr so far (for failures). */
  stderr(): string;
  stop(): Promise<number | null>;
}

export interface ServerCommand {
  /** Node flags, e.g. `--cpu-prof`. */
  nodeFlags?: string[];
  script: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cpu: number;
  cwd: string;
  startTimeoutMs?: number;
}

export function startServerProcess(command: ServerCommand): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    'taskset',
    ['-c', String(command.cpu), process.execPath, ...(command.nodeFlags ?? []), command.script, ...command.args],
    { cwd: command.cwd, env: command.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${command.startTimeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`));
    }, command.startTimeoutMs ?? 60_000);
    const early = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${signal ?? code}) before listening\n${stdout}\n${stderr}`));
    };
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!match || !child.pid) return;
      clearTimeout(timer);
      child.off('exit', early);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        pid: child.pid,
        url: match[1]!,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode !== null) return child.exitCode;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      });
    });
  });
}
