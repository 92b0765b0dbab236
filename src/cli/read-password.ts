// The password for `svc users create`: from standard input (`--password-stdin`, for scripts), or typed
// at a terminal without echo. Never from the command line by default: arguments are visible in `ps`
// and kept in shell history.

export interface PasswordSource {
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
}

/** All of standard input, less one trailing line break. */
export async function readPasswordFromStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks at the terminal with echo off; undefined when standard input is not a terminal. */
export function promptPassword(
  { stdin, stderr }: PasswordSource,
  question = 'Password: ',
): Promise<string | undefined> {
  if (!stdin.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    let typed = '';
    stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
