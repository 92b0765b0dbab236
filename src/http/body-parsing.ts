// Bodies are JSON (`application/json` or `application/vnd.api+json`); anything else is 415.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.ts';

export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'string' },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        // A reviver that drops `__proto__` keeps hostile bodies from reaching object prototypes.
        done(null, JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value)));
      } catch {
        done(new ApiError('INVALID_JSON', 'Request body is not valid JSON'), undefined);
      }
    },
  );
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json or application/vnd.api+json'), undefined);
  });
}
