// What `svc start` prints once it listens: the URL, and when the address is every interface a line that
// says so, since that makes the instance reachable from the network (the default is 127.0.0.1).

const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0']);

/** `url`: where the server listens, as server.ts writes it; `host`: the address it was given. */
export function listenLines(url: string, host: string): string[] {
  const lines = [`listening on ${url}`];
  if (EVERY_INTERFACE.has(host)) {
    lines.push(
      `listening on every interface (${host}): reachable from other machines; HOST=127.0.0.1 serves this machine only`,
    );
  }
  return lines;
}
