// Checks a TOTP code against the secret better-auth's twoFactor plugin stored for a user (encrypted
// with the identity secret), with better-auth's own decryption and OTP helpers: what its
// /two-factor/verify-totp does, for POST /token, which has no browser session to carry a sign-in's
// two-factor cookie.
import type { AuthContext } from 'better-auth';
import { symmetricDecrypt } from 'better-auth/crypto';
import { createOTP } from '@better-auth/utils/otp';
import { TWO_FACTOR_TABLE } from './identity-plugins.ts';

/** better-auth's defaults, which svc does not change. */
const TOTP_DIGITS = 6;
const TOTP_PERIOD_SECONDS = 30;

interface TwoFactorRow {
  secret: string;
  verified?: boolean | null;
}

/** Whether the user has two-factor on: the plugin's flag on the user, set once an enabling code was verified. */
export function hasTwoFactor(user: object): boolean {
  return Object.hasOwn(user, 'twoFactorEnabled') && (user as { twoFactorEnabled?: unknown }).twoFactorEnabled === true;
}

export async function verifyTotp(context: AuthContext, userId: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const row = await context.adapter.findOne<TwoFactorRow>({
    model: TWO_FACTOR_TABLE,
    where: [{ field: 'userId', value: userId }],
  });
  if (!row || row.verified === false) return false;
  const secret = await symmetricDecrypt({ key: context.secretConfig, data: row.secret });
  return createOTP(secret, { digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS }).verify(code);
}
