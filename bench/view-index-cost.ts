// In process, what handing one event to 1,000 filtered stream views costs: every view testing it (as
// before live-views.ts) against the index of their equality conditions. Two sets of 1,000 filters: the
// fan-out bench's (`status = published AND title <> not-for-<n>`, which every post meets: the index
// cannot skip any) and one team per stream (`team = team-<n> AND status = published`: one view admits
// each post). No sockets: the SSE bench (npm run bench) measures delivery end to end.
//
//   node --import tsx bench/view-index-cost.ts
import type { AdminPrincipal } from '../src/model/principal.ts';
import type { RecordEvent } from '../src/model/record-event.ts';
import { resolveAccess } from '../src/permissions/resolve-access.ts';
import { compileFilter } from '../src/query/compile-filter.ts';
import { compileResource } from '../src/resources/compile-resource.ts';
import { uuidv7 } from '../src/store/uuid-v7.ts';
import { createEventView, viewIndexOf } from '../src/stream/event-view.ts';
import { LiveViews } from '../src/stream/live-views.ts';
import { EVENT_KINDS } from '../src/stream/stream-query.ts';
import type { EventHub } from '../src/events/event-hub.ts';
const posts = compileResource('posts', {
  fields: { title: { type: 'string' }, status: { type: 'string' }, team: { type: 'string' } },
  permissions: {},
});
const grant = resolveAccess(posts, { kind: 'admin' } as AdminPrincipal, 'read');
const mk = (f: Record<string, unknown>) =>
  createEventView(posts, grant, {
    kinds: new Set(EVENT_KINDS),
    fields: ['title', 'status', 'team'],
    filter: compileFilter(f, posts, { userId: null, role: 'admin' }),
  });
const benchFilters = Array.from({ length: 1000 }, (_, i) =>
  mk({ _and: [{ status: { eq: 'published' } }, { title: { neq: `not-for-${i}` } }] }),
);
const teamFilters = Array.from({ length: 1000 }, (_, i) =>
  mk({ _and: [{ team: { eq: `team-${i}` } }, { status: { eq: 'published' } }] }),
);
const ev = (i: number): RecordEvent => {
  const id = uuidv7();
  const row = {
    id,
    title: `t${i}`,
    status: 'published',
    team: `team-${i % 1000}`,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
  };
  return {
    id: uuidv7(),
    type: 'posts.created',
    kind: 'created',
    resource: 'posts',
    resourceId: id,
    createdAt: '',
    data: { old: null, new: row, changes: { added: ['title'], updated: [], removed: [] } },
    sessionVariables: { userId: null, role: 'admin' },
    traceContext: {},
  };
};
function run(label: string, views: typeof benchFilters, indexed: boolean) {
  const live = LiveViews.of({} as EventHub, 'posts');
  let admitted = 0;
  for (const v of views)
    live.add(
      {
        queue: (e) => {
          if (v(e)) admitted++;
        },
      },
      viewIndexOf(v)!,
    );
  const N = 2000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const e = ev(i);
    if (indexed) live.dispatch(e);
    else for (const v of views) if (v(e)) admitted++;
  }
  const ms = (performance.now() - t0) / N;
  console.log(
    `${label}: ${(ms * 1000).toFixed(0)} µs per event across ${views.length} views (${admitted / N} admit it)`,
  );
}
for (let r = 0; r < 2; r++) {
  run('bench filters, every view tested', benchFilters, false);
  run('bench filters, through the index', benchFilters, true);
  run('team filters, every view tested', teamFilters, false);
  run('team filters, through the index', teamFilters, true);
}
