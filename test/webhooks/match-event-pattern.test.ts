import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventPatternProblem, matchEventPattern } from '../../src/webhooks/subscriptions/match-event-pattern.ts';

describe('matchEventPattern', () => {
  const cases: [pattern: string, eventType: string, matches: boolean][] = [
    ['*', 'posts.created', true],
    ['*', 'categories.deleted', true],
    ['posts.*', 'posts.created', true],
    ['posts.*', 'posts.deleted', true],
    ['posts.*', 'categories.created', false],
    ['posts.*', 'posts_archive.created', false],
    ['*.created', 'posts.created', true],
    ['*.created', 'categories.created', true],
    ['*.created', 'posts.updated', false],
    ['posts.deleted', 'posts.deleted', true],
    ['posts.deleted', 'posts.created', false],
    ['posts.deleted', 'categories.deleted', false],
  ];
  for (const [pattern, eventType, matches] of cases) {
    it(`${matches ? 'matches' : 'does not match'} ${eventType} with ${pattern}`, () => {
      assert.equal(matchEventPattern(pattern, eventType), matches);
    });
  }
});

describe('eventPatternProblem', () => {
  for (const valid of ['*', 'posts.*', '*.created', '*.updated', 'posts.deleted', 'Blog_Posts2.updated']) {
    it(`accepts ${valid}`, () => assert.equal(eventPatternProblem(valid), null));
  }
  const invalid: [pattern: string, mentions: RegExp][] = [
    ['', /may contain only/],
    ['posts created', /may contain only/],
    ['posts-created', /may contain only/],
    ['posts.created.extra', /must be/],
    ['posts', /must be/],
    ['.created', /not a resource name/],
    ['po*.created', /not a resource name/],
    ['posts.creat*', /not an event kind/],
    ['posts.published', /not an event kind/],
    ['*.*', /use "\*"/],
  ];
  for (const [pattern, mentions] of invalid) {
    it(`refuses ${JSON.stringify(pattern)}`, () => assert.match(eventPatternProblem(pattern) ?? '', mentions));
  }
});
