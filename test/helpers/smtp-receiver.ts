// A real SMTP server on 127.0.0.1 (smtp-server) that keeps every mail it receives, and waits for one.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as sent, quoted-printable soft breaks and `=3D` undone so links read whole. */
  text: string;
}

export interface SmtpReceiver {
  url: string;
  mails: ReceivedMail[];
  /** The first mail to `to` whose text matches, once it has arrived (mails to accounts are sent in the background). */
  waitFor(to: string, match?: RegExp, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          text: raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const find = (to: string, match?: RegExp) => mails.find((m) => m.to.includes(to) && (!match || match.test(m.text)));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, match, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(to, match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no mail to ${to}${match ? ` matching ${match}` : ''}; got ${mails.length} mails`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail under `path` (e.g. `/auth/reset-password/`), as an absolute URL. */
export function linkIn(mail: ReceivedMail, path: string): URL {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`https?://[^\\s"<>]+${escaped}[^\\s"<>]*`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in: ${mail.text.slice(0, 800)}`);
  return new URL(match[0].replace(/&amp;/g, '&'));
}
