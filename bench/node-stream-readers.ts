// Stream clients read by Node on raw sockets (cheaper than node:http), in the driver's process: the
// fallback where no C compiler builds bench/sse-reader.c. Each read costs ~20 µs of JavaScript, libuv
// and stream machinery; at 1,000 clients the driver's core is near full and its own queueing adds to
// the measured latency (see BENCHMARKS.md).
import { connect, type Socket } from 'node:net';
import { scanMarks, type SseMarks } from './sse-marks.ts';
import { monotonicMs, requestOf, streamRequest, type ReaderCounts, type StreamReaders } from './stream-readers.ts';

export async function openNodeReaders(
  url: URL,
  authorization: string,
  clients: number,
  filtered = false,
): Promise<StreamReaders> {
  const port = Number(url.port);
  const template = streamRequest(url, authorization, filtered);
  let timed = new Float64Array(1 << 20);
  let timedCount = 0;
  let warm = 0;
  let closed = 0;
  let connected = 0;
  const sockets: Socket[] = [];

  /** When the read being handled was taken up: the first thing each read does. */
  let readAt = 0;
  const marks: SseMarks = {
    timed(seq: number) {
      if (timedCount * 2 === timed.length) {
        const grown = new Float64Array(timed.length * 2);
        grown.set(timed);
        timed = grown;
      }
      timed[timedCount * 2] = seq;
      timed[timedCount * 2 + 1] = readAt;
      timedCount++;
    },
    warm() {
      warm++;
    },
  };

  const open = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, url.hostname);
      let head = true;
      let pending = '';
      socket.setEncoding('latin1');
      socket.once('error', reject);
      socket.on('connect', () => {
        socket.on('error', () => {}); // after the head, a reset just ends this client
        socket.write(requestOf(template, index));
      });
      socket.on('close', () => {
        if (!head) closed++;
      });
      socket.on('data', (chunk: string) => {
        readAt = monotonicMs();
        let text = pending + chunk;
        if (head) {
          if (!text.includes(': connected')) {
            pending = text;
            if (/^HTTP\/1\.1 [^2]/.test(text)) reject(new Error(`stream answered ${text.slice(0, 200)}`));
            return;
          }
          head = false;
          connected++;
          resolve();
        }
        // Only complete messages are scanned; the rest waits for the next chunk.
        const end = text.lastIndexOf('\n\n');
        if (end < 0) {
          pending = text;
          return;
        }
        pending = text.slice(end + 2);
        text = text.slice(0, end);
        scanMarks(text, marks);
      });
      sockets.push(socket);
    });

  try {
    for (let i = 0; i < clients; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, clients - i) }, (_, j) => open(i + j)));
    }
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    throw error;
  }

  return {
    kind: 'node',
    connected,
    async counts(): Promise<ReaderCounts> {
      return { warm, timed: timedCount, closed, cpuMs: 0 };
    },
    async timedEvents() {
      return timed.slice(0, timedCount * 2);
    },
    close() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
