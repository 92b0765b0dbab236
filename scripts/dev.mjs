// `npm run dev`: svc from the TypeScript sources through tsx, whether or not a fresh bundle exists, so
// an edit takes effect at the next start without `npm run build`.
process.env.SVC_FROM_SOURCE = '1';
await import('../bin/svc.js');
