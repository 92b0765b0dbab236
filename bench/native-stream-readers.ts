// Stream clients read by bench/sse-reader.c in a process of their own (on the driver's core: it
// inherits the driver's pinning), talked to over its stdin and stdout.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { streamRequest, type ReaderCounts, type StreamReaders } from './stream-readers.ts';

export async function openNativeReaders(
  binary: string,
  url: URL,
  authorization: string,
  clients: number,
  filtered = false,
): Promise<StreamReaders> {
  const { address } = await lookup(url.hostname, { family: 4 });
  const child = spawn(binary, [address, url.port, String(clients)], {
    env: { ...process.env, SSE_REQUEST: streamRequest(url, authorization, filtered) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  const early: string[] = [];
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else early.push(line);
  });
  let exited: string | null = null;
  child.on('exit', (code, signal) => {
    exited = `the native SSE reader exited (${signal ?? code})`;
    for (const next of waiting.splice(0)) next(`error ${exited}`);
  });
  const nextLine = () =>
    new Promise<string>((resolve) => {
      const line = early.shift();
      if (line !== undefined) resolve(line);
      else if (exited) resolve(`error ${exited}`);
      else waiting.push(resolve);
    });
  /** One command, one answer line that starts with `answer`; commands go one at a time. */
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (command: string, answer: string) => {
    const asked = queue.then(async () => {
      child.stdin.write(`${command}\n`);
      const line = await nextLine();
      if (!line.startsWith(`${answer} `)) throw new Error(`native SSE reader: ${line}`);
      return line.slice(answer.length + 1).split(' ');
    });
    queue = asked.catch(() => {});
    return asked;
  };

  const first = await nextLine();
  if (!first.startsWith('connected ')) {
    child.kill();
    throw new Error(`native SSE reader: ${first}`);
  }
  const connected = Number(first.slice('connected '.length));
  return {
    kind: 'native',
    connected,
    async counts(): Promise<ReaderCounts> {
      const [warm, timed, closed, cpuMs] = (await ask('count', 'count')).map(Number);
      return { warm: warm!, timed: timed!, closed: closed!, cpuMs: cpuMs! };
    },
    async timedEvents() {
      const file = join(tmpdir(), `svc-bench-sse-${process.pid}-${Date.now()}.bin`);
      try {
        await ask(`dump ${file}`, 'dumped');
        const bytes = readFileSync(file);
        // A copy: a Buffer's offset in its ArrayBuffer need not be a multiple of 8.
        return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      } finally {
        rmSync(file, { force: true });
      }
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}
