// The social providers better-auth ships (1.7), each configurable under `auth.social.<name>`. Kept here
// so the config schema names them without importing the identity library; a test checks the list
// against better-auth's own.
export const SOCIAL_PROVIDER_NAMES = [
  'apple', 'atlassian', 'cloudflare', 'cognito', 'discord', 'facebook', 'figma', 'github', 'microsoft',
  'google', 'huggingface', 'slack', 'spotify', 'twitch', 'twitter', 'dropbox', 'kick', 'linear',
  'linkedin', 'gitlab', 'tiktok', 'reddit', 'roblox', 'salesforce', 'vk', 'zoom', 'notion', 'kakao',
  'naver', 'line', 'paybin', 'paypal', 'polar', 'railway', 'vercel', 'wechat',
] as const;

export type SocialProviderName = (typeof SOCIAL_PROVIDER_NAMES)[number];
