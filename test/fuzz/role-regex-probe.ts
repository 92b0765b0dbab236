// A role rule with a catastrophic regex, and a value a writer chose to trigger it: how long a reader's list
// takes. Shared by input-limits.test.ts, which runs it in a child process where a hang would be synchronous.
import { startTestApp } from '../helpers/test-app.ts';
import type { TestDialect } from '../helpers/test-databases.ts';
import { send } from './fuzz-harness.ts';

export async function probeRoleRegex(
  dialect: TestDialect,
  onReady: () => void = () => {},
): Promise<{ status: number; ms: number }> {
  const t = await startTestApp(dialect, {
    resources: {
      notes: {
        fields: { body: { type: 'text' } },
        permissions: {
          writer: { read: true, create: true },
          reader: { read: { filter: { body: { regex: '^(a+)+$' } } } },
        },
      },
    },
  });
  try {
    const writer = await t.as('writer');
    const reader = await t.as('reader');
    await t.request({ method: 'POST', url: '/v1/notes', auth: writer, payload: { body: `${'a'.repeat(40)}!` } });
    onReady();
    const started = performance.now();
    const listed = await send(t, { method: 'GET', url: '/v1/notes', auth: reader });
    return { status: listed.statusCode, ms: Math.round(performance.now() - started) };
  } finally {
    await t.close();
  }
}
