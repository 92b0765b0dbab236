// A real `svc start` process for tests that need several nodes, signals or kill -9: a config file in a
// temporary folder, a free port, the "listening on" line awaited (bounded), and its log kept for failures.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const START_TIMEOUT_MS = 60_000;

/** Writes a config object as YAML into a new temporary folder; returns the file's path. */
export function writeConfigFile(
  config: Record<string, unknown>,
  dir = mkdtempSync(join(tmpdir(), 'svc-node-')),
): string {
  const file = join(dir, 'svc.config.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

/**
 * The URL a starting svc prints in its "listening on" line, collecting what it prints into `output`;
 * rejects with that output if the process exits first or prints no such line within a minute.
 */
export function listeningUrl(
  child: ChildProcess,
  output: string[],
  label: string,
  onTimeout: () => void = () => {},
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no "listening on" line within ${START_TIMEOUT_MS} ms:\n${output.join('')}`));
    }, START_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code ?? signal}:\n${output.join('')}`));
    });
  });
}

export class SvcProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  #output: string[];

  private constructor(child: ChildProcess, baseUrl: string, output: string[]) {
    this.child = child;
    this.baseUrl = baseUrl;
    this.#output = output;
  }

  /** Starts `svc start --config FILE --port 0`; rejects with the process's output if it does not listen. */
  static async start(configFile: string, env: NodeJS.ProcessEnv = {}): Promise<SvcProcess> {
    const child = spawn(
      process.execPath,
      [SVC, 'start', '--config', configFile, '--port', '0', '--host', '127.0.0.1'],
      {
        env: { ...process.env, LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const baseUrl = await listeningUrl(child, output, 'svc', () => child.kill('SIGKILL'));
    return new SvcProcess(child, baseUrl, output);
  }

  /** Everything the process printed so far (JSON log lines and the listening line). */
  get output(): string {
    return this.#output.join('');
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Sends a signal and waits (bounded) for the exit; resolves with the exit code or signal. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<number | string> {
    if (this.exited) return this.child.exitCode ?? this.child.signalCode ?? 'exited';
    const exit = once(this.child, 'exit') as Promise<[number | null, string | null]>;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const [code, sig] = await exit;
    clearTimeout(timer);
    return code ?? sig ?? 'exited';
  }

  /** Waits until a log line matches (bounded). */
  async waitForOutput(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (Date.now() > deadline)
        throw new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Polls `check` until it returns true (bounded); for state that settles across processes. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
