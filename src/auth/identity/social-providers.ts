// auth.social: every social provider better-auth ships, each on only when its credentials are set.
// Provider-specific settings (Entra's tenant, Cognito's pool, Apple's bundle id) are passed through.
import type { BetterAuthOptions } from 'better-auth';
import type { SocialProviderConfig, SvcConfig } from '../../config/config-types.ts';
import { SOCIAL_PROVIDER_NAMES, type SocialProviderName } from '../../config/social-provider-names.ts';

const EXTRA_SETTINGS = ['tenantId', 'domain', 'region', 'userPoolId', 'appBundleIdentifier'] as const;

function trimmed(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

function providerOptions(
  name: SocialProviderName,
  provider: SocialProviderConfig | undefined,
): Record<string, unknown> | undefined {
  const clientSecret = trimmed(provider?.clientSecret);
  // TikTok calls its client id a client key.
  const clientId = name === 'tiktok' ? trimmed(provider?.clientKey) : trimmed(provider?.clientId);
  if (!provider || !clientId || !clientSecret) return undefined;
  const options: Record<string, unknown> =
    name === 'tiktok' ? { clientKey: clientId, clientSecret } : { clientId, clientSecret };
  for (const setting of EXTRA_SETTINGS) {
    const value = trimmed(provider[setting]);
    if (value !== undefined) options[setting] = value;
  }
  if (provider.scopes && provider.scopes.length > 0) options.scope = [...provider.scopes];
  return options;
}

/** The providers that are on, in better-auth's form. */
export function socialProviders(config: SvcConfig): NonNullable<BetterAuthOptions['socialProviders']> {
  const enabled: Record<string, unknown> = {};
  for (const name of SOCIAL_PROVIDER_NAMES) {
    const options = providerOptions(
      name,
      Object.hasOwn(config.auth.social, name) ? config.auth.social[name] : undefined,
    );
    if (options) enabled[name] = options;
  }
  // Each entry has the credentials its provider requires; the per-provider option types cannot be
  // spelled for a list chosen at run time.
  return enabled as NonNullable<BetterAuthOptions['socialProviders']>;
}

/** The names of the providers that are on, in the order better-auth lists them. */
export function enabledSocialProviders(config: SvcConfig): string[] {
  return Object.keys(socialProviders(config));
}
