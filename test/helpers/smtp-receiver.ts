// A real SMTP server on 127.0.0.1 that keeps every mail it receives, decoded enough to find links and codes.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The raw message with quoted-printable soft breaks and `=3D` undone. */
  text: string;
}

export interface SmtpReceiver {
  url: string;
  mails: ReceivedMail[];
  /** Resolves with the first mail to `address` that matches, as soon as it has arrived. */
  waitFor(address: string, match?: RegExp): Promise<ReceivedMail>;
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
  const find = (address: string, match?: RegExp) =>
    mails.find((mail) => mail.to.includes(address) && (!match || match.test(mail.text)));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(address, match) {
      return new Promise((resolve) => {
        const check = () => {
          const mail = find(address, match);
          if (!mail) return;
          waiters.delete(check);
          resolve(mail);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
