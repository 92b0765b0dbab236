// At start, every stored signing secret ends up sealed under the current service secret: clear ones
// (stored before secrets were encrypted) are sealed, ones sealed under SVC_SECRET_PREVIOUS are sealed
// again. Each row is replaced only if it still holds what was read, so several nodes starting together
// do it once and a second run changes nothing. A secret no given secret opens stops the start: signing
// with it is impossible, and dropping it silently would stop deliveries unnoticed.
import type { Store } from '../../store/create-store.ts';
import { SecretBox } from '../../tools/secret-box.ts';
import { WEBHOOKS_TABLE } from '../webhook-tables.ts';

export interface SealReport {
  sealed: number;
  resealed: number;
}

export async function sealWebhookSecrets(store: Pick<Store, 'db'>, box: SecretBox): Promise<SealReport> {
  const rows = await store.db.selectFrom(WEBHOOKS_TABLE).select(['id', 'secret']).execute();
  const report: SealReport = { sealed: 0, resealed: 0 };
  for (const row of rows) {
    const id = String(row.id);
    const stored = String(row.secret);
    let plain: string;
    if (SecretBox.isSealed(stored)) {
      const opened = box.open(stored, id);
      if (!opened) {
        throw new Error(
          `the signing secret of webhook ${id} cannot be decrypted with SVC_SECRET: if SVC_SECRET was changed, ` +
            'start once with the old value in SVC_SECRET_PREVIOUS (docs/operations.md, "Rotating SVC_SECRET")',
        );
      }
      if (opened.current) continue;
      plain = opened.plain;
      report.resealed++;
    } else {
      plain = stored;
      report.sealed++;
    }
    await store.db
      .updateTable(WEBHOOKS_TABLE)
      .set({ secret: box.seal(plain, id) })
      .where('id', '=', id)
      .where('secret', '=', stored)
      .execute();
  }
  return report;
}
