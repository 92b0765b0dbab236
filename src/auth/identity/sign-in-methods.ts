// GET {auth.basePath}/methods: which ways of signing in are on, so a sign-in page (the console's, or an
// app's) shows a button for each and nothing else. Public: it says only what the configuration offers.
import type { SvcConfig } from '../../config/config-types.ts';
import { emailAndPasswordEnabled } from './account-management-options.ts';
import { oidcProviders } from './oidc-providers.ts';
import { enabledSocialProviders } from './social-providers.ts';

export interface SignInMethods {
  emailAndPassword: boolean;
  magicLink: boolean;
  emailOtp: boolean;
  twoFactor: boolean;
  /** better-auth provider ids: POST {basePath}/sign-in/social {provider}. */
  social: string[];
  /** Also POST {basePath}/sign-in/social {provider: id}. */
  oidc: { id: string; name: string }[];
}

export function signInMethods(config: SvcConfig): SignInMethods {
  return {
    emailAndPassword: emailAndPasswordEnabled(config),
    magicLink: config.auth.magicLink?.enabled === true,
    emailOtp: config.auth.emailOtp?.enabled === true,
    twoFactor: config.auth.twoFactor?.enabled === true,
    social: enabledSocialProviders(config),
    oidc: oidcProviders(config).map((provider) => ({ id: provider.id, name: provider.name ?? provider.id })),
  };
}
