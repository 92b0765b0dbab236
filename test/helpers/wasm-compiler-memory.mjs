// Loaded with `node --import` into a `svc start` child: once svc listens, sends 3,000 requests through
// undici (whose response parser is svc's wasm) and writes V8's peak compiler memory to
// $WASM_MEMORY_REPORT, in MB. Plain JavaScript: the child runs svc's bundle without tsx.
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

const report = process.env.WASM_MEMORY_REPORT;
const listen = http.Server.prototype.listen;
let started = false;
http.Server.prototype.listen = function (...args) {
  if (!started) {
    started = true;
    this.once('listening', () => void measure());
  }
  return listen.apply(this, args);
};

async function measure() {
  const { Agent, request } = await import('undici');
  const server = http.createServer((req, res) => req.resume().on('end', () => res.end('{"ok":true}')));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent();
  const url = `http://127.0.0.1:${server.address().port}/`;
  for (let i = 0; i < 3000; i++) {
    const response = await request(url, { method: 'POST', body: 'x'.repeat(500), dispatcher: agent });
    await response.body.text();
  }
  await agent.close();
  server.close();
  writeFileSync(report, String(getHeapStatistics().peak_malloced_memory / 2 ** 20));
}
