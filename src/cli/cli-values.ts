// The parsed options of any `svc` command; each command accepts only its own (cli-commands.ts) and
// reads only those.
export interface CliValues {
  config?: string;
  port?: string;
  host?: string;
  'allow-destructive'?: boolean;
  yaml?: boolean;
  email?: string;
  password?: string;
  'password-stdin'?: boolean;
  role?: string;
  'allowed-roles'?: string;
  verified?: boolean;
  rotate?: boolean;
  resource?: string;
  url?: string;
  key?: string;
  batch?: string;
  format?: string;
  report?: string;
  skip?: string;
  repair?: boolean;
  'older-than'?: string;
  help?: boolean;
}
