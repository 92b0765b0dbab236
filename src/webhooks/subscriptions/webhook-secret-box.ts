// The box webhook signing secrets are sealed in: AES-256-GCM under a key derived from the service
// secret (SVC_SECRET), each bound to its subscription's id. During a rotation the previous secret
// still opens what it sealed, until sealWebhookSecrets() has sealed everything again.
import { SecretBox } from '../../tools/secret-box.ts';

const PURPOSE = 'svc webhook signing secrets v1';

export function webhookSecretBox(serviceSecret: string, previousServiceSecret?: string): SecretBox {
  return new SecretBox(serviceSecret, PURPOSE, previousServiceSecret ? [previousServiceSecret] : []);
}
