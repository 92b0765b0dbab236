// Adds `url` to every file in the JSON:API documents /v1 answers (atomic results too): where to download it, with a signed
// token for a protected field (the caller read it, so a browser's <img src> may fetch it for as long as
// the token lasts). Only documents of services with file fields are re-read; events and webhooks carry
// the metadata alone.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { FileUrlSigner } from '../../files/file-url-token.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { fileMetadataOf } from '../../resources/field-types/file-metadata.ts';
import { isRecord } from '../../tools/is-record.ts';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';

export function fileDownloadPath(resource: string, id: string, field: string, index?: number): string {
  const path = `/v1/${encodeURIComponent(resource)}/${encodeURIComponent(id)}/${field}`;
  return index === undefined ? path : `${path}/${index}`;
}

function withUrls(registry: ResourceRegistry, signer: FileUrlSigner, object: unknown): boolean {
  if (!isRecord(object) || typeof object.type !== 'string' || typeof object.id !== 'string') return false;
  const resource = registry.find(object.type);
  const attributes = object.attributes;
  if (!resource || !isRecord(attributes)) return false;
  let changed = false;
  for (const name of resource.fileFields) {
    if (!Object.hasOwn(attributes, name)) continue;
    const definition = resource.fields.get(name)?.definition;
    const list = definition?.type === 'files';
    const files = fileMetadataOf(attributes[name]).map((file, index) => {
      const path = fileDownloadPath(resource.name, object.id as string, name, list ? index : undefined);
      const signed = { resource: resource.name, recordId: object.id as string, field: name, fileId: file.id };
      const url = definition?.protected === false ? path : `${path}?token=${signer.sign(signed)}`;
      return { ...file, url };
    });
    attributes[name] = list ? files : (files[0] ?? null);
    changed = true;
  }
  return changed;
}

export function fileUrlHook(ctx: Pick<AppContext, 'registry' | 'files'>) {
  return (
    _request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ) => {
    const type = reply.getHeader('content-type');
    if (
      typeof payload !== 'string' ||
      typeof type !== 'string' ||
      !type.startsWith(JSON_API_MEDIA_TYPE) ||
      !ctx.registry.hasFileFields
    ) {
      done(null, payload);
      return;
    }
    const document = JSON.parse(payload) as Record<string, unknown>;
    let changed = false;
    // An atomic answer (POST /v1/operations) holds one document per operation.
    const results = document['atomic:results'];
    const objects = Array.isArray(results) ? results.map((result) => (isRecord(result) ? result.data : undefined)) : [];
    for (const member of [document.data, document.included, ...objects]) {
      for (const object of Array.isArray(member) ? member : [member])
        changed = withUrls(ctx.registry, ctx.files.signer, object) || changed;
    }
    done(null, changed ? JSON.stringify(document) : payload);
  };
}
