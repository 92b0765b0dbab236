// What scripts/build.mjs leaves out of dist/bundle/: the package's runtime dependencies (package.json's
// `dependencies` and `optionalDependencies` are exactly these; test/build/bundle-externals.test.ts checks it).
/**
 * The dependencies the bundle leaves to node_modules, and why: native code (better-sqlite3 and its
 * Node-API build); packages the public type declarations (dist/types/) import, which a user's compiler
 * must find (fastify, and pino and light-my-request, which fastify brings anyway); packages svc loads
 * by name at run time only when a deployment uses them (pg, whose internal files it reads, ioredis,
 * nodemailer; see src/tools/optional-packages.ts); and @fastify/cors, a fastify plugin that checks the
 * fastify it is given. Everything else is pure JavaScript bundled into dist/bundle/.
 */
export const EXTERNAL = [
  'better-sqlite3',
  'better-sqlite3-napi',
  'fastify',
  '@fastify/cors',
  'light-my-request',
  'pino',
  'pg',
  // pg's own optional peer, required only when asked for; never installed.
  'pg-native',
  'ioredis',
  'nodemailer',
  // Native image code with its own prebuilt binaries; loaded the first time a thumbnail is made.
  'sharp',
];
