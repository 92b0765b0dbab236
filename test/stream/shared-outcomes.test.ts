// Streams with different filters are different views, but once an event has passed a filter, what a
// view sends depends only on its delivered fields and on which records it shows: 1,000 streams with
// 1,000 filters that all admit a record project and serialize it once. Views that would send something
// else (other fields, the record entering rather than staying) never share.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminPrincipal } from '../../src/model/principal.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import type { FilterDefinition } from '../../src/config/config-types.ts';
import { compileFilter } from '../../src/query/compile-filter.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { createEventView } from '../../src/stream/event-view.ts';
import { EVENT_KINDS } from '../../src/stream/stream-query.ts';
import { encodeEventFrame } from '../../src/stream/view-group.ts';

const ADMIN: AdminPrincipal = { kind: 'admin' } as AdminPrincipal;
const posts = compileResource('posts', {
  fields: { title: { type: 'string' }, status: { type: 'string' }, views: { type: 'integer' } },
  permissions: {},
});
const grant = resolveAccess(posts, ADMIN, 'read');

const view = (filter: FilterDefinition, fields: string[] = ['title', 'status', 'views']) =>
  createEventView(posts, grant, {
    kinds: new Set(EVENT_KINDS),
    fields,
    filter: compileFilter(filter, posts, { userId: null, role: 'admin' }),
  });

function updateEvent(before: Record<string, unknown>, after: Record<string, unknown>): RecordEvent {
  const id = uuidv7();
  return {
    id: uuidv7(),
    type: 'posts.updated',
    kind: 'updated',
    resource: 'posts',
    resourceId: id,
    createdAt: new Date().toISOString(),
    data: {
      old: { id, ...before },
      new: { id, ...after },
      changes: { added: [], updated: Object.keys(after).filter((k) => after[k] !== before[k]), removed: [] },
    },
    sessionVariables: { userId: null, role: 'editor' },
    traceContext: {},
  };
}

describe('views with different filters share what they send', () => {
  it('gives every view that admits the record before and after the same viewed event and frame', () => {
    const views = Array.from({ length: 50 }, (_, i) => view({ title: { neq: `not-${i}` } }));
    assert.equal(new Set(views).size, 50, 'fifty filters, fifty views');
    const event = updateEvent({ title: 'a', status: 'open', views: 1 }, { title: 'a', status: 'open', views: 2 });
    const viewed = views.map((v) => v(event));
    assert.equal(new Set(viewed).size, 1);
    assert.deepEqual(viewed[0], {
      kind: 'updated',
      data: {
        old: { id: event.resourceId, title: 'a', status: 'open', views: 1 },
        new: { id: event.resourceId, title: 'a', status: 'open', views: 2 },
        changes: { added: [], updated: ['views'], removed: [] },
      },
    });
    const frames = views.map((v) => encodeEventFrame(v, event, 3000));
    assert.equal(new Set(frames).size, 1, 'serialized once');
    // Another retry hint is another frame, with its own `retry:` line.
    assert.notEqual(encodeEventFrame(views[0]!, event, 1000), frames[0]);
    assert.match(encodeEventFrame(views[0]!, event, 1000)!.bytes.toString(), /^retry: 1000$/m);
  });

  it('keeps apart views that send something else: other fields, or the record entering or leaving', () => {
    const event = updateEvent({ title: 'a', status: 'open', views: 1 }, { title: 'a', status: 'closed', views: 1 });
    const always = view({ title: { eq: 'a' } })(event);
    const narrow = view({ title: { eq: 'a' } }, ['title', 'views'])(event);
    const entering = view({ status: { eq: 'closed' } })(event);
    const leaving = view({ status: { eq: 'open' } })(event);
    assert.equal(always?.kind, 'updated');
    // Only `status` changed, and this view does not deliver it: nothing to send.
    assert.equal(narrow, null);
    assert.equal(entering?.kind, 'created');
    assert.deepEqual(entering?.data.old, null);
    assert.equal(leaving?.kind, 'deleted');
    assert.deepEqual(leaving?.data.new, null);
    assert.equal(new Set([always, entering, leaving]).size, 3);
    // A second filter with the same outcome gets the first one's object.
    assert.equal(view({ views: { lt: 5 }, status: { eq: 'closed' } })(event), entering);
    // A later event is a new outcome: nothing is carried over from the first.
    const later = updateEvent({ title: 'a', status: 'closed', views: 1 }, { title: 'b', status: 'closed', views: 1 });
    assert.deepEqual(view({ title: { eq: 'a' } })(later)?.kind, 'deleted');
  });
});
