// Packages that only some deployments use (PostgreSQL, Redis, SMTP, image thumbnails) are loaded the first time they are
// needed instead of at start: a service on the embedded SQLite default without Redis or SMTP never
// holds them (about 15 MB of resident memory and 4 MB of heap together, measured on Node 20).
import { createRequire } from 'node:module';
import type pg from 'pg';
import type nodemailer from 'nodemailer';
import type sharp from 'sharp';

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

/** `sharp` (native image code, about 30 MB resident): only a service that makes thumbnails loads it. */
export function loadSharp(): typeof sharp {
  return require('sharp') as typeof sharp;
}
