// auth.oidc: OpenID Connect providers through better-auth's genericOAuth plugin, each found through its
// issuer's discovery document. better-auth treats them as social providers: sign-in is POST
// {basePath}/sign-in/social {provider: <id>, callbackURL}, and the provider sends the user back to
// {basePath}/callback/<id>.
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import type { OidcProviderConfig, SvcConfig } from '../../config/config-types.ts';

const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export function oidcProviders(config: SvcConfig): OidcProviderConfig[] {
  return config.auth.oidc ?? [];
}

export function oidcPlugin(config: SvcConfig): ReturnType<typeof genericOAuth> | undefined {
  const providers = oidcProviders(config);
  if (providers.length === 0) return undefined;
  return genericOAuth({
    config: providers.map((provider) => ({
      providerId: provider.id,
      ...(provider.name ? { name: provider.name } : {}),
      discoveryUrl: discoveryUrl(provider.issuer),
      clientId: provider.clientId,
      ...(provider.clientSecret ? { clientSecret: provider.clientSecret } : {}),
      scopes: provider.scopes ?? DEFAULT_SCOPES,
      pkce: true,
    })),
  });
}
